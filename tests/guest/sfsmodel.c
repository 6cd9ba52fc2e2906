/* sfsmodel.c - the fuzzer's model of the denywrite securityfs files (see
 * sfsmodel.h).  Written from the documented interface:
 *
 * - every write: one write(2) at offset 0; a write of nothing changes
 *   nothing (query: the empty path is ENOENT); more than the file takes is
 *   E2BIG (rules 65536 bytes, add a rule line of 4 * 4096 + 32, del an
 *   escaped path of 4 * 4096, query 4096; mode EINVAL past 16); a NUL
 *   anywhere is EINVAL; one trailing newline is ignored;
 * - a rule: "SCOPE[,ignore-writers] PATH", SCOPE exec, lib or all, one run
 *   of blanks (spaces, tabs), PATH absolute, without control characters,
 *   not ending in a blank, a backslash always starting an escape of three
 *   octal digits (a byte from 1 to 255), and once unescaped shorter than
 *   4096 bytes (else ENAMETOOLONG); any other error of the syntax EINVAL;
 * - PATH is looked up as root, following symlinks: ENOENT, ENOTDIR, ELOOP
 *   (past 40 links), ENAMETOOLONG (a name of more than 255 bytes, a path
 *   of 4096 or more); the rule is on the object found and is named by its
 *   absolute path; "/" is the root rule, which covers everything;
 * - rules: blank lines (only blanks) are skipped and do not count; more
 *   than 1024 rules is E2BIG before anything is looked up; the lines are
 *   parsed and looked up in order, the first error is the answer; two
 *   rules of one object or of one name are EINVAL; the rules read back in
 *   the order given;
 * - add: one rule appended; EEXIST if a rule is on its object or has its
 *   name; E2BIG past 1024 rules;
 * - del: PATH unescaped (a bad escape is EINVAL); the rule on the object
 *   it resolves to (an absolute PATH that resolves), else the rule whose
 *   name it is; ENOENT if none;
 * - the rules file prints "SCOPE[,ignore-writers] NAME\n", NAME with its
 *   control characters, backslashes and a last space as \ooo;
 * - query: the path as written (no escapes), looked up (the empty path:
 *   ENOENT, as for open(2)); the answer
 *   "protected P\nholders H\nwriters W\nexec-rule R\nlib-rule R\n", each
 *   R the rule that covers the object for that scope (the rule on the
 *   nearest of the object and its parents, in the filesystem and then
 *   across the mounts, whose scope includes it; else the root rule if its
 *   scope does; else "-"), as the rules file prints it; P, H, W are 0 for
 *   what nobody runs, maps or writes (root may inspect everything);
 * - mode: exactly off, audit or enforce.
 *
 * The tree under TD: sfstest makes lib, a, b, root, pr, file and the
 * symlinks link -> a, liblink -> lib, loop -> loop; model_tree_make() adds
 * a hard link of file, mv/sub (renamed to mv2 and back), abs -> TD/b,
 * up -> .., directories whose names need escapes, and many/0000 to
 * many/1024.  Objects outside TD are their absolute paths (no hard links
 * or bind mounts there are modelled: the fuzzer's paths meet none).
 */
#include "sfsmodel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MODEL_PATH_MAX 4096
#define MODEL_NAME_LEN 255
#define MODEL_LINKS 40
#define RULES_MAX_BYTES 65536
#define ADD_MAX_BYTES (4 * 4096 + 32)
#define DEL_MAX_BYTES (4 * 4096)
#define QUERY_MAX_BYTES 4096
#define MODE_MAX_BYTES 16
#define MANY_DIRS 1025
#define BUF (4 * MODEL_PATH_MAX)

/* ---- the tree ------------------------------------------------------------ */

enum vkind { V_DIR, V_FILE, V_LINK };

struct vnode {
	char name[16];
	int parent;         /* -1 for TD itself */
	enum vkind kind;
	const char *target; /* V_LINK */
	int obj;            /* nodes of one object (hard links) share it */
	bool fuzzer_made;   /* made by model_tree_make() */
};

static struct vnode vt[64 + MANY_DIRS];
static int nv;
static int mv_node; /* TD/mv, or TD/mv2 once renamed */

