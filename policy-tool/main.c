// SPDX-License-Identifier: GPL-2.0
/* denywritectl: show and change the policy of the denywrite LSM. */
#include "cli.h"
#include "commands.h"
#include "sysfs.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Flush stdout; a write error there is a failure too (e.g. a full disk). */
static int close_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == 0)
			rc = fail("write error: %s", strerror(errno));
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c;
	struct dw dw;
	char err[512];

	if (cli_parse(argc, argv, &c, err, sizeof(err))) {
		fail("%s", err);
		fputs("Try '" PROGRAM_NAME " --help'.\n", stderr);
		return EXIT_USAGE;
	}
	if (c.help && c.cmd != CMD_NONE) {
		cli_command_usage(stdout, c.cmd);
		return close_stdout(0);
	}
	if (c.help) {
		cli_usage(stdout);
		return close_stdout(0);
	}
	if (c.version) {
		puts(PROGRAM_NAME " " PROGRAM_VERSION);
		return close_stdout(0);
	}
	/*
	 * Each command opens securityfs itself, if and when it needs the
	 * kernel: "load --dry-run" never does.  Only load (at boot) mounts
	 * securityfs when it is not mounted; the other commands say so
	 * instead.
	 */
	memset(&dw, 0, sizeof(dw));
	return close_stdout(command_run(&dw, &c));
}
