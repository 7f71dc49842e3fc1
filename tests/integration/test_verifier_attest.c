// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_attest.c - challenge/evidence end to end: the real
 * attest-verifier (SQLite, real TLS), a real swtpm driven through the
 * agent's TPM layer, an IMA list built the way the kernel writes it and
 * extended into the swtpm's PCR 10 (sha1 and sha256 banks), boot_aggregate
 * from the swtpm's PCRs 0-9.
 *
 * Verdicts: trusted; log ahead of the quote (accepted, the rest kept for
 * the next round); excluded path; unknown file (untrusted, path named,
 * judged again each round until the whitelist allows it); wrong hash;
 * tampered entry; truncated log; reboot (new resetCount, log from 0);
 * resetCount going backwards refused. Refusals: replayed nonce, expired
 * nonce (second verifier process on the same database), evidence for
 * another agent, agent A's certificate for agent B, a nonce issued to
 * another agent. Restart of the verifier between attestations. Fleet
 * report rows. (The firmware side of a boot, static PCRs and the UEFI
 * log: test_verifier_boot.c.)
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
#include <microhttpd.h>
#include <pthread.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "../../verifier/service/store.h"
#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/replay.h"
#include "attest/tpm_esys.h"
#include "imabuild.h"
#include "pg_cluster.h"
#include "swtpm.h"
#include "verifier_http.h"
#include "verifier_proc.h"
#include "vhost/vhost.h"

#define AK_HANDLE VH_AK_HANDLE

static struct vh_host F;

/* Verifier flags: EK CAs and the webhook receiver below. */
static char hook_url[64], hook_ca[128];
static const char *extra[] = {
	"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, "--webhook-url",
	hook_url,      "--webhook-ca",	      hook_ca,
	NULL};

/* ---- a webhook receiver: HTTPS, the first POST answered 503 ---- */

static struct {
	struct MHD_Daemon *d;
	struct att_buf cert, key;
	pthread_mutex_t lock;
	int posts;	   /* requests seen, refused ones included */
	char events[4096]; /* accepted bodies, one a line */
} H = {.lock = PTHREAD_MUTEX_INITIALIZER};

static enum MHD_Result hook_req(void *cls, struct MHD_Connection *c,
				const char *url, const char *method,
				const char *version, const char *up,
				size_t *upsz, void **ctx)
{
	static int marker;
	struct att_buf *b = *ctx;
	struct MHD_Response *r;
	enum MHD_Result ret;
	int n;

	(void)cls;
	(void)url;
	(void)method;
	(void)version;
	if (!b) {
		b = calloc(1, sizeof(*b));
		att_buf_init(b, 1 << 20);
		*ctx = b;
		return MHD_YES;
	}
	if (*upsz) {
		att_buf_append(b, up, *upsz);
		*upsz = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&H.lock);
	n = ++H.posts;
	if (n > 1 && !att_buf_cstr(b) &&
	    strlen(H.events) + b->len + 2 < sizeof(H.events)) {
		strncat(H.events, (char *)b->data,
			sizeof(H.events) - strlen(H.events) - 1);
		strncat(H.events, "\n",
			sizeof(H.events) - strlen(H.events) - 1);
	}
	pthread_mutex_unlock(&H.lock);
	r = MHD_create_response_from_buffer(0, &marker, MHD_RESPMEM_PERSISTENT);
	ret = MHD_queue_response(c, n > 1 ? 200 : 503, r);
	MHD_destroy_response(r);
	return ret;
}

static void hook_done(void *cls, struct MHD_Connection *c, void **ctx,
		      enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	if (*ctx) {
		att_buf_release(*ctx);
		free(*ctx);
		*ctx = NULL;
	}
}

