// SPDX-License-Identifier: GPL-2.0
/* /proc/PID/maps parsing and finding the processes that use a file. */
#include "test.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

TEST(maps_parses_line_with_path)
{
	struct maps_entry e;

	CHECK(maps_parse_line("7f3c8a400000-7f3c8a595000 r-xp 00028000 fd:01 "
			      "1316023                    /usr/lib/x86_64-linux-"
			      "gnu/libc.so.6\n", &e) == 0, "refused");
	CHECK(e.start == 0x7f3c8a400000UL && e.end == 0x7f3c8a595000UL,
	      "range");
	CHECK_STR(e.perms, "r-xp");
	CHECK(e.offset == 0x28000, "offset %llx", e.offset);
	CHECK(e.dev_major == 0xfd && e.dev_minor == 1, "dev %x:%x",
	      e.dev_major, e.dev_minor);
	CHECK(e.inode == 1316023, "inode %llu", e.inode);
	CHECK_STR(e.path, "/usr/lib/x86_64-linux-gnu/libc.so.6\n");
	return 0;
}

TEST(maps_parses_hex_device_numbers)
{
	struct maps_entry e;

	CHECK(maps_parse_line("00400000-00452000 r-xp 00000000 103:0a 42 "
			      "/tmp/a b (deleted)", &e) == 0, "refused");
	CHECK(e.dev_major == 0x103 && e.dev_minor == 0x0a, "dev %x:%x",
	      e.dev_major, e.dev_minor);
	CHECK_STR(e.path, "/tmp/a b (deleted)");
	return 0;
}

TEST(maps_parses_anonymous_mapping_without_path)
{
	struct maps_entry e;

	CHECK(maps_parse_line("7ffd1000-7ffd2000 rw-p 00000000 00:00 0 \n",
			      &e) == 0, "refused with trailing space");
	CHECK(e.inode == 0 && e.dev_major == 0, "fields");
	CHECK(maps_parse_line("7ffd1000-7ffd2000 rw-p 00000000 00:00 0",
			      &e) == 0, "refused at end of string");
	CHECK_STR(e.path, "");
	return 0;
}

TEST(maps_rejects_malformed_lines)
{
	static const char *const bad[] = {
		"",
		"garbage",
		"7ffd1000-7ffd2000 rw-p 00000000 00:00",
		"7ffd1000 rw-p 00000000 00:00 0",
		"7ffd1000-7ffd2000 rw-pq 00000000 00:00 0",
		"7ffd1000-7ffd2000 rw 00000000 00:00 0",
		"7ffd1000-7ffd2000 rw-p 00000000 0000 0",
		"7ffd1000-7ffd2000 rw-p 00000000 00:00 12x",
		" 7ffd1000-7ffd2000 rw-p 00000000 00:00 0",
	};
	struct maps_entry e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(maps_parse_line(bad[i], &e) == -1, "accepted '%s'",
		      bad[i]);
	return 0;
}

/* procdir/pid/name = content (binary, len bytes). */
static void fake_proc_file(const char *procdir, const char *pid,
			   const char *name, const char *content, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", procdir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", procdir, pid, name);
	f = fopen(path, "w");
	if (!f || fwrite(content, 1, len, f) != len || fclose(f) != 0)
		abort();
}

TEST(cmdline_turns_nuls_into_spaces)
{
	char proc[PATH_MAX], *s;
	int ok;

	make_tmpdir(proc, sizeof(proc), "proc");
	fake_proc_file(proc, "12", "cmdline", "/bin/sleep\0" "100\0", 15);
	s = proc_cmdline(proc, 12);
	CHECK(s, "no cmdline");
	ok = strcmp(s, "/bin/sleep 100") == 0;
	snprintf(why, whylen, "got '%s'", s);
	free(s);
	return ok ? 0 : 1;
}

TEST(cmdline_falls_back_to_comm)
{
	char proc[PATH_MAX], *s;
	int ok;

	make_tmpdir(proc, sizeof(proc), "proc");
	fake_proc_file(proc, "2", "cmdline", "", 0);
	fake_proc_file(proc, "2", "comm", "kthreadd\n", 9);
	s = proc_cmdline(proc, 2);
	CHECK(s, "no cmdline");
	ok = strcmp(s, "[kthreadd]") == 0;
	snprintf(why, whylen, "got '%s'", s);
	free(s);
	if (!ok)
		return 1;
	CHECK(proc_cmdline(proc, 3) == NULL, "cmdline for missing pid");
	return 0;
}

