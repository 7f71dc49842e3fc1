// SPDX-License-Identifier: Apache-2.0
/*
 * test_lattice.c - slim.ko's lattice records on the verifier's side: the
 * record parser (every field, truncation, bad bytes), the fold and its
 * sequence checks, the whitelist's lattice policy, the saved state, the
 * slim_gap record, and att_check_list over lists that carry them. The
 * records are built here byte by byte from docs/lattice-events.md, not
 * with libattest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/check.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "attest/lattice.h"
#include "attest/pcrs.h"
#include "attest/replay.h"
#include "attest/whitelist.h"
#include "imabuild.h"

/* ---- a record encoder (the format, not the parser) ---------------- */

static void le(struct att_buf *b, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		att_buf_append_u8(b, (uint8_t)(v >> (8 * i)));
}

static void rec_begin(struct att_buf *b, uint8_t type, uint64_t seq)
{
	att_buf_init(b, 0);
	att_buf_append(b, "SLEV", 4);
	att_buf_append_u8(b, 1);
	att_buf_append_u8(b, type);
	le(b, 0, 2);
	le(b, seq, 8);
	le(b, 1700000000, 8);
}

static void f_raw(struct att_buf *b, uint16_t tag, const void *p, size_t n)
{
	le(b, tag, 2);
	le(b, n, 2);
	att_buf_append(b, p, n);
}

static void f_u8(struct att_buf *b, uint16_t tag, uint8_t v)
{
	f_raw(b, tag, &v, 1);
}

static void f_u32(struct att_buf *b, uint16_t tag, uint32_t v)
{
	le(b, tag, 2);
	le(b, 4, 2);
	le(b, v, 4);
}

static void f_u64(struct att_buf *b, uint16_t tag, uint64_t v)
{
	le(b, tag, 2);
	le(b, 8, 2);
	le(b, v, 8);
}

static void f_str(struct att_buf *b, uint16_t tag, const char *s)
{
	f_raw(b, tag, s, strlen(s));
}

enum {
	T_VERSION = 1,
	T_MODE,
	T_OLD_MODE,
	T_PCR,
	T_LOCK,
	T_EVM_DEMOTE,
	T_DEFAULT_LABEL,
	T_DIGEST,
	T_PID,
	T_COMM,
	T_EXE,
	T_OLD_LABEL,
	T_NEW_LABEL,
	T_PATH,
	T_CAUSE,
	T_COUNT,
	T_SOURCE,
	T_FINAL,
	T_ACTION,
	T_LABEL
};

static void rec_load(struct att_buf *b, uint8_t mode)
{
	rec_begin(b, 1, 0);
	f_str(b, T_VERSION, "0.2");
	f_u8(b, T_PCR, 11);
	f_u8(b, T_LOCK, 1);
	f_u8(b, T_EVM_DEMOTE, 0);
	f_str(b, T_DEFAULT_LABEL, "SYSTEM PUBLIC");
	f_u8(b, T_MODE, mode);
}

static void rec_policy(struct att_buf *b, uint64_t seq, const char *text)
{
	uint8_t d[32];

	ib_hash("sha256", text, strlen(text), d);
	rec_begin(b, 3, seq);
	f_u8(b, T_SOURCE, 0);
	f_u32(b, T_PID, 0);
	f_str(b, T_COMM, "insmod");
	f_raw(b, T_DIGEST, d, 32);
}

static void rec_mode(struct att_buf *b, uint64_t seq, uint8_t from, uint8_t to)
{
	rec_begin(b, 2, seq);
	f_u8(b, T_OLD_MODE, from);
	f_u32(b, T_PID, 77);
	f_str(b, T_COMM, "sh");
	f_u8(b, T_MODE, to);
}

static void rec_evm(struct att_buf *b, uint64_t seq)
{
	rec_begin(b, 4, seq);
	f_u32(b, T_PID, 1);
	f_str(b, T_COMM, "init");
}

static void rec_relabel(struct att_buf *b, uint64_t seq)
{
	rec_begin(b, 5, seq);
	f_str(b, T_PATH, "/opt/input/untrusted.txt");
	f_str(b, T_OLD_LABEL, "SYSTEM PUBLIC");
	f_str(b, T_NEW_LABEL, "UNTRUSTED PUBLIC");
	f_u32(b, T_PID, 1);
	f_str(b, T_COMM, "init");
}

static void rec_demotion(struct att_buf *b, uint64_t seq, const char *exe,
			 uint8_t cause, const char *path)
{
	rec_begin(b, 6, seq);
	f_u32(b, T_PID, 4242);
	f_str(b, T_COMM, "cat");
	f_str(b, T_EXE, exe);
	f_str(b, T_OLD_LABEL, "SYSTEM PUBLIC");
	f_u8(b, T_CAUSE, cause);
	if (path)
		f_str(b, T_PATH, path);
	f_str(b, T_NEW_LABEL, "UNTRUSTED PUBLIC");
}

static void rec_dropped(struct att_buf *b, uint64_t seq, uint64_t n,
			uint8_t final)
{
	rec_begin(b, 7, seq);
	f_u8(b, T_FINAL, final);
	f_u64(b, T_COUNT, n);
}

static void rec_refused(struct att_buf *b, uint64_t seq, uint8_t mode,
			const char *path)
{
	rec_begin(b, 8, seq);
	f_u32(b, T_PID, 777);
	f_str(b, T_COMM, "sshd");
	f_str(b, T_EXE, "/usr/sbin/sshd");
	f_str(b, T_LABEL, "UNTRUSTED PUBLIC");
	f_str(b, T_ACTION, "load a kernel module");
	f_u8(b, T_MODE, mode);
	if (path)
		f_str(b, T_PATH, path);
}

/* ---- entries ------------------------------------------------------ */

/* the ima-buf entry carrying buf, its d-ng digest correct unless bad */
static void ent_event(struct att_buf *list, const struct att_buf *buf, int bad)
{
	struct att_buf td;
	uint8_t d[32];

	ib_hash("sha256", buf->data, buf->len, d);
	d[0] ^= (uint8_t)bad;
	att_buf_init(&td, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, "slim_event");
	ib_field(&td, buf->data, buf->len);
	ib_record(list, 11, "sha1", "ima-buf", &td, 0);
	att_buf_release(&td);
}

