// SPDX-License-Identifier: GPL-2.0
#include "hash.h"
#include "util.h"

#include <stdlib.h>

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h;
}

long hindex_find(const struct hindex *h, uint64_t hash, hindex_eq eq,
		 const void *ctx)
{
	if (!h->cap)
		return -1;
	for (size_t i = hash & (h->cap - 1); h->slot[i].pos1;
	     i = (i + 1) & (h->cap - 1))
		if (h->slot[i].hash == hash && eq(ctx, h->slot[i].pos1 - 1))
			return (long)(h->slot[i].pos1 - 1);
	return -1;
}

static void put(struct hindex *h, uint64_t hash, size_t pos1)
{
	size_t i = hash & (h->cap - 1);

	while (h->slot[i].pos1)
		i = (i + 1) & (h->cap - 1);
	h->slot[i].hash = hash;
	h->slot[i].pos1 = pos1;
}

void hindex_add(struct hindex *h, uint64_t hash, size_t pos)
{
	if (2 * (h->n + 1) > h->cap) {
		struct hindex old = *h;

		h->cap = old.cap ? 2 * old.cap : 64;
		h->slot = xcalloc(h->cap, sizeof(*h->slot));
		for (size_t i = 0; i < old.cap; i++)
			if (old.slot[i].pos1)
				put(h, old.slot[i].hash, old.slot[i].pos1);
		free(old.slot);
	}
	put(h, hash, pos + 1);
	h->n++;
}

void hindex_free(struct hindex *h)
{
	free(h->slot);
	h->slot = NULL;
	h->cap = 0;
	h->n = 0;
}
