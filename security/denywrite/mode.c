// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the mode
 *
 * In mode off denywrite takes no holds and refuses nothing, and costs
 * nothing but the calls of its hooks: each tests denywrite_is_off() first,
 * a static key that CONFIG_JUMP_LABEL turns into a patched jump.
 *
 * Going off: the mode is set, then the key, then denywrite_protect_stop()
 * makes the taking of holds and marks stop, waits for the protectors under
 * way and drops every hold and mark there is.  A file executed or mapped
 * before is protected again when it is executed or mapped again in audit or
 * enforce mode, as after a boot in mode off.  file_release never tests the
 * key: it drops what a release racing with the switch still finds.  Going
 * on: holds may be taken again, then the key is cleared, then the mode is
 * set.  From enforce to audit: the mode is set, then
 * denywrite_protect_relax() makes the holds that denied write access
 * (enforce's) counted ones, whose writers audit mode logs and allows.
 * mode_lock serialises the switches.  Both walk the CPUs' lists of held
 * files, and take no filesystem's lock: a hung unmount cannot hold a
 * switch up.
 */

#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "common.h"
#include "protect.h"

enum denywrite_mode denywrite_mode __read_mostly = DENYWRITE_MODE_ENFORCE;
DEFINE_STATIC_KEY_FALSE(denywrite_off);
static DEFINE_MUTEX(mode_lock);

static const char *const mode_names[] = {
	[DENYWRITE_MODE_OFF] = "off",
	[DENYWRITE_MODE_AUDIT] = "audit",
	[DENYWRITE_MODE_ENFORCE] = "enforce",
};

/**
 * denywrite_mode_name - the name of a mode, as securityfs shows it
 * @mode: the mode
 *
 * Return: "off", "audit" or "enforce".
 */
const char *denywrite_mode_name(enum denywrite_mode mode)
{
	return mode_names[mode];
}

/**
 * denywrite_mode_parse - parse the name of a mode
 * @s: "off", "audit" or "enforce"
 * @mode: set on success
 *
 * Return: 0 or -EINVAL.
 */
int denywrite_mode_parse(const char *s, enum denywrite_mode *mode)
{
	int i = match_string(mode_names, ARRAY_SIZE(mode_names), s);

	if (i < 0)
		return -EINVAL;
	*mode = i;
	return 0;
}

/**
 * denywrite_set_mode - change the mode, and switch the hooks to match
 * @mode: the new mode
 *
 * Context: process context, outside the policy's SRCU read-side section;
 * may sleep (waits for its grace period when the mode goes off, or from
 * enforce to audit).
 */
void denywrite_set_mode(enum denywrite_mode mode)
{
	enum denywrite_mode old;

	mutex_lock(&mode_lock);
	old = denywrite_get_mode();
	if (old == DENYWRITE_MODE_OFF && mode != DENYWRITE_MODE_OFF) {
		denywrite_protect_start();
		static_branch_disable(&denywrite_off);
	}
	WRITE_ONCE(denywrite_mode, mode);
	if (old == DENYWRITE_MODE_ENFORCE && mode == DENYWRITE_MODE_AUDIT)
		denywrite_protect_relax();
	if (old != DENYWRITE_MODE_OFF && mode == DENYWRITE_MODE_OFF) {
		static_branch_enable(&denywrite_off);
		denywrite_protect_stop();
	}
	mutex_unlock(&mode_lock);
}

/**
 * denywrite_mode_init - set the key and the holds for the mode given at boot
 */
void __init denywrite_mode_init(void)
{
	if (denywrite_get_mode() == DENYWRITE_MODE_OFF)
		static_branch_enable(&denywrite_off);
	else
		denywrite_protect_start();
}
