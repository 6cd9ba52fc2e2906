/*
 * dwbpfattach PROG_PIN LINK_PIN - attach the BPF LSM program that bpftool
 * loaded and pinned at PROG_PIN (bpftool prog load: this bpftool cannot
 * attach LSM programs), and pin the link at LINK_PIN, so that the
 * program stays attached after this exits; removing LINK_PIN (and
 * PROG_PIN) detaches it.  bpf(2) only: BPF_OBJ_GET,
 * BPF_RAW_TRACEPOINT_OPEN (the attachment of a BPF_PROG_TYPE_LSM program
 * to its hook), BPF_OBJ_PIN.  Exit 1 on failure.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	union bpf_attr attr;
	int prog, link;

	if (argc != 3) {
		fprintf(stderr, "usage: dwbpfattach PROG_PIN LINK_PIN\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uint64_t)(uintptr_t)argv[1];
	prog = bpf(BPF_OBJ_GET, &attr);
	if (prog < 0) {
		fprintf(stderr, "dwbpfattach: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = prog;
	link = bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (link < 0) {
		fprintf(stderr, "dwbpfattach: attach: %s\n", strerror(errno));
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uint64_t)(uintptr_t)argv[2];
	attr.bpf_fd = link;
	if (bpf(BPF_OBJ_PIN, &attr)) {
		fprintf(stderr, "dwbpfattach: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	return 0;
}
