/* SPDX-License-Identifier: GPL-2.0 */
/* Finding the processes that execute or map a file, through /proc. */
#ifndef DENYWRITECTL_PROC_H
#define DENYWRITECTL_PROC_H

#include <stddef.h>
#include <sys/types.h>

struct maps_entry {
	unsigned long start, end;
	char perms[5];			/* "r-xp" */
	unsigned long long offset;
	unsigned int dev_major, dev_minor;	/* hex "maj:min" in the file */
	unsigned long long inode;
	const char *path;		/* points into the line; "" if none */
};

/* Parse one line of /proc/PID/maps (newline optional).  0, or -1 if bad. */
int maps_parse_line(const char *line, struct maps_entry *e);

/* How a process uses the file; later values win. */
enum proc_use {
	USE_NONE,
	USE_MAPPED,		/* mapped, not executable */
	USE_MAPPED_EXEC,	/* mapped executable */
	USE_EXE,		/* its /proc/PID/exe */
};

const char *proc_use_name(enum proc_use use);

struct proc_user {
	int pid;
	enum proc_use use;
	char *cmdline;
};

struct proc_users {
	struct proc_user *p;
	size_t n;
};

/*
 * Scan procdir ("/proc") for processes that execute or map the file
 * (dev, ino), sorted by pid.  Processes we may not inspect are skipped.
 * Returns 0 or the errno of opening procdir.
 */
int proc_find_users(const char *procdir, dev_t dev, ino_t ino,
		    struct proc_users *out);
void proc_users_free(struct proc_users *u);

/*
 * procdir/PID/cmdline with NULs turned into spaces, or "[comm]" when it is
 * empty (kernel threads, zombies); malloc'd, NULL if neither is readable.
 */
char *proc_cmdline(const char *procdir, int pid);

#endif
