// SPDX-License-Identifier: Apache-2.0
/*
 * test_uefi.c - TPM event log parser: every offset of a log cut short,
 * hostile Spec ID tables and records, locality, SHA-1-only logs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/uefi.h"
#include "imabuild.h"

/* Header: Spec ID event with the given algorithm table. */
static void header(struct att_buf *b, const uint16_t *algs,
		   const uint16_t *sizes, unsigned int n, uint8_t vendor)
{
	uint8_t z[20] = {0};
	unsigned int i;

	att_buf_append_u32le(b, 0);
	att_buf_append_u32le(b, 3);
	att_buf_append(b, z, 20);
	att_buf_append_u32le(b, 16 + 4 + 4 + 4 + 4 * n + 1 + vendor);
	att_buf_append(b, "Spec ID Event03", 16);
	att_buf_append_u32le(b, 0);
	att_buf_append_u8(b, 0);
	att_buf_append_u8(b, 2);
	att_buf_append_u8(b, 0);
	att_buf_append_u8(b, 2);
	att_buf_append_u32le(b, n);
	for (i = 0; i < n; i++) {
		att_buf_append(b, &algs[i], 2);
		att_buf_append(b, &sizes[i], 2);
	}
	att_buf_append_u8(b, vendor);
	for (i = 0; i < vendor; i++)
		att_buf_append_u8(b, 0x55);
}

/* A TCG_PCR_EVENT2 with sha1+sha256 digests of data. */
static void event2(struct att_buf *b, uint32_t pcr, uint32_t type,
		   const char *data)
{
	uint8_t d1[20], d256[32];
	uint16_t a1 = 4, a256 = 11;

	ib_hash("sha1", data, strlen(data), d1);
	ib_hash("sha256", data, strlen(data), d256);
	att_buf_append_u32le(b, pcr);
	att_buf_append_u32le(b, type);
	att_buf_append_u32le(b, 2);
	att_buf_append(b, &a1, 2);
	att_buf_append(b, d1, 20);
	att_buf_append(b, &a256, 2);
	att_buf_append(b, d256, 32);
	att_buf_append_u32le(b, (uint32_t)strlen(data));
	att_buf_append(b, data, strlen(data));
}

static const uint16_t algs2[] = {4, 11}, sizes2[] = {20, 32};

static int parse(const struct att_buf *b, char *err)
{
	struct att_uefi_info info;
	struct att_pcrs p;

	return att_uefi_replay(b->data, b->len, NULL, &p, &info, err, 200);
}

static void good_log_and_replay(void **state)
{
	struct att_uefi_info info;
	struct att_pcrs p;
	struct att_buf b;
	uint8_t want[32] = {0}, d[32];
	char err[200];

	(void)state;
	att_buf_init(&b, 0);
	header(&b, algs2, sizes2, 2, 3);
	event2(&b, 0, 1, "post code");
	event2(&b, 7, 4, "sep");
	event2(&b, 7, 3, "no action: not extended");
	assert_int_equal(att_uefi_replay(b.data, b.len, NULL, &p, &info, err,
					 sizeof(err)),
			 ATT_OK);
	assert_true(info.crypto_agile);
	assert_int_equal(info.nalgs, 2);
	assert_int_equal(info.events, 3);
	ib_hash("sha256", "sep", 3, d);
	ib_extend("sha256", want, d);
	assert_memory_equal(att_pcrs_get(&p, ATT_HASH_SHA256, 7), want, 32);
	assert_null(att_pcrs_get(&p, ATT_HASH_SHA256, 1));
	att_buf_release(&b);
}

static void startup_locality(void **state)
{
	struct att_uefi_info info;
	struct att_pcrs p;
	struct att_buf b;
	uint8_t want[32] = {0}, d[32];
	uint8_t z[52] = {0};
	uint16_t a1 = 4, a256 = 11;
	char err[200];

	(void)state;
	att_buf_init(&b, 0);
	header(&b, algs2, sizes2, 2, 0);
	att_buf_append_u32le(&b, 0);
	att_buf_append_u32le(&b, 3);
	att_buf_append_u32le(&b, 2);
	att_buf_append(&b, &a1, 2);
	att_buf_append(&b, z, 20);
	att_buf_append(&b, &a256, 2);
	att_buf_append(&b, z, 32);
	att_buf_append_u32le(&b, 17);
	att_buf_append(&b, "StartupLocality", 16);
	att_buf_append_u8(&b, 3);
	event2(&b, 0, 8, "crtm");
	assert_int_equal(att_uefi_replay(b.data, b.len, NULL, &p, &info, err,
					 sizeof(err)),
			 ATT_OK);
	assert_int_equal(info.startup_locality, 3);
	want[31] = 3;
	ib_hash("sha256", "crtm", 4, d);
	ib_extend("sha256", want, d);
	assert_memory_equal(att_pcrs_get(&p, ATT_HASH_SHA256, 0), want, 32);
	att_buf_release(&b);
}

