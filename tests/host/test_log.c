// SPDX-License-Identifier: GPL-2.0
/* log: denywrite's audit records read from a file, as text and JSON. */
#include "e2e.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* Records as dmesg, /dev/kmsg, the audit log and the journal give them. */
#define RECORDS								\
	"[   18.997152] audit: type=1400 audit(1796315109.997:3): "	\
	"lsm=denywrite op=write mode=enforce pid=194 comm=\"cp\" "	\
	"path=\"/usr/lib/x86_64-linux-gnu/libc.so.6\" dev=\"vda\" ino=3562 " \
	"scope=lib rule=\"/usr/lib/x86_64-linux-gnu\"\n"		\
	"audit: type=1404 audit(1796304281.345:4): lsm=denywrite op=mode " \
	"mode=off old_mode=enforce pid=67 uid=0 auid=4294967295 "	\
	"ses=4294967295 comm=\"denywritectl\" res=1\n"			\
	"type=MAC_POLICY_LOAD msg=audit(1796304281.185:3): lsm=denywrite " \
	"op=add rules=1 old_rules=0 policy=e7f0eda29190e786f2e89ffbb48a9e" \
	"ebc18ea56fea4465c18057f23d3c4d470c pid=66 uid=0 auid=4294967295 " \
	"ses=4294967295 comm=\"denywritectl\" res=0\n"			\
	"6,1234,18997152,-;audit: type=1400 audit(1796315110.000:9): "	\
	"lsm=denywrite op=exec mode=audit pid=5 uid=0 comm=6D7920636F6D6D " \
	"path=2F746D702F6120620A scope=exec rule=\"/\" suppressed=3\n"	\
	"1796315111.000000 host kernel: audit: type=1403 "		\
	"lsm=denywrite op=unmount rules=1 old_rules=2 policy=ab "	\
	"rule=\"/mnt/usb\" res=1\n"					\
	"audit: type=1400 audit(1796315112.000:11): lsm=apparmor op=x\n"

TEST(log_prints_one_line_a_record_time_op_mode_user_command_path_rule)
{
	struct opts o = { .uid = -1, .input = RECORDS, .env = "TZ=UTC" };

	/* The audit records in time order, as the parser groups events. */
	EXPECT(&o, 0,
	       "2026-12-03 13:24:41 add - root denywritectl - - policy="
	       "e7f0eda29190e786f2e89ffbb48a9eebc18ea56fea4465c18057f23d3c4d470c "
	       "res=0 (failed)\n"
	       "2026-12-03 13:24:41 mode off root denywritectl - - "
	       "old_mode=enforce\n"
	       "2026-12-03 16:25:09 write enforce - cp "
	       "/usr/lib/x86_64-linux-gnu/libc.so.6 lib /usr/lib/x86_64-linux-gnu\n"
	       "2026-12-03 16:25:10 exec audit root my comm /tmp/a b\\012 exec / "
	       "(3 suppressed before)\n"
	       "2026-12-03 16:25:11 unmount - - - - - /mnt/usb policy=ab\n",
	       "", "log", "--file", "-");
	return 0;
}

TEST(log_since_and_json)
{
	struct opts o = { .uid = -1, .input = RECORDS, .env = "TZ=UTC" };

	EXPECT(&o, 0,
	       "{\"time\":1796315110.000,\"type\":1400,\"user\":\"root\","
	       "\"op\":\"exec\",\"mode\":\"audit\",\"pid\":5,\"uid\":0,"
	       "\"comm\":\"my comm\",\"path\":\"/tmp/a b\\n\",\"scope\":\"exec\","
	       "\"rule\":\"/\",\"suppressed\":3}\n"
	       "{\"time\":1796315111.000,\"type\":1403,\"user\":null,"
	       "\"op\":\"unmount\",\"rules\":1,\"old_rules\":2,\"policy\":\"ab\","
	       "\"rule\":\"/mnt/usb\",\"res\":1}\n", "", "log", "--json",
	       "--since", "2026-12-03 16:25:10", "--file", "-");
	EXPECT(&o, 0, "2026-12-03 16:25:11 unmount - - - - - /mnt/usb "
	       "policy=ab\n", "", "log", "--since=@1796315111", "--file", "-");
	EXPECT(&o, 2, "", "denywritectl: log: --since: 'soon' is not "
	       "@SECONDS, YYYY-MM-DD [HH:MM[:SS]], -N[smhd], now, recent, "
	       "today, yesterday, this-week, this-month or this-year\n", "log",
	       "--since", "soon", "--file", "-");
	return 0;
}

/* journald's audit transport: no "type=", the type's name before the
 * fields; the same record as the kernel's printk of it gives. */
