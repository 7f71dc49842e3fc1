// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_api.c - the real attest-verifier (release build) over real
 * TLS with a throwaway PKI and SQLite: client certificate roles on every
 * route, whitelist CRUD with versions and atomic refusal, agents (rows put
 * in the database through the store, as enrollment would), malformed and
 * oversized input answered with JSON 4xx and no state change, restart
 * without loss, SIGTERM exits 0, --help, bad settings exit 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "../../verifier/service/store.h"
#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "imabuild.h"
#include "verifier_http.h"
#include "verifier_proc.h"

static char dir[64];
static char db[128];
static struct att_vproc *vp;

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static const char *const small_body[] = {"--max-body", "65536", NULL};

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/att-vapi-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(db, sizeof(db), "sqlite:%s/v.db", dir);
	if (att_pki_init(dir) || att_pki_client(dir, "agent-ca", "host-1")) {
		fprintf(stderr, "FATAL: cannot make the test PKI\n");
		return -1;
	}
	if (att_vproc_start(dir, db, small_body, &vp)) {
		fprintf(stderr, "FATAL: cannot start attest-verifier\n");
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];
	int st;

	(void)state;
	if (vp && att_vproc_stop(vp, &st) == 0 && st != 0) {
		fprintf(stderr, "attest-verifier exited with %d\n", st);
		return -1;
	}
	att_vproc_free(vp);
	if (getenv("ATT_KEEP"))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* One request; returns the status, *js the parsed JSON body (or NULL). */
static int req(const char *who, const char *method, const char *path,
	       const char *body, struct json_object **js)
{
	struct att_vh_resp r;
	int st;

	assert_int_equal(att_vh_request(att_vproc_port(vp), dir, who, method,
					path, body, body ? strlen(body) : 0,
					&r),
			 0);
	st = r.status;
	/* Every answer, and every accepted body, matches its schema. */
	if (strcmp(path, "/metrics"))
		assert_int_equal(
			att_vh_check_exchange(method, path, body, st, r.body),
			0);
	if (js) {
		*js = json_tokener_parse(r.body);
		if (!*js)
			fprintf(stderr, "not JSON: %s\n", r.body);
	}
	att_vh_resp_release(&r);
	return st;
}

/* Status of a request whose answer must be a JSON error with a code. */
static int req_err(const char *who, const char *method, const char *path,
		   const char *body, const char *code)
{
	struct json_object *js, *c, *m;
	int st = req(who, method, path, body, &js);

	assert_non_null(js);
	assert_true(json_object_object_get_ex(js, "code", &c));
	assert_true(json_object_object_get_ex(js, "message", &m));
	assert_true(json_object_get_string_len(m) > 0);
	if (code)
		assert_string_equal(json_object_get_string(c), code);
	json_object_put(js);
	return st;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, k, &v));
	return json_object_get_string(v);
}

static int64_t jint(struct json_object *o, const char *k)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, k, &v));
	return json_object_get_int64(v);
}

static void test_roles(void **state)
{
	static const char *const admin_paths[] = {
		"/v1/whitelists", "/v1/agents", "/metrics", "/v1/agents/x"};
	struct json_object *js;
	size_t i;

	(void)state;
	assert_int_equal(req(NULL, "GET", "/healthz", NULL, &js), 200);
	assert_string_equal(jstr(js, "status"), "ok");
	assert_string_equal(jstr(js, "storage"), "sqlite");
	json_object_put(js);
	for (i = 0; i < sizeof(admin_paths) / sizeof(admin_paths[0]); i++) {
		/* No certificate, an unknown CA's "admin", an agent. */
		assert_int_equal(req_err(NULL, "GET", admin_paths[i], NULL,
					 "unauthenticated"),
				 401);
		assert_int_equal(req_err("rogue", "GET", admin_paths[i], NULL,
					 "unauthenticated"),
				 401);
		assert_int_equal(req_err("host-1", "GET", admin_paths[i], NULL,
					 "forbidden"),
				 403);
	}
	assert_int_equal(
		req_err("admin", "GET", "/v1/nothing", NULL, "not_found"), 404);
	assert_int_equal(
		req_err("admin", "GET", "/v1/whitelists/..", NULL, "not_found"),
		404);
	assert_int_equal(
		req_err("admin", "GET", "/v1/agents/", NULL, "not_found"), 404);
	assert_int_equal(req_err("admin", "POST", "/healthz", "{}",
				 "method_not_allowed"),
			 405);
}

