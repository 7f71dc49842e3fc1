// SPDX-License-Identifier: Apache-2.0
/*
 * test_faults.c - the faults of docs/threat-model.md with real processes:
 * the real attest-verifier over TLS, a real swtpm through the agent's TPM layer,
 * SQLite and a private PostgreSQL.
 *
 * - The verifier killed with SIGKILL in the middle of evidence handling,
 *   at a random point of the request, ATT_FAULT_LOOPS times (default
 *   100 on SQLite, 50 on PostgreSQL), honest and tampered evidence in
 *   turn. After each restart: an answer the client got is what is
 *   stored (no lost commit); a round is stored at most once and its
 *   nonce is never accepted again (no reused nonce); tampered evidence
 *   never leaves the agent trusted; the verifier answers again.
 * - PostgreSQL stopped (immediate: as if it crashed) and started again
 *   while requests keep coming: only 201 or 503 `storage_unavailable`,
 *   never another status, never a lost connection; the agent is not
 *   flipped; attestation works again afterwards.
 * - One of two verifier replicas killed: a nonce it issued is still good
 *   once on the other, which carries on.
 * - The SQLite file locked by another process past the busy timeout:
 *   writes answer 503 `storage_unavailable`, reads are served, nothing
 *   changes; once the lock goes the same evidence is accepted.
 * - A TPM reset without a reboot (the TPM power-cycled, the OS and its
 *   IMA list carry on): the list no longer replays to the fresh PCR 10,
 *   untrusted; a TPM that lost power without TPM2_Shutdown: a quote whose
 *   clock says "not safe" is untrusted even with a fresh list (one that
 *   says safe is trusted); TPM2_ClockSet past the NV write boundary makes
 *   it safe again: trusted.
 * - Whitelist updates racing attestations (on PostgreSQL through two
 *   replicas): every verdict is the one of the version the result names.
 * - A full disk under the SQLite file (a small tmpfs in the verifier's
 *   own mount namespace, filled up): 503 `storage_unavailable` and never a
 *   wrong verdict while full, reads still served; after space is freed
 *   the next round is trusted, and a restart finds everything committed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <tss2/tss2_esys.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/tpm_esys.h"
#include "imabuild.h"
#include "pg_cluster.h"
#include "swtpm.h"
#include "verifier_http.h"
#include "verifier_proc.h"
#include "vhost/vhost.h"

static struct vh_host F;

static const char *const extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, NULL};

/* The path bytes of the first ima-ng sha256 record of a chunk. */
#define TAMPER_AT (4 + 20 + 4 + 6 + 4 + 4 + 40 + 4 + 3)

/* ---- helpers ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

static int loops(int dflt)
{
	const char *s = getenv("ATT_FAULT_LOOPS");
	long v;

	if (!s || !*s)
		return dflt;
	v = strtol(s, NULL, 10);
	return v > 0 && v < 100000 ? (int)v : dflt;
}

/* State and committed list position of host-1. */
static void agent_now(char *state, size_t cap, int64_t *next)
{
	struct json_object *js, *logs;

	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/host-1", NULL, &js),
		200);
	snprintf(state, cap, "%s", vh_jstr(js, "state"));
	json_object_put(js);
	/* The next entry the verifier wants = what it has replayed. */
	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/challenge",
				"{\"agent_id\":\"host-1\"}", &js),
			 201);
	logs = vh_jget(js, "logs");
	*next = vh_jint(json_object_array_get_idx(logs, 0), "next_entry");
	json_object_put(js);
}

/* A normal round that must be answered 200 with `state`. */
static void round_ok(const char *state)
{
	json_object_put(vh_round_ok(&F, state));
}

/* base: /usr/bin/a ("A") and /usr/bin/x ("X"). */
static void put_whitelist(void)
{
	char body[512], ha[65], hx[65];
	struct json_object *js;

	ib_sha256_hex("A", ha);
	ib_sha256_hex("X", hx);
	snprintf(body, sizeof(body),
		 "{\"name\":\"base\",\"whitelist\":{\"digests\":"
		 "{\"/usr/bin/a\":[\"%s\"],\"/usr/bin/x\":[\"%s\"]}}}",
		 ha, hx);
	assert_int_equal(
		vh_req(&F, "admin", "POST", "/v1/whitelists", body, &js), 201);
	json_object_put(js);
	assert_int_equal(vh_req(&F, "admin", "PUT",
				"/v1/agents/host-1/whitelist",
				"{\"name\":\"base\"}", &js),
			 200);
	json_object_put(js);
}

