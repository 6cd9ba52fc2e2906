// SPDX-License-Identifier: GPL-2.0
#include "cli.h"
#include "util.h"

#include <getopt.h>
#include <string.h>

enum {
	OPT_EXEC = 0x100,
	OPT_LIB,
	OPT_ALL,
	OPT_IGNORE_WRITERS,
	OPT_CHECK,
	OPT_ALLOW_EMPTY,
	OPT_ROOT,
	OPT_STRICT,
	OPT_SOURCES,
	OPT_PERSIST,
	OPT_PIDS,
	OPT_SINCE,
	OPT_FILE,
	OPT_JOURNAL_FILE,
	OPT_OP,
	OPT_PATH,
	OPT_UID,
};

#define F_JSON	0x1	/* takes --json */
#define F_ADD	0x2	/* takes the scope options */
#define F_LOAD	0x4	/* takes --dry-run, --check, --allow-empty */
#define F_QUIET	0x8	/* takes -q */
#define F_ROOT	0x10	/* takes --root */
#define F_LIST	0x20	/* takes --sources */
#define F_PERSIST 0x40	/* takes --persist */
#define F_WHY	0x80	/* takes --pids, -w */
#define F_LOG	0x100	/* takes --follow, --since, --file, the filters */
#define F_STRICT 0x200	/* takes --strict */

