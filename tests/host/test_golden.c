// SPDX-License-Identifier: GPL-2.0
/*
 * The tool against the kernel's real output: a fake securityfs made of the
 * files tests/golden/ holds, which the guest captures from the live kernel
 * (make golden) and compares with it in every make test (group golden).
 * A change of a file's format fails there, or, once the capture is
 * regenerated, here: what the tool makes of each file is written out below
 * by hand, from the setup of tests/guest/golden.c.
 */
#include "e2e.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sha256.h"
#include "util.h"

/* The files of a golden capture, as tests/guest/golden.c names them. */
static const char *const golden_files[] = {
	"mode", "rules", "stats", "gone",
	"query-root-running", "query-root-writer", "query-root-directory",
	"query-root-library", "query-nobody-not-inspectable", "query-nobody-own",
};
#define N_GOLDEN (sizeof(golden_files) / sizeof(golden_files[0]))

/* A golden file's content, malloc'd, or NULL: in tests/golden
 * ($DENYWRITECTL_TEST_GOLDEN, else beside policy-tool/). */
static char *golden(const char *name)
{
	char path[PATH_MAX];

	return read_file(data_path(path, sizeof(path), "DENYWRITECTL_TEST_GOLDEN",
				   "../tests/golden", name));
}

/* A fake securityfs whose mode, rules, stats and gone are the capture's. */
static int fake_golden(struct fake *f, char *why, size_t whylen)
{
	static const char *const copied[] = { "mode", "stats", "gone" };
	char *rules = golden("rules");

	CHECK(rules, "no golden rules");
	fake_init(f, "capability,denywrite", rules);
	free(rules);
	for (size_t i = 0; i < sizeof(copied) / sizeof(copied[0]); i++) {
		char *s = golden(copied[i]);

		CHECK(s, "no golden %s", copied[i]);
		fake_file(f, copied[i], s);
		free(s);
	}
	return 0;
}

TEST(golden_capture_has_every_securityfs_file)
{
	for (size_t i = 0; i < N_GOLDEN; i++) {
		char *s = golden(golden_files[i]);

		CHECK(s && *s, "tests/golden/%s is missing or empty (make golden)",
		      golden_files[i]);
		free(s);
	}
	return 0;
}

/* Every counter, and a status that reads them and the rules' digest. */
TEST(golden_stats_read_by_stats_and_status)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	char *rules = golden("rules"), *stats = golden("stats");
	char digest[SHA256_HEX_LEN + 1], want[1024];

	CHECK(rules && stats, "no golden rules or stats");
	sha256_hex(rules, strlen(rules), digest);
	free(rules);
	if (fake_golden(&f, why, whylen)) {
		free(stats);
		return TEST_FAIL;
	}
	if (expect(why, whylen, &o, 0, stats, "", "stats", (char *)NULL)) {
		free(stats);
		return TEST_FAIL;
	}
	free(stats);
	EXPECT(&o, 0, "{\"rules\":6,\"protected\":2,\"denied_write\":1,"
	       "\"denied_truncate\":1,\"denied_exec\":1,\"denied_mmap\":1,"
	       "\"audited\":1,\"gone\":2}\n", "", "stats", "-j");
	snprintf(want, sizeof(want),
		 "active:    yes\n"
		 "mode:      enforce\n"
		 "rules:     6\n"
		 "policy:    %s\n"
		 "protected: 2 files\n"
		 "denied:    write 1, truncate 1, exec 1, mmap 1\n"
		 "audited:   1\n"
		 "gone:      2 rules (their filesystem was unmounted)\n", digest);
	EXPECT(&o, 0, want, "", "status");
	EXPECT(&o, 0, "enforce\n", "", "mode");
	return 0;
}

/* The kernel's escapes, read back: list and save print the kernel's own
 * form (the one dialect of denywritectl's output), JSON the bytes. */
