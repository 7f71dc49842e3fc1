// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_boot.c - the firmware side of a boot, end to end: the
 * real attest-verifier (SQLite; PostgreSQL) over TLS, a real swtpm driven
 * through the agent's TPM layer, every exchange checked against its JSON
 * Schema.
 *
 * - Static PCRs (--static-pcrs): the host's real PCR 0 is trusted, any
 *   other value untrusted with the PCR named.
 * - The UEFI event log: a header-only log replays to untouched PCRs 0-7;
 *   an event the TPM never saw is untrusted until it is extended; garbage
 *   is untrusted.
 * - require_uefi_log: once per boot; after a reboot evidence without it
 *   is untrusted and the challenge asks for it, with it trusted, then it
 *   is not asked for again.
 * - The whitelist's boot section (measured boot policy): a log that
 *   replays and matches it is trusted; a boot application it does not
 *   allow is untrusted with the event named; without the log, untrusted;
 *   the challenge asks for the log every round.
 *
 * The tests run in order on one host and verifier.
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

#include "attest/boot.h"
#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/tpm_esys.h"
#include "attest/tpm_quote.h"
#include "evbuild.h"
#include "imabuild.h"
#include "swtpm.h"
#include "verifier_http.h"
#include "verifier_proc.h"
#include "vhost/vhost.h"

static struct vh_host F;

static const char *const extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, NULL};

/* "base" (host-1's whitelist) allows /usr/bin/a ("A") and /usr/bin/b ("B"). */
static void whitelist_ab(void)
{
	char body[512], ha[65], hb[65];
	struct json_object *js;

	ib_sha256_hex("A", ha);
	ib_sha256_hex("B", hb);
	snprintf(body, sizeof(body),
		 "{\"whitelist\":{\"digests\":{\"/usr/bin/a\":[\"%s\"],"
		 "\"/usr/bin/b\":[\"%s\"]}}}",
		 ha, hb);
	assert_int_equal(
		vh_req(&F, "admin", "PUT", "/v1/whitelists/base", body, &js),
		200);
	json_object_put(js);
}

/* After each group's set-up (vh_run_groups). */
static int after_setup(struct vh_host *h)
{
	(void)h;
	F.no_schema = 0;
	whitelist_ab();
	vh_boot(&F);
	return 0;
}

static void write_static(const char *path, const uint8_t *v)
{
	char hex[65];
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	att_hex_encode(v, 32, hex);
	fprintf(f, "{\"sha256\": {\"0\": \"%s\"}}\n", hex);
	fclose(f);
}

static void test_static_pcrs(void **state)
{
	const char *args[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR,
			      "--static-pcrs", NULL, NULL};
	struct att_vproc *keep = F.vp, *v;
	struct att_pcr_sel sel;
	struct att_pcrs pv;
	struct json_object *res;
	uint8_t pcr0[32];
	char path[160];
	int st, i;

	(void)state;
	memset(&sel, 0, sizeof(sel));
	att_pcr_sel_add(&sel, ATT_HASH_SHA256, 1);
	att_pcrs_clear(&pv);
	assert_int_equal(att_esys_pcr_read(F.tpm, &sel, &pv), 0);
	memcpy(pcr0, att_pcrs_get(&pv, ATT_HASH_SHA256, 0), 32);
	snprintf(path, sizeof(path), "%s/static.json", F.dir);
	args[3] = path;
	/* The host's real PCR 0, then a different one. */
	for (i = 0; i < 2; i++) {
		if (i)
			pcr0[31] ^= 1;
		write_static(path, pcr0);
		assert_int_equal(att_vproc_start(F.dir, F.db, args, &v), 0);
		F.vp = v;
		res = vh_round_ok(&F, i ? "untrusted" : "trusted");
		if (i)
			assert_non_null(strstr(json_object_to_json_string(res),
					       "static PCR 0 (sha256) is not "
					       "the expected value"));
		json_object_put(res);
		F.vp = keep;
		assert_int_equal(att_vproc_stop(v, &st), 0);
		assert_int_equal(st, 0);
		att_vproc_free(v);
	}
}

