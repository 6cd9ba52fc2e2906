/* coverage - guest tests of the coverage holes of issue 7 (sections 1, 2,
 * 4 and 5): overlayfs, files outside the mount tree, writes through
 * descriptors opened before protection, and who may hold a file by mapping
 * it.  Runs as root in the guest with denywrite active; sets each case's
 * policy itself through SFS_DIR/{mode,rules} and restores the mode and rules
 * it found.
 *
 * Output: "PLAN coverage N", then one PASS/FAIL line a check, named
 * <case>_<what>_<denied|allowed|refused_<errno>>_in_enforce[<rules>].
 * Every check compares the errno of one operation with the expected one
 * and, around that operation, the stats counters: an expected ETXTBSY must
 * move its counter by exactly one, and nothing else may move.  Exit 0 iff
 * no check failed.
 */
#include "coverage.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- the cases --------------------------------------------------------- */

#define ALL_ROOT "all /"
#define EXEC_ROOT "exec /"
#define IGNORE_WRITERS "exec,ignore-writers " EXT4_DIR
#define IGNORE_WRITERS_XFS "exec,ignore-writers " XFS_DIR

/* open(O_WRONLY) of target i as user u must give errno e (0: succeed);
 * a refusal counts in denied_write.  OVL_DENIED: both names of an overlay
 * file, the merged one and the real one in its layer, refused. */
#define WRITE_AS(w, i, u, e) { w, probe_write, i, u, e, CT_WRITE }
#define DENIED(w, i) WRITE_AS(w, i, 0, ETXTBSY)
#define ALLOWED(w, i) WRITE_AS(w, i, 0, 0)
#define OVL_DENIED(real) { DENIED("write_merged", 0), DENIED("write_" real, 1) }

/* Section 4: one change through the old writer fd, refused and counted. */
#define OLD_WRITER(n, fn, mode)                                        \
	{ "old_writer_fd", IGNORE_WRITERS, prep_old_writer, NULL,      \
	  hold_spawn, &run_target,                                     \
	  { { n, fn, mode, 0, ETXTBSY, CT_WRITE } } }

static const struct ovl_file upper_lib = { GUEST_LIB, "libdwtest.so", false };
static const struct ovl_file lower_lib = { GUEST_LIB, "libdwtest.so", true };
static const struct ovl_file upper_prog = { NULL, "prog", false };
static const struct ovl_file lower_plugin = { GUEST_PLUGIN, "libdwplugin.so",
					      true };
static const struct ovl_file lower_ldso = { GUEST_LDSO,
					    "ld-linux-x86-64.so.2", true };

static const struct map_def map_close = { 0, PROT_READ | PROT_EXEC, 0, false,
					  0 };
static const struct map_def map_then_mprotect = {
	0, PROT_READ, PROT_READ | PROT_EXEC, false, 0
};
static const struct map_def nobody_maps = { 65534, PROT_READ | PROT_EXEC, 0,
					    false, 0 };
static const struct map_def noexec_map = { 0, PROT_READ | PROT_EXEC, 0, true,
					   EPERM };

static const struct spawn_def run_target = { NULL, NULL, false };
static const struct spawn_def dynsleep_ovl = { "dynsleep", OVL_MERGED, false };
static const struct spawn_def dlsleep_ovl = { "dlsleep", NULL, true };
static const struct spawn_def ovlsleep = { "ovlsleep", NULL, false };

static const struct plain_file tree_prog = { NULL, COV_DIR "/tree", "prog", 0,
					     NULL, 0 };
static const struct plain_file lazy_prog = { NULL, COV_DIR "/lazy", "prog", 0,
					     "mode=0755", 0 };
static const struct plain_file pivot_prog = { NULL, COV_DIR "/pivot", "prog",
					      0, NULL, 0 };
static const struct plain_file lib_of_1000 = { GUEST_LIB, COV_DIR "/u1000",
					       "lib.so", 1000, NULL, 0 };
static const struct plain_file lib_of_root = { GUEST_LIB, COV_DIR "/uroot",
					       "lib.so", 0, NULL, 0 };
static const struct plain_file noexec_lib = { GUEST_LIB, COV_DIR "/noexec",
					      "lib.so", 0, "mode=0755",
					      MS_NOEXEC };