/* reads the one entry of a one-entry list */
static struct att_ima_reader *one_entry(const struct att_buf *list,
					struct att_ima_entry *e)
{
	struct att_ima_reader *r;

	assert_int_equal(att_ima_reader_new_mem(list->data, list->len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	assert_int_equal(att_ima_reader_next(r, e), ATT_OK);
	return r;
}

/* one record through att_lat_step */
static int step(struct att_lat_state *st, const struct att_lat_policy *pol,
		const struct att_buf *rec, int bad, char *why, size_t n)
{
	struct att_ima_reader *r;
	struct att_ima_entry e;
	struct att_buf list;
	int rc;

	att_buf_init(&list, 0);
	ent_event(&list, rec, bad);
	r = one_entry(&list, &e);
	assert_true(att_is_slim_event(&e));
	rc = att_lat_step(st, pol, &e, why, n);
	att_ima_reader_free(r);
	att_buf_release(&list);
	return rc;
}

static struct att_lat_policy *policy(const char *json)
{
	struct att_wl *wl;
	char err[200], text[2048];
	struct att_lat_policy *p = NULL;
	struct json_object *o;

	/* through the whitelist loader, as the verifier reads it */
	snprintf(text, sizeof(text), "{\"digests\": {}, \"lattice\": %s}",
		 json);
	assert_int_equal(att_wl_load_json(text, strlen(text), NULL, &wl, err,
					  sizeof(err)),
			 ATT_OK);
	assert_non_null(att_wl_lattice(wl));
	att_wl_free(wl);
	o = json_tokener_parse(json);
	assert_non_null(o);
	assert_int_equal(att_lat_policy_from_json(o, &p, err, sizeof(err)),
			 ATT_OK);
	json_object_put(o);
	return p;
}

/* ---- the parser --------------------------------------------------- */

static void parse_every_type(void **state)
{
	struct att_slim_event ev;
	struct att_buf b;
	char why[160];
	uint8_t d[32];

	(void)state;
	rec_load(&b, 2);
	assert_int_equal(
		att_slim_event_parse(b.data, b.len, &ev, why, sizeof(why)),
		ATT_OK);
	assert_int_equal(ev.type, ATT_SEV_LOAD);
	assert_int_equal(ev.seq, 0);
	assert_int_equal(ev.time, 1700000000);
	assert_int_equal(ev.mode, 2);
	assert_int_equal(ev.pcr, 11);
	assert_int_equal(ev.lock, 1);
	assert_int_equal(ev.version.len, 3);
	assert_memory_equal(ev.version.p, "0.2", 3);
	assert_int_equal(ev.default_label.len, 13);
	att_buf_release(&b);

	rec_policy(&b, 1, "rule text\n");
	assert_int_equal(
		att_slim_event_parse(b.data, b.len, &ev, why, sizeof(why)),
		ATT_OK);
	ib_hash("sha256", "rule text\n", 10, d);
	assert_int_equal(ev.type, ATT_SEV_POLICY);
	assert_int_equal(ev.seq, 1);
	assert_memory_equal(ev.digest, d, 32);
	att_buf_release(&b);

	rec_demotion(&b, 9, "/bin/cat", 1, "/opt/x");
	assert_int_equal(
		att_slim_event_parse(b.data, b.len, &ev, why, sizeof(why)),
		ATT_OK);
	assert_int_equal(ev.type, ATT_SEV_DEMOTION);
	assert_int_equal(ev.pid, 4242);
	assert_int_equal(ev.cause, 1);
	assert_int_equal(ev.path.len, 6);
	assert_int_equal(ev.new_label.len, 16);
	att_buf_release(&b);

	rec_dropped(&b, 3, 1ULL << 40, 1);
	assert_int_equal(
		att_slim_event_parse(b.data, b.len, &ev, why, sizeof(why)),
		ATT_OK);
	assert_int_equal(ev.count, 1ULL << 40);
	assert_int_equal(ev.final, 1);
	att_buf_release(&b);

	/* a later version's field is skipped */
	rec_evm(&b, 2);
	f_str(&b, 99, "future");
	assert_int_equal(
		att_slim_event_parse(b.data, b.len, &ev, why, sizeof(why)),
		ATT_OK);
	assert_int_equal(ev.type, ATT_SEV_EVM_KEY);
	att_buf_release(&b);
}

/*
 * A refused record (a task below SYSTEM tried to change the system):
 * parsed; with a lattice policy an attempted escape unless "refusals":
 * true; without a policy only folded.
 */
static void refused_records(void **state)
{
	struct att_lat_state st;
	struct att_lat_policy *p;
	struct att_slim_event ev;
	struct att_buf b;
	char why[400];

	(void)state;
	rec_refused(&b, 1, 2, "/tmp/evil.ko");
	assert_int_equal(
		att_slim_event_parse(b.data, b.len, &ev, why, sizeof(why)),
		ATT_OK);
	assert_int_equal(ev.type, ATT_SEV_REFUSED);
	assert_int_equal(ev.pid, 777);
	assert_int_equal(ev.mode, 2);
	assert_int_equal(ev.action.len, strlen("load a kernel module"));
	assert_memory_equal(ev.label.p, "UNTRUSTED PUBLIC", 16);
	assert_string_equal(att_sev_type_name(ATT_SEV_REFUSED), "refused");

	att_buf_release(&b);
	memset(&st, 0, sizeof(st));
	rec_load(&b, 2);
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	rec_refused(&b, 1, 2, "/tmp/evil.ko");
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	rec_refused(&b, 2, 2, "/tmp/evil.ko");
	p = policy("{\"mode\": \"enforce\"}");
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	assert_non_null(strstr(why, "attempted escape from the lattice: pid "
				    "777 (sshd, /usr/sbin/sshd, UNTRUSTED "
				    "PUBLIC) tried to load a kernel module "
				    "/tmp/evil.ko (refused)"));
	att_lat_policy_free(p);
	att_buf_release(&b);
	p = policy("{\"refusals\": true}");
	rec_refused(&b, 3, 1, NULL);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_lat_policy_free(p);
	att_buf_release(&b);
	rec_refused(&b, 4, 1, NULL);
	p = policy("{\"refusals\": false}");
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	assert_non_null(strstr(why, "module (not refused: permissive)"));
	att_lat_policy_free(p);
	att_buf_release(&b);
	/* every required field */
	rec_begin(&b, 8, 3);
	f_u32(&b, T_PID, 1);
	f_str(&b, T_COMM, "x");
	f_str(&b, T_EXE, "/x");
	f_str(&b, T_LABEL, "USER PUBLIC");
	f_u8(&b, T_MODE, 2);
	assert_int_equal(
		att_slim_event_parse(b.data, b.len, &ev, why, sizeof(why)),
		ATT_E_FORMAT);
	assert_non_null(strstr(why, "refused record without a required field"));
	att_buf_release(&b);
}

/* every cut of every record type is refused, with a reason */
static void parse_truncation(void **state)
{
	struct att_slim_event ev;
	struct att_buf recs[7];
	char why[160];
	size_t i, k;

	(void)state;
	rec_load(&recs[0], 2);
	rec_policy(&recs[1], 1, "x");
	rec_mode(&recs[2], 2, 2, 1);
	rec_evm(&recs[3], 3);
	rec_relabel(&recs[4], 4);
	rec_demotion(&recs[5], 5, "/bin/cat", 1, "/opt/x");
	rec_dropped(&recs[6], 6, 5, 0);
	for (k = 0; k < 7; k++) {
		assert_int_equal(att_slim_event_parse(recs[k].data, recs[k].len,
						      &ev, why, sizeof(why)),
				 ATT_OK);
		for (i = 0; i < recs[k].len; i++) {
			why[0] = '\0';
			assert_int_not_equal(att_slim_event_parse(recs[k].data,
								  i, &ev, why,
								  sizeof(why)),
					     ATT_OK);
			assert_true(why[0] != '\0');
		}
		att_buf_release(&recs[k]);
	}
}

static int parse_rc(const struct att_buf *b)
{
	struct att_slim_event ev;
	char why[160];
	int rc;

	why[0] = '\0';
	rc = att_slim_event_parse(b->data, b->len, &ev, why, sizeof(why));
	if (rc)
		assert_true(why[0] != '\0');
	return rc;
}

static void parse_bad_bytes(void **state)
{
	struct att_buf b;
	char big[300];

	(void)state;
	rec_load(&b, 2);
	b.data[0] = 'X'; /* magic */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	b.data[0] = 'S';
	b.data[4] = 2; /* version */
	assert_int_equal(parse_rc(&b), ATT_E_UNSUPPORTED);
	b.data[4] = 1;
	b.data[5] = 9; /* type */
	assert_int_equal(parse_rc(&b), ATT_E_UNSUPPORTED);
	b.data[5] = 0;
	assert_int_equal(parse_rc(&b), ATT_E_UNSUPPORTED);
	b.data[5] = 1;
	b.data[7] = 1; /* reserved */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	b.data[7] = 0;
	assert_int_equal(parse_rc(&b), ATT_OK);
	f_u8(&b, T_MODE, 2); /* twice */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	att_buf_release(&b);

	rec_load(&b, 3); /* mode 3 */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	att_buf_release(&b);

	rec_begin(&b, 1, 0); /* the load record without its mode */
	f_str(&b, T_VERSION, "0.2");
	f_u8(&b, T_PCR, 11);
	f_u8(&b, T_LOCK, 1);
	f_u8(&b, T_EVM_DEMOTE, 0);
	f_str(&b, T_DEFAULT_LABEL, "SYSTEM PUBLIC");
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	f_u32(&b, T_MODE, 2); /* a u8 field of 4 bytes */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	att_buf_release(&b);

	rec_evm(&b, 1);
	f_raw(&b, T_EXE, "a\0b", 3); /* NUL in a string */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	att_buf_release(&b);

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rec_evm(&b, 1);
	f_str(&b, T_EXE, big); /* over the 255-byte cap */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	att_buf_release(&b);

	rec_demotion(&b, 1, "/bin/cat", 10, "/x"); /* cause 10 */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	att_buf_release(&b);
	rec_demotion(&b, 1, "/bin/cat", 1, NULL); /* file, no path */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	att_buf_release(&b);
	rec_demotion(&b, 1, "/bin/cat", 2, NULL); /* ip, no path: fine */
	assert_int_equal(parse_rc(&b), ATT_OK);
	att_buf_release(&b);

	rec_dropped(&b, 1, 1, 2); /* final 2 */
	assert_int_equal(parse_rc(&b), ATT_E_FORMAT);
	att_buf_release(&b);

	rec_evm(&b, 1); /* over the 1024-byte record cap */
	while (b.len <= ATT_SEV_MAX_LEN)
		f_str(&b, 99, big);
	assert_int_equal(parse_rc(&b), ATT_E_TOO_BIG);
	att_buf_release(&b);

	rec_evm(&b, 1); /* a field that runs past the end */
	le(&b, T_COMM, 2);
	le(&b, 200, 2);
	att_buf_append(&b, "x", 1);
	assert_int_equal(parse_rc(&b), ATT_E_TRUNCATED);
	att_buf_release(&b);
}

/* ---- the fold ----------------------------------------------------- */

static void fold_and_sequence(void **state)
{
	struct att_lat_state st;
	struct att_buf b;
	char why[ATT_DETAIL_LEN];
	uint8_t d[32];
	unsigned int i;

	(void)state;
	att_lat_state_init(&st);
	rec_policy(&b, 1, "x");
	/* before any load record */
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)),
			 ATT_LAT_MALFORMED);
	assert_non_null(strstr(why, "seq"));
	att_buf_release(&b);
	rec_load(&b, 1);
	/* a digest that is not the record's SHA-256 */
	assert_int_equal(step(&st, NULL, &b, 1, why, sizeof(why)),
			 ATT_LAT_MALFORMED);
	assert_non_null(strstr(why, "SHA-256"));
	assert_false(st.loaded);
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	assert_true(st.loaded);
	assert_int_equal(st.mode, 1);
	assert_string_equal(st.version, "0.2");

	rec_policy(&b, 1, "policy one");
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	/* the same seq again */
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)),
			 ATT_LAT_MALFORMED);
	att_buf_release(&b);
	ib_hash("sha256", "policy one", 10, d);
	assert_true(st.have_policy);
	assert_memory_equal(st.policy_digest, d, 32);

	rec_mode(&b, 3, 1, 2); /* seq 2 skipped */
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)),
			 ATT_LAT_MALFORMED);
	att_buf_release(&b);
	rec_mode(&b, 2, 1, 2);
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	assert_int_equal(st.mode, 2);
	rec_evm(&b, 3);
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	assert_true(st.evm_key);
	rec_relabel(&b, 4);
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	assert_int_equal(st.relabels, 1);
	/* more demotions than the state keeps: the newest stay */
	for (i = 0; i < ATT_LAT_RECENT + 3; i++) {
		char exe[32];

		snprintf(exe, sizeof(exe), "/usr/bin/d%u", i);
		rec_demotion(&b, 5 + i, exe, 1, "/opt/input/x");
		assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)),
				 ATT_LAT_OK);
		att_buf_release(&b);
	}
	assert_int_equal(st.demotions, ATT_LAT_RECENT + 3);
	assert_int_equal(st.nrecent, ATT_LAT_RECENT);
	assert_string_equal(st.recent[0].exe, "/usr/bin/d3");
	assert_string_equal(st.recent[ATT_LAT_RECENT - 1].exe, "/usr/bin/d10");
	assert_string_equal(st.recent[0].new_label, "UNTRUSTED PUBLIC");
	assert_string_equal(st.recent[0].comm, "cat");
	rec_dropped(&b, 5 + ATT_LAT_RECENT + 3, 7, 1);
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	assert_int_equal(st.dropped, 7);
	assert_true(st.capped);
	/* a new load record starts a new instance at seq 0 */
	rec_load(&b, 2);
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	assert_int_equal(st.next_seq, 1);
}

