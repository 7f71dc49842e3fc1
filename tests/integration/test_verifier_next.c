// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_next.c - the next challenge carried by a verdict
 * (evidence with "next_challenge": true), against the real
 * attest-verifier over TLS (SQLite; PostgreSQL) with a real swtpm through
 * the agent's TPM layer. Every request and answer is checked against its
 * JSON Schema.
 *
 * - The verdict carries a challenge that is exactly what a challenge
 *   request would give after it (selection, each log's next entry, the
 *   UEFI flag), with a new nonce, and it is not stored with the result.
 * - That challenge makes the next round without any challenge request;
 *   it is single use; an untrusted verdict carries one too (the failed
 *   entry is asked for again).
 * - "next_challenge" must be a boolean; without it there is none.
 * - attest_challenges_total counts requests and verdicts exactly.
 * - A carried challenge expires like any other (nonce_expired).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "verifier_http.h"
#include "verifier_proc.h"
#include "swtpm.h"
#include "vhost/vhost.h"

static struct vh_host F;

static const char *const extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, NULL};

/* After each group's set-up (vh_run_groups). */
static int after_setup(struct vh_host *h)
{
	h->no_schema = 0; /* every exchange against its schema */
	vh_boot(h);
	return 0;
}

/* attest_challenges_total{via="VIA"} from /metrics. */
static long long challenges(const char *via)
{
	long long v = att_vh_metric(att_vproc_port(F.vp), F.dir,
				    "attest_challenges_total{via=\"%s\"}", via);

	assert_true(v >= 0);
	return v;
}

static struct json_object *ask(void)
{
	struct json_object *js;

	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/challenge",
				"{\"agent_id\":\"host-1\"}", &js),
			 201);
	return js;
}

/* The same challenge but for its nonce and expiry. */
static void assert_same_challenge(struct json_object *a, struct json_object *b)
{
	static const char *const keys[] = {"agent_id", "pcr_selection", "logs",
					   "uefi_log"};
	struct json_object *va, *vb;
	size_t i;
	int ha, hb;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		ha = json_object_object_get_ex(a, keys[i], &va);
		hb = json_object_object_get_ex(b, keys[i], &vb);
		assert_int_equal(ha, hb);
		if (ha && !json_object_equal(va, vb))
			fail_msg("%s: %s != %s", keys[i],
				 json_object_to_json_string(va),
				 json_object_to_json_string(vb));
	}
	assert_string_not_equal(vh_jstr(a, "nonce"), vh_jstr(b, "nonce"));
}

static int64_t next_entry(struct json_object *ch)
{
	return vh_jint(json_object_array_get_idx(vh_jget(ch, "logs"), 0),
		       "next_entry");
}

static void test_carried_challenge(void **state)
{
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct json_object *res, *res2, *next, *fresh, *rec;
	long long req0 = challenges("request"), ver0 = challenges("verdict");
	int64_t now = (int64_t)time(NULL), exp;
	char used[80];

	(void)state;
	/* Round 1, asked for: boot_aggregate, trusted, next challenge. */
	rd.want_next = 1;
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	assert_string_equal(vh_jstr(res, "state"), "trusted");
	next = json_object_get(vh_jget(res, "next_challenge"));
	snprintf(used, sizeof(used), "%s", rd.nonce_out);
	assert_string_not_equal(vh_jstr(next, "nonce"), used);
	assert_int_equal(strlen(vh_jstr(next, "nonce")), 64);
	exp = vh_jint(next, "expires");
	assert_in_range(exp, now + 55, now + 65); /* nonce_lifetime 60 */
	assert_int_equal(next_entry(next), (int64_t)F.nentries);
	/* What a challenge request says now, but for the nonce. */
	fresh = ask();
	assert_same_challenge(next, fresh);
	json_object_put(fresh);
	json_object_put(res);
	/* Not stored: the agent's record has no trace of it. */
	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/host-1", NULL, &rec),
		200);
	assert_null(strstr(json_object_to_json_string(rec), "next_challenge"));
	assert_null(strstr(json_object_to_json_string(rec),
			   vh_jstr(next, "nonce")));
	json_object_put(rec);

	/* Round 2 on the carried challenge: no request. */
	vh_measure(&F, "/usr/bin/unknown", "not in the whitelist");
	rd.challenge = next;
	assert_int_equal(vh_attest(&F, &rd, &res2), 200);
	/* Untrusted, and still a next challenge: from the failed entry. */
	assert_string_equal(vh_jstr(res2, "state"), "untrusted");
	assert_int_equal(next_entry(vh_jget(res2, "next_challenge")),
			 (int64_t)F.nentries - 1);
	fresh = ask();
	assert_same_challenge(vh_jget(res2, "next_challenge"), fresh);
	json_object_put(fresh);
	json_object_put(res2);
	/* The carried nonce was single use. */
	{
		struct att_vh_resp r;
		struct json_object *e;

		assert_int_equal(
			att_vh_request(att_vproc_port(F.vp), F.dir, "host-1",
				       "POST", "/v1/attestation/evidence",
				       rd.body_out, strlen(rd.body_out), &r),
			0);
		assert_int_equal(r.status, 403);
		e = json_tokener_parse(r.body);
		assert_string_equal(vh_jstr(e, "code"), "bad_nonce");
		json_object_put(e);
		att_vh_resp_release(&r);
	}
	json_object_put(next);
	free(rd.body_out);
	/* One round asked (round 1), two asks above; two verdicts gave. */
	assert_int_equal(challenges("request") - req0, 3);
	assert_int_equal(challenges("verdict") - ver0, 2);
}

