/*
 * dwllrun DIR COMMAND [ARG...] - run COMMAND in a Landlock sandbox
 * (landlock_create_ruleset, landlock_add_rule, landlock_restrict_self):
 * every filesystem access right that the kernel's Landlock ABI knows is
 * handled; the whole tree may be read and executed, /dev written, and
 * DIR written and changed in every way.  Anything else, a write outside
 * DIR and /dev, fails with EACCES.  Exit 125 if the sandbox cannot be
 * made, 127 if COMMAND does not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

#define READ_EXEC (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
		   LANDLOCK_ACCESS_FS_READ_DIR)

static int add_path(int ruleset, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };
	int rc;

	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0) {
		fprintf(stderr, "dwllrun: %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
		     &pb, 0);
	if (rc)
		fprintf(stderr, "dwllrun: landlock_add_rule %s: %s\n", path,
			strerror(errno));
	close(pb.parent_fd);
	return rc;
}

int main(int argc, char **argv)
{
	struct landlock_ruleset_attr attr = { 0 };
	uint64_t all;
	int abi, ruleset;

	if (argc < 3) {
		fprintf(stderr, "usage: dwllrun DIR COMMAND [ARG...]\n");
		return 2;
	}
	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		      LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		fprintf(stderr, "dwllrun: Landlock is not enabled: %s\n",
			strerror(errno));
		return 125;
	}
	/* ABI 1: bits 0-12; 2 adds REFER; 3 adds TRUNCATE. */
	all = (1ULL << 13) - 1;
	if (abi >= 2)
		all |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		all |= LANDLOCK_ACCESS_FS_TRUNCATE;
	attr.handled_access_fs = all;
	ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0) {
		fprintf(stderr, "dwllrun: landlock_create_ruleset: %s\n",
			strerror(errno));
		return 125;
	}
	if (add_path(ruleset, "/", READ_EXEC) ||
	    add_path(ruleset, "/dev", READ_EXEC | LANDLOCK_ACCESS_FS_WRITE_FILE |
		     (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0)) ||
	    add_path(ruleset, argv[1], all))
		return 125;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_landlock_restrict_self, ruleset, 0)) {
		fprintf(stderr, "dwllrun: landlock_restrict_self: %s\n",
			strerror(errno));
		return 125;
	}
	close(ruleset);
	execvp(argv[2], argv + 2);
	fprintf(stderr, "dwllrun: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