/* control bytes in the host's strings never reach a report */
static void fold_sanitises_text(void **state)
{
	struct att_lat_state st;
	struct att_buf b;
	char why[ATT_DETAIL_LEN];

	(void)state;
	att_lat_state_init(&st);
	rec_load(&b, 2);
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	rec_demotion(&b, 1, "/tmp/a\nb\x1b[31m", 1, "/x\ty");
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	assert_string_equal(st.recent[0].exe, "/tmp/a?b?[31m");
	assert_string_equal(st.recent[0].path, "/x?y");
}

/* ---- the policy --------------------------------------------------- */

static void policy_rules(void **state)
{
	struct att_lat_policy *p;
	struct att_lat_state st;
	struct att_buf b;
	char why[ATT_DETAIL_LEN], json[600], hex[65];
	uint8_t d[32];

	(void)state;
	ib_hash("sha256", "good", 4, d);
	att_hex_encode(d, 32, hex);
	snprintf(json, sizeof(json),
		 "{\"mode\": \"enforce\", \"policy_digests\": [\"%s\"], "
		 "\"evm_key\": true, \"relabels\": false, \"demotions\": "
		 "\"deny\", \"acceptable_demotions\": [{\"exe\": "
		 "\"/usr/sbin/sshd\", \"cause\": \"ip\"}, {\"comm\": \"cat\", "
		 "\"path\": \"/srv/in/*\"}]}",
		 hex);
	p = policy(json);
	att_lat_state_init(&st);

	rec_load(&b, 2);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	/* no EVM key yet */
	assert_int_equal(att_lat_final(&st, p, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "EVM key"));

	rec_policy(&b, 1, "good");
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	rec_policy(&b, 2, "bad");
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	assert_non_null(strstr(why, "is not allowed"));
	att_buf_release(&b);
	rec_evm(&b, 3);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	assert_int_equal(att_lat_final(&st, p, why, sizeof(why)), 0);
	assert_string_equal(why, "");

	rec_relabel(&b, 4);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	assert_non_null(strstr(why, "/opt/input/untrusted.txt"));
	att_buf_release(&b);

	/* acceptable: sshd by IP; cat reading under /srv/in/ */
	rec_demotion(&b, 5, "/usr/sbin/sshd", 2, NULL);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	rec_demotion(&b, 6, "/bin/cat", 1, "/srv/in/upload");
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	/* not acceptable: sshd by a file, cat elsewhere (every record's
	 * comm is "cat") */
	rec_demotion(&b, 7, "/usr/sbin/sshd", 1, "/home/upload");
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	att_buf_release(&b);
	rec_demotion(&b, 8, "/bin/cat", 1, "/srv/other");
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	assert_non_null(strstr(why, "pid 4242"));
	assert_non_null(strstr(why, "/srv/other"));
	att_buf_release(&b);
	assert_int_equal(st.demotions, 4); /* refused ones are folded too */

	/* dropped events are refused unless allowed */
	rec_dropped(&b, 9, 3, 0);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	assert_non_null(strstr(why, "dropped 3"));
	att_buf_release(&b);

	/* leaving the required mode; the state's mode is then refused too */
	rec_mode(&b, 10, 2, 1);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	assert_non_null(
		strstr(why, "lattice mode changed from enforce to permissive"));
	att_buf_release(&b);
	assert_int_equal(att_lat_final(&st, p, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "permissive"));
	/* reaching it is fine */
	rec_mode(&b, 11, 1, 2);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	att_lat_policy_free(p);

	p = policy("{\"dropped_events\": true, \"relabels\": true}");
	rec_dropped(&b, 12, 3, 0);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	rec_relabel(&b, 13);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	/* demotions default to allow */
	rec_demotion(&b, 14, "/bin/sh", 1, "/x");
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	att_lat_policy_free(p);
}

