/* jsonget - a strict JSON validator that extracts values, for the guest's
 * shell tests (busybox has no jq).
 *
 *   jsonget [-l] [-t|-n] [PATH...]   < document
 *
 * Reads all of stdin and checks that it is exactly one JSON value as RFC
 * 8259 defines it, with optional white space around it: strings of valid
 * UTF-8 without raw control characters, only the escapes \" \\ \/ \b \f
 * \n \r \t and \uXXXX (surrogates only in pairs), numbers as the grammar
 * says (no leading zeros, no "+", no bare "."), the literals true, false
 * and null, and nothing after the value.  Stricter than the RFC: an
 * object with a key twice is refused, and nesting ends at 256 levels.
 * With -l, each line of the input (but a last empty one) is a document of
 * its own (JSON lines); an empty line is refused.
 *
 * Then, for each document, each PATH prints one line: "." is the whole
 * value, ".key" a member of an object, "[N]" an element of an array, in
 * any sequence (".rules[0].scope").  A string prints unescaped (a NUL in
 * it is refused: it could not be one line), any other value as its JSON
 * text as it was written.  -t prints the type instead (object, array,
 * string, number, true, false, null), -n the number of members, elements
 * or bytes of a string.
 *
 * Exit: 0; 1 not valid JSON (stderr says where and why); 2 usage; 3 a PATH
 * is not in the document (or a string with a NUL was to be printed).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH 256

enum type { J_OBJECT, J_ARRAY, J_STRING, J_NUMBER, J_TRUE, J_FALSE, J_NULL };
static const char *const type_names[] = { "object", "array", "string",
					  "number", "true", "false", "null" };

struct node {
	enum type type;
	size_t start, end;  /* its JSON text: doc[start..end) */
	char *key;          /* unescaped, if a member of an object */
	size_t key_len;
	char *str;          /* a string's value, unescaped */
	size_t str_len;
	struct node **kids; /* members or elements */
	size_t n, cap;
};

struct parser {
	const char *s;
	size_t len, pos;
	const char *err;
	size_t err_pos;
};

static bool fail(struct parser *p, const char *why)
{
	if (!p->err) {
		p->err = why;
		p->err_pos = p->pos;
	}
	return false;
}

static void *xmalloc(size_t n)
{
	void *v = malloc(n ? n : 1);

	if (!v) {
		fprintf(stderr, "jsonget: out of memory\n");
		exit(2);
	}
	return v;
}

static void ws(struct parser *p)
{
	while (p->pos < p->len && strchr(" \t\n\r", p->s[p->pos]) && p->s[p->pos])
		p->pos++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool hex4(struct parser *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int h = p->pos < p->len ? hexval(p->s[p->pos]) : -1;

		if (h < 0)
			return fail(p, "bad \\u escape");
		*v = *v << 4 | (unsigned)h;
		p->pos++;
	}
	return true;
}

static void put_utf8(char *out, size_t *o, unsigned c)
{
	if (c < 0x80) {
		out[(*o)++] = (char)c;
	} else if (c < 0x800) {
		out[(*o)++] = (char)(0xc0 | c >> 6);
		out[(*o)++] = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		out[(*o)++] = (char)(0xe0 | c >> 12);
		out[(*o)++] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[(*o)++] = (char)(0x80 | (c & 0x3f));
	} else {
		out[(*o)++] = (char)(0xf0 | c >> 18);
		out[(*o)++] = (char)(0x80 | ((c >> 12) & 0x3f));
		out[(*o)++] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[(*o)++] = (char)(0x80 | (c & 0x3f));
	}
}

