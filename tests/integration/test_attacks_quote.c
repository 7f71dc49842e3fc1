// SPDX-License-Identifier: Apache-2.0
/*
 * test_attacks_quote.c - what the quote covers, and whose it is, against
 * the real attest-verifier over TLS (SQLite; PostgreSQL) with real swtpm
 * TPMs through the agent's TPM layer:
 *
 * - Values outside the quote decide nothing: a boot_aggregate made over
 *   SHA-1 PCRs 0-7 that the agent adds unquoted to "pcrs" is untrusted,
 *   naming the PCRs; a static PCR rule on PCR 15 puts PCR 15 in the
 *   challenge's selection, a quote without it is refused however the
 *   agent fills "pcrs", and a quote with it is judged by the TPM's value.
 * - Cloned TPMs: a swtpm started from a copy of the agent's TPM state
 *   (same EK, AK, resetCount) quotes with a clock behind the original's:
 *   "possible cloned TPM" naming what went backwards and both readings,
 *   sticky across the original's good quotes until an administrator
 *   clears it (DELETE /v1/agents/ID/clone, a history row naming the
 *   certificate); later the clone's clock runs ahead of the last accepted
 *   one but behind the wall time since: caught again.
 * - A refused request that carried another agent's nonce spends nothing:
 *   that agent's evidence with it is then accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/pcrs.h"
#include "attest/tpm_quote.h"
#include "attest/replay.h"
#include "attest/tpm_esys.h"
#include "attest/uefi.h"
#include "imabuild.h"
#include "swtpm.h"
#include "verifier_proc.h"
#include "vhost/vhost.h"

/* The clone starts this long after the original: its clock lags by it. */
#define CLONE_GAP 6

static struct vh_host F;
static char static_file[64];
static uint8_t d15[32], want15[32]; /* PCR 15 = extend(0, d15) */

static int write_static(void)
{
	char hex[65];
	FILE *f;
	int fd;

	snprintf(static_file, sizeof(static_file), "/tmp/att-static-XXXXXX");
	fd = mkstemp(static_file);
	if (fd < 0)
		return -1;
	close(fd);
	ib_hash("sha256", "pcr 15", 6, d15);
	memset(want15, 0, sizeof(want15));
	ib_extend("sha256", want15, d15);
	att_hex_encode(want15, 32, hex);
	f = fopen(static_file, "w");
	if (!f)
		return -1;
	fprintf(f, "{\"sha256\": {\"15\": \"%s\"}}\n", hex);
	return fclose(f) ? -1 : 0;
}

static void pcr15_good(struct att_esys *tpm)
{
	assert_int_equal(att_esys_pcr_extend(tpm, 15, ATT_HASH_SHA256, d15), 0);
}

/* After each group's set-up: PCR 15 as the static rule wants it. */
static int pcr15_setup(struct vh_host *h)
{
	pcr15_good(h->tpm);
	return 0;
}

static void expect(struct json_object *res, const char *state,
		   const char *reason)
{
	const char *txt = json_object_to_json_string(res);

	if (strcmp(vh_jstr(res, "state"), state) ||
	    (reason && !strstr(txt, reason)))
		fail_msg("expected %s%s%s: %s", state, reason ? " with " : "",
			 reason ? reason : "", txt);
}

static struct json_object *round_as(struct vh_round *rd, int status)
{
	struct json_object *res;

	assert_int_equal(vh_attest(&F, rd, &res), status);
	free(rd->body_out);
	rd->body_out = NULL;
	return res;
}

/* ---- 1. only quoted values ---- */

static const char fake_sha1[] = "4242424242424242424242424242424242424242";

/* The agent adds SHA-1 PCRs 0-7 of its choosing, unquoted. */
static void add_sha1_pcrs(struct json_object *ev)
{
	struct json_object *bank = json_object_new_object();
	char k[12];

	for (int i = 0; i < 8; i++) {
		snprintf(k, sizeof(k), "%d", i);
		json_object_object_add(bank, k,
				       json_object_new_string(fake_sha1));
	}
	json_object_object_add(json_object_object_get(ev, "pcrs"), "sha1",
			       bank);
}