TEST(log_reads_the_type_name_of_journald_audit_records)
{
	struct opts o = { .uid = -1, .env = "TZ=UTC", .input =
		"1796315113.500000 host audit[194]: AVC lsm=denywrite op=write "
		"mode=audit pid=194 comm=\"cp\" path=\"/usr/lib/x\" "
		"scope=lib rule=\"/usr/lib\"\n"
		"1796315114.000000 host audit: MAC_STATUS lsm=denywrite "
		"op=mode mode=off old_mode=audit res=1\n"
		"1796315115.000000 host audit: XAVC lsm=denywrite op=mode "
		"mode=off\n" };

	EXPECT(&o, 0,
	       "{\"time\":1796315113.500,\"type\":1400,\"user\":null,"
	       "\"op\":\"write\",\"mode\":\"audit\",\"pid\":194,"
	       "\"comm\":\"cp\",\"path\":\"/usr/lib/x\",\"scope\":\"lib\","
	       "\"rule\":\"/usr/lib\"}\n"
	       "{\"time\":1796315114.000,\"type\":1404,\"user\":null,"
	       "\"op\":\"mode\",\"mode\":\"off\",\"old_mode\":\"audit\","
	       "\"res\":1}\n"
	       "{\"time\":1796315115.000,\"user\":null,"
	       "\"op\":\"mode\",\"mode\":\"off\"}\n",
	       "", "log", "--json", "--file", "-");
	return 0;
}

/*
 * A record is a line whose message, after the metadata of the kernel's
 * log, the journal or the audit log, starts with the kernel's own
 * prefix, "lsm=denywrite op=" (security/denywrite/log.c), framed as the
 * audit subsystem or pr_fmt frames it.  Lines that merely contain a
 * marker are no records: a program named "denywrite op=wr" that
 * segfaults (the kernel prints its comm), a file name in a segfault
 * line, another driver's message, or a record with text before its
 * prefix.
 */
#define GENUINE								\
	"6,1300,18997152,-;audit: type=1400 audit(1796315120.000:20): "	\
	"lsm=denywrite op=write mode=enforce pid=10 comm=\"cp\" "	\
	"path=\"/bin/a\" dev=\"vda\" ino=1 scope=exec rule=\"/\"\n"	\
	"1796315121.000000 host kernel: audit: type=1400 "		\
	"audit(1796315121.000:21): lsm=denywrite op=truncate mode=audit " \
	"pid=11 comm=\"sh\" path=\"/bin/b\" dev=\"vda\" ino=2 scope=exec " \
	"rule=\"/\"\n"							\
	"6,1302,18997160,-;denywrite: lsm=denywrite op=exec mode=enforce " \
	"pid=12 comm=\"run\" name=\"c\" rule=\"/\" suppressed=0\n"	\
	"1796315123.000000 host kernel: denywrite: lsm=denywrite op=mmap " \
	"mode=enforce pid=13 comm=\"ld\" name=\"d\" rule=\"/usr/lib\" "	\
	"suppressed=0\n"						\
	"node=host type=AVC msg=audit(1796315124.000:24): lsm=denywrite " \
	"op=write mode=enforce pid=14 comm=\"dd\" path=\"/bin/e\" "	\
	"dev=\"vda\" ino=5 scope=exec rule=\"/\"\n"			\
	"[   19.000000] audit: type=1400 audit(1796315125.000:25): "	\
	"lsm=denywrite op=write mode=enforce pid=15 comm=\"tee\" "	\
	"path=\"/bin/f\" dev=\"vda\" ino=6 scope=exec rule=\"/\"\n"	\
	"6,1306,18997190,-,caller=T1;audit: type=1400 "			\
	"audit(1796315126.000:26): lsm=denywrite op=write mode=enforce " \
	"pid=16 comm=\"cp\" path=\"/bin/j\" dev=\"vda\" ino=7 "	\
	"scope=exec rule=\"/\"\n"					\
	"<5>[   21.000000] audit: type=1400 audit(1796315127.000:27): " \
	"lsm=denywrite op=mmap mode=audit pid=17 comm=\"ld\" "	\
	"path=\"/lib/k\" dev=\"vda\" ino=8 scope=lib rule=\"/lib\"\n" \
	"Dec 03 16:25:28 host kernel: denywrite: lsm=denywrite op=exec " \
	"mode=enforce pid=18 comm=\"sh\" name=\"l\" rule=\"/\" "	\
	"suppressed=2\n"						\
	"type=AVC msg=audit(12/03/2026 16:25:29.000:29) : lsm=denywrite " \
	"op=truncate mode=enforce pid=19 comm=tee path=/bin/m "	\
	"scope=exec rule=/\n"

#define FORGED								\
	"6,1303,18997170,-;denywrite op=wr[4242]: segfault at 0 ip "	\
	"0000555555555131 sp 00007ffd2b9e4a80 error 6 in "		\
	"a.out[555555555000+1000] likely on CPU 0 (core 0, socket 0)\n"	\
	"1796315126.000000 host kernel: denywrite op=wr[4242]: segfault " \
	"at 0 ip 0000555555555131 sp 00007ffd2b9e4a80 error 6 in "	\
	"a.out[555555555000+1000]\n"					\
	"[   20.000000] denywrite op=wr[4243]: segfault at 0 ip 0 sp 0 " \
	"error 6 in a.out[400000+1000]\n"				\
	"1796315127.000000 host kernel: usb 1-1: lsm=denywrite op=write " \
	"mode=enforce pid=1 comm=\"x\" path=\"/bin/g\" rule=\"/\"\n"	\
	"6,1304,18997180,-;audit: type=1400 audit(1796315128.000:28): x " \
	"lsm=denywrite op=write mode=enforce pid=1 comm=\"x\" "	\
	"path=\"/bin/h\" rule=\"/\"\n"					\
	"1796315129.000000 host kernel: a[77]: segfault at 0 ip 0 sp 0 " \
	"error 4 in x lsm=denywrite op=write mode=enforce[400000+1000]\n" \
	"1796315130.000000 host kernel: b[78]: segfault at 0 ip 0 sp 0 " \
	"error 4 in denywrite: op=write[400000+1000]\n"		\
	"1796315131.000000 host myprog[99]: lsm=denywrite op=write "	\
	"mode=enforce pid=1 comm=\"x\" path=\"/bin/i\" rule=\"/\"\n"	\
	"type=AVC msg=audit(1796315132.000:32): apparmor=\"DENIED\" "	\
	"name=\"lsm=denywrite op=write\"\n"				\
	"Dec 03 16:25:30 host sshd[5]: lsm=denywrite op=write "		\
	"mode=enforce pid=1 comm=\"x\" path=\"/bin/n\" rule=\"/\"\n"

