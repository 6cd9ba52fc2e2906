// SPDX-License-Identifier: GPL-2.0
/* /proc/PID/maps parsing and finding the processes that use a file. */
#include "test.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <fcntl.h>
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

TEST(argv_splits_cmdline_at_nuls)
{
	char proc[PATH_MAX];
	char **argv;
	int ok;

	make_tmpdir(proc, sizeof(proc), "proc");
	fake_proc_file(proc, "12", "cmdline", "/bin/sleep\0" "1 0\0\0", 16);
	argv = proc_argv(proc, 12);
	CHECK(argv, "no cmdline");
	ok = argv[0] && !strcmp(argv[0], "/bin/sleep") && argv[1] &&
	     !strcmp(argv[1], "1 0") && argv[2] && !*argv[2] && !argv[3];
	argv_free(argv);
	CHECK(ok, "wrong split");
	/* rewritten by the process, without a final NUL */
	fake_proc_file(proc, "13", "cmdline", "nginx: worker", 13);
	argv = proc_argv(proc, 13);
	ok = argv && argv[0] && !strcmp(argv[0], "nginx: worker") && !argv[1];
	argv_free(argv);
	CHECK(ok, "no final NUL");
	CHECK(proc_argv(proc, 3) == NULL, "cmdline for a missing pid");
	return 0;
}

TEST(cmdline_text_joins_argv_or_shows_comm)
{
	char *argv[] = { "sh", "-c", "x y", NULL }, *none[] = { NULL };
	struct proc_holder h = { .argv = argv, .comm = "sh" };
	char *s = proc_cmdline_text(&h);
	int ok = strcmp(s, "sh -c x y") == 0;

	free(s);
	CHECK(ok, "joined");
	h.argv = none;
	h.comm = "kworker/0:1";
	s = proc_cmdline_text(&h);
	ok = strcmp(s, "[kworker/0:1]") == 0;
	free(s);
	CHECK(ok, "comm");
	return 0;
}

