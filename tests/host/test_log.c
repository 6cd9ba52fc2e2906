// SPDX-License-Identifier: GPL-2.0
/* log: denywrite's audit records read from a file, as text and JSON. */
#include "e2e.h"

#include <stdio.h>

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

	EXPECT(&o, 0,
	       "2026-12-03 16:25:09 write enforce - cp "
	       "/usr/lib/x86_64-linux-gnu/libc.so.6 lib /usr/lib/x86_64-linux-gnu\n"
	       "2026-12-03 13:24:41 mode off root denywritectl - - "
	       "old_mode=enforce\n"
	       "2026-12-03 13:24:41 add - root denywritectl - - policy="
	       "e7f0eda29190e786f2e89ffbb48a9eebc18ea56fea4465c18057f23d3c4d470c "
	       "res=0 (failed)\n"
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
	EXPECT(&o, 2, "", "denywritectl: log: --since: 'yesterday' is not "
	       "@SECONDS, YYYY-MM-DD [HH:MM[:SS]] or -N[smhd]\n", "log",
	       "--since", "yesterday", "--file", "-");
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

const struct test log_tests[] = {
	T(log_prints_one_line_a_record_time_op_mode_user_command_path_rule),
	T(log_since_and_json),
	T(log_reads_the_type_name_of_journald_audit_records),
	T(log_counts_only_lines_whose_message_starts_with_the_record_prefix),
	{ NULL, NULL },
};
