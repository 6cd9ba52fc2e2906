/* twoface - the program stress execs: it has two entry points and notes
 * what it saw of its own file while it ran.
 *
 *   twoface --entries                         prints "ENTRY_A ENTRY_B" (hex)
 *   twoface SHMFD SLOT HOLD_US PREGEN POSTGEN
 *
 * It is linked with entry_a as e_entry; entry_b is the other valid entry,
 * 64 bytes further and in the same 256-byte block, so the two differ in
 * e_entry's low byte only and a one-byte write switches between them.
 * Each stub notes which one ran and jumps to _start.
 *
 * The second form records into slot SLOT of the stress_shm.h memfd SHMFD:
 * - torn: the e_entry of the ELF header as mapped now (the page cache) is
 *   not AT_ENTRY, the entry the kernel took from the header it read: the
 *   header changed between the kernel's read and the program's start;
 * - entry_bad: the entry that ran is not AT_ENTRY (should never happen);
 * - the marker (the file's last MARK_LEN bytes) and e_entry, looked at
 *   first (after waiting for generation PREGEN, if not 0), then again
 *   and again for HOLD_US (after waiting for POSTGEN, if not 0); every
 *   look that differs from the first counts as a change.
 * Exit 0 once recorded, 2 if it could not record.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "stress_shm.h"

__asm__(".text\n"
	".balign 256\n"
	".globl entry_a\n"
	"entry_a:\n"
	"\tmovl $1, which_entry(%rip)\n"
	"\tjmp _start\n"
	".balign 64\n"
	".globl entry_b\n"
	"entry_b:\n"
	"\tmovl $2, which_entry(%rip)\n"
	"\tjmp _start\n");

extern char entry_a[], entry_b[];
extern const Elf64_Ehdr __ehdr_start;
volatile int which_entry;

struct look {
	char mark[MARK_LEN + 1];
	uint64_t entry;
};

static int look_at(int fd, long long size, struct look *l)
{
	l->entry = *(const volatile uint64_t *)&__ehdr_start.e_entry;
	return shm_read_mark(fd, size, l->mark);
}

static int same(const struct look *a, const struct look *b)
{
	return a->entry == b->entry && !memcmp(a->mark, b->mark, MARK_LEN);
}

static struct shm *map_shm(const char *fdarg)
{
	void *p = mmap(NULL, sizeof(struct shm), PROT_READ | PROT_WRITE,
		       MAP_SHARED, atoi(fdarg), 0);

	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	uint64_t ran = which_entry == 2 ? (uintptr_t)entry_b : (uintptr_t)entry_a;
	uint64_t at_entry = getauxval(AT_ENTRY);
	struct look first, now;
	struct shm_rec *r;
	struct shm *s;
	struct stat st;
	int fd, slot;

	if (argc == 2 && !strcmp(argv[1], "--entries")) {
		printf("%#lx %#lx\n", (unsigned long)(uintptr_t)entry_a,
		       (unsigned long)(uintptr_t)entry_b);
		return 0;
	}
	if (argc != 6 || !(s = map_shm(argv[1])) ||
	    (slot = atoi(argv[2])) < 0 || slot >= SHM_SLOTS) {
		fprintf(stderr, "twoface: bad arguments or shared memory\n");
		return 2;
	}
	r = &s->rec[slot];
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		perror("twoface: /proc/self/exe");
		return 2;
	}
	shm_set_state(s, r, REC_ALIVE);
	if (atoi(argv[4]) && shm_wait_go(s, (unsigned)atoi(argv[4])))
		return 2;
	if (look_at(fd, st.st_size, &first))
		return 2;
	r->torn = first.entry != at_entry;
	r->entry_bad = ran != at_entry;
	memcpy(r->mark, first.mark, sizeof(r->mark));
	__atomic_store_n(&r->t_start, shm_now_us(), __ATOMIC_RELEASE);
	shm_post(s);
	if (atoi(argv[5]) && shm_wait_go(s, (unsigned)atoi(argv[5])))
		return 2;
	for (long long until = r->t_start + atoi(argv[3]);;) {
		if (look_at(fd, st.st_size, &now))
			return 2;
		r->changes += !same(&first, &now);
		if (shm_now_us() >= until)
			break;
	}
	r->t_end = shm_now_us();
	shm_set_state(s, r, REC_DONE);
	return 0;
}