static int vadd(const char *name, int parent, enum vkind kind,
		const char *target, int obj, bool mine)
{
	struct vnode *v = &vt[nv];

	snprintf(v->name, sizeof(v->name), "%s", name);
	v->parent = parent;
	v->kind = kind;
	v->target = target;
	v->obj = obj < 0 ? nv : obj;
	v->fuzzer_made = mine;
	return nv++;
}

static void vtree_init(void)
{
	int file;

	if (nv)
		return;
	vadd("", -1, V_DIR, NULL, -1, false);	/* TD */
	vadd("lib", 0, V_DIR, NULL, -1, false);
	vadd("a", 0, V_DIR, NULL, -1, false);
	vadd("b", 0, V_DIR, NULL, -1, false);
	vadd("root", 0, V_DIR, NULL, -1, false);
	vadd("pr", 0, V_DIR, NULL, -1, false);
	file = vadd("file", 0, V_FILE, NULL, -1, false);
	vadd("link", 0, V_LINK, "a", -1, false);
	vadd("liblink", 0, V_LINK, "lib", -1, false);
	vadd("loop", 0, V_LINK, "loop", -1, false);
	vadd("hard", 0, V_FILE, NULL, vt[file].obj, true);
	mv_node = vadd("mv", 0, V_DIR, NULL, -1, true);
	vadd("sub", mv_node, V_DIR, NULL, -1, true);
	vadd("abs", 0, V_LINK, TD "/b", -1, true);
	vadd("up", 0, V_LINK, "..", -1, true);
	vadd("t\tb", 0, V_DIR, NULL, -1, true);
	vadd("b\\s", 0, V_DIR, NULL, -1, true);
	vadd("sp ", 0, V_DIR, NULL, -1, true);
	vadd("\303\251", 0, V_DIR, NULL, -1, true);
	vadd("nl\nx", 0, V_DIR, NULL, -1, true);
	int many = vadd("many", 0, V_DIR, NULL, -1, true);

	for (int i = 0; i < MANY_DIRS; i++) {
		char name[8];

		snprintf(name, sizeof(name), "%04d", i);
		vadd(name, many, V_DIR, NULL, -1, true);
	}
}

/* The path of node i. */
static void vpath(int i, char *out, size_t size)
{
	char tmp[256];

	if (vt[i].parent < 0) {
		snprintf(out, size, "%s", TD);
		return;
	}
	vpath(vt[i].parent, tmp, sizeof(tmp));
	snprintf(out, size, "%.200s/%.16s", tmp, vt[i].name);
}

static int vchild(int parent, const char *name)
{
	for (int i = 1; i < nv; i++)
		if (vt[i].parent == parent && !strcmp(vt[i].name, name))
			return i;
	return -1;
}

/* The node at an absolute path TD or TD/..., or -1. */
static int vfind(const char *path)
{
	char comp[BUF];
	const char *p = path + strlen(TD);
	int cur = 0;

	while (*p == '/') {
		size_t n = strcspn(p + 1, "/");

		if (n >= sizeof(comp))
			return -1;
		memcpy(comp, p + 1, n);
		comp[n] = '\0';
		cur = vchild(cur, comp);
		if (cur < 0)
			return -1;
		p += 1 + n;
	}
	return *p ? -1 : cur;
}

static bool in_tree(const char *path)
{
	size_t n = strlen(TD);

	return !strncmp(path, TD, n) && (path[n] == '\0' || path[n] == '/');
}

/* What is at the absolute path: its kind, symlink target and object key;
 * 0 or an errno (ENOENT). */
static int kind_of(const char *path, enum vkind *kind, char *target,
		   size_t tsize, char *obj, size_t osize)
{
	struct stat st;
	ssize_t n;

	if (in_tree(path)) {
		int v = vfind(path);

		if (v < 0)
			return ENOENT;
		*kind = vt[v].kind;
		if (vt[v].kind == V_LINK)
			snprintf(target, tsize, "%s", vt[v].target);
		snprintf(obj, osize, "#%d", vt[v].obj);
		return 0;
	}
	if (lstat(path, &st))
		return errno;
	*kind = S_ISDIR(st.st_mode) ? V_DIR : S_ISLNK(st.st_mode) ? V_LINK : V_FILE;
	if (*kind == V_LINK) {
		n = readlink(path, target, tsize - 1);
		if (n < 0)
			return errno;
		target[n] = '\0';
	}
	snprintf(obj, osize, "%s", path);
	return 0;
}

