/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The denywritectl commands.  Each prints its output to stdout and any
 * failure as one line on stderr, and returns the exit code (0 or 1).
 */
#ifndef DENYWRITECTL_COMMANDS_H
#define DENYWRITECTL_COMMANDS_H

#include "cli.h"
#include "sysfs.h"

int cmd_status(struct dw *dw, const struct cli *c);
int cmd_mode(struct dw *dw, const struct cli *c);
int cmd_add(struct dw *dw, const struct cli *c);
int cmd_del(struct dw *dw, const struct cli *c);
int cmd_clear(struct dw *dw, const struct cli *c);
int cmd_list(struct dw *dw, const struct cli *c);
int cmd_load(struct dw *dw, const struct cli *c);	/* load.c */
int cmd_save(struct dw *dw, const struct cli *c);
int cmd_stats(struct dw *dw, const struct cli *c);
int cmd_why(struct dw *dw, const struct cli *c);	/* why.c */

/* Shared by the commands. */
int need_mac_admin(const struct cli *c);	/* 0, or 1 (reported) */
const char *write_error(int err, const char *file);
/* The warning for a rule_is_too_broad rule; where is "file:line" or NULL. */
void warn_too_broad(const struct rule *r, const char *where);

#endif
