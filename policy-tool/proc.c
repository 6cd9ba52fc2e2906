// SPDX-License-Identifier: GPL-2.0
#include "proc.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CMDLINE_MAX 4096

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

const char *proc_use_name(enum proc_use use)
{
	switch (use) {
	case USE_EXE:
		return "exe";
	case USE_MAPPED_EXEC:
		return "mapped executable";
	case USE_MAPPED:
		return "mapped";
	default:
		return "none";
	}
}

static enum proc_use maps_use(const char *procdir, const char *pid,
			      dev_t dev, ino_t ino)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	enum proc_use use = USE_NONE;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/maps", procdir, pid);
	f = fopen(path, "re");
	if (!f)
		return USE_NONE;
	while (getline(&line, &cap, f) > 0) {
		struct maps_entry e;

		if (maps_parse_line(line, &e) || e.inode != (unsigned long long)ino ||
		    e.dev_major != major(dev) || e.dev_minor != minor(dev))
			continue;
		if (e.perms[2] == 'x') {
			use = USE_MAPPED_EXEC;
			break;
		}
		use = USE_MAPPED;
	}
	free(line);
	fclose(f);
	return use;
}

static enum proc_use process_use(const char *procdir, const char *pid,
				 dev_t dev, ino_t ino)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/exe", procdir, pid);
	if (stat(path, &st) == 0 && st.st_dev == dev && st.st_ino == ino)
		return USE_EXE;
	return maps_use(procdir, pid, dev, ino);
}

static char *read_small(const char *path, size_t *len)
{
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = xmalloc(CMDLINE_MAX + 1);
	*len = 0;
	for (;;) {
		ssize_t r = read(fd, buf + *len, CMDLINE_MAX - *len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		*len += (size_t)r;
		if (r == 0 || *len == CMDLINE_MAX)
			break;
	}
	close(fd);
	if (buf)
		buf[*len] = '\0';
	return buf;
}

char *proc_cmdline(const char *procdir, int pid)
{
	char path[PATH_MAX], *s, *comm;
	size_t len;

	snprintf(path, sizeof(path), "%s/%d/cmdline", procdir, pid);
	s = read_small(path, &len);
	while (s && len && (s[len - 1] == '\0' || s[len - 1] == ' '))
		s[--len] = '\0';
	if (s && len) {
		for (size_t i = 0; i < len; i++)
			if (s[i] == '\0')
				s[i] = ' ';
		return s;
	}
	free(s);
	snprintf(path, sizeof(path), "%s/%d/comm", procdir, pid);
	comm = read_small(path, &len);
	if (!comm)
		return NULL;
	comm[strcspn(comm, "\n")] = '\0';
	len = strlen(comm) + 3;
	s = xmalloc(len);
	snprintf(s, len, "[%s]", comm);
	free(comm);
	return s;
}

static int by_pid(const void *a, const void *b)
{
	const struct proc_user *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int proc_find_users(const char *procdir, dev_t dev, ino_t ino,
		    struct proc_users *out)
{
	DIR *d = opendir(procdir);
	const struct dirent *de;

	out->p = NULL;
	out->n = 0;
	if (!d)
		return errno;
	while ((de = readdir(d)) != NULL) {
		enum proc_use use;
		char *cmdline;

		if (!isdigit((unsigned char)de->d_name[0]) ||
		    de->d_name[strspn(de->d_name, "0123456789")] != '\0')
			continue;
		use = process_use(procdir, de->d_name, dev, ino);
		if (use == USE_NONE)
			continue;
		cmdline = proc_cmdline(procdir, atoi(de->d_name));
		if (!cmdline)	/* exited meanwhile */
			continue;
		out->p = xrealloc(out->p, (out->n + 1) * sizeof(*out->p));
		out->p[out->n].pid = atoi(de->d_name);
		out->p[out->n].use = use;
		out->p[out->n].cmdline = cmdline;
		out->n++;
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->p, out->n, sizeof(*out->p), by_pid);
	return 0;
}

void proc_users_free(struct proc_users *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->p[i].cmdline);
	free(u->p);
	u->p = NULL;
	u->n = 0;
}
