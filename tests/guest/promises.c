/* promises - guest tests of what README.md, "The policy", promises and
 * nothing else tests (issue 8, section 4): when protection ends, what
 * stays allowed and what is refused, ignore-writers on lib rules, rule
 * changes and running files, rules and unmounts, binfmt_misc
 * interpreters, execveat(2), prctl(PR_SET_MM_MAP), the edge of a lib
 * rule, the protected count, the audit record's fields, and query's
 * credentials.  See promises.h for how a case runs.
 *
 * Runs as root in the guest with denywrite active.  Output: "PLAN
 * <group> N" (N: the rows of the table), then one PASS/FAIL line a row,
 * named <behaviour>_<allowed|denied|refused_ERRNO>[_<words>]_in_<mode>
 * [<rules>] (the verdict made from the errno the row expects);
 * per-case times on stderr (dwrun gives the group's seconds).  The group is
 * $DWTEST_GROUP (set by dwrun), else "promises".  Exit 0 iff no check
 * failed.  The mode and rules found at the start are restored at the end,
 * and /proc/sys/kernel/printk_ratelimit is 0 in between (audit records
 * reach the kernel log through printk_ratelimit()).
 */
#include "promises.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- the cases --------------------------------------------------------- */

/* The stats counters a case may move. */
enum counter { C_WRITE, C_TRUNCATE, C_EXEC, C_MMAP, C_AUDITED, C_COUNT };

typedef int (*prep_fn)(struct ctx *c, const void *arg, char *why,
		       size_t whylen);

/* A row's check is named <what>_<verdict>[_<after>]_in_<mode>[<rules>],
 * the verdict made from want (as coverage.c names its checks), so that the
 * name cannot say another verdict than the one the row checks. */
struct row {
	const char *what;  /* the behaviour */
	const char *mode;  /* while the case runs */
	const char *rules; /* set after prep, before the case; "" for none */
	prep_fn prep;      /* files and mounts, under no rules; or NULL */
	case_fn run;
	const void *arg;
	int want;             /* the errno the case must return; 0: success */
	int moves[C_COUNT];   /* by how much each counter must move */
	const char *after;    /* words after the verdict in the name, or NULL */
};

#define ENF "enforce"
#define AUD "audit"
#define EXEC_BIN "exec " PRM_BIN
#define LIB_LIB "lib " PRM_LIB
#define LIB_IW "lib,ignore-writers " PRM_LIB
#define NONE ""
/* Counter moves: denied_write, denied_truncate, denied_exec,
 * denied_mmap, audited. */
#define NO_MOVES { 0, 0, 0, 0, 0 }
#define WRITES(n) { n, 0, 0, 0, 0 }
#define TRUNCATES(n) { 0, n, 0, 0, 0 }
#define EXECS(n) { 0, 0, n, 0, 0 }
#define MMAPS(n) { 0, 0, 0, n, 0 }
#define AUDITED(n) { 0, 0, 0, 0, n }

#define OUTSIDE_DIR "/usr/lib/dwtest"

static const struct munmap_arg fd_closed = { false }, fd_kept = { true };
static const struct holders_arg in_map_order = { true },
	in_reverse_order = { false };
static const struct map_arg mprotect_only = { true, false, AM_NOTHING },
	mmap_only = { false, false, AM_NOTHING },
	mmap_shared_writer = { false, true, AM_NOTHING },
	mmap_new_writer = { false, false, AM_NEW_WRITER },
	mmap_old_fd_write = { false, false, AM_WRITE_OLD_FD };
static const struct rule_change_arg add_exec = { false, EXEC_BIN "\n" },
	del_exec = { false, "" }, add_lib = { true, LIB_LIB "\n" },
	del_lib = { true, "" };
static const struct umount_arg umount_plain = { false, 0 },
	umount_cleared = { true, 0 }, umount_lazy = { false, MNT_DETACH };
static const struct binfmt_arg binfmt_plain = { "dwprm", "" },
	binfmt_open_file = { "dwprmF", "F" };
static const struct execveat_arg at_dirfd = { true, false },
	at_empty_path = { false, false }, at_writer = { false, true };
