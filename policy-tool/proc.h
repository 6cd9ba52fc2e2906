/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the processes that execute, map or hold open a file, through
 * /proc, as fuser -v and lsof do.
 */
#ifndef DENYWRITECTL_PROC_H
#define DENYWRITECTL_PROC_H

#include <stdbool.h>
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

/* Parse the "flags:" line of /proc/PID/fdinfo/N; -1 if there is none. */
long fdinfo_flags(const char *text);

/* How a process holds the file. */
enum proc_how {
	HOW_EXECUTING,		/* its /proc/PID/exe */
	HOW_MAPPED_EXEC,	/* mapped executable */
	HOW_MAPPED,		/* mapped, not executable */
	HOW_OPEN_WRITE,		/* an fd open for writing */
	HOW_OPEN_READ,		/* an fd open read-only */
};

/* Text ("open for writing") and JSON ("open_write") names. */
const char *proc_how_text(enum proc_how how);
const char *proc_how_json(enum proc_how how);

struct proc_hold {
	enum proc_how how;
	int fd;			/* for HOW_OPEN_*, else -1 */
};

struct proc_holder {
	int pid;
	long uid;		/* effective uid, -1 if unknown */
	char *user;		/* its name, or the number; malloc'd */
	char **argv;		/* from cmdline, NULL-terminated; malloc'd */
	char *comm;		/* malloc'd, "" if unknown */
	struct proc_hold *hold;
	size_t nhold;
};

struct proc_scan {
	struct proc_holder *p;	/* sorted by pid */
	size_t n;
	unsigned int unreadable;	/* processes we were not allowed to see */
};

/*
 * Scan procdir ("/proc") for the processes that execute, map or have open
 * the file (dev, ino).  Kernel threads are skipped; a process that exits
 * meanwhile is not counted.  A process whose exe, maps or fds we may not
 * read (another user's, when we are not root) is counted in unreadable,
 * with what we could see of it.  Returns 0 or the errno of opening
 * procdir.
 */
int proc_scan(const char *procdir, dev_t dev, ino_t ino, struct proc_scan *out);
void proc_scan_free(struct proc_scan *s);

/* Whether the holder holds the file in this way. */
bool proc_holds(const struct proc_holder *h, enum proc_how how);

/*
 * The command line for display: argv joined by spaces, or "[comm]" when
 * it is empty (kernel threads, zombies); malloc'd.
 */
char *proc_cmdline_text(const struct proc_holder *h);

/*
 * procdir/PID/cmdline split at its NULs, NULL-terminated, malloc'd (each
 * string and the vector); NULL if unreadable.  An empty cmdline gives an
 * empty vector.
 */
char **proc_argv(const char *procdir, int pid);
void argv_free(char **argv);

#endif