/* Enrolls host-1 on F.vp's database, whitelists it, boots the host. */
static void prepare_host(void)
{
	vh_enroll(&F, F.tpm, "host-1");
	put_whitelist();
	vh_boot(&F);
	vh_measure(&F, "/usr/bin/a", "A");
	round_ok("trusted");
}

/* Evidence whose nonce was never taken: trusted once, then refused. */
static void evidence_once(const char *body)
{
	struct json_object *js;

	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/evidence", body, &js),
			 200);
	assert_string_equal(vh_jstr(js, "state"), "trusted");
	json_object_put(js);
	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/evidence", body, &js),
			 403);
	assert_string_equal(vh_jstr(js, "code"), "bad_nonce");
	json_object_put(js);
}

static void restart_verifier(void)
{
	att_vproc_free(F.vp);
	F.vp = NULL;
	assert_int_equal(att_vproc_start(F.dir, F.db, extra, &F.vp), 0);
}

/* ---- fixture ---- */

static int setup(int use_pg)
{
	if (vh_setup(&F, "fault", use_pg))
		return -1;
	/* Schemas are test_verifier_*'s: here many quick rounds. */
	F.no_schema = 1;
	return vh_start_verifier(&F, extra);
}

static int teardown(void)
{
	return vh_teardown(&F);
}

/* ---- SIGKILL in the middle of evidence handling ---- */

struct sender {
	pthread_t th;
	unsigned int port;
	const char *body;
	int got;    /* a response was read */
	int status; /* its HTTP status */
	char state[32];
};

static void *send_evidence(void *arg)
{
	struct sender *s = arg;
	struct att_vh_resp r;
	struct json_object *js;

	if (att_vh_request(s->port, F.dir, "host-1", "POST",
			   "/v1/attestation/evidence", s->body, strlen(s->body),
			   &r) == 0 &&
	    r.status) {
		s->got = 1;
		s->status = r.status;
		js = json_tokener_parse(r.body);
		if (js && s->status == 200)
			snprintf(s->state, sizeof(s->state), "%s",
				 vh_jstr(js, "state"));
		json_object_put(js);
		att_vh_resp_release(&r);
	}
	return NULL;
}

/* Sends body again; returns the status, *code the error code if any. */
static int resend(const char *body, char *code, size_t cap, char *state,
		  size_t scap)
{
	struct json_object *js;
	int st;

	code[0] = state[0] = '\0';
	st = vh_req(&F, "host-1", "POST", "/v1/attestation/evidence", body,
		    &js);
	if (st == 200)
		snprintf(state, scap, "%s", vh_jstr(js, "state"));
	else
		snprintf(code, cap, "%s", vh_jstr(js, "code"));
	json_object_put(js);
	return st;
}

/* Median wall time of an honest evidence request on this machine. */
static double evidence_latency(void)
{
	double t[5], tmp;
	int i, j;

	for (i = 0; i < 5; i++) {
		struct vh_round rd = {
			.id = "host-1", .start = -1, .upto = -1, .no_send = 1};
		struct json_object *res;
		double t0;

		vh_measure(&F, "/usr/bin/a", "A");
		vh_attest(&F, &rd, &res);
		t0 = now_s();
		assert_int_equal(vh_req(&F, "host-1", "POST",
					"/v1/attestation/evidence", rd.body_out,
					&res),
				 200);
		t[i] = now_s() - t0;
		json_object_put(res);
		free(rd.body_out);
	}
	for (i = 0; i < 5; i++)
		for (j = i + 1; j < 5; j++)
			if (t[j] < t[i]) {
				tmp = t[i];
				t[i] = t[j];
				t[j] = tmp;
			}
	return t[2];
}

