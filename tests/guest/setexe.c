// SPDX-License-Identifier: GPL-2.0-only
/*
 * setexe FILE: make FILE this process' executable file with
 * prctl(PR_SET_MM, PR_SET_MM_EXE_FILE), as checkpoint/restore tools do,
 * then wait to be killed.
 *
 * The kernel refuses (EBUSY) while the old executable is still mapped, so,
 * like CRIU's restorer, we copy a small position-independent stub into an
 * anonymous executable mapping, and the stub unmaps every mapping of our
 * binary, calls prctl() and then pauses.  If prctl() fails, the stub exits
 * with its errno as status; on success /proc/PID/exe names FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* stub(ranges, count, fd): ranges are {addr, len} pairs to munmap. */
extern const char stub_start[], stub_end[];
__asm__(".text\n"
	".globl stub_start\n"
	"stub_start:\n"
	"	mov %rdi, %r12\n"
	"	mov %rsi, %r13\n"
	"	mov %rdx, %r14\n"
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
	"3:	mov $34, %eax\n"		/* pause */
	"	syscall\n"
	"	jmp 3b\n"
	"4:	neg %eax\n"
	"	mov %eax, %edi\n"
	"	mov $231, %eax\n"		/* exit_group */
	"	syscall\n"
	"stub_end:\n");

#define MAX_RANGES 32

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
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(page, stub_start, code);
	ranges = (unsigned long *)(page + 2048);
	n = own_mappings(ranges);
	if (n <= 0) {
		fprintf(stderr, "setexe: cannot find our own mappings\n");
		return 1;
	}
	fflush(NULL);
	((void (*)(unsigned long *, long, long))page)(ranges, n, fd);
	return 1;	/* not reached */
}