static const struct cov_case cases[] = {
	/* 1. overlayfs: protection follows the mapping, on both names; exec's
	 * denial holds the merged file only. */
	{ "overlay_upper_lib_closed_fd", ALL_ROOT, prep_overlay, &upper_lib,
	  hold_map, &map_close, OVL_DENIED("upper") },
	{ "overlay_lower_lib_closed_fd", ALL_ROOT, prep_overlay, &lower_lib,
	  hold_map, &map_close, OVL_DENIED("lower") },
	/* Exec's denial holds the file exec opened, the merged one, as the
	 * stock kernel's does: the upper file itself may be written. */
	{ "overlay_exec_upper_prog", EXEC_ROOT, prep_overlay, &upper_prog,
	  hold_spawn, &run_target,
	  { DENIED("write_merged", 0), ALLOWED("write_upper", 1) } },
	{ "overlay_linked_lib_upper", ALL_ROOT, prep_overlay, &upper_lib,
	  hold_spawn, &dynsleep_ovl, OVL_DENIED("upper") },
	{ "overlay_dlopen_lib_lower", ALL_ROOT, prep_overlay, &lower_plugin,
	  hold_spawn, &dlsleep_ovl, OVL_DENIED("lower") },
	{ "overlay_elf_interpreter_lower", ALL_ROOT, prep_overlay, &lower_ldso,
	  hold_spawn, &ovlsleep, OVL_DENIED("lower") },
	{ "overlay_mprotect_exec_rule_on_used_path", "lib " OVL_MERGED,
	  prep_overlay, &upper_lib, hold_map, &map_then_mprotect,
	  OVL_DENIED("upper") },
	{ "overlay_mprotect_exec_rule_on_upper_layer", "lib " OVL_DIR "/upper",
	  prep_overlay, &upper_lib, hold_map, &map_then_mprotect,
	  { ALLOWED("write_merged", 0), ALLOWED("write_upper", 1) } },

	/* 2. A rule for / covers every file, however it was reached. */
	{ "memfd_exec", EXEC_ROOT, NULL, NULL, hold_memfd, NULL,
	  { DENIED("write_proc_pid_fd", 0), DENIED("write_proc_pid_exe", 1) } },
	{ "open_tree_clone_exec", EXEC_ROOT, prep_plain, &tree_prog,
	  hold_open_tree, NULL, { DENIED("write_ordinary_path", 0) } },
	{ "lazily_unmounted_tree_exec", EXEC_ROOT, prep_plain, &lazy_prog,
	  hold_lazy_umount, NULL, { DENIED("write_through_dirfd", 0) } },
	{ "pivot_root_namespace", EXEC_ROOT, prep_plain, &pivot_prog,
	  hold_pivot_root, NULL,
	  { { "add_exec_root_is_boot_rule", probe_result, 0, 0, EEXIST,
	      CT_NONE },
	    DENIED("reload_exec_root_old_root_prog_write", 0) } },

	/* 4. Writes through a descriptor opened before protection. */
	OLD_WRITER("write", fdop_write, 0),
	OLD_WRITER("pwrite", fdop_pwrite, 0),
	OLD_WRITER("pwritev2", fdop_pwritev2, 0),
	OLD_WRITER("io_uring_write", fdop_io_uring, 0),
	OLD_WRITER("aio_write", fdop_aio, 0),
	OLD_WRITER("fallocate_punch_hole", fdop_fallocate,
		   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE),
	OLD_WRITER("fallocate_zero_range", fdop_fallocate,
		   FALLOC_FL_ZERO_RANGE),
	OLD_WRITER("fallocate_collapse_range", fdop_fallocate,
		   FALLOC_FL_COLLAPSE_RANGE),
	OLD_WRITER("fallocate_insert_range", fdop_fallocate,
		   FALLOC_FL_INSERT_RANGE),
	OLD_WRITER("fallocate_grow_past_eof", fdop_fallocate, 0),
	OLD_WRITER("copy_file_range_into", fdop_copy_file_range, 0),
	/* On XFS with reflinks: FICLONE into the file and XFS_IOC_SWAPEXT
	 * with it on either side, refused while it runs; the same calls on
	 * the file before it runs succeed, so a refusal is the policy's. */
	{ "old_writer_fd", IGNORE_WRITERS_XFS, prep_old_writer, "xfs",
	  hold_spawn, &run_target,
	  { { "ficlone_into", fdop_ficlone, 0, 0, ETXTBSY, CT_WRITE },
	    { "xfs_swapext_target", fdop_xfs_swapext, 0, 0, ETXTBSY, CT_WRITE },
	    { "xfs_swapext_tmp", fdop_xfs_swapext, 1, 0, ETXTBSY, CT_WRITE } } },
	{ "not_running_xfs_file", IGNORE_WRITERS_XFS, prep_old_writer, "xfs",
	  NULL, NULL,
	  { { "xfs_swapext_target", fdop_xfs_swapext, 0, 0, 0, CT_NONE },
	    { "xfs_swapext_tmp", fdop_xfs_swapext, 1, 0, 0, CT_NONE },
	    { "ficlone_into", fdop_ficlone, 0, 0, 0, CT_NONE } } },
	OLD_WRITER("mmap_shared_writable", fdop_mmap_shared, 0),
	{ "shared_writable_map_before_exec", IGNORE_WRITERS, prep_shared_map,
	  NULL, NULL, NULL,
	  { { "execve", probe_exec, 0, 0, ETXTBSY, CT_EXEC } } },

	/* 5. Who may hold a file by mapping it. */
	{ "uid65534_maps_file_of_uid1000", ALL_ROOT, prep_plain, &lib_of_1000,
	  hold_map, &nobody_maps,
	  { WRITE_AS("write_as_uid1000", 0, 1000, 0), ALLOWED("write_as_root",
							      0) } },
	{ "uid65534_maps_root_lib", ALL_ROOT, prep_plain, &lib_of_root,
	  hold_map, &nobody_maps, { DENIED("write_as_root", 0) } },
	{ "noexec_mount_mmap_exec", ALL_ROOT, prep_plain, &noexec_lib,
	  hold_map, &noexec_map,
	  { { "mmap", probe_result, 0, 0, EPERM, CT_NONE },
	    ALLOWED("fd_kept_write_as_root", 0) } },
};