TEST(log_counts_only_lines_whose_message_starts_with_the_record_prefix)
{
	struct opts o = { .uid = -1, .env = "TZ=UTC",
			  .input = FORGED GENUINE FORGED };

	EXPECT(&o, 0,
	       "2026-12-03 16:25:20 write enforce - cp /bin/a exec /\n"
	       "2026-12-03 16:25:21 truncate audit - sh /bin/b exec /\n"
	       "- exec enforce - run c - /\n"
	       "2026-12-03 16:25:23 mmap enforce - ld d - /usr/lib\n"
	       "2026-12-03 16:25:24 write enforce - dd /bin/e exec /\n"
	       "2026-12-03 16:25:25 write enforce - tee /bin/f exec /\n"
	       "2026-12-03 16:25:26 write enforce - cp /bin/j exec /\n"
	       "2026-12-03 16:25:27 mmap audit - ld /lib/k lib /lib\n"
	       "- exec enforce - sh l - / (2 suppressed before)\n"
	       "- truncate enforce - tee /bin/m exec /\n",
	       "", "log", "--file", "-");
	return 0;
}

/*
 * auditd's default format, ENRICHED: after the kernel's fields, a 0x1d
 * and the interpretations (UID="root" AUID="unset"), which are no fields
 * of the record: res=1 is a success, and no AUID key appears.
 */
#define ENRICHED_SYSCALL(serial, pid, uid, auid, ses, comm, exe)	\
	"type=SYSCALL msg=audit(1796315140.000:" serial "): "		\
	"arch=c000003e syscall=1 success=yes exit=6 a0=3 a1=5555 a2=6 "	\
	"a3=0 items=0 ppid=1 pid=" pid " auid=" auid " uid=" uid	\
	" gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) " \
	"ses=" ses " comm=\"" comm "\" exe=\"" exe "\" key=(null)"	\
	"\x1d" "ARCH=x86_64 SYSCALL=write AUID=\"unset\" UID=\"root\" "	\
	"GID=\"root\" EUID=\"root\" SUID=\"root\" FSUID=\"root\" "	\
	"EGID=\"root\" SGID=\"root\" FSGID=\"root\"\n"

TEST(log_reads_enriched_audit_format_result_and_uid)
{
	struct opts o = { .uid = -1, .env = "TZ=UTC", .input =
		"type=MAC_STATUS msg=audit(1796315140.000:40): lsm=denywrite "
		"op=mode mode=audit old_mode=enforce pid=70 uid=0 "
		"auid=4294967295 ses=4294967295 comm=\"denywritectl\" res=1"
		"\x1d" "UID=\"root\" AUID=\"unset\"\n"
		ENRICHED_SYSCALL("40", "70", "0", "4294967295", "4294967295",
				 "denywritectl", "/usr/sbin/denywritectl")
		"type=PROCTITLE msg=audit(1796315140.000:40): "
		"proctitle=64656E79777269746563746C006D6F6465\n"
		"type=MAC_POLICY_LOAD msg=audit(1796315140.500:41): "
		"lsm=denywrite op=add rules=1 old_rules=0 policy=ab pid=70 "
		"uid=0 auid=4294967295 ses=4294967295 comm=\"denywritectl\" "
		"res=0" "\x1d" "UID=\"root\" AUID=\"unset\"\n" };

	EXPECT(&o, 0,
	       "2026-12-03 16:25:40 mode audit root denywritectl - - "
	       "old_mode=enforce\n"
	       "2026-12-03 16:25:40 add - root denywritectl - - policy=ab "
	       "res=0 (failed)\n", "", "log", "--file", "-");
	EXPECT(&o, 0,
	       "{\"time\":1796315140.000,\"type\":1404,\"user\":\"root\","
	       "\"op\":\"mode\",\"mode\":\"audit\",\"old_mode\":\"enforce\","
	       "\"pid\":70,\"uid\":0,\"auid\":4294967295,\"ses\":4294967295,"
	       "\"comm\":\"denywritectl\",\"res\":1,"
	       "\"exe\":\"/usr/sbin/denywritectl\"}\n"
	       "{\"time\":1796315140.500,\"type\":1403,\"user\":\"root\","
	       "\"op\":\"add\",\"rules\":1,\"old_rules\":0,\"policy\":\"ab\","
	       "\"pid\":70,\"uid\":0,\"auid\":4294967295,\"ses\":4294967295,"
	       "\"comm\":\"denywritectl\",\"res\":0}\n",
	       "", "log", "--json", "--file", "-");
	return 0;
}