static int hook_start(void)
{
	char p[160];
	const union MHD_DaemonInfo *di;

	memset(H.events, 0, sizeof(H.events));
	H.posts = 0;
	snprintf(p, sizeof(p), "%s/server.pem", F.dir);
	if (att_buf_read_file(&H.cert, p, 65536) || att_buf_cstr(&H.cert))
		return -1;
	snprintf(p, sizeof(p), "%s/server.key", F.dir);
	if (att_buf_read_file(&H.key, p, 65536) || att_buf_cstr(&H.key))
		return -1;
	H.d = MHD_start_daemon(
		MHD_USE_TLS | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
		hook_req, NULL, MHD_OPTION_HTTPS_MEM_CERT, (char *)H.cert.data,
		MHD_OPTION_HTTPS_MEM_KEY, (char *)H.key.data,
		MHD_OPTION_NOTIFY_COMPLETED, hook_done, NULL, MHD_OPTION_END);
	if (!H.d)
		return -1;
	di = MHD_get_daemon_info(H.d, MHD_DAEMON_INFO_BIND_PORT);
	snprintf(hook_url, sizeof(hook_url), "https://127.0.0.1:%u/hook",
		 (unsigned int)di->port);
	snprintf(hook_ca, sizeof(hook_ca), "%s/server-ca.pem", F.dir);
	return 0;
}

static void hook_stop(void)
{
	if (H.d)
		MHD_stop_daemon(H.d);
	H.d = NULL;
	att_buf_release(&H.cert);
	att_buf_release(&H.key);
}

/* Waits (bounded) until an accepted event contains `what`. */
static int hook_wait(const char *what)
{
	struct timespec ts = {0, 50 * 1000 * 1000};
	int i, found = 0;

	for (i = 0; i < 1200 && !found; i++) {
		pthread_mutex_lock(&H.lock);
		found = strstr(H.events, what) != NULL;
		pthread_mutex_unlock(&H.lock);
		if (!found)
			nanosleep(&ts, NULL);
	}
	return found;
}

/* ---- HTTP helpers ---- */

/* ---- the host (tests/lib/vhost.c) ---- */

static int req(const char *who, const char *method, const char *path,
	       const char *body, struct json_object **js)
{
	return vh_req(&F, who, method, path, body, js);
}

static void measure(const char *path, const char *content)
{
	vh_measure(&F, path, content);
}

static int attest(struct vh_round *rd, struct json_object **result)
{
	return vh_attest(&F, rd, result);
}

static struct json_object *round_ok(const char *state)
{
	return vh_round_ok(&F, state);
}

static struct json_object *log0(struct json_object *res)
{
	return json_object_array_get_idx(vh_jget(res, "logs"), 0);
}

/* ---- fixture ---- */

static void put_whitelist(const char *extra_path, const char *extra_content)
{
	char body[1024], ha[65], hb[65], hx[65];
	struct json_object *js;
	uint8_t d[32];
	int st;

	ib_sha256_hex("A", ha);
	ib_sha256_hex("B", hb);
	snprintf(body, sizeof(body),
		 "{%s\"whitelist\":{\"digests\":{\"/usr/bin/a\":[\"%s\"],"
		 "\"/usr/bin/b\":[\"%s\"]%s%s%s%s%s},\"excludes\":[\"^/tmp/"
		 "\"]}}",
		 extra_path ? "" : "\"name\":\"base\",", ha, hb,
		 extra_path ? ",\"" : "", extra_path ? extra_path : "",
		 extra_path ? "\":[\"" : "",
		 extra_path ? (ib_hash("sha256", extra_content,
				       strlen(extra_content), d),
			       att_hex_encode(d, 32, hx), hx)
			    : "",
		 extra_path ? "\"]" : "");
	st = req("admin", extra_path ? "PUT" : "POST",
		 extra_path ? "/v1/whitelists/base" : "/v1/whitelists", body,
		 &js);
	assert_int_equal(st, extra_path ? 200 : 201);
	json_object_put(js);
}