static const struct command_desc {
	const char *name;
	enum command cmd;
	int min_args;
	int max_args;
	unsigned int flags;
	const char *help;	/* denywritectl CMD --help */
} commands[] = {
	{ "status", CMD_STATUS, 0, 0, F_JSON,
	  " status [--json]\n\n"
	  "Show whether denywrite is active, its mode, the policy digest (the\n"
	  "policy= of audit records), the rules, the files protected now, the\n"
	  "counters, and the rules gone with their filesystem.\n"
	  "Exit 3 if denywrite is not active, 4 if that cannot be told.\n" },
	{ "mode", CMD_MODE, 0, 1, F_JSON,
	  " mode [--json] [off|audit|enforce]\n\n"
	  "Print the mode, or set it (needs CAP_MAC_ADMIN).\n" },
	{ "add", CMD_ADD, 1, -1, F_ADD | F_QUIET | F_PERSIST | F_ROOT,
	  " add [--exec|--lib|--all] [--ignore-writers] [--persist [--root <dir>]]\n"
	  "     [-q] <path>...\n\n"
	  "Add a rule for each path (scope all unless given), all or none.\n"
	  "A runtime change, lost at the next load, unless --persist also\n"
	  "writes it to " SYSCONF_RULES_DIR "/90-local.rules.\n"
	  "   --root <dir>        that file under <dir>\n"
	  "   -q, --quiet         no note that the change is runtime-only\n" },
	{ "del", CMD_DEL, 1, -1, F_QUIET | F_PERSIST | F_ROOT,
	  " del [--persist [--root <dir>]] [-q] <path>...\n\n"
	  "Remove the rule on each path's object, or the rule that list prints\n"
	  "with that path (refused if the two name different rules); all or\n"
	  "none.  --persist also removes it from\n"
	  SYSCONF_RULES_DIR "/90-local.rules.\n"
	  "   --root <dir>        that file under <dir>\n"
	  "   -q, --quiet         no note that the change is runtime-only\n" },
	{ "clear", CMD_CLEAR, 0, 0, 0,
	  " clear\n\nRemove every rule.\n" },
	{ "list", CMD_LIST, 0, 0, F_JSON | F_LIST | F_ROOT,
	  " list [--sources [--root <dir>]] [--json]\n\n"
	  "Print the rules in force as policy file lines (paths escaped: \\011\n"
	  "is a tab, \\134 a backslash, \\040 a last space), the form load reads\n"
	  "and del takes, then the rules gone with their filesystem as comments.\n"
	  "--sources prints FILE:LINE (or runtime, or gone) before each rule.\n" },
	{ "load", CMD_LOAD, 0, -1, F_LOAD | F_STRICT | F_QUIET | F_ROOT | F_JSON,
	  " load [options] [<file>...|-]\n\n"
	  "Replace the rules with the policy files', by default those of the\n"
	  "rules.d directories, in one atomic write.  A bad rule or file is\n"
	  "skipped (FILE:LINE: reason, exit 6), every good rule is loaded; past\n"
	  "the kernel's limits the lowest-priority rules are left out.  Exit 1\n"
	  "if nothing was loaded (the kernel refused the policy).\n"
	  "   -n, --dry-run           check only, print what would change\n"
	  "   --check                 the same; with --root, the image's policy\n"
	  "                           offline, its paths resolved in <dir>\n"
	  "   --strict                any bad rule or file fails the load\n"
	  "   --allow-empty           let a policy without rules clear the rules\n"
	  "   --root <dir>            read the rules.d directories under <dir>\n"
	  "   -q, --quiet             no \"loaded N rules from M files\" line\n"
	  "   -j, --json              that line as JSON (and the dry run's diff)\n" },
	{ "save", CMD_SAVE, 0, 0, F_JSON,
	  " save [--json]\n\n"
	  "Print the rules as a policy file (paths escaped as list prints them).\n" },
	{ "why", CMD_WHY, 1, 1, F_JSON | F_QUIET | F_WHY,
	  " why [-q|--pids|--json] [-w] <path>\n\n"
	  "Why writing or running a file fails (ETXTBSY), and which processes\n"
	  "hold it, as fuser -v does.\n"
	  "   -q, --quiet   print nothing: exit 0 if it is held, 1 if not,\n"
	  "                 5 if it cannot be found\n"
	  "   --pids        the pids of the processes holding it, one a line\n"
	  "                 ({\"pids\":[...]} with --json)\n"
	  "   -w, --wide    do not cut command lines to the terminal's width\n"
	  "   -j, --json    one JSON object\n" },
	{ "stats", CMD_STATS, 0, 0, F_JSON,
	  " stats [--json]\n\nPrint the kernel's counters.\n" },
	{ "diff", CMD_DIFF, 0, -1, F_JSON | F_ROOT | F_STRICT,
	  " diff [--strict] [--root <dir>] [--json] [<file>...|-]\n\n"
	  "What load would remove (-) and add (+) against the kernel's rules.\n"
	  "A rule or file load would skip is said (FILE:LINE: reason) and is\n"
	  "drift too.  Exit 0 if nothing, 1 if something would change or be\n"
	  "skipped, 2 on trouble.\n"
	  "   --strict          a rule or file load would skip is trouble\n"
	  "   --root <dir>      read the rules.d directories under <dir>\n"
	  "   -j, --json        {\"add\":[...],\"remove\":[...],\"skipped\":N}\n" },
	{ "cat-config", CMD_CAT_CONFIG, 0, 0, F_ROOT,
	  " cat-config [--root <dir>]\n\n"
	  "Print the rules files that load reads, in the order it reads them,\n"
	  "each after a \"# /path\" line: a file masked by one of its name of a\n"
	  "higher priority as \"# /path (masked by /other)\", a rule that a\n"
	  "later file masks (!PATH) or overrides as a comment naming that line.\n"
	  "   --root <dir>      the rules.d directories of the image <dir>, its\n"
	  "                     paths resolved in it\n" },
	{ "log", CMD_LOG, 0, 0, F_JSON | F_LOG,
	  " log [--since <time>] [--op <op>] [--path <path>] [--uid <user>]\n"
	  "     [-f|--follow] [--file <file>|--journal-file <file>] [--json]\n\n"
	  "denywrite's audit records, one a line: time, op, mode, user,\n"
	  "command, path, rule; from the audit log when auditd runs, else the\n"
	  "journal, else the kernel's log.\n"
	  "   --since <time>   @SECONDS, YYYY-MM-DD [HH:MM[:SS]], -N[smhd],\n"
	  "                    now, recent, today, yesterday, this-week,\n"
	  "                    this-month or this-year\n"
	  "   --op <op>        only records of this op (write, exec, mode...)\n"
	  "   --path <path>    only records of this file (dir/: under dir)\n"
	  "   --uid <user>     only records of this user (name or uid)\n"
	  "   -f, --follow     wait for new records (a file: across rotations)\n"
	  "   --file <file>    read them from a saved log (- for stdin)\n"
	  "   --journal-file <file>  from a journal file (journalctl --file)\n"
	  "   -j, --json       one JSON object a record\n" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct option global_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static const struct option command_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "json", no_argument, NULL, 'j' },
	{ "exec", no_argument, NULL, OPT_EXEC },
	{ "lib", no_argument, NULL, OPT_LIB },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "ignore-writers", no_argument, NULL, OPT_IGNORE_WRITERS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "allow-empty", no_argument, NULL, OPT_ALLOW_EMPTY },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "sources", no_argument, NULL, OPT_SOURCES },
	{ "persist", no_argument, NULL, OPT_PERSIST },
	{ "pids", no_argument, NULL, OPT_PIDS },
	{ "wide", no_argument, NULL, 'w' },
	{ "follow", no_argument, NULL, 'f' },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "file", required_argument, NULL, OPT_FILE },
	{ "journal-file", required_argument, NULL, OPT_JOURNAL_FILE },
	{ "op", required_argument, NULL, OPT_OP },
	{ "path", required_argument, NULL, OPT_PATH },
	{ "uid", required_argument, NULL, OPT_UID },
	{ NULL, 0, NULL, 0 },
};

