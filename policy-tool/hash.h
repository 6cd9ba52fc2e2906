/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index from a 64-bit hash to the positions of items in the caller's
 * array (open addressing, grows at half full), so that finding a
 * duplicate among n rules costs O(1) and a whole policy O(n).
 */
#ifndef DENYWRITECTL_HASH_H
#define DENYWRITECTL_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hindex {
	struct hslot {
		uint64_t hash;
		size_t pos1;	/* position + 1; 0 for a free slot */
	} *slot;
	size_t cap;		/* 0 or a power of two */
	size_t n;
};

/* FNV-1a of n bytes. */
uint64_t hash_bytes(const void *p, size_t n);

/* Whether the item at pos is the one looked for. */
typedef bool (*hindex_eq)(const void *ctx, size_t pos);

/* The position of an item with this hash for which eq holds, or -1. */
long hindex_find(const struct hindex *h, uint64_t hash, hindex_eq eq,
		 const void *ctx);
void hindex_add(struct hindex *h, uint64_t hash, size_t pos);
void hindex_free(struct hindex *h);

#endif
