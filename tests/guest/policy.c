/* policy.c - drive the policy through denywritectl, read the securityfs
 * stats and watch the kernel log (see dwtest.h). */
#include "dwtest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const stat_keys[ST_COUNT] = {
	"rules", "protected", "denied_write", "denied_truncate",
	"denied_exec", "denied_mmap", "audited",
};

int cli(char *why, size_t whylen, const char *a1, const char *a2,
	const char *a3, const char *a4)
{
	const char *args[] = { cfg.cli, a1, a2, a3, a4, NULL };
	char cmd[512] = "denywritectl", output[512];
	int status = 0;

	for (int i = 1; args[i]; i++) {
		size_t n = strlen(cmd);

		snprintf(cmd + n, sizeof(cmd) - n, " %s", args[i]);
	}
	if (run_cmd((char *const *)args, WAIT_MS, output, sizeof(output), &status)) {
		if (errno == ETIMEDOUT)
			snprintf(why, whylen, "%s: timed out after %d ms (killed)", cmd,
				 WAIT_MS);
		else
			snprintf(why, whylen, "%s: cannot run %s: %s", cmd, cfg.cli,
				 errtxt(errno));
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (output[0])
			fprintf(stderr, "dwtest: %s: %s\n", cmd, output);
		return 0;
	}
	if (WIFEXITED(status))
		snprintf(why, whylen, "%s: exit %d: %s", cmd, WEXITSTATUS(status),
			 output[0] ? output : "(no output)");
	else
		snprintf(why, whylen, "%s: killed by signal %d", cmd,
			 WTERMSIG(status));
	return -1;
}

/* Read securityfs file `name` and compare with want exactly. */
static int expect_sfs(const char *name, const char *want, char *why,
		      size_t whylen)
{
	char path[4200], got[4096];

	snprintf(path, sizeof(path), "%s/%s", cfg.sfs, name);
	if (read_file(path, got, sizeof(got))) {
		snprintf(why, whylen, "policy check: read %s: %s", path,
			 errtxt(errno));
		return -1;
	}
	if (strcmp(got, want)) {
		size_t n = strlen(got);

		one_line(got);
		snprintf(why, whylen,
			 "policy check: %s reads '%s' (%zu bytes), expected '%.*s' (%zu bytes)",
			 path, got, n, (int)strcspn(want, "\n"), want, strlen(want));
		return -1;
	}
	return 0;
}

int apply_policy(const char *flag, const char *path, const char *mode,
		 char *why, size_t whylen)
{
	char rules[4200] = "", mode_line[32];

	if (cli(why, whylen, "clear", NULL, NULL, NULL))
		return -1;
	if (flag) {
		/* flag may be "--exec --ignore-writers": split it for argv */
		char f1[64], *f2;

		snprintf(f1, sizeof(f1), "%s", flag);
		f2 = strchr(f1, ' ');
		if (f2)
			*f2++ = '\0';
		if (cli(why, whylen, "add", f1, f2 ? f2 : path, f2 ? path : NULL))
			return -1;
		/* "--exec --ignore-writers" -> "exec,ignore-writers" */
		snprintf(rules, sizeof(rules), "%s%s%s %s\n", f1 + 2,
			 f2 ? "," : "", f2 ? f2 + 2 : "", path);
	}
	if (cli(why, whylen, "mode", mode, NULL, NULL))
		return -1;
	snprintf(mode_line, sizeof(mode_line), "%s\n", mode);
	if (expect_sfs("mode", mode_line, why, whylen) ||
	    expect_sfs("rules", rules, why, whylen))
		return -1;
	return 0;
}

int apply_ruleset(enum ruleset rs, enum mode m, char *why, size_t whylen)
{
	return apply_policy(rulesets[rs].flag, rulesets[rs].path, mode_names[m],
			    why, whylen);
}

int restore_default_policy(char *why, size_t whylen)
{
	if (cli(why, whylen, "mode", "enforce", NULL, NULL) ||
	    cli(why, whylen, "clear", NULL, NULL, NULL) ||
	    cli(why, whylen, "add", "--exec", "/", NULL))
		return -1;
	return expect_sfs("mode", "enforce\n", why, whylen) ||
	       expect_sfs("rules", "exec /\n", why, whylen) ? -1 : 0;
}