static int setup(int use_pg)
{
	struct json_object *js;
	int created;

	if (vh_setup(&F, "vatt", use_pg))
		return -1;
	att_buf_init(&H.cert, 0);
	att_buf_init(&H.key, 0);
	if (hook_start()) {
		fprintf(stderr, "FATAL: cannot start the webhook receiver\n");
		return -1;
	}
	if (vh_start_verifier(&F, extra))
		return -1;
	vh_enroll(&F, F.tpm, "host-1");
	/*
	 * host-2 is another machine (one TPM, one identity); its rounds in
	 * these tests are all refused before any quote is checked.
	 */
	{
		struct att_swtpm *sw2;
		struct att_esys *tpm2;

		if (att_swtpm_start(&sw2) ||
		    att_esys_new(att_swtpm_tcti(sw2), &tpm2) ||
		    att_esys_ak_ensure(tpm2, ATT_ESYS_AK_RSA_RSASSA,
				       ATT_ESYS_KEY_RSA, AK_HANDLE, &created)) {
			fprintf(stderr, "FATAL: no second swtpm\n");
			return -1;
		}
		vh_enroll(&F, tpm2, "host-2");
		att_esys_free(tpm2);
		att_swtpm_free(sw2);
	}
	put_whitelist(NULL, NULL);
	assert_int_equal(req("admin", "PUT", "/v1/agents/host-1/whitelist",
			     "{\"name\":\"base\"}", &js),
			 200);
	json_object_put(js);
	assert_int_equal(req("admin", "PUT", "/v1/agents/host-2/whitelist",
			     "{\"name\":\"base\"}", &js),
			 200);
	json_object_put(js);
	vh_boot(&F);
	return 0;
}

static int teardown(void)
{
	hook_stop();
	return vh_teardown(&F);
}

/* ---- tests (in order: they share the host and the verifier) ---- */

static void test_trusted(void **state)
{
	struct json_object *res;

	(void)state;
	measure("/usr/bin/a", "A");
	res = round_ok("trusted");
	assert_int_equal(vh_jint(log0(res), "verified"), 2);
	assert_int_equal(vh_jint(log0(res), "unverified"), 0);
	json_object_put(res);
	/* The webhook: refused once (503), delivered on a retry. */
	assert_true(hook_wait("\"agent_id\":\"host-1\",\"from\":"
			      "\"registered\",\"to\":\"trusted\""));
	pthread_mutex_lock(&H.lock);
	assert_true(H.posts >= 2);
	pthread_mutex_unlock(&H.lock);
	/* Nothing new: still trusted, nothing to replay. */
	res = round_ok("trusted");
	assert_int_equal(vh_jint(log0(res), "start"), 2);
	assert_int_equal(vh_jint(log0(res), "entries"), 0);
	json_object_put(res);
}

static void measure_b(void)
{
	measure("/usr/bin/b", "B");
}

static void test_log_ahead_of_quote(void **state)
{
	struct vh_round rd = {.id = "host-1",
			      .start = -1,
			      .upto = -1,
			      .after_quote = measure_b};
	struct json_object *res;

	(void)state;
	measure("/tmp/scratch", "anything at all");
	assert_int_equal(attest(&rd, &res), 200);
	free(rd.body_out);
	/* /tmp/scratch (excluded) is quoted; /usr/bin/b came after. */
	assert_string_equal(vh_jstr(res, "state"), "trusted");
	assert_int_equal(vh_jint(log0(res), "entries"), 2);
	assert_int_equal(vh_jint(log0(res), "verified"), 1);
	assert_int_equal(vh_jint(log0(res), "unverified"), 1);
	json_object_put(res);
	/* The rest is sent again and verified next round. */
	res = round_ok("trusted");
	assert_int_equal(vh_jint(log0(res), "start"), 3);
	assert_int_equal(vh_jint(log0(res), "verified"), 1);
	json_object_put(res);
}

