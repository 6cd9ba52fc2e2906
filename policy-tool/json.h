/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal JSON output: one object or array, written as a single line. */
#ifndef DENYWRITECTL_JSON_H
#define DENYWRITECTL_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 8

struct json {
	FILE *f;
	unsigned int depth;
	bool need_comma[JSON_MAX_DEPTH + 1];
};

/*
 * Write s as a JSON string with quotes.  Control characters, '"' and '\\'
 * are escaped; bytes that are not valid UTF-8 become U+FFFD.
 */
void json_escape(FILE *f, const char *s);

void json_init(struct json *j, FILE *f);
/* key is NULL for the top level and inside arrays; open is '{' or '['. */
void json_begin(struct json *j, const char *key, char open);
/* Ends the line after the outermost close. */
void json_end(struct json *j, char close);
/* A NULL value is written as null. */
void json_string(struct json *j, const char *key, const char *value);
void json_uint(struct json *j, const char *key, unsigned long long value);
void json_bool(struct json *j, const char *key, bool value);
/* A decimal number if value is all digits, else a string. */
void json_number_text(struct json *j, const char *key, const char *value);

#endif
