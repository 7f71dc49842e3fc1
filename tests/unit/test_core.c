// SPDX-License-Identifier: Apache-2.0
/*
 * test_core.c - bounded reader, buffers, codecs, digests, errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/digest.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/rd.h"

static void rd_no_advance_on_failure(void **state)
{
	const uint8_t in[] = {1, 2, 3};
	struct att_rd r;
	uint32_t v;
	uint16_t s;

	(void)state;
	att_rd_init(&r, in, sizeof(in));
	assert_int_equal(att_rd_u32le(&r, &v), ATT_E_TRUNCATED);
	assert_int_equal(r.off, 0);
	assert_int_equal(att_rd_u16be(&r, &s), ATT_OK);
	assert_int_equal(s, 0x0102);
	assert_int_equal(att_rd_u16le(&r, &s), ATT_E_TRUNCATED);
	assert_int_equal(r.off, 2);
	assert_int_equal(att_rd_end(&r), ATT_E_TRAILING);
	assert_int_equal(att_rd_skip(&r, 1), ATT_OK);
	assert_int_equal(att_rd_end(&r), ATT_OK);
}

static void rd_lv32_caps_and_overflow(void **state)
{
	/* length 0xffffffff must not wrap any offset computation */
	const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 'a'};
	const uint8_t ok[] = {2, 0, 0, 0, 'h', 'i', 'x'};
	const uint8_t *p;
	struct att_rd r;
	uint32_t n;

	(void)state;
	att_rd_init(&r, huge, sizeof(huge));
	assert_int_equal(att_rd_lv32le(&r, UINT32_MAX, &p, &n),
			 ATT_E_TRUNCATED);
	assert_int_equal(r.off, 0);
	assert_int_equal(att_rd_lv32le(&r, 100, &p, &n), ATT_E_TOO_BIG);
	assert_int_equal(r.off, 0);
	att_rd_init(&r, ok, sizeof(ok));
	assert_int_equal(att_rd_lv32le(&r, 1, &p, &n), ATT_E_TOO_BIG);
	assert_int_equal(att_rd_lv32le(&r, 2, &p, &n), ATT_OK);
	assert_int_equal(n, 2);
	assert_memory_equal(p, "hi", 2);
	assert_int_equal(att_rd_left(&r), 1);
	assert_int_equal(att_rd_skip(&r, SIZE_MAX), ATT_E_TRUNCATED);
}

static void rd_integers(void **state)
{
	const uint8_t in[] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct att_rd r;
	uint64_t v;

	(void)state;
	att_rd_init(&r, in, 8);
	assert_int_equal(att_rd_u64be(&r, &v), ATT_OK);
	assert_true(v == 0x0102030405060708ULL);
	att_rd_init(&r, in, 8);
	assert_int_equal(att_rd_u64le(&r, &v), ATT_OK);
	assert_true(v == 0x0807060504030201ULL);
	att_rd_init(&r, NULL, 5);
	assert_int_equal(att_rd_left(&r), 0);
}

static void buf_cap(void **state)
{
	struct att_buf b;

	(void)state;
	att_buf_init(&b, 8);
	assert_int_equal(att_buf_append(&b, "12345678", 8), ATT_OK);
	assert_int_equal(att_buf_append(&b, "9", 1), ATT_E_TOO_BIG);
	assert_int_equal(b.len, 8);
	assert_int_equal(att_buf_reserve(&b, SIZE_MAX), ATT_E_TOO_BIG);
	att_buf_release(&b);
	att_buf_init(&b, 0);
	assert_int_equal(att_buf_printf(&b, "%s-%d", "x", 42), ATT_OK);
	assert_int_equal(att_buf_cstr(&b), ATT_OK);
	assert_string_equal((char *)b.data, "x-42");
	att_buf_wipe_release(&b);
}

static void hex_codec(void **state)
{
	const uint8_t in[] = {0x00, 0xab, 0xff};
	uint8_t out[4];
	char hex[7];
	size_t n;

	(void)state;
	att_hex_encode(in, 3, hex);
	assert_string_equal(hex, "00abff");
	assert_int_equal(att_hex_decode("00ABff", 6, out, 4, &n), ATT_OK);
	assert_int_equal(n, 3);
	assert_memory_equal(out, in, 3);
	assert_int_equal(att_hex_decode("0ab", 3, out, 4, &n), ATT_E_FORMAT);
	assert_int_equal(att_hex_decode("0g", 2, out, 4, &n), ATT_E_FORMAT);
	assert_int_equal(att_hex_decode("0011223344", 10, out, 4, &n),
			 ATT_E_TOO_BIG);
}