static void test_tampered_and_truncated(void **state)
{
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct json_object *res;

	(void)state;
	measure("/usr/bin/a", "A");
	/* A byte of the path flipped in what is sent. */
	rd.tamper_at = 4 + 20 + 4 + 6 + 4 + 4 + 40 + 4 + 3;
	assert_int_equal(attest(&rd, &res), 200);
	free(rd.body_out);
	rd.body_out = NULL;
	assert_string_equal(vh_jstr(res, "state"), "untrusted");
	json_object_put(res);
	/* Truncated: the quoted entry is left out. */
	rd.tamper_at = 0;
	rd.upto = (int64_t)F.nentries - 1;
	assert_int_equal(attest(&rd, &res), 200);
	free(rd.body_out);
	assert_string_equal(vh_jstr(res, "state"), "untrusted");
	assert_false(
		json_object_get_boolean(vh_jget(log0(res), "replay_matched")));
	json_object_put(res);
	/* The real list: trusted again (nothing bad was kept). */
	res = round_ok("trusted");
	json_object_put(res);
}

static void test_unknown_file_and_wrong_hash(void **state)
{
	struct json_object *res, *f;

	(void)state;
	measure("/usr/bin/evil", "EVIL");
	measure("/usr/bin/a", "not A");
	res = round_ok("untrusted");
	assert_int_equal(
		json_object_array_length(vh_jget(log0(res), "failures")), 2);
	f = json_object_array_get_idx(vh_jget(log0(res), "failures"), 0);
	assert_string_equal(vh_jstr(f, "path"), "/usr/bin/evil");
	assert_string_equal(vh_jstr(f, "reason"), "unknown-path");
	f = json_object_array_get_idx(vh_jget(log0(res), "failures"), 1);
	assert_string_equal(vh_jstr(f, "path"), "/usr/bin/a");
	assert_string_equal(vh_jstr(f, "reason"), "hash-mismatch");
	json_object_put(res);
	assert_true(hook_wait("\"from\":\"trusted\",\"to\":\"untrusted\""));
	assert_true(hook_wait("unknown-path: /usr/bin/evil"));
	/* Judged again next round: still untrusted. */
	res = round_ok("untrusted");
	json_object_put(res);
	/* Agent view and fleet report show it with the reasons. */
	assert_int_equal(req("admin", "GET", "/v1/fleet", NULL, &res), 200);
	assert_int_equal(vh_jint(vh_jget(res, "counts"), "untrusted"), 1);
	f = json_object_array_get_idx(vh_jget(res, "agents"), 0);
	assert_string_equal(vh_jstr(f, "id"), "host-1");
	assert_string_equal(vh_jstr(f, "state"), "untrusted");
	assert_true(json_object_array_length(vh_jget(f, "failure_reasons")) >=
		    2);
	assert_int_equal(vh_jint(f, "boot_count"), 1);
	json_object_put(res);
}

static void test_whitelist_update_and_restart(void **state)
{
	struct json_object *res;
	int st;

	(void)state;
	/* Allow evil and "not A" (a new version; host-1 follows newest). */
	put_whitelist("/usr/bin/evil", "EVIL");
	res = round_ok("untrusted"); /* /usr/bin/a "not A" still fails */
	assert_int_equal(
		json_object_array_length(vh_jget(log0(res), "failures")), 1);
	json_object_put(res);
	/* Restart the verifier: nothing lost, the next round continues. */
	assert_int_equal(att_vproc_stop(F.vp, &st), 0);
	assert_int_equal(st, 0);
	att_vproc_free(F.vp);
	F.vp = NULL;
	assert_int_equal(att_vproc_start(F.dir, F.db, extra, &F.vp), 0);
	res = round_ok("untrusted");
	assert_int_equal(vh_jint(log0(res), "start"), 5);
	json_object_put(res);
}

/* Copies t into out with "NONCE" replaced by nonce. */
static void subst(char *out, size_t cap, const char *t, const char *nonce)
{
	const char *m = strstr(t, "NONCE");

	if (!m)
		snprintf(out, cap, "%s", t);
	else
		snprintf(out, cap, "%.*s%s%s", (int)(m - t), t, nonce, m + 5);
}

