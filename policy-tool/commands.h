/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The denywritectl commands.  command_run runs the one that c names
 * (c->cmd, not CMD_NONE): status, mode, add, del, clear, list, save and
 * stats are in commands.c; load, diff, why and log in their own files
 * (load.h, diff.h, why.h, log.h), which never call back into
 * commands.c.  Each command prints its output to stdout and any failure
 * as one line on stderr, and returns the exit code.
 */
#ifndef DENYWRITECTL_COMMANDS_H
#define DENYWRITECTL_COMMANDS_H

#include "cli.h"
#include "sysfs.h"

int command_run(struct dw *dw, const struct cli *c);

#endif
