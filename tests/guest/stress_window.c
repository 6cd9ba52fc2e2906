/* stress_window.c - twoface helpers, the exec open window and the
 * controls that show the detectors can fire.
 *
 * The exec open window (issue 7, section 3), made deterministic: the
 * environment string of an execve() lies in a page registered with
 * userfaultfd, so the exec blocks copying its strings, after the kernel
 * has opened the file and before it reads the header.  While it is
 * blocked we open the file for writing: the classic kernel refuses
 * (deny_write_access() in do_open_execat()); so must denywrite.  Then the
 * fault is resolved and the exec finishes (or fails) and is reaped.
 */
#include "stress.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096
#define WINDOW_MARK "window-writer!!!"
#define WINDOW_ENV "DWSTRESS_WINDOW=1"

int twoface_entries(const char *path, unsigned char lo[2])
{
	char *argv[] = { (char *)bin("twoface"), "--entries", NULL };
	unsigned long a = 0, b = 0;
	unsigned char now = 0;
	char out[128];
	int st = 0, fd, ok;

	if (run_cmd(argv, 5000, out, sizeof(out), &st) || st ||
	    sscanf(out, "%lx %lx", &a, &b) != 2 || (a ^ b) > 0xff || a == b) {
		errno = EINVAL;
		return -1;
	}
	lo[0] = (unsigned char)a;
	lo[1] = (unsigned char)b;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = pread(fd, &now, 1, ENTRY_BYTE_OFF) == 1 && now == lo[0];
	close(fd);
	errno = EINVAL;
	return ok ? 0 : -1;
}

/* Write len bytes at off of path; 0 or an errno. */
static int write_at(const char *path, const void *buf, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (pwrite(fd, buf, len, off) != (ssize_t)len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static bool alive(void *arg)
{
	(void)arg;
	return atomic_load(&shm->rec[0].state) != REC_EMPTY;
}

/* Start twoface in slot 0 (see spawn_twoface) and wait until it runs. */
static int start_alive(const char *path, int hold_us, unsigned pregen,
		       unsigned postgen)
{
	memset(shm->rec, 0, sizeof(shm->rec));
	if (spawn_twoface(path, 0, hold_us, 0, pregen, postgen) < 0)
		return -1;
	if (shm_wait_event(alive, NULL, 5000) ||
	    atomic_load(&shm->rec[0].state) != REC_ALIVE) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

/* A fresh copy of twoface with its marker, for case c. */
int case_target(const struct scase *c, char *path, size_t len)
{
	char dir[256];

	snprintf(dir, sizeof(dir), WORK "/%s", c->name);
	snprintf(path, len, "%s/prog", dir);
	return mkdir_p(dir, 0755) || make_target(bin("twoface"), path) ? -1 : 0;
}

/* --- the exec open window ---------------------------------------------- */

/* A userfaultfd with one registered, missing page at *page. */
static int uffd_page(char **page)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (uffd < 0)
		return -1;
	*page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (unsigned long)*page;
	reg.range.len = PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (*page == MAP_FAILED || ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		int e = errno;

		close(uffd);
		errno = e;
		return -1;
	}
	return uffd;
}

/* Wait for the fault on page; 0, or -1 with why. */
static int wait_fault(int uffd, const char *page, char *why, size_t len)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&p, 1, 5000) != 1) {
		snprintf(why, len, "the exec never faulted on its environment page");
		return -1;
	}
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT ||
	    (msg.arg.pagefault.address & ~(unsigned long long)(PAGE - 1)) !=
		    (unsigned long)page) {
		snprintf(why, len, "unexpected userfaultfd message");
		return -1;
	}
	return 0;
}

static int resolve_fault(int uffd, char *page)
{
	static char src[PAGE] = WINDOW_ENV;
	struct uffdio_copy copy = {
		.dst = (unsigned long)page,
		.src = (unsigned long)src,
		.len = PAGE,
	};

	return ioctl(uffd, UFFDIO_COPY, &copy);
}

/* The writer in the window: open, write the marker, close; the errno. */
static int window_writer(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno;
	return write_at(path, WINDOW_MARK, MARK_LEN, st.st_size - MARK_LEN);
}

static void window_verdict(struct tally *t, int werr)
{
	const struct shm_rec *r = &shm->rec[0];
	int state = atomic_load(&r->state);
	char ran[128];

	if (state == REC_DONE)
		snprintf(ran, sizeof(ran), "ran it (the program saw marker '%s')", r->mark);
	else
		snprintf(ran, sizeof(ran), "%s", state == REC_FAILED ? errtxt(r->err) : "did not finish");
	st_add(t, ST_WINDOW_ERRNO, werr);
	if (werr == 0)
		bad(t, CK_WINDOW_DENIED, "open(O_WRONLY) succeeded while execve had the file open (blocked copying its environment, before the header read), the write landed, and the exec then %s",
		    ran);
	else if (werr != ETXTBSY)
		bad(t, CK_WINDOW_DENIED, "open(O_WRONLY): %s", errtxt(werr));
}

static void finish_verdict(struct tally *t, pid_t reaped, pid_t pid)
{
	int state = atomic_load(&shm->rec[0].state);

	if (pid < 0)
		bad(t, CK_WINDOW_FINISH, "clone: no exec was started");
	else if (reaped != pid)
		bad(t, CK_WINDOW_FINISH, "the exec did not end within 10 s of the fault's resolution");
	else if (state != REC_DONE && state != REC_FAILED)
		bad(t, CK_WINDOW_FINISH, "the exec ended without running or failing (state %d)", state);
}