static void test_plain_http_refused(void **state)
{
	struct att_vh_resp r;
	char cmd[256];
	int st;

	(void)state;
	/* A plain HTTP request gets no HTTP answer at all. */
	snprintf(cmd, sizeof(cmd),
		 "curl -s -o /dev/null -w '%%{http_code}' "
		 "http://127.0.0.1:%u/healthz | grep -qx 000",
		 att_vproc_port(vp));
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* And TLS still works afterwards. */
	assert_int_equal(att_vh_request(att_vproc_port(vp), dir, NULL, "GET",
					"/healthz", NULL, 0, &r),
			 0);
	assert_int_equal(r.status, 200);
	att_vh_resp_release(&r);
}

static void test_whitelists(void **state)
{
	struct json_object *js, *arr;

	(void)state;
	assert_int_equal(req("admin", "POST", "/v1/whitelists",
			     "{\"name\":\"base\",\"whitelist\":{\"digests\":"
			     "{\"/bin/sh\":[\"" SHA_A "\"]}}}",
			     &js),
			 201);
	assert_int_equal(jint(js, "version"), 1);
	assert_int_equal(jint(js, "paths"), 1);
	json_object_put(js);
	/* Same name again: conflict. */
	assert_int_equal(req_err("admin", "POST", "/v1/whitelists",
				 "{\"name\":\"base\",\"whitelist\":{}}",
				 "exists"),
			 409);
	/* A whitelist that does not load is refused; v1 stays. */
	assert_int_equal(req_err("admin", "PUT", "/v1/whitelists/base",
				 "{\"whitelist\":{\"digests\":{\"/bin/sh\":"
				 "[\"xyz\"]}}}",
				 "invalid_whitelist"),
			 422);
	assert_int_equal(req_err("admin", "PUT", "/v1/whitelists/base",
				 "{\"whitelist\":{\"excludes\":[\"(\"]}}",
				 "invalid_whitelist"),
			 422);
	assert_int_equal(req("admin", "GET", "/v1/whitelists/base", NULL, &js),
			 200);
	assert_int_equal(jint(js, "version"), 1);
	json_object_put(js);
	/* Keylime legacy allowlist as version 2, only from version 1. */
	assert_int_equal(req("admin", "PUT", "/v1/whitelists/base",
			     "{\"legacy\":\"" SHA_B "  /bin/ls\\n" SHA_A
			     "  /bin/sh\\n\",\"excludes\":\"^/tmp/\\n\","
			     "\"expected_version\":1}",
			     &js),
			 200);
	assert_int_equal(jint(js, "version"), 2);
	assert_int_equal(jint(js, "paths"), 2);
	json_object_put(js);
	assert_int_equal(req_err("admin", "PUT", "/v1/whitelists/base",
				 "{\"whitelist\":{},\"expected_version\":1}",
				 "conflict"),
			 409);
	assert_int_equal(req_err("admin", "PUT", "/v1/whitelists/none",
				 "{\"whitelist\":{}}", "not_found"),
			 404);
	/* Both versions readable. */
	assert_int_equal(
		req("admin", "GET", "/v1/whitelists/base?version=1", NULL, &js),
		200);
	assert_string_equal(jstr(js, "format"), "json");
	json_object_put(js);
	assert_int_equal(req("admin", "GET", "/v1/whitelists/base", NULL, &js),
			 200);
	assert_string_equal(jstr(js, "format"), "legacy");
	assert_int_equal(jint(js, "version"), 2);
	json_object_put(js);
	assert_int_equal(req_err("admin", "GET",
				 "/v1/whitelists/base?version=9", NULL,
				 "not_found"),
			 404);
	assert_int_equal(req_err("admin", "GET",
				 "/v1/whitelists/base?version=x", NULL,
				 "bad_version"),
			 400);
	/* Keylime runtime policy shape. */
	assert_int_equal(req("admin", "POST", "/v1/whitelists",
			     "{\"name\":\"keylime\",\"whitelist\":{\"meta\":"
			     "{\"version\":1},\"release\":0,\"digests\":{\"/"
			     "usr/bin/true\":[\"" SHA_A "\"]},\"excludes\":[],"
			     "\"keyrings\":{},\"ima\":{\"ignored_keyrings\":[],"
			     "\"log_hash_alg\":\"sha1\",\"dm_policy\":null},"
			     "\"ima-buf\":{},\"verification-keys\":\"\"}}",
			     &js),
			 201);
	json_object_put(js);
	assert_int_equal(req("admin", "GET", "/v1/whitelists", NULL, &js), 200);
	assert_true(json_object_object_get_ex(js, "whitelists", &arr));
	assert_int_equal(json_object_array_length(arr), 2);
	json_object_put(js);
	assert_int_equal(
		req("admin", "DELETE", "/v1/whitelists/keylime", NULL, &js),
		200);
	json_object_put(js);
	assert_int_equal(req_err("admin", "DELETE", "/v1/whitelists/keylime",
				 NULL, "not_found"),
			 404);
}