static void test_bad_evidence(void **state)
{
	static const char *const bad[][2] = {
		{"{", "invalid_json"},
		{"[]", "invalid_json"},
		{"{\"agent_id\":\"host-1\",\"agent_id\":\"host-1\"}",
		 "invalid_json"},
		{"{\"agent_id\":1}", "wrong_type"},
		{"{\"agent_id\":\"host-1\",\"extra\":1}", "unknown_field"},
		{"{\"agent_id\":\"host-1\",\"nonce\":\"zz\"}",
		 "bad_nonce_format"},
		{"{\"agent_id\":\"host-1\",\"nonce\":\"NONCE\",\"quote\":"
		 "\"@@@@\",\"signature\":\"AA==\"}",
		 "bad_base64"},
		{"{\"agent_id\":\"host-1\",\"nonce\":\"NONCE\",\"quote\":"
		 "\"AA==\",\"signature\":\"AA==\",\"pcrs\":[]}",
		 "wrong_type"},
		{"{\"agent_id\":\"host-1\",\"nonce\":\"NONCE\",\"quote\":"
		 "\"AA==\",\"signature\":\"AA==\",\"pcrs\":{\"sha256\":"
		 "{\"99\":\"00\"}},\"logs\":[]}",
		 "bad_pcrs"},
		{"{\"agent_id\":\"host-1\",\"nonce\":\"NONCE\",\"quote\":"
		 "\"AA==\",\"signature\":\"AA==\",\"pcrs\":{\"sha256\":{\"10\":"
		 "\"00000000000000000000000000000000000000000000000000000000000"
		 "00000\"}},\"logs\":"
		 "[{\"name\":\"ima\",\"start\":-1,\"entries\":\"\"}]}",
		 "out_of_range"},
		{"{\"agent_id\":\"host-1\",\"nonce\":\"NONCE\",\"quote\":"
		 "\"AA==\",\"signature\":\"AA==\",\"pcrs\":{\"sha256\":{\"10\":"
		 "\"00000000000000000000000000000000000000000000000000000000000"
		 "00000\"}},\"logs\":"
		 "[{\"name\":\"ima\",\"start\":0,\"entries\":\"A\"}]}",
		 "bad_base64"},
		{"{\"agent_id\":\"host-1\",\"nonce\":\"NONCE\",\"quote\":"
		 "\"AA==\",\"signature\":\"AA==\",\"pcrs\":{\"sha256\":{\"10\":"
		 "\"00000000000000000000000000000000000000000000000000000000000"
		 "00000\"}},\"logs\":"
		 "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}",
		 "wrong_type"},
		/* a log this verifier does not ask for (it asks for ima) */
		{"{\"agent_id\":\"host-1\",\"nonce\":\"NONCE\",\"quote\":"
		 "\"AA==\",\"signature\":\"AA==\",\"pcrs\":{\"sha256\":{\"10\":"
		 "\"00000000000000000000000000000000000000000000000000000000000"
		 "00000\"}},\"logs\":"
		 "[{\"name\":\"slim\",\"start\":0,\"entries\":\"\"}]}",
		 "unknown_log"},
		{"{\"agent_id\":\"host-1\",\"nonce\":\"NONCE\",\"quote\":"
		 "\"AA==\",\"signature\":\"AA==\",\"pcrs\":{\"sha256\":{\"10\":"
		 "\"00000000000000000000000000000000000000000000000000000000000"
		 "00000\"}},\"logs\":"
		 "[{\"name\":\"ima\",\"start\":0,\"entries\":\"\"},"
		 "{\"name\":\"ima\",\"start\":0,\"entries\":\"\"}]}",
		 "duplicate_log"},
		{"{\"agent_id\":\"host-1\",\"nonce\":\"NONCE\",\"quote\":"
		 "\"AA==\",\"signature\":\"AA==\",\"pcrs\":{\"sha256\":{\"10\":"
		 "\"00000000000000000000000000000000000000000000000000000000000"
		 "00000\"}},\"logs\":[]}",
		 "wrong_type"},
	};
	struct json_object *js, *before, *after, *c;
	char body[1024], nonce[80];
	size_t i;
	char *deep;
	int n = 4000;

	(void)state;
	assert_int_equal(
		req("admin", "GET", "/v1/agents/host-1", NULL, &before), 200);
	/* A real nonce: malformed evidence must not even consume it. */
	assert_int_equal(req("host-1", "POST", "/v1/attestation/challenge",
			     "{\"agent_id\":\"host-1\"}", &c),
			 201);
	snprintf(nonce, sizeof(nonce), "%s", vh_jstr(c, "nonce"));
	json_object_put(c);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		subst(body, sizeof(body), bad[i][0], nonce);
		assert_int_equal(req("host-1", "POST",
				     "/v1/attestation/evidence", body, &js),
				 400);
		if (strcmp(vh_jstr(js, "code"), bad[i][1]))
			fail_msg("case %zu: %s", i,
				 json_object_to_json_string(js));
		json_object_put(js);
	}
	deep = malloc((size_t)n * 2 + 64);
	assert_non_null(deep);
	memset(deep, '[', (size_t)n);
	memset(deep + n, ']', (size_t)n);
	deep[2 * n] = '\0';
	assert_int_equal(
		req("host-1", "POST", "/v1/attestation/evidence", deep, &js),
		400);
	json_object_put(js);
	free(deep);
	/* Nothing changed: same revision of the agent's record. */
	assert_int_equal(req("admin", "GET", "/v1/agents/host-1", NULL, &after),
			 200);
	assert_string_equal(json_object_to_json_string(before),
			    json_object_to_json_string(after));
	json_object_put(before);
	json_object_put(after);
	/* And the nonce is still good for real evidence. */
	{
		struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};

		rd.nonce = nonce;
		assert_int_equal(attest(&rd, &js), 200);
		json_object_put(js);
		free(rd.body_out);
	}
}

