/* scenarios.c - the matrix scenarios.  Each one sets up fresh files under
 * /tmp/dw (or /usr/lib/dwtest), probes ONE operation into struct probe
 * (p->err = its errno, 0 = it succeeded) and kills and reaps what it
 * started.  The expected outcome is not decided here: dwtest.c applies the
 * model (expect_denied) to the scenario's scope and location.
 *
 * Never write data into a running binary or a system library: writes are
 * probed with open(O_WRONLY) + close only. */
#include "dwtest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXE DW_DIR "/exe"
#define INTERP DW_DIR "/interp"
#define SCRIPT DW_DIR "/script.sh"
#define BLOB_SIZE 8192
#define LIB_BLOB GUEST_PLUGIN_DIR "/blob"
#define TMP_BLOB DW_DIR "/blob"
#define BIND_DIR "/mnt/dwbind"

/* ---- helpers ----------------------------------------------------------- */

/* The /usr/lib scenarios need the guest's files; on any other machine they
 * fail here, before touching anything. */
static int need_guest(struct probe *p, const char *extra)
{
	const char *need[] = { GUEST_LIB, GUEST_PLUGIN, extra };

	for (size_t i = 0; i < 3; i++) {
		if (need[i] && access(need[i], R_OK)) {
			setup_fail(p, "guest layout missing: %s: %s (not in the test guest?)",
				   need[i], errtxt(errno));
			return -1;
		}
	}
	return 0;
}

/* Run `path` (exe = what /proc/PID/exe must read) until ready. */
static int start(struct proc *pr, const char *path, const char *exe,
		 const char *maps_needle, struct probe *p)
{
	int exec_err;

	if (spawn_ready(pr, path, exe, maps_needle, &exec_err, p->why,
			sizeof(p->why))) {
		p->setup_failed = true;
		return -1;
	}
	return 0;
}

/* A fresh sleeper copy at EXE, running. */
static int start_exe(struct proc *pr, struct probe *p)
{
	if (start_copy(pr, bin("sleeper"), EXE, p->why, sizeof(p->why))) {
		p->setup_failed = true;
		return -1;
	}
	return 0;
}

/* Scenarios of the form "run a fresh copy at EXE, do one thing to it"
 * (struct scenario's exe_op). */
static void with_running_exe(struct probe *p, int (*op)(struct probe *p))
{
	struct proc pr;

	if (start_exe(&pr, p))
		return;
	p->err = op(p);
	proc_kill(&pr);
}

void run_scenario(const struct scenario *s, const struct scenario_env *env,
		  struct probe *p)
{
	if (s->exe_op)
		with_running_exe(p, s->exe_op);
	else
		s->run(env, p);
}

static int op_write(struct probe *p)
{
	(void)p;
	return probe_open(EXE, O_WRONLY);
}

static int op_otrunc(struct probe *p)
{
	(void)p;
	return probe_open(EXE, O_RDONLY | O_TRUNC);
}

static int op_truncate(struct probe *p)
{
	struct stat st;

	if (stat(EXE, &st)) {
		setup_fail(p, "stat %s: %s", EXE, errtxt(errno));
		return 0;
	}
	return truncate(EXE, st.st_size) ? errno : 0;
}

static int op_rename_over(struct probe *p)
{
	if (copy_fresh(bin("sleeper"), DW_DIR "/new", 0755)) {
		setup_fail(p, "copy to %s/new: %s", DW_DIR, errtxt(errno));
		return 0;
	}
	return rename(DW_DIR "/new", EXE) ? errno : 0;
}

static int op_unlink(struct probe *p)
{
	(void)p;
	return unlink(EXE) ? errno : 0;
}

static int op_write_via_hardlink(struct probe *p)
{
	if (link(EXE, DW_DIR "/link")) {
		setup_fail(p, "link %s: %s", EXE, errtxt(errno));
		return 0;
	}
	return probe_open(DW_DIR "/link", O_WRONLY);
}

/* A process that maps a file (see struct map_req) and can mprotect it.  It
 * answers {stage, errno} once mapped. */