static void test_agents(void **state)
{
	struct att_store *s;
	struct att_agent_rec a;
	struct json_object *js, *arr, *w;

	(void)state;
	/* An enrolled agent as enrollment leaves it, straight into the DB. */
	assert_int_equal(att_store_open(db, &s), 0);
	att_agent_rec_init(&a);
	snprintf(a.id, sizeof(a.id), "host-1");
	a.state = ATT_AGENT_REGISTERED;
	a.enrolled_at = 1700000000;
	assert_int_equal(att_store_agent_insert(s, &a), 0);
	assert_int_equal(
		att_store_history_add(s, "host-1", 1700000100, "untrusted",
				      "{\"failures\":[{\"path\":\"/x\","
				      "\"reason\":\"unknown-path\"}]}"),
		0);
	att_store_free(s);

	assert_int_equal(req("admin", "GET", "/v1/agents", NULL, &js), 200);
	assert_true(json_object_object_get_ex(js, "agents", &arr));
	assert_int_equal(json_object_array_length(arr), 1);
	assert_string_equal(jstr(json_object_array_get_idx(arr, 0), "id"),
			    "host-1");
	json_object_put(js);
	assert_int_equal(req("admin", "GET", "/v1/agents/host-1", NULL, &js),
			 200);
	assert_string_equal(jstr(js, "state"), "registered");
	assert_true(json_object_object_get_ex(js, "history", &arr));
	assert_int_equal(json_object_array_length(arr), 1);
	json_object_put(js);
	assert_int_equal(
		req_err("admin", "GET", "/v1/agents/host-2", NULL, "not_found"),
		404);

	/* Assign: unknown whitelist, bad body, then the real one. */
	assert_int_equal(req_err("admin", "PUT", "/v1/agents/host-1/whitelist",
				 "{\"name\":\"nope\"}", "unknown_whitelist"),
			 422);
	/* a version after the newest does not exist */
	assert_int_equal(req_err("admin", "PUT", "/v1/agents/host-1/whitelist",
				 "{\"name\":\"base\",\"version\":999}",
				 "unknown_whitelist"),
			 422);
	assert_int_equal(req_err("admin", "PUT", "/v1/agents/host-1/whitelist",
				 "{\"name\":\"base\",\"version\":\"1\"}",
				 "wrong_type"),
			 400);
	assert_int_equal(req_err("admin", "PUT", "/v1/agents/host-1/whitelist",
				 "{\"name\":\"base\",\"colour\":1}",
				 "unknown_field"),
			 400);
	assert_int_equal(req("admin", "PUT", "/v1/agents/host-1/whitelist",
			     "{\"name\":\"base\",\"version\":1}", &js),
			 200);
	assert_true(json_object_object_get_ex(js, "whitelist", &w));
	assert_string_equal(jstr(w, "name"), "base");
	assert_int_equal(jint(w, "version"), 1);
	json_object_put(js);
	/* No version: follow the newest (0). */
	assert_int_equal(req("admin", "PUT", "/v1/agents/host-1/whitelist",
			     "{\"name\":\"base\"}", &js),
			 200);
	assert_true(json_object_object_get_ex(js, "whitelist", &w));
	assert_int_equal(jint(w, "version"), 0);
	json_object_put(js);
	/* In use: not deletable. */
	assert_int_equal(req_err("admin", "DELETE", "/v1/whitelists/base", NULL,
				 "in_use"),
			 409);
	/* The agent's own certificate cannot change its assignment. */
	assert_int_equal(req_err("host-1", "PUT", "/v1/agents/host-1/whitelist",
				 "{\"name\":\"base\"}", "forbidden"),
			 403);
}

