// SPDX-License-Identifier: GPL-2.0
/* Command line parsing. */
#include "test.h"

#include <stdarg.h>
#include <string.h>

#include "cli.h"

#define MAX_ARGS 16

struct parsed {
	char *argv[MAX_ARGS + 1];
	struct cli cli;
	char err[256];
	int rc;
};

/* Parse "denywritectl ARGS..." (NULL-terminated) into p. */
static void parse(struct parsed *p, ...)
{
	va_list ap;
	int argc = 0;
	char *a;

	memset(p, 0, sizeof(*p));
	p->argv[argc++] = "denywritectl";
	va_start(ap, p);
	while ((a = va_arg(ap, char *)) != NULL && argc < MAX_ARGS)
		p->argv[argc++] = a;
	va_end(ap);
	p->rc = cli_parse(argc, p->argv, &p->cli, p->err, sizeof(p->err));
}

#define CHECK_USAGE(p, msg)						\
	do {								\
		CHECK((p).rc == CLI_USAGE, "rc %d, want usage error", (p).rc); \
		CHECK_STR((p).err, msg);				\
	} while (0)

#define CHECK_OK(p) CHECK((p).rc == 0, "rc %d: %s", (p).rc, (p).err)

TEST(cli_rejects_missing_command)
{
	struct parsed p;

	parse(&p, (char *)NULL);
	CHECK_USAGE(p, "no command given");
	return 0;
}

TEST(cli_rejects_unknown_command)
{
	struct parsed p;

	parse(&p, "frobnicate", (char *)NULL);
	CHECK_USAGE(p, "unknown command 'frobnicate'");
	return 0;
}

TEST(cli_rejects_unknown_global_option)
{
	struct parsed p;

	parse(&p, "--frob", "status", (char *)NULL);
	CHECK_USAGE(p, "unrecognized option '--frob'");
	parse(&p, "-x", "status", (char *)NULL);
	CHECK_USAGE(p, "invalid option -- 'x'");
	return 0;
}

TEST(cli_rejects_unknown_command_option)
{
	struct parsed p;

	parse(&p, "list", "--frob", (char *)NULL);
	CHECK_USAGE(p, "list: unrecognized option '--frob'");
	parse(&p, "list", "-q", (char *)NULL);
	CHECK_USAGE(p, "list: invalid option -- 'q'");
	return 0;
}

TEST(cli_rejects_scope_option_outside_add)
{
	struct parsed p;

	parse(&p, "del", "--lib", "/usr/lib", (char *)NULL);
	CHECK_USAGE(p, "del: unrecognized option '--lib'");
	return 0;
}

TEST(cli_help_and_version_need_no_command)
{
	struct parsed p;

	parse(&p, "--help", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.help, "help not set");
	parse(&p, "-V", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.version, "version not set");
	parse(&p, "add", "-h", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.help, "add -h: help not set");
	return 0;
}

TEST(cli_accepts_json_before_or_after_command)
{
	struct parsed p;

	parse(&p, "-j", "status", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.json && p.cli.cmd == CMD_STATUS, "-j status");
	parse(&p, "why", "/bin/sh", "--json", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.json && p.cli.cmd == CMD_WHY, "why --json");
	CHECK(p.cli.nargs == 1 && strcmp(p.cli.args[0], "/bin/sh") == 0,
	      "why operand");
	return 0;
}

TEST(cli_rejects_json_for_commands_without_json_output)
{
	struct parsed p;

	parse(&p, "--json", "add", "/usr", (char *)NULL);
	CHECK_USAGE(p, "add: --json is not supported");
	parse(&p, "clear", "-j", (char *)NULL);
	CHECK_USAGE(p, "clear: --json is not supported");
	return 0;
}

TEST(add_defaults_to_scope_all)
{
	struct parsed p;

	parse(&p, "add", "/usr/bin", "/opt", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.cmd == CMD_ADD && p.cli.scope == SCOPE_ALL,
	      "scope %d", p.cli.scope);
	CHECK(!p.cli.ignore_writers, "ignore_writers set");
	CHECK(p.cli.nargs == 2, "nargs %d", p.cli.nargs);
	return 0;
}

TEST(add_takes_scope_and_ignore_writers_anywhere)
{
	struct parsed p;

	parse(&p, "add", "/usr/lib", "--lib", "--ignore-writers", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.scope == SCOPE_LIB, "scope %d", p.cli.scope);
	CHECK(p.cli.ignore_writers, "ignore_writers not set");
	CHECK(p.cli.nargs == 1 && strcmp(p.cli.args[0], "/usr/lib") == 0,
	      "operands");
	parse(&p, "add", "--exec", "--exec", "/bin", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.scope == SCOPE_EXEC, "scope %d", p.cli.scope);
	return 0;
}

TEST(add_rejects_conflicting_scopes)
{
	struct parsed p;

	parse(&p, "add", "--exec", "--lib", "/usr", (char *)NULL);
	CHECK_USAGE(p, "add: --exec and --lib conflict");
	parse(&p, "add", "--all", "--exec", "/usr", (char *)NULL);
	CHECK_USAGE(p, "add: --all and --exec conflict");
	return 0;
}

TEST(add_and_del_require_a_path)
{
	struct parsed p;

	parse(&p, "add", "--lib", (char *)NULL);
	CHECK_USAGE(p, "add: missing path");
	parse(&p, "del", (char *)NULL);
	CHECK_USAGE(p, "del: missing path");
	return 0;
}

TEST(double_dash_ends_options)
{
	struct parsed p;

	parse(&p, "del", "--", "--odd-name", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.nargs == 1 && strcmp(p.cli.args[0], "--odd-name") == 0,
	      "operand");
	return 0;
}

