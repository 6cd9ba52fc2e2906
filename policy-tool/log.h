/* SPDX-License-Identifier: GPL-2.0 */
/* denywritectl log (log.c). */
#ifndef DENYWRITECTL_LOG_H
#define DENYWRITECTL_LOG_H

#include "cli.h"
#include "sysfs.h"

int cmd_log(struct dw *dw, const struct cli *c);

#endif
