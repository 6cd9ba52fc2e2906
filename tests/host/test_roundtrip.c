// SPDX-License-Identifier: GPL-2.0
/*
 * One escape dialect for rule paths: whatever bytes a directory's name
 * holds, the rules that list, save and why print load back to the very
 * same rules, and del takes a path as list prints it.  The kernel's side
 * (how it prints a rule, and how it reads what the tool writes) is
 * modelled here on security/denywrite/policy.c: text_put_name() and
 * denywrite_parse_rule().
 */
#include "e2e.h"

#include <stdio.h>
#include <sys/stat.h>

#include "json.h"
#include "util.h"

/* Directory names that a line format can get wrong. */
static const char *const odd_names[] = {
	"trail ", " lead", "   ", "two  spaces  ", "nl\nx", "tab\tx",
	"cr\rx", "back\\slash", "a\\040b", "a b", "\\134", "end\\",
	"\xff\x80", "caf\xc3\xa9", "\xe2\x80\xae" "rlo", "-dash", "#hash",
	"-", "#", "eq=1:2", "x # y", "lib x",
};

#define N_ODD (sizeof(odd_names) / sizeof(odd_names[0]))
#define N_RULES (N_ODD + 1)	/* and a long name: 254 bytes and a space */
#define ODD_PATH_MAX 600
#define ODD_TEXT_MAX (N_RULES * (4 * ODD_PATH_MAX + 64))

struct odd {
	char dir[256];
	char path[N_RULES][ODD_PATH_MAX];	/* raw */
	char scope[N_RULES][32];	/* "lib,ignore-writers" */
	char kernel[ODD_TEXT_MAX];	/* the kernel's rules file */
};

static struct odd od;	/* large: not on the stack */

static const char *odd_name(size_t i)
{
	static char longname[256];

	if (i < N_ODD)
		return odd_names[i];
	memset(longname, 'L', 254);
	longname[254] = ' ';
	longname[255] = '\0';
	return longname;
}

/* The kernel's text of a name: a control character, a backslash and a
 * last space as a backslash and 3 octal digits (text_put_name). */
static void kernel_escape(char *out, const char *raw)
{
	for (; *raw; raw++) {
		unsigned char c = (unsigned char)*raw;

		if (c < 0x20 || c == 0x7f || c == '\\' || (c == ' ' && !raw[1]))
			out += sprintf(out, "\\%03o", c);
		else
			*out++ = (char)c;
	}
	*out = '\0';
}

static bool odigit(char c)
{
	return c >= '0' && c <= '7';
}

/* The kernel's reading of a PATH: escapes decoded in place (unescape());
 * -1 where the kernel says EINVAL. */
static int kernel_unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		unsigned int v;

		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return -1;
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		if (!odigit(s[1]) || !odigit(s[2]) || !odigit(s[3]))
			return -1;
		v = (unsigned int)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				   (s[3] - '0'));
		if (!v || v > 0xff)
			return -1;
		*o++ = (char)v;
		s += 3;
	}
	*o = '\0';
	return 0;
}

/* The kernel's reading of a rule line without its newline
 * (denywrite_parse_rule): the scope word into scope, the raw path into
 * path; -1 where the kernel says EINVAL. */
static int kernel_parse(const char *line, char *scope, size_t ssize,
			char *path, size_t psize)
{
	size_t w = strcspn(line, " \t"), len;
	const char *p = line + w;

	if (!*p)
		return -1;
	snprintf(scope, ssize, "%.*s", (int)w, line);
	p += strspn(p, " \t");
	len = strlen(p);
	if (len == 0 || len >= psize || p[0] != '/' || p[len - 1] == ' ' ||
	    p[len - 1] == '\t')
		return -1;
	memcpy(path, p, len + 1);
	return kernel_unescape(path);
}

/* Whether text holds the rules of od as the kernel reads them, in order. */
static int same_rules(char *why, size_t whylen, const char *what,
		      const char *text)
{
	char *copy = xstrdup(text), *save = NULL, *line;
	size_t n = 0;
	int rc = TEST_PASS;

	for (line = strtok_r(copy, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save), n++) {
		char scope[64], path[4 * ODD_PATH_MAX];

		if (n >= N_RULES) {
			snprintf(why, whylen, "%s: line %zu is '%s', want no "
				 "more", what, n + 1, esc(line));
			rc = TEST_FAIL;
		} else if (kernel_parse(line, scope, sizeof(scope), path,
					sizeof(path)) ||
			   strcmp(scope, od.scope[n]) ||
			   strcmp(path, od.path[n])) {
			snprintf(why, whylen, "%s: line %zu is '%s', want "
				 "'%s %s'", what, n + 1, esc(line), od.scope[n],
				 esc(od.path[n]));
			rc = TEST_FAIL;
		}
	}
	free(copy);
	if (!rc && n != N_RULES) {
		snprintf(why, whylen, "%s: %zu rules, want %zu", what, n,
			 (size_t)N_RULES);
		rc = TEST_FAIL;
	}
	return rc;
}