int model_tree_make(char *why, size_t whylen)
{
	char path[BUF], file[BUF];

	vtree_init();
	for (int i = 0; i < nv; i++) {
		if (!vt[i].fuzzer_made)
			continue;
		vpath(i, path, sizeof(path));
		if (vt[i].kind == V_DIR && mkdir(path, 0755) && errno != EEXIST) {
			snprintf(why, whylen, "mkdir %s: %s", escaped(path, strlen(path)),
				 errname(errno));
			return -1;
		}
		if (vt[i].kind == V_LINK && symlink(vt[i].target, path)) {
			snprintf(why, whylen, "symlink %s: %s", path, errname(errno));
			return -1;
		}
		if (vt[i].kind == V_FILE) {
			for (int k = 0; k < nv; k++)
				if (k != i && vt[k].obj == vt[i].obj)
					vpath(k, file, sizeof(file));
			if (link(file, path)) {
				snprintf(why, whylen, "link %s: %s", path, errname(errno));
				return -1;
			}
		}
	}
	return model_tree_check(why, whylen);
}

/* Every node of the model is there, as the model says. */
int model_tree_check(char *why, size_t whylen)
{
	char path[BUF], target[BUF];
	struct stat st, first[64 + MANY_DIRS];
	bool seen[64 + MANY_DIRS] = { false };

	for (int i = 0; i < nv; i++) {
		vpath(i, path, sizeof(path));
		if (lstat(path, &st)) {
			snprintf(why, whylen, "%s: %s", escaped(path, strlen(path)),
				 errname(errno));
			return -1;
		}
		if ((vt[i].kind == V_DIR && !S_ISDIR(st.st_mode)) ||
		    (vt[i].kind == V_FILE && !S_ISREG(st.st_mode)) ||
		    (vt[i].kind == V_LINK && !S_ISLNK(st.st_mode))) {
			snprintf(why, whylen, "%s is not what the model says", path);
			return -1;
		}
		if (vt[i].kind == V_LINK) {
			ssize_t n = readlink(path, target, sizeof(target) - 1);

			if (n < 0 || (target[n] = '\0', strcmp(target, vt[i].target))) {
				snprintf(why, whylen, "%s does not point to %s", path,
					 vt[i].target);
				return -1;
			}
		}
		/* one object, one inode */
		if (seen[vt[i].obj] && first[vt[i].obj].st_ino != st.st_ino) {
			snprintf(why, whylen, "%s is not the same inode as its other name",
				 path);
			return -1;
		}
		if (!seen[vt[i].obj]) {
			seen[vt[i].obj] = true;
			first[vt[i].obj] = st;
		}
	}
	return 0;
}

void model_tree_remove(void)
{
	char path[BUF];

	/* children first: the many directories, sub, then the rest */
	for (int i = nv - 1; i > 0; i--) {
		if (!vt[i].fuzzer_made)
			continue;
		vpath(i, path, sizeof(path));
		if (vt[i].kind == V_DIR)
			rmdir(path);
		else
			unlink(path);
	}
	if (nv)
		snprintf(vt[mv_node].name, sizeof(vt[mv_node].name), "mv");
}

int model_rename(char *why, size_t whylen)
{
	char from[BUF], to[BUF];
	const char *next = strcmp(vt[mv_node].name, "mv") ? "mv" : "mv2";

	vpath(mv_node, from, sizeof(from));
	snprintf(to, sizeof(to), "%s/%s", TD, next);
	if (rename(from, to)) {
		snprintf(why, whylen, "rename %s %s: %s", from, to, errname(errno));
		return -1;
	}
	snprintf(vt[mv_node].name, sizeof(vt[mv_node].name), "%s", next);
	return 0;
}

/* ---- looking a path up --------------------------------------------------- */

static void parent_of(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash == path)
		path[1] = '\0';
	else if (slash)
		*slash = '\0';
}

struct found {
	char name[BUF];  /* the object's absolute path */
	char obj[BUF];   /* its key */
	enum vkind kind;
};

/* Look path up as root from "/" (the fuzzer's cwd), following every
 * symlink: 0 or an errno. */