TEST(golden_rules_and_gone_read_by_list_and_save)
{
	struct fake f;
	struct opts o = { .sfs = &f, .uid = -1 };
	char *rules = golden("rules"), want[4096];

	CHECK(rules, "no golden rules");
	if (fake_golden(&f, why, whylen)) {
		free(rules);
		return TEST_FAIL;
	}
	snprintf(want, sizeof(want), "# denywrite policy, saved by denywritectl\n%s",
		 rules);
	free(rules);
	if (expect(why, whylen, &o, 0, want, "", "save", (char *)NULL))
		return TEST_FAIL;
	EXPECT(&o, 0,
	       "exec /\n"
	       "lib,ignore-writers /tmp/dwgolden/lib\n"
	       "all /tmp/dwgolden/t\\011b\n"
	       "exec /tmp/dwgolden/b\\134s\n"
	       "lib /tmp/dwgolden/sp\\040\n"
	       "exec,ignore-writers /tmp/dwgolden/nl\\012x\n"
	       "# gone (its filesystem was unmounted): exec /tmp/dwgolden/mnt/m1\n"
	       "# gone (its filesystem was unmounted): lib,ignore-writers "
	       "/tmp/dwgolden/mnt/sp\\040\n", "", "list");
	EXPECT(&o, 0,
	       "{\"rules\":["
	       "{\"scope\":\"exec\",\"ignore_writers\":false,\"path\":\"/\"},"
	       "{\"scope\":\"lib\",\"ignore_writers\":true,\"path\":\"/tmp/dwgolden/lib\"},"
	       "{\"scope\":\"all\",\"ignore_writers\":false,\"path\":\"/tmp/dwgolden/t\\tb\"},"
	       "{\"scope\":\"exec\",\"ignore_writers\":false,\"path\":\"/tmp/dwgolden/b\\\\s\"},"
	       "{\"scope\":\"lib\",\"ignore_writers\":false,\"path\":\"/tmp/dwgolden/sp \"},"
	       "{\"scope\":\"exec\",\"ignore_writers\":true,\"path\":\"/tmp/dwgolden/nl\\nx\"}],"
	       "\"gone\":["
	       "{\"scope\":\"exec\",\"ignore_writers\":false,\"path\":\"/tmp/dwgolden/mnt/m1\"},"
	       "{\"scope\":\"lib\",\"ignore_writers\":true,\"path\":\"/tmp/dwgolden/mnt/sp \"}]}\n",
	       "", "list", "-j");
	return 0;
}

/*
 * why reads a golden query answer: the kernel's part of its output (what
 * the processes in /proc add depends on the host) and of its JSON.
 */
struct answer_case {
	const char *file;
	const char *lines;	/* lines why must print, in order */
	const char *json;	/* a part of why -j's object */
};

static const struct answer_case answers[] = {
	{ "query-root-running",
	  "protected:            yes (1 holder)\n"
	  "writers:              0\n"
	  "if executed:          exec /\n"
	  "if mapped executable: no rule\n",
	  "\"protected\":true,\"holders\":1,\"writers\":0,\"exec_rule\":"
	  "{\"scope\":\"exec\",\"ignore_writers\":false,\"path\":\"/\"},"
	  "\"lib_rule\":null," },
	{ "query-root-writer",
	  "protected:            no (0 holders)\n"
	  "writers:              1\n"
	  "if executed:          exec /\n"
	  "if mapped executable: no rule\n",
	  "\"protected\":false,\"holders\":0,\"writers\":1,\"exec_rule\":"
	  "{\"scope\":\"exec\",\"ignore_writers\":false,\"path\":\"/\"},"
	  "\"lib_rule\":null," },
	{ "query-root-directory",
	  "protected:            no (0 holders)\n"
	  "writers:              0\n"
	  "if executed:          all /tmp/dwgolden/t\\011b\n"
	  "if mapped executable: all /tmp/dwgolden/t\\011b\n",
	  "\"protected\":false,\"holders\":0,\"writers\":0,\"exec_rule\":"
	  "{\"scope\":\"all\",\"ignore_writers\":false,\"path\":\"/tmp/dwgolden/t\\tb\"},"
	  "\"lib_rule\":{\"scope\":\"all\",\"ignore_writers\":false,"
	  "\"path\":\"/tmp/dwgolden/t\\tb\"}," },
	{ "query-root-library",
	  "protected:            no (0 holders)\n"
	  "writers:              0\n"
	  "if executed:          exec /\n"
	  "if mapped executable: lib,ignore-writers /tmp/dwgolden/lib\n",
	  "\"protected\":false,\"holders\":0,\"writers\":0,\"exec_rule\":"
	  "{\"scope\":\"exec\",\"ignore_writers\":false,\"path\":\"/\"},"
	  "\"lib_rule\":{\"scope\":\"lib\",\"ignore_writers\":true,"
	  "\"path\":\"/tmp/dwgolden/lib\"}," },
	{ "query-nobody-not-inspectable",
	  "protected:            unknown (you may not inspect this file's users)\n"
	  "writers:              unknown (you may not inspect this file's users)\n"
	  "if executed:          exec /\n"
	  "if mapped executable: no rule\n",
	  "\"protected\":null,\"holders\":null,\"writers\":null,\"exec_rule\":"
	  "{\"scope\":\"exec\",\"ignore_writers\":false,\"path\":\"/\"},"
	  "\"lib_rule\":null," },
	{ "query-nobody-own",
	  "protected:            yes (1 holder)\n"
	  "writers:              0\n"
	  "if executed:          exec /\n"
	  "if mapped executable: no rule\n",
	  "\"protected\":true,\"holders\":1,\"writers\":0,\"exec_rule\":"
	  "{\"scope\":\"exec\",\"ignore_writers\":false,\"path\":\"/\"},"
	  "\"lib_rule\":null," },
};

