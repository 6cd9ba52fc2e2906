/* SPDX-License-Identifier: GPL-2.0 */
/* add --persist and del --persist (persist.c), for add and del. */
#ifndef DENYWRITECTL_PERSIST_H
#define DENYWRITECTL_PERSIST_H

#include <stddef.h>

#include "cli.h"
#include "policy.h"

/*
 * After the n changes were made in the kernel, write them to
 * 90-local.rules too, editing the lines of the same rules (rule_same,
 * rules.h).  0 or 1 (reported).
 */
int persist_changes(const struct cli *c, const struct change *ch, size_t n);

#endif