static void test_refusals(void **state)
{
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct json_object *res, *js;
	struct att_vh_resp r;
	char body[128];

	(void)state;
	/* Replayed nonce: the same evidence twice. */
	assert_int_equal(attest(&rd, &res), 200);
	json_object_put(res);
	assert_int_equal(att_vh_request(att_vproc_port(F.vp), F.dir, "host-1",
					"POST", "/v1/attestation/evidence",
					rd.body_out, strlen(rd.body_out), &r),
			 0);
	assert_int_equal(r.status, 403);
	assert_non_null(strstr(r.body, "bad_nonce"));
	att_vh_resp_release(&r);
	free(rd.body_out);
	rd.body_out = NULL;
	/* host-1's certificate for host-2: challenge and evidence refused. */
	snprintf(body, sizeof(body), "{\"agent_id\":\"host-2\"}");
	assert_int_equal(
		req("host-1", "POST", "/v1/attestation/challenge", body, &js),
		403);
	assert_string_equal(vh_jstr(js, "code"), "wrong_agent");
	json_object_put(js);
	rd.ev_id = "host-2";
	assert_int_equal(attest(&rd, &res), 403);
	assert_string_equal(vh_jstr(res, "code"), "wrong_agent");
	json_object_put(res);
	free(rd.body_out);
	rd.body_out = NULL;
	/* host-2's evidence with a nonce issued to host-1. */
	{
		struct vh_round r2 = {.id = "host-2", .start = -1, .upto = -1};
		struct json_object *c;

		assert_int_equal(req("host-1", "POST",
				     "/v1/attestation/challenge",
				     "{\"agent_id\":\"host-1\"}", &c),
				 201);
		r2.nonce = vh_jstr(c, "nonce");
		assert_int_equal(attest(&r2, &res), 403);
		assert_string_equal(vh_jstr(res, "code"), "bad_nonce");
		json_object_put(res);
		json_object_put(c);
		free(r2.body_out);
	}
	/* No certificate, or the admin's: not an agent. */
	assert_int_equal(req(NULL, "POST", "/v1/attestation/challenge",
			     "{\"agent_id\":\"host-1\"}", &js),
			 401);
	json_object_put(js);
	assert_int_equal(req("admin", "POST", "/v1/attestation/challenge",
			     "{\"agent_id\":\"host-1\"}", &js),
			 403);
	json_object_put(js);
}