static const struct mm_map_arg mm_alone = { false }, mm_writer = { true };
static const struct lib_outside_arg parent_dir = {
	"/usr/lib/dwprm-outside.so", OUTSIDE_DIR "/dwprm-inside.so"
}, name_prefix = { "/usr/lib/dwtestprm.so", OUTSIDE_DIR "/dwprm-inside.so" };
static const struct across_mount_arg mount_covered = { true },
	mount_uncovered = { false };
static const struct audit_arg a_write = { AO_WRITE },
	a_truncate = { AO_TRUNCATE }, a_exec = { AO_EXEC }, a_mmap = { AO_MMAP };
static const struct audit_count_arg old_fd_writes = { AW_OLD_FD },
	new_fd_writes = { AW_NEW_FD }, truncating_fd_writes = { AW_TRUNCATING_FD };
static const struct query_arg q_nobody = { 0, 65534, NULL },
	q_root = { 65534, 0, "protected 0\nholders 0\nwriters 0\n"
			     "exec-rule exec " PRM_Q "\nlib-rule -\n" };

static const struct row rows[] = {
	/* Protection ends with its last user: exec of another program,
	 * munmap (and the fd, when one is kept). */
	{ "protection_ends_when_last_holder_execs_another_program",
	  ENF, EXEC_BIN, NULL, case_exec_away, NULL, 0, WRITES(2), NULL },
	{ "protection_ends_at_munmap", ENF, LIB_LIB, NULL,
	  case_munmap, &fd_closed, 0, WRITES(1), NULL },
	{ "protection_ends_when_fd_kept_after_munmap_is_closed", ENF,
	  LIB_LIB, NULL, case_munmap, &fd_kept, 0, WRITES(2), NULL },
	/* Three opens of one library, each mapped: the first hold is kept
	 * in the inode, the others in the table. */
	{ "protection_lasts_until_last_of_three_mappings_goes_first_mapped_first",
	  ENF, LIB_LIB, NULL, case_many_holders, &in_map_order, 0,
	  WRITES(3), NULL },
	{ "protection_lasts_until_last_of_three_mappings_goes_last_mapped_first",
	  ENF, LIB_LIB, NULL, case_many_holders, &in_reverse_order, 0,
	  WRITES(3), NULL },

	/* Mode off drops every hold and audit mark, and switches the hooks
	 * off; the next mode that protects starts afresh. */
	{ "mode_off_drops_holds_running_program_writable_until_run_again",
	  ENF, EXEC_BIN, NULL, case_mode_off_drops_holds, NULL, 0,
	  WRITES(2), NULL },
	{ "protection_ends_at_munmap_after_mode_off_and_back", ENF,
	  LIB_LIB, NULL, case_release_after_off, NULL, 0, WRITES(1), NULL },
	{ "mode_off_drops_audit_marks_old_writer_logged_again", AUD,
	  LIB_LIB, NULL, case_mode_off_drops_marks, NULL, 0, AUDITED(4), NULL },

	/* What stays allowed and what is refused. */
	{ "chmod_of_running_program", ENF, EXEC_BIN, NULL, case_chmod,
	  NULL, 0, WRITES(2), NULL },
	{ "ftruncate_through_writer_fd_opened_before_exec", ENF,
	  "exec,ignore-writers " PRM_BIN, NULL, case_ftruncate_old_fd, NULL,
	  ETXTBSY, TRUNCATES(1), NULL },
	{ "mprotect_exec_of_file_open_for_writing", ENF, LIB_LIB, NULL,
	  case_map_with_writer, &mprotect_only, ETXTBSY, MMAPS(1), NULL },

	/* ignore-writers on a lib rule, and the control without it; a
	 * shared writable mapping is a writer it does not ignore. */
	{ "lib_ignore_writers_mmap_exec_of_file_open_for_writing", ENF,
	  LIB_IW, NULL, case_map_with_writer, &mmap_only, 0, NO_MOVES, NULL },
	{ "lib_ignore_writers_mprotect_exec_of_file_open_for_writing",
	  ENF, LIB_IW, NULL, case_map_with_writer, &mprotect_only, 0,
	  NO_MOVES, NULL },
	{ "lib_ignore_writers_new_writer_of_mapped_file", ENF, LIB_IW,
	  NULL, case_map_with_writer, &mmap_new_writer, ETXTBSY,
	  WRITES(1), NULL },
	{ "lib_ignore_writers_write_through_old_writer_fd", ENF, LIB_IW,
	  NULL, case_map_with_writer, &mmap_old_fd_write, ETXTBSY,
	  WRITES(1), NULL },
	{ "lib_ignore_writers_mmap_exec_of_file_mapped_shared_writable",
	  ENF, LIB_IW, NULL, case_map_with_writer, &mmap_shared_writer,
	  ETXTBSY, MMAPS(1), NULL },
	{ "lib_mmap_exec_of_file_open_for_writing", ENF, LIB_LIB, NULL,
	  case_map_with_writer, &mmap_only, ETXTBSY, MMAPS(1), NULL },

	/* A rule change never adds or removes protection of a running file
	 * (the new rule protects the next one: one write counted). */
	{ "rule_added_while_program_runs_leaves_it_writable", ENF,
	  NONE, NULL, case_rule_change, &add_exec, 0, WRITES(1), NULL },
	{ "rule_removed_while_program_runs_keeps_it_protected_until_exit",
	  ENF, EXEC_BIN, NULL, case_rule_change, &del_exec, ETXTBSY,
	  WRITES(1), NULL },
	{ "lib_rule_added_while_file_mapped_leaves_it_writable", ENF,
	  NONE, NULL, case_rule_change, &add_lib, 0, WRITES(1), NULL },
	{ "lib_rule_removed_while_file_mapped_keeps_it_protected_until_munmap",
	  ENF, LIB_LIB, NULL, case_rule_change, &del_lib, ETXTBSY,
	  WRITES(1), NULL },

	/* A rule never keeps its filesystem from being unmounted: the rule
	 * goes with it. */
	{ "umount_with_rule_on_mount_root", ENF,
	  "exec " PRM_MNT, prep_mount, case_umount, &umount_plain, 0,
	  NO_MOVES, "rule_gone" },
	{ "umount_with_rule_below_mount_root", ENF,
	  "exec " PRM_MNT "/sub", prep_mount, case_umount, &umount_plain,
	  0, NO_MOVES, "rule_gone" },
	{ "umount_once_rule_removed", ENF, "exec " PRM_MNT, prep_mount,
	  case_umount, &umount_cleared, 0, NO_MOVES, NULL },
	{ "umount_lazy_with_rule_on_mount", ENF, "exec " PRM_MNT,
	  prep_mount, case_umount, &umount_lazy, 0, NO_MOVES, NULL },

	/* binfmt_misc interpreters, opened at exec and at registration. */
	{ "binfmt_misc_interpreter_protected_while_its_format_runs",
	  ENF, EXEC_BIN, prep_binfmt, case_binfmt, &binfmt_plain, ETXTBSY,
	  WRITES(1), NULL },
	{ "binfmt_misc_open_file_interpreter_protected_while_its_format_runs",
	  ENF, EXEC_BIN, prep_binfmt, case_binfmt, &binfmt_open_file, ETXTBSY,
	  WRITES(1), NULL },

	/* execveat(2). */
	{ "execveat_of_name_in_directory_fd_protects_program", ENF,
	  EXEC_BIN, NULL, case_execveat, &at_dirfd, ETXTBSY, WRITES(1), NULL },
	{ "execveat_empty_path_of_file_fd_protects_program", ENF,
	  EXEC_BIN, NULL, case_execveat, &at_empty_path, ETXTBSY,
	  WRITES(1), NULL },
	{ "execveat_empty_path_of_file_open_for_writing", ENF, EXEC_BIN,
	  NULL, case_execveat, &at_writer, ETXTBSY, EXECS(1), NULL },

	/* prctl(PR_SET_MM_MAP), as PR_SET_MM_EXE_FILE (group prctl). */
	{ "prctl_set_mm_map_protects_new_exe_until_exit", ENF, EXEC_BIN,
	  NULL, case_mm_map, &mm_alone, ETXTBSY, WRITES(1), NULL },
	{ "prctl_set_mm_map_of_file_open_for_writing", ENF, EXEC_BIN,
	  NULL, case_mm_map, &mm_writer, ETXTBSY, EXECS(1), NULL },

	/* A lib rule stops at its directory, on the same filesystem. */
	{ "lib_rule_leaves_mapped_file_of_parent_directory_writable",
	  ENF, "lib " OUTSIDE_DIR, prep_usrlib, case_lib_outside, &parent_dir,
	  0, WRITES(1), NULL },
	{ "lib_rule_leaves_mapped_file_extending_its_name_writable",
	  ENF, "lib " OUTSIDE_DIR, prep_usrlib, case_lib_outside, &name_prefix,
	  0, WRITES(1), NULL },
	/* A lib rule covers the filesystems mounted beneath its directory:
	 * an executable mapping's walk crosses the mount to find it, or
	 * finds none above the mount. */
	{ "write_of_library_mapped_on_mount_beneath_lib_rule", ENF,
	  "lib " PRM_DIR, prep_mount_lib, case_lib_across_mount,
	  &mount_covered, ETXTBSY, { 1, 0, 0, 1, 0 }, NULL },
	{ "write_of_library_mapped_on_mount_beside_lib_rule", ENF, LIB_LIB,
	  prep_mount_lib, case_lib_across_mount, &mount_uncovered, 0,
	  NO_MOVES, NULL },

	/* stats: protected counts inodes, exactly. */
	{ "protected_count_rises_by_one_per_running_file_and_returns_to_baseline",
	  ENF, EXEC_BIN, NULL, case_protected_count, NULL, 0, NO_MOVES, NULL },

	/* The audit record, field by field. */
	{ "audit_record_of_refused_write_exact", ENF, EXEC_BIN, NULL,
	  case_audit_record, &a_write, ETXTBSY, WRITES(1), NULL },
	{ "audit_record_of_audited_write_exact", AUD, EXEC_BIN, NULL,
	  case_audit_record, &a_write, 0, AUDITED(1), NULL },
	/* truncate(2): exec's denial refuses it in the VFS, unrecorded; the
	 * hold of an ignore-writers rule is the hooks', which record it. */
	{ "audit_record_of_refused_truncate_exact", ENF,
	  "exec,ignore-writers " PRM_BIN, NULL, case_audit_record, &a_truncate,
	  ETXTBSY, TRUNCATES(1), NULL },
	{ "audit_record_of_refused_exec_exact", ENF, EXEC_BIN, NULL,
	  case_audit_record, &a_exec, ETXTBSY, EXECS(1), NULL },
	{ "audit_record_of_refused_mmap_exact", ENF, LIB_LIB, NULL,
	  case_audit_record, &a_mmap, ETXTBSY, MMAPS(1), NULL },
	{ "audit_record_of_audited_mmap_exact", AUD, LIB_LIB, NULL,
	  case_audit_record, &a_mmap, 0, AUDITED(1), NULL },

	/* Audit mode counts (and logs) the writes through one file once;
	 * a truncating open is a write and a truncation. */
	{ "audit_mode_counts_writes_through_fd_opened_before_exec_once",
	  AUD, "exec,ignore-writers " PRM_BIN, NULL, case_audit_count,
	  &old_fd_writes, 0, AUDITED(1), NULL },
	{ "audit_mode_counts_open_for_writing_and_its_writes_once", AUD,
	  EXEC_BIN, NULL, case_audit_count, &new_fd_writes, 0,
	  AUDITED(1), NULL },
	{ "audit_mode_counts_truncating_open_and_its_writes_twice", AUD,
	  EXEC_BIN, NULL, case_audit_count, &truncating_fd_writes, 0,
	  AUDITED(2), NULL },

	/* query resolves the path with the writer's credentials. */
	{ "query_written_as_uid65534_under_0700_directory", ENF,
	  "exec " PRM_Q, prep_query, case_query, &q_nobody, EACCES,
	  NO_MOVES, NULL },
	{ "query_written_as_root_under_0700_directory_answers", ENF,
	  "exec " PRM_Q, prep_query, case_query, &q_root, 0, NO_MOVES, NULL },
};