static int resolve(const char *path, struct found *f)
{
	static char rest[BUF * 2], tmp[BUF * 2];
	char cur[BUF], comp[BUF], child[BUF * 2], target[BUF];
	int links = 0, err;
	enum vkind kind;

	if (!*path)
		return ENOENT;
	if (strlen(path) >= MODEL_PATH_MAX)
		return ENAMETOOLONG;
	snprintf(cur, sizeof(cur), "/");
	snprintf(rest, sizeof(rest), "%s", path);
	for (;;) {
		const char *r = rest + strspn(rest, "/"), *after;
		size_t n = strcspn(r, "/");
		bool last, slash;

		if (!*r)
			break;
		after = r + n;
		last = after[strspn(after, "/")] == '\0';
		slash = last && *after == '/';
		if (n > MODEL_NAME_LEN) /* before the lookup: it would fail so */
			return ENAMETOOLONG;
		memcpy(comp, r, n);
		comp[n] = '\0';
		if (!strcmp(comp, ".") || !strcmp(comp, "..")) {
			if (comp[1])
				parent_of(cur);
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		snprintf(child, sizeof(child), "%s%s%s", cur,
			 strcmp(cur, "/") ? "/" : "", comp);
		err = kind_of(child, &kind, target, sizeof(target), f->obj,
			      sizeof(f->obj));
		if (err)
			return err;
		if (kind == V_LINK) {
			if (++links > MODEL_LINKS)
				return ELOOP;
			if (target[0] == '/')
				snprintf(cur, sizeof(cur), "/");
			snprintf(tmp, sizeof(tmp), "%s%s", target, after);
			snprintf(rest, sizeof(rest), "%s", tmp);
			continue;
		}
		if (kind == V_FILE && (!last || slash))
			return ENOTDIR;
		if (strlen(child) >= sizeof(cur))
			return ENAMETOOLONG;
		memcpy(cur, child, strlen(child) + 1);
		memmove(rest, after, strlen(after) + 1);
	}
	snprintf(f->name, sizeof(f->name), "%s", cur);
	err = kind_of(cur, &f->kind, target, sizeof(target), f->obj,
		      sizeof(f->obj));
	return err;
}

/* ---- rules --------------------------------------------------------------- */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static bool octal(char c)
{
	return c >= '0' && c <= '7';
}

/* Unescape s[len] into out (NUL-terminated): 0 or EINVAL. */
static int unescape(const char *s, size_t len, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned v;

		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		if (i + 3 >= len || !octal(s[i + 1]) || !octal(s[i + 2]) ||
		    !octal(s[i + 3]))
			return EINVAL;
		v = (unsigned)(s[i + 1] - '0') << 6 | (unsigned)(s[i + 2] - '0') << 3 |
		    (unsigned)(s[i + 3] - '0');
		if (v == 0 || v > 255)
			return EINVAL;
		out[o++] = (char)v;
		i += 3;
	}
	out[o] = '\0';
	return 0;
}

/* Parse "SCOPE[,ignore-writers] PATH" (line[len], no NUL, no newline
 * that counts: a newline inside is a control character): 0, EINVAL or
 * ENAMETOOLONG; the unescaped PATH in path. */
static int parse_line(const char *line, size_t len, struct mrule *r, char *path)
{
	static const struct {
		const char *word;
		unsigned char scope;
	} scopes[] = { { "exec", MS_EXEC }, { "lib", MS_LIB }, { "all", MS_EXEC | MS_LIB } };
	static const char opt[] = ",ignore-writers";
	size_t w = 0, p, i;

	while (w < len && !blank(line[w]))
		w++;
	if (w == len)
		return EINVAL;
	r->scope = 0;
	for (i = 0; i < ARRAY_SIZE(scopes); i++) {
		size_t n = strlen(scopes[i].word);

		if (strncmp(line, scopes[i].word, n) || n > w)
			continue;
		if (w == n) {
			r->ignore_writers = false;
		} else if (w == n + strlen(opt) && !memcmp(line + n, opt, strlen(opt))) {
			r->ignore_writers = true;
		} else {
			continue;
		}
		r->scope = scopes[i].scope;
		break;
	}
	if (!r->scope)
		return EINVAL;
	for (p = w; p < len && blank(line[p]); p++)
		;
	if (p == len || line[p] != '/' || blank(line[len - 1]))
		return EINVAL;
	for (i = p; i < len; i++)
		if (control((unsigned char)line[i]))
			return EINVAL;
	if (unescape(line + p, len - p, path))
		return EINVAL;
	if (strlen(path) >= MODEL_PATH_MAX)
		return ENAMETOOLONG;
	return 0;
}

