// SPDX-License-Identifier: GPL-2.0
#include "json.h"
#include "util.h"

#include <string.h>

static void escape_char(FILE *f, unsigned char c)
{
	static const char *const short_form[] = {
		['"'] = "\\\"", ['\\'] = "\\\\", ['\b'] = "\\b",
		['\f'] = "\\f", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
	};

	if (c < sizeof(short_form) / sizeof(short_form[0]) && short_form[c])
		fputs(short_form[c], f);
	else if (c < 0x20 || c == 0x7f)
		fprintf(f, "\\u%04x", c);
	else
		fputc(c, f);
}

static bool valid_utf8(const unsigned char *s)
{
	for (size_t n; *s; s += n)
		if ((n = utf8_len(s)) == 0)
			return false;
	return true;
}

void json_escape(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!valid_utf8(s)) {
		fputc('[', f);
		for (; *s; s++)
			fprintf(f, "%u%s", *s, s[1] ? "," : "");
		fputc(']', f);
		return;
	}
	fputc('"', f);
	for (size_t n; *s; s += n) {
		n = utf8_len(s);
		if (n == 1)
			escape_char(f, *s);
		else
			fwrite(s, 1, n, f);
	}
	fputc('"', f);
}

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static void json_key(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
	if (key) {
		json_escape(j->f, key);
		fputc(':', j->f);
	}
}

void json_begin(struct json *j, const char *key, char open)
{
	json_key(j, key);
	fputc(open, j->f);
	if (j->depth < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

void json_end(struct json *j, char close)
{
	fputc(close, j->f);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0)
		fputc('\n', j->f);
}

void json_string(struct json *j, const char *key, const char *value)
{
	json_key(j, key);
	if (value)
		json_escape(j->f, value);
	else
		fputs("null", j->f);
}

void json_uint(struct json *j, const char *key, unsigned long long value)
{
	json_key(j, key);
	fprintf(j->f, "%llu", value);
}

void json_seconds(struct json *j, const char *key, double value)
{
	json_key(j, key);
	fprintf(j->f, "%.3f", value);
}

void json_bool(struct json *j, const char *key, bool value)
{
	json_key(j, key);
	fputs(value ? "true" : "false", j->f);
}

void json_number_text(struct json *j, const char *key, const char *value)
{
	size_t n = strspn(value, "0123456789");

	if (n == 0 || value[n] != '\0' || (n > 1 && value[0] == '0') ||
	    n > 19) {
		json_string(j, key, value);
		return;
	}
	json_key(j, key);
	fputs(value, j->f);
}

void json_rule(struct json *j, const char *key, const struct rule *r)
{
	if (!r) {
		json_string(j, key, NULL);
		return;
	}
	json_begin(j, key, '{');
	json_rule_members(j, r);
	json_end(j, '}');
}

void json_rule_members(struct json *j, const struct rule *r)
{
	json_string(j, "scope", scope_name(r->scope));
	json_bool(j, "ignore_writers", r->ignore_writers);
	json_string(j, "path", r->path);
}
