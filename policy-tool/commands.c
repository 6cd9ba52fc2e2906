// SPDX-License-Identifier: GPL-2.0
#include "commands.h"
#include "diff.h"
#include "json.h"
#include "load.h"
#include "log.h"
#include "persist.h"
#include "rules.h"
#include "sha256.h"
#include "util.h"
#include "why.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SAVE_HEADER "# denywrite policy, saved by " PROGRAM_NAME

static const char *const stats_keys[] = {
	"rules", "protected", "denied_write", "denied_truncate",
	"denied_exec", "denied_mmap", "audited",
};

#define N_STATS (sizeof(stats_keys) / sizeof(stats_keys[0]))

/* The stats values in stats_keys order; 1 (reported) if one is missing. */
static int read_stats(const struct dw *dw, struct kvlist *l,
		      const char *v[N_STATS])
{
	if (dw_read_kv(dw, "stats", l))
		return 1;
	for (size_t i = 0; i < N_STATS; i++) {
		v[i] = kv_get(l, stats_keys[i]);
		if (!v[i]) {
			kv_free(l);
			return fail("%s/stats: no '%s' line", esc(dw->dir),
				    stats_keys[i]);
		}
	}
	return 0;
}

/* The counters, as stats --json gives them, into an open object. */
static void counters_json(struct json *j, const struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_number_text(j, l->kv[i].key, l->kv[i].value);
}

static void status_json(const char *mode, const char *digest,
			const struct kvlist *l)
{
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_bool(&j, "active", true);
	json_string(&j, "mode", mode);
	json_string(&j, "policy", digest);
	counters_json(&j, l);
	json_end(&j, '}');
}

static void status_text(const char *mode, const char *digest,
			const struct kvlist *l, const char *v[N_STATS])
{
	const char *gone = kv_get(l, "gone");

	printf("active:    yes\n"
	       "mode:      %s\n"
	       "rules:     %s\n"
	       "policy:    %s\n"
	       "protected: %s file%s\n"
	       "denied:    write %s, truncate %s, exec %s, mmap %s\n"
	       "audited:   %s\n",
	       esc(mode), esc(v[0]), digest, esc(v[1]),
	       strcmp(v[1], "1") ? "s" : "", esc(v[2]), esc(v[3]), esc(v[4]),
	       esc(v[5]), esc(v[6]));
	if (gone && strcmp(gone, "0") != 0)
		printf("gone:      %s rule%s (%s filesystem was unmounted)\n",
		       esc(gone), strcmp(gone, "1") ? "s" : "",
		       strcmp(gone, "1") ? "their" : "its");
}

/* status when denywrite is not active (3) or that is unknown (4). */
static int status_inactive(const struct cli *c, int rc)
{
	struct json j;

	if (c->json) {
		json_init(&j, stdout);
		json_begin(&j, NULL, '{');
		if (rc == EXIT_INACTIVE)
			json_bool(&j, "active", false);
		else
			json_string(&j, "active", NULL);
		json_end(&j, '}');
	} else {
		puts(rc == EXIT_INACTIVE ? "active:    no" : "active:    unknown");
	}
	return rc;
}

/* The SHA-256 of the rules file, as audit records give it. */
static int policy_digest(const struct dw *dw, char hex[SHA256_HEX_LEN + 1])
{
	char *buf;
	size_t len;
	int err = dw_read(dw, "rules", &buf, &len);

	if (err)
		return fail("%s/rules: %s", esc(dw->dir), strerror(err));
	sha256_hex(buf, len, hex);
	free(buf);
	return 0;
}