static void test_expired_nonce_other_replica(void **state)
{
	const char *const short_life[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR,
					  "--nonce-lifetime", "1", NULL};
	struct att_vproc *v2;
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct json_object *res;
	struct att_vproc *keep;
	struct timespec ts = {2, 200 * 1000 * 1000};
	int st;

	(void)state;
	/* A second verifier on the same database, 1 s nonces. */
	assert_int_equal(att_vproc_start(F.dir, F.db, short_life, &v2), 0);
	keep = F.vp;
	F.vp = v2;
	rd.after_quote = NULL;
	{
		/* Challenge from v2, evidence after the nonce expired. */
		struct json_object *c;

		assert_int_equal(req("host-1", "POST",
				     "/v1/attestation/challenge",
				     "{\"agent_id\":\"host-1\"}", &c),
				 201);
		rd.nonce = vh_jstr(c, "nonce");
		nanosleep(&ts, NULL);
		assert_int_equal(attest(&rd, &res), 403);
		assert_string_equal(vh_jstr(res, "code"), "nonce_expired");
		json_object_put(res);
		json_object_put(c);
		free(rd.body_out);
		rd.body_out = NULL;
	}
	/* A nonce from replica 1 is good once on replica 2, then refused. */
	F.vp = keep;
	rd.nonce = NULL;
	rd.vp = v2;
	assert_int_equal(attest(&rd, &res), 200);
	json_object_put(res);
	{
		struct att_vh_resp r;

		assert_int_equal(
			att_vh_request(att_vproc_port(keep), F.dir, "host-1",
				       "POST", "/v1/attestation/evidence",
				       rd.body_out, strlen(rd.body_out), &r),
			0);
		assert_int_equal(r.status, 403);
		att_vh_resp_release(&r);
	}
	free(rd.body_out);
	assert_int_equal(att_vproc_stop(v2, &st), 0);
	assert_int_equal(st, 0);
	att_vproc_free(v2);
}

static void test_reboot(void **state)
{
	struct json_object *res;
	int created;

	(void)state;
	/*
	 * Reboot: an orderly TPM2_Shutdown as the OS does, then swtpm
	 * restarts (PCRs reset, resetCount moves on, clock still safe).
	 */
	assert_int_equal(Esys_Shutdown(att_esys_context(F.tpm), ESYS_TR_NONE,
				       ESYS_TR_NONE, ESYS_TR_NONE,
				       TPM2_SU_CLEAR),
			 TSS2_RC_SUCCESS);
	att_esys_free(F.tpm);
	F.tpm = NULL;
	assert_int_equal(att_swtpm_restart(F.sw), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(F.sw), &F.tpm), 0);
	assert_int_equal(att_esys_ak_ensure(F.tpm, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA, AK_HANDLE,
					    &created),
			 0);
	assert_int_equal(created, 0);
	vh_boot(&F);
	measure("/usr/bin/a", "A");
	/* The challenge still says entry 5; the verifier sees the reboot. */
	{
		struct vh_round rd = {.id = "host-1", .start = 0, .upto = -1};

		assert_int_equal(attest(&rd, &res), 200);
		free(rd.body_out);
	}
	if (strcmp(vh_jstr(res, "state"), "trusted"))
		fail_msg("%s", json_object_to_json_string(res));
	assert_true(json_object_get_boolean(
		vh_jget(vh_jget(res, "quote"), "reboot")));
	json_object_put(res);
	assert_int_equal(req("admin", "GET", "/v1/agents/host-1", NULL, &res),
			 200);
	assert_int_equal(vh_jint(res, "boot_count"), 2);
	json_object_put(res);
	res = round_ok("trusted");
	assert_int_equal(vh_jint(log0(res), "start"), 2);
	json_object_put(res);
}