/* Parse and look up one rule line into r (name, obj set): 0 or errno. */
static int make_rule(const char *line, size_t len, struct mrule *r)
{
	static char path[RULES_MAX_BYTES + 1];
	static struct found f;
	int err = parse_line(line, len, r, path);

	if (!err)
		err = resolve(path, &f);
	if (err)
		return err;
	r->name = strdup(f.name);
	r->obj = strcmp(f.name, "/") ? strdup(f.obj) : NULL;
	return 0;
}

static void rule_free(struct mrule *r)
{
	free(r->name);
	free(r->obj);
	r->name = r->obj = NULL;
}

/* The rule as the rules file prints it, appended to out[*len]. */
static void print_rule(const struct mrule *r, char *out, size_t *len)
{
	static const char *const names[] = { "", "exec", "lib", "all" };
	size_t o = *len;

	o += (size_t)sprintf(out + o, "%s%s ", names[r->scope],
			     r->ignore_writers ? ",ignore-writers" : "");
	for (const char *s = r->name; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (control(c) || c == '\\' || (c == ' ' && !s[1]))
			o += (size_t)sprintf(out + o, "\\%03o", c);
		else
			out[o++] = (char)c;
	}
	out[o++] = '\n';
	out[o] = '\0';
	*len = o;
}

char *model_rules_text(const struct model *m, size_t *len)
{
	size_t cap = 64, o = 0;
	char *out;

	for (size_t i = 0; i < m->n; i++)
		cap += 4 * strlen(m->rules[i].name) + 32;
	out = malloc(cap);
	out[0] = '\0';
	for (size_t i = 0; i < m->n; i++)
		print_rule(&m->rules[i], out, &o);
	*len = o;
	return out;
}

/* Rule a and b clash: one object (the root rule: one name) or one name. */
static bool clash(const struct mrule *a, const struct mrule *b)
{
	return !strcmp(a->name, b->name) ||
	       (a->obj && b->obj && !strcmp(a->obj, b->obj));
}

/* ---- the files ----------------------------------------------------------- */

static int model_rules(struct model *m, const char *d, size_t len)
{
	static struct mrule next[MODEL_MAX_RULES];
	size_t n = 0, lines = 0;
	int err = 0;

	for (size_t at = 0; at <= len;) {
		const char *nl = memchr(d + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - d) : len, k = at;

		while (k < end && blank(d[k]))
			k++;
		lines += k < end;
		at = end + 1;
	}
	if (lines > MODEL_MAX_RULES)
		return E2BIG;
	for (size_t at = 0; at <= len && !err;) {
		const char *nl = memchr(d + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - d) : len, k = at;

		while (k < end && blank(d[k]))
			k++;
		if (k < end && !(err = make_rule(d + at, end - at, &next[n])))
			n++;
		at = end + 1;
	}
	for (size_t i = 0; i < n && !err; i++)
		for (size_t j = 0; j < i && !err; j++)
			if (clash(&next[i], &next[j]))
				err = EINVAL;
	if (err) {
		for (size_t i = 0; i < n; i++)
			rule_free(&next[i]);
		return err;
	}
	for (size_t i = 0; i < m->n; i++)
		rule_free(&m->rules[i]);
	memcpy(m->rules, next, n * sizeof(next[0]));
	m->n = n;
	return 0;
}

static int model_add(struct model *m, const char *d, size_t len)
{
	struct mrule r = { 0 };
	int err = make_rule(d, len, &r);

	if (err)
		return err;
	if (m->n + 1 > MODEL_MAX_RULES)
		err = E2BIG;
	for (size_t i = 0; i < m->n && !err; i++)
		if (clash(&m->rules[i], &r))
			err = EEXIST;
	if (err) {
		rule_free(&r);
		return err;
	}
	m->rules[m->n++] = r;
	return 0;
}

static int model_del(struct model *m, const char *d, size_t len)
{
	static char text[BUF * 2];
	static struct found f;
	size_t victim = m->n;

	if (unescape(d, len, text))
		return EINVAL;
	if (text[0] == '/' && !resolve(text, &f)) {
		bool root = !strcmp(f.name, "/");

		for (size_t i = 0; i < m->n && victim == m->n; i++)
			if (root ? !m->rules[i].obj :
			    m->rules[i].obj && !strcmp(m->rules[i].obj, f.obj))
				victim = i;
	}
	for (size_t i = 0; i < m->n && victim == m->n; i++)
		if (!strcmp(m->rules[i].name, text))
			victim = i;
	if (victim == m->n)
		return ENOENT;
	rule_free(&m->rules[victim]);
	memmove(&m->rules[victim], &m->rules[victim + 1],
		(m->n - victim - 1) * sizeof(m->rules[0]));
	m->n--;
	return 0;
}