/* A new boot whose boot_aggregate is SHA-1 over the fake PCRs 0-7. */
static void boot_with_fake_aggregate(void)
{
	struct att_pcrs fake;
	struct att_buf td;
	uint8_t v[20], agg[20], d1[20], d256[32];

	vh_tpm_power_cycle(&F, 1);
	pcr15_good(F.tpm);
	att_pcrs_clear(&fake);
	memset(v, 0x42, sizeof(v));
	for (unsigned int i = 0; i < 8; i++)
		assert_int_equal(att_pcrs_set(&fake, ATT_HASH_SHA1, i, v, 20),
				 0);
	assert_int_equal(att_boot_aggregate(&fake, ATT_HASH_SHA1, 0, agg), 0);
	att_buf_release(&F.log);
	att_buf_init(&F.log, 0);
	att_buf_init(&td, 0);
	ib_dng(&td, "sha1", agg, 20);
	ib_nng(&td, "boot_aggregate");
	ib_record(&F.log, 10, "sha1", "ima-ng", &td, 0);
	ib_hash("sha1", td.data, td.len, d1);
	ib_hash("sha256", td.data, td.len, d256);
	assert_int_equal(att_esys_pcr_extend(F.tpm, 10, ATT_HASH_SHA1, d1), 0);
	assert_int_equal(att_esys_pcr_extend(F.tpm, 10, ATT_HASH_SHA256, d256),
			 0);
	att_buf_release(&td);
	F.nentries = 1;
}

static void test_unquoted_boot_aggregate(void **state)
{
	struct vh_round rd = {.id = "host-1", .start = 0, .upto = -1};
	struct json_object *res;

	(void)state;
	boot_with_fake_aggregate();
	/* The fake PCRs sent beside the quote: they decide nothing. */
	rd.edit = add_sha1_pcrs;
	res = round_as(&rd, 200);
	expect(res, "untrusted",
	       "boot-aggregate-bad: its PCRs 0-7 (sha1) were not quoted");
	json_object_put(res);
	/* Without them: the same verdict. */
	rd.edit = NULL;
	res = round_as(&rd, 200);
	expect(res, "untrusted",
	       "boot-aggregate-bad: its PCRs 0-7 (sha1) were not quoted");
	json_object_put(res);
	/* A genuine boot: trusted, the fake values beside it ignored. */
	vh_tpm_power_cycle(&F, 1);
	pcr15_good(F.tpm);
	vh_boot(&F);
	rd.edit = add_sha1_pcrs;
	res = round_as(&rd, 200);
	expect(res, "trusted", NULL);
	json_object_put(res);
}

/* The agent claims PCR 15 has the expected value, without quoting it. */
static void add_pcr15(struct json_object *ev)
{
	char hex[65];

	att_hex_encode(want15, 32, hex);
	json_object_object_add(
		json_object_object_get(json_object_object_get(ev, "pcrs"),
				       "sha256"),
		"15", json_object_new_string(hex));
}

static void test_unquoted_static_pcr(void **state)
{
	const char *extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR,
			       "--static_pcrs", static_file, NULL};
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct json_object *res, *js, *sel;
	struct att_vproc *keep = F.vp, *v;
	int has15 = 0, st;

	(void)state;
	/* A verifier on the same database with a static rule on PCR 15. */
	assert_int_equal(att_vproc_start(F.dir, F.db, extra, &v), 0);
	F.vp = v;
	/* The challenge asks for the PCR the static rule needs. */
	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/challenge",
				"{\"agent_id\":\"host-1\"}", &js),
			 201);
	sel = vh_jget(vh_jget(js, "pcr_selection"), "sha256");
	for (size_t i = 0; i < json_object_array_length(sel); i++)
		has15 |= json_object_get_int(
				 json_object_array_get_idx(sel, i)) == 15;
	json_object_put(js);
	assert_true(has15);
	/* A new boot: PCR 15 is not the expected value any more. */
	vh_tpm_power_cycle(&F, 1);
	vh_boot(&F);
	rd.start = 0;
	/* PCRs 0-10 quoted, the expected PCR 15 claimed beside the quote. */
	rd.sel_mask = 0x7ff;
	rd.edit = add_pcr15;
	res = round_as(&rd, 200);
	expect(res, "untrusted",
	       "quote: quoted PCR selection is not the one requested");
	json_object_put(res);
	/* Quoted as asked: judged by the TPM's own PCR 15. */
	rd.sel_mask = 0;
	rd.edit = NULL;
	res = round_as(&rd, 200);
	expect(res, "untrusted",
	       "static PCR 15 (sha256) is not the expected value");
	json_object_put(res);
	/* And once PCR 15 holds the expected value: trusted. */
	pcr15_good(F.tpm);
	res = round_as(&rd, 200);
	expect(res, "trusted", NULL);
	json_object_put(res);
	F.vp = keep;
	assert_int_equal(att_vproc_stop(v, &st), 0);
	assert_int_equal(st, 0);
	att_vproc_free(v);
}