void cli_command_usage(FILE *f, enum command cmd)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].cmd == cmd)
			fprintf(f, "Usage:\n " PROGRAM_NAME "%s\n"
				"See denywritectl(8).\n", commands[i].help);
}

void cli_usage(FILE *f)
{
	fputs("Usage:\n"
	      " " PROGRAM_NAME " [options] <command> [<args>]\n"
	      "\n"
	      "Show and change the policy of the denywrite LSM, which refuses\n"
	      "writes (ETXTBSY) to files that are being executed or mapped\n"
	      "executable.\n"
	      "\n"
	      "Commands:\n"
	      " status                    is denywrite active; mode, rules, counters\n"
	      " mode [off|audit|enforce]  show or set the mode\n"
	      " add [--exec|--lib|--all] [--ignore-writers] [--persist] <path>...\n"
	      "                           add rules (default scope: all)\n"
	      " del [--persist] <path>... remove rules\n"
	      " clear                     remove all rules\n"
	      " list [--sources]          list the rules (and where they come from)\n"
	      " load [<file>...|-]        replace the rules with policy files, by\n"
	      "                           default those of the rules.d directories\n"
	      " diff [<file>...|-]        what load would change\n"
	      " cat-config                the rules files load reads, merged\n"
	      " save                      print the rules as a policy file\n"
	      " why <path>                why writing or running a file fails, and\n"
	      "                           which processes hold it\n"
	      " stats                     show the counters\n"
	      " log [--since <time>] [-f] denywrite's audit records\n"
	      "\n"
	      "Options:\n"
	      " -j, --json                JSON output (every command that prints)\n"
	      " -h, --help                display this help, or a command's\n"
	      " -V, --version             display version\n"
	      "\n"
	      "Exit status: 0 success, 1 failure, 2 usage error, 3 denywrite is\n"
	      "not active, 4 whether it is cannot be told, 5 why: no such file,\n"
	      "6 load: parts skipped, the other rules loaded.\n"
	      "\n"
	      "Environment:\n"
	      " DENYWRITE_SECURITYFS      securityfs mount point\n"
	      "                           (default /sys/kernel/security)\n"
	      "\n"
	      "For more details see denywritectl(8).\n", f);
}

/* The long option that arg ("--name[=value]") names, or NULL; *n matches. */
static const struct option *find_long(const struct option *opts,
				      const char *arg, int *n)
{
	size_t len = strcspn(arg + 2, "=");
	const struct option *found = NULL;

	*n = 0;
	for (const struct option *o = opts; o->name; o++) {
		if (strncmp(o->name, arg + 2, len) != 0)
			continue;
		if (strlen(o->name) == len) {	/* exact beats abbreviations */
			*n = 1;
			return o;
		}
		found = o;
		++*n;
	}
	return found;
}