/* One UTF-8 sequence at p->pos (its first byte >= 0x80), copied to out. */
static bool utf8(struct parser *p, char *out, size_t *o)
{
	const unsigned char *u = (const unsigned char *)p->s + p->pos;
	size_t left = p->len - p->pos, n;
	unsigned c;

	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2, c = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3, c = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4, c = u[0] & 0x07;
	else
		return fail(p, "invalid UTF-8");
	if (left < n)
		return fail(p, "truncated UTF-8");
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return fail(p, "invalid UTF-8");
		c = c << 6 | (u[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return fail(p, "overlong or invalid UTF-8");
	memcpy(out + *o, u, n);
	*o += n;
	p->pos += n;
	return true;
}

/* A string at p->pos (its opening quote): its value in *out. */
static bool string(struct parser *p, char **out, size_t *out_len)
{
	char *buf = xmalloc(p->len - p->pos + 1);
	size_t o = 0;
	unsigned c, lo;

	p->pos++;
	for (;;) {
		if (p->pos >= p->len) {
			free(buf);
			return fail(p, "unterminated string");
		}
		c = (unsigned char)p->s[p->pos];
		if (c == '"') {
			p->pos++;
			break;
		}
		if (c < 0x20) {
			free(buf);
			return fail(p, "control character in a string");
		}
		if (c >= 0x80) {
			if (!utf8(p, buf, &o)) {
				free(buf);
				return false;
			}
			continue;
		}
		p->pos++;
		if (c != '\\') {
			buf[o++] = (char)c;
			continue;
		}
		if (p->pos >= p->len) {
			free(buf);
			return fail(p, "unterminated escape");
		}
		c = (unsigned char)p->s[p->pos++];
		switch (c) {
		case '"': case '\\': case '/':
			buf[o++] = (char)c;
			break;
		case 'b': buf[o++] = '\b'; break;
		case 'f': buf[o++] = '\f'; break;
		case 'n': buf[o++] = '\n'; break;
		case 'r': buf[o++] = '\r'; break;
		case 't': buf[o++] = '\t'; break;
		case 'u':
			if (!hex4(p, &c)) {
				free(buf);
				return false;
			}
			if (c >= 0xdc00 && c <= 0xdfff) {
				free(buf);
				return fail(p, "lone low surrogate");
			}
			if (c >= 0xd800 && c <= 0xdbff) {
				if (p->pos + 1 >= p->len || p->s[p->pos] != '\\' ||
				    p->s[p->pos + 1] != 'u') {
					free(buf);
					return fail(p, "lone high surrogate");
				}
				p->pos += 2;
				if (!hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff) {
					free(buf);
					return fail(p, "bad surrogate pair");
				}
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			}
			put_utf8(buf, &o, c);
			break;
		default:
			p->pos--;
			free(buf);
			return fail(p, "unknown escape");
		}
	}
	buf[o] = '\0';
	*out = buf;
	*out_len = o;
	return true;
}

static bool digits(struct parser *p)
{
	size_t start = p->pos;

	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		p->pos++;
	return p->pos > start;
}

static bool number(struct parser *p)
{
	if (p->s[p->pos] == '-')
		p->pos++;
	if (p->pos < p->len && p->s[p->pos] == '0') {
		p->pos++;
		if (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			return fail(p, "leading zero in a number");
	} else if (!digits(p)) {
		return fail(p, "bad number");
	}
	if (p->pos < p->len && p->s[p->pos] == '.') {
		p->pos++;
		if (!digits(p))
			return fail(p, "no digits after the decimal point");
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (!digits(p))
			return fail(p, "no digits in the exponent");
	}
	return true;
}

static void add_kid(struct node *n, struct node *k)
{
	if (n->n == n->cap) {
		struct node **v;

		n->cap = n->cap ? 2 * n->cap : 4;
		v = realloc(n->kids, n->cap * sizeof(*v));
		if (!v) {
			fprintf(stderr, "jsonget: out of memory\n");
			exit(2);
		}
		n->kids = v;
	}
	n->kids[n->n++] = k;
}

static struct node *value(struct parser *p, int depth);

static bool literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return fail(p, "unexpected character");
	p->pos += n;
	return true;
}

static bool members(struct parser *p, struct node *n, int depth)
{
	bool object = n->type == J_OBJECT;
	char close = object ? '}' : ']';

	p->pos++;
	ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return true;
	}
	for (;;) {
		char *key = NULL;
		size_t key_len = 0;
		struct node *k;

		ws(p);
		if (object) {
			if (p->pos >= p->len || p->s[p->pos] != '"')
				return fail(p, "expected a string key");
			if (!string(p, &key, &key_len))
				return false;
			for (size_t i = 0; i < n->n; i++)
				if (n->kids[i]->key_len == key_len &&
				    !memcmp(n->kids[i]->key, key, key_len)) {
					free(key);
					return fail(p, "a key twice in one object");
				}
			ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(key);
				return fail(p, "expected ':'");
			}
			p->pos++;
		}
		k = value(p, depth + 1);
		if (!k) {
			free(key);
			return false;
		}
		k->key = key;
		k->key_len = key_len;
		add_kid(n, k);
		ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == close) {
			p->pos++;
			return true;
		}
		return fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static struct node *value(struct parser *p, int depth)
{
	struct node *n;
	bool ok;

	if (depth > MAX_DEPTH) {
		fail(p, "nested too deep");
		return NULL;
	}
	ws(p);
	if (p->pos >= p->len) {
		fail(p, "expected a value");
		return NULL;
	}
	n = xmalloc(sizeof(*n));
	memset(n, 0, sizeof(*n));
	n->start = p->pos;
	switch (p->s[p->pos]) {
	case '{': n->type = J_OBJECT; ok = members(p, n, depth); break;
	case '[': n->type = J_ARRAY; ok = members(p, n, depth); break;
	case '"': n->type = J_STRING; ok = string(p, &n->str, &n->str_len); break;
	case 't': n->type = J_TRUE; ok = literal(p, "true"); break;
	case 'f': n->type = J_FALSE; ok = literal(p, "false"); break;
	case 'n': n->type = J_NULL; ok = literal(p, "null"); break;
	default:
		n->type = J_NUMBER;
		ok = (p->s[p->pos] == '-' || (p->s[p->pos] >= '0' && p->s[p->pos] <= '9'))
			? number(p) : fail(p, "unexpected character");
	}
	if (!ok)
		return NULL; /* the tree is dropped with the process */
	n->end = p->pos;
	return n;
}

/* The node at path, or NULL. */
static const struct node *find(const struct node *n, const char *path)
{
	const char *p = path;

	if (*p == '.' && (!p[1] || p[1] == '.' || p[1] == '['))
		p++;
	while (n && *p) {
		if (*p == '.') {
			size_t len = strcspn(p + 1, ".[");
			const struct node *k = NULL;

			if (n->type != J_OBJECT || !len)
				return NULL;
			for (size_t i = 0; i < n->n && !k; i++)
				if (n->kids[i]->key_len == len &&
				    !memcmp(n->kids[i]->key, p + 1, len))
					k = n->kids[i];
			n = k;
			p += 1 + len;
		} else if (*p == '[') {
			char *end;
			unsigned long i = strtoul(p + 1, &end, 10);

			if (n->type != J_ARRAY || end == p + 1 || *end != ']' ||
			    i >= n->n)
				return NULL;
			n = n->kids[i];
			p = end + 1;
		} else {
			return NULL;
		}
	}
	return n;
}

static int usage(void)
{
	fprintf(stderr, "usage: jsonget [-l] [-t|-n] [PATH...] < document\n");
	return 2;
}

/* Validate one document and print its paths: 0, 1 or 3. */
static int document(const char *s, size_t len, size_t line, char what,
		    char **paths, int npaths)
{
	struct parser p = { s, len, 0, NULL, 0 };
	struct node *root = value(&p, 0);
	int rc = 0;

	if (root) {
		ws(&p);
		if (p.pos != len)
			fail(&p, "data after the value");
	}
	if (p.err) {
		if (line)
			fprintf(stderr, "jsonget: line %zu, ", line);
		else
			fprintf(stderr, "jsonget: ");
		fprintf(stderr, "byte %zu: %s\n", p.err_pos, p.err);
		return 1;
	}
	for (int i = 0; i < npaths; i++) {
		const struct node *n = find(root, paths[i]);

		if (!n) {
			fprintf(stderr, "jsonget: no %s in the document\n", paths[i]);
			rc = 3;
		} else if (what == 't') {
			printf("%s\n", type_names[n->type]);
		} else if (what == 'n') {
			printf("%zu\n", n->type == J_STRING ? n->str_len : n->n);
		} else if (n->type == J_STRING) {
			if (memchr(n->str, '\0', n->str_len)) {
				fprintf(stderr, "jsonget: %s has a NUL\n", paths[i]);
				rc = 3;
			} else {
				printf("%s\n", n->str);
			}
		} else {
			printf("%.*s\n", (int)(n->end - n->start), s + n->start);
		}
	}
	return rc;
}

int main(int argc, char **argv)
{
	bool lines = false;
	char what = 0, *buf = NULL;
	size_t len = 0, cap = 0;
	int c, rc = 0;

	while ((c = getopt(argc, argv, "ltn")) != -1) {
		if (c == 'l')
			lines = true;
		else if (c == 't' || c == 'n')
			what = (char)c;
		else
			return usage();
	}
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "jsonget: out of memory\n");
				return 2;
			}
		}
		n = fread(buf + len, 1, cap - len, stdin);
		len += n;
		if (!n)
			break;
	}
	if (ferror(stdin)) {
		perror("jsonget: stdin");
		return 2;
	}
	if (!lines)
		return document(buf, len, 0, what, argv + optind, argc - optind);
	if (!len) {
		fprintf(stderr, "jsonget: no line\n");
		return 1;
	}
	for (size_t at = 0, line = 1; at < len; line++) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - buf) : len;
		int r = document(buf + at, end - at, line, what, argv + optind,
				 argc - optind);

		if (r == 1)
			return 1;
		if (r)
			rc = r;
		at = end + 1;
	}
	return rc;
}