static void b64_codec(void **state)
{
	static const char *const vec[][2] = {
		{"", ""},	 {"f", "Zg=="},	       {"fo", "Zm8="},
		{"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
	};
	uint8_t out[16];
	char enc[16];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		att_b64_encode((const uint8_t *)vec[i][0], strlen(vec[i][0]),
			       enc);
		assert_string_equal(enc, vec[i][1]);
		assert_int_equal(att_b64_decode(vec[i][1], strlen(vec[i][1]),
						out, sizeof(out), &n),
				 ATT_OK);
		assert_int_equal(n, strlen(vec[i][0]));
		assert_memory_equal(out, vec[i][0], n);
	}
	assert_int_equal(att_b64_decode("Zm9", 3, out, 16, &n), ATT_E_FORMAT);
	assert_int_equal(att_b64_decode("Zm!v", 4, out, 16, &n), ATT_E_FORMAT);
	/* non-canonical trailing bits */
	assert_int_equal(att_b64_decode("Zh==", 4, out, 16, &n), ATT_E_FORMAT);
	assert_int_equal(att_b64_decode("Zm9vYmFy", 8, out, 5, &n),
			 ATT_E_TOO_BIG);
	/* '=' only at the end, every quad checked, bytes above 0x7f */
	assert_int_equal(att_b64_decode("Zg==Zg==", 8, out, 16, &n),
			 ATT_E_FORMAT);
	assert_int_equal(att_b64_decode("Zm=vYmFy", 8, out, 16, &n),
			 ATT_E_FORMAT);
	assert_int_equal(att_b64_decode("Zm9vYm=y", 8, out, 16, &n),
			 ATT_E_FORMAT);
	assert_int_equal(att_b64_decode("Zm9vYmF=", 8, out, 16, &n),
			 ATT_E_FORMAT);
	assert_int_equal(att_b64_decode("Zm9\xffYmFy", 8, out, 16, &n),
			 ATT_E_FORMAT);
	assert_int_equal(att_b64_decode("====", 4, out, 16, &n), ATT_E_FORMAT);
}

/* Every length 0-300 and every byte value: decode(encode(x)) == x. */
static void b64_roundtrip(void **state)
{
	uint8_t in[300] = {0}, out[300];
	char enc[404];
	size_t len, i, n;
	uint32_t x = 12345;

	(void)state;
	for (len = 0; len <= sizeof(in); len++) {
		for (i = 0; i < len; i++) {
			x = x * 1103515245u + 12345u;
			in[i] = (uint8_t)(len < 256 && i == 0 ? len : x >> 16);
		}
		att_b64_encode(in, len, enc);
		assert_int_equal(strlen(enc), att_b64_enclen(len));
		assert_int_equal(
			att_b64_decode(enc, strlen(enc), out, sizeof(out), &n),
			ATT_OK);
		assert_int_equal(n, len);
		assert_memory_equal(out, in, len);
		/* one digit anywhere made invalid is refused */
		if (len) {
			enc[(len * 7) % strlen(enc)] = '.';
			assert_int_equal(att_b64_decode(enc, strlen(enc), out,
							sizeof(out), &n),
					 ATT_E_FORMAT);
		}
	}
}

static void escape_paths(void **state)
{
	const uint8_t p[] = {'/', 'a', ' ', 'b', '\n', 0xc3, 0xa9, '\\'};
	struct att_buf b;

	(void)state;
	att_buf_init(&b, 0);
	assert_int_equal(att_escape_bytes(p, sizeof(p), &b), ATT_OK);
	att_buf_cstr(&b);
	assert_string_equal((char *)b.data, "/a b\\x0a\\xc3\\xa9\\\\");
	att_buf_release(&b);
}

/* What is not UTF-8 becomes '?'; valid sequences stay; JSON accepts it. */
static void utf8_clean(void **state)
{
	static const struct {
		const char *in, *out;
	} c[] = {
		{"plain /usr/bin/a", "plain /usr/bin/a"},
		{"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x92",
		 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x92"},
		{"bad \xff byte", "bad ? byte"},
		{"cut \xe2\x82", "cut ??"},
		{"overlong \xc0\xaf \xe0\x80\xaf", "overlong ?? ???"},
		{"surrogate \xed\xa0\x80", "surrogate ???"},
		{"past U+10FFFF \xf4\x90\x80\x80", "past U+10FFFF ????"},
		{"lone \x80 continuation", "lone ? continuation"},
	};
	struct json_object *o;
	char buf[64], doc[96], err[64];
	size_t i;
	unsigned int seed = 7, k;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", c[i].in);
		att_json_utf8_clean(buf);
		assert_string_equal(buf, c[i].out);
	}
	/* random bytes: the result is always a valid JSON string */
	for (i = 0; i < 20000; i++) {
		for (k = 0; k < 40; k++) {
			seed = seed * 1103515245u + 12345u;
			buf[k] = (char)((seed >> 16) % 255 + 1);
			if (buf[k] == '"' || buf[k] == '\\' ||
			    (unsigned char)buf[k] < 0x20)
				buf[k] = 'x';
		}
		buf[40] = '\0';
		att_json_utf8_clean(buf);
		snprintf(doc, sizeof(doc), "\"%s\"", buf);
		assert_int_equal(att_json_parse(doc, strlen(doc), 4, &o, err,
						sizeof(err)),
				 0);
		json_object_put(o);
	}
}

