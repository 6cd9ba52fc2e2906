/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal JSON output: one object or array, written as a single line. */
#ifndef DENYWRITECTL_JSON_H
#define DENYWRITECTL_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include "policy.h"

#define JSON_MAX_DEPTH 8

struct json {
	FILE *f;
	unsigned int depth;
	bool need_comma[JSON_MAX_DEPTH + 1];
};

/*
 * Write s losslessly: as a JSON string (control characters, '"' and '\\'
 * escaped) when it is valid UTF-8, else as an array of its bytes as
 * numbers, as journalctl -o json does ("/tmp/\xe9" is [47,116,109,112,47,
 * 233]).  Two different strings never give the same JSON.
 */
void json_escape(FILE *f, const char *s);

void json_init(struct json *j, FILE *f);
/* key is NULL for the top level and inside arrays; open is '{' or '['. */
void json_begin(struct json *j, const char *key, char open);
/* Ends the line after the outermost close. */
void json_end(struct json *j, char close);
/* A NULL value is written as null; see json_escape. */
void json_string(struct json *j, const char *key, const char *value);
void json_uint(struct json *j, const char *key, unsigned long long value);
void json_bool(struct json *j, const char *key, bool value);
/* Seconds with milliseconds, as a number: 1796304281.345. */
void json_seconds(struct json *j, const char *key, double value);
/* A decimal number if value is all digits, else a string. */
void json_number_text(struct json *j, const char *key, const char *value);

/* A rule's members "scope", "ignore_writers", "path" in an open object. */
void json_rule_members(struct json *j, const struct rule *r);

/* A rule as {"scope":"lib","ignore_writers":false,"path":"/usr/lib"};
 * null for NULL. */
void json_rule(struct json *j, const char *key, const struct rule *r);

#endif