/* --- policy and counters ----------------------------------------------- */

static const char *const counter_keys[CT_COUNT] = {
	"denied_write", "denied_truncate", "denied_exec", "denied_mmap",
};

struct counters {
	long long denied[CT_COUNT];
	long long audited;
};

/* The value of "key N" in the stats text, or -1 with errno EPROTO. */
static int stat_value(const char *text, const char *key, long long *v)
{
	size_t n = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		char *end;

		if (strncmp(p, key, n) || p[n] != ' ')
			continue;
		*v = strtoll(p + n + 1, &end, 10);
		if (end != p + n + 1 && (*end == '\n' || !*end))
			return 0;
	}
	errno = EPROTO;
	return -1;
}

static int read_counters(struct counters *c, char *why, size_t whylen)
{
	char text[1024];
	const char *bad = "audited";

	if (read_file(SFS_DIR "/stats", text, sizeof(text))) {
		snprintf(why, whylen, "read %s/stats: %s", SFS_DIR,
			 errtxt(errno));
		return -1;
	}
	for (int i = 0; i < CT_COUNT; i++)
		if (stat_value(text, counter_keys[i], &c->denied[i])) {
			bad = counter_keys[i];
			goto fail;
		}
	if (stat_value(text, "audited", &c->audited) == 0)
		return 0;
fail:
	snprintf(why, whylen, "%s/stats has no '%s N' line", SFS_DIR, bad);
	return -1;
}

/* NULL if the counters moved as a check expects, else what moved. */
static const char *counter_moves(const struct counters *a,
				 const struct counters *b, enum counter moved)
{
	static char buf[256];
	size_t n = 0;

	for (int i = 0; i <= CT_COUNT; i++) {
		long long got = i < CT_COUNT ? b->denied[i] - a->denied[i]
					     : b->audited - a->audited;
		long long want = i == (int)moved ? 1 : 0;

		if (got != want && n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "%s%s %+lld (expected %+lld)",
					      n ? ", " : "",
					      i < CT_COUNT ? counter_keys[i]
							   : "audited",
					      got, want);
	}
	return n ? buf : NULL;
}

static char saved_mode[32], saved_rules[8192];

static int set_rules(const char *rules)
{
	char text[PATH_MAX + 64];

	snprintf(text, sizeof(text), "%s\n", rules);
	return sfs_write("rules", text);
}

static int set_policy(const char *rules, char *why, size_t whylen)
{
	int err = sfs_write("mode", "enforce\n");

	if (!err)
		err = set_rules(rules);
	if (err)
		snprintf(why, whylen, "setting mode enforce, rules '%s': %s",
			 rules, errtxt(err));
	return err ? -1 : 0;
}

static int save_policy(void)
{
	if (read_file(SFS_DIR "/mode", saved_mode, sizeof(saved_mode)) ||
	    read_file(SFS_DIR "/rules", saved_rules, sizeof(saved_rules))) {
		fprintf(stderr, "coverage: cannot read the policy in %s: %s\n",
			SFS_DIR, errtxt(errno));
		return -1;
	}
	return 0;
}

