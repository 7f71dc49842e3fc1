// SPDX-License-Identifier: Apache-2.0
/*
 * test_replay.c - PCR replay: banks, rules, violations, boot_aggregate,
 * saved state, prefix matching, PCR files. Expected values are computed
 * here with OpenSSL directly (tests/lib/imabuild.c), not with libattest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "attest/pcrs.h"
#include "attest/replay.h"
#include "imabuild.h"

#define NENT 12

struct expect {
	uint8_t sha1[NENT + 1][20];
	uint8_t sha256[NENT + 1][32];
	uint8_t pad256[NENT + 1][32];
	uint8_t sha384[NENT + 1][48];
};

/* Builds NENT entries (entry 5 a violation) and the PCR after each. */
static void build(struct att_buf *list, struct expect *x)
{
	uint8_t p1[20] = {0}, p256[32] = {0}, pad[32] = {0}, p384[48] = {0};
	int i;

	att_buf_init(list, 0);
	memset(x, 0, sizeof(*x));
	for (i = 0; i < NENT; i++) {
		struct att_buf td;
		uint8_t d[32], t1[20], t256[32], t384[48], tp[32] = {0};
		char path[32];
		int viol = i == 5;

		att_buf_init(&td, 0);
		snprintf(path, sizeof(path), "/bin/p%d", i);
		ib_hash("sha256", path, strlen(path), d);
		ib_dng(&td, "sha256",
		       viol ? (const uint8_t
				       *)"\0\0\0\0\0\0\0\0"
					 "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
					 "\0\0\0\0\0\0\0\0"
			    : d,
		       32);
		ib_nng(&td, path);
		ib_record(list, 10, "sha1", "ima-ng", &td, viol);
		if (viol) {
			memset(t1, 0xff, 20);
			memset(t256, 0xff, 32);
			memset(t384, 0xff, 48);
			memset(tp, 0xff, 20);
		} else {
			ib_hash("sha1", td.data, td.len, t1);
			ib_hash("sha256", td.data, td.len, t256);
			ib_hash("sha384", td.data, td.len, t384);
			memcpy(tp, t1, 20);
		}
		ib_extend("sha1", p1, t1);
		ib_extend("sha256", p256, t256);
		ib_extend("sha256", pad, tp);
		ib_extend("sha384", p384, t384);
		memcpy(x->sha1[i + 1], p1, 20);
		memcpy(x->sha256[i + 1], p256, 32);
		memcpy(x->pad256[i + 1], pad, 32);
		memcpy(x->sha384[i + 1], p384, 48);
		att_buf_release(&td);
	}
}