TEST(load_takes_files_or_none_and_its_options)
{
	struct parsed p;

	parse(&p, "load", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.cmd == CMD_LOAD && p.cli.nargs == 0, "load alone");
	parse(&p, "load", "a", "-", "b", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.nargs == 3 && strcmp(p.cli.args[1], "-") == 0, "operands");
	CHECK(!p.cli.dry_run && !p.cli.quiet && !p.cli.allow_empty &&
	      !p.cli.root, "options set");
	parse(&p, "load", "-q", "--dry-run", "--allow-empty", "--root", "/r",
	      (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.quiet && p.cli.dry_run && p.cli.allow_empty &&
	      p.cli.root && strcmp(p.cli.root, "/r") == 0, "options");
	parse(&p, "load", "--check", "--root=/x", "-n", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.dry_run && strcmp(p.cli.root, "/x") == 0, "--check");
	return 0;
}

TEST(load_options_belong_to_load)
{
	static const char *const opts[] = {
		"--dry-run", "--check", "--allow-empty", "--root=/", "-q",
	};
	struct parsed p;
	char want[64];

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		const char *cmd = opts[i][1] == 'q' || opts[i][2] == 'r' ?
				  "stats" : "add";

		parse(&p, cmd, opts[i], (char *)NULL);
		if (opts[i][1] == '-')
			snprintf(want, sizeof(want),
				 "%s: unrecognized option '%s'", cmd, opts[i]);
		else
			snprintf(want, sizeof(want),
				 "%s: invalid option -- '%c'", cmd, opts[i][1]);
		CHECK_USAGE(p, want);
	}
	return 0;
}

TEST(long_option_errors_name_the_option)
{
	static const struct {
		const char *args[3];
		const char *msg;
	} cases[] = {
		{ { "--json=1", "status" },
		  "option '--json' doesn't allow an argument" },
		{ { "status", "--json=1" },
		  "status: option '--json' doesn't allow an argument" },
		{ { "add", "--ignore-writers=1", "/" },
		  "add: option '--ignore-writers' doesn't allow an argument" },
		{ { "list", "--js=1" },
		  "list: option '--json' doesn't allow an argument" },
		{ { "load", "--root" },
		  "load: option '--root' requires an argument" },
		{ { "add", "--a", "/" }, "add: option '--a' is ambiguous" },
		{ { "--vers=2" }, "option '--version' doesn't allow an argument" },
	};
	struct parsed p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse(&p, cases[i].args[0], cases[i].args[1], cases[i].args[2],
		      (char *)NULL);
		CHECK_USAGE(p, cases[i].msg);
	}
	return 0;
}

TEST(usage_errors_escape_what_the_user_typed)
{
	struct parsed p;

	parse(&p, "\x1b[2Jstatus", (char *)NULL);
	CHECK_USAGE(p, "unknown command '\\033[2Jstatus'");
	parse(&p, "list", "--fr\nob", (char *)NULL);
	CHECK_USAGE(p, "list: unrecognized option '--fr\\012ob'");
	parse(&p, "-\x01", (char *)NULL);
	CHECK_USAGE(p, "invalid option -- '\\001'");
	parse(&p, "mode", "\x9b", (char *)NULL);
	CHECK_USAGE(p, "mode: unknown mode '\\233' (off, audit or enforce)");
	return 0;
}

TEST(why_takes_exactly_one_path)
{
	struct parsed p;

	parse(&p, "why", (char *)NULL);
	CHECK_USAGE(p, "why: missing path");
	parse(&p, "why", "/a", "/b", (char *)NULL);
	CHECK_USAGE(p, "why: unexpected argument '/b'");
	return 0;
}

TEST(status_list_stats_clear_save_take_no_operands)
{
	static const char *const cmds[] = {
		"status", "list", "stats", "clear", "save",
	};
	struct parsed p;
	char want[64];

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		parse(&p, cmds[i], "extra", (char *)NULL);
		snprintf(want, sizeof(want), "%s: unexpected argument 'extra'",
			 cmds[i]);
		CHECK_USAGE(p, want);
	}
	return 0;
}

TEST(mode_accepts_only_off_audit_enforce)
{
	struct parsed p;

	parse(&p, "mode", (char *)NULL);
	CHECK_OK(p);
	CHECK(p.cli.cmd == CMD_MODE && p.cli.nargs == 0, "mode get");
	parse(&p, "mode", "audit", (char *)NULL);
	CHECK_OK(p);
	parse(&p, "mode", "permissive", (char *)NULL);
	CHECK_USAGE(p, "mode: unknown mode 'permissive' (off, audit or enforce)");
	parse(&p, "mode", "off", "audit", (char *)NULL);
	CHECK_USAGE(p, "mode: unexpected argument 'audit'");
	return 0;
}

const struct test cli_tests[] = {
	T(cli_rejects_missing_command),
	T(cli_rejects_unknown_command),
	T(cli_rejects_unknown_global_option),
	T(cli_rejects_unknown_command_option),
	T(cli_rejects_scope_option_outside_add),
	T(cli_help_and_version_need_no_command),
	T(cli_accepts_json_before_or_after_command),
	T(cli_rejects_json_for_commands_without_json_output),
	T(add_defaults_to_scope_all),
	T(add_takes_scope_and_ignore_writers_anywhere),
	T(add_rejects_conflicting_scopes),
	T(add_and_del_require_a_path),
	T(double_dash_ends_options),
	T(load_takes_files_or_none_and_its_options),
	T(load_options_belong_to_load),
	T(long_option_errors_name_the_option),
	T(usage_errors_escape_what_the_user_typed),
	T(why_takes_exactly_one_path),
	T(status_list_stats_clear_save_take_no_operands),
	T(mode_accepts_only_off_audit_enforce),
	{ NULL, NULL },
};
