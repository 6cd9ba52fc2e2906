/* SPDX-License-Identifier: GPL-2.0 */
/* denywritectl why (why.c). */
#ifndef DENYWRITECTL_WHY_H
#define DENYWRITECTL_WHY_H

#include "cli.h"
#include "sysfs.h"

int cmd_why(struct dw *dw, const struct cli *c);

#endif
