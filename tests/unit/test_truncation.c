// SPDX-License-Identifier: Apache-2.0
/*
 * test_truncation.c - every parser of untrusted text cut at every offset:
 * ascii IMA lists, whitelists (JSON and legacy), PCR files. Each prefix
 * either parses (when it happens to be a complete document) or fails with
 * a clear error; none crashes or leaks (ASan/LSan run these).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "attest/err.h"
#include "attest/ima.h"
#include "attest/pcrs.h"
#include "attest/whitelist.h"

static const char ascii_list[] =
	"10 8a1d0bd8d0d85e1fa4a3fd7ba49d6e0ba0b2bd8f ima-ng "
	"sha256:"
	"0d5b9c0f4b1c4ad4d7b6d4d9f4e3a7cbe9c0ec66ba2b7e0e4a0be9ac2a3d9e1c "
	"boot_aggregate\n"
	"10 0000000000000000000000000000000000000000 ima-sig "
	"sha256:"
	"0000000000000000000000000000000000000000000000000000000000000000 "
	"/tmp/x y \n";

static const char wl_json[] =
	"{\"meta\": {\"version\": 1}, \"release\": 3, \"digests\": {\"/a b\": "
	"[\"0123456789abcdef0123456789abcdef01234567\"]}, \"excludes\": "
	"[\"/tmp/.*\"], \"ima\": {\"ignored_keyrings\": [\"*\"]}, "
	"\"attest\": {\"violations\": \"allow\"}}";

static const char pcr_lines[] =
	"PCR-00: 0000000000000000000000000000000000000000\n"
	"PCR-10: 0123456789abcdef0123456789abcdef01234567\n";

static const char pcr_json[] =
	"{\"sha1\": {\"10\": \"0123456789abcdef0123456789abcdef01234567\"}}";

static void ascii_every_offset(void **state)
{
	size_t cut, full = 0;

	(void)state;
	for (cut = 0; cut <= sizeof(ascii_list) - 1; cut++) {
		struct att_ima_reader *r;
		struct att_ima_entry e;
		int rc, n = 0;

		assert_int_equal(att_ima_reader_new_mem(
					 ascii_list, cut, ATT_IMA_FMT_ASCII,
					 ATT_HASH_SHA1, NULL, &r),
				 ATT_OK);
		while ((rc = att_ima_reader_next(r, &e)) == ATT_OK)
			n++;
		assert_true(rc == ATT_E_EOF || rc == ATT_E_TRUNCATED ||
			    rc == ATT_E_FORMAT || rc == ATT_E_UNSUPPORTED);
		if (rc == ATT_E_EOF && n == 2)
			full++;
		att_ima_reader_free(r);
	}
	assert_int_equal(full, 1); /* only the whole text has both lines */
}

static void whitelist_every_offset(void **state)
{
	size_t cut;
	char err[300];

	(void)state;
	for (cut = 0; cut < sizeof(wl_json) - 1; cut++) {
		struct att_wl *wl = NULL;
		int rc = att_wl_load_json(wl_json, cut, NULL, &wl, err,
					  sizeof(err));

		assert_int_not_equal(rc, ATT_OK);
		assert_null(wl);
		assert_true(err[0] != '\0');
	}
	{
		struct att_wl *wl = NULL;

		assert_int_equal(att_wl_load_json(wl_json, sizeof(wl_json) - 1,
						  NULL, &wl, err, sizeof(err)),
				 ATT_OK);
		assert_int_equal(att_wl_violations(wl),
				 ATT_WL_VIOLATIONS_ALLOW);
		att_wl_free(wl);
	}
}

static void pcr_files_every_offset(void **state)
{
	size_t cut;
	char err[200];

	(void)state;
	for (cut = 0; cut < sizeof(pcr_json) - 1; cut++) {
		struct att_pcrs p;

		att_pcrs_clear(&p);
		assert_int_not_equal(att_pcrs_parse_any(&p, ATT_HASH_NONE,
							pcr_json, cut, err,
							sizeof(err)),
				     ATT_OK);
	}
	for (cut = 0; cut < sizeof(pcr_lines) - 1; cut++) {
		struct att_pcrs p;
		int rc;

		att_pcrs_clear(&p);
		rc = att_pcrs_parse_any(&p, ATT_HASH_NONE, pcr_lines, cut, err,
					sizeof(err));
		/*
		 * A prefix ending at a line end (with or without its LF) is a
		 * shorter valid file; nothing else is.
		 */
		if (rc == ATT_OK)
			assert_true(cut == 48 || cut == 49 ||
				    cut == sizeof(pcr_lines) - 2);
		else
			assert_int_equal(rc, ATT_E_FORMAT);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ascii_every_offset),
		cmocka_unit_test(whitelist_every_offset),
		cmocka_unit_test(pcr_files_every_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
