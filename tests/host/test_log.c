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
	       "2026-12-03 16:25:10 exec audit root my comm /tmp/a b\\n exec / "
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

const struct test log_tests[] = {
	T(log_prints_one_line_a_record_time_op_mode_user_command_path_rule),
	T(log_since_and_json),
	T(log_reads_the_type_name_of_journald_audit_records),
	{ NULL, NULL },
};
