/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: LSM hooks
 */

#ifndef _SECURITY_DENYWRITE_HOOKS_H
#define _SECURITY_DENYWRITE_HOOKS_H

void denywrite_add_hooks(void);

#endif /* _SECURITY_DENYWRITE_HOOKS_H */
