// SPDX-License-Identifier: GPL-2.0
/* denywritectl why PATH: why do writes to this file fail with ETXTBSY? */
#include "commands.h"
#include "json.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPLACE_HINT "To replace it, write a new file and rename(2) it over " \
	"this one (as install(1) does); the running processes keep the old copy."

struct why {
	const char *path;
	char mode[32];
	bool protected;
	const char *holders;
	const char *writers;
	const char *exec_rule;	/* NULL if no rule covers it */
	const char *lib_rule;
	struct proc_users users;
	char advice[1024];
};

static bool has_ignore_writers(const char *rule)
{
	size_t n = strcspn(rule, " \t");

	return memmem(rule, n, ",ignore-writers", 15) != NULL;
}

/* Whether a listed process uses the file in a way a rule covers. */
static bool runs_covered(const struct why *w)
{
	for (size_t i = 0; i < w->users.n; i++) {
		enum proc_use use = w->users.p[i].use;

		if ((use == USE_EXE && (w->exec_rule || w->lib_rule)) ||
		    (use == USE_MAPPED_EXEC && w->lib_rule))
			return true;
	}
	return false;
}

static void advise_unprotected(struct why *w)
{
	bool enforce = strcmp(w->mode, "enforce") == 0;
	size_t n;

	n = (size_t)snprintf(w->advice, sizeof(w->advice),
		"Not protected now: writes are allowed. While a process %s%s%s, "
		"writes %s.",
		w->exec_rule ? "executes it" : "",
		w->exec_rule && w->lib_rule ? " or " : "",
		w->lib_rule ? "maps it executable" : "",
		enforce ? "will be refused (ETXTBSY)" : "will be logged (audit mode)");
	if (runs_covered(w) && n < sizeof(w->advice))
		n += (size_t)snprintf(w->advice + n, sizeof(w->advice) - n,
			" The processes above hold no protection: they probably "
			"started before a rule covered it or while denywrite was "
			"off.");
	if (enforce && strcmp(w->writers, "0") != 0 && n < sizeof(w->advice) &&
	    !(w->exec_rule && has_ignore_writers(w->exec_rule)) &&
	    !(w->lib_rule && has_ignore_writers(w->lib_rule)))
		snprintf(w->advice + n, sizeof(w->advice) - n,
			 " It is open for writing now, so executing or mapping "
			 "it is refused (ETXTBSY) until the writers close it.");
}

static void advise(struct why *w)
{
	if (strcmp(w->mode, "off") == 0)
		snprintf(w->advice, sizeof(w->advice), "denywrite is off: "
			 "writes to this file are not refused by denywrite.");
	else if (w->protected && strcmp(w->mode, "enforce") == 0)
		snprintf(w->advice, sizeof(w->advice), "Writes and truncation "
			 "are refused (ETXTBSY) while a process executes or "
			 "maps it. " REPLACE_HINT);
	else if (w->protected)
		snprintf(w->advice, sizeof(w->advice), "In audit mode writes "
			 "are allowed but logged. " REPLACE_HINT);
	else if (w->exec_rule || w->lib_rule)
		advise_unprotected(w);
	else
		snprintf(w->advice, sizeof(w->advice),
			 "Writes to this file are not refused by denywrite.");
}

static void why_json(const struct why *w)
{
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_string(&j, "path", w->path);
	json_string(&j, "mode", w->mode);
	json_bool(&j, "protected", w->protected);
	json_number_text(&j, "holders", w->holders);
	json_number_text(&j, "writers", w->writers);
	json_string(&j, "exec_rule", w->exec_rule);
	json_string(&j, "lib_rule", w->lib_rule);
	json_begin(&j, "processes", '[');
	for (size_t i = 0; i < w->users.n; i++) {
		json_begin(&j, NULL, '{');
		json_uint(&j, "pid", (unsigned long long)w->users.p[i].pid);
		json_string(&j, "how", proc_use_name(w->users.p[i].use));
		json_string(&j, "cmdline", w->users.p[i].cmdline);
		json_end(&j, '}');
	}
	json_end(&j, ']');
	json_string(&j, "advice", w->advice);
	json_end(&j, '}');
}

static void why_print(const struct why *w)
{
	printf("path:                 %s\n", w->path);
	printf("mode:                 %s\n", w->mode);
	printf("protected:            %s (%s holder%s)\n",
	       w->protected ? "yes" : "no", w->holders,
	       strcmp(w->holders, "1") ? "s" : "");
	printf("writers:              %s\n", w->writers);
	printf("if executed:          %s\n",
	       w->exec_rule ? w->exec_rule : "no rule");
	printf("if mapped executable: %s\n",
	       w->lib_rule ? w->lib_rule : "no rule");
	if (w->users.n == 0)
		printf("processes:            none that you can see\n");
	else
		printf("processes:\n");
	for (size_t i = 0; i < w->users.n; i++)
		printf("  pid %d, %s: %s\n", w->users.p[i].pid,
		       proc_use_name(w->users.p[i].use),
		       w->users.p[i].cmdline);
	printf("advice: %s\n", w->advice);
}

/* Fill w from the query answer; 1 (reported) if a line is missing. */
static int parse_answer(const struct dw *dw, const struct kvlist *l,
			struct why *w)
{
	static const char *const keys[] = {
		"protected", "holders", "writers", "exec-rule", "lib-rule",
	};
	const char *v[5];

	for (size_t i = 0; i < 5; i++) {
		v[i] = kv_get(l, keys[i]);
		if (!v[i])
			return fail("%s/query: no '%s' line in the answer",
				    dw->dir, keys[i]);
	}
	w->protected = strcmp(v[0], "0") != 0;
	w->holders = v[1];
	w->writers = v[2];
	w->exec_rule = strcmp(v[3], "-") ? v[3] : NULL;
	w->lib_rule = strcmp(v[4], "-") ? v[4] : NULL;
	return 0;
}

static int explain(const struct dw *dw, const struct cli *c, struct why *w,
		   const struct stat *st)
{
	struct kvlist answer;
	char *buf;
	size_t len;
	int err;

	if (dw_read_mode(dw, w->mode, sizeof(w->mode)))
		return 1;
	err = dw_query(dw, w->path, &buf, &len);
	if (err)
		return fail("why: %s: %s", c->args[0], strerror(err));
	kv_parse(buf, len, &answer);
	free(buf);
	if (parse_answer(dw, &answer, w)) {
		kv_free(&answer);
		return 1;
	}
	err = proc_find_users("/proc", st->st_dev, st->st_ino, &w->users);
	if (err) {
		kv_free(&answer);
		return fail("why: /proc: %s", strerror(err));
	}
	advise(w);
	if (c->json)
		why_json(w);
	else
		why_print(w);
	proc_users_free(&w->users);
	kv_free(&answer);
	return 0;
}

int cmd_why(const struct dw *dw, const struct cli *c)
{
	struct why w = { 0 };
	char *path = realpath(c->args[0], NULL);
	struct stat st;
	int rc;

	if (!path)
		return fail("why: %s: %s", c->args[0], strerror(errno));
	if (stat(path, &st) != 0) {
		rc = fail("why: %s: %s", c->args[0], strerror(errno));
		free(path);
		return rc;
	}
	w.path = path;
	rc = explain(dw, c, &w, &st);
	free(path);
	return rc;
}