static int cmd_status(struct dw *dw, const struct cli *c)
{
	char mode[32], digest[SHA256_HEX_LEN + 1];
	const char *v[N_STATS];
	struct kvlist l;
	int rc = dw_open(dw);

	if (rc == EXIT_INACTIVE || rc == EXIT_UNKNOWN)
		return status_inactive(c, rc);
	if (rc || dw_read_mode(dw, mode, sizeof(mode)) ||
	    policy_digest(dw, digest) || read_stats(dw, &l, v))
		return 1;
	if (c->json)
		status_json(mode, digest, &l);
	else
		status_text(mode, digest, &l, v);
	kv_free(&l);
	return 0;
}

static int cmd_stats(struct dw *dw, const struct cli *c)
{
	struct kvlist l;
	struct json j;
	int rc = dw_open_active(dw);

	if (rc)
		return rc;
	if (dw_read_kv(dw, "stats", &l))
		return 1;
	if (c->json) {
		json_init(&j, stdout);
		json_begin(&j, NULL, '{');
		counters_json(&j, &l);
		json_end(&j, '}');
	}
	for (size_t i = 0; i < l.n && !c->json; i++)
		printf("%s %s\n", esc(l.kv[i].key), esc(l.kv[i].value));
	kv_free(&l);
	return 0;
}

static void mode_json(const char *mode)
{
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_string(&j, "mode", mode);
	json_end(&j, '}');
}

static int cmd_mode(struct dw *dw, const struct cli *c)
{
	int err = dw_open_active(dw);

	if (err)
		return err;
	if (c->nargs == 0) {
		char mode[32];

		if (dw_read_mode(dw, mode, sizeof(mode)))
			return 1;
		if (c->json)
			mode_json(mode);
		else
			puts(esc(mode));
		return 0;
	}
	if (dw_need_mac_admin(c->name))
		return 1;
	err = dw_write_line(dw, "mode", c->args[0],
			    strlen(c->args[0]));
	if (err)
		return fail("mode: %s", dw_write_error(err, "mode"));
	return 0;
}

static void rules_json(const struct policy *p, const struct policy *gone)
{
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_begin(&j, "rules", '[');
	for (size_t i = 0; i < p->n; i++)
		json_rule(&j, NULL, &p->rule[i]);
	json_end(&j, ']');
	json_begin(&j, "gone", '[');
	for (size_t i = 0; i < gone->n; i++)
		json_rule(&j, NULL, &gone->rule[i]);
	json_end(&j, ']');
	json_end(&j, '}');
}

/* The rules, one a line, as policy files hold them (and del takes their
 * paths). */
static void rules_print(const struct policy *p)
{
	for (size_t i = 0; i < p->n; i++) {
		char *line = rule_format(&p->rule[i]);

		puts(line);
		free(line);
	}
}

/* Read the kernel's rules; 0, or the exit code (reported). */
static int read_rules(struct dw *dw, struct policy *p)
{
	int rc = dw_open_active(dw);

	if (rc)
		return rc;
	return dw_read_rules(dw, p);
}

/* The rules gone with their filesystem, as comments after the rules. */
static void gone_print(const struct policy *gone)
{
	for (size_t i = 0; i < gone->n; i++) {
		char *line = rule_format(&gone->rule[i]);

		printf("# gone (its filesystem was unmounted): %s\n", line);
		free(line);
	}
}

static int cmd_list(struct dw *dw, const struct cli *c)
{
	struct policy p, gone;
	int rc = read_rules(dw, &p);

	if (rc)
		return rc;
	if (dw_read_gone(dw, &gone)) {
		policy_free(&p);
		return 1;
	}
	if (c->sources) {
		rc = list_sources(c, &p, &gone);
	} else if (c->json) {
		rules_json(&p, &gone);
	} else {
		rules_print(&p);
		gone_print(&gone);
	}
	policy_free(&gone);
	policy_free(&p);
	return rc;
}

/* A policy file: byte for byte what load reads back. */
static int cmd_save(struct dw *dw, const struct cli *c)
{
	struct policy p;
	int rc = read_rules(dw, &p);

	if (rc)
		return rc;
	if (c->json) {
		struct policy none;

		policy_init(&none);
		rules_json(&p, &none);
	} else {
		puts(SAVE_HEADER);
		rules_print(&p);
	}
	policy_free(&p);
	return 0;
}