static void test_bad_input(void **state)
{
	static const char *const bodies[][2] = {
		{"{", "invalid_json"},
		{"{\"name\":\"x\",\"name\":\"y\",\"whitelist\":{}}",
		 "invalid_json"},
		{"[]", "invalid_json"},
		{"\"str\"", "invalid_json"},
		{"{\"name\":1,\"whitelist\":{}}", "wrong_type"},
		{"{\"whitelist\":{}}", "missing_field"},
		{"{\"name\":\"a/b\",\"whitelist\":{}}", "bad_name"},
		{"{\"name\":\"ok\",\"whitelist\":[]}", "invalid_whitelist"},
		{"{\"name\":\"ok\"}", "invalid_whitelist"},
		{"{\"name\":\"ok\",\"whitelist\":{},\"legacy\":\"\"}",
		 "invalid_whitelist"},
		{"{\"name\":\"ok\",\"extra\":true,\"whitelist\":{}}",
		 "unknown_field"},
		{"{\"name\":\"ok\",\"whitelist\":{\"digests\":{\"/"
		 "a\":\"\xff\"}}}",
		 "invalid_json"},
		{"", "empty_body"},
	};
	struct json_object *js, *arr;
	char *big, *deep;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		int st = req_err("admin", "POST", "/v1/whitelists",
				 bodies[i][0][0] ? bodies[i][0] : NULL,
				 bodies[i][1]);

		if (st != 400 && st != 422)
			fail_msg("body %zu: status %d", i, st);
	}
	/* Deep nesting. */
	n = 5000;
	deep = malloc(2 * n + 64);
	assert_non_null(deep);
	i = (size_t)snprintf(deep, 64, "{\"name\":\"d\",\"whitelist\":");
	memset(deep + i, '[', n);
	memset(deep + i + n, ']', n);
	memcpy(deep + i + 2 * n, "}", 2);
	assert_int_equal(req_err("admin", "POST", "/v1/whitelists", deep,
				 "invalid_json"),
			 400);
	free(deep);
	/* Over --max-body (64 KiB here): 413, whatever the content. */
	n = 200 * 1024;
	big = malloc(n + 1);
	assert_non_null(big);
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	big[n] = '\0';
	assert_int_equal(req_err("admin", "POST", "/v1/whitelists", big,
				 "body_too_large"),
			 413);
	free(big);
	/* Huge array under the cap: a clean 422, not a crash. */
	n = 60 * 1024;
	big = malloc(n + 64);
	assert_non_null(big);
	i = (size_t)snprintf(big, 64,
			     "{\"name\":\"h\",\"whitelist\":{\"excludes\":[");
	while (i + 8 < n) {
		memcpy(big + i, "\"a\",", 4);
		i += 4;
	}
	memcpy(big + i, "\"a\"]}}", 7);
	{
		int st = req_err("admin", "POST", "/v1/whitelists", big, NULL);

		assert_true(st == 201 || st == 422);
		if (st == 201)
			assert_int_equal(req("admin", "DELETE",
					     "/v1/whitelists/h", NULL, NULL),
					 200);
	}
	free(big);
	/* Nothing stored by any of that: only "base" is there. */
	assert_int_equal(req("admin", "GET", "/v1/whitelists", NULL, &js), 200);
	assert_true(json_object_object_get_ex(js, "whitelists", &arr));
	assert_int_equal(json_object_array_length(arr), 1);
	assert_string_equal(jstr(json_object_array_get_idx(arr, 0), "name"),
			    "base");
	assert_int_equal(jint(json_object_array_get_idx(arr, 0), "version"), 2);
	json_object_put(js);
	/* Still alive and serving. */
	assert_int_equal(req(NULL, "GET", "/healthz", NULL, NULL), 200);
}

