// SPDX-License-Identifier: GPL-2.0
/* JSON string escaping and the small writer. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

/* A FILE writing to memory, and what it wrote. */
struct memout {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *memout_open(struct memout *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f)
		abort();
	return m->f;
}

/* Close m and compare what was written with want. */
static int memout_check(char *why, size_t whylen, struct memout *m,
			const char *want)
{
	int same;

	fclose(m->f);
	same = strcmp(m->buf, want) == 0;
	snprintf(why, whylen, "got %s, want %s", m->buf, want);
	free(m->buf);
	return same ? 0 : 1;
}

static int check_escape(char *why, size_t whylen, const char *in,
			const char *want)
{
	struct memout m;

	json_escape(memout_open(&m), in);
	return memout_check(why, whylen, &m, want);
}

TEST(json_escapes_quotes_and_backslashes)
{
	return check_escape(why, whylen, "a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
}

TEST(json_escapes_control_characters)
{
	return check_escape(why, whylen, "\t\n\r\b\f\x01\x1f\x7f",
			    "\"\\t\\n\\r\\b\\f\\u0001\\u001f\\u007f\"");
}

TEST(json_keeps_valid_utf8)
{
	return check_escape(why, whylen, "/tmp/\xc3\xa9t\xc3\xa9/\xe2\x82\xac/"
			    "\xf0\x9f\x98\x80", "\"/tmp/\xc3\xa9t\xc3\xa9/"
			    "\xe2\x82\xac/\xf0\x9f\x98\x80\"");
}

TEST(json_writes_a_non_utf8_string_as_its_bytes)
{
	/* latin-1 byte, truncated sequence, overlong '/', surrogate */
	static const struct {
		const char *in;
		const char *out;
	} cases[] = {
		{ "a\xe9", "[97,233]" },
		{ "\xe2\x82", "[226,130]" },
		{ "\xc0\xaf", "[192,175]" },
		{ "\xed\xa0\x80", "[237,160,128]" },
		{ "/\xff\n", "[47,255,10]" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (check_escape(why, whylen, cases[i].in, cases[i].out))
			return 1;
	return 0;
}

TEST(json_rule_is_an_object)
{
	struct rule r = { .scope = SCOPE_ALL, .ignore_writers = true,
			  .path = "/opt" };
	struct memout m;
	struct json j;

	json_init(&j, memout_open(&m));
	json_begin(&j, NULL, '{');
	json_rule(&j, "a", &r);
	json_rule(&j, "b", NULL);
	json_end(&j, '}');
	return memout_check(why, whylen, &m,
			    "{\"a\":{\"scope\":\"all\",\"ignore_writers\":true,"
			    "\"path\":\"/opt\"},\"b\":null}\n");
}

TEST(json_writer_separates_members_with_commas)
{
	struct memout m;
	struct json j;

	json_init(&j, memout_open(&m));
	json_begin(&j, NULL, '{');
	json_bool(&j, "active", true);
	json_begin(&j, "rules", '[');
	json_begin(&j, NULL, '{');
	json_string(&j, "path", "/");
	json_end(&j, '}');
	json_begin(&j, NULL, '{');
	json_string(&j, "path", NULL);
	json_end(&j, '}');
	json_end(&j, ']');
	json_begin(&j, "empty", '[');
	json_end(&j, ']');
	json_uint(&j, "n", 18446744073709551615ULL);
	json_end(&j, '}');
	return memout_check(why, whylen, &m,
			    "{\"active\":true,\"rules\":[{\"path\":\"/\"},"
			    "{\"path\":null}],\"empty\":[],"
			    "\"n\":18446744073709551615}\n");
}

TEST(json_number_text_falls_back_to_string)
{
	struct memout m;
	struct json j;

	json_init(&j, memout_open(&m));
	json_begin(&j, NULL, '{');
	json_number_text(&j, "a", "42");
	json_number_text(&j, "b", "0");
	json_number_text(&j, "c", "007");
	json_number_text(&j, "d", "12 files");
	json_number_text(&j, "e", "");
	json_end(&j, '}');
	return memout_check(why, whylen, &m,
			    "{\"a\":42,\"b\":0,\"c\":\"007\","
			    "\"d\":\"12 files\",\"e\":\"\"}\n");
}

const struct test json_tests[] = {
	T(json_escapes_quotes_and_backslashes),
	T(json_escapes_control_characters),
	T(json_keeps_valid_utf8),
	T(json_writes_a_non_utf8_string_as_its_bytes),
	T(json_rule_is_an_object),
	T(json_writer_separates_members_with_commas),
	T(json_number_text_falls_back_to_string),
	{ NULL, NULL },
};