static void test_kill_mid_evidence(void **state)
{
	int n = loops(F.pg ? 50 : 100), i, answered = 0, committed = 0,
	    resent_ok = 0, taken_only = 0;
	double lat;
	unsigned int seed = (unsigned int)getpid();

	(void)state;
	prepare_host();
	lat = evidence_latency();
	fprintf(stderr, "kill loop: %d rounds, evidence takes %.1f ms\n", n,
		lat * 1e3);
	for (i = 0; i < n; i++) {
		struct vh_round rd = {
			.id = "host-1", .start = -1, .upto = -1, .no_send = 1};
		struct sender s;
		struct json_object *res;
		char s0[32], s1[32], code[64], st2[32];
		int64_t p0, p1;
		int tampered = i % 2, did, st;
		long delay;
		double u;

		agent_now(s0, sizeof(s0), &p0);
		if (strcmp(s0, "trusted")) {
			/* So that a tampered commit is visible as a flip. */
			round_ok("trusted");
			agent_now(s0, sizeof(s0), &p0);
		}
		assert_string_equal(s0, "trusted");
		vh_measure(&F, "/usr/bin/a", "A");
		rd.tamper_at = tampered ? TAMPER_AT : 0;
		vh_attest(&F, &rd, &res);
		memset(&s, 0, sizeof(s));
		s.port = att_vproc_port(F.vp);
		s.body = rd.body_out;
		assert_int_equal(pthread_create(&s.th, NULL, send_evidence, &s),
				 0);
		/*
		 * Anywhere from before the request arrives to after the
		 * answer (one round in five), else mostly in the later part
		 * of the request, where the nonce is taken and the result
		 * stored (the TLS handshake comes first).
		 */
		u = (double)(rand_r(&seed) % 1000) / 1000.0;
		delay = (long)(lat * 1e6 * (i % 5 ? 0.6 + 0.5 * u : 1.3 * u));
		sleep_us(delay);
		assert_int_equal(kill(att_vproc_pid(F.vp), SIGKILL), 0);
		pthread_join(s.th, NULL);
		restart_verifier();
		agent_now(s1, sizeof(s1), &p1);
		/*
		 * Stored or not: a tampered round flips the state, an honest
		 * one moves the position to the end of the list (entries of
		 * an earlier round that was never stored are sent again).
		 */
		did = tampered ? !strcmp(s1, "untrusted") : p1 != p0;
		/* Nothing else is possible. */
		if (tampered)
			assert_int_equal(p1, p0);
		else
			assert_string_equal(s1, "trusted");
		if (did && !tampered)
			assert_int_equal(p1, (int64_t)F.nentries);
		if (!did) {
			assert_string_equal(s1, s0);
			assert_int_equal(p1, p0);
		}
		if (s.got) {
			/* The client was told: it is stored, as told. */
			answered++;
			assert_int_equal(s.status, 200);
			assert_true(did);
			assert_string_equal(s.state,
					    tampered ? "untrusted" : "trusted");
		}
		committed += did;
		/* The same evidence again: never accepted twice. */
		st = resend(rd.body_out, code, sizeof(code), st2, sizeof(st2));
		if (did) {
			assert_int_equal(st, 403);
			assert_string_equal(code, "bad_nonce");
		} else if (st == 200) {
			/* The kill came before the nonce was taken. */
			resent_ok++;
			assert_string_equal(st2,
					    tampered ? "untrusted" : "trusted");
			st = resend(rd.body_out, code, sizeof(code), st2,
				    sizeof(st2));
			assert_int_equal(st, 403);
			assert_string_equal(code, "bad_nonce");
		} else {
			/* Taken, then killed before the result: refused. */
			taken_only++;
			assert_int_equal(st, 403);
			assert_string_equal(code, "bad_nonce");
		}
		free(rd.body_out);
	}
	fprintf(stderr,
		"kill loop: %d rounds: %d answered before the kill, %d "
		"committed (%d of them unanswered), %d nonces taken without "
		"a result, %d not taken and accepted on resend\n",
		n, answered, committed, committed - answered, taken_only,
		resent_ok);
	/* And the host is trusted again after all that. */
	vh_measure(&F, "/usr/bin/a", "A");
	round_ok("trusted");
}

/* ---- PostgreSQL down and back under load ---- */