static void test_raw_http(void **state)
{
	static const char dup_cl[] =
		"POST /v1/whitelists HTTP/1.1\r\nHost: x\r\nContent-Length: "
		"2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}";
	struct att_vh_resp r;
	char *hdr;
	size_t n = 100 * 1024, i;

	(void)state;
	/* Duplicate Content-Length: refused by the HTTP layer. */
	if (att_vh_raw(att_vproc_port(vp), dir, "admin", dup_cl,
		       sizeof(dup_cl) - 1, &r) == 0) {
		assert_true(r.status >= 400 && r.status < 500);
		att_vh_resp_release(&r);
	}
	/* A 100 KiB header: refused (or the connection dropped). */
	hdr = malloc(n + 128);
	assert_non_null(hdr);
	i = (size_t)snprintf(hdr, 128, "GET /healthz HTTP/1.1\r\nX-Big: ");
	memset(hdr + i, 'a', n);
	memcpy(hdr + i + n, "\r\nConnection: close\r\n\r\n", 24);
	if (att_vh_raw(att_vproc_port(vp), dir, "admin", hdr, i + n + 23, &r) ==
	    0) {
		assert_true(r.status >= 400 && r.status < 500);
		att_vh_resp_release(&r);
	}
	free(hdr);
	assert_int_equal(req(NULL, "GET", "/healthz", NULL, NULL), 200);
}

static void test_metrics(void **state)
{
	struct att_vh_resp r;

	(void)state;
	assert_int_equal(att_vh_request(att_vproc_port(vp), dir, "admin", "GET",
					"/metrics", NULL, 0, &r),
			 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "# TYPE attest_attestations_total "
				       "counter"));
	assert_non_null(strstr(r.body, "attest_attestation_duration_seconds_"
				       "bucket{le=\"+Inf\"}"));
	assert_non_null(
		strstr(r.body, "attest_agents{state=\"registered\"} 1"));
	assert_non_null(
		strstr(r.body, "attest_http_requests_total{code=\"4xx\"}"));
	assert_non_null(strstr(r.body, "# TYPE attest_ak_cache_lookups_total "
				       "counter"));
	att_vh_resp_release(&r);
}

static char *check_body(const char *wl, const struct att_buf *log,
			const uint8_t *pcr10)
{
	size_t cap = att_b64_enclen(log->len) + 400, n;
	char *b = malloc(cap), hex[65];

	assert_non_null(b);
	n = (size_t)snprintf(b, cap,
			     "{\"whitelist\":{\"name\":\"%s\"},\"log\":\"", wl);
	att_b64_encode(log->data, log->len, b + n);
	n = strlen(b);
	if (pcr10) {
		att_hex_encode(pcr10, 32, hex);
		n += (size_t)snprintf(
			b + n, cap - n,
			"\",\"pcrs\":{\"sha256\":{\"10\":\"%s\"}}}", hex);
	} else {
		snprintf(b + n, cap - n, "\"}");
	}
	return b;
}

