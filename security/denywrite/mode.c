// SPDX-License-Identifier: GPL-2.0-only
/*
 * denywrite: the mode, and the hooks that go with it
 *
 * In mode off denywrite takes no holds and refuses nothing, and it costs
 * nothing either: its hooks are switched off in the LSM framework
 * (security_hook_set_active()), which then skips them as it skips an LSM
 * that is not enabled, so that an open() makes no call into denywrite.
 *
 * Going off: the mode is set, then the hooks go off, then
 * denywrite_protect_stop() makes the taking of holds and marks stop, waits
 * for the protectors under way and drops every hold and mark there is, so
 * that file_release can go off too.  A file executed or mapped before is
 * protected again when it is executed or mapped again in audit or enforce
 * mode, as after a boot in mode off.  A file whose release races with the
 * switch keeps file_release on until it is released; that release
 * schedules the work below.  Going on: file_release is back first, then
 * holds may be taken, then the other hooks are back, then the mode is set.
 * A hook that runs while its key is being switched does not rely on it.
 * mode_lock serialises all of it, the switching off of file_release after
 * the last release included: under it, mode off means that no hold or
 * mark can be taken any more.
 */

#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "common.h"
#include "protect.h"

static DEFINE_MUTEX(mode_lock);
/* Is file_release on?  Under mode_lock. */
static bool release_on = true;

/* Switch file_release off if no file can need it any more. */
static void release_off_if_idle(void)
{
	lockdep_assert_held(&mode_lock);
	if (!release_on || denywrite_get_mode() != DENYWRITE_MODE_OFF ||
	    denywrite_protect_busy())
		return;
	denywrite_release_hook_set_active(false);
	release_on = false;
}

static void release_off_work(struct work_struct *work)
{
	mutex_lock(&mode_lock);
	release_off_if_idle();
	mutex_unlock(&mode_lock);
}

static DECLARE_WORK(release_off, release_off_work);

/**
 * denywrite_protect_idle - the last hold or mark went in mode off
 *
 * Called by the release that dropped it, in any context: file_release is
 * switched off from a work item.
 */
void denywrite_protect_idle(void)
{
	schedule_work(&release_off);
}

/**
 * denywrite_set_mode - change the mode, and switch the hooks to match
 * @mode: the new mode
 *
 * Context: process context; may sleep (waits for an RCU grace period when
 * the mode goes off).
 */
void denywrite_set_mode(enum denywrite_mode mode)
{
	enum denywrite_mode old;

	mutex_lock(&mode_lock);
	old = denywrite_get_mode();
	if (old == DENYWRITE_MODE_OFF && mode != DENYWRITE_MODE_OFF) {
		if (!release_on) {
			denywrite_release_hook_set_active(true);
			release_on = true;
		}
		denywrite_protect_start();
		denywrite_hooks_set_active(true);
	}
	WRITE_ONCE(denywrite_mode, mode);
	if (old != DENYWRITE_MODE_OFF && mode == DENYWRITE_MODE_OFF) {
		denywrite_hooks_set_active(false);
		denywrite_protect_stop();
		release_off_if_idle();
	}
	mutex_unlock(&mode_lock);
}

/**
 * denywrite_mode_init - switch the hooks for the mode given at boot
 *
 * Called once the hooks are added, which leaves them on.
 */
void __init denywrite_mode_init(void)
{
	if (denywrite_get_mode() != DENYWRITE_MODE_OFF) {
		denywrite_protect_start();
		return;
	}
	denywrite_hooks_set_active(false);
	denywrite_release_hook_set_active(false);
	release_on = false;
}