static void cut_everywhere(void **state)
{
	struct att_buf b;
	size_t hdr, first, cut;
	char err[200];

	(void)state;
	att_buf_init(&b, 0);
	header(&b, algs2, sizes2, 2, 0);
	hdr = b.len;
	event2(&b, 0, 1, "a");
	first = b.len;
	event2(&b, 1, 1, "bb");
	for (cut = 0; cut < b.len; cut++) {
		struct att_buf c = {.data = b.data, .len = cut};
		int rc = parse(&c, err);

		/* a prefix ending between records is a shorter, valid log */
		if (cut == hdr || cut == first) {
			assert_int_equal(rc, ATT_OK);
			continue;
		}
		if (rc == ATT_OK) {
			att_buf_release(&b);
			fail_msg("cut at %zu accepted", cut);
		}
		assert_true(err[0] != '\0');
	}
	assert_int_equal(parse(&b, err), ATT_OK);
	att_buf_release(&b);
}

static void hostile(void **state)
{
	const uint16_t unknown[] = {4, 0x99}, usize[] = {20, 32};
	const uint16_t badsize[] = {4, 11}, bsize[] = {20, 20};
	const uint16_t dup[] = {11, 11}, dsize[] = {32, 32};
	struct att_buf b;
	char err[200];

	(void)state;
	att_buf_init(&b, 0);
	assert_int_equal(parse(&b, err), ATT_E_FORMAT); /* empty */
	header(&b, unknown, usize, 2, 0);
	assert_int_equal(parse(&b, err), ATT_E_UNSUPPORTED);
	b.len = 0;
	header(&b, badsize, bsize, 2, 0);
	assert_int_equal(parse(&b, err), ATT_E_FORMAT);
	b.len = 0;
	header(&b, dup, dsize, 2, 0);
	assert_int_equal(parse(&b, err), ATT_E_FORMAT);
	/* too many algorithms */
	b.len = 0;
	header(&b, algs2, sizes2, 2, 0);
	memset(b.data + 4 + 4 + 20 + 4 + 16 + 8, 0xff, 4);
	assert_int_not_equal(parse(&b, err), ATT_OK);
	/* event: digest count differs from the table */
	b.len = 0;
	header(&b, algs2, sizes2, 2, 0);
	event2(&b, 0, 1, "x");
	b.data[b.len - 1 - 4 - 32 - 2 - 20 - 2 - 4] = 1;
	assert_int_equal(parse(&b, err), ATT_E_FORMAT);
	/* event: PCR out of range, data length over the cap */
	b.len = 0;
	header(&b, algs2, sizes2, 2, 0);
	event2(&b, 24, 1, "x");
	assert_int_equal(parse(&b, err), ATT_E_FORMAT);
	b.len = 0;
	header(&b, algs2, sizes2, 2, 0);
	event2(&b, 0, 1, "x");
	memset(b.data + b.len - 5, 0xff, 4);
	assert_int_equal(parse(&b, err), ATT_E_TOO_BIG);
	/* Spec ID vendor size running past its event */
	b.len = 0;
	header(&b, algs2, sizes2, 2, 4);
	b.data[b.len - 5] = 200;
	assert_int_equal(parse(&b, err), ATT_E_FORMAT);
	att_buf_release(&b);
}

static void sha1_only_log(void **state)
{
	struct att_uefi_info info;
	struct att_pcrs p;
	struct att_buf b;
	uint8_t d[20], want[20] = {0};
	char err[200];

	(void)state;
	att_buf_init(&b, 0);
	ib_hash("sha1", "boot", 4, d);
	att_buf_append_u32le(&b, 4);
	att_buf_append_u32le(&b, 13);
	att_buf_append(&b, d, 20);
	att_buf_append_u32le(&b, 4);
	att_buf_append(&b, "boot", 4);
	assert_int_equal(att_uefi_replay(b.data, b.len, NULL, &p, &info, err,
					 sizeof(err)),
			 ATT_OK);
	assert_false(info.crypto_agile);
	ib_extend("sha1", want, d);
	assert_memory_equal(att_pcrs_get(&p, ATT_HASH_SHA1, 4), want, 20);
	assert_string_equal(att_uefi_event_name(13), "EV_IPL");
	assert_string_equal(att_uefi_event_name(0x12345), "EV_UNKNOWN");
	att_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_log_and_replay),
		cmocka_unit_test(startup_locality),
		cmocka_unit_test(cut_everywhere),
		cmocka_unit_test(hostile),
		cmocka_unit_test(sha1_only_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