enum map_stage { MAP_OK, MAP_OPEN_FAILED, MAP_MMAP_FAILED };
struct map_req {
	const char *path;
	int prot;
};

static void mapper_main(int cmd, int res, void *arg)
{
	const struct map_req *r = arg;
	int out[2] = { MAP_OK, 0 };
	void *m = MAP_FAILED;
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);
	char c;

	if (fd < 0) {
		out[0] = MAP_OPEN_FAILED;
		out[1] = errno;
	} else {
		m = mmap(NULL, BLOB_SIZE, r->prot, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			out[0] = MAP_MMAP_FAILED;
			out[1] = errno;
		}
		close(fd);
	}
	send_ints(res, out, 2);
	while (read(cmd, &c, 1) == 1) {
		int e = m == MAP_FAILED ? EINVAL : 0;

		if (!e && mprotect(m, BLOB_SIZE, PROT_READ | PROT_EXEC))
			e = errno;
		send_ints(res, &e, 1);
	}
	_exit(0);
}

/* Returns the mprotect errno, or -1 if the mapper did not answer. */
static int mapper_mprotect_exec(struct helper *h)
{
	int e;

	if (helper_send(h, 'X') || helper_recv(h, &e, 1, WAIT_MS))
		return -1;
	return e;
}

/* Start a mapper.  Returns 0 when mapped (stop it with helper_stop); 1 when
 * mmap itself failed (its errno in *map_err; the mapper is already gone);
 * -1 (setup failure recorded) otherwise. */
static int start_mapper(struct helper *h, struct map_req *r, struct probe *p,
			int *map_err)
{
	int res[2];

	if (helper_start(h, mapper_main, r)) {
		setup_fail(p, "fork mapper: %s", errtxt(errno));
		return -1;
	}
	if (helper_recv(h, res, 2, WAIT_MS)) {
		setup_fail(p, "mapper did not answer: %s", errtxt(errno));
	} else if (res[0] == MAP_OPEN_FAILED) {
		setup_fail(p, "mapper: open %s: %s", r->path, errtxt(res[1]));
	} else {
		*map_err = res[0] == MAP_MMAP_FAILED ? res[1] : 0;
		if (!*map_err)
			return 0;
		helper_stop(h);
		return 1;
	}
	helper_stop(h);
	return -1;
}

static int fresh_blob(const char *path, struct probe *p)
{
	if (make_blob(path, BLOB_SIZE)) {
		setup_fail(p, "create %s: %s", path, errtxt(errno));
		return -1;
	}
	return 0;
}

/* A child maps map_path PROT_READ|PROT_EXEC; then probe a write open of
 * write_path (the same file). */
static void map_then_write(struct probe *p, const char *map_path,
			   const char *write_path)
{
	struct map_req r = { map_path, PROT_READ | PROT_EXEC };
	struct helper h;
	int map_err, rc = start_mapper(&h, &r, p, &map_err);

	if (rc == 1)
		setup_fail(p, "mmap %s PROT_EXEC: %s", map_path, errtxt(map_err));
	if (rc == 0)
		p->err = probe_open(write_path, O_WRONLY);
	helper_stop(&h);
}

/* ---- scenarios --------------------------------------------------------- */

#define UNUSED_ENV (void)env

static void sc_exec_while_open_for_write(const struct scenario_env *env,
					 struct probe *p)
{
	struct proc pr;
	int fd, exec_err;
	char why[512];

	UNUSED_ENV;
	if (copy_fresh(bin("sleeper"), EXE, 0755)) {
		setup_fail(p, "copy to %s: %s", EXE, errtxt(errno));
		return;
	}
	fd = open(EXE, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		setup_fail(p, "open %s O_WRONLY: %s", EXE, errtxt(errno));
		return;
	}
	if (spawn_ready(&pr, EXE, EXE, NULL, &exec_err, why, sizeof(why)) == 0)
		p->err = 0;
	else if (exec_err)
		p->err = exec_err;
	else
		setup_fail(p, "%s", why);
	close(fd);
	proc_kill(&pr);
}

static void sc_write_after_reaped(const struct scenario_env *env,
				  struct probe *p)
{
	struct proc pr;
	long long t0, lag;