static void replay_all(struct att_replay *rp, const struct att_buf *list,
		       size_t stop_after, uint64_t start_index,
		       uint64_t start_off)
{
	struct att_ima_reader *r;
	struct att_ima_entry e;
	size_t n = 0;
	int ok;

	assert_int_equal(att_ima_reader_new_mem(list->data, list->len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	assert_int_equal(att_ima_reader_seek(r, start_index, start_off),
			 ATT_OK);
	while (n < stop_after && att_ima_reader_next(r, &e) == ATT_OK) {
		assert_int_equal(att_replay_extend(rp, &e, &ok), ATT_OK);
		assert_true(ok);
		n++;
	}
	att_ima_reader_free(r);
}

static void three_banks(void **state)
{
	const enum att_hash banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256,
				       ATT_HASH_SHA384};
	struct att_replay *rp;
	struct att_buf list;
	struct expect x;

	(void)state;
	build(&list, &x);
	assert_int_equal(att_replay_new(banks, 3, &rp), ATT_OK);
	replay_all(rp, &list, NENT, 0, 0);
	assert_memory_equal(att_replay_pcr(rp, ATT_HASH_SHA1, 10), x.sha1[NENT],
			    20);
	assert_memory_equal(att_replay_pcr(rp, ATT_HASH_SHA256, 10),
			    x.sha256[NENT], 32);
	assert_memory_equal(att_replay_pcr(rp, ATT_HASH_SHA384, 10),
			    x.sha384[NENT], 48);
	assert_memory_equal(att_replay_pcr_rule(rp, ATT_RULE_SHA1_PADDED,
						ATT_HASH_SHA256, 10),
			    x.pad256[NENT], 32);
	assert_int_equal(att_replay_state(rp)->next_index, NENT);
	assert_int_equal(att_replay_state(rp)->next_offset, list.len);
	att_replay_free(rp);
	att_buf_release(&list);
}

static void prefix_match_and_rule(void **state)
{
	const enum att_hash banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};
	struct att_replay *rp;
	struct att_pcrs q;
	struct att_buf list;
	struct expect x;
	int k;

	(void)state;
	build(&list, &x);
	for (k = 1; k <= NENT; k += 5) {
		int legacy = k == 6;
		size_t n;
		int matches = 0;

		att_pcrs_clear(&q);
		att_pcrs_set(&q, ATT_HASH_SHA256, 10,
			     legacy ? x.pad256[k] : x.sha256[k], 32);
		assert_int_equal(att_replay_new(banks, 2, &rp), ATT_OK);
		for (n = 1; n <= NENT; n++) {
			att_replay_reset(rp);
			replay_all(rp, &list, n, 0, 0);
			if (att_replay_match(rp, &q, 1u << 10)) {
				assert_int_equal(n, (size_t)k);
				matches++;
				assert_int_equal(att_replay_state(rp)->rule,
						 legacy ? ATT_RULE_SHA1_PADDED
							: ATT_RULE_NG);
			}
		}
		assert_int_equal(matches, 1);
		att_replay_free(rp);
	}
	/* nothing to compare: no match */
	att_pcrs_clear(&q);
	assert_int_equal(att_replay_new(banks, 2, &rp), ATT_OK);
	assert_int_equal(att_replay_match(rp, &q, 1u << 10), 0);
	att_replay_free(rp);
	att_buf_release(&list);
}

static void state_roundtrip_incremental(void **state)
{
	const enum att_hash banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};
	struct att_replay_state st2;
	struct att_replay *a, *b;
	struct att_buf list;
	struct expect x;
	uint8_t *enc;
	size_t enclen, i;

	(void)state;
	build(&list, &x);
	assert_int_equal(att_replay_new(banks, 2, &a), ATT_OK);
	assert_int_equal(att_replay_new(banks, 2, &b), ATT_OK);
	replay_all(a, &list, 7, 0, 0);
	assert_int_equal(
		att_replay_state_encode(att_replay_state(a), &enc, &enclen),
		ATT_OK);
	assert_int_equal(att_replay_state_decode(enc, enclen, &st2), ATT_OK);
	assert_int_equal(att_replay_restore(b, &st2), ATT_OK);
	replay_all(b, &list, NENT, st2.next_index, st2.next_offset);
	assert_memory_equal(att_replay_pcr(b, ATT_HASH_SHA256, 10),
			    x.sha256[NENT], 32);
	assert_int_equal(att_replay_state(b)->next_index, NENT);
	/* every truncation and every flipped byte of the encoding is caught
	 * or decodes to something well-formed */
	for (i = 0; i < enclen; i++)
		assert_int_not_equal(att_replay_state_decode(enc, i, &st2),
				     ATT_OK);
	enc[4] = 9; /* version */
	assert_int_equal(att_replay_state_decode(enc, enclen, &st2),
			 ATT_E_FORMAT);
	free(enc);
	/* a state for other banks is refused */
	{
		const enum att_hash other[] = {ATT_HASH_SHA384,
					       ATT_HASH_SHA256};
		struct att_replay *c;

		assert_int_equal(att_replay_new(other, 2, &c), ATT_OK);
		assert_int_equal(att_replay_restore(c, att_replay_state(a)),
				 ATT_E_INVAL);
		att_replay_free(c);
	}
	att_replay_free(a);
	att_replay_free(b);
	att_buf_release(&list);
}

/*
 * The list's identity: entry 0's written template digest, kept in the
 * state (encoding v3), read back from a v2 encoding as unknown, cleared
 * by a reset; and its text form.
 */