/* --- policy and counters ----------------------------------------------- */

static const char *const counter_keys[C_COUNT] = {
	"denied_write", "denied_truncate", "denied_exec", "denied_mmap",
	"audited",
};

struct counts {
	long long c[C_COUNT];
	long long protected_;
};

/* The value of the stats line "key N" in text, or -1. */
static long long stats_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return strtoll(line + klen + 1, NULL, 10);
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return -1;
}

static int counts_read(struct counts *s, char *why, size_t whylen)
{
	struct text t;
	int err = text_read(sfs_path("stats"), &t);

	if (err) {
		snprintf(why, whylen, "read stats: %s", errtxt(err));
		text_free(&t);
		return -1;
	}
	s->protected_ = stats_value(t.p, "protected");
	for (int i = 0; i < C_COUNT; i++)
		s->c[i] = stats_value(t.p, counter_keys[i]);
	text_free(&t);
	for (int i = 0; i < C_COUNT; i++)
		if (s->c[i] < 0 || s->protected_ < 0) {
			snprintf(why, whylen, "stats lacks '%s N'",
				 s->protected_ < 0 ? "protected" : counter_keys[i]);
			return -1;
		}
	return 0;
}

long long protected_now(char *why, size_t whylen)
{
	struct counts s;

	return counts_read(&s, why, whylen) ? -1 : s.protected_;
}