/* A crypto-agile UEFI log (sha256 only); with_event: one CRTM event. */
static void uefi_log(struct att_buf *b, int with_event, uint8_t *digest)
{
	static const uint8_t zero20[20];

	att_buf_init(b, 0);
	att_buf_append_u32le(b, 0);
	att_buf_append_u32le(b, 3); /* EV_NO_ACTION */
	att_buf_append(b, zero20, 20);
	att_buf_append_u32le(b, 33);
	att_buf_append(b, "Spec ID Event03", 16);
	att_buf_append_u32le(b, 0); /* platform class */
	att_buf_append_u8(b, 0);    /* minor */
	att_buf_append_u8(b, 2);    /* major */
	att_buf_append_u8(b, 0);    /* errata */
	att_buf_append_u8(b, 2);    /* uintn size */
	att_buf_append_u32le(b, 1); /* one algorithm */
	att_buf_append_u8(b, 0x0b); /* sha256, le16 */
	att_buf_append_u8(b, 0x00);
	att_buf_append_u8(b, 32); /* digest size, le16 */
	att_buf_append_u8(b, 0);
	att_buf_append_u8(b, 0); /* vendor info */
	if (!with_event)
		return;
	ib_hash("sha256", "CRTM 1.0", 8, digest);
	att_buf_append_u32le(b, 0);	     /* PCR 0 */
	att_buf_append_u32le(b, 0x00000008); /* EV_S_CRTM_VERSION */
	att_buf_append_u32le(b, 1);
	att_buf_append_u8(b, 0x0b);
	att_buf_append_u8(b, 0x00);
	att_buf_append(b, digest, 32);
	att_buf_append_u32le(b, 8);
	att_buf_append(b, "CRTM 1.0", 8);
}

static void test_uefi_log(void **state)
{
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct json_object *res;
	struct att_buf log;
	uint8_t d[32];
	int i;

	(void)state;
	/* Header only: PCRs 0-7 untouched, as the swtpm's are. */
	uefi_log(&log, 0, d);
	rd.uefi = &log;
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	free(rd.body_out);
	rd.body_out = NULL;
	assert_string_equal(vh_jstr(res, "state"), "trusted");
	assert_true(json_object_get_boolean(
		vh_jget(vh_jget(res, "uefi"), "matched")));
	json_object_put(res);
	att_buf_release(&log);
	/* A CRTM event the TPM never saw: refused; then it is extended. */
	uefi_log(&log, 1, d);
	for (i = 0; i < 2; i++) {
		if (i)
			assert_int_equal(att_esys_pcr_extend(
						 F.tpm, 0, ATT_HASH_SHA256, d),
					 0);
		assert_int_equal(vh_attest(&F, &rd, &res), 200);
		free(rd.body_out);
		rd.body_out = NULL;
		if (strcmp(vh_jstr(res, "state"), i ? "trusted" : "untrusted"))
			fail_msg("%s", json_object_to_json_string(res));
		if (!i)
			assert_non_null(strstr(json_object_to_json_string(res),
					       "uefi log: does not replay to "
					       "the quoted PCR 0"));
		json_object_put(res);
	}
	att_buf_release(&log);
	/* Garbage: unreadable, untrusted. */
	att_buf_init(&log, 0);
	att_buf_append(&log, "not an event log", 16);
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	free(rd.body_out);
	assert_string_equal(vh_jstr(res, "state"), "untrusted");
	json_object_put(res);
	att_buf_release(&log);
}

/* Whether a challenge from v asks for the UEFI log. */
static int challenge_asks_uefi(struct att_vproc *v)
{
	struct att_vproc *keep = F.vp;
	struct json_object *js, *u;
	int asks;

	F.vp = v;
	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/challenge",
				"{\"agent_id\":\"host-1\"}", &js),
			 201);
	F.vp = keep;
	asks = json_object_object_get_ex(js, "uefi_log", &u) &&
	       json_object_get_boolean(u);
	json_object_put(js);
	return asks;
}

/*
 * require_uefi_log = 1: the boot whose firmware log already replayed
 * needs it no more; after a reboot the challenge asks for it, evidence
 * without it is untrusted, with it trusted, and then it is not asked for.
 */