static void list_identity(void **state)
{
	const enum att_hash banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};
	struct att_replay_state st2;
	struct att_replay *a;
	struct att_buf list;
	struct expect x;
	uint8_t *enc, d[ATT_DIGEST_MAX];
	size_t enclen;
	char id[ATT_LIST_ID_MAX], want[64];
	enum att_hash alg;

	(void)state;
	build(&list, &x);
	assert_int_equal(att_replay_new(banks, 2, &a), ATT_OK);
	assert_int_equal(att_replay_state(a)->first_alg, ATT_HASH_NONE);
	replay_all(a, &list, 3, 0, 0);
	/* entry 0's record: be32 pcr, then its SHA-1 template digest */
	assert_int_equal(att_replay_state(a)->first_alg, ATT_HASH_SHA1);
	assert_memory_equal(att_replay_state(a)->first_digest, list.data + 4,
			    20);
	assert_int_equal(
		att_replay_state_encode(att_replay_state(a), &enc, &enclen),
		ATT_OK);
	assert_int_equal(att_replay_state_decode(enc, enclen, &st2), ATT_OK);
	assert_int_equal(st2.first_alg, ATT_HASH_SHA1);
	assert_memory_equal(st2.first_digest, list.data + 4, 20);
	/* a version 2 encoding: no identity (be16 alg and digest gone) */
	enc[4] = 2;
	assert_int_equal(att_replay_state_decode(enc, enclen - 22, &st2),
			 ATT_OK);
	assert_int_equal(st2.first_alg, ATT_HASH_NONE);
	assert_int_equal(st2.next_index, 3);
	/* v3 with an unknown bank id is refused */
	enc[4] = 3;
	enc[enclen - 22] = 0x7f;
	assert_int_equal(att_replay_state_decode(enc, enclen, &st2),
			 ATT_E_FORMAT);
	free(enc);
	att_replay_reset(a);
	assert_int_equal(att_replay_state(a)->first_alg, ATT_HASH_NONE);

	/* text: "sha1:<40 hex>", parsed back; strict parser */
	assert_int_equal(att_list_id_format(ATT_HASH_SHA1, list.data + 4, id,
					    sizeof(id)),
			 ATT_OK);
	memcpy(want, "sha1:", 5);
	att_hex_encode(list.data + 4, 20, want + 5);
	assert_string_equal(id, want);
	assert_int_equal(att_list_id_parse(id, &alg, d), ATT_OK);
	assert_int_equal(alg, ATT_HASH_SHA1);
	assert_memory_equal(d, list.data + 4, 20);
	assert_int_equal(att_list_id_format(ATT_HASH_SHA1, d, id, 20),
			 ATT_E_TOO_BIG);
	assert_int_equal(att_list_id_format(ATT_HASH_NONE, d, id, sizeof(id)),
			 ATT_E_INVAL);
	assert_int_equal(att_list_id_parse("sha1", &alg, d), ATT_E_FORMAT);
	assert_int_equal(att_list_id_parse("sha1:00", &alg, d), ATT_E_FORMAT);
	assert_int_equal(att_list_id_parse("nope:00", &alg, d), ATT_E_FORMAT);
	want[10] = 'g';
	assert_int_equal(att_list_id_parse(want, &alg, d), ATT_E_FORMAT);
	want[10] = '0';
	want[45] = '0'; /* one digit too many */
	want[46] = 0;
	assert_int_equal(att_list_id_parse(want, &alg, d), ATT_E_FORMAT);
	assert_int_equal(att_list_id_parse(NULL, &alg, d), ATT_E_FORMAT);
	att_replay_free(a);
	att_buf_release(&list);
}