/* Add the rule of name i with the tool (when we may), check what it
 * writes as the kernel reads it, and put it in the fake rules file. */
static int add_one(char *why, size_t whylen, struct fake *f, size_t i)
{
	static const char *const flag[] = { "--exec", "--lib", "--all" };
	static const char *const word[] = { "exec", "lib", "all" };
	char name[4 * ODD_PATH_MAX], scope[64], got[4 * ODD_PATH_MAX];
	struct run r;
	char *add;
	int ok;

	snprintf(od.scope[i], sizeof(od.scope[i]), "%s%s", word[i % 3],
		 i % 2 ? ",ignore-writers" : "");
	kernel_escape(name, od.path[i]);
	snprintf(od.kernel + strlen(od.kernel),
		 sizeof(od.kernel) - strlen(od.kernel), "%s %s\n", od.scope[i],
		 name);
	if (!privileged())
		return 0;
	run_tool(&r, &(struct opts){ .sfs = f, .uid = -1 }, "add", "-q",
		 flag[i % 3], i % 2 ? "--ignore-writers" : "-q", od.path[i],
		 (char *)NULL);
	add = fake_read(f, "add");
	add[strcspn(add, "\n")] = '\0';
	ok = r.status == 0 && !*r.err &&
	     !kernel_parse(add, scope, sizeof(scope), got, sizeof(got)) &&
	     !strcmp(scope, od.scope[i]) && !strcmp(got, od.path[i]);
	snprintf(why, whylen, "add %s: exit %d, stderr '%s', wrote '%s'",
		 esc(od.path[i]), r.status, r.err, esc(add));
	free(add);
	run_free(&r);
	return ok ? 0 : TEST_FAIL;
}

/* A temporary directory holding every odd name, a rule for each added
 * (with add when we may) and the fake kernel's rules file holding them. */
static int odd_setup(char *why, size_t whylen, struct fake *f)
{
	memset(&od, 0, sizeof(od));
	make_target(od.dir, sizeof(od.dir));
	fake_init(f, "denywrite", "");
	for (size_t i = 0; i < N_RULES; i++) {
		snprintf(od.path[i], sizeof(od.path[i]), "%s/%s", od.dir,
			 odd_name(i));
		CHECK(mkdir(od.path[i], 0755) == 0, "mkdir %s", esc(od.path[i]));
		if (add_one(why, whylen, f, i))
			return TEST_FAIL;
		fake_file(f, "rules", od.kernel);
	}
	return 0;
}

/* Load text (what a command printed) with the tool: a dry run (from
 * stdin) must find nothing to add or remove; a load, from stdin and from
 * a file, must write the same rules, as the kernel reads them. */
static int loads_back(char *why, size_t whylen, struct fake *f,
		      const char *what, const char *text)
{
	struct opts o = { .sfs = f, .uid = -1, .input = text };
	char want[128], file[PATH_MAX + 8];
	const char *src[2] = { "-", file };

	snprintf(want, sizeof(want), "checked %zu rules from 1 file (dry run: "
		 "nothing loaded)\n", (size_t)N_RULES);
	if (expect(why, whylen, &o, 0, want, "", "load", "--dry-run", "-",
		   (char *)NULL)) {
		snprintf(why + strlen(why), whylen - strlen(why),
			 " (load --dry-run of %s)", what);
		return TEST_FAIL;
	}
	if (!privileged())
		return 0;
	make_tmpdir(file, sizeof(file), "loadback");
	strcat(file, "/p");
	write_file(file, text);
	for (size_t k = 0; k < 2; k++) {
		char *got;
		int rc;

		fake_file(f, "rules", "");
		if (expect(why, whylen, &o, 0, "", "", "load", "-q", src[k],
			   (char *)NULL))
			return TEST_FAIL;
		got = fake_read(f, "rules");
		rc = same_rules(why, whylen, what, got);
		free(got);
		fake_file(f, "rules", od.kernel);
		if (rc)
			return rc;
	}
	return 0;
}

/* Run the tool; its stdout (malloc'd) if it succeeded quietly, else NULL
 * with the reason in why. */
static char *output_of(char *why, size_t whylen, const struct opts *o,
		       const char *cmd, const char *arg)
{
	struct run r;
	char *out = NULL;

	run_tool(&r, o, cmd, arg, (char *)NULL);
	if (r.status == 0 && !*r.err)
		out = xstrdup(r.out);
	snprintf(why, whylen, "%s %s: exit %d, stderr '%s'", cmd,
		 arg ? esc(arg) : "", r.status, r.err);
	run_free(&r);
	return out;
}

/* The "if executed:" rules that why prints for each name, one a line,
 * the kernel's query answering with the name's rule. */
