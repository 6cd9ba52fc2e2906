// SPDX-License-Identifier: GPL-2.0
/* Escaping for text output, and the hash index. */
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "sha256.h"
#include "util.h"

static const struct {
	const char *in;
	const char *out;
} escapes[] = {
	{ "/usr/lib/libc.so.6", "/usr/lib/libc.so.6" },
	{ "line\nforged", "line\\012forged" },
	{ "\t\r", "\\011\\015" },
	{ "\x1b[31mred\x1b[0m", "\\033[31mred\\033[0m" },
	{ "del\x7f", "del\\177" },
	{ "a\\nb", "a\\134nb" },		/* a backslash is not a newline */
	{ "a\\012b", "a\\134012b" },		/* nor an escape */
	{ "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },	/* UTF-8 */
	{ "latin1 \xe9", "latin1 \\351" },
	{ "c1 csi \xc2\x9b" "2J", "c1 csi \\302\\2332J" },	/* U+009B */
	{ "nbsp \xc2\xa0", "nbsp \xc2\xa0" },
	{ "cut \xe2\x82", "cut \\342\\202" },
	{ "rlo \xe2\x80\xae" "cod.exe", "rlo \\342\\200\\256cod.exe" },	/* U+202E */
	{ "\xef\xbb\xbf" "bom", "\\357\\273\\277bom" },		/* U+FEFF */
	{ "zw\xe2\x80\x8bsp", "zw\\342\\200\\213sp" },		/* U+200B */
	{ " lead and trail ", "\\040lead and trail\\040" },	/* trimmed */
	{ "/x/  ", "/x/ \\040" },
	{ " ", "\\040" },
	{ "", "" },
};

TEST(unesc_reverses_esc_and_takes_octal)
{
	static const char *const strings[] = {
		"/a\\b", "/\xff\t\n\r", "/\xe2\x80\xae", "/caf\xc3\xa9 x",
		"/\x1b[2J", "/trail ", " ", "/a\\040b", "/\x7f\xc2\x9b",
	};
	char *back;

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		back = unesc(esc(strings[i]));
		CHECK(back && strcmp(back, strings[i]) == 0, "case %zu: '%s'",
		      i, back ? esc(back) : "NULL");
		free(back);
	}
	back = unesc("/a\\134b\\011");
	CHECK(back && strcmp(back, "/a\\b\t") == 0, "octal: %s",
	      back ? esc(back) : "NULL");
	free(back);
	CHECK(!unesc("/a\\q") && !unesc("/a\\x1") && !unesc("/a\\000") &&
	      !unesc("/a\\n") && !unesc("/a\\xe9") && !unesc("/a\\400") &&
	      !unesc("/a\\01") && !unesc("/a\\"), "malformed escapes accepted");
	return 0;
}

TEST(esc_escapes_control_characters_and_invalid_utf8)
{
	for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++) {
		const char *got = esc(escapes[i].in);

		CHECK(strcmp(got, escapes[i].out) == 0, "case %zu: got '%s', "
		      "want '%s'", i, got, escapes[i].out);
	}
	return 0;
}

TEST(esc_results_stay_valid_for_several_calls)
{
	const char *a = esc("a\n"), *b = esc("b\t"), *c = esc("c");

	CHECK(!strcmp(a, "a\\012") && !strcmp(b, "b\\011") && !strcmp(c, "c"),
	      "got '%s' '%s' '%s'", a, b, c);
	return 0;
}

TEST(esc_keeps_more_than_8_results_valid_at_once)
{
	char in[20][16], want[20][16];
	const char *got[20];

	for (int i = 0; i < 20; i++) {
		snprintf(in[i], sizeof(in[i]), "field\n%d", i);
		snprintf(want[i], sizeof(want[i]), "field\\012%d", i);
		got[i] = esc(in[i]);
	}
	for (int i = 0; i < 20; i++)
		CHECK(strcmp(got[i], want[i]) == 0, "result %d of 20: got "
		      "'%.16s', want '%s'", i, got[i], want[i]);
	return 0;
}

TEST(esc_never_gives_two_strings_the_same_text)
{
	static const char *const pairs[][2] = {
		{ "\n", "\\012" },
		{ "\xe9", "\\351" },
		{ "\\", "\\134" },
		{ " ", "\\040" },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char a[64];

		snprintf(a, sizeof(a), "%s", esc(pairs[i][0]));
		CHECK(strcmp(a, esc(pairs[i][1])) != 0, "'%s' collides", a);
	}
	return 0;
}

struct items {
	uint64_t key[2000];
};

static bool item_eq(const void *ctx, size_t pos)
{
	const struct items *it = ((const void *const *)ctx)[0];
	const uint64_t *key = ((const void *const *)ctx)[1];

	return it->key[pos] == *key;
}

TEST(hash_index_finds_every_item_and_nothing_else)
{
	struct items *it = malloc(sizeof(*it));
	struct hindex h = { 0 };
	size_t n = sizeof(it->key) / sizeof(it->key[0]);
	long bad = -2;

	CHECK(it, "malloc");
	for (size_t i = 0; i < n; i++) {
		it->key[i] = i * 7919;
		/* a weak hash on purpose: many collisions */
		hindex_add(&h, it->key[i] % 97, i);
	}
	for (size_t i = 0; i < n + 10 && bad == -2; i++) {
		uint64_t key = i * 7919;
		const void *ctx[2] = { it, &key };
		long pos = hindex_find(&h, key % 97, item_eq, ctx);

		if (pos != (i < n ? (long)i : -1))
			bad = (long)i;
	}
	hindex_free(&h);
	free(it);
	CHECK(bad == -2, "item %ld not found, or found wrongly", bad);
	CHECK(hash_bytes("a", 1) != hash_bytes("b", 1), "hash");
	return 0;
}

TEST(sha256_matches_the_fips_180_vectors)
{
	static const struct {
		const char *in;
		const char *hex;
	} cases[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
		/* 55 and 56 bytes: the length fits in the last block or not */
		{ "0123456789012345678901234567890123456789012345678901234",
		  "f34d5a0f80c0cbf84c8c0b90218c22637abd199965249da736a20143c8c9c9d9" },
		{ "01234567890123456789012345678901234567890123456789012345",
		  "83aa034bda83e458a0dc9cbce0d4e354716aa0ff770ed37ac0ed2b292052e4af" },
	};
	char hex[SHA256_HEX_LEN + 1], *million;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sha256_hex(cases[i].in, strlen(cases[i].in), hex);
		CHECK(strcmp(hex, cases[i].hex) == 0, "case %zu: %s", i, hex);
	}
	million = malloc(1000000);
	if (!million)
		abort();
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, hex);
	free(million);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	return 0;
}

const struct test util_tests[] = {
	T(sha256_matches_the_fips_180_vectors),
	T(unesc_reverses_esc_and_takes_octal),
	T(esc_escapes_control_characters_and_invalid_utf8),
	T(esc_results_stay_valid_for_several_calls),
	T(esc_keeps_more_than_8_results_valid_at_once),
	T(esc_never_gives_two_strings_the_same_text),
	T(hash_index_finds_every_item_and_nothing_else),
	{ NULL, NULL },
};