struct load {
	pthread_t th;
	volatile int stop;
	unsigned int port;
	int ok, unavailable, other, dropped;
	char other_what[256];
};

static void *load_loop(void *arg)
{
	struct load *l = arg;
	struct att_vh_resp r;

	while (!l->stop) {
		if (att_vh_request(l->port, F.dir, "host-1", "POST",
				   "/v1/attestation/challenge",
				   "{\"agent_id\":\"host-1\"}", 21, &r)) {
			l->dropped++;
			continue;
		}
		if (r.status == 201)
			l->ok++;
		else if (r.status == 503 &&
			 strstr(r.body, "\"storage_unavailable\""))
			l->unavailable++;
		else if (!l->other++)
			snprintf(l->other_what, sizeof(l->other_what), "%d %s",
				 r.status, r.body);
		att_vh_resp_release(&r);
		sleep_us(5000);
	}
	return NULL;
}

static void test_pg_restart_under_load(void **state)
{
	struct vh_round rd = {
		.id = "host-1", .start = -1, .upto = -1, .no_send = 1};
	struct json_object *js;
	struct load l;
	char s0[32], s1[32];
	int64_t p0, p1;
	int i, st, ok_before;

	(void)state;
	assert_non_null(F.pg); /* listed for PostgreSQL only */
	agent_now(s0, sizeof(s0), &p0);
	memset(&l, 0, sizeof(l));
	l.port = att_vproc_port(F.vp);
	assert_int_equal(pthread_create(&l.th, NULL, load_loop, &l), 0);
	sleep_us(300000);
	/* Evidence prepared while the database is up, sent while down. */
	vh_measure(&F, "/usr/bin/a", "A");
	vh_attest(&F, &rd, &js);
	assert_int_equal(att_pg_stop(F.pg, 1), 0);
	ok_before = l.ok;
	sleep_us(500000);
	st = vh_req(&F, "host-1", "POST", "/v1/attestation/evidence",
		    rd.body_out, &js);
	assert_int_equal(st, 503);
	assert_string_equal(vh_jstr(js, "code"), "storage_unavailable");
	json_object_put(js);
	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/host-1", NULL, &js),
		503);
	json_object_put(js);
	assert_int_equal(vh_req(&F, NULL, "GET", "/healthz", NULL, &js), 503);
	json_object_put(js);
	assert_int_equal(vh_req(&F, "admin", "GET", "/v1/fleet", NULL, &js),
			 503);
	json_object_put(js);
	assert_int_equal(att_pg_resume(F.pg), 0);
	/* The verifier reconnects by itself (bounded wait). */
	for (i = 0; i < 200; i++) {
		if (vh_req(&F, NULL, "GET", "/healthz", NULL, &js) == 200) {
			json_object_put(js);
			break;
		}
		json_object_put(js);
		sleep_us(50000);
	}
	assert_true(i < 200);
	sleep_us(300000);
	l.stop = 1;
	pthread_join(l.th, NULL);
	fprintf(stderr,
		"pg restart: challenges 201: %d, 503: %d, other: %d, "
		"dropped: %d\n",
		l.ok, l.unavailable, l.other, l.dropped);
	if (l.other)
		fail_msg("unexpected answer under load: %s", l.other_what);
	assert_int_equal(l.dropped, 0);
	assert_true(l.unavailable > 0);
	assert_true(l.ok > ok_before);
	/* Not flipped by the outage; the evidence was never judged. */
	agent_now(s1, sizeof(s1), &p1);
	assert_string_equal(s1, s0);
	assert_int_equal(p1, p0);
	/* Its nonce was never taken: good once now, then refused. */
	evidence_once(rd.body_out);
	free(rd.body_out);
	vh_measure(&F, "/usr/bin/a", "A");
	round_ok("trusted");
}

/* ---- one of two replicas killed ---- */