static void policy_bad_json(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{\"mode\": \"strict\"}",
		"{\"mode\": 2}",
		"{\"policy_digests\": [\"abc\"]}",
		"{\"policy_digests\": \"00\"}",
		"{\"evm_key\": 1}",
		"{\"relabels\": \"no\"}",
		"{\"demotions\": \"maybe\"}",
		"{\"acceptable_demotions\": [{}]}",
		"{\"acceptable_demotions\": [{\"exe\": \"\"}]}",
		"{\"acceptable_demotions\": [{\"cause\": \"fifo\"}]}",
		"{\"acceptable_demotions\": [{\"cause\": \"PIPE\"}]}",
		"{\"acceptable_demotions\": [{\"cause\": \"\"}]}",
		"{\"acceptable_demotions\": [{\"cause\": 4}]}",
		"{\"acceptable_demotions\": [{\"cause\": null}]}",
		"{\"acceptable_demotions\": [{\"uid\": 0}]}",
		"{\"acceptable_demotions\": [\"sshd\"]}",
		"{\"dropped_events\": null}",
		"{\"unknown\": true}",
	};
	struct att_lat_policy *p;
	struct json_object *o;
	struct att_wl *wl;
	char err[200], text[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o = json_tokener_parse(bad[i]);
		assert_non_null(o);
		err[0] = '\0';
		p = NULL;
		assert_int_equal(
			att_lat_policy_from_json(o, &p, err, sizeof(err)),
			ATT_E_FORMAT);
		assert_null(p);
		assert_non_null(strstr(err, "lattice"));
		json_object_put(o);
		/* and the whitelist that holds it is refused */
		snprintf(text, sizeof(text), "{\"lattice\": %s}", bad[i]);
		assert_int_not_equal(att_wl_load_json(text, strlen(text), NULL,
						      &wl, err, sizeof(err)),
				     ATT_OK);
	}
}

