// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_ima_list.c - the IMA list reader (binary and ascii, both digest
 * banks) and the replay + judgement of whatever it accepts.
 */
#include <stddef.h>
#include <stdint.h>

#include "attest/check.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "attest/replay.h"
#include "attest/whitelist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char wl_json[] =
	"{\"digests\": {\"/bin/a\": [\"00000000000000000000000000000000"
	"00000000000000000000000000000000\"]}, \"excludes\": [\"/tmp/.*\"],"
	" \"keyrings\": {\".ima\": []}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum att_hash banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};
	static const enum att_hash talgs[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};
	static struct att_wl *wl;
	struct att_check_opts o = {0};
	struct att_check_result res;
	struct att_ima_reader *r;
	struct att_replay *rp;
	struct att_pcrs q;
	char err[200];
	size_t t;

	if (!wl && att_wl_load_json(wl_json, sizeof(wl_json) - 1, NULL, &wl,
				    err, sizeof(err)))
		__builtin_trap();
	att_pcrs_clear(&q);
	for (t = 0; t < 2; t++) {
		if (att_ima_reader_new_mem(data, size, ATT_IMA_FMT_AUTO,
					   talgs[t], NULL, &r))
			__builtin_trap();
		if (att_replay_new(banks, 2, &rp))
			__builtin_trap();
		o.quoted = t ? &q : NULL;
		att_check_result_init(&res);
		att_check_list(r, wl, rp, &o, &res);
		/* An input error is never reported as trusted. */
		if (res.error && res.status != ATT_CHECK_ERROR)
			__builtin_trap();
		att_check_result_release(&res);
		att_replay_free(rp);
		att_ima_reader_free(r);
	}
	return 0;
}