/* ---- 2. cloned TPMs ---- */

static void use_tpm(struct att_esys *tpm)
{
	F.tpm = tpm;
}

static const char *history_event(struct json_object *agent)
{
	struct json_object *h = vh_jget(agent, "history"), *r;

	for (size_t i = 0; i < json_object_array_length(h); i++) {
		r = vh_jget(json_object_array_get_idx(h, i), "result");
		if (r && json_object_object_get(r, "event"))
			return vh_jstr(r, "event");
	}
	return NULL;
}

static void test_cloned_tpm(void **state)
{
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct att_swtpm *csw;
	struct att_esys *orig, *clone;
	struct json_object *res, *js;
	const char *txt;

	(void)state;
	/* The TPM's state, saved by an orderly shutdown, copied. */
	assert_int_equal(Esys_Shutdown(att_esys_context(F.tpm), ESYS_TR_NONE,
				       ESYS_TR_NONE, ESYS_TR_NONE,
				       TPM2_SU_CLEAR),
			 TSS2_RC_SUCCESS);
	att_esys_free(F.tpm);
	F.tpm = NULL;
	assert_int_equal(att_swtpm_stop(F.sw), 0);
	assert_int_equal(att_swtpm_copy(F.sw, &csw), 0);
	assert_int_equal(att_swtpm_restart(F.sw), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(F.sw), &orig), 0);
	assert_int_equal(att_esys_ak_load_persistent(orig, VH_AK_HANDLE), 0);
	/* The clone powers on later: its clock lags the original's. */
	sleep(CLONE_GAP);
	assert_int_equal(att_swtpm_restart(csw), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(csw), &clone), 0);
	assert_int_equal(att_esys_ak_load_persistent(clone, VH_AK_HANDLE), 0);
	/* Both with the same PCRs and list. */
	use_tpm(clone);
	pcr15_good(clone);
	vh_boot(&F);
	use_tpm(orig);
	pcr15_good(orig);
	vh_boot(&F);

	/* The original: a new boot, trusted. */
	rd.start = 0;
	res = round_as(&rd, 200);
	expect(res, "trusted", NULL);
	json_object_put(res);
	rd.start = -1;
	/* The clone: same EK, AK and resetCount, its clock behind. */
	use_tpm(clone);
	res = round_as(&rd, 200);
	expect(res, "untrusted",
	       "possible cloned TPM: the TPM clock went backwards: last "
	       "accepted ");
	expect(res, "untrusted", "quote: TPM clock did not advance");
	json_object_put(res);
	/* Sticky: the original's good quote does not clear it. */
	use_tpm(orig);
	res = round_as(&rd, 200);
	expect(res, "untrusted",
	       "possible cloned TPM: the TPM clock went "
	       "backwards");
	json_object_put(res);
	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/host-1", NULL, &js),
		200);
	txt = vh_jstr(js, "clone_suspected");
	assert_non_null(txt);
	assert_non_null(strstr(txt, "this quote's "));
	assert_non_null(strstr(txt, "(resetCount "));
	json_object_put(js);
	/* Only an administrator clears it. */
	assert_int_equal(vh_req(&F, "host-1", "DELETE",
				"/v1/agents/host-1/clone", NULL, &js),
			 403);
	json_object_put(js);
	assert_int_equal(vh_req(&F, "admin", "DELETE",
				"/v1/agents/host-1/clone", NULL, &js),
			 200);
	json_object_put(js);
	assert_int_equal(vh_req(&F, "admin", "DELETE",
				"/v1/agents/host-1/clone", NULL, &js),
			 404);
	assert_string_equal(vh_jstr(js, "code"), "no_clone_suspected");
	json_object_put(js);
	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/host-1", NULL, &js),
		200);
	assert_null(vh_jget(js, "clone_suspected"));
	assert_non_null(history_event(js));
	assert_string_equal(history_event(js), "clone_cleared");
	json_object_put(js);
	res = round_as(&rd, 200);
	expect(res, "trusted", NULL);
	json_object_put(res);
	/*
	 * Later the clone's clock is past the last accepted one, but it
	 * advanced CLONE_GAP seconds less than the wall time since.
	 */
	sleep(CLONE_GAP + 5);
	use_tpm(clone);
	res = round_as(&rd, 200);
	expect(res, "untrusted",
	       "possible cloned TPM: the TPM clock fell behind the wall time");
	json_object_put(res);
	use_tpm(orig);
	res = round_as(&rd, 200);
	expect(res, "untrusted", "possible cloned TPM");
	json_object_put(res);
	assert_int_equal(vh_req(&F, "admin", "DELETE",
				"/v1/agents/host-1/clone", NULL, &js),
			 200);
	json_object_put(js);
	res = round_as(&rd, 200);
	expect(res, "trusted", NULL);
	json_object_put(res);
	att_esys_free(clone);
	att_swtpm_free(csw);
}