/*
 * The message for getopt's '?' at argv[optind - 1], said as GNU tools say
 * it.  getopt's optopt holds the option's value for a long option given a
 * stray argument, which is no character to print.
 */
static void bad_option(const struct option *opts, char **argv, char *err,
		       size_t errlen)
{
	const char *arg = argv[optind - 1];
	const struct option *o;
	int n;

	if (strncmp(arg, "--", 2) != 0) {
		snprintf(err, errlen, "invalid option -- '%s'",
			 esc((char[]){ (char)optopt, '\0' }));
		return;
	}
	o = find_long(opts, arg, &n);
	if (n > 1)
		snprintf(err, errlen, "option '%s' is ambiguous", esc(arg));
	else if (!o)
		snprintf(err, errlen, "unrecognized option '%s'", esc(arg));
	else if (o->has_arg == no_argument)
		snprintf(err, errlen, "option '--%s' doesn't allow an argument",
			 o->name);
	else
		snprintf(err, errlen, "option '--%s' requires an argument",
			 o->name);
}

static int parse_global(int argc, char **argv, struct cli *c, char *err,
			size_t errlen)
{
	int opt;

	optind = 0;	/* full reinitialisation of GNU getopt */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+hVj", global_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'h':
			c->help = true;
			break;
		case 'V':
			c->version = true;
			break;
		case 'j':
			c->json = true;
			break;
		default:
			bad_option(global_opts, argv, err, errlen);
			return CLI_USAGE;
		}
	}
	return 0;
}

static int set_scope(struct cli *c, enum scope s, char *err, size_t errlen)
{
	static const char *const names[] = {
		[SCOPE_EXEC] = "--exec", [SCOPE_LIB] = "--lib",
		[SCOPE_ALL] = "--all",
	};

	if (c->scope && c->scope != s) {
		snprintf(err, errlen, "%s: %s and %s conflict", c->name,
			 names[c->scope], names[s]);
		return CLI_USAGE;
	}
	c->scope = s;
	return 0;
}

/* A command option that d's command does not take, or 0. */
static int refuse_option(int opt, char **argv, unsigned int flags,
			 struct cli *c, char *err, size_t errlen)
{
	const char *arg;
	unsigned int need;

	switch (opt) {
	case OPT_EXEC:
	case OPT_LIB:
	case OPT_ALL:
	case OPT_IGNORE_WRITERS:
		need = F_ADD;
		break;
	case 'q':
		need = F_QUIET;
		break;
	case 'n':
	case OPT_CHECK:
	case OPT_ALLOW_EMPTY:
		need = F_LOAD;
		break;
	case OPT_STRICT:
		need = F_STRICT;
		break;
	case OPT_ROOT:
		need = F_ROOT;
		break;
	case OPT_SOURCES:
		need = F_LIST;
		break;
	case OPT_PERSIST:
		need = F_PERSIST;
		break;
	case OPT_PIDS:
	case 'w':
		need = F_WHY;
		break;
	case 'f':
	case OPT_SINCE:
	case OPT_FILE:
	case OPT_JOURNAL_FILE:
	case OPT_OP:
	case OPT_PATH:
	case OPT_UID:
		need = F_LOG;
		break;
	default:
		return 0;
	}
	if (flags & need)
		return 0;
	arg = argv[optind - 1];
	if (optarg == arg && optind >= 2)	/* "--since X": before X */
		arg = argv[optind - 2];
	if (strncmp(arg, "--", 2) == 0)
		snprintf(err, errlen, "%s: unrecognized option '%s'", c->name,
			 esc(arg));
	else
		snprintf(err, errlen, "%s: invalid option -- '%c'", c->name,
			 opt);
	return CLI_USAGE;
}

static int parse_command_opt(int opt, char **argv, unsigned int flags,
			     struct cli *c, char *err, size_t errlen)
{
	size_t n;

