// SPDX-License-Identifier: GPL-2.0
#include "proc.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define SMALL_MAX 65536		/* cmdline, comm, stat, status, fdinfo */
#define PF_KTHREAD 0x00200000	/* in the flags field of /proc/PID/stat */

int maps_parse_line(const char *line, struct maps_entry *e)
{
	int n = -1;

	/* e.g. "7f12-7f34 r-xp 00001000 fd:01 131 /usr/lib/libc.so.6" */
	if (sscanf(line, "%lx-%lx %4s %llx %x:%x %llu%n", &e->start, &e->end,
		   e->perms, &e->offset, &e->dev_major, &e->dev_minor,
		   &e->inode, &n) != 7 || n < 0)
		return -1;
	if (strlen(e->perms) != 4 || !isxdigit((unsigned char)line[0]))
		return -1;
	line += n;
	if (*line != '\0' && *line != '\n' && *line != ' ')
		return -1;
	line += strspn(line, " ");
	e->path = line;
	return 0;
}

/* The value of the "key:" line of a /proc text file, or NULL. */
static const char *proc_field(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, key, n) == 0 && p[n] == ':')
			return p + n + 1;
	return NULL;
}

long fdinfo_flags(const char *text)
{
	const char *v = proc_field(text, "flags");
	char *end;
	long flags;

	if (!v)
		return -1;
	flags = strtol(v, &end, 8);
	return end == v ? -1 : flags;
}

static const struct {
	const char *text;
	const char *json;
} hows[] = {
	[HOW_EXECUTING] = { "executing", "executing" },
	[HOW_MAPPED_EXEC] = { "mapped executable", "mapped_exec" },
	[HOW_MAPPED] = { "mapped", "mapped" },
	[HOW_OPEN_WRITE] = { "open for writing", "open_write" },
	[HOW_OPEN_READ] = { "open for reading", "open_read" },
};

const char *proc_how_text(enum proc_how how)
{
	return hows[how].text;
}

const char *proc_how_json(enum proc_how how)
{
	return hows[how].json;
}

/* A whole small /proc file, NUL-terminated; NULL with errno set. */
static char *read_small(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	int err;

	if (fd < 0)
		return NULL;
	err = read_all(fd, SMALL_MAX, &buf, len);
	close(fd);
	if (err) {
		errno = err;
		return NULL;
	}
	return buf;
}

static char *read_pid_file(const char *procdir, const char *pid,
			   const char *name, size_t *len)
{
	char path[PATH_MAX];
	size_t n;

	snprintf(path, sizeof(path), "%s/%s/%s", procdir, pid, name);
	return read_small(path, len ? len : &n);
}

void argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

char **proc_argv(const char *procdir, int pid)
{
	char spid[16], *buf, **argv;
	size_t len, n = 0;

	snprintf(spid, sizeof(spid), "%d", pid);
	buf = read_pid_file(procdir, spid, "cmdline", &len);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\0';
	if (len && buf[len - 1] != '\0')	/* rewritten without a NUL */
		n++;
	argv = xcalloc(n + 1, sizeof(*argv));
	for (size_t i = 0, k = 0; k < n; k++) {
		argv[k] = xstrdup(buf + i);
		i += strlen(buf + i) + 1;
	}
	free(buf);
	return argv;
}

char *proc_cmdline_text(const struct proc_holder *h)
{
	size_t len = strlen(h->comm) + 3;
	char *s;

	for (size_t i = 0; h->argv[i]; i++)
		len += strlen(h->argv[i]) + 1;
	s = xmalloc(len);
	if (!h->argv[0]) {
		snprintf(s, len, "[%s]", h->comm);
		return s;
	}
	s[0] = '\0';
	for (size_t i = 0; h->argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, h->argv[i]);
	}
	return s;
}

bool proc_holds(const struct proc_holder *h, enum proc_how how)
{
	for (size_t i = 0; i < h->nhold; i++)
		if (h->hold[i].how == how)
			return true;
	return false;
}

static void add_hold(struct proc_holder *h, enum proc_how how, int fd)
{
	h->hold = xrealloc(h->hold, (h->nhold + 1) * sizeof(*h->hold));
	h->hold[h->nhold].how = how;
	h->hold[h->nhold].fd = fd;
	h->nhold++;
}

/* What one scan step could not read: a permission error marks it. */
static void note_error(bool *denied)
{
	if (errno == EACCES || errno == EPERM)
		*denied = true;
}

static bool same_file(const struct stat *st, dev_t dev, ino_t ino)
{
	return st->st_dev == dev && st->st_ino == ino;
}

static void scan_exe(const char *procdir, const char *pid, dev_t dev,
		     ino_t ino, struct proc_holder *h, bool *denied)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/exe", procdir, pid);
	if (stat(path, &st) != 0)
		note_error(denied);
	else if (same_file(&st, dev, ino))
		add_hold(h, HOW_EXECUTING, -1);
}

static void scan_maps(const char *procdir, const char *pid, dev_t dev,
		      ino_t ino, struct proc_holder *h, bool *denied)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	bool exec = false, mapped = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/maps", procdir, pid);
	f = fopen(path, "re");
	if (!f) {
		note_error(denied);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		struct maps_entry e;

		if (maps_parse_line(line, &e) ||
		    e.inode != (unsigned long long)ino ||
		    e.dev_major != major(dev) || e.dev_minor != minor(dev))
			continue;
		mapped = true;
		exec |= e.perms[2] == 'x';
	}
	if (ferror(f))
		note_error(denied);
	free(line);
	fclose(f);
	if (exec)
		add_hold(h, HOW_MAPPED_EXEC, -1);
	else if (mapped)
		add_hold(h, HOW_MAPPED, -1);
}