/* NULL if every counter moved by what the row says, else what moved. */
static const char *moves_wrong(const struct counts *a, const struct counts *b,
			       const struct row *r)
{
	static char buf[400];
	size_t n = 0;

	for (int i = 0; i < C_COUNT; i++) {
		long long got = b->c[i] - a->c[i];

		if (got != r->moves[i] && n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "%s%s %+lld (expected %+d)",
					      n ? ", " : "", counter_keys[i],
					      got, r->moves[i]);
	}
	return n ? buf : NULL;
}

int set_rules(const char *rules, char *why, size_t whylen)
{
	int err = sfs_write("rules", *rules ? rules : "\n",
			    *rules ? strlen(rules) : 1);

	if (err)
		snprintf(why, whylen, "write rules '%s': %s",
			 escaped(rules, strlen(rules)), errtxt(err));
	return err ? -1 : 0;
}

int set_mode(const char *mode, char *why, size_t whylen)
{
	int err = sfs_write("mode", mode, strlen(mode));

	if (err)
		snprintf(why, whylen, "write mode %s: %s", mode, errtxt(err));
	return err ? -1 : 0;
}

static int set_policy(const char *mode, const char *rules, char *why,
		      size_t whylen)
{
	char text[512];

	snprintf(text, sizeof(text), "%s%s", rules, *rules ? "\n" : "");
	return policy_write(text, strlen(text), mode, why, whylen) ? -1 : 0;
}

