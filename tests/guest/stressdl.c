/* stressdl - the dynamically linked program of stress: linked against
 * libdwtest.so (found in /usr/lib), it dlopen()s and dlclose()s a plugin.
 *
 *   stressdl once PLUGIN
 *	dlopen, call dwplugin_value(), dlclose, exit: 0 done, 10 dlopen
 *	refused with ETXTBSY, 11 any other dlopen error, 12 a wrong value.
 *   stressdl loop SHMFD SLOT HOLD_US PLUGIN
 *	One dlopen per generation released in the stress_shm.h memfd SHMFD,
 *	after spinning the slot's delay_us; while loaded it looks at the
 *	plugin's marker for HOLD_US and records in slot SLOT (see
 *	stress_shm.h) when it held the plugin and whether the marker changed,
 *	or the errno of a refused dlopen.  Exits 0 when stop is set.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "stress_shm.h"

int dwtest_lib_value(void);

/* ld.so's message for a refused mmap has no errno in it (glibc 2.36 passes
 * 0 for a failed segment mapping), so any failed segment mapping counts as
 * a refusal; stress checks that denywrite refused as many mmaps. */
#define MAP_FAILED_MSG "failed to map segment from shared object"

/* dlopen path; NULL and *err (ETXTBSY or EIO) if it failed. */
static void *load(const char *path, int *err)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const char *msg;

	if (h)
		return h;
	msg = dlerror();
	*err = msg && (strstr(msg, MAP_FAILED_MSG) || strstr(msg, strerror(ETXTBSY))) ?
	       ETXTBSY : EIO;
	if (*err != ETXTBSY)
		fprintf(stderr, "stressdl: %s\n", msg ? msg : "dlopen failed");
	return NULL;
}

static int plugin_value(void *h)
{
	int (*fn)(void);

	*(void **)&fn = dlsym(h, "dwplugin_value");
	return fn ? fn() : -1;
}

static int once(const char *path)
{
	int err, v;
	void *h = load(path, &err);

	if (!h)
		return err == ETXTBSY ? 10 : 11;
	v = plugin_value(h);
	dlclose(h);
	return v == 7 ? 0 : 12;
}

/* One dlopen of the loop: hold the plugin for hold_us, note what changed;
 * the record is final once the plugin is unloaded again. */
static void hold_once(struct shm *s, struct shm_rec *r, const char *path,
		      int fd, long long size, long hold_us)
{
	char first[MARK_LEN + 1], now[MARK_LEN + 1];
	int err = 0;
	void *h;

	r->t_try = shm_now_us();
	h = load(path, &err);
	r->t_got = shm_now_us();
	if (!h) {
		r->err = err;
		shm_set_state(s, r, REC_FAILED);
		return;
	}
	shm_read_mark(fd, size, first);
	r->t_start = shm_now_us();
	memcpy(r->mark, first, sizeof(r->mark));
	r->entry_bad = plugin_value(h) != 7;
	do {
		shm_read_mark(fd, size, now);
		r->changes += memcmp(first, now, MARK_LEN) != 0;
	} while (shm_now_us() < r->t_start + hold_us);
	r->t_end = shm_now_us();
	dlclose(h);
	shm_set_state(s, r, REC_DONE);
}

static int loop(int argc, char **argv)
{
	struct shm *s;
	struct stat st;
	int fd, slot;

	if (argc != 6 || (slot = atoi(argv[3])) < 0 || slot >= SHM_SLOTS)
		return 2;
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED,
		 atoi(argv[2]), 0);
	fd = open(argv[5], O_RDONLY | O_CLOEXEC);
	if (s == MAP_FAILED || fd < 0 || fstat(fd, &st)) {
		perror("stressdl: setup");
		return 2;
	}
	unsigned gen = atomic_load(&s->go) + 1;

	atomic_fetch_add(&s->ready, 1);
	shm_post(s);
	for (; !shm_wait_go(s, gen); gen++) {
		shm_spin_us(s->rec[slot].delay_us);
		hold_once(s, &s->rec[slot], argv[5], fd, st.st_size, atol(argv[4]));
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (dwtest_lib_value() != 42)
		return 12;
	if (argc == 3 && !strcmp(argv[1], "once"))
		return once(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "loop"))
		return loop(argc, argv);
	fprintf(stderr, "usage: stressdl once PLUGIN | loop SHMFD SLOT HOLD_US PLUGIN\n");
	return 2;
}
