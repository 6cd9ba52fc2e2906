/* stress_churn.c - no process is killed by a policy change.
 *
 * Rules are added and removed in a loop (direct writes to add and del)
 * while programs exec and load libraries: a dynamically linked program
 * (stressdl, linked against libdwtest.so) under the churned directory,
 * dlopen()ing a plugin there, with a writer that opens both now and then so
 * that refusals happen too.  A refusal must be a clean error (the exec or
 * the dlopen fails with ETXTBSY); no process may die of a signal, whatever
 * the policy did while it started.
 */
#include "stress.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUNNERS 2
#define RUN_MS 10000
#define EXIT_DLOPEN_BUSY 10 /* stressdl once: dlopen refused with ETXTBSY */

/* The loop of rule changes; %s is the churned directory.  Each write must
 * succeed in this order, starting from POLICY_BASE. */
static const struct {
	const char *file, *text;
} churn[] = {
	{ "add", "all %s" },
	{ "add", "lib /usr/lib" },
	{ "del", "%s" },
	{ "add", "exec,ignore-writers %s" },
	{ "del", "/usr/lib" },
	{ "add", "lib %s/plugin.so" },
	{ "del", "%s" },
	{ "del", "%s/plugin.so" },
};

struct churner {
	const struct scase *c;
	char dir[256], prog[300], plugin[300];
	_Atomic int stop;
	_Atomic long writes;	/* rule writes done */
	long dl_refused;	/* runs whose dlopen was refused */
	long refused, opened;	/* the writer's opens */
	int err;
	char what[320];
};

static void *churn_main(void *arg)
{
	struct churner *ch = arg;
	char text[280];

	for (size_t i = 0; !atomic_load(&ch->stop); i = (i + 1) % (sizeof(churn) / sizeof(churn[0]))) {
		int err;

		snprintf(text, sizeof(text), churn[i].text, ch->dir);
		err = sfs_write(churn[i].file, text);
		if (err && !ch->err) {
			ch->err = err;
			snprintf(ch->what, sizeof(ch->what), "%s <- %s", churn[i].file, text);
		}
		atomic_fetch_add(&ch->writes, 1);
		sleep_us(500);
	}
	return NULL;
}

static void *writer_main(void *arg)
{
	struct churner *ch = arg;
	unsigned r = 12345;

	for (long n = 0; !atomic_load(&ch->stop); n++) {
		const char *path = n & 1 ? ch->plugin : ch->prog;
		int fd = open(path, O_WRONLY | O_CLOEXEC);

		r = r * 1103515245 + 12345;
		if (fd < 0) {
			ch->refused += errno == ETXTBSY;
		} else {
			ch->opened++;
			shm_spin_us(r % (unsigned)(ch->c->hold_us + 1));
			close(fd);
		}
		sleep_us(r % 1000);
	}
	return NULL;
}

static pid_t spawn_runner(struct churner *ch, int slot)
{
	char *argv[] = { ch->prog, "once", ch->plugin, NULL };

	memset(&shm->rec[slot], 0, sizeof(shm->rec[slot]));
	return spawn_exec(slot, ch->prog, argv, NULL, 0);
}

/* A runner ended with exit code code: count how. */
static void count_run(struct churner *ch, struct tally *t, int slot, int code,
		      long writes_before)
{
	const struct shm_rec *r = &shm->rec[slot];
	bool exec_failed = atomic_load(&r->state) == REC_FAILED;

	st_add(t, ST_ROUNDS, 1);
	st_add(t, ST_CLOSE, atomic_load(&ch->writes) != writes_before);
	if (exec_failed && r->err != ETXTBSY)
		bad(t, CK_NO_UNEXPECTED, "execve %s: %s", ch->prog, errtxt(r->err));
	st_add(t, ST_WRITER_WON, exec_failed || code == EXIT_DLOPEN_BUSY);
	ch->dl_refused += !exec_failed && code == EXIT_DLOPEN_BUSY;
}

static int prepare(struct churner *ch)
{
	snprintf(ch->dir, sizeof(ch->dir), WORK "/%s", ch->c->name);
	snprintf(ch->prog, sizeof(ch->prog), "%s/prog", ch->dir);
	snprintf(ch->plugin, sizeof(ch->plugin), "%s/plugin.so", ch->dir);
	return mkdir_p(ch->dir, 0755) || make_target(bin("stressdl"), ch->prog) ||
	       make_target(PLUGIN_SRC, ch->plugin) ? -1 : 0;
}

/* Keep RUNNERS programs running until the budget is spent. */
static void run_programs(struct churner *ch, struct tally *t)
{
	static const int ok_codes[] = { EXIT_DLOPEN_BUSY, -1 };
	long long end = now_us() + ch->c->budget_ms * 1000LL;
	struct { pid_t pid; long writes; } run[RUNNERS] = { { 0, 0 } };
	int code;

	for (;;) {
		for (int i = 0; i < RUNNERS && now_us() < end; i++)
			if (run[i].pid <= 0) {
				run[i].writes = atomic_load(&ch->writes);
				run[i].pid = spawn_runner(ch, i);
				st_add(t, ST_FORKS, 1);
			}
		pid_t pid = reap_one(t, RUN_MS, false, ok_codes, &code);

		if (pid <= 0)
			break;
		for (int i = 0; i < RUNNERS; i++)
			if (run[i].pid == pid) {
				run[i].pid = 0;
				count_run(ch, t, i, code, run[i].writes);
			}
	}
}

void run_churn(const struct scase *c, struct tally *t)
{
	static struct churner ch;
	pthread_t churner, writer;
	long denied_mmap = read_stat("denied_mmap");
	int err;

	memset(&ch, 0, sizeof(ch));
	ch.c = c;
	st_add(t, ST_KILLED, 0);
	st_add(t, ST_WRITER_WON, 0);
	st_add(t, ST_CLOSE, 0);
	if (prepare(&ch) || pthread_create(&churner, NULL, churn_main, &ch)) {
		bad(t, CK_NO_UNEXPECTED, "setup: %s", errtxt(errno));
		return;
	}
	if (pthread_create(&writer, NULL, writer_main, &ch)) {
		atomic_store(&ch.stop, 1);
		pthread_join(churner, NULL);
		bad(t, CK_NO_UNEXPECTED, "setup: %s", errtxt(errno));
		return;
	}
	run_programs(&ch, t);
	atomic_store(&ch.stop, 1);
	pthread_join(churner, NULL);
	pthread_join(writer, NULL);
	reap_rest(t, 5000);
	st_add(t, ST_RULE_WRITES, atomic_load(&ch.writes));
	st_add(t, ST_EXEC_WON, ch.refused);
	if (ch.err)
		bad(t, CK_NO_UNEXPECTED, "%s: %s", ch.what, errtxt(ch.err));
	/* see stressdl.c: a failed segment mapping counts as a refusal */
	if (read_stat("denied_mmap") - denied_mmap < ch.dl_refused)
		bad(t, CK_NO_UNEXPECTED, "%ld dlopens failed to map the plugin, denywrite refused fewer mmaps",
		    ch.dl_refused);
	if ((err = sfs_write("rules", POLICY_BASE)))
		bad(t, CK_NO_UNEXPECTED, "restoring the policy: %s", errtxt(err));
	if (wait_writable(ch.prog, 2000) < 0 || wait_writable(ch.plugin, 2000) < 0)
		bad(t, CK_WRITABLE, "%s or %s is not writable after the case", ch.prog, ch.plugin);
}