static void test_reset_count_backwards(void **state)
{
	struct att_store *s;
	struct att_agent_rec a;
	struct json_object *res, *reasons;

	(void)state;
	/* The verifier has seen a later boot than this quote's. */
	assert_int_equal(att_store_open(F.db, &s), 0);
	assert_int_equal(att_store_agent_get(s, "host-1", &a), 0);
	a.reset_count += 5;
	assert_int_equal(att_store_agent_update(s, &a), 0);
	att_agent_rec_release(&a);
	att_store_free(s);
	res = round_ok("untrusted");
	reasons = vh_jget(res, "reasons");
	assert_non_null(strstr(
		json_object_get_string(json_object_array_get_idx(reasons, 0)),
		"quote:"));
	json_object_put(res);
}

/*
 * An agent that stops attesting: a verifier whose interval is 1 s stores
 * it as stale after 2 s (history row, webhook); its next attestation
 * moves it out of stale, with a webhook again.
 */
static void test_stale(void **state)
{
	static const char *const fast[] = {"--ek-ca-dir",
					   ATT_SWTPM_LOCALCA_DIR,
					   "--webhook-url",
					   hook_url,
					   "--webhook-ca",
					   hook_ca,
					   "--interval",
					   "1",
					   NULL};
	struct att_vproc *v;
	struct json_object *js, *res;
	const char *s;

	(void)state;
	assert_int_equal(att_vproc_start(F.dir, F.db, fast, &v), 0);
	assert_true(hook_wait("\"agent_id\":\"host-1\",\"from\":"
			      "\"untrusted\",\"to\":\"stale\""));
	att_vproc_free(v); /* before it marks the agent stale again */
	assert_int_equal(req("admin", "GET", "/v1/agents/host-1", NULL, &js),
			 200);
	assert_string_equal(vh_jstr(js, "state"), "stale");
	s = json_object_to_json_string(vh_jget(js, "history"));
	assert_non_null(strstr(s, "no attestation since"));
	json_object_put(js);
	/* It attests again (untrusted: test_reset_count_backwards's clock). */
	res = round_ok("untrusted");
	json_object_put(res);
	assert_true(hook_wait("\"from\":\"stale\",\"to\":\"untrusted\""));
}

static void test_alternate_replicas(void **state)
{
	const char *const more[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, NULL};
	struct att_vproc *a = F.vp, *b;
	struct json_object *res;
	int64_t start = -1;
	int i, st;

	(void)state;
	/* Two verifier processes, one database: the agent alternates. */
	assert_int_equal(att_vproc_start(F.dir, F.db, more, &b), 0);
	for (i = 0; i < 4; i++) {
		measure(i % 2 ? "/usr/bin/b" : "/usr/bin/a", i % 2 ? "B" : "A");
		F.vp = i % 2 ? b : a;
		res = round_ok("trusted");
		if (start >= 0)
			assert_int_equal(vh_jint(log0(res), "start"),
					 start + 1);
		start = vh_jint(log0(res), "start");
		assert_int_equal(vh_jint(log0(res), "verified"), 1);
		json_object_put(res);
	}
	F.vp = a;
	/* Both report the same agent state. */
	assert_int_equal(req("admin", "GET", "/v1/agents/host-1", NULL, &res),
			 200);
	assert_string_equal(vh_jstr(res, "state"), "trusted");
	json_object_put(res);
	assert_int_equal(att_vproc_stop(b, &st), 0);
	assert_int_equal(st, 0);
	att_vproc_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trusted),
		cmocka_unit_test(test_log_ahead_of_quote),
		cmocka_unit_test(test_tampered_and_truncated),
		cmocka_unit_test(test_unknown_file_and_wrong_hash),
		cmocka_unit_test(test_whitelist_update_and_restart),
		cmocka_unit_test(test_bad_evidence),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_expired_nonce_other_replica),
		cmocka_unit_test(test_reboot),
		cmocka_unit_test(test_alternate_replicas),
		cmocka_unit_test(test_reset_count_backwards),
		cmocka_unit_test(test_stale),
	};

	return vh_run_backends(tests, sizeof(tests) / sizeof(tests[0]), setup,
			       teardown);
}