int read_stats(struct stats *s, char *why, size_t whylen)
{
	char path[4200], buf[1024], *line, *save = NULL;
	int i = 0;

	snprintf(path, sizeof(path), "%s/stats", cfg.sfs);
	if (read_file(path, buf, sizeof(buf))) {
		snprintf(why, whylen, "read %s: %s", path, errtxt(errno));
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line && i < ST_COUNT;
	     line = strtok_r(NULL, "\n", &save), i++) {
		size_t n = strlen(stat_keys[i]);
		char *end;

		if (strncmp(line, stat_keys[i], n) || line[n] != ' ')
			break;
		s->v[i] = strtoll(line + n + 1, &end, 10);
		if (*end || end == line + n + 1)
			break;
	}
	if (i != ST_COUNT) {
		snprintf(why, whylen, "%s: expected '%s N' as line %d", path,
			 stat_keys[i < ST_COUNT ? i : 0], i + 1);
		return -1;
	}
	return 0;
}

const char *check_deltas(const struct stats *before, const struct stats *after,
			 const struct deltas *exp)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	for (int k = ST_DENIED_WRITE; k <= ST_AUDITED; k++) {
		long long want = k == ST_AUDITED ? exp->audited
						 : exp->denied[k - ST_DENIED_WRITE];
		long long got = after->v[k] - before->v[k];

		if (got != want && n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "%s%s %+lld (expected %+lld)",
					      n ? ", " : "", stat_keys[k], got, want);
	}
	return n ? buf : NULL;
}

int klog_mark(struct klog *k, char *why, size_t whylen)
{
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0) {
		snprintf(why, whylen, "open /dev/kmsg: %s", errtxt(errno));
		return -1;
	}
	if (lseek(k->fd, 0, SEEK_END) < 0) {
		snprintf(why, whylen, "seek /dev/kmsg: %s", errtxt(errno));
		klog_close(k);
		return -1;
	}
	return 0;
}

/* "op=<op>" not followed by another name character. */
static bool has_op(const char *rec, const char *op)
{
	char key[32];
	size_t n = (size_t)snprintf(key, sizeof(key), "op=%s", op);

	for (const char *p = strstr(rec, key); p; p = strstr(p + 1, key))
		if (p[n] == '\0' || p[n] == ' ' || p[n] == '\n')
			return true;
	return false;
}

int klog_wait(struct klog *k, const char *op, int timeout_ms, char *why,
	      size_t whylen)
{
	long long deadline = now_us() + (long long)timeout_ms * 1000;
	char rec[8192];

	for (;;) {
		ssize_t n = read(k->fd, rec, sizeof(rec) - 1);

		if (n > 0) {
			rec[n] = '\0';
			if (strstr(rec, "denywrite") && has_op(rec, op))
				return 0;
			continue;
		}
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue; /* records overwritten: go on reading */
		if (n < 0 && errno != EAGAIN) {
			snprintf(why, whylen, "read /dev/kmsg: %s", errtxt(errno));
			return -1;
		}
		if (now_us() >= deadline)
			break;
		sleep_us(10000);
	}
	snprintf(why, whylen,
		 "no kernel log line with 'denywrite' and 'op=%s' within %d ms", op,
		 timeout_ms);
	return -1;
}

void klog_close(struct klog *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/* The audit subsystem prints records through printk_ratelimit() when no
 * audit daemon runs (10 per 5 s by default): lift it for the run. */
#define PRINTK_RATELIMIT "/proc/sys/kernel/printk_ratelimit"
static char saved_ratelimit[32];

void printk_ratelimit_off(void)
{
	int fd;

	if (strcmp(cfg.sfs, "/sys/kernel/security/denywrite") ||
	    access(cfg.sfs, F_OK) || read_file(PRINTK_RATELIMIT, saved_ratelimit,
					      sizeof(saved_ratelimit))) {
		saved_ratelimit[0] = '\0';
		return;
	}
	fd = open(PRINTK_RATELIMIT, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0\n", 2) != 2)
		fprintf(stderr, "dwtest: cannot lift printk rate limit: %s\n",
			errtxt(errno));
	if (fd >= 0)
		close(fd);
}

void printk_ratelimit_restore(void)
{
	int fd;
	size_t n = strlen(saved_ratelimit);

	if (!n)
		return;
	fd = open(PRINTK_RATELIMIT, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, saved_ratelimit, n) != (ssize_t)n)
		fprintf(stderr, "dwtest: cannot restore printk rate limit: %s\n",
			errtxt(errno));
	if (fd >= 0)
		close(fd);
}
