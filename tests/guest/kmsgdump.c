// SPDX-License-Identifier: GPL-2.0
/*
 * kmsgdump: the kernel's log buffer, every record still in it, on stdout,
 * for scripts/report.py (run by run_suite in qemu/guest-suites.sh once a
 * suite's groups are done).  One line a record:
 *
 *   KMSG <seq> <prio> <text>
 *
 * text as /dev/kmsg gives it (non-printable bytes, a newline too, as
 * \xNN); then "KMSG-END <records> <lost>", lost being the records the
 * buffer overwrote before they were read (read(2) says EPIPE).  The
 * report fails a log whose first record is not 0, whose numbers skip one,
 * or that lost any: a kernel message nobody can read is a lost splat.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	static char rec[8192 + 64];
	unsigned long long next = 0, records = 0, lost = 0;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd < 0) {
		printf("KMSG-ERROR open /dev/kmsg: %s\n", strerror(errno));
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		unsigned long long seq;
		unsigned int prio;
		char *text, *nl;

		if (n < 0 && errno == EPIPE) {
			lost++;	/* overwritten before we read it */
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			printf("KMSG-ERROR read /dev/kmsg: %s\n",
			       n < 0 ? strerror(errno) : "end of file");
			return 1;
		}
		rec[n] = '\0';
		/* "prio,seq,usec,flags[,...];text\n[ KEY=value\n]..." */
		text = strchr(rec, ';');
		if (!text || sscanf(rec, "%u,%llu,", &prio, &seq) != 2) {
			printf("KMSG-ERROR malformed record after %llu\n", next);
			return 1;
		}
		text++;
		nl = strchr(text, '\n');
		if (nl)
			*nl = '\0';
		if (seq != next && records)
			lost += seq > next ? seq - next : 0;
		printf("KMSG %llu %u %s\n", seq, prio, text);
		next = seq + 1;
		records++;
	}
	printf("KMSG-END %llu %llu\n", records, lost);
	return fflush(stdout) == 0 ? 0 : 1;
}
