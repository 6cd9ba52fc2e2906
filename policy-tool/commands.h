/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The denywritectl commands.  Each prints its output to stdout and any
 * failure as one line on stderr, and returns the exit code (0 or 1).
 */
#ifndef DENYWRITECTL_COMMANDS_H
#define DENYWRITECTL_COMMANDS_H

#include "cli.h"
#include "sysfs.h"

int cmd_status(const struct dw *dw, const struct cli *c);
int cmd_mode(const struct dw *dw, const struct cli *c);
int cmd_add(const struct dw *dw, const struct cli *c);
int cmd_del(const struct dw *dw, const struct cli *c);
int cmd_clear(const struct dw *dw, const struct cli *c);
int cmd_list(const struct dw *dw, const struct cli *c);
int cmd_load(const struct dw *dw, const struct cli *c);
int cmd_save(const struct dw *dw, const struct cli *c);
int cmd_stats(const struct dw *dw, const struct cli *c);
int cmd_why(const struct dw *dw, const struct cli *c);	/* why.c */

#endif