/* The lines of want appear in got, in order, each a whole line. */
static bool has_lines(const char *got, const char *want, char *missing,
		      size_t size)
{
	const char *at = got;

	while (*want) {
		size_t n = strcspn(want, "\n") + 1;
		const char *hit = at;

		snprintf(missing, size, "%.*s", (int)n - 1, want);
		for (;;) {
			hit = strstr(hit, missing);
			if (!hit)
				return false;
			if ((hit == got || hit[-1] == '\n') && hit[n - 1] == '\n')
				break;
			hit++;
		}
		at = hit + n;
		want += n;
	}
	return true;
}

TEST(golden_query_answers_read_by_why)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], query[PATH_MAX + 1024];
	char missing[256];
	struct fake f;
	struct run r;

	make_target(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/bin", dir);
	for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
		const struct answer_case *a = &answers[i];
		char *answer = golden(a->file), qpath[PATH_MAX + 32];
		bool ok;

		CHECK(answer, "no golden %s", a->file);
		if (fake_golden(&f, why, whylen)) {
			free(answer);
			return TEST_FAIL;
		}
		/* The tool writes the path at offset 0, then reads from 0. */
		snprintf(query, sizeof(query), "%s\n%s", path, answer);
		free(answer);
		fake_file(&f, "query", query);
		snprintf(qpath, sizeof(qpath), "%s/query", f.dir);
		chmod(qpath, 0666);
		run_tool(&r, &(struct opts){ .sfs = &f, .uid = -1 }, "why", path,
			 (char *)NULL);
		ok = r.status == 0 && has_lines(r.out, a->lines, missing,
						sizeof(missing));
		snprintf(why, whylen, "%s: why exited %d, no line '%s' in: %s",
			 a->file, r.status, missing, r.out);
		run_free(&r);
		if (!ok)
			return TEST_FAIL;
		fake_file(&f, "query", query);
		run_tool(&r, &(struct opts){ .sfs = &f, .uid = -1 }, "why", "-j",
			 path, (char *)NULL);
		ok = r.status == 0 && strstr(r.out, a->json);
		snprintf(why, whylen, "%s: why -j exited %d, no '%s' in: %s",
			 a->file, r.status, a->json, r.out);
		run_free(&r);
		if (!ok)
			return TEST_FAIL;
	}
	return 0;
}

const struct test golden_tests[] = {
	T(golden_capture_has_every_securityfs_file),
	T(golden_stats_read_by_stats_and_status),
	T(golden_rules_and_gone_read_by_list_and_save),
	T(golden_query_answers_read_by_why),
	{ NULL, NULL },
};