	UNUSED_ENV;
	if (start_exe(&pr, p))
		return;
	proc_kill(&pr); /* SIGKILL + waitpid */
	t0 = now_us();
	for (;;) {
		p->err = probe_open(EXE, O_WRONLY);
		if (p->err != ETXTBSY || now_us() - t0 > 5000)
			break;
		p->extra_denials++;
		sleep_us(100);
	}
	lag = now_us() - t0;
	snprintf(p->why, sizeof(p->why),
		 "writable %.3f ms after waitpid (%d ETXTBSY retries)%s",
		 (double)lag / 1000.0, p->extra_denials,
		 p->err == ETXTBSY ? ", still busy after 5 ms" : "");
}

static void sc_write_while_forked_child_runs(const struct scenario_env *env,
					     struct probe *p)
{
	char *argv[] = { EXE, NULL };
	struct proc pr, child = { -1, -1, -1 };
	char line[64], r;
	int st = -1;

	UNUSED_ENV;
	if (copy_fresh(bin("forker"), EXE, 0755)) {
		setup_fail(p, "copy forker to %s: %s", EXE, errtxt(errno));
		return;
	}
	if (proc_spawn(&pr, EXE, argv, SPAWN_CAPTURE_OUT, -1)) {
		setup_fail(p, "spawn %s: %s", EXE, errtxt(errno));
		return;
	}
	read_all_timeout(pr.out, line, sizeof(line), WAIT_MS);
	child.pid = atoi(line);
	if (reap_pid(pr.pid, WAIT_MS, &st) == 0)
		pr.pid = -1;
	if (child.pid <= 0 || st != 0) {
		setup_fail(p, "forker printed '%s', wait status 0x%x", line, st);
	} else if (read_timeout(pr.ready, &r, 1, WAIT_MS) != 1 || r != 'R') {
		setup_fail(p, "forked child %d never signalled readiness",
			   (int)child.pid);
	} else if (wait_exe(child.pid, EXE, NULL, WAIT_MS, p->why, sizeof(p->why))) {
		p->setup_failed = true;
	} else {
		p->err = probe_open(EXE, O_WRONLY);
	}
	proc_kill(&child); /* reparented to us: we are a subreaper */
	proc_kill(&pr);
}

/* Run SCRIPT ("#!INTERP"), then probe a write open of target. */
static void running_script(struct probe *p, const char *target)
{
	struct proc pr;

	if (copy_fresh(bin("sleeper"), INTERP, 0755) ||
	    write_file(SCRIPT, "#!" INTERP "\n", 0755)) {
		setup_fail(p, "create %s / %s: %s", INTERP, SCRIPT, errtxt(errno));
		return;
	}
	if (start(&pr, SCRIPT, INTERP, NULL, p))
		return;
	p->err = probe_open(target, O_WRONLY);
	proc_kill(&pr);
}

static void sc_script_interpreter_write(const struct scenario_env *env,
					struct probe *p)
{
	UNUSED_ENV;
	running_script(p, INTERP);
}

static void sc_running_script_write(const struct scenario_env *env,
				    struct probe *p)
{
	UNUSED_ENV;
	running_script(p, SCRIPT);
}

static void sc_cp_over_running_lib(const struct scenario_env *env,
				   struct probe *p)
{
	char *argv[] = { "cp", GUEST_LIB ".copy", GUEST_LIB, NULL };
	char output[512];
	struct proc pr;
	int st = 0;

	UNUSED_ENV;
	if (need_guest(p, NULL))
		return;
	/* identical content: an allowed cp rewrites the same bytes */
	if (copy_fresh(GUEST_LIB, GUEST_LIB ".copy", 0755)) {
		setup_fail(p, "copy %s to %s.copy: %s", GUEST_LIB, GUEST_LIB,
			   errtxt(errno));
		return;
	}
	if (start(&pr, bin("dynsleep"), bin("dynsleep"), GUEST_LIB, p))
		return;
	if (run_cmd(argv, WAIT_MS, output, sizeof(output), &st)) {
		setup_fail(p, "cannot run cp: %s", errtxt(errno));
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		p->err = 0;
	} else if (strstr(output, "Text file busy")) {
		p->err = ETXTBSY;
		snprintf(p->why, sizeof(p->why), "cp: %s", output);
	} else {
		snprintf(p->other, sizeof(p->other), "cp-status-0x%x", st);
		snprintf(p->why, sizeof(p->why), "cp failed (wait status 0x%x): %s",
			 st, output);
	}
	proc_kill(&pr);
}