static int restore_policy(void)
{
	int err = sfs_write("mode", saved_mode);

	if (!err)
		err = sfs_write("rules", saved_rules[0] ? saved_rules : "\n");
	if (err)
		fprintf(stderr, "coverage: cannot restore the policy: %s\n",
			errtxt(err));
	return err ? -1 : 0;
}

/* --- running the checks ------------------------------------------------ */

static int failures;

static void check_name(char *buf, size_t len, const struct cov_case *c,
		       const struct check *k)
{
	char verdict[48];

	if (k->want == 0)
		snprintf(verdict, sizeof(verdict), "allowed");
	else if (k->want == ETXTBSY)
		snprintf(verdict, sizeof(verdict), "denied");
	else
		snprintf(verdict, sizeof(verdict), "refused_%s",
			 errname(k->want));
	snprintf(buf, len, "%s_%s_%s_in_enforce[%s]", c->name, k->what, verdict,
		 c->rules);
}

static void emit(const char *verdict, const char *name, const char *why)
{
	if (why) {
		char line[1024];

		snprintf(line, sizeof(line), "%s", why);
		one_line(line);
		printf("%s %s: %s\n", verdict, name, line);
	} else {
		printf("%s %s\n", verdict, name);
	}
	if (!strcmp(verdict, "FAIL"))
		failures++;
	fflush(stdout);
}

static void run_check(const struct cov_case *c, const struct check *k,
		      struct run *r, const char *setup_why)
{
	char name[512], why[768], reason[900];
	struct counters before, after;
	const char *moved;
	int got;

	check_name(name, sizeof(name), c, k);
	if (setup_why) {
		emit("FAIL", name, setup_why);
		return;
	}
	if (read_counters(&before, why, sizeof(why))) {
		emit("FAIL", name, why);
		return;
	}
	got = k->probe(r, k, why, sizeof(why));
	if (got < 0) {
		emit("FAIL", name, why);
		return;
	}
	if (read_counters(&after, why, sizeof(why))) {
		emit("FAIL", name, why);
		return;
	}
	moved = counter_moves(&before, &after,
			      k->want == ETXTBSY ? k->counter : CT_NONE);
	if (got != k->want) {
		snprintf(reason, sizeof(reason), "got %s, expected %s", errtxt(got),
			 errtxt(k->want));
		emit("FAIL", name, reason);
	} else if (moved) {
		snprintf(reason, sizeof(reason), "counters: %s", moved);
		emit("FAIL", name, reason);
	} else {
		emit("PASS", name, NULL);
	}
}

static size_t n_checks(const struct cov_case *c)
{
	size_t n = 0;

	while (n < MAX_CHECKS && c->checks[n].what)
		n++;
	return n;
}

static void run_case(const struct cov_case *c)
{
	char why[1024] = "";
	const char *setup_why = NULL;
	long long start = now_us();
	struct run r;

	run_init(&r);
	if ((c->prep && c->prep(c, &r, why, sizeof(why))) ||
	    set_policy(c->rules, why, sizeof(why)) ||
	    (c->hold && c->hold(c, &r, why, sizeof(why))))
		setup_why = why;
	for (size_t i = 0; i < n_checks(c); i++)
		run_check(c, &c->checks[i], &r, setup_why);
	run_cleanup(&r);
	/* No rule may pin this case's mounts for the next one. */
	set_rules("");
	fprintf(stderr, "coverage: %s: %.2f s\n", c->name,
		(double)(now_us() - start) / 1e6);
}

int main(void)
{
	size_t total = 0, ncases = sizeof(cases) / sizeof(cases[0]);
	long long start = now_us();

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The holders a helper starts outlive it: reap them here. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (size_t i = 0; i < ncases; i++)
		total += n_checks(&cases[i]);
	printf("PLAN coverage %zu\n", total);
	if (save_policy() || mkdir_p(COV_DIR, 0755) || chmod(COV_DIR, 0755)) {
		for (size_t i = 0; i < ncases; i++)
			for (size_t j = 0; j < n_checks(&cases[i]); j++)
				run_check(&cases[i], &cases[i].checks[j], NULL,
					  "cannot save the policy or create " COV_DIR);
		return 1;
	}
	for (size_t i = 0; i < ncases; i++)
		run_case(&cases[i]);
	if (restore_policy())
		failures++;
	teardown_mounts();
	reap_all(1000);
	printf("STAT coverage seconds %.1f\n", (double)(now_us() - start) / 1e6);
	return failures ? 1 : 0;
}