static void test_not_asked_or_wrong(void **state)
{
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct json_object *res, *e;
	long long ver0 = challenges("verdict");
	char *body, *p;

	(void)state;
	/* Without the field: no next challenge. */
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	assert_false(json_object_object_get_ex(res, "next_challenge", &e));
	json_object_put(res);
	assert_int_equal(challenges("verdict"), ver0);
	/* Not a boolean: 400 naming the field, nothing issued. */
	rd.want_next = 1;
	rd.no_send = 1;
	assert_int_equal(vh_attest(&F, &rd, &res), 0);
	body = rd.body_out;
	p = strstr(body, "\"next_challenge\": true");
	assert_non_null(p);
	memcpy(p + strlen("\"next_challenge\": "), "  1 ", 4);
	F.no_schema = 1; /* a body the schema refuses, on purpose */
	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/evidence", body, &e),
			 400);
	F.no_schema = 0;
	assert_string_equal(vh_jstr(e, "code"), "wrong_type");
	assert_non_null(strstr(vh_jstr(e, "message"), "next_challenge"));
	json_object_put(e);
	free(body);
	assert_int_equal(challenges("verdict"), ver0);
}

static void test_carried_expires(void **state)
{
	const char *const short_life[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR,
					  "--nonce-lifetime", "1", NULL};
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct timespec ts = {2, 200 * 1000 * 1000};
	struct json_object *res, *next;
	struct att_vproc *v2;
	int st;

	(void)state;
	/*
	 * A second verifier on the same database, 1 s nonces, takes the
	 * evidence (the challenge asked for comes from the first one, 60 s:
	 * a slow round must not expire it) and gives the next challenge.
	 */
	assert_int_equal(att_vproc_start(F.dir, F.db, short_life, &v2), 0);
	rd.vp = v2;
	rd.want_next = 1;
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	next = json_object_get(vh_jget(res, "next_challenge"));
	json_object_put(res);
	free(rd.body_out);
	rd.body_out = NULL;
	nanosleep(&ts, NULL);
	rd.challenge = next;
	assert_int_equal(vh_attest(&F, &rd, &res), 403);
	assert_string_equal(vh_jstr(res, "code"), "nonce_expired");
	json_object_put(res);
	json_object_put(next);
	free(rd.body_out);
	assert_int_equal(att_vproc_stop(v2, &st), 0);
	assert_int_equal(st, 0);
	att_vproc_free(v2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_carried_challenge),
		cmocka_unit_test(test_not_asked_or_wrong),
		cmocka_unit_test(test_carried_expires),
	};
	return vh_run_groups(&F, "next", extra, after_setup, tests,
			     sizeof(tests) / sizeof(tests[0]));
}