/* Run a dynamically linked sleeper until maps shows `mapped`, then probe a
 * write open of it. */
static void write_mapped_by(struct probe *p, const char *prog,
			    const char *mapped)
{
	char real[4096];
	struct proc pr;

	if (need_guest(p, mapped))
		return;
	/* /proc/PID/maps names the file behind any symlink */
	if (!realpath(mapped, real))
		snprintf(real, sizeof(real), "%s", mapped);
	if (start(&pr, bin(prog), bin(prog), real, p))
		return;
	p->err = probe_open(mapped, O_WRONLY);
	proc_kill(&pr);
}

static void sc_dlopen_lib_write(const struct scenario_env *env, struct probe *p)
{
	UNUSED_ENV;
	write_mapped_by(p, "dlsleep", GUEST_PLUGIN);
}

static void sc_elf_interpreter_write(const struct scenario_env *env,
				     struct probe *p)
{
	UNUSED_ENV;
	write_mapped_by(p, "dynsleep", GUEST_LDSO);
}

static void sc_mmap_exec_write(const struct scenario_env *env, struct probe *p)
{
	UNUSED_ENV;
	if (need_guest(p, NULL) || fresh_blob(LIB_BLOB, p))
		return;
	map_then_write(p, LIB_BLOB, LIB_BLOB);
}

static void sc_mprotect_exec_write(const struct scenario_env *env,
				   struct probe *p)
{
	struct map_req r = { LIB_BLOB, PROT_READ };
	struct helper h;
	int map_err, e;

	UNUSED_ENV;
	if (need_guest(p, NULL) || fresh_blob(LIB_BLOB, p))
		return;
	if (start_mapper(&h, &r, p, &map_err)) {
		if (!p->setup_failed)
			setup_fail(p, "mmap PROT_READ: %s", errtxt(map_err));
		return;
	}
	e = probe_open(LIB_BLOB, O_WRONLY);
	if (e) {
		setup_fail(p, "open O_WRONLY before mprotect (must succeed): %s",
			   errtxt(e));
	} else if ((e = mapper_mprotect_exec(&h)) != 0) {
		setup_fail(p, "mprotect PROT_READ|PROT_EXEC (must succeed): %s",
			   e < 0 ? "mapper did not answer" : errtxt(e));
	} else {
		p->err = probe_open(LIB_BLOB, O_WRONLY);
	}
	helper_stop(&h);
}

static void sc_mmap_exec_while_open_for_write(const struct scenario_env *env,
					      struct probe *p)
{
	struct map_req r = { LIB_BLOB, PROT_READ | PROT_EXEC };
	struct helper h;
	int fd, map_err;

	UNUSED_ENV;
	if (need_guest(p, NULL) || fresh_blob(LIB_BLOB, p))
		return;
	fd = open(LIB_BLOB, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		setup_fail(p, "open %s O_WRONLY: %s", LIB_BLOB, errtxt(errno));
		return;
	}
	if (start_mapper(&h, &r, p, &map_err) >= 0)
		p->err = map_err;
	helper_stop(&h);
	close(fd);
}

static void sc_bind_mount_lib_write(const struct scenario_env *env,
				    struct probe *p)
{
	UNUSED_ENV;
	if (need_guest(p, NULL) || fresh_blob(LIB_BLOB, p))
		return;
	if (mkdir_p(BIND_DIR, 0755) ||
	    mount(GUEST_PLUGIN_DIR, BIND_DIR, NULL, MS_BIND, NULL)) {
		setup_fail(p, "bind mount %s on %s: %s", GUEST_PLUGIN_DIR, BIND_DIR,
			   errtxt(errno));
		return;
	}
	map_then_write(p, BIND_DIR "/blob", LIB_BLOB);
	if (umount2(BIND_DIR, 0) && umount2(BIND_DIR, MNT_DETACH))
		fprintf(stderr, "dwtest: umount %s: %s\n", BIND_DIR, errtxt(errno));
}

