// SPDX-License-Identifier: GPL-2.0
#include "json.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	cp = s[0] & (0x7fu >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

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

void json_escape(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		size_t n = utf8_len(s);

		if (n == 1)
			escape_char(f, *s);
		else if (n == 0)
			fputs("\\ufffd", f);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
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