static void test_replica_killed(void **state)
{
	struct vh_round rd = {
		.id = "host-1", .start = -1, .upto = -1, .no_send = 1};
	struct att_vproc *a = F.vp, *b;
	struct json_object *js;

	(void)state;
	assert_non_null(F.pg); /* listed for PostgreSQL only */
	assert_int_equal(att_vproc_start(F.dir, F.db, extra, &b), 0);
	/* Challenge and quote from replica b, which then dies. */
	F.vp = b;
	vh_measure(&F, "/usr/bin/a", "A");
	vh_attest(&F, &rd, &js);
	F.vp = a;
	assert_int_equal(kill(att_vproc_pid(b), SIGKILL), 0);
	att_vproc_free(b);
	/* Replica a takes the evidence: the nonce lives in the database. */
	evidence_once(rd.body_out);
	free(rd.body_out);
	vh_measure(&F, "/usr/bin/a", "A");
	round_ok("trusted");
}

/* ---- the SQLite file locked by another process ---- */

static void test_sqlite_locked(void **state)
{
	struct vh_round rd = {
		.id = "host-1", .start = -1, .upto = -1, .no_send = 1};
	struct json_object *js;
	char s0[32], s1[32];
	int64_t p0, p1;
	sqlite3 *db;

	(void)state;
	assert_null(F.pg); /* listed for SQLite only */
	agent_now(s0, sizeof(s0), &p0);
	vh_measure(&F, "/usr/bin/a", "A");
	vh_attest(&F, &rd, &js);
	/* Another process takes the write lock and keeps it (> 10 s). */
	assert_int_equal(sqlite3_open(F.db + strlen("sqlite:"), &db),
			 SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/evidence", rd.body_out, &js),
			 503);
	assert_string_equal(vh_jstr(js, "code"), "storage_unavailable");
	json_object_put(js);
	/* Reads go on (WAL). */
	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/host-1", NULL, &js),
		200);
	assert_string_equal(vh_jstr(js, "state"), s0);
	json_object_put(js);
	assert_int_equal(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	/* Nothing was taken: the same evidence is good once now. */
	agent_now(s1, sizeof(s1), &p1);
	assert_string_equal(s1, s0);
	assert_int_equal(p1, p0);
	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/evidence", rd.body_out, &js),
			 200);
	assert_string_equal(vh_jstr(js, "state"), "trusted");
	json_object_put(js);
	free(rd.body_out);
}

/* ---- a TPM reset without a reboot ---- */

static void expect_untrusted(const char *reason, int reboot)
{
	struct vh_round rd = {.id = "host-1", .start = 0, .upto = -1};
	struct json_object *res;

	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	free(rd.body_out);
	if (strcmp(vh_jstr(res, "state"), "untrusted") ||
	    json_object_get_boolean(vh_jget(vh_jget(res, "quote"), "reboot")) !=
		    reboot ||
	    !strstr(json_object_to_json_string(res), reason))
		fail_msg("want untrusted, '%s': %s", reason,
			 json_object_to_json_string(res));
	json_object_put(res);
}

/* The quote's clockInfo.safe, read from the evidence body sent. */
static int quote_safe(const char *body)
{
	struct json_object *o = json_tokener_parse(body);
	uint8_t q[2048];
	const char *b;
	size_t n, off = 6; /* magic, type */
	int k;

	assert_non_null(o);
	b = vh_jstr(o, "quote");
	assert_int_equal(att_b64_decode(b, strlen(b), q, sizeof(q), &n), 0);
	json_object_put(o);
	for (k = 0; k < 2; k++) /* qualifiedSigner, extraData */
		off += 2 + (size_t)((q[off] << 8) | q[off + 1]);
	off += 8 + 4 + 4; /* clock, resetCount, restartCount */
	assert_true(off < n);
	return q[off];
}