static void test_uefi_required(void **state)
{
	const char *args[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR,
			      "--require-uefi-log", "1", NULL};
	struct att_vproc *v;
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct json_object *res;
	struct att_buf log;
	uint8_t d[32];
	int st;

	(void)state;
	assert_int_equal(att_vproc_start(F.dir, F.db, args, &v), 0);
	rd.vp = v;
	/* test_uefi_log's rounds sent this boot's log: not asked again */
	assert_false(challenge_asks_uefi(v));
	vh_measure(&F, "/usr/bin/a", "A");
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	free(rd.body_out);
	rd.body_out = NULL;
	assert_string_equal(vh_jstr(res, "state"), "trusted");
	json_object_put(res);
	/* An orderly reboot */
	vh_tpm_power_cycle(&F, 1);
	vh_boot(&F);
	vh_measure(&F, "/usr/bin/a", "A");
	/* without the firmware log: untrusted, and asked for again */
	rd.start = 0;
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	free(rd.body_out);
	rd.body_out = NULL;
	if (strcmp(vh_jstr(res, "state"), "untrusted") ||
	    !strstr(json_object_to_json_string(res),
		    "uefi log: required once per boot, not sent yet"))
		fail_msg("%s", json_object_to_json_string(res));
	json_object_put(res);
	assert_true(challenge_asks_uefi(v));
	/* with it (PCRs 0-7 untouched: a header-only log replays) */
	uefi_log(&log, 0, d);
	rd.uefi = &log;
	rd.start = -1;
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	free(rd.body_out);
	rd.body_out = NULL;
	if (strcmp(vh_jstr(res, "state"), "trusted"))
		fail_msg("%s", json_object_to_json_string(res));
	json_object_put(res);
	att_buf_release(&log);
	/* this boot's is known now */
	assert_false(challenge_asks_uefi(v));
	rd.uefi = NULL;
	vh_measure(&F, "/usr/bin/b", "B");
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	free(rd.body_out);
	assert_string_equal(vh_jstr(res, "state"), "trusted");
	json_object_put(res);
	assert_int_equal(att_vproc_stop(v, &st), 0);
	assert_int_equal(st, 0);
	att_vproc_free(v);
}

/* A sha256-only event whose digest is of `hashed`, extended into PCR. */
static void boot_event(struct att_buf *b, uint32_t pcr, uint32_t type,
		       const void *data, size_t n, const void *hashed,
		       size_t hn)
{
	uint8_t d[32];

	ib_hash("sha256", hashed, hn, d);
	att_buf_append_u32le(b, pcr);
	att_buf_append_u32le(b, type);
	att_buf_append_u32le(b, 1);
	att_buf_append_u8(b, 0x0b);
	att_buf_append_u8(b, 0x00);
	att_buf_append(b, d, 32);
	att_buf_append_u32le(b, (uint32_t)n);
	att_buf_append(b, data, n);
	assert_int_equal(att_esys_pcr_extend(F.tpm, pcr, ATT_HASH_SHA256, d),
			 0);
}

/* "base" with a boot section allowing `app` as the one boot application. */
static void whitelist_boot(const char *app)
{
	char body[1024], ha[65], hb[65], happ[65];
	struct json_object *js;

	ib_sha256_hex("A", ha);
	ib_sha256_hex("B", hb);
	ib_sha256_hex(app, happ);
	snprintf(body, sizeof(body),
		 "{\"whitelist\":{\"digests\":{\"/usr/bin/a\":[\"%s\"],"
		 "\"/usr/bin/b\":[\"%s\"]},\"boot\":{\"secure_boot\":true,"
		 "\"boot_apps\":[[\"sha256:%s\"]],\"separators\":true}}}",
		 ha, hb, happ);
	assert_int_equal(
		vh_req(&F, "admin", "PUT", "/v1/whitelists/base", body, &js),
		200);
	json_object_put(js);
}

static struct json_object *boot_round(const struct att_buf *log, int start,
				      const char *want)
{
	struct vh_round rd = {.id = "host-1", .start = start, .upto = -1};
	struct json_object *res;

	rd.uefi = log;
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	free(rd.body_out);
	if (strcmp(vh_jstr(res, "state"), want))
		fail_msg("want %s: %s", want, json_object_to_json_string(res));
	return res;
}

