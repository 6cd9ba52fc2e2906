/* SPDX-License-Identifier: GPL-2.0 */
/* Command line parsing (pure: prints nothing, touches nothing). */
#ifndef DENYWRITECTL_CLI_H
#define DENYWRITECTL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "policy.h"

enum command {
	CMD_NONE,
	CMD_STATUS,
	CMD_MODE,
	CMD_ADD,
	CMD_DEL,
	CMD_CLEAR,
	CMD_LIST,
	CMD_LOAD,
	CMD_SAVE,
	CMD_WHY,
	CMD_STATS,
	CMD_DIFF,
	CMD_LOG,
	CMD_CAT_CONFIG,
};

struct cli {
	enum command cmd;
	const char *name;	/* the command word */
	bool help;
	bool version;
	bool json;
	enum scope scope;	/* add */
	bool ignore_writers;	/* add */
	bool quiet;		/* load, add, del: no notes; why: nothing */
	bool dry_run;		/* load: parse and resolve, do not load */
	bool check;		/* load --check: with --root, the image's
				 * policy offline */
	bool allow_empty;	/* load: an empty policy clears the rules */
	bool strict;		/* load, diff: any bad rule or file fails it
				 * all */
	bool sources;		/* list: the file and line of each rule */
	bool persist;		/* add, del: also in 90-local.rules */
	bool pids;		/* why: the pids of the holders, one a line */
	bool wide;		/* why: command lines not cut to the width */
	bool follow;		/* log: wait for more records */
	const char *since;	/* log: records from this time on */
	const char *file;	/* log: read records from this file */
	const char *journal_file;	/* log: or from this journal file */
	const char *log_op;	/* log: only records of this op= */
	const char *log_path;	/* log: only records of this path= */
	const char *log_uid;	/* log: only records of this user */
	const char *root;	/* load, diff, list --sources, --persist:
				 * the rules.d directories under this root */
	char **args;		/* operands, pointing into argv */
	int nargs;
};

#define CLI_USAGE 2

/*
 * Parse argv (which getopt may permute).  Returns 0, or CLI_USAGE with a
 * message in err ("unknown command 'x'", ...).
 */
int cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen);

void cli_usage(FILE *f);
/* The usage of one command (denywritectl CMD --help). */
void cli_command_usage(FILE *f, enum command cmd);

#endif