TEST(fdinfo_flags_are_read_in_octal)
{
	CHECK(fdinfo_flags("pos:\t0\nflags:\t0100001\nmnt_id:\t1\n") ==
	      0100001, "O_WRONLY|O_LARGEFILE");
	CHECK(fdinfo_flags("pos:\t0\nflags:\t02\n") == O_RDWR, "O_RDWR");
	CHECK(fdinfo_flags("pos:\t0\n") == -1, "no flags line");
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

/* procdir/pid/fd/fd -> target, with fdinfo flags (octal text). */
static void fake_fd(const char *procdir, const char *pid, int fd,
		    const char *target, const char *flags)
{
	char path[PATH_MAX], info[64];

	snprintf(path, sizeof(path), "%s/%s/fd", procdir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/fdinfo", procdir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/fd/%d", procdir, pid, fd);
	if (symlink(target, path) != 0)
		abort();
	snprintf(path, sizeof(path), "fdinfo/%d", fd);
	snprintf(info, sizeof(info), "pos:\t0\nflags:\t%s\n", flags);
	fake_proc_file(procdir, pid, path, info, strlen(info));
}

/* A fake process: cmdline, comm, status (uid 0), stat (kernel thread?). */
static void fake_process(const char *procdir, const char *pid,
			 const char *name, bool kthread)
{
	static const char status[] = "Name:\tx\nUid:\t0\t0\t0\t0\n";
	char stat[128];

	fake_proc_file(procdir, pid, "cmdline", name, strlen(name) + 1);
	fake_proc_file(procdir, pid, "comm", name, strlen(name));
	fake_proc_file(procdir, pid, "status", status, strlen(status));
	snprintf(stat, sizeof(stat), "%s (%s) S 1 1 1 0 -1 %u 0", pid, name,
		 kthread ? 0x00200000u : 0x400000u);
	fake_proc_file(procdir, pid, "stat", stat, strlen(stat));
}

/* Whether holder i is pid, holding the file as listed. */
static bool holds(const struct proc_scan *s, size_t i, int pid,
		  const struct proc_hold *want, size_t n)
{
	if (i >= s->n || s->p[i].pid != pid || s->p[i].nhold != n)
		return false;
	for (size_t k = 0; k < n; k++)
		if (s->p[i].hold[k].how != want[k].how ||
		    s->p[i].hold[k].fd != want[k].fd)
			return false;
	return true;
}

TEST(scan_finds_executors_mappers_and_open_fds_by_device_and_inode)
{
	char proc[PATH_MAX], target[PATH_MAX + 8], other[PATH_MAX + 8];
	char path[PATH_MAX + 8], line[256];
	struct proc_scan s;
	struct stat st;
	bool ok;

	make_tmpdir(proc, sizeof(proc), "proc");
	snprintf(target, sizeof(target), "%s/target", proc);
	snprintf(other, sizeof(other), "%s/other", proc);
	write_file(target, "x");
	write_file(other, "y");
	CHECK(stat(target, &st) == 0, "stat target");
	fake_process(proc, "30", "reader", false);
	maps_line(line, sizeof(line), &st, "r--p");
	fake_proc_file(proc, "30", "maps", line, strlen(line));
	fake_process(proc, "100", "runner", false);
	snprintf(path, sizeof(path), "%s/100/exe", proc);
	CHECK(symlink(target, path) == 0, "symlink");
	fake_fd(proc, "100", 7, target, "0100002");	/* O_RDWR */
	fake_fd(proc, "100", 4, target, "0100001");	/* O_WRONLY */
	fake_fd(proc, "100", 5, other, "0100001");
	fake_fd(proc, "100", 6, target, "010000000");	/* O_PATH */
	fake_process(proc, "20", "mapper", false);
	memcpy(line, "garbage\n", 8);
	maps_line(line + 8, sizeof(line) - 8, &st, "r-xp");
	fake_proc_file(proc, "20", "maps", line, strlen(line));
	fake_fd(proc, "20", 3, target, "0100000");	/* O_RDONLY */
	fake_process(proc, "40", "other", false);
	st.st_ino++;
	maps_line(line, sizeof(line), &st, "r-xp");
	st.st_ino--;
	fake_proc_file(proc, "40", "maps", line, strlen(line));
	fake_process(proc, "2", "kthreadd", true);
	fake_fd(proc, "2", 1, target, "01");
	fake_proc_file(proc, "self", "cmdline", "self\0", 5);

	CHECK(proc_scan(proc, st.st_dev, st.st_ino, &s) == 0, "scan");
	ok = s.n == 3 &&
	     holds(&s, 0, 20, (struct proc_hold[]){ { HOW_MAPPED_EXEC, -1 },
						    { HOW_OPEN_READ, 3 } }, 2) &&
	     holds(&s, 1, 30, (struct proc_hold[]){ { HOW_MAPPED, -1 } }, 1) &&
	     holds(&s, 2, 100, (struct proc_hold[]){ { HOW_EXECUTING, -1 },
						     { HOW_OPEN_WRITE, 4 },
						     { HOW_OPEN_WRITE, 7 } }, 3);
	ok = ok && !strcmp(s.p[2].argv[0], "runner") && !s.p[2].argv[1] &&
	     !strcmp(s.p[2].comm, "runner") && s.p[2].uid == 0;
	snprintf(why, whylen, "%zu holders, first pid %d", s.n,
		 s.n ? s.p[0].pid : 0);
	proc_scan_free(&s);
	return ok ? 0 : 1;
}

/* Scan the real /proc for pid holding path as how; 2 s at most. */
static bool found_in_proc(const char *path, pid_t pid, enum proc_how how,
			  int fd)
{
	struct stat st;
	bool found = false;

	if (stat(path, &st) != 0)
		return false;
	for (int i = 0; i < 200 && !found; i++) {
		struct proc_scan s;

		usleep(10000);
		if (proc_scan("/proc", st.st_dev, st.st_ino, &s) != 0)
			return false;
		for (size_t k = 0; k < s.n; k++)
			if (s.p[k].pid == pid && s.p[k].nhold &&
			    s.p[k].hold[0].how == how && s.p[k].hold[0].fd == fd)
				found = true;
		proc_scan_free(&s);
	}
	return found;
}

TEST(scan_sees_a_running_child_and_a_writer_in_real_proc)
{
	char sleeper[PATH_MAX], file[PATH_MAX];
	pid_t pid, writer;
	bool exe, wr;

	CHECK(realpath("/bin/sleep", sleeper), "no /bin/sleep");
	make_tmpdir(file, sizeof(file), "w");
	strcat(file, "/data");
	write_file(file, "");
	pid = fork();
	if (pid == 0) {
		execl(sleeper, "sleep", "30", (char *)NULL);
		_exit(127);
	}
	writer = fork();
	if (writer == 0) {
		int fd = open(file, O_WRONLY);

		if (fd < 0 || (fd != 5 && (dup2(fd, 5) != 5 || close(fd))))
			_exit(127);
		execl(sleeper, "sleep", "30", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0 && writer > 0, "fork");
	exe = found_in_proc(sleeper, pid, HOW_EXECUTING, -1);
	wr = found_in_proc(file, writer, HOW_OPEN_WRITE, 5);
	kill(pid, SIGKILL);
	kill(writer, SIGKILL);
	waitpid(pid, NULL, 0);
	waitpid(writer, NULL, 0);
	CHECK(exe, "pid %d not found executing %s", (int)pid, sleeper);
	CHECK(wr, "pid %d not found writing %s on fd 5", (int)writer, file);
	return 0;
}

TEST(scan_as_another_user_counts_what_it_may_not_inspect)
{
	char file[PATH_MAX];
	struct stat st;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP("needs root, to look as uid 65534 at root's processes");
	make_tmpdir(file, sizeof(file), "u");
	strcat(file, "/data");
	write_file(file, "");
	CHECK(stat(file, &st) == 0, "stat");
	pid = fork();
	if (pid == 0) {
		struct proc_scan s;

		if (setgid(65534) || setuid(65534) ||
		    proc_scan("/proc", st.st_dev, st.st_ino, &s))
			_exit(2);
		/* root's processes, this one's parent at least */
		_exit(s.unreadable > 0 && s.n == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d",
	      status);
	return 0;
}

const struct test proc_tests[] = {
	T(maps_parses_line_with_path),
	T(maps_parses_hex_device_numbers),
	T(maps_parses_anonymous_mapping_without_path),
	T(maps_rejects_malformed_lines),
	T(argv_splits_cmdline_at_nuls),
	T(cmdline_text_joins_argv_or_shows_comm),
	T(fdinfo_flags_are_read_in_octal),
	T(scan_finds_executors_mappers_and_open_fds_by_device_and_inode),
	T(scan_sees_a_running_child_and_a_writer_in_real_proc),
	T(scan_as_another_user_counts_what_it_may_not_inspect),
	{ NULL, NULL },
};