/* ---- the inter-process causes (3 to 9) ---------------------------- */

static const struct {
	uint8_t value;
	const char *name, *reason;
} new_causes[] = {
	{3, "process", "after tracing or accessing another process's memory)"},
	{4, "pipe", "after reading from a pipe)"},
	{5, "unix", "after receiving on a UNIX socket)"},
	{6, "shm", "after attaching SysV shared memory)"},
	{7, "msg", "after receiving a SysV message)"},
	{8, "mqueue", "after receiving a POSIX message)"},
	{9, "object",
	 "after reading a kernel object (netlink, eventfd, pty, key, "
	 "semaphore, xattr))"},
};

#define NCAUSES (sizeof(new_causes) / sizeof(new_causes[0]))

/* a state with a load record, at seq 1 */
static void loaded(struct att_lat_state *st)
{
	struct att_buf b;
	char why[ATT_DETAIL_LEN];

	att_lat_state_init(st);
	rec_load(&b, 2);
	assert_int_equal(step(st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
}

static void causes_table(void **state)
{
	const struct att_sev_cause_info *c;
	size_t i;

	(void)state;
	assert_string_equal(att_sev_cause(1)->name, "file");
	assert_string_equal(att_sev_cause(2)->name, "ip");
	for (i = 0; i < NCAUSES; i++) {
		c = att_sev_cause(new_causes[i].value);
		assert_non_null(c);
		assert_int_equal(c->value, new_causes[i].value);
		assert_string_equal(c->name, new_causes[i].name);
		assert_ptr_equal(att_sev_cause_by_name(new_causes[i].name), c);
	}
	assert_null(att_sev_cause(0));
	assert_null(att_sev_cause(10));
	assert_null(att_sev_cause(255));
	assert_null(att_sev_cause_by_name("fifo"));
	assert_null(att_sev_cause_by_name(""));
	assert_null(att_sev_cause_by_name(NULL));
}

/* each new cause parses, with or without a path, and folds */
static void causes_parse_and_fold(void **state)
{
	struct att_slim_event ev;
	struct att_lat_state st;
	struct att_buf b;
	char why[ATT_DETAIL_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < NCAUSES; i++) {
		rec_demotion(&b, 1, "/usr/bin/x", new_causes[i].value, NULL);
		assert_int_equal(att_slim_event_parse(b.data, b.len, &ev, why,
						      sizeof(why)),
				 ATT_OK);
		assert_int_equal(ev.type, ATT_SEV_DEMOTION);
		assert_int_equal(ev.cause, new_causes[i].value);
		assert_false(ev.have & (1u << T_PATH));
		loaded(&st);
		assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)),
				 ATT_LAT_OK);
		att_buf_release(&b);
		assert_int_equal(st.demotions, 1);
		assert_int_equal(st.nrecent, 1);
		assert_int_equal(st.recent[0].cause, new_causes[i].value);
		assert_string_equal(st.recent[0].exe, "/usr/bin/x");
		/* a path is not required, and one sent anyway is accepted */
		rec_demotion(&b, 2, "/usr/bin/x", new_causes[i].value, "/p");
		assert_int_equal(parse_rc(&b), ATT_OK);
		assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)),
				 ATT_LAT_OK);
		att_buf_release(&b);
		assert_int_equal(st.demotions, 2);
	}
}

/* cause 0 and 10 are malformed records, and the reason says so */
static void causes_unknown_refused(void **state)
{
	static const uint8_t bad[] = {0, 10, 255};
	struct att_slim_event ev;
	struct att_lat_state st;
	struct att_buf b;
	char why[ATT_DETAIL_LEN], want[40];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad); i++) {
		snprintf(want, sizeof(want), "unknown cause %u", bad[i]);
		rec_demotion(&b, 1, "/usr/bin/x", bad[i], NULL);
		why[0] = '\0';
		assert_int_equal(att_slim_event_parse(b.data, b.len, &ev, why,
						      sizeof(why)),
				 ATT_E_FORMAT);
		assert_non_null(strstr(why, want));
		assert_non_null(strstr(why, "1 to 9"));
		loaded(&st);
		why[0] = '\0';
		assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)),
				 ATT_LAT_MALFORMED);
		assert_non_null(strstr(why, want));
		assert_int_equal(st.demotions, 0);
		att_buf_release(&b);
	}
}

/* the JSON names each cause and shows no path but for file */
static void causes_json(void **state)
{
	struct json_object *j, *arr, *d, *v;
	struct att_lat_state st;
	struct att_buf b;
	char why[ATT_DETAIL_LEN];
	size_t i;

	(void)state;
	loaded(&st);
	for (i = 0; i < NCAUSES; i++) {
		rec_demotion(&b, 1 + i, "/usr/bin/x", new_causes[i].value,
			     "/sent/anyway");
		assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)),
				 ATT_LAT_OK);
		att_buf_release(&b);
	}
	rec_demotion(&b, 1 + NCAUSES, "/bin/cat", 1, "/srv/f");
	assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)), ATT_LAT_OK);
	att_buf_release(&b);
	j = att_lat_state_json(&st, "slim");
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "recent_demotions", &arr));
	assert_int_equal(json_object_array_length(arr), NCAUSES + 1);
	/* newest first: the file, then the new causes from the last */
	d = json_object_array_get_idx(arr, 0);
	assert_true(json_object_object_get_ex(d, "cause", &v));
	assert_string_equal(json_object_get_string(v), "file");
	assert_true(json_object_object_get_ex(d, "path", &v));
	assert_string_equal(json_object_get_string(v), "/srv/f");
	for (i = 0; i < NCAUSES; i++) {
		d = json_object_array_get_idx(arr, NCAUSES - i);
		assert_true(json_object_object_get_ex(d, "cause", &v));
		assert_string_equal(json_object_get_string(v),
				    new_causes[i].name);
		assert_false(json_object_object_get_ex(d, "path", &v));
	}
	json_object_put(j);
}