/* The JSON reader refuses what is not strict UTF-8, raw or escaped. */
static void json_strict_utf8(void **state)
{
	static const char *const bad[] = {
		"\"overlong \xc0\xaf\"",
		"\"overlong \xe0\x80\xaf\"",
		"\"overlong \xf0\x80\x80\xaf\"",
		"\"surrogate \xed\xa0\x80\"",
		"\"surrogate \xed\xbf\xbf\"",
		"\"past U+10FFFF \xf4\x90\x80\x80\"",
		"\"past U+10FFFF \xf5\x80\x80\x80\"",
		"\"cut \xe2\x82\"",
		"\"stray \x80\"",
		"{\"k\xed\xa0\x80\": 1}",
		"\"lone high \\ud800\"",
		"\"lone high at the end \\ud800",
		"\"high then text \\ud800\\u0041\"",
		"\"high then high \\ud800\\ud800\"",
		"\"lone low \\udc00\"",
		"\"NUL \\u0000 inside\"",
		"{\"path\": \"/usr/bin/\\uD800x\"}",
	};
	static const char *const good[] = {
		"\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x92\"",
		"\"\\ud83d\\udd12 a pair\"",
		"\"\\u00e9 \\u20ac \\uffff\"",
		"\"\\\\ud800 is an escaped backslash\"",
		"\"max \xf4\x8f\xbf\xbf\"",
	};
	struct json_object *o;
	char err[160];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = NULL;
		if (att_json_parse(bad[i], strlen(bad[i]), 4, &o, err,
				   sizeof(err)) != ATT_E_FORMAT)
			fail_msg("accepted: %s", bad[i]);
		assert_null(o);
		assert_non_null(strstr(err, "JSON error at byte "));
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (att_json_parse(good[i], strlen(good[i]), 4, &o, err,
				   sizeof(err)))
			fail_msg("refused %s: %s", good[i], err);
		json_object_put(o);
	}
}

static void digest_table(void **state)
{
	uint8_t d[64];
	struct att_md *md;
	static const uint8_t abc256[] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
		0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
		0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	}; /* FIPS 180-2 test vector for "abc" */

	(void)state;
	assert_int_equal(att_hash_by_name("sha256", 6), ATT_HASH_SHA256);
	assert_int_equal(att_hash_by_name("sha25", 5), ATT_HASH_NONE);
	assert_int_equal(att_hash_by_tpm_alg(0x000b), ATT_HASH_SHA256);
	assert_int_equal(att_hash_by_kernel_algo(4), ATT_HASH_SHA256);
	assert_int_equal(att_hash_size(ATT_HASH_SHA384), 48);
	assert_int_equal(att_hash_size(ATT_HASH_NONE), 0);
	assert_int_equal(att_md_new(ATT_HASH_SHA256, &md), ATT_OK);
	assert_int_equal(att_md_digest(md, "abc", 3, d), ATT_OK);
	assert_memory_equal(d, abc256, 32);
	/* reuse */
	assert_int_equal(att_md_digest(md, "abc", 3, d), ATT_OK);
	assert_memory_equal(d, abc256, 32);
	att_md_free(md);
	assert_int_equal(att_md_new(ATT_HASH_NONE, &md), ATT_E_UNSUPPORTED);
}

static void errors_have_text(void **state)
{
	int e;

	(void)state;
	for (e = 0; e >= ATT_E_MIN; e--) {
		assert_non_null(att_strerror(e));
		assert_string_not_equal(att_errname(e), "ATT_E_UNKNOWN");
	}
	assert_string_equal(att_strerror(1), "unknown error");
	assert_string_equal(att_strerror(ATT_E_MIN - 1), "unknown error");
	assert_string_equal(att_errname(ATT_E_VERIFY), "ATT_E_VERIFY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rd_no_advance_on_failure),
		cmocka_unit_test(rd_lv32_caps_and_overflow),
		cmocka_unit_test(rd_integers),
		cmocka_unit_test(buf_cap),
		cmocka_unit_test(hex_codec),
		cmocka_unit_test(b64_codec),
		cmocka_unit_test(b64_roundtrip),
		cmocka_unit_test(escape_paths),
		cmocka_unit_test(utf8_clean),
		cmocka_unit_test(json_strict_utf8),
		cmocka_unit_test(digest_table),
		cmocka_unit_test(errors_have_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
