// SPDX-License-Identifier: GPL-2.0-only
/*
 * setexe FILE: make FILE this process' executable file with
 * prctl(PR_SET_MM, PR_SET_MM_EXE_FILE), as checkpoint/restore tools do,
 * then wait to be killed.
 *
 * The kernel refuses (EBUSY) while the old executable is still mapped, so,
 * like CRIU's restorer, we copy a small position-independent stub into an
 * anonymous executable mapping, and the stub unmaps every mapping of our
 * binary, calls prctl() and then pauses.
 *
 * Success is explicit: once prctl() succeeded the stub prints
 * "setexe: exe set" on stdout (and /proc/PID/exe names FILE), then pauses
 * until killed.  If prctl() fails, the stub exits with its errno as
 * status, printing nothing; any other failure, a usage error included,
 * exits SETUP_FAILED (200, above every errno) with a message on stderr.
 * So a caller that saw neither the line nor an exit within its timeout
 * knows setexe is stuck, not that it succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* stub(ranges, count, fd, msg, msglen): ranges are {addr, len} pairs to
 * munmap; msg (in the stub's own page) is written to stdout on success. */
extern const char stub_start[], stub_end[];
__asm__(".text\n"
	".globl stub_start\n"
	"stub_start:\n"
	"	mov %rdi, %r12\n"
	"	mov %rsi, %r13\n"
	"	mov %rdx, %r14\n"
	"	mov %rcx, %r15\n"
	"	mov %r8, %rbx\n"
	"1:	test %r13, %r13\n"
	"	jz 2f\n"
	"	mov (%r12), %rdi\n"
	"	mov 8(%r12), %rsi\n"
	"	mov $11, %eax\n"		/* munmap */
	"	syscall\n"
	"	add $16, %r12\n"
	"	dec %r13\n"
	"	jmp 1b\n"
	"2:	mov $157, %eax\n"		/* prctl */
	"	mov $35, %edi\n"		/* PR_SET_MM */
	"	mov $13, %esi\n"		/* PR_SET_MM_EXE_FILE */
	"	mov %r14, %rdx\n"
	"	xor %r10d, %r10d\n"
	"	xor %r8d, %r8d\n"
	"	syscall\n"
	"	test %eax, %eax\n"
	"	jnz 4f\n"
	"	mov $1, %eax\n"		/* write(1, msg, msglen) */
	"	mov $1, %edi\n"
	"	mov %r15, %rsi\n"
	"	mov %rbx, %rdx\n"
	"	syscall\n"
	"3:	mov $34, %eax\n"		/* pause */
	"	syscall\n"
	"	jmp 3b\n"
	"4:	neg %eax\n"
	"	mov %eax, %edi\n"
	"	mov $231, %eax\n"		/* exit_group */
	"	syscall\n"
	"stub_end:\n");

#define MAX_RANGES 32
#define SETUP_FAILED 200
#define READY_LINE "setexe: exe set\n"
#define MSG_OFFSET 1536 /* in the stub's page: after the code, before ranges */

/* Collect the mappings of our own binary from /proc/self/maps. */
static int own_mappings(unsigned long *ranges)
{
	char exe[4096], line[4352], path[4096];
	unsigned long start, end;
	ssize_t len;
	int n = 0;
	FILE *f;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	f = fopen("/proc/self/maps", "r");
	if (len < 0 || !f)
		return -1;
	exe[len] = '\0';
	while (fgets(line, sizeof(line), f) && n < MAX_RANGES) {
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &start, &end,
			   path) == 3 && !strcmp(path, exe)) {
			ranges[2 * n] = start;
			ranges[2 * n + 1] = end - start;
			n++;
		}
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	size_t code = (size_t)(stub_end - stub_start);
	unsigned long *ranges;
	char *page;
	int fd, n;

	if (argc != 2) {
		fprintf(stderr, "usage: setexe FILE\n");
		return SETUP_FAILED;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return SETUP_FAILED;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return SETUP_FAILED;
	}
	if (code > MSG_OFFSET) {
		fprintf(stderr, "setexe: stub too large\n");
		return SETUP_FAILED;
	}
	memcpy(page, stub_start, code);
	memcpy(page + MSG_OFFSET, READY_LINE, sizeof(READY_LINE) - 1);
	ranges = (unsigned long *)(page + 2048);
	n = own_mappings(ranges);
	if (n <= 0) {
		fprintf(stderr, "setexe: cannot find our own mappings\n");
		return SETUP_FAILED;
	}
	fflush(NULL);
	((void (*)(unsigned long *, long, long, const char *, long))page)(
		ranges, n, fd, page + MSG_OFFSET, (long)sizeof(READY_LINE) - 1);
	return SETUP_FAILED;	/* not reached */
}