/* acceptable_demotions matches by each cause name; the reason text */
static void causes_policy(void **state)
{
	struct att_lat_policy *p, *deny;
	struct att_lat_state st;
	struct att_buf b;
	char why[ATT_DETAIL_LEN], json[300];
	size_t i, k;

	(void)state;
	deny = policy("{\"demotions\": \"deny\"}");
	for (i = 0; i < NCAUSES; i++) {
		snprintf(json, sizeof(json),
			 "{\"demotions\": \"deny\", \"acceptable_demotions\": "
			 "[{\"exe\": \"/usr/bin/*\", \"cause\": \"%s\"}, "
			 "{\"path\": \"/*\", \"cause\": \"%s\"}]}",
			 new_causes[i].name, new_causes[i].name);
		p = policy(json);
		assert_int_equal(p->nacceptable, 2);
		assert_int_equal(p->acceptable[0].cause, new_causes[i].value);
		loaded(&st);
		for (k = 0; k < NCAUSES; k++) {
			rec_demotion(&b, 1 + k, "/usr/bin/x",
				     new_causes[k].value, NULL);
			why[0] = '\0';
			assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
					 k == i ? ATT_LAT_OK : ATT_LAT_REFUSED);
			if (k != i)
				assert_non_null(
					strstr(why, new_causes[k].reason));
			att_buf_release(&b);
		}
		/* the same cause by another exe; by ip; by a file */
		rec_demotion(&b, 1 + NCAUSES, "/bin/x", new_causes[i].value,
			     "/etc/x");
		assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
				 ATT_LAT_REFUSED);
		att_buf_release(&b);
		rec_demotion(&b, 2 + NCAUSES, "/usr/bin/x", 2, NULL);
		assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
				 ATT_LAT_REFUSED);
		assert_non_null(
			strstr(why, "after receiving on an IP socket)"));
		att_buf_release(&b);
		rec_demotion(&b, 3 + NCAUSES, "/usr/bin/x", 1, "/etc/x");
		assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
				 ATT_LAT_REFUSED);
		assert_non_null(strstr(why, "after reading /etc/x)"));
		att_buf_release(&b);
		att_lat_policy_free(p);

		/* with no acceptable entry: the full reason */
		loaded(&st);
		rec_demotion(&b, 1, "/usr/bin/x", new_causes[i].value, NULL);
		assert_int_equal(step(&st, deny, &b, 0, why, sizeof(why)),
				 ATT_LAT_REFUSED);
		snprintf(
			json, sizeof(json),
			"SYSTEM task demoted: pid 4242 comm cat exe /usr/bin/x "
			"(UNTRUSTED PUBLIC %s",
			new_causes[i].reason);
		assert_string_equal(why, json);
		att_buf_release(&b);
	}
	att_lat_policy_free(deny);
	/* an ip entry does not accept a UNIX socket, nor file a pipe */
	p = policy("{\"demotions\": \"deny\", \"acceptable_demotions\": "
		   "[{\"cause\": \"ip\"}, {\"cause\": \"file\"}]}");
	loaded(&st);
	rec_demotion(&b, 1, "/usr/bin/x", ATT_SEV_CAUSE_UNIX, NULL);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	att_buf_release(&b);
	rec_demotion(&b, 2, "/usr/bin/x", ATT_SEV_CAUSE_PIPE, NULL);
	assert_int_equal(step(&st, p, &b, 0, why, sizeof(why)),
			 ATT_LAT_REFUSED);
	att_buf_release(&b);
	att_lat_policy_free(p);
}

/* the stored state keeps each cause and refuses one that is none */
static void causes_stored(void **state)
{
	struct att_lat_state st, back;
	struct att_buf b, enc;
	struct att_rd r;
	char why[ATT_DETAIL_LEN];
	size_t i;

	(void)state;
	loaded(&st);
	for (i = 0; i < NCAUSES; i++) {
		rec_demotion(&b, 1 + i, "/usr/bin/x", new_causes[i].value,
			     NULL);
		assert_int_equal(step(&st, NULL, &b, 0, why, sizeof(why)),
				 ATT_LAT_OK);
		att_buf_release(&b);
	}
	att_buf_init(&enc, 0);
	assert_int_equal(att_lat_state_encode(&st, &enc), ATT_OK);
	att_rd_init(&r, enc.data, enc.len);
	assert_int_equal(att_lat_state_decode(&r, &back), ATT_OK);
	assert_memory_equal(&st, &back, sizeof(st));
	att_buf_release(&enc);
	st.recent[2].cause = 10;
	att_buf_init(&enc, 0);
	assert_int_equal(att_lat_state_encode(&st, &enc), ATT_OK);
	att_rd_init(&r, enc.data, enc.len);
	assert_int_equal(att_lat_state_decode(&r, &back), ATT_E_FORMAT);
	att_buf_release(&enc);
}

/* ---- storage ------------------------------------------------------ */