void run_window(const struct scase *c, struct tally *t)
{
	char path[256], fd[16], why[320] = "", *page = NULL;
	char *argv[] = { path, fd, "0", "0", "0", "0", NULL };
	char *envp[2] = { NULL, NULL };
	int uffd = -1, werr = -1;
	pid_t pid, reaped = 0;

	snprintf(fd, sizeof(fd), "%d", shm_fd);
	memset(shm->rec, 0, sizeof(shm->rec));
	if (case_target(c, path, sizeof(path)))
		snprintf(why, sizeof(why), "setup: %s: %s", path, errtxt(errno));
	else if ((uffd = uffd_page(&page)) < 0)
		snprintf(why, sizeof(why), "userfaultfd: %s%s", errtxt(errno),
			 errno == ENOSYS ? " (the kernel lacks CONFIG_USERFAULTFD)" : "");
	if (why[0]) {
		bad(t, CK_WINDOW_DENIED, "%s", why);
		bad(t, CK_WINDOW_FINISH, "%s", why);
		return;
	}
	envp[0] = page;
	pid = spawn_exec(0, path, argv, envp, 0);
	if (pid < 0)
		bad(t, CK_WINDOW_DENIED, "clone: %s", errtxt(errno));
	else if (wait_fault(uffd, page, why, sizeof(why)))
		bad(t, CK_WINDOW_DENIED, "%s", why);
	else
		werr = window_writer(path);
	if (resolve_fault(uffd, page) && pid > 0)
		bad(t, CK_WINDOW_FINISH, "UFFDIO_COPY: %s", errtxt(errno));
	if (pid > 0)
		reaped = reap_one(t, 10000, false, NULL, NULL);
	if (werr >= 0)
		window_verdict(t, werr);
	finish_verdict(t, reaped, pid);
	close(uffd);
	if (wait_writable(path, 2000) < 0)
		bad(t, CK_WRITABLE, "%s is not writable after the exec was reaped", path);
}

/* --- controls: the detectors can fire ----------------------------------- */

/* The header changes after the kernel read it: twoface must see it. */
static void control_torn(const char *path, struct tally *t)
{
	unsigned char lo[2];
	unsigned gen = atomic_load(&shm->go) + 1;
	int err;

	if (twoface_entries(path, lo) || start_alive(path, 0, gen, 0)) {
		bad(t, CK_CTL_TORN, "setup: %s", errtxt(errno));
		shm_release(shm, gen);
		return;
	}
	err = write_at(path, &lo[1], 1, ENTRY_BYTE_OFF);
	shm_release(shm, gen);
	reap_one(t, 5000, false, NULL, NULL);
	if (err)
		bad(t, CK_CTL_TORN, "rewriting e_entry in mode off: %s", errtxt(err));
	else if (atomic_load(&shm->rec[0].state) != REC_DONE || !shm->rec[0].torn)
		bad(t, CK_CTL_TORN, "e_entry was rewritten under the running program and twoface did not report it (state %d, torn %d)",
		    atomic_load(&shm->rec[0].state), shm->rec[0].torn);
	write_at(path, &lo[0], 1, ENTRY_BYTE_OFF);
}

/* A writer writes while the program runs: both detectors must fire. */
static void control_overlap(const char *path, int hold_us, struct tally *t)
{
	struct wattempt a = { 0, 0, 0, 0, 0, 0 };
	unsigned gen = atomic_load(&shm->go) + 1;
	struct stat st;
	char why[240] = "";
	int fd = -1;

	if (stat(path, &st) || start_alive(path, hold_us, 0, gen) ||
	    (fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
		bad(t, CK_CTL_OVERLAP, "setup: %s", errtxt(errno));
		shm_release(shm, gen);
		return;
	}
	a.t_open = now_us();
	shm_release(shm, gen);
	for (int i = 0; now_us() < a.t_open + hold_us / 4; i++, sleep_us(1000)) {
		char m[MARK_LEN + 1];

		snprintf(m, sizeof(m), "ctl-write-%06d", i % 1000000);
		if (pwrite(fd, m, MARK_LEN, st.st_size - MARK_LEN) != MARK_LEN)
			a.write_err = errno;
	}
	a.t_close = now_us();
	close(fd);
	reap_one(t, 5000, false, NULL, NULL);
	if (atomic_load(&shm->rec[0].state) != REC_DONE)
		bad(t, CK_CTL_OVERLAP, "the program did not finish");
	else if (!shm->rec[0].changes || !judge(&shm->rec[0], &a, why, sizeof(why)))
		bad(t, CK_CTL_OVERLAP, "a write during the run was not detected (changes %d, times %s)",
		    shm->rec[0].changes, why[0] ? "overlap" : "apart");
}

void run_controls(const struct scase *c, struct tally *t)
{
	char path[256];
	int err;

	err = case_target(c, path, sizeof(path)) ? errno : sfs_write("mode", "off");
	if (err) {
		bad(t, CK_CTL_TORN, "setup: %s", errtxt(err));
		bad(t, CK_CTL_OVERLAP, "setup: %s", errtxt(err));
		return;
	}
	control_torn(path, t);
	control_overlap(path, c->hold_us, t);
	if ((err = sfs_write("mode", "enforce")))
		bad(t, CK_CTL_OVERLAP, "back to enforce: %s", errtxt(err));
}