int probe_write(const char *path)
{
	return probe_open(path, O_WRONLY);
}

int expect(const char *what, int got, int want, char *why, size_t whylen)
{
	if (got == want)
		return 0;
	snprintf(why, whylen, "%s: got %s, expected %s", what, errtxt(got),
		 errtxt(want));
	return -1;
}

/* --- running the cases ------------------------------------------------- */

static const char *group = "promises";

/* "allowed" (want 0), "denied" (ETXTBSY) or "refused_<ERRNO>". */
static const char *verdict(int want)
{
	static char buf[48];

	if (want == 0)
		return "allowed";
	if (want == ETXTBSY)
		return "denied";
	snprintf(buf, sizeof(buf), "refused_%s", errname(want));
	return buf;
}

static void row_name(char *buf, size_t len, const struct row *r)
{
	snprintf(buf, len, "%s_%s%s%s_in_%s[%s]", r->what, verdict(r->want),
		 r->after ? "_" : "", r->after ? r->after : "", r->mode,
		 *r->rules ? r->rules : "no rules");
}

/* A fresh PRM_DIR with the files every case may use. */
static int fresh_tree(char *why, size_t whylen)
{
	static const char *const copies[][2] = {
		{ SLEEPER, PRM_PROG }, { EXECVIA, PRM_NEXT },
		{ GUEST_LIB, PRM_SO },
	};

	if (rm_rf(PRM_DIR) || mkdir_p(PRM_BIN, 0755) ||
	    mkdir_p(PRM_LIB, 0755) || mkdir_p(PRM_OTHER, 0755)) {
		snprintf(why, whylen, "fresh %s: %s", PRM_DIR, errtxt(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++)
		if (copy_fresh(copies[i][0], copies[i][1], 0755)) {
			snprintf(why, whylen, "copy %s to %s: %s", copies[i][0],
				 copies[i][1], errtxt(errno));
			return -1;
		}
	return 0;
}

/* Set up, run and judge one row: the reason it failed, or NULL. */
static const char *judge(const struct row *r, struct ctx *c, char *why,
			 size_t whylen)
{
	static char reason[1200];
	struct counts before, after, end;
	const char *moved;
	int got;

	/* Mode off first: no hold from before the row is left (README,
	 * "Modes"), so that protected counts the row's own holds. */
	if (set_policy("off", "", why, whylen) ||
	    set_policy("enforce", "", why, whylen) || fresh_tree(why, whylen) ||
	    (r->prep && r->prep(c, r->arg, why, whylen)) ||
	    set_policy(r->mode, r->rules, why, whylen) ||
	    counts_read(&before, why, whylen))
		return why;
	got = r->run(c, r->arg, why, whylen);
	if (got < 0 || counts_read(&after, why, whylen))
		return why;
	ctx_cleanup(c);
	if (counts_read(&end, why, whylen))
		return why;
	moved = moves_wrong(&before, &after, r);
	if (got != r->want)
		snprintf(reason, sizeof(reason), "got %s, expected %s",
			 errtxt(got), errtxt(r->want));
	else if (moved)
		snprintf(reason, sizeof(reason), "counters: %s", moved);
	else if (end.protected_ != before.protected_)
		snprintf(reason, sizeof(reason),
			 "protected is %lld once the case's holders are gone, %lld before",
			 end.protected_, before.protected_);
	else
		return NULL;
	return reason;
}

static void run_row(const struct row *r)
{
	char name[512], why[1024] = "";
	long long start = now_us();
	const char *failed;
	struct ctx c;

	row_name(name, sizeof(name), r);
	ctx_init(&c);
	failed = judge(r, &c, why, sizeof(why));
	ctx_cleanup(&c);
	if (failed)
		fail(name, "%s", failed);
	else
		pass(name);
	fprintf(stderr, "promises: %s: %.2f s\n", name,
		(double)(now_us() - start) / 1e6);
}

/* audit records go to the kernel log through printk_ratelimit(). */
#define RATELIMIT "/proc/sys/kernel/printk_ratelimit"

int main(void)
{
	size_t n = sizeof(rows) / sizeof(rows[0]);
	long long start = now_us();
	char why[512], ratelimit[32] = "";
	struct policy saved;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("DWTEST_GROUP") && *getenv("DWTEST_GROUP"))
		group = getenv("DWTEST_GROUP");
	/* Programs a case starts through a child are reaped here. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	printf("PLAN %s %zu\n", group, n);
	err = policy_read(&saved, why, sizeof(why));
	if (!err && read_file(RATELIMIT, ratelimit, sizeof(ratelimit)) == 0)
		err = file_puts(RATELIMIT, "0");
	if (err) {
		for (size_t i = 0; i < n; i++) {
			char name[512];

			row_name(name, sizeof(name), &rows[i]);
			fail(name, "setup: %s", why[0] ? why : errtxt(err));
		}
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		run_row(&rows[i]);
	if (policy_write(saved.rules.p, saved.rules.len, saved.mode.p, why,
			 sizeof(why))) {
		fprintf(stderr, "promises: cannot restore the policy: %s\n", why);
		failures++;
	}
	policy_free(&saved);
	if (ratelimit[0] && file_puts(RATELIMIT, ratelimit))
		fprintf(stderr, "promises: cannot restore %s\n", RATELIMIT);
	rm_rf(PRM_DIR);
	reap_all(1000);
	fprintf(stderr, "promises: %zu cases in %.1f s\n", n,
		(double)(now_us() - start) / 1e6);
	return failures ? 1 : 0;
}