static void state_roundtrip(void **state)
{
	struct att_lat_state st, back;
	struct att_buf b, enc;
	struct att_rd r;
	char why[ATT_DETAIL_LEN];
	size_t i;

	(void)state;
	att_lat_state_init(&st);
	rec_load(&b, 2);
	step(&st, NULL, &b, 0, why, sizeof(why));
	att_buf_release(&b);
	rec_policy(&b, 1, "p");
	step(&st, NULL, &b, 0, why, sizeof(why));
	att_buf_release(&b);
	rec_demotion(&b, 2, "/bin/cat", 1, "/opt/input/x");
	step(&st, NULL, &b, 0, why, sizeof(why));
	att_buf_release(&b);
	rec_demotion(&b, 3, "/usr/sbin/sshd", 2, NULL);
	step(&st, NULL, &b, 0, why, sizeof(why));
	att_buf_release(&b);
	st.gap = 1;
	att_buf_init(&enc, 0);
	assert_int_equal(att_lat_state_encode(&st, &enc), ATT_OK);
	att_rd_init(&r, enc.data, enc.len);
	assert_int_equal(att_lat_state_decode(&r, &back), ATT_OK);
	assert_int_equal(att_rd_left(&r), 0);
	assert_memory_equal(&st, &back, sizeof(st));
	for (i = 0; i < enc.len; i++) {
		att_rd_init(&r, enc.data, i);
		assert_int_not_equal(att_lat_state_decode(&r, &back), ATT_OK);
	}
	att_buf_release(&enc);
}

/* a stored replay state of version 1 (before lattice states) */
static void replay_state_v1_unsupported(void **state)
{
	static const enum att_hash banks[] = {ATT_HASH_SHA256};
	struct att_replay_state st;
	struct att_replay *rp;
	uint8_t *enc;
	size_t n;

	(void)state;
	assert_int_equal(att_replay_new(banks, 1, &rp), ATT_OK);
	assert_int_equal(
		att_replay_state_encode(att_replay_state(rp), &enc, &n),
		ATT_OK);
	assert_int_equal(att_replay_state_decode(enc, n, &st), ATT_OK);
	enc[4] = 1;
	assert_int_equal(att_replay_state_decode(enc, n, &st),
			 ATT_E_UNSUPPORTED);
	free(enc);
	att_replay_free(rp);
}

/* ---- slim_gap and whole lists ------------------------------------- */

static void ent_gap(struct att_buf *list, const uint8_t *v1,
		    const uint8_t *v256, int bad)
{
	char name[200], h1[41], h256[65];
	struct att_buf td;
	uint8_t d[32];

	att_hex_encode(v1, 20, h1);
	att_hex_encode(v256, 32, h256);
	snprintf(name, sizeof(name),
		 "slim_gap sha1:%s tpm_alg_0012:00 "
		 "sha256:%s",
		 h1, h256);
	memcpy(d, v256, 32);
	d[31] ^= (uint8_t)bad;
	att_buf_init(&td, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, name);
	ib_record(list, 11, "sha1", "ima-ng", &td, 0);
	/* the expected PCR: from the named value, then this entry */
	att_buf_release(&td);
}

/* the SHA-256 template hash of the last record of list (from offset) */
static void thash256(const struct att_buf *list, size_t off, uint8_t *t)
{
	/* pcr(4) sha1(20) namelen(4) name datalen(4) data */
	uint32_t nl, dl;

	memcpy(&nl, list->data + off + 24, 4);
	memcpy(&dl, list->data + off + 28 + nl, 4);
	ib_hash("sha256", list->data + off + 32 + nl, dl + 0, t);
}