static void bad_template_hash_detected(void **state)
{
	const enum att_hash banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};
	struct att_ima_reader *r;
	struct att_replay *rp;
	struct att_ima_entry e;
	struct att_buf list;
	int ok = 1;

	(void)state;
	att_buf_init(&list, 0);
	ib_ima_ng(&list, "/bin/sh", "sh");
	list.data[list.len - 2] ^= 1; /* edit the path, keep the digest */
	assert_int_equal(att_replay_new(banks, 2, &rp), ATT_OK);
	assert_int_equal(att_ima_reader_new_mem(list.data, list.len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	assert_int_equal(att_ima_reader_next(r, &e), ATT_OK);
	assert_int_equal(att_replay_extend(rp, &e, &ok), ATT_OK);
	assert_false(ok);
	att_ima_reader_free(r);
	att_replay_free(rp);
	att_buf_release(&list);
}

static void boot_aggregate_values(void **state)
{
	uint8_t v[10][32], want[32], got[32], w1[20], g1[20], cat[320];
	struct att_pcrs p;
	int i;

	(void)state;
	att_pcrs_clear(&p);
	for (i = 0; i < 10; i++) {
		memset(v[i], i * 17 + 1, 32);
		att_pcrs_set(&p, ATT_HASH_SHA256, (unsigned int)i, v[i], 32);
		att_pcrs_set(&p, ATT_HASH_SHA1, (unsigned int)i, v[i], 20);
		memcpy(cat + 32 * i, v[i], 32);
	}
	ib_hash("sha256", cat, 320, want);
	assert_int_equal(att_boot_aggregate(&p, ATT_HASH_SHA256, 1, got),
			 ATT_OK);
	assert_memory_equal(got, want, 32);
	ib_hash("sha256", cat, 256, want);
	assert_int_equal(att_boot_aggregate(&p, ATT_HASH_SHA256, 0, got),
			 ATT_OK);
	assert_memory_equal(got, want, 32);
	for (i = 0; i < 8; i++)
		memcpy(cat + 20 * i, v[i], 20);
	ib_hash("sha1", cat, 160, w1);
	assert_int_equal(att_boot_aggregate(&p, ATT_HASH_SHA1, 0, g1), ATT_OK);
	assert_memory_equal(g1, w1, 20);
}

static void pcr_files(void **state)
{
	const char *lines = "# comment\nPCR-10: "
			    "00112233445566778899aabbccddeeff00112233\n\n";
	const char *json = "{\"sha256\": {\"10\": \"000102030405060708090a0b0c0"
			   "d0e0f101112131415161718191a1b1c1d1e1f\"}}";
	const char *yaml =
		"sha1:\n  0 : 0x0000000000000000000000000000000000000000\n"
		"sha256:\n  10: "
		"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D"
		"1E1F\n";
	struct att_pcrs p;
	char err[200];

	(void)state;
	att_pcrs_clear(&p);
	assert_int_equal(att_pcrs_parse_any(&p, ATT_HASH_NONE, lines,
					    strlen(lines), err, sizeof(err)),
			 ATT_OK);
	assert_non_null(att_pcrs_get(&p, ATT_HASH_SHA1, 10));
	assert_null(att_pcrs_get(&p, ATT_HASH_SHA1, 11));
	assert_int_equal(att_pcrs_parse_any(&p, ATT_HASH_NONE, json,
					    strlen(json), err, sizeof(err)),
			 ATT_OK);
	assert_int_equal(att_pcrs_get(&p, ATT_HASH_SHA256, 10)[31], 0x1f);
	att_pcrs_clear(&p);
	assert_int_equal(att_pcrs_parse_any(&p, ATT_HASH_NONE, yaml,
					    strlen(yaml), err, sizeof(err)),
			 ATT_OK);
	assert_int_equal(att_pcrs_get(&p, ATT_HASH_SHA256, 10)[31], 0x1f);
	assert_non_null(att_pcrs_get(&p, ATT_HASH_SHA1, 0));
	/* hostile */
	assert_int_equal(att_pcrs_parse_lines(&p, ATT_HASH_SHA256,
					      "PCR-10: 0011\n", 13, err,
					      sizeof(err)),
			 ATT_E_FORMAT);
	assert_int_equal(att_pcrs_parse_lines(&p, ATT_HASH_NONE,
					      "PCR-99: 00112233445566778899aa"
					      "bbccddeeff00112233\n",
					      49, err, sizeof(err)),
			 ATT_E_FORMAT);
	assert_int_equal(att_pcrs_parse_json(&p,
					     "{\"sha256\": {\"x\": \"00\"}}",
					     24, err, sizeof(err)),
			 ATT_E_FORMAT);
	assert_int_equal(
		att_pcrs_parse_any(&p, ATT_HASH_NONE, "", 0, err, sizeof(err)),
		ATT_E_FORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(three_banks),
		cmocka_unit_test(prefix_match_and_rule),
		cmocka_unit_test(state_roundtrip_incremental),
		cmocka_unit_test(list_identity),
		cmocka_unit_test(bad_template_hash_detected),
		cmocka_unit_test(boot_aggregate_values),
		cmocka_unit_test(pcr_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
