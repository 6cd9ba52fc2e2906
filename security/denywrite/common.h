/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * denywrite: shared definitions
 */

#ifndef _SECURITY_DENYWRITE_COMMON_H
#define _SECURITY_DENYWRITE_COMMON_H

#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/lsm_hooks.h>

#define DENYWRITE_NAME "denywrite"

/**
 * enum denywrite_mode - what the LSM does with an operation it would refuse
 * @DENYWRITE_MODE_OFF: no checks at all
 * @DENYWRITE_MODE_AUDIT: log and count, then allow
 * @DENYWRITE_MODE_ENFORCE: log and count, then refuse with ETXTBSY
 */
enum denywrite_mode {
	DENYWRITE_MODE_OFF,
	DENYWRITE_MODE_AUDIT,
	DENYWRITE_MODE_ENFORCE,
};

extern enum denywrite_mode denywrite_mode;
extern struct lsm_blob_sizes denywrite_blob_sizes;
extern bool denywrite_enabled;
extern const struct lsm_id denywrite_lsmid;
DECLARE_STATIC_KEY_FALSE(denywrite_off);

/**
 * denywrite_get_mode - the mode in force now
 *
 * Return: the mode; a change made through securityfs is seen by the very
 * next operation.
 */
static inline enum denywrite_mode denywrite_get_mode(void)
{
	return READ_ONCE(denywrite_mode);
}

/**
 * denywrite_is_off - is the mode off?
 *
 * The first test of every hook but file_release: with CONFIG_JUMP_LABEL a
 * patched no-op while the mode is not off, and a jump past the hook's body
 * while it is, so that mode off costs the call of each hook and nothing
 * more.  It is switched after the mode (see mode.c): a hook that saw it
 * clear may still run while the mode goes off, and reads the mode again
 * before it refuses anything.
 *
 * Return: true in mode off.
 */
static __always_inline bool denywrite_is_off(void)
{
	return static_branch_unlikely(&denywrite_off);
}

const char *denywrite_mode_name(enum denywrite_mode mode);
int denywrite_mode_parse(const char *s, enum denywrite_mode *mode);
void denywrite_set_mode(enum denywrite_mode mode);
void denywrite_mode_init(void);

#endif /* _SECURITY_DENYWRITE_COMMON_H */