static void test_one_shot_check(void **state)
{
	struct json_object *js, *f;
	struct att_buf log, td;
	uint8_t d[32], pcr[32] = {0};
	char body[300], ha[65], *b;

	(void)state;
	ib_hash("sha256", "A", 1, d);
	att_hex_encode(d, 32, ha);
	snprintf(body, sizeof(body),
		 "{\"name\":\"chk\",\"whitelist\":{\"digests\":{\"/usr/"
		 "bin/a\":[\"%s\"]}}}",
		 ha);
	assert_int_equal(req("admin", "POST", "/v1/whitelists", body, &js),
			 201);
	json_object_put(js);
	/* /usr/bin/a as whitelisted, replayed into PCR 10 by hand. */
	att_buf_init(&log, 0);
	att_buf_init(&td, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, "/usr/bin/a");
	ib_record(&log, 10, "sha1", "ima-ng", &td, 0);
	ib_hash("sha256", td.data, td.len, d);
	ib_extend("sha256", pcr, d);
	att_buf_release(&td);
	b = check_body("chk", &log, pcr);
	assert_int_equal(req("admin", "POST", "/v1/check", b, &js), 200);
	assert_string_equal(jstr(js, "verdict"), "pass");
	assert_int_equal(jint(js, "verified"), 1);
	json_object_put(js);
	free(b);
	/* A wrong PCR value: the replay does not match. */
	pcr[0] ^= 1;
	b = check_body("chk", &log, pcr);
	assert_int_equal(req("admin", "POST", "/v1/check", b, &js), 200);
	assert_string_equal(jstr(js, "verdict"), "fail");
	json_object_put(js);
	free(b);
	/* An unknown file, no PCRs: fails and names the path. */
	ib_ima_ng(&log, "/usr/bin/evil", "EVIL");
	b = check_body("chk", &log, NULL);
	assert_int_equal(req("admin", "POST", "/v1/check", b, &js), 200);
	assert_string_equal(jstr(js, "verdict"), "fail");
	f = json_object_array_get_idx(json_object_object_get(js, "failures"),
				      0);
	assert_string_equal(jstr(f, "path"), "/usr/bin/evil");
	assert_string_equal(jstr(f, "reason"), "unknown-path");
	json_object_put(js);
	free(b);
	/* Truncated list: 422 with the reader's message. */
	log.len -= 3;
	b = check_body("chk", &log, NULL);
	assert_int_equal(req_err("admin", "POST", "/v1/check", b, "bad_log"),
			 422);
	free(b);
	assert_int_equal(req_err("admin", "POST", "/v1/check",
				 "{\"whitelist\":{\"name\":\"chk\"},\"log\":"
				 "\"!!\"}",
				 "bad_base64"),
			 400);
	assert_int_equal(
		req_err("host-1", "POST", "/v1/check", "{}", "forbidden"), 403);
	att_buf_release(&log);
	assert_int_equal(
		req("admin", "DELETE", "/v1/whitelists/chk", NULL, &js), 200);
	json_object_put(js);
}

static void test_restart_keeps_state(void **state)
{
	struct json_object *js, *w;
	int st;

	(void)state;
	assert_int_equal(att_vproc_stop(vp, &st), 0);
	assert_int_equal(st, 0);
	att_vproc_free(vp);
	vp = NULL;
	assert_int_equal(att_vproc_start(dir, db, small_body, &vp), 0);
	assert_int_equal(req("admin", "GET", "/v1/whitelists/base", NULL, &js),
			 200);
	assert_int_equal(jint(js, "version"), 2);
	json_object_put(js);
	assert_int_equal(req("admin", "GET", "/v1/agents/host-1", NULL, &js),
			 200);
	assert_true(json_object_object_get_ex(js, "whitelist", &w));
	assert_string_equal(jstr(w, "name"), "base");
	json_object_put(js);
}

static void test_schemas_refuse(void **state)
{
	(void)state;
	/* The schema check is real: wrong documents fail it. */
	assert_int_not_equal(att_vh_schema("error.schema.json", "{}"), 0);
	assert_int_not_equal(
		att_vh_schema("evidence.schema.json", "{\"agent_id\":\"a\"}"),
		0);
	assert_int_not_equal(att_vh_schema("whitelist-request.schema.json",
					   "{\"name\":\"x\",\"whitelist\":{},"
					   "\"legacy\":\"\"}"),
			     0);
	assert_int_equal(att_vh_schema("assign-request.schema.json",
				       "{\"name\":\"base\",\"version\":0}"),
			 0);
}

static void test_cli(void **state)
{
	char bin[512], cmd[1200];
	int st;

	(void)state;
	assert_int_equal(att_vproc_bin("attest-verifier", bin, sizeof(bin)), 0);
	snprintf(cmd, sizeof(cmd), "'%s' --help | grep -q '^SYNOPSIS'", bin);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* No TLS settings: refused with status 2 (never plain HTTP). */
	snprintf(cmd, sizeof(cmd), "'%s' --database sqlite:%s/x.db 2>/dev/null",
		 bin, dir);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	snprintf(cmd, sizeof(cmd), "'%s' --max-body lots 2>/dev/null", bin);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	snprintf(cmd, sizeof(cmd), "'%s' --no-such-thing 1 2>/dev/null", bin);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_plain_http_refused),
		cmocka_unit_test(test_whitelists),
		cmocka_unit_test(test_agents),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_raw_http),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_one_shot_check),
		cmocka_unit_test(test_restart_keeps_state),
		cmocka_unit_test(test_schemas_refuse),
		cmocka_unit_test(test_cli),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
