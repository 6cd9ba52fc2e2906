/* sfsmodel.h - the fuzzer's own model of the denywrite securityfs files
 * (sfsmodel.c): what a write to mode, rules, add, del or query must do,
 * worked out from the interface's documentation (securityfs.c, "DOC:
 * securityfs interface"; README.md, "The policy"), never from the
 * kernel's code.  It knows the objects of the fuzzer's tree itself; what
 * lies outside the tree it looks up one component at a time with lstat()
 * and readlink(), and does the walk (dots, symlinks, limits) itself. */
#ifndef SFSMODEL_H
#define SFSMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "sfs.h"

/* The files the fuzzer writes. */
enum tid { T_RULES, T_ADD, T_DEL, T_MODE, T_QUERY, T_COUNT };

#define MODEL_MAX_RULES 1024
#define MODEL_NAME_MAX 4096 /* a rule's name, unescaped, is shorter */

struct mrule {
	unsigned char scope;  /* MS_EXEC | MS_LIB */
	bool ignore_writers;
	char *name;           /* unescaped absolute name */
	char *obj;            /* the object's key; NULL for the root rule */
};
#define MS_EXEC 1
#define MS_LIB 2

struct model {
	struct mrule rules[MODEL_MAX_RULES];
	size_t n;
	char mode[16];        /* "enforce" */
};

/* What the model says a write does. */
struct prediction {
	int err;              /* 0: accepted */
	char *rules;          /* the rules file after it (malloc'ed) */
	size_t rules_len;
	char mode[24];        /* the mode file after it: "audit\n" */
	char *answer;         /* query: the answer read back (malloc'ed) */
	size_t answer_len;
	/* query: the answer's first three lines (protected, holders,
	 * writers) are known only for the tree's files and directories:
	 * else only their form is checked */
	bool counts_known;
};

/* The tree under TD the fuzzer makes (and model_tree_check() checks):
 * 0 or -1 with why set. */
int model_tree_make(char *why, size_t whylen);
int model_tree_check(char *why, size_t whylen);
void model_tree_remove(void);
/* Rename TD/mv to TD/mv2 or back (both in the tree and in the model). */
int model_rename(char *why, size_t whylen);

/* Start from the model of this policy text (which must be accepted) and
 * mode ("enforce"). */
int model_reset(struct model *m, const char *rules, const char *mode);
/* Predict a write of data[len] to file t (one write(2) at offset 0 on a
 * fresh descriptor, as root, cwd "/"), and apply it to the model. */
void model_write(struct model *m, enum tid t, const char *data, size_t len,
		 struct prediction *p);
void prediction_free(struct prediction *p);
/* The rules file of the model now (malloc'ed). */
char *model_rules_text(const struct model *m, size_t *len);

#endif