/* How fd (a link in procdir/pid/fd that is the file) holds it. */
static void scan_fd(const char *procdir, const char *pid, const char *fd,
		    struct proc_holder *h)
{
	char name[300], *info;
	long flags = -1;

	snprintf(name, sizeof(name), "fdinfo/%s", fd);
	info = read_pid_file(procdir, pid, name, NULL);
	if (info)
		flags = fdinfo_flags(info);
	free(info);
	if (flags >= 0 && (flags & O_PATH))
		return;		/* holds a name, not the contents */
	add_hold(h, flags >= 0 && (flags & O_ACCMODE) != O_RDONLY ?
		 HOW_OPEN_WRITE : HOW_OPEN_READ, atoi(fd));
}

static int by_fd(const void *a, const void *b)
{
	const struct proc_hold *x = a, *y = b;

	return (x->fd > y->fd) - (x->fd < y->fd);
}

static void scan_fds(const char *procdir, const char *pid, dev_t dev,
		     ino_t ino, struct proc_holder *h, bool *denied)
{
	char path[PATH_MAX];
	const struct dirent *de;
	size_t first = h->nhold;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s/fd", procdir, pid);
	d = opendir(path);
	if (!d) {
		note_error(denied);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/fd/%s", procdir, pid,
			 de->d_name);
		if (stat(path, &st) == 0 && same_file(&st, dev, ino))
			scan_fd(procdir, pid, de->d_name, h);
	}
	closedir(d);
	if (h->nhold - first > 1)
		qsort(h->hold + first, h->nhold - first, sizeof(*h->hold),
		      by_fd);
}

/* Whether pid is a kernel thread (PF_KTHREAD in /proc/PID/stat). */
static bool kernel_thread(const char *procdir, const char *pid)
{
	char *stat = read_pid_file(procdir, pid, "stat", NULL), *p;
	unsigned long flags = 0;

	p = stat ? strrchr(stat, ')') : NULL;
	/* ") S ppid pgrp session tty_nr tpgid flags" */
	if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		flags = 0;
	free(stat);
	return flags & PF_KTHREAD;
}

static long effective_uid(const char *procdir, const char *pid)
{
	char *status = read_pid_file(procdir, pid, "status", NULL);
	const char *v = status ? proc_field(status, "Uid") : NULL;
	long uid = -1;

	if (v && sscanf(v, "%*d %ld", &uid) != 1)
		uid = -1;
	free(status);
	return uid;
}

static char *user_name(long uid)
{
	const struct passwd *pw = uid >= 0 ? getpwuid((uid_t)uid) : NULL;
	char buf[32];

	if (pw)
		return xstrdup(pw->pw_name);
	snprintf(buf, sizeof(buf), "%ld", uid);
	return xstrdup(uid >= 0 ? buf : "?");
}

/* Fill in who the holder is; false if it exited meanwhile. */
static bool identify(const char *procdir, const char *pid,
		     struct proc_holder *h)
{
	char *comm;

	h->pid = atoi(pid);
	h->argv = proc_argv(procdir, h->pid);
	comm = read_pid_file(procdir, pid, "comm", NULL);
	if (!h->argv || !comm) {
		free(comm);
		return false;
	}
	if (*comm && comm[strlen(comm) - 1] == '\n')	/* the kernel's */
		comm[strlen(comm) - 1] = '\0';
	h->comm = comm;
	h->uid = effective_uid(procdir, pid);
	h->user = user_name(h->uid);
	return true;
}

static void holder_free(struct proc_holder *h)
{
	argv_free(h->argv);
	free(h->comm);
	free(h->user);
	free(h->hold);
}

static void scan_pid(const char *procdir, const char *pid, dev_t dev,
		     ino_t ino, struct proc_scan *out)
{
	struct proc_holder h = { 0 };
	bool denied = false;

	if (kernel_thread(procdir, pid))
		return;
	scan_exe(procdir, pid, dev, ino, &h, &denied);
	if (!h.nhold)	/* its executable is mapped executable too: said */
		scan_maps(procdir, pid, dev, ino, &h, &denied);
	scan_fds(procdir, pid, dev, ino, &h, &denied);
	if (h.nhold && !identify(procdir, pid, &h)) {
		holder_free(&h);
		return;		/* exited meanwhile */
	}
	if (denied)
		out->unreadable++;
	if (!h.nhold)
		return;
	out->p = xrealloc(out->p, (out->n + 1) * sizeof(*out->p));
	out->p[out->n++] = h;
}

static int by_pid(const void *a, const void *b)
{
	const struct proc_holder *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int proc_scan(const char *procdir, dev_t dev, ino_t ino, struct proc_scan *out)
{
	DIR *d = opendir(procdir);
	const struct dirent *de;

	memset(out, 0, sizeof(*out));
	if (!d)
		return errno;
	while ((de = readdir(d)) != NULL)
		if (isdigit((unsigned char)de->d_name[0]) &&
		    de->d_name[strspn(de->d_name, "0123456789")] == '\0')
			scan_pid(procdir, de->d_name, dev, ino, out);
	closedir(d);
	if (out->n > 1)
		qsort(out->p, out->n, sizeof(*out->p), by_pid);
	return 0;
}

void proc_scan_free(struct proc_scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		holder_free(&s->p[i]);
	free(s->p);
	s->p = NULL;
	s->n = 0;
}
