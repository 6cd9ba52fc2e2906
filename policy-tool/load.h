/* SPDX-License-Identifier: GPL-2.0 */
/* denywritectl load (load.c). */
#ifndef DENYWRITECTL_LOAD_H
#define DENYWRITECTL_LOAD_H

#include "cli.h"
#include "sysfs.h"

int cmd_load(struct dw *dw, const struct cli *c);

#endif