/* /metrics: untrusted verdicts with a reason of class @reason */
static long long reasons_metric(const char *reason)
{
	long long n = att_vh_metric(
		att_vproc_port(F.vp), F.dir,
		"attest_untrusted_reasons_total{reason=\"%s\"}", reason);

	assert_true(n >= 0);
	return n;
}

static void test_boot_policy(void **state)
{
	struct json_object *res;
	struct att_buf log, v, img;
	uint8_t one = 1, d[32];
	uint32_t sep = 0, i;
	long long boot0, unk0, uefi0;

	(void)state;
	boot0 = reasons_metric("boot");
	unk0 = reasons_metric("unknown-path");
	uefi0 = reasons_metric("uefi-log");
	vh_tpm_power_cycle(&F, 1);
	/* SecureBoot = 1, shim, separators: each extended as it is logged,
	 * before the kernel's boot_aggregate reads PCRs 0-9 */
	uefi_log(&log, 0, d);
	att_buf_init(&v, 0);
	evb_var(&v, ATT_GUID_EFI_GLOBAL, "SecureBoot", &one, 1);
	boot_event(&log, 7, ATT_EV_EFI_VARIABLE_DRIVER_CONFIG, v.data, v.len,
		   v.data, v.len);
	att_buf_release(&v);
	att_buf_init(&img, 0);
	evb_image(&img, "\\EFI\\BOOT\\BOOTX64.EFI");
	boot_event(&log, 4, ATT_EV_EFI_BOOT_SERVICES_APP, img.data, img.len,
		   "SHIM", 4);
	att_buf_release(&img);
	for (i = 0; i < 8; i++)
		boot_event(&log, i, ATT_EV_SEPARATOR, &sep, 4, &sep, 4);
	vh_boot(&F);
	vh_measure(&F, "/usr/bin/a", "A");
	whitelist_boot("SHIM");
	assert_true(challenge_asks_uefi(F.vp));
	res = boot_round(&log, 0, "trusted"); /* a new boot: from 0 */
	assert_string_equal(
		vh_jstr(vh_jget(vh_jget(res, "uefi"), "boot"), "status"),
		"pass");
	json_object_put(res);
	/* every round: asked for again, and needed */
	assert_true(challenge_asks_uefi(F.vp));
	res = boot_round(NULL, -1, "untrusted");
	assert_non_null(strstr(json_object_to_json_string(res),
			       "boot: the whitelist has a boot policy and the "
			       "evidence has no UEFI event log"));
	json_object_put(res);
	/* a policy that allows another shim: the event is named */
	whitelist_boot("OTHER-SHIM");
	res = boot_round(&log, -1, "untrusted");
	if (!strstr(json_object_to_json_string(res),
		    "boot: event 1 (PCR 4, EV_EFI_BOOT_SERVICES_APPLICATION): "
		    "digest sha256:"))
		fail_msg("%s", json_object_to_json_string(res));
	assert_string_equal(
		vh_jstr(vh_jget(vh_jget(res, "uefi"), "boot"), "status"),
		"fail");
	json_object_put(res);
	/* each untrusted verdict above counts once as "boot", however many
	 * boot reasons it gave */
	assert_int_equal(reasons_metric("boot"), boot0 + 2);
	assert_int_equal(reasons_metric("unknown-path"), unk0);
	/* a file the whitelist does not know: its verdict's class */
	whitelist_boot("SHIM");
	vh_measure(&F, "/usr/bin/zzz", "Z");
	res = boot_round(&log, -1, "untrusted");
	json_object_put(res);
	assert_int_equal(reasons_metric("unknown-path"), unk0 + 1);
	assert_int_equal(reasons_metric("boot"), boot0 + 2);
	assert_int_equal(reasons_metric("uefi-log"), uefi0);
	att_buf_release(&log);
	whitelist_ab();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_pcrs),
		cmocka_unit_test(test_uefi_log),
		cmocka_unit_test(test_uefi_required),
		cmocka_unit_test(test_boot_policy),
	};
	return vh_run_groups(&F, "vboot", extra, after_setup, tests,
			     sizeof(tests) / sizeof(tests[0]));
}