static void test_tpm_reset_without_reboot(void **state)
{
	struct vh_round rd = {.id = "host-1", .start = 0, .upto = -1};
	struct json_object *res;
	int safe;

	(void)state;
	/* The TPM reset under a running OS: PCRs reset, the list goes on. */
	vh_tpm_power_cycle(&F, 1);
	vh_measure(&F, "/usr/bin/a", "A");
	/* The whole list, as after a reboot: it does not replay. */
	expect_untrusted("log ima: no prefix of the entries replays", 1);
	/*
	 * Without TPM2_Shutdown (power lost) the TPM's clock may have gone
	 * back: until the TPM writes its clock to NV again (every 2^N ms,
	 * N its own constant) its quotes say "not safe", and those are
	 * refused even with a fresh list. When that happens is the TPM's
	 * business: the test reads the flag in the quote it sent.
	 */
	vh_tpm_power_cycle(&F, 0);
	vh_boot(&F);
	vh_measure(&F, "/usr/bin/a", "A");
	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	safe = quote_safe(rd.body_out);
	free(rd.body_out);
	if (strcmp(vh_jstr(res, "state"), safe ? "trusted" : "untrusted") ||
	    (!safe && !strstr(json_object_to_json_string(res),
			      "quote: TPM clock is not safe")))
		fail_msg("quote %s: %s", safe ? "safe" : "not safe",
			 json_object_to_json_string(res));
	json_object_put(res);
	fprintf(stderr, "power loss: the first quote's clock was %s\n",
		safe ? "safe already" : "not safe (refused)");
	/*
	 * The owner can move the clock on past that boundary with
	 * TPM2_ClockSet: safe again, trusted.
	 */
	assert_int_equal(att_tpm_clock_safe_again(att_esys_context(F.tpm)), 0);
	vh_measure(&F, "/usr/bin/a", "A");
	{
		/* a refused quote left the verifier before this boot */
		struct vh_round r2 = {
			.id = "host-1", .start = safe ? -1 : 0, .upto = -1};

		assert_int_equal(vh_attest(&F, &r2, &res), 200);
		free(r2.body_out);
		if (strcmp(vh_jstr(res, "state"), "trusted"))
			fail_msg("%s", json_object_to_json_string(res));
		json_object_put(res);
	}
}

/* ---- whitelist updates racing attestations ---- */

struct wl_flipper {
	pthread_t th;
	volatile int stop;
	int puts;
	int64_t version; /* the newest; the only writer is this thread */
	char with_x[512], without_x[512];
};

static void *flip_whitelist(void *arg)
{
	struct wl_flipper *w = arg;
	struct att_vh_resp r;

	unsigned int seed = 7;

	while (!w->stop) {
		/* Version N + 1 allows x when it is odd. */
		const char *b = (w->version + 1) % 2 ? w->with_x : w->without_x;

		if (att_vh_request(att_vproc_port(F.vp), F.dir, "admin", "PUT",
				   "/v1/whitelists/base", b, strlen(b),
				   &r) == 0) {
			if (r.status == 200) {
				w->puts++;
				w->version++;
			}
			att_vh_resp_release(&r);
		}
		/* Out of step with the rounds: both kinds get judged. */
		sleep_us(rand_r(&seed) % 40000);
	}
	return NULL;
}

static void test_whitelist_update_races(void **state)
{
	struct att_vproc *b = NULL, *a = F.vp;
	struct wl_flipper w;
	struct json_object *res, *js;
	char ha[65], hx[65];
	int i, st, seen[2] = {0, 0};
	int64_t v;

	(void)state;
	ib_sha256_hex("A", ha);
	ib_sha256_hex("X", hx);
	memset(&w, 0, sizeof(w));
	/* Versions alternate: even ones without /usr/bin/x, odd with. */
	snprintf(w.without_x, sizeof(w.without_x),
		 "{\"whitelist\":{\"digests\":{\"/usr/bin/a\":[\"%s\"]}}}", ha);
	snprintf(w.with_x, sizeof(w.with_x),
		 "{\"whitelist\":{\"digests\":{\"/usr/bin/a\":[\"%s\"],"
		 "\"/usr/bin/x\":[\"%s\"]}}}",
		 ha, hx);
	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/whitelists/base", NULL, &js),
		200);
	v = vh_jint(js, "version");
	json_object_put(js);
	if (v % 2) {
		/* Start on an even version. */
		assert_int_equal(vh_req(&F, "admin", "PUT",
					"/v1/whitelists/base", w.without_x,
					&js),
				 200);
		json_object_put(js);
		v++;
	}
	w.version = v;
	if (F.pg)
		assert_int_equal(att_vproc_start(F.dir, F.db, extra, &b), 0);
	assert_int_equal(pthread_create(&w.th, NULL, flip_whitelist, &w), 0);
	for (i = 0; i < 30; i++) {
		struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
		const char *want;

		/* Every round judges x entries only: pending ones and one
		 * new; the verdict follows the version used. */
		vh_measure(&F, "/usr/bin/x", "X");
		if (b)
			rd.vp = i % 2 ? b : a;
		assert_int_equal(vh_attest(&F, &rd, &res), 200);
		free(rd.body_out);
		v = vh_jint(vh_jget(res, "whitelist"), "version");
		want = v % 2 ? "trusted" : "untrusted";
		seen[v % 2]++;
		if (strcmp(vh_jstr(res, "state"), want))
			fail_msg("round %d, version %lld: %s", i, (long long)v,
				 json_object_to_json_string(res));
		json_object_put(res);
	}
	w.stop = 1;
	pthread_join(w.th, NULL);
	fprintf(stderr,
		"whitelist races: %d updates; %d rounds judged with x "
		"allowed, %d without\n",
		w.puts, seen[1], seen[0]);
	assert_true(w.puts > 0);
	if (b) {
		assert_int_equal(att_vproc_stop(b, &st), 0);
		assert_int_equal(st, 0);
		att_vproc_free(b);
	}
	/* Settle on a version with x: trusted. */
	assert_int_equal(vh_req(&F, "admin", "PUT", "/v1/whitelists/base",
				w.with_x, &js),
			 200);
	json_object_put(js);
	round_ok("trusted");
}