static char *why_rules(char *why, size_t whylen, struct fake *f)
{
	static const char label[] = "\nif executed:          ";
	char *all = xcalloc(1, ODD_TEXT_MAX), *o = all;

	for (size_t i = 0; i < N_RULES; i++) {
		char name[4 * ODD_PATH_MAX], query[8 * ODD_PATH_MAX];
		char *out, *rule;

		kernel_escape(name, od.path[i]);
		/* the tool writes the path at offset 0, then reads it all */
		snprintf(query, sizeof(query), "%s\nprotected 0\nholders 0\n"
			 "writers 0\nexec-rule %s %s\nlib-rule -\n", od.path[i],
			 od.scope[i], name);
		fake_file(f, "query", query);
		out = output_of(why, whylen, &(struct opts){ .sfs = f,
				.uid = -1 }, "why", od.path[i]);
		rule = out ? strstr(out, label) : NULL;
		if (!rule) {
			free(out);
			free(all);
			return NULL;
		}
		rule += strlen(label);
		o += sprintf(o, "%.*s\n", (int)strcspn(rule, "\n"), rule);
		free(out);
	}
	return all;
}

/* list --json gives each path as the JSON string of its raw bytes. */
static int json_has_raw_paths(char *why, size_t whylen, const char *out)
{
	for (size_t i = 0; i < N_RULES; i++) {
		char *want = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&want, &len);
		bool ok;

		CHECK(m, "open_memstream");
		fputs("\"path\":", m);
		json_escape(m, od.path[i]);
		fclose(m);
		ok = strstr(out, want) != NULL;
		snprintf(why, whylen, "list --json has no %s: %s", esc(want),
			 esc(out));
		free(want);
		if (!ok)
			return TEST_FAIL;
	}
	return 0;
}

TEST(odd_directory_names_round_trip_through_list_save_and_why)
{
	static const char *const cmds[] = { "list", "save" };
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	char *out;
	int rc;

	if (odd_setup(why, whylen, &f))
		return TEST_FAIL;
	for (size_t k = 0; k < 2; k++) {
		out = output_of(why, whylen, &o, cmds[k], NULL);
		if (!out)
			return TEST_FAIL;
		rc = loads_back(why, whylen, &f, cmds[k], out);
		free(out);
		if (rc)
			return rc;
	}
	out = why_rules(why, whylen, &f);
	if (!out)
		return TEST_FAIL;
	rc = loads_back(why, whylen, &f, "why", out);
	free(out);
	if (rc)
		return rc;
	out = output_of(why, whylen, &o, "list", "--json");
	if (!out)
		return TEST_FAIL;
	rc = json_has_raw_paths(why, whylen, out);
	free(out);
	return rc;
}

TEST(del_takes_odd_names_as_list_prints_them_and_refuses_an_ambiguous_one)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	char *out, *save = NULL, *line, arg[PATH_MAX + 16], msg[4 * PATH_MAX];
	size_t n = 0;

	if (odd_setup(why, whylen, &f))
		return TEST_FAIL;
	out = output_of(why, whylen, &o, "list", NULL);
	if (!out)
		return TEST_FAIL;
	if (!privileged()) {
		free(out);
		SKIP("del needs CAP_MAC_ADMIN");
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		const char *listed = strchr(line, ' ') + 1;
		char *del;
		int ok;

		fake_file(&f, "del", "");
		if (expect(why, whylen, &o, 0, "", "", "del", "-q", listed,
			   (char *)NULL)) {
			free(out);
			return TEST_FAIL;
		}
		del = fake_read(&f, "del");
		del[strcspn(del, "\n")] = '\0';
		ok = n < N_RULES && !kernel_unescape(del) &&
		     !strcmp(del, od.path[n]);
		snprintf(why, whylen, "del '%s' wrote '%s', the kernel reads "
			 "it as another path than %s", esc(listed), esc(del),
			 n < N_RULES ? esc(od.path[n]) : "none");
		free(del);
		if (!ok) {
			free(out);
			return TEST_FAIL;
		}
	}
	free(out);
	CHECK(n == N_RULES, "list printed %zu rules, want %zu", n,
	      (size_t)N_RULES);
	/* "a\040b" is the name of one directory, and how list prints "a b" */
	fake_file(&f, "del", "");
	snprintf(arg, sizeof(arg), "%s/a\\040b", od.dir);
	snprintf(msg, sizeof(msg), "denywritectl: del: %s/a\\134040b: "
		 "ambiguous: as a path it names the rule for %s/a\\134040b, "
		 "as list prints paths the rule for %s/a b: give the path as "
		 "list prints it\n", od.dir, od.dir, od.dir);
	return refused(why, whylen, &f, "del", msg, "del", "-q", arg,
		       (char *)NULL);
}

const struct test roundtrip_tests[] = {
	T(odd_directory_names_round_trip_through_list_save_and_why),
	T(del_takes_odd_names_as_list_prints_them_and_refuses_an_ambiguous_one),
	{ NULL, NULL },
};