/* A maps line for a mapping of st with permissions perms. */
static void maps_line(char *buf, size_t size, const struct stat *st,
		      const char *perms)
{
	snprintf(buf, size, "00400000-00401000 %s 00000000 %02x:%02x %llu "
		 "   /x\n", perms, major(st->st_dev), minor(st->st_dev),
		 (unsigned long long)st->st_ino);
}

TEST(find_users_reports_exe_and_mappings_by_device_and_inode)
{
	char proc[PATH_MAX], target[PATH_MAX + 8], path[PATH_MAX + 8];
	char line[256];
	struct proc_users u;
	struct stat st;

	make_tmpdir(proc, sizeof(proc), "proc");
	snprintf(target, sizeof(target), "%s/target", proc);
	write_file(target, "x");
	CHECK(stat(target, &st) == 0, "stat target");
	fake_proc_file(proc, "30", "cmdline", "reader\0", 7);
	maps_line(line, sizeof(line), &st, "r--p");
	fake_proc_file(proc, "30", "maps", line, strlen(line));
	fake_proc_file(proc, "100", "cmdline", "runner\0", 7);
	snprintf(path, sizeof(path), "%s/100/exe", proc);
	CHECK(symlink(target, path) == 0, "symlink");
	fake_proc_file(proc, "20", "cmdline", "mapper\0", 7);
	memcpy(line, "garbage\n", 8);
	maps_line(line + 8, sizeof(line) - 8, &st, "r-xp");
	fake_proc_file(proc, "20", "maps", line, strlen(line));
	fake_proc_file(proc, "40", "cmdline", "other\0", 6);
	fake_proc_file(proc, "self", "cmdline", "self\0", 5);
	st.st_ino++;
	maps_line(line, sizeof(line), &st, "r-xp");
	st.st_ino--;
	fake_proc_file(proc, "40", "maps", line, strlen(line));

	CHECK(proc_find_users(proc, st.st_dev, st.st_ino, &u) == 0, "scan");
	CHECK(u.n == 3, "%zu users", u.n);
	CHECK(u.p[0].pid == 20 && u.p[0].use == USE_MAPPED_EXEC,
	      "first %d %s", u.p[0].pid, proc_use_name(u.p[0].use));
	CHECK(u.p[1].pid == 30 && u.p[1].use == USE_MAPPED, "second %d %s",
	      u.p[1].pid, proc_use_name(u.p[1].use));
	CHECK(u.p[2].pid == 100 && u.p[2].use == USE_EXE, "third %d %s",
	      u.p[2].pid, proc_use_name(u.p[2].use));
	CHECK_STR(u.p[2].cmdline, "runner");
	proc_users_free(&u);
	return 0;
}

TEST(find_users_sees_a_running_child_in_real_proc)
{
	char sleeper[PATH_MAX];
	struct proc_users u;
	struct stat st;
	bool found = false;
	pid_t pid;

	CHECK(realpath("/bin/sleep", sleeper) && stat(sleeper, &st) == 0,
	      "no /bin/sleep");
	pid = fork();
	if (pid == 0) {
		execl(sleeper, "sleep", "30", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0, "fork");
	for (int i = 0; i < 100 && !found; i++) {
		usleep(10000);
		CHECK(proc_find_users("/proc", st.st_dev, st.st_ino, &u) == 0,
		      "scan");
		for (size_t k = 0; k < u.n; k++)
			if (u.p[k].pid == pid && u.p[k].use == USE_EXE &&
			    strcmp(u.p[k].cmdline, "sleep 30") == 0)
				found = true;
		proc_users_free(&u);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(found, "pid %d not found as exe of %s", (int)pid, sleeper);
	return 0;
}

const struct test proc_tests[] = {
	T(maps_parses_line_with_path),
	T(maps_parses_hex_device_numbers),
	T(maps_parses_anonymous_mapping_without_path),
	T(maps_rejects_malformed_lines),
	T(cmdline_turns_nuls_into_spaces),
	T(cmdline_falls_back_to_comm),
	T(find_users_reports_exe_and_mappings_by_device_and_inode),
	T(find_users_sees_a_running_child_in_real_proc),
	{ NULL, NULL },
};