/* ---- a full disk under the SQLite file ---- */

/* Fills the file system of path with a file; returns bytes written. */
static long fill(const char *path)
{
	static char block[16384];
	long total = 0;
	ssize_t w;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	memset(block, 0xa5, sizeof(block));
	for (;;) {
		w = write(fd, block, sizeof(block));
		if (w <= 0)
			break;
		total += w;
	}
	assert_int_equal(errno, ENOSPC);
	/* Also the last partial block. */
	while (write(fd, block, 512) > 0)
		total += 512;
	close(fd);
	return total;
}

static void test_disk_full(void **state)
{
	char mnt[96], script[256], filler[256], db[120], s1[32];
	const char *wrap[] = {
		"unshare", getuid() ? "-rm" : "-m", "--", "/bin/sh", "-c",
		script,	   "verifier-in-ns",	    NULL};
	struct vh_round pre = {
		.id = "host-1", .start = -1, .upto = -1, .no_send = 1};
	struct att_vproc *keep = F.vp;
	char keepdb[sizeof(F.db)];
	struct json_object *js;
	int i, st, full = 0, ok_full = 0;
	int64_t p1;

	(void)state;
	assert_null(F.pg); /* listed for SQLite only */
	/* The verifier alone sees a 1 MiB tmpfs over DIR/full. */
	snprintf(mnt, sizeof(mnt), "%s/full", F.dir);
	assert_int_equal(mkdir(mnt, 0700), 0);
	snprintf(script, sizeof(script),
		 "mount -t tmpfs -o size=1m tmpfs '%s' && exec \"$@\"", mnt);
	snprintf(db, sizeof(db), "sqlite:%s/v.db", mnt);
	snprintf(keepdb, sizeof(keepdb), "%s", F.db);
	snprintf(F.db, sizeof(F.db), "%s", db);
	F.vp = NULL;
	if (att_vproc_start_wrapped(F.dir, F.db, extra, wrap, &F.vp))
		fail_msg("cannot start the verifier in a mount namespace "
			 "with its own tmpfs (unshare -m, mount -t tmpfs)");
	/* A fresh database: this TPM enrolls there, sends its whole list. */
	vh_enroll(&F, F.tpm, "host-1");
	put_whitelist();
	vh_measure(&F, "/usr/bin/a", "A");
	round_ok("trusted");
	/* Evidence whose challenge was issued before the disk filled. */
	vh_measure(&F, "/usr/bin/a", "A");
	vh_attest(&F, &pre, &js);
	/* Through /proc/PID/root: the verifier's own view of DIR/full. */
	snprintf(filler, sizeof(filler), "/proc/%d/root%s/fill",
		 att_vproc_pid(F.vp), mnt);
	fprintf(stderr, "disk full: filler %ld bytes\n", fill(filler));
	st = vh_req(&F, "host-1", "POST", "/v1/attestation/evidence",
		    pre.body_out, &js);
	free(pre.body_out);
	if (st == 200) {
		ok_full++;
		assert_string_equal(vh_jstr(js, "state"), "trusted");
	} else {
		full++;
		assert_int_equal(st, 503);
		assert_string_equal(vh_jstr(js, "code"), "storage_unavailable");
	}
	json_object_put(js);
	for (i = 0; i < 60 && full < 3; i++) {
		struct vh_round rd = {
			.id = "host-1", .start = -1, .upto = -1, .no_send = 1};
		struct att_vh_resp r;

		vh_measure(&F, "/usr/bin/a", "A");
		/* The challenge itself may be refused: the disk is full. */
		assert_int_equal(
			att_vh_request(att_vproc_port(F.vp), F.dir, "host-1",
				       "POST", "/v1/attestation/challenge",
				       "{\"agent_id\":\"host-1\"}", 21, &r),
			0);
		st = r.status;
		if (st == 503)
			assert_non_null(
				strstr(r.body, "\"storage_unavailable\""));
		else
			assert_int_equal(st, 201);
		att_vh_resp_release(&r);
		if (st == 503) {
			full++;
			continue;
		}
		vh_attest(&F, &rd, &js);
		st = vh_req(&F, "host-1", "POST", "/v1/attestation/evidence",
			    rd.body_out, &js);
		free(rd.body_out);
		if (st == 200) {
			ok_full++;
			assert_string_equal(vh_jstr(js, "state"), "trusted");
		} else {
			full++;
			assert_int_equal(st, 503);
			assert_string_equal(vh_jstr(js, "code"),
					    "storage_unavailable");
		}
		json_object_put(js);
	}
	fprintf(stderr,
		"disk full: %d rounds, %d refused with 503, %d still "
		"stored\n",
		i, full, ok_full);
	assert_true(full > 0);
	/* Reads are still served, the committed state is intact. */
	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/host-1", NULL, &js),
		200);
	assert_string_equal(vh_jstr(js, "state"), "trusted");
	json_object_put(js);
	/* Space again: the next round is trusted, nothing was lost. */
	assert_int_equal(unlink(filler), 0);
	vh_measure(&F, "/usr/bin/a", "A");
	round_ok("trusted");
	/* Every entry replayed once: no round half-stored. */
	agent_now(s1, sizeof(s1), &p1);
	assert_string_equal(s1, "trusted");
	assert_int_equal(p1, (int64_t)F.nentries);
	/*
	 * A clean stop. (The tmpfs goes with the namespace, so a restart
	 * would find nothing; restarts are test_kill_mid_evidence's.)
	 */
	assert_int_equal(att_vproc_stop(F.vp, &st), 0);
	assert_int_equal(st, 0);
	att_vproc_free(F.vp);
	F.vp = keep;
	snprintf(F.db, sizeof(F.db), "%s", keepdb);
}

int main(void)
{
	const struct CMUnitTest sqlite_tests[] = {
		cmocka_unit_test(test_kill_mid_evidence),
		cmocka_unit_test(test_sqlite_locked),
		cmocka_unit_test(test_tpm_reset_without_reboot),
		cmocka_unit_test(test_whitelist_update_races),
		cmocka_unit_test(test_disk_full),
	};
	const struct CMUnitTest pg_tests[] = {
		cmocka_unit_test(test_kill_mid_evidence),
		cmocka_unit_test(test_pg_restart_under_load),
		cmocka_unit_test(test_replica_killed),
		cmocka_unit_test(test_tpm_reset_without_reboot),
		cmocka_unit_test(test_whitelist_update_races),
	};
	int fails;

	/* Writes to a verifier killed meanwhile: EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	fails = vh_run_backend("sqlite", 0, sqlite_tests,
			       sizeof(sqlite_tests) / sizeof(sqlite_tests[0]),
			       setup, teardown);
	fails += vh_run_backend("postgresql", 1, pg_tests,
				sizeof(pg_tests) / sizeof(pg_tests[0]), setup,
				teardown);
	return fails;
}