/*
 * A refusal (AVC) carries no uid: the SYSCALL record of the same event
 * (same stamp and serial) says who made the call, even when another
 * event's records come between; from audit.log (RAW or ENRICHED, with
 * node=) and from the kernel's printk of the records (type=1300).  A
 * process named "denywrite op=wr" (its comm in hex in its SYSCALL
 * record) and a user-space USER_AVC quoting the words are no records.
 */
#define AVC_A								\
	"type=AVC msg=audit(1796315141.000:42): lsm=denywrite op=write " \
	"mode=enforce pid=71 comm=\"cp\" path=\"/usr/bin/x\" dev=\"vda\" " \
	"ino=9 scope=exec rule=\"/usr/bin\"\n"
#define AVC_B								\
	"node=web1 type=AVC msg=audit(1796315141.001:43): lsm=denywrite " \
	"op=mmap mode=audit pid=72 comm=\"ld\" path=\"/usr/lib/y\" "	\
	"dev=\"vda\" ino=10 scope=lib rule=\"/usr/lib\"\n"
#define SYSCALL_A							\
	"type=SYSCALL msg=audit(1796315141.000:42): arch=c000003e "	\
	"syscall=257 success=no exit=-26 a0=ffffff9c a1=7ffd a2=241 "	\
	"a3=1b6 items=1 ppid=5 pid=71 auid=1000 uid=0 gid=0 euid=0 "	\
	"suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts0 ses=2 comm=\"cp\" " \
	"exe=\"/usr/bin/cp\" key=(null)" "\x1d" "ARCH=x86_64 "		\
	"SYSCALL=openat AUID=\"user\" UID=\"root\"\n"
#define SYSCALL_B							\
	"node=web1 type=SYSCALL msg=audit(1796315141.001:43): "	\
	"arch=c000003e syscall=9 success=yes exit=0 items=0 ppid=5 "	\
	"pid=72 auid=4294967295 uid=4242 gid=0 euid=0 suid=0 fsuid=0 "	\
	"egid=0 sgid=0 fsgid=0 tty=(none) ses=4294967295 comm=\"ld\" "	\
	"exe=\"/usr/lib/ld.so\" key=(null)\n"

TEST(log_joins_the_syscall_record_for_uid_auid_and_exe)
{
	struct opts o = { .uid = -1, .env = "TZ=UTC", .input =
		AVC_A AVC_B SYSCALL_B
		"type=PATH msg=audit(1796315141.000:42): item=0 "
		"name=\"/usr/bin/x\" inode=9 nametype=NORMAL\n"
		SYSCALL_A
		"type=SYSCALL msg=audit(1796315142.000:44): arch=c000003e "
		"syscall=1 success=yes exit=1 items=0 ppid=1 pid=73 auid=0 "
		"uid=0 ses=1 comm=64656E797772697465206F703D7772 "
		"exe=\"/tmp/a\" key=(null)\n"
		"type=USER_AVC msg=audit(1796315142.000:45): pid=1 uid=0 "
		"auid=0 ses=1 msg='lsm=denywrite op=write mode=enforce "
		"pid=1 comm=\"x\" path=\"/bin/z\" rule=\"/\"'\n"
		"6,1500,18997152,-;audit: type=1400 "
		"audit(1796315143.000:46): lsm=denywrite op=exec "
		"mode=enforce pid=74 comm=\"sh\" path=\"/bin/w\" dev=\"vda\" "
		"ino=11 scope=exec rule=\"/\"\n"
		"6,1501,18997153,-;audit: type=1300 "
		"audit(1796315143.000:46): arch=c000003e syscall=59 "
		"success=no exit=-26 items=2 ppid=1 pid=74 auid=0 uid=0 "
		"gid=0 ses=1 comm=\"sh\" exe=\"/bin/sh\" key=(null)\n" };

	EXPECT(&o, 0,
	       "2026-12-03 16:25:41 write enforce root cp /usr/bin/x exec "
	       "/usr/bin\n"
	       "2026-12-03 16:25:41 mmap audit 4242 ld /usr/lib/y lib "
	       "/usr/lib\n"
	       "2026-12-03 16:25:43 exec enforce root sh /bin/w exec /\n",
	       "", "log", "--file", "-");
	EXPECT(&o, 0,
	       "{\"time\":1796315141.000,\"type\":1400,\"user\":\"root\","
	       "\"op\":\"write\",\"mode\":\"enforce\",\"pid\":71,"
	       "\"comm\":\"cp\",\"path\":\"/usr/bin/x\",\"dev\":\"vda\","
	       "\"ino\":9,\"scope\":\"exec\",\"rule\":\"/usr/bin\",\"uid\":0,"
	       "\"auid\":1000,\"ses\":2,\"exe\":\"/usr/bin/cp\"}\n"
	       "{\"time\":1796315141.001,\"type\":1400,\"user\":\"4242\","
	       "\"op\":\"mmap\",\"mode\":\"audit\",\"pid\":72,"
	       "\"comm\":\"ld\",\"path\":\"/usr/lib/y\",\"dev\":\"vda\","
	       "\"ino\":10,\"scope\":\"lib\",\"rule\":\"/usr/lib\","
	       "\"uid\":4242,\"auid\":4294967295,\"ses\":4294967295,"
	       "\"exe\":\"/usr/lib/ld.so\"}\n"
	       "{\"time\":1796315143.000,\"type\":1400,\"user\":\"root\","
	       "\"op\":\"exec\",\"mode\":\"enforce\",\"pid\":74,"
	       "\"comm\":\"sh\",\"path\":\"/bin/w\",\"dev\":\"vda\","
	       "\"ino\":11,\"scope\":\"exec\",\"rule\":\"/\",\"uid\":0,"
	       "\"auid\":0,\"ses\":1,\"exe\":\"/bin/sh\"}\n",
	       "", "log", "--json", "--file", "-");
	return 0;
}

