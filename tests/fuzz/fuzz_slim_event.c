// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_slim_event.c - slim.ko's lattice records as the verifier reads
 * them: the record parser, the fold with a strict lattice policy, the
 * saved state's encoding and JSON, and the slim_gap name parser.
 *
 * Input: a selector byte, then for selector 0 a sequence of records, each
 * a u16 little-endian length and that many bytes (fed in order to
 * att_lat_step as slim_event entries whose digest is right); for any
 * other selector the rest is the name of a slim_gap entry.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/digest.h"
#include "attest/err.h"
#include "attest/lattice.h"
#include "attest/rd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char pol_json[] =
	"{\"mode\": \"enforce\", \"evm_key\": true, \"relabels\": false, "
	"\"demotions\": \"deny\", \"policy_digests\": [\"00000000000000000000"
	"00000000000000000000000000000000000000000000\"], "
	"\"acceptable_demotions\": [{\"exe\": \"/usr/sbin/*\", \"cause\": "
	"\"ip\"}, {\"comm\": \"cat\", \"path\": \"/srv/*\"}, {\"comm\": "
	"\"svc\", \"cause\": \"unix\"}, {\"exe\": \"/usr/sbin/svc\", "
	"\"cause\": \"pipe\"}]}";

static void records(const uint8_t *p, size_t n, struct att_lat_policy *pol)
{
	struct att_lat_state st, back;
	struct att_slim_event ev;
	struct att_ima_entry e;
	struct json_object *j;
	uint8_t d[32];
	struct att_buf enc;
	struct att_rd r;
	char why[320];
	int rc;

	att_lat_state_init(&st);
	att_rd_init(&r, p, n);
	for (;;) {
		const uint8_t *rec;
		uint16_t len;

		if (att_rd_u16le(&r, &len) || att_rd_bytes(&r, len, &rec))
			break;
		why[0] = '\0';
		if (att_slim_event_parse(rec, len, &ev, why, sizeof(why)) &&
		    !why[0])
			__builtin_trap(); /* every refusal says why */
		memset(&e, 0, sizeof(e));
		e.template_name = "ima-buf";
		e.path = (const uint8_t *)"slim_event";
		e.path_len = 10;
		e.file_alg = ATT_HASH_SHA256;
		if (att_digest(ATT_HASH_SHA256, rec, len, d))
			__builtin_trap();
		e.file_digest = d;
		e.file_digest_len = 32;
		e.buf = rec;
		e.buf_len = len;
		rc = att_lat_step(&st, pol, &e, why, sizeof(why));
		if (rc < 0 || rc > ATT_LAT_REFUSED ||
		    (rc != ATT_LAT_OK && !why[0]))
			__builtin_trap();
	}
	att_lat_final(&st, pol, why, sizeof(why));
	att_buf_init(&enc, 0);
	if (att_lat_state_encode(&st, &enc))
		__builtin_trap();
	att_rd_init(&r, enc.data, enc.len);
	if (att_lat_state_decode(&r, &back) || att_rd_left(&r) ||
	    back.demotions != st.demotions || back.nrecent != st.nrecent ||
	    back.next_seq != st.next_seq)
		__builtin_trap(); /* what is stored reads back */
	att_buf_release(&enc);
	j = att_lat_state_json(&st, "slim");
	if (!j || !json_object_to_json_string(j))
		__builtin_trap();
	json_object_put(j);
}

static void gap(const uint8_t *p, size_t n)
{
	struct att_ima_entry e;
	struct att_slim_gap g;
	uint8_t d[32] = {0};
	char why[200];

	memset(&e, 0, sizeof(e));
	e.template_name = "ima-ng";
	e.path = p;
	e.path_len = n;
	e.file_alg = ATT_HASH_SHA256;
	e.file_digest = d;
	e.file_digest_len = 32;
	why[0] = '\0';
	if (att_slim_gap_parse(&e, &g, why, sizeof(why))) {
		if (!why[0])
			__builtin_trap();
	} else if (!g.n || g.n > ATT_GAP_MAX_BANKS) {
		__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct att_lat_policy *pol;
	struct json_object *o;
	char err[200];

	if (!pol) {
		o = json_tokener_parse(pol_json);
		if (!o || att_lat_policy_from_json(o, &pol, err, sizeof(err)))
			__builtin_trap();
		json_object_put(o);
	}
	if (!size)
		return 0;
	if (data[0] == 0)
		records(data + 1, size - 1, pol);
	else
		gap(data + 1, size - 1);
	return 0;
}