static int cmd_clear(struct dw *dw, const struct cli *c)
{
	int err = dw_open_active(dw);

	if (err)
		return err;
	if (dw_need_mac_admin(c->name))
		return 1;
	err = dw_write(dw, "rules", "\n", 1);
	if (err)
		return fail("clear: %s", dw_write_error(err, "rules"));
	return 0;
}

/* "ARG" or "ARG (CANONICAL)" for messages. */
static const char *display(char *buf, size_t size, const char *arg,
			   const char *canon)
{
	if (strcmp(arg, canon) == 0)
		return esc(arg);
	snprintf(buf, size, "%s (%s)", esc(arg), esc(canon));
	return buf;
}

static int apply_and_report(struct dw *dw, const struct cli *c,
			    const struct change *ch)
{
	struct apply_result res;
	size_t n = (size_t)c->nargs;
	const char *why, *arg;

	if (!changes_apply(ch, n, dw_write_line, dw, &res))
		return 0;
	why = dw_write_error(res.err, ch[res.failed].file);
	arg = esc(c->args[res.failed]);
	if (res.failed == 0)
		return fail("%s: %s: %s", c->name, arg, why);
	if (!res.undo_err)
		return fail("%s: %s: %s (undid the %zu change(s) made before it)",
			    c->name, arg, why, res.failed);
	return fail("%s: %s: %s; undoing the %zu change(s) made before it "
		    "failed too (%s): see '" PROGRAM_NAME " list'", c->name,
		    arg, why, res.failed, strerror(res.undo_err));
}

static void changes_free(struct change *ch, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ch[i].line);
		free(ch[i].undo_line);
	}
	free(ch);
}

/* Whether an earlier change is for path (in its line or its undo_line). */
static bool named_before(const struct change *ch, size_t i, const char *path,
			 bool path_is_line)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(path_is_line ? ch[k].line : ch[k].undo_line,
			   path) == 0)
			return true;
	return false;
}

/* Fill ch[i] to add the rule for c->args[i]; 1 (reported) if invalid. */
static int plan_add(const struct cli *c, const struct policy *cur,
		    struct change *ch, size_t i)
{
	char buf[8 * PATH_MAX + 4], reason[256];
	struct rule r = { .scope = c->scope,
			  .ignore_writers = c->ignore_writers };
	const char *arg = c->args[i];
	int rc = 1;

	r.path = realpath(arg, NULL);
	if (!r.path)
		return fail("add: %s: %s", esc(arg), strerror(errno));
	ch[i].undo_line = path_escape(r.path);	/* del takes the path */
	if (rule_check_path(r.path, strlen(r.path), reason, sizeof(reason)))
		fail("add: %s: %s", esc(arg), reason);
	else if (policy_find(cur, r.path))
		fail("add: %s: a rule for this path is already present",
		     display(buf, sizeof(buf), arg, r.path));
	else if (named_before(ch, i, ch[i].undo_line, false))
		fail("add: %s: named more than once",
		     display(buf, sizeof(buf), arg, r.path));
	else
		rc = 0;
	if (!rc && rule_is_too_broad(&r))
		warn_too_broad(&r, NULL);
	ch[i].file = "add";
	ch[i].undo_file = "del";
	ch[i].line = rc ? NULL : rule_format(&r);
	free(r.path);
	return rc;
}

/*
 * The rule that del's operand names: as a path, the rule on the object
 * it resolves to; as list prints paths, the rule of the path it decodes
 * to (unesc).  NULL (reported) if neither names a rule, or if the two
 * name different rules: "/srv/a\040b" may be a directory of that name
 * and how list prints "/srv/a b".
 */