static int check(const struct att_buf *list, const struct att_wl *wl,
		 const struct att_pcrs *q, struct att_check_result *res)
{
	static const enum att_hash banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};
	struct att_check_opts o = {.quoted = q, .pcr_mask = 1u << 11};
	struct att_ima_reader *r;
	struct att_replay *rp;
	int rc;

	assert_int_equal(att_replay_new(banks, 2, &rp), ATT_OK);
	assert_int_equal(att_ima_reader_new_mem(list->data, list->len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	att_check_result_init(res);
	rc = att_check_list(r, wl, rp, &o, res);
	att_ima_reader_free(r);
	att_replay_free(rp);
	return rc;
}

static struct att_wl *wl_with(const char *file_hex, const char *lattice)
{
	char text[1024], err[200];
	struct att_wl *wl;

	snprintf(text, sizeof(text),
		 "{\"digests\": {\"/bin/ok\": [\"sha256:%s\"]}%s%s}", file_hex,
		 lattice ? ", \"lattice\": " : "", lattice ? lattice : "");
	assert_int_equal(att_wl_load_json(text, strlen(text), NULL, &wl, err,
					  sizeof(err)),
			 ATT_OK);
	return wl;
}

static void file_entry(struct att_buf *list, uint32_t pcr, const char *path,
		       const char *content)
{
	struct att_buf td;
	uint8_t d[32];

	ib_hash("sha256", content, strlen(content), d);
	att_buf_init(&td, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, path);
	ib_record(list, pcr, "sha1", "ima-ng", &td, 0);
	att_buf_release(&td);
}

static void list_with_events(void **state)
{
	struct att_check_result res;
	struct att_buf list, b;
	struct att_wl *wl;
	char hex[65];

	(void)state;
	ib_sha256_hex("ok", hex);
	att_buf_init(&list, 0);
	file_entry(&list, 11, "/bin/ok", "ok");
	rec_load(&b, 2);
	ent_event(&list, &b, 0);
	att_buf_release(&b);
	rec_demotion(&b, 1, "/bin/cat", 1, "/opt/input/untrusted.txt");
	ent_event(&list, &b, 0);
	att_buf_release(&b);

	/* no lattice section: the records are judged and folded */
	wl = wl_with(hex, NULL);
	assert_int_equal(check(&list, wl, NULL, &res), ATT_OK);
	assert_int_equal(res.status, ATT_CHECK_TRUSTED);
	assert_int_equal(res.counts[ATT_V_LATTICE_OK], 2);
	assert_true(res.lattice.loaded);
	assert_int_equal(res.lattice.demotions, 1);
	assert_string_equal(res.lattice.recent[0].path,
			    "/opt/input/untrusted.txt");
	att_check_result_release(&res);
	att_wl_free(wl);

	/* demotions denied: the record is the failure, with its story */
	wl = wl_with(hex, "{\"mode\": \"enforce\", \"demotions\": \"deny\"}");
	assert_int_equal(check(&list, wl, NULL, &res), ATT_OK);
	assert_int_equal(res.status, ATT_CHECK_UNTRUSTED);
	assert_int_equal(res.nfailures, 1);
	assert_int_equal(res.failures[0].verdict, ATT_V_LATTICE_POLICY);
	assert_int_equal(res.failures[0].index, 2);
	assert_non_null(strstr(res.failures[0].detail, "/bin/cat"));
	att_check_result_release(&res);
	att_wl_free(wl);

	/* permissive at load, enforce required: the state is refused */
	att_buf_release(&list);
	att_buf_init(&list, 0);
	rec_load(&b, 1);
	ent_event(&list, &b, 0);
	att_buf_release(&b);
	wl = wl_with(hex, "{\"mode\": \"enforce\"}");
	assert_int_equal(check(&list, wl, NULL, &res), ATT_OK);
	assert_int_equal(res.status, ATT_CHECK_UNTRUSTED);
	assert_int_equal(res.failures_total, 0);
	assert_non_null(strstr(res.lattice_refusal, "permissive"));
	att_check_result_release(&res);

	/* a malformed record fails whatever the whitelist says */
	att_buf_release(&list);
	att_buf_init(&list, 0);
	rec_load(&b, 2);
	ent_event(&list, &b, 1);
	att_buf_release(&b);
	assert_int_equal(check(&list, NULL, NULL, &res), ATT_OK);
	assert_int_equal(res.status, ATT_CHECK_UNTRUSTED);
	assert_int_equal(res.failures[0].verdict, ATT_V_LATTICE_MALFORMED);
	att_check_result_release(&res);
	att_wl_free(wl);
	att_buf_release(&list);
}

static void gap_replays_from_named_values(void **state)
{
	uint8_t v1[20], v256[32], p256[32], t[32];
	struct att_check_result res;
	struct att_buf list, b;
	struct att_pcrs q;
	struct att_wl *wl;
	size_t off;
	char hex[65];

	(void)state;
	ib_hash("sha1", "before", 6, v1);
	ib_hash("sha256", "before", 6, v256);
	ib_sha256_hex("ok", hex);
	wl = wl_with(hex, "{\"mode\": \"enforce\"}");
	att_buf_init(&list, 0);
	memcpy(p256, v256, 32);
	ent_gap(&list, v1, v256, 0);
	thash256(&list, 0, t);
	ib_extend("sha256", p256, t);
	off = list.len;
	file_entry(&list, 11, "/bin/ok", "ok");
	thash256(&list, off, t);
	ib_extend("sha256", p256, t);
	off = list.len;
	rec_load(&b, 2);
	ent_event(&list, &b, 0);
	att_buf_release(&b);
	thash256(&list, off, t);
	ib_extend("sha256", p256, t);
	att_pcrs_clear(&q);
	assert_int_equal(att_pcrs_set(&q, ATT_HASH_SHA256, 11, p256, 32),
			 ATT_OK);

	assert_int_equal(check(&list, wl, &q, &res), ATT_OK);
	assert_true(res.replay_matched);
	assert_int_equal(res.verified, 3);
	assert_int_equal(res.status, ATT_CHECK_UNTRUSTED);
	assert_int_equal(res.failures_total, 1);
	assert_int_equal(res.failures[0].index, 0);
	assert_int_equal(res.failures[0].verdict, ATT_V_GAP);
	assert_non_null(
		strstr(res.failures[0].detail, "module reloaded in this boot"));
	assert_true(res.lattice.gap);
	assert_true(res.lattice.loaded);
	att_check_result_release(&res);

	/* a gap record whose digest is not the value it names */
	att_buf_release(&list);
	att_buf_init(&list, 0);
	ent_gap(&list, v1, v256, 1);
	assert_int_equal(check(&list, wl, NULL, &res), ATT_OK);
	assert_int_equal(res.status, ATT_CHECK_UNTRUSTED);
	assert_int_equal(res.failures[0].verdict, ATT_V_LATTICE_MALFORMED);
	assert_non_null(strstr(res.failures[0].detail, "slim_gap"));
	att_check_result_release(&res);
	att_buf_release(&list);
	att_wl_free(wl);
}

static void gap_names(void **state)
{
	static const char *const bad[] = {
		"slim_gap",	"slim_gap sha256",  "slim_gap sha256:00",
		"slim_gap :00", "slim_gap sha256:", "slim_gap tpm_alg_0012:00",
	};
	struct att_ima_reader *r;
	struct att_ima_entry e;
	struct att_slim_gap g;
	struct att_buf list, td;
	uint8_t v[32];
	char name[300], h[65], why[160];
	size_t i;

	(void)state;
	ib_hash("sha256", "x", 1, v);
	att_hex_encode(v, 32, h);
	for (i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		if (i < sizeof(bad) / sizeof(bad[0]))
			snprintf(name, sizeof(name), "%s", bad[i]);
		else /* a bank named twice */
			snprintf(name, sizeof(name),
				 "slim_gap sha256:%s sha256:%s", h, h);
		att_buf_init(&list, 0);
		att_buf_init(&td, 0);
		ib_dng(&td, "sha256", v, 32);
		ib_nng(&td, name);
		ib_record(&list, 11, "sha1", "ima-ng", &td, 0);
		r = one_entry(&list, &e);
		why[0] = '\0';
		assert_int_equal(att_slim_gap_parse(&e, &g, why, sizeof(why)),
				 ATT_E_FORMAT);
		assert_non_null(strstr(why, "slim_gap"));
		att_ima_reader_free(r);
		att_buf_release(&td);
		att_buf_release(&list);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_every_type),
		cmocka_unit_test(refused_records),
		cmocka_unit_test(parse_truncation),
		cmocka_unit_test(parse_bad_bytes),
		cmocka_unit_test(fold_and_sequence),
		cmocka_unit_test(fold_sanitises_text),
		cmocka_unit_test(policy_rules),
		cmocka_unit_test(policy_bad_json),
		cmocka_unit_test(causes_table),
		cmocka_unit_test(causes_parse_and_fold),
		cmocka_unit_test(causes_unknown_refused),
		cmocka_unit_test(causes_json),
		cmocka_unit_test(causes_policy),
		cmocka_unit_test(causes_stored),
		cmocka_unit_test(state_roundtrip),
		cmocka_unit_test(replay_state_v1_unsupported),
		cmocka_unit_test(list_with_events),
		cmocka_unit_test(gap_replays_from_named_values),
		cmocka_unit_test(gap_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