static void sc_outside_rules_mmap_write(const struct scenario_env *env,
					struct probe *p)
{
	UNUSED_ENV;
	if (fresh_blob(TMP_BLOB, p))
		return;
	map_then_write(p, TMP_BLOB, TMP_BLOB);
}

static void sc_mode_switch_to_off_write(const struct scenario_env *env,
					struct probe *p)
{
	struct proc pr;
	char why[512];

	if (start_exe(&pr, p))
		return;
	if (cli(why, sizeof(why), "mode", "off", NULL, NULL)) {
		setup_fail(p, "%s", why);
	} else {
		p->err = probe_open(EXE, O_WRONLY);
		if (cli(why, sizeof(why), "mode", mode_names[env->mode], NULL, NULL)) {
			snprintf(p->other, sizeof(p->other), "mode-restore-failed");
			snprintf(p->why, sizeof(p->why), "write open %s, then %s",
				 errtxt(p->err), why);
		}
	}
	proc_kill(&pr);
}

#define RUN(n, sc, loc, op) { #n, sc, loc, op, NULL, false, sc_##n, NULL }
#define EXE_OP(n, sc, op, fn) { #n, sc, LOC_TMP, op, NULL, false, NULL, fn }
const struct scenario scenarios[] = {
	EXE_OP(write_running_exe, SC_EXEC, OP_WRITE, op_write),
	EXE_OP(otrunc_running_exe, SC_EXEC, OP_TRUNCATE, op_otrunc),
	{ "truncate_running_exe", SC_EXEC, LOC_TMP, OP_TRUNCATE, NULL, false,
	  NULL, op_truncate },
	RUN(exec_while_open_for_write, SC_EXEC, LOC_TMP, OP_EXEC),
	RUN(write_after_reaped, SC_NEVER, LOC_TMP, OP_WRITE),
	EXE_OP(rename_over_running_exe, SC_NEVER, OP_WRITE, op_rename_over),
	EXE_OP(unlink_running_exe, SC_NEVER, OP_WRITE, op_unlink),
	EXE_OP(write_via_hardlink, SC_EXEC, OP_WRITE, op_write_via_hardlink),
	RUN(write_while_forked_child_runs, SC_EXEC, LOC_TMP, OP_WRITE),
	RUN(script_interpreter_write, SC_EXEC, LOC_TMP, OP_WRITE),
	RUN(running_script_write, SC_NEVER, LOC_TMP, OP_WRITE),
	/* cp opens with O_WRONLY|O_CREAT|O_TRUNC. */
	{ "cp_over_running_lib", SC_LIB, LOC_USRLIB, OP_WRITE, NULL, true,
	  sc_cp_over_running_lib, NULL },
	RUN(dlopen_lib_write, SC_LIB, LOC_USRLIB, OP_WRITE),
	RUN(elf_interpreter_write, SC_LIB, LOC_USRLIB, OP_WRITE),
	RUN(mmap_exec_write, SC_LIB, LOC_USRLIB, OP_WRITE),
	RUN(mprotect_exec_write, SC_LIB, LOC_USRLIB, OP_WRITE),
	RUN(mmap_exec_while_open_for_write, SC_LIB, LOC_USRLIB, OP_MMAP),
	RUN(bind_mount_lib_write, SC_LIB, LOC_USRLIB, OP_WRITE),
	RUN(outside_rules_mmap_write, SC_LIB, LOC_TMP, OP_WRITE),
	{ "mode_switch_to_off_write", SC_NEVER, LOC_TMP, OP_WRITE,
	  "it switches denywrite's mode, which the stock and removed kernels "
	  "have not", false, sc_mode_switch_to_off_write, NULL },
};
const size_t n_scenarios = sizeof(scenarios) / sizeof(scenarios[0]);