/* ---- 4. a nonce is spent only by its own agent ---- */

static void test_foreign_nonce(void **state)
{
	struct att_swtpm *sw2;
	struct att_esys *tpm2, *keep = F.tpm;
	struct json_object *ch, *res, *js;
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	int created;

	(void)state;
	assert_int_equal(att_swtpm_start(&sw2), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(sw2), &tpm2), 0);
	assert_int_equal(att_esys_ak_ensure(tpm2, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA, VH_AK_HANDLE,
					    &created),
			 0);
	vh_enroll(&F, tpm2, "host-2");
	assert_int_equal(vh_req(&F, "host-2", "POST",
				"/v1/attestation/challenge",
				"{\"agent_id\":\"host-2\"}", &ch),
			 201);
	/* host-1 sends host-2's nonce: refused... */
	rd.nonce = vh_jstr(ch, "nonce");
	res = round_as(&rd, 403);
	assert_string_equal(vh_jstr(res, "code"), "bad_nonce");
	json_object_put(res);
	/* ... and host-2's own evidence with it is taken. */
	{
		struct vh_round r2 = {
			.id = "host-2", .start = 0, .upto = 0, .challenge = ch};

		F.tpm = tpm2;
		res = round_as(&r2, 200);
		F.tpm = keep;
		if (strstr(json_object_to_json_string(res), "nonce"))
			fail_msg("%s", json_object_to_json_string(res));
		json_object_put(res);
	}
	json_object_put(ch);
	assert_int_equal(
		vh_req(&F, "admin", "DELETE", "/v1/agents/host-2", NULL, &js),
		200);
	json_object_put(js);
	att_esys_free(tpm2);
	att_swtpm_free(sw2);
}

int main(void)
{
	static const char *const extra[] = {
		"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, "--clock_drift",
		"1",	       "--clock_slack",	      "1500",
		NULL};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unquoted_boot_aggregate),
		cmocka_unit_test(test_unquoted_static_pcr),
		cmocka_unit_test(test_foreign_nonce),
		cmocka_unit_test(test_cloned_tpm),
	};
	int fails;

	if (write_static())
		return 1;
	fails = vh_run_groups(&F, "quoted", extra, pcr15_setup, tests,
			      sizeof(tests) / sizeof(tests[0]));
	unlink(static_file);
	return fails;
}