static const struct rule *find_del(const struct policy *cur, const char *arg)
{
	char *path = realpath(arg, NULL), *name = unesc(arg);
	const struct rule *as_path = path ? policy_find(cur, path) : NULL;
	const struct rule *as_listed = name ? policy_find(cur, name) : NULL;

	free(path);
	free(name);
	if (!as_path && !as_listed)
		fail("del: %s: not present in the policy", esc(arg));
	else if (as_path && as_listed && as_path != as_listed)
		fail("del: %s: ambiguous: as a path it names the rule for %s, "
		     "as list prints paths the rule for %s: give the path as "
		     "list prints it", esc(arg), esc(as_path->path),
		     esc(as_listed->path));
	else
		return as_path ? as_path : as_listed;
	return NULL;
}

/* Fill ch[i] to delete the rule for c->args[i]; 1 (reported) if invalid. */
static int plan_del(const struct cli *c, const struct policy *cur,
		    struct change *ch, size_t i)
{
	const char *arg = c->args[i];
	const struct rule *r = find_del(cur, arg);

	if (!r)
		return 1;
	ch[i].line = path_escape(r->path);
	if (named_before(ch, i, ch[i].line, true)) {
		char buf[8 * PATH_MAX + 4];

		return fail("del: %s: named more than once",
			    display(buf, sizeof(buf), arg, r->path));
	}
	ch[i].file = "del";
	ch[i].undo_file = "add";
	ch[i].undo_line = rule_format(r);
	return 0;
}

typedef int (*plan_fn)(const struct cli *c, const struct policy *cur,
		       struct change *ch, size_t i);

/* Check every operand first, then apply all changes or none. */
static int change_rules(struct dw *dw, const struct cli *c,
			plan_fn plan)
{
	size_t n = (size_t)c->nargs;
	struct change *ch;
	struct policy cur;
	int rc = dw_open_active(dw);

	if (rc)
		return rc;
	if (dw_need_mac_admin(c->name) || dw_read_rules(dw, &cur))
		return 1;
	rc = 1;
	ch = xcalloc(n, sizeof(*ch));
	for (size_t i = 0; i < n; i++)
		if (plan(c, &cur, ch, i))
			goto out;
	rc = apply_and_report(dw, c, ch);
	if (!rc && c->persist)
		rc = persist_changes(c, ch, n);
out:
	changes_free(ch, n);
	policy_free(&cur);
	return rc;
}

/* add and del change the kernel's rules, not the files load reads. */
static int runtime_note(const struct cli *c, int rc)
{
	if (rc == 0 && !c->quiet && !c->persist)
		fprintf(stderr, PROGRAM_NAME ": note: %s: a runtime change, lost "
			"at the next load or reload unless it is written to a "
			"file in " SYSCONF_RULES_DIR "/ (--persist does)\n",
			c->name);
	return rc;
}

static int cmd_add(struct dw *dw, const struct cli *c)
{
	return runtime_note(c, change_rules(dw, c, plan_add));
}

static int cmd_del(struct dw *dw, const struct cli *c)
{
	return runtime_note(c, change_rules(dw, c, plan_del));
}

/* Each command, by its enum command. */
typedef int (*command_fn)(struct dw *dw, const struct cli *c);

static const command_fn handlers[] = {
	[CMD_STATUS] = cmd_status,
	[CMD_MODE] = cmd_mode,
	[CMD_ADD] = cmd_add,
	[CMD_DEL] = cmd_del,
	[CMD_CLEAR] = cmd_clear,
	[CMD_LIST] = cmd_list,
	[CMD_LOAD] = cmd_load,
	[CMD_SAVE] = cmd_save,
	[CMD_WHY] = cmd_why,
	[CMD_STATS] = cmd_stats,
	[CMD_DIFF] = cmd_diff,
	[CMD_LOG] = cmd_log,
	[CMD_CAT_CONFIG] = cmd_cat_config,
};

int command_run(struct dw *dw, const struct cli *c)
{
	return handlers[c->cmd](dw, c);
}
