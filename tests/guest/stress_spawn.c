/* stress_spawn.c - start the programs whose execs race.
 *
 * A round's exec must cost as little as possible besides the exec itself:
 * under TCG a fork (copying and then tearing down our address space) costs
 * as much again.  So the child is a clone(CLONE_VM) sharing our memory, on
 * a stack of its own, like vfork() but without stopping us: it waits for
 * its generation, spins its delay and calls execve().  It shares our TLS
 * too, so it calls no libc function that could write it (errno): only
 * system calls, made directly, and clock_gettime (vDSO).
 */
#include "stress.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define STACK_SIZE (32 * 1024)

struct launch {
	char path[PATH_MAX];
	char args[5][24];
	char *argv[8];
	char *const *envp;
	struct shm_rec *rec;
	unsigned gate;
	char stack[STACK_SIZE] __attribute__((aligned(16)));
};

static struct launch launches[SHM_SLOTS];

static long raw_syscall(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

static int launch_child(void *arg)
{
	static const struct timespec tick = { 0, 50 * 1000 * 1000 };
	struct launch *l = arg;
	unsigned v;
	long ret;

	raw_syscall(SYS_setpgid, 0, 0, 0, 0);
	while (l->gate && (int)((v = atomic_load(&shm->go)) - l->gate) < 0) {
		if (atomic_load(&shm->stop))
			return 2;
		raw_syscall(SYS_futex, (long)&shm->go, FUTEX_WAIT, v, (long)&tick);
	}
	for (long long until = shm_now_us() + l->rec->delay_us; shm_now_us() < until;)
		;
	l->rec->t_try = shm_now_us();
	ret = raw_syscall(SYS_execve, (long)l->path, (long)l->argv, (long)l->envp, 0);
	l->rec->t_got = shm_now_us();
	l->rec->err = (int)-ret;
	atomic_store(&l->rec->state, REC_FAILED);
	atomic_fetch_add(&shm->events, 1);
	raw_syscall(SYS_futex, (long)&shm->events, FUTEX_WAKE, 0x7fffffff, 0);
	return 0;
}

pid_t spawn_exec(int slot, const char *path, char *const argv[],
		 char *const envp[], unsigned gate)
{
	struct launch *l = &launches[slot];
	int n = 0;
	pid_t pid;

	snprintf(l->path, sizeof(l->path), "%s", path);
	l->argv[n++] = l->path;
	for (; argv[n] && n < 7; n++)
		l->argv[n] = argv[n];
	l->argv[n] = NULL;
	l->envp = envp ? envp : environ;
	l->rec = &shm->rec[slot];
	l->gate = gate;
	atomic_fetch_add(&shm->spawned, 1);
	pid = clone(launch_child, l->stack + STACK_SIZE, CLONE_VM | SIGCHLD, l);
	if (pid < 0)
		atomic_fetch_sub(&shm->spawned, 1);
	return pid;
}

pid_t spawn_twoface(const char *path, int slot, int hold_us, unsigned gate,
		    unsigned pregen, unsigned postgen)
{
	struct launch *l = &launches[slot];
	char *argv[] = { NULL, l->args[0], l->args[1], l->args[2], l->args[3],
			 l->args[4], NULL };

	snprintf(l->args[0], sizeof(l->args[0]), "%d", shm_fd);
	snprintf(l->args[1], sizeof(l->args[1]), "%d", slot);
	snprintf(l->args[2], sizeof(l->args[2]), "%d", hold_us);
	snprintf(l->args[3], sizeof(l->args[3]), "%u", pregen);
	snprintf(l->args[4], sizeof(l->args[4]), "%u", postgen);
	return spawn_exec(slot, path, argv, NULL, gate);
}