/* Start "denywritectl log -f --file PATH", its stdout into out; SIGALRM
 * ends it after 30 s should the test not. */
static pid_t start_follower(const char *path, const char *out)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int in = open("/dev/null", O_RDONLY);

		if (fd < 0 || in < 0 || dup2(fd, 1) < 0 || dup2(in, 0) < 0)
			_exit(125);
		setenv("TZ", "UTC", 1);
		setenv("LC_ALL", "C", 1);
		alarm(30);
		execl(test_tool, "denywritectl", "log", "-f", "--file", path,
		      (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		abort();
	return pid;
}

/* Wait until path holds want (5 s at most); what it holds, malloc'd. */
static char *wait_for(const char *path, const char *want)
{
	double end = now_ms() + time_limit(5000);
	char *got = NULL;

	for (;;) {
		free(got);
		got = read_file(path);
		if (!got)
			got = xstrdup("");
		if (strcmp(got, want) == 0 || now_ms() > end)
			return got;
		usleep(20000);
	}
}

#define WAIT_FOR(out, want)						\
	do {								\
		char *got_ = wait_for((out), (want));			\
		bool same_ = strcmp(got_, (want)) == 0;			\
									\
		snprintf(why, whylen, "follower printed '%s', want '%s'", \
			 got_, (want));					\
		free(got_);						\
		if (!same_) {						\
			stop(pid);					\
			return TEST_FAIL;				\
		}							\
	} while (0)

#define ROT(t, serial, op)						\
	"type=AVC msg=audit(" t ".000:" serial "): lsm=denywrite op=" op \
	" mode=enforce pid=9 comm=\"cp\" path=\"/bin/" serial "\" "	\
	"dev=\"vda\" ino=1 scope=exec rule=\"/\"\n"
#define ROT_LINE(hms, serial, op)					\
	"2026-12-03 " hms " " op " enforce - cp /bin/" serial " exec /\n"

/*
 * auditd rotates its log: renames audit.log to audit.log.1 and creates
 * a new audit.log.  A follower follows the name (tail -F): it reads the
 * new file from its start; and a log truncated in place (copytruncate)
 * from its start again.
 */
TEST(log_follow_file_survives_rotation)
{
	char dir[PATH_MAX], log[PATH_MAX + 16], old[PATH_MAX + 16];
	char out[PATH_MAX + 16];
	const char *first = ROT_LINE("16:26:40", "1", "write")
		ROT_LINE("16:26:41", "2", "truncate");
	const char *second = ROT_LINE("16:26:42", "3", "exec")
		ROT_LINE("16:26:43", "4", "mmap");
	char want[1024];
	pid_t pid;

	make_tmpdir(dir, sizeof(dir), "rotate");
	snprintf(log, sizeof(log), "%s/audit.log", dir);
	snprintf(old, sizeof(old), "%s/audit.log.1", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	write_file(log, ROT("1796315200", "1", "write")
		   ROT("1796315201", "2", "truncate"));
	pid = start_follower(log, out);
	WAIT_FOR(out, first);
	CHECK(rename(log, old) == 0, "rename: %s", strerror(errno));
	write_file(log, ROT("1796315202", "3", "exec")
		   ROT("1796315203", "4", "mmap"));
	snprintf(want, sizeof(want), "%s%s", first, second);
	WAIT_FOR(out, want);
	write_file(log, ROT("1796315204", "5", "write"));	/* truncated */
	snprintf(want, sizeof(want), "%s%s%s", first, second,
		 ROT_LINE("16:26:44", "5", "write"));
	WAIT_FOR(out, want);
	stop(pid);
	return 0;
}

/* The journal's entry in export format (systemd-journal-remote reads
 * it): realtime (usec), transport, and more fields. */
#define ENTRY(usec, transport, fields)					\
	"__REALTIME_TIMESTAMP=" usec "\n__MONOTONIC_TIMESTAMP=" usec "\n" \
	"_BOOT_ID=0123456789abcdef0123456789abcdef\n"			\
	"_TRANSPORT=" transport "\n" fields "\n"
#define AUDIT_ENTRY(usec, type, id, message)				\
	ENTRY(usec, "audit", "_AUDIT_TYPE=" type "\n_AUDIT_ID=" id "\n"	\
	      "_SOURCE_REALTIME_TIMESTAMP=" usec "\n"			\
	      "SYSLOG_IDENTIFIER=audit\nMESSAGE=" message "\n")
#define KERNEL_ENTRY(usec, message)					\
	ENTRY(usec, "kernel", "SYSLOG_IDENTIFIER=kernel\nMESSAGE="	\
	      message "\n")

/* A journal file of export-format entries, made by systemd-journal-remote;
 * 0, or 1 with the reason in why. */
static int make_journal(char *why, size_t whylen, const char *path,
			const char *export)
{
	static const char *const tools[] = {
		"/lib/systemd/systemd-journal-remote",
		"/usr/lib/systemd/systemd-journal-remote",
	};
	char in[PATH_MAX + 16], cmd[3 * PATH_MAX];
	const char *tool = NULL;

	for (size_t i = 0; i < sizeof(tools) / sizeof(*tools); i++)
		if (access(tools[i], X_OK) == 0)
			tool = tools[i];
	CHECK(tool, "no systemd-journal-remote (policy-tool/deps.sh check "
	      "installs it)");
	snprintf(in, sizeof(in), "%s.export", path);
	write_file(in, export);
	snprintf(cmd, sizeof(cmd), "%s -o '%s' - <'%s' 2>/dev/null", tool,
		 path, in);
	CHECK(system(cmd) == 0, "%s failed", cmd);
	return 0;
}

/*
 * The journal through sd-journal (--journal-file: a file of it).  When
 * journald collects the audit records (its audit transport), those are
 * read, joined by _AUDIT_ID with their SYSCALL record, and the kernel's
 * printk copies are not (each record once); without it, the kernel
 * transport's messages are, with the same join.  Another program's
 * message, USER_AVC records and a segfault line are no records.
 */
TEST(log_reads_the_journal_with_sd_journal_audit_and_kernel_transports)
{
	struct opts o = { .uid = -1, .env = "TZ=UTC" };
	char dir[PATH_MAX], a[PATH_MAX + 16], k[PATH_MAX + 16];

	make_tmpdir(dir, sizeof(dir), "journal");
	snprintf(a, sizeof(a), "%s/audit.journal", dir);
	snprintf(k, sizeof(k), "%s/kernel.journal", dir);
	if (make_journal(why, whylen, a,
		AUDIT_ENTRY("1796315150250000", "1400", "50",
			"AVC lsm=denywrite op=write mode=enforce pid=80 "
			"comm=\"cp\" path=\"/usr/lib/libz.so\" dev=\"vda\" "
			"ino=3 scope=lib rule=\"/usr/lib\"")
		AUDIT_ENTRY("1796315150250000", "1300", "50",
			"SYSCALL arch=c000003e syscall=257 success=no "
			"exit=-26 items=1 ppid=1 pid=80 auid=1000 uid=0 "
			"gid=0 ses=3 comm=\"cp\" exe=\"/usr/bin/cp\" "
			"key=(null)")
		KERNEL_ENTRY("1796315150260000",
			"audit: type=1400 audit(1796315150.250:50): "
			"lsm=denywrite op=write mode=enforce pid=80 "
			"comm=\"cp\" path=\"/usr/lib/libz.so\" dev=\"vda\" "
			"ino=3 scope=lib rule=\"/usr/lib\"")
		AUDIT_ENTRY("1796315151000000", "1107", "51",
			"USER_AVC pid=1 uid=0 auid=0 ses=1 msg='lsm=denywrite "
			"op=write mode=enforce pid=1 comm=\"x\" path=\"/b\"'")
		AUDIT_ENTRY("1796315151500000", "1404", "52",
			"MAC_STATUS lsm=denywrite op=mode mode=audit "
			"old_mode=enforce pid=81 uid=0 auid=4294967295 "
			"ses=4294967295 comm=\"denywritectl\" res=1")
		ENTRY("1796315152000000", "syslog",
		      "SYSLOG_IDENTIFIER=myprog\nMESSAGE=lsm=denywrite "
		      "op=write mode=enforce pid=1 comm=\"x\" path=\"/b\"\n")))
		return TEST_FAIL;
	if (make_journal(why, whylen, k,
		KERNEL_ENTRY("1796315160100000",
			"audit: type=1400 audit(1796315160.000:60): "
			"lsm=denywrite op=exec mode=audit pid=90 comm=\"sh\" "
			"path=\"/bin/x\" dev=\"vda\" ino=4 scope=exec "
			"rule=\"/\"")
		KERNEL_ENTRY("1796315160200000",
			"audit: type=1300 audit(1796315160.000:60): "
			"arch=c000003e syscall=59 success=yes exit=0 "
			"items=2 ppid=1 pid=90 auid=0 uid=0 gid=0 ses=1 "
			"comm=\"sh\" exe=\"/bin/sh\" key=(null)")
		KERNEL_ENTRY("1796315161000000",
			"denywrite: lsm=denywrite op=mmap mode=enforce "
			"pid=91 comm=\"ld\" name=\"y\" rule=\"/usr/lib\" "
			"suppressed=0")
		KERNEL_ENTRY("1796315162000000",
			"denywrite op=wr[4242]: segfault at 0 ip 0 sp 0 "
			"error 6 in a.out[400000+1000]")))
		return TEST_FAIL;
	EXPECT(&o, 0,
	       "2026-12-03 16:25:50 write enforce root cp /usr/lib/libz.so "
	       "lib /usr/lib\n"
	       "2026-12-03 16:25:51 mode audit root denywritectl - - "
	       "old_mode=enforce\n", "", "log", "--journal-file", a);
	EXPECT(&o, 0,
	       "{\"time\":1796315150.250,\"type\":1400,\"user\":\"root\","
	       "\"op\":\"write\",\"mode\":\"enforce\",\"pid\":80,"
	       "\"comm\":\"cp\",\"path\":\"/usr/lib/libz.so\","
	       "\"dev\":\"vda\",\"ino\":3,\"scope\":\"lib\","
	       "\"rule\":\"/usr/lib\",\"uid\":0,\"auid\":1000,\"ses\":3,"
	       "\"exe\":\"/usr/bin/cp\"}\n", "", "log", "--json", "--op",
	       "write", "--journal-file", a);
	EXPECT(&o, 0,
	       "2026-12-03 16:26:00 exec audit root sh /bin/x exec /\n"
	       "2026-12-03 16:26:01 mmap enforce - ld y - /usr/lib\n", "",
	       "log", "--journal-file", k);
	EXPECT(&o, 0, "2026-12-03 16:26:01 mmap enforce - ld y - /usr/lib\n",
	       "", "log", "--since", "@1796315160.5", "--journal-file", k);
	EXPECT(&o, 2, "", "denywritectl: log: --file and --journal-file "
	       "conflict\n", "log", "--file", "-", "--journal-file", k);
	return 0;
}

#define FILTERED							\
	AVC_A SYSCALL_A AVC_B SYSCALL_B					\
	"type=MAC_STATUS msg=audit(1796315144.000:47): lsm=denywrite "	\
	"op=mode mode=audit old_mode=enforce pid=70 uid=0 "		\
	"auid=4294967295 ses=4294967295 comm=\"denywritectl\" res=1\n"	\
	"type=AVC msg=audit(1796315145.000:48): lsm=denywrite op=write " \
	"mode=audit pid=75 comm=\"tee\" path=\"/usr/lib/y.d/z\" "	\
	"dev=\"vda\" ino=12 scope=lib rule=\"/usr/lib\"\n"		\
	"6,1502,18997160,-;denywrite: lsm=denywrite op=truncate "	\
	"mode=enforce pid=76 comm=\"sh\" name=\"x\" rule=\"/\" "	\
	"suppressed=0\n"

#define F_WRITE_X "2026-12-03 16:25:41 write enforce root cp /usr/bin/x " \
	"exec /usr/bin\n"
#define F_MMAP_Y "2026-12-03 16:25:41 mmap audit 4242 ld /usr/lib/y lib " \
	"/usr/lib\n"
#define F_MODE "2026-12-03 16:25:44 mode audit root denywritectl - - " \
	"old_mode=enforce\n"
#define F_WRITE_Z "2026-12-03 16:25:45 write audit - tee /usr/lib/y.d/z " \
	"lib /usr/lib\n"
#define F_TRUNC_X "- truncate enforce - sh x - /\n"

/*
 * Filters as ausearch users expect: --op (the record's op=), --path (the
 * file: exactly, or under a directory given with a trailing slash; a
 * record naming the file by its last component only matches an exact
 * path's last component), --uid (a name or a number: the record's uid,
 * or its SYSCALL record's); together they all must hold.
 */
TEST(log_filters_by_op_path_and_uid)
{
	struct opts o = { .uid = -1, .env = "TZ=UTC", .input = FILTERED };

	EXPECT(&o, 0, F_WRITE_X F_WRITE_Z, "", "log", "--op", "write",
	       "--file", "-");
	EXPECT(&o, 0, F_MODE, "", "log", "--op=mode", "--file", "-");
	EXPECT(&o, 0, F_WRITE_X F_TRUNC_X, "", "log", "--path", "/usr/bin/x",
	       "--file", "-");
	EXPECT(&o, 0, F_MMAP_Y F_WRITE_Z, "", "log", "--path", "/usr/lib/",
	       "--file", "-");
	EXPECT(&o, 0, F_MMAP_Y, "", "log", "--path", "/usr/lib/y",
	       "--file", "-");
	EXPECT(&o, 0, F_WRITE_X, "", "log", "--path", "/usr/bin/x",
	       "--file", "-", "--op", "write");
	EXPECT(&o, 0, F_TRUNC_X, "", "log", "--path", "/home/x", "--file",
	       "-");
	EXPECT(&o, 0, F_WRITE_X F_MODE, "", "log", "--uid", "root",
	       "--file", "-");
	EXPECT(&o, 0, F_WRITE_X F_MODE, "", "log", "--uid", "0", "--file",
	       "-");
	EXPECT(&o, 0, F_MMAP_Y, "", "log", "--uid", "4242", "--file", "-");
	EXPECT(&o, 0, F_WRITE_X, "", "log", "--uid", "root", "--op",
	       "write", "--file", "-");
	EXPECT(&o, 0, "", "", "log", "--uid", "4242", "--op", "write",
	       "--path", "/usr/lib/", "--file", "-");
	return 0;
}

/* An audit.log AVC record at time t (seconds), its serial n. */
static void avc_at(char *buf, size_t size, long long t, int n)
{
	snprintf(buf, size, "type=AVC msg=audit(%lld.000:%d): lsm=denywrite "
		 "op=write mode=enforce pid=%d comm=\"cp\" path=\"/bin/%d\" "
		 "dev=\"vda\" ino=1 scope=exec rule=\"/\"\n", t, n, n, n);
}

/* "log --since WORD" over records at t1 and t2, the tool in UTC: 0 if
 * it prints the second only. */
static int avc_since(char *why, size_t whylen, const char *word,
		     long long t1, long long t2)
{
	char in[512], r2[256];
	struct opts o = { .uid = -1, .env = "TZ=UTC", .input = in };
	struct run r;
	int ok;

	avc_at(in, sizeof(in) / 2, t1, 1);
	avc_at(r2, sizeof(r2), t2, 2);
	strcat(in, r2);
	run_tool(&r, &o, "log", "--since", word, "--file", "-", (char *)NULL);
	ok = r.status == 0 && !*r.err && strstr(r.out, " /bin/2 ") &&
	     !strstr(r.out, " /bin/1 ") && !strchr(strchr(r.out, '\n') + 1,
						      '\n');
	snprintf(why, whylen, "--since %s over records at %lld and %lld: "
		 "exit %d, stdout '%s', stderr '%s' (want the second only)",
		 word, t1, t2, r.status, r.out, r.err);
	run_free(&r);
	return ok ? 0 : 1;
}

/*
 * --since's words, as ausearch's: recent (10 minutes ago), today and
 * yesterday (midnight, local time), this-week (Sunday's midnight),
 * this-month, this-year; the older forms stay.
 */
TEST(log_since_accepts_today_recent_and_this_week)
{
	long long now = (long long)time(NULL), day = now - now % 86400;
	long long days = now / 86400, week = (days - (days + 4) % 7) * 86400;
	struct tm tm;
	time_t t = (time_t)now;
	long long month, year;

	gmtime_r(&t, &tm);
	month = day - (long long)(tm.tm_mday - 1) * 86400;
	year = day - (long long)tm.tm_yday * 86400;
	if (avc_since(why, whylen, "recent", now - 660, now - 540) ||
	    avc_since(why, whylen, "today", day - 1, day) ||
	    avc_since(why, whylen, "yesterday", day - 86401, day - 86400) ||
	    avc_since(why, whylen, "this-week", week - 1, week) ||
	    avc_since(why, whylen, "this-month", month - 1, month) ||
	    avc_since(why, whylen, "this-year", year - 1, year) ||
	    avc_since(why, whylen, "-10m", now - 660, now - 540) ||
	    avc_since(why, whylen, "now", now - 60, now + 60))
		return TEST_FAIL;
	return 0;
}

/* Bad filter values: said, exit 2. */
TEST(log_rejects_bad_filter_values_with_usage_error)
{
	struct opts o = { .uid = -1, .input = RECORDS };

	EXPECT(&o, 2, "", "denywritectl: log: --op: 'writes' is not write, "
	       "truncate, exec, mmap, mode, rules, add, del or unmount\n",
	       "log", "--op", "writes", "--file", "-");
	EXPECT(&o, 2, "", "denywritectl: log: --path: 'bin/a' is not an "
	       "absolute path\n", "log", "--path", "bin/a", "--file", "-");
	EXPECT(&o, 2, "", "denywritectl: log: --path: '' is not an "
	       "absolute path\n", "log", "--path=", "--file", "-");
	EXPECT(&o, 2, "", "denywritectl: log: --uid: 'no-such-user-dw' is "
	       "no user name or number\n", "log", "--uid", "no-such-user-dw",
	       "--file", "-");
	EXPECT(&o, 2, "", "denywritectl: log: --uid: '-1' is no user name "
	       "or number\n", "log", "--uid", "-1", "--file", "-");
	EXPECT(&o, 2, "", "denywritectl: log: --uid: '4294967296' is no "
	       "user name or number\n", "log", "--uid", "4294967296",
	       "--file", "-");
	EXPECT(&o, 2, "", "denywritectl: log: --since: 'this-decade' is not "
	       "@SECONDS, YYYY-MM-DD [HH:MM[:SS]], -N[smhd], now, recent, "
	       "today, yesterday, this-week, this-month or this-year\n",
	       "log", "--since", "this-decade", "--file", "-");
	EXPECT(&o, 2, "", "denywritectl: status: unrecognized option "
	       "'--op'\n" HINT, "status", "--op", "write");
	return 0;
}

const struct test log_tests[] = {
	T(log_prints_one_line_a_record_time_op_mode_user_command_path_rule),
	T(log_since_and_json),
	T(log_reads_the_type_name_of_journald_audit_records),
	T(log_counts_only_lines_whose_message_starts_with_the_record_prefix),
	T(log_reads_enriched_audit_format_result_and_uid),
	T(log_joins_the_syscall_record_for_uid_auid_and_exe),
	T(log_follow_file_survives_rotation),
	T(log_reads_the_journal_with_sd_journal_audit_and_kernel_transports),
	T(log_filters_by_op_path_and_uid),
	T(log_since_accepts_today_recent_and_this_week),
	T(log_rejects_bad_filter_values_with_usage_error),
	{ NULL, NULL },
};