/* The rule that covers the object named name for scope, or NULL. */
static const struct mrule *covering(const struct model *m, const char *name,
				    unsigned char scope)
{
	char p[BUF], target[BUF], obj[BUF];
	enum vkind kind;

	snprintf(p, sizeof(p), "%s", name);
	while (strcmp(p, "/")) {
		if (!kind_of(p, &kind, target, sizeof(target), obj, sizeof(obj)))
			for (size_t i = 0; i < m->n; i++)
				if (m->rules[i].obj && !strcmp(m->rules[i].obj, obj))
					/* one rule an object: its scope or none */
					if (m->rules[i].scope & scope)
						return &m->rules[i];
		parent_of(p);
	}
	for (size_t i = 0; i < m->n; i++)
		if (!m->rules[i].obj && (m->rules[i].scope & scope))
			return &m->rules[i];
	return NULL;
}

static int model_query(const struct model *m, const char *d, size_t len,
		       struct prediction *p)
{
	static char path[BUF];
	static struct found f;
	size_t o;
	int err;

	memcpy(path, d, len);
	path[len] = '\0';
	if (!len)
		return ENOENT;
	err = resolve(path, &f);
	if (err)
		return err;
	p->counts_known = in_tree(f.name) || f.kind == V_DIR;
	p->answer = malloc(2 * BUF + 128);
	o = (size_t)sprintf(p->answer, "protected 0\nholders 0\nwriters 0\n");
	for (int i = 0; i < 2; i++) {
		const struct mrule *r = covering(m, f.name, i ? MS_LIB : MS_EXEC);

		o += (size_t)sprintf(p->answer + o, "%s-rule ", i ? "lib" : "exec");
		if (r)
			print_rule(r, p->answer, &o);
		else
			o += (size_t)sprintf(p->answer + o, "-\n");
	}
	p->answer_len = o;
	return 0;
}

static int model_mode(struct model *m, const char *d, size_t len)
{
	static const char *const modes[] = { "off", "audit", "enforce" };

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (len == strlen(modes[i]) && !memcmp(d, modes[i], len)) {
			snprintf(m->mode, sizeof(m->mode), "%s", modes[i]);
			return 0;
		}
	return EINVAL;
}

void model_write(struct model *m, enum tid t, const char *data, size_t len,
		 struct prediction *p)
{
	static const size_t max[T_COUNT] = {
		[T_RULES] = RULES_MAX_BYTES, [T_ADD] = ADD_MAX_BYTES,
		[T_DEL] = DEL_MAX_BYTES, [T_MODE] = MODE_MAX_BYTES,
		[T_QUERY] = QUERY_MAX_BYTES,
	};

	memset(p, 0, sizeof(*p));
	if (!len && t != T_QUERY)
		p->err = 0;
	else if (len > max[t])
		p->err = t == T_MODE ? EINVAL : E2BIG;
	else if (memchr(data, '\0', len))
		p->err = EINVAL;
	else {
		size_t n = len && data[len - 1] == '\n' ? len - 1 : len;

		switch (t) {
		case T_RULES: p->err = model_rules(m, data, n); break;
		case T_ADD: p->err = model_add(m, data, n); break;
		case T_DEL: p->err = model_del(m, data, n); break;
		case T_MODE: p->err = model_mode(m, data, n); break;
		default: p->err = model_query(m, data, n, p); break;
		}
	}
	p->rules = model_rules_text(m, &p->rules_len);
	snprintf(p->mode, sizeof(p->mode), "%s\n", m->mode);
}

void prediction_free(struct prediction *p)
{
	free(p->rules);
	free(p->answer);
	p->rules = p->answer = NULL;
}

int model_reset(struct model *m, const char *rules, const char *mode)
{
	struct prediction p;

	vtree_init();
	model_write(m, T_MODE, mode, strlen(mode), &p);
	prediction_free(&p);
	model_write(m, T_RULES, rules, strlen(rules), &p);
	prediction_free(&p);
	return p.err;
}