	if (refuse_option(opt, argv, flags, c, err, errlen))
		return CLI_USAGE;
	switch (opt) {
	case 'h':
		c->help = true;
		return 0;
	case 'j':
		c->json = true;
		return 0;
	case 'q':
		c->quiet = true;
		return 0;
	case OPT_CHECK:
		c->check = true;
		/* fall through */
	case 'n':
		c->dry_run = true;
		return 0;
	case OPT_ALLOW_EMPTY:
		c->allow_empty = true;
		return 0;
	case OPT_ROOT:
		c->root = optarg;
		return 0;
	case OPT_STRICT:
		c->strict = true;
		return 0;
	case OPT_SOURCES:
		c->sources = true;
		return 0;
	case OPT_PERSIST:
		c->persist = true;
		return 0;
	case OPT_PIDS:
		c->pids = true;
		return 0;
	case 'w':
		c->wide = true;
		return 0;
	case 'f':
		c->follow = true;
		return 0;
	case OPT_SINCE:
		c->since = optarg;
		return 0;
	case OPT_FILE:
		c->file = optarg;
		return 0;
	case OPT_JOURNAL_FILE:
		c->journal_file = optarg;
		return 0;
	case OPT_OP:
		c->log_op = optarg;
		return 0;
	case OPT_PATH:
		c->log_path = optarg;
		return 0;
	case OPT_UID:
		c->log_uid = optarg;
		return 0;
	case OPT_IGNORE_WRITERS:
		c->ignore_writers = true;
		return 0;
	case OPT_EXEC:
	case OPT_LIB:
	case OPT_ALL:
		return set_scope(c, opt == OPT_EXEC ? SCOPE_EXEC :
				 opt == OPT_LIB ? SCOPE_LIB : SCOPE_ALL,
				 err, errlen);
	default:
		n = (size_t)snprintf(err, errlen, "%s: ", c->name);
		bad_option(command_opts, argv, err + n, errlen - n);
		return CLI_USAGE;
	}
}

static int check_operands(const struct command_desc *d, struct cli *c,
			  char *err, size_t errlen)
{
	if (c->json && !(d->flags & F_JSON)) {
		snprintf(err, errlen, "%s: --json is not supported", d->name);
		return CLI_USAGE;
	}
	if (c->nargs < d->min_args) {
		snprintf(err, errlen, "%s: missing %s", d->name,
			 d->cmd == CMD_LOAD ? "file" : "path");
		return CLI_USAGE;
	}
	if (d->max_args >= 0 && c->nargs > d->max_args) {
		snprintf(err, errlen, "%s: unexpected argument '%s'",
			 d->name, esc(c->args[d->max_args]));
		return CLI_USAGE;
	}
	if (d->cmd == CMD_MODE && c->nargs == 1 &&
	    strcmp(c->args[0], "off") && strcmp(c->args[0], "audit") &&
	    strcmp(c->args[0], "enforce")) {
		snprintf(err, errlen,
			 "mode: unknown mode '%s' (off, audit or enforce)",
			 esc(c->args[0]));
		return CLI_USAGE;
	}
	return 0;
}

static int parse_command(int argc, char **argv, const struct command_desc *d,
			 struct cli *c, char *err, size_t errlen)
{
	int opt;

	c->cmd = d->cmd;
	c->name = d->name;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "hjqnwf",
				  command_opts, NULL)) != -1) {
		int rc = parse_command_opt(opt, argv, d->flags, c, err, errlen);

		if (rc)
			return rc;
	}
	c->args = argv + optind;
	c->nargs = argc - optind;
	if (c->help)
		return 0;
	if (d->cmd == CMD_ADD && !c->scope)
		c->scope = SCOPE_ALL;
	return check_operands(d, c, err, errlen);
}

int cli_parse(int argc, char **argv, struct cli *c, char *err, size_t errlen)
{
	int rc;

	memset(c, 0, sizeof(*c));
	err[0] = '\0';
	rc = parse_global(argc, argv, c, err, errlen);
	if (rc || c->help || c->version)
		return rc;
	if (optind >= argc) {
		snprintf(err, errlen, "no command given");
		return CLI_USAGE;
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(argv[optind], commands[i].name) == 0)
			return parse_command(argc - optind, argv + optind,
					     &commands[i], c, err, errlen);
	snprintf(err, errlen, "unknown command '%s'", esc(argv[optind]));
	return CLI_USAGE;
}
