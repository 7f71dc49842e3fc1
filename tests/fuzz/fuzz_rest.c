// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_rest.c - the verifier's REST layer in-process: ver_route() and every
 * handler behind it (healthz, metrics, whitelists, agents, enrollment
 * tokens, enroll and activate, challenge and evidence, fleet, check) on a
 * SQLite store in memory, with the EK CA of fuzz_fixtures.h and an agent
 * CA made at start-up. libmicrohttpd is not in the loop: server.c is not
 * linked; the request is built here the way server.c builds it (its
 * query arguments too), matched and gated by the route table as there,
 * and a refusing att_store_pg_open() is supplied (the PostgreSQL backend
 * is not linked).
 *
 * Input: up to 8 requests separated by "\n@@\n" (which no JSON text can
 * hold), each
 *
 *     u8 method  mod 6: GET POST PUT DELETE PATCH HEAD
 *     u8 route   mod 16: routes[] below; "" and "/v1/" leave the whole
 *                path to the tail
 *     u8 peer    mod 8: peers[] below: no certificate, admin, or an agent
 *                certificate (its id, and whether its fingerprint is the
 *                one stored at the agent's enrollment)
 *     tail       up to the first '\n', appended to the route; a '?'
 *                starts the query string (rq->query, ver_query)
 *     body       the rest, up to the separator
 *
 * '0' + i encodes index i in each of the three bytes. Every input starts
 * from the same state (the store is rebuilt, the whitelist cache is new):
 *
 *     whitelists  fz-wl (versions 1 and 2), fz-legacy, fz-keylime
 *     agents      fz-agent (registered, fz_ak_pub, fz-wl assigned),
 *                 fz-untrusted (a stored result, history, a replay
 *                 state), fz-stale (trusted long ago), fz-enrolling
 *                 (waiting for the proof FZ_SECRET_BYTE x 32)
 *     nonces      FZ_NONCE (fz-agent's, valid), FZ_NONCE_OLD (fz-agent's,
 *                 expired), FZ_NONCE_OTHER (fz-untrusted's)
 *     tokens      FZ_TOKEN (valid), FZ_TOKEN_OLD (expired)
 *
 * so a crash reproduces from its input alone, and requests of one input
 * can build on each other (create, then assign, then delete). The seeds
 * (corpus/rest, made by corpus/make-seeds.py) include a quote signed by
 * fz-agent's AK over FZ_NONCE and lists that replay to it: evidence
 * reaches the log replay and the whitelist verdicts.
 *
 * Checked on every answer (__builtin_trap otherwise):
 *  - a status from 200 to 499: the store is in memory and the fixtures
 *    are sound, so a 5xx is a handler failing (or mapping bad input to
 *    an internal error);
 *  - the body is strict JSON (att_json_parse: UTF-8 too) ending in a
 *    newline, but for /metrics' text; an error is an object with string
 *    "code" and "message"; a success is an object;
 *  - a 2xx on an admin route (/metrics, whitelists, agents, enrollment
 *    tokens, fleet, check) only for the admin peer; on /v1/attestation
 *    only for the current certificate of an enrolled agent, and about
 *    that agent ("agent_id");
 *  - GET /healthz is 200.
 * ASan, UBSan and LeakSanitizer do the rest. FUZZ_REST_TRACE=1 in the
 * environment prints every request and the start of its answer
 * (FUZZ_REST_TRACE=full: the whole answer).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <sqlite3.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/log.h"
#include "attest/pcrs.h"
#include "attest/replay.h"
#include "attest/tpm_ek.h"
#include "attest/whitelist.h"
#include "ca.h"
#include "config.h"
#include "logstate.h"
#include "metrics.h"
#include "service.h"
#include "store.h"
#include "store_impl.h"
#include "wlcache.h"
#include "wldoc.h"

#include "fuzz_fixtures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_REQUESTS 8
#define FZ_SEP		"\n@@\n"

static const char *const methods[6] = {"GET",	 "POST",  "PUT",
				       "DELETE", "PATCH", "HEAD"};

static const char *const routes[16] = {
	"/healthz",
	"/metrics",
	"/v1/whitelists",
	"/v1/whitelists/fz-wl",
	"/v1/agents",
	"/v1/agents/fz-agent",
	"/v1/agents/fz-agent/whitelist",
	"/v1/enrollment/tokens",
	"/v1/enroll",
	"/v1/enroll/activate",
	"/v1/attestation/challenge",
	"/v1/attestation/evidence",
	"/v1/fleet",
	"/v1/check",
	"/v1/",
	"",
};

struct fz_peer {
	enum ver_role role;
	const char *id;
	int old;	/* a certificate the agent had before */
	int may_attest; /* the current certificate of an enrolled agent */
};

static const struct fz_peer peers[8] = {
	{VER_ROLE_NONE, "", 0, 0},
	{VER_ROLE_ADMIN, "", 0, 0},
	{VER_ROLE_AGENT, "fz-agent", 0, 1},
	{VER_ROLE_AGENT, "fz-agent", 1, 0},
	{VER_ROLE_AGENT, "fz-enrolling", 0, 0}, /* no certificate stored */
	{VER_ROLE_AGENT, "fz-untrusted", 0, 1},
	{VER_ROLE_AGENT, "fz-ghost", 0, 0}, /* no such agent */
	{VER_ROLE_AGENT, "fz-stale", 0, 1},
};

/* The fixture whitelists: request bodies, then their stored forms. */
static const char *const wl_reqs[3] = {fz_wl_req, fz_legacy_req,
				       fz_keylime_req};
static const char *const wl_names[3] = {"fz-wl", "fz-legacy", "fz-keylime"};

static struct {
	int ready;
	int trace; /* FUZZ_REST_TRACE: 1 answers' starts, 2 ("full") all */
	struct ver_config cfg;
	struct ver_ctx ctx;
	struct att_pcrs static_pcrs;
	char *wl_stored[3];
	size_t wl_len[3];
	uint8_t replay_state[512]; /* fz-untrusted's, see fixtures() */
	size_t replay_len;
} F;

/* The query string of the request being routed (server.c: MHD's). */
static const char *cur_query;

static void quiet(enum att_log_level lvl, const char *msg, void *arg)
{
	(void)lvl;
	(void)msg;
	(void)arg;
}

static int unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* MHD's unescaping of arguments: %XX and '+' for a space. */
static size_t unescape(const char *s, size_t n, char *out, size_t cap)
{
	size_t i, k = 0;

	for (i = 0; i < n && k + 1 < cap; i++) {
		if (s[i] == '%' && i + 2 < n && unhex(s[i + 1]) >= 0 &&
		    unhex(s[i + 2]) >= 0) {
			out[k++] =
				(char)(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
			i += 2;
		} else {
			out[k++] = s[i] == '+' ? ' ' : s[i];
		}
	}
	out[k] = '\0';
	return k;
}

/* store.c's PostgreSQL backend is not linked (nothing here uses it). */
int att_store_pg_open(const char *url, struct att_store **out)
{
	(void)url;
	*out = NULL;
	return ATT_E_UNSUPPORTED;
}

/* The query string into rq->query, as server.c takes it from MHD. */
static void fill_query(struct ver_req *rq, const char *qs)
{
	static char keys[VER_QUERY_MAX][256], vals[VER_QUERY_MAX][1024];
	const char *p = qs, *amp, *eq;
	unsigned int n = 0;

	while (p && *p && n < VER_QUERY_MAX) {
		amp = strchr(p, '&');
		if (!amp)
			amp = p + strlen(p);
		eq = memchr(p, '=', (size_t)(amp - p));
		unescape(p, (size_t)((eq ? eq : amp) - p), keys[n],
			 sizeof(keys[n]));
		rq->query[n].key = keys[n];
		rq->query[n].value = NULL;
		if (eq) {
			unescape(eq + 1, (size_t)(amp - eq - 1), vals[n],
				 sizeof(vals[n]));
			rq->query[n].value = vals[n];
		}
		n++;
		p = *amp ? amp + 1 : amp;
	}
	rq->nquery = n;
}

/* The certificate fingerprint of id: hex SHA-256 of "fz:" id (or "old:"). */
static void fpr_of(const char *id, int old, char *out)
{
	char in[128];
	uint8_t md[32];
	unsigned int n = 0;

	snprintf(in, sizeof(in), "%s:%s", old ? "old" : "fz", id);
	EVP_Digest(in, strlen(in), md, &n, EVP_sha256(), NULL);
	att_hex_encode(md, sizeof(md), out);
}

static void token_hash(const char *token, char *hex)
{
	uint8_t md[32];
	unsigned int n = 0;

	EVP_Digest(token, strlen(token), md, &n, EVP_sha256(), NULL);
	att_hex_encode(md, sizeof(md), hex);
}

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_rest: setup failed: %s\n", what);
		abort();
	}
}

static void add_agent(struct att_store *s, const char *id,
		      enum att_agent_state state, const uint8_t *ak,
		      size_t ak_len, const char *wl, int64_t wl_version,
		      int64_t last_attest)
{
	struct att_agent_rec a;
	char ek[32];

	att_agent_rec_init(&a);
	snprintf(a.id, sizeof(a.id), "%s", id);
	a.state = state;
	/* distinct EKs: one TPM, one identity */
	snprintf(ek, sizeof(ek), "ek of %s", id);
	a.ek_pub = (uint8_t *)ek;
	a.ek_pub_len = strlen(ek);
	a.ak_pub = (uint8_t *)ak;
	a.ak_pub_len = ak_len;
	snprintf(a.wl_name, sizeof(a.wl_name), "%s", wl);
	a.wl_version = wl_version;
	a.enrolled_at = (int64_t)time(NULL) - 86400;
	a.last_attest = last_attest;
	fpr_of(id, 0, a.cert_fpr);
	if (!strcmp(id, "fz-untrusted")) {
		a.reset_count = 3;
		a.restart_count = 0;
		a.tpm_clock = 100000;
		a.boot_count = 2;
		a.replay = F.replay_state;
		a.replay_len = F.replay_len;
		a.last_result =
			"{\"at\":1,\"quote\":{\"reset_count\":3,"
			"\"restart_count\":0,\"reboot\":false},\"logs\":[{"
			"\"name\":\"ima\",\"pcr\":10,\"sent\":true,\"start\":0,"
			"\"entries\":2,\"verified\":2,\"unverified\":0,"
			"\"replay_matched\":true,\"failures_total\":1,"
			"\"failures\":[{\"index\":1,\"path\":\"/root/x\","
			"\"reason\":\"unknown-path\",\"detail\":\"\"}]}],"
			"\"reasons\":[\"unknown-path: /root/x\"],"
			"\"state\":\"untrusted\"}";
	}
	if (!strcmp(id, "fz-stale")) {
		a.reset_count = 1;
		a.restart_count = 0;
		a.boot_count = 1;
	}
	if (!strcmp(id, "fz-enrolling")) {
		static uint8_t secret[32];

		memset(secret, FZ_SECRET_BYTE, sizeof(secret));
		a.secret = secret;
		a.secret_len = sizeof(secret);
		a.cert_fpr[0] = '\0';
	}
	must(!att_store_agent_insert(s, &a), "agent");
}

/* The state every input starts from (see the top of the file). */
static void fixtures(struct att_store *s)
{
	int64_t now = (int64_t)time(NULL), v;
	char hash[65];
	unsigned int i;

	for (i = 0; i < 3; i++)
		must(!att_store_wl_put(s, wl_names[i], F.wl_stored[i],
				       F.wl_len[i], -1, &v),
		     "whitelist");
	must(!att_store_wl_put(s, "fz-wl", F.wl_stored[0], F.wl_len[0], 1, &v),
	     "whitelist v2");
	add_agent(s, "fz-agent", ATT_AGENT_REGISTERED, fz_ak_pub,
		  sizeof(fz_ak_pub), "fz-wl", 0, 0);
	add_agent(s, "fz-untrusted", ATT_AGENT_UNTRUSTED, fz_ak_pub,
		  sizeof(fz_ak_pub), "fz-keylime", 1, now - 10);
	add_agent(s, "fz-stale", ATT_AGENT_TRUSTED, fz_other_ak_pub,
		  sizeof(fz_other_ak_pub), "fz-legacy", 0, now - 86400);
	add_agent(s, "fz-enrolling", ATT_AGENT_ENROLLING, fz_ak_pub,
		  sizeof(fz_ak_pub), "", 0, 0);
	must(!att_store_history_add(s, "fz-untrusted", now - 70, "trusted",
				    "{\"state\":\"trusted\",\"reasons\":[]}"),
	     "history");
	must(!att_store_history_add(s, "fz-untrusted", now - 10, "untrusted",
				    "{\"state\":\"untrusted\",\"reasons\":["
				    "\"unknown-path: /root/x\"]}"),
	     "history");
	must(!att_store_nonce_put(s, FZ_NONCE_HEX, "fz-agent", now + 600,
				  FZ_SEL_JSON),
	     "nonce");
	must(!att_store_nonce_put(s, FZ_NONCE_OLD_HEX, "fz-agent", now - 60,
				  FZ_SEL_JSON),
	     "nonce");
	must(!att_store_nonce_put(s, FZ_NONCE_OTHER_HEX, "fz-untrusted",
				  now + 600, FZ_SEL_JSON),
	     "nonce");
	token_hash(FZ_TOKEN, hash);
	must(!att_store_token_put(s, hash, now + 3600), "token");
	token_hash(FZ_TOKEN_OLD, hash);
	must(!att_store_token_put(s, hash, now - 60), "token");
}

/*
 * A store and a whitelist cache per input, freed at its end: libFuzzer
 * runs an input again under LeakSanitizer whenever it ends with more
 * allocations than frees.
 */
static void setup(void)
{
	must(!att_store_open("sqlite::memory:", &F.ctx.store), "store");
	must(!ver_wlcache_new(16, &F.ctx.wlc), "whitelist cache");
	fixtures(F.ctx.store);
}

static void teardown(void)
{
	att_store_free(F.ctx.store);
	ver_wlcache_free(F.ctx.wlc);
	F.ctx.store = NULL;
	F.ctx.wlc = NULL;
}

static int add_ext(X509 *x, int nid, const char *val)
{
	X509V3_CTX v3;
	X509_EXTENSION *e;
	int ok;

	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &v3, nid, val);
	if (!e)
		return 0;
	ok = X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok;
}

/* A self-signed EC P-256 agent CA in dir, loaded (ver_ca_load). */
static void make_agent_ca(const char *dir)
{
	char cert[256], key[256];
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_NAME *nm;
	FILE *f;

	must(k && x, "agent CA key");
	nm = X509_get_subject_name(x);
	must(X509_set_version(x, 2) == 1 &&
		     ASN1_INTEGER_set(X509_get_serialNumber(x), 1) == 1 &&
		     X509_gmtime_adj(X509_getm_notBefore(x), -3600) &&
		     X509_gmtime_adj(X509_getm_notAfter(x), 3650L * 86400) &&
		     X509_set_pubkey(x, k) == 1 &&
		     X509_NAME_add_entry_by_txt(
			     nm, "CN", MBSTRING_ASC,
			     (const unsigned char *)"fuzz agent CA", -1, -1,
			     0) == 1 &&
		     X509_set_issuer_name(x, nm) == 1 &&
		     add_ext(x, NID_basic_constraints, "critical,CA:TRUE") &&
		     add_ext(x, NID_key_usage, "critical,keyCertSign") &&
		     add_ext(x, NID_subject_key_identifier, "hash") &&
		     X509_sign(x, k, EVP_sha256()) > 0,
	     "agent CA certificate");
	snprintf(cert, sizeof(cert), "%s/agent-ca.pem", dir);
	snprintf(key, sizeof(key), "%s/agent-ca-key.pem", dir);
	f = fopen(cert, "w");
	must(f && PEM_write_X509(f, x) == 1 && !fclose(f), cert);
	f = fopen(key, "w");
	must(f && PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL) == 1 &&
		     !fclose(f),
	     key);
	must(!ver_ca_load(cert, key, &F.ctx.agent_ca), "ver_ca_load");
	unlink(cert);
	unlink(key);
	X509_free(x);
	EVP_PKEY_free(k);
}

/* The fuzz EK CA of fuzz_fixtures.h, through att_ek_ca_load. */
static void load_ek_ca(const char *dir)
{
	char sub[256], path[300];
	FILE *f;

	snprintf(sub, sizeof(sub), "%s/ek", dir);
	snprintf(path, sizeof(path), "%s/root.pem", sub);
	must(!mkdir(sub, 0700), sub);
	f = fopen(path, "w");
	must(f && fputs(fz_ek_ca_pem, f) >= 0 && !fclose(f), path);
	must(!att_ek_ca_load(sub, &F.ctx.ek_ca), "att_ek_ca_load");
	unlink(path);
	rmdir(sub);
}

/* fz-untrusted's stored replay state: both logs, at their start. */
static void make_replay_state(void)
{
	static const enum att_hash banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};
	struct ver_logstates *ls = NULL;
	struct att_replay *rp = NULL;
	uint8_t *enc = NULL;

	must(!ver_logstates_new(&ls) && !att_replay_new(banks, 2, &rp) &&
		     !ver_logstates_set(ls, "ima", att_replay_state(rp)) &&
		     !ver_logstates_set(ls, "slim", att_replay_state(rp)) &&
		     !ver_logstates_encode(ls, &enc, &F.replay_len) &&
		     F.replay_len <= sizeof(F.replay_state),
	     "replay state");
	memcpy(F.replay_state, enc, F.replay_len);
	free(enc);
	att_replay_free(rp);
	ver_logstates_free(ls);
}

static void init(void)
{
	char dir[] = "/tmp/fuzz_rest.XXXXXX", err[300];
	struct json_object *o;
	struct att_wl *wl;
	unsigned int i;

	att_log_set_sink(quiet, NULL);
	/* A store per input: no bulk allocations to fault in each time. */
	sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);
	sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	ver_config_defaults(&F.cfg);
	must(!ver_config_set(&F.cfg, "logs", FZ_LOGS, err, sizeof(err)) &&
		     !ver_config_set(&F.cfg, "max_body", "1048576", err,
				     sizeof(err)),
	     "config");
	F.ctx.cfg = &F.cfg;
	must(!ver_metrics_new(&F.ctx.metrics), "metrics");
	must(mkdtemp(dir) != NULL, "mkdtemp");
	make_agent_ca(dir);
	load_ek_ca(dir);
	rmdir(dir);
	att_pcrs_clear(&F.static_pcrs);
	att_pcrs_set(&F.static_pcrs, ATT_HASH_SHA256, 0, fz_pcr0,
		     sizeof(fz_pcr0));
	F.ctx.static_pcrs = &F.static_pcrs;
	for (i = 0; i < 3; i++) {
		must(!att_json_parse(wl_reqs[i], strlen(wl_reqs[i]), 32, &o,
				     err, sizeof(err)),
		     err);
		must(!ver_wldoc_from_request(o, &F.wl_stored[i], &F.wl_len[i],
					     &wl, err, sizeof(err)),
		     err);
		att_wl_free(wl);
		json_object_put(o);
	}
	make_replay_state();
	if (getenv("FUZZ_REST_TRACE"))
		F.trace = strcmp(getenv("FUZZ_REST_TRACE"), "full") ? 1 : 2;
	F.ready = 1;
}

/* 0: not special; 1: admin only; 2: an agent's own. */
static int route_kind(const char *url)
{
	static const char *const admin[] = {"whitelists", "agents",
					    "enrollment", "fleet", "check"};
	const char *seg, *end;
	size_t n, i;

	if (!strcmp(url, "/metrics"))
		return 1;
	if (strncmp(url, "/v1/", 4))
		return 0;
	seg = url + 4;
	end = strchr(seg, '/');
	n = end ? (size_t)(end - seg) : strlen(seg);
	for (i = 0; i < sizeof(admin) / sizeof(admin[0]); i++)
		if (strlen(admin[i]) == n && !memcmp(admin[i], seg, n))
			return 1;
	if (n == 11 && !memcmp(seg, "attestation", 11))
		return 2;
	return 0;
}

static int str_field(struct json_object *o, const char *key, const char **s)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return 0;
	if (s)
		*s = json_object_get_string(v);
	return 1;
}

static const char *peer_name(const struct fz_peer *peer)
{
	if (peer->role == VER_ROLE_ADMIN)
		return "admin";
	if (peer->role == VER_ROLE_NONE)
		return "no certificate";
	return peer->old ? "an old certificate of fz-agent" : peer->id;
}

static void trace(const struct ver_req *rq, const struct fz_peer *peer,
		  const struct ver_resp *rs)
{
	int n = (int)rs->body.len;

	if (F.trace == 1 && n > 300)
		n = 300;

	fprintf(stderr, "%s %s%s%s (%s) -> %u %.*s%s", rq->method, rq->url,
		cur_query ? "?" : "", cur_query ? cur_query : "",
		peer_name(peer), rs->status, n,
		rs->body.data ? (const char *)rs->body.data : "",
		n < (int)rs->body.len ? "...\n" : "");
}

/* Says which check failed and on what, then stops (a crash for libFuzzer). */
static void fail(const char *why, const struct ver_req *rq,
		 const struct fz_peer *peer, const struct ver_resp *rs)
{
	fprintf(stderr, "fuzz_rest: %s\n  %s %s%s%s (%s)\n  -> %u %.*s\n", why,
		rq->method, rq->url, cur_query ? "?" : "",
		cur_query ? cur_query : "", peer_name(peer), rs->status,
		(int)(rs->body.len > 2000 ? 2000 : rs->body.len),
		rs->body.data ? (const char *)rs->body.data : "");
	__builtin_trap();
}

/* The answer as strict JSON (att_json_parse: UTF-8 checked too). */
static int parse_answer(const struct ver_resp *rs, struct json_object **o)
{
	char err[256];

	return att_json_parse((const char *)rs->body.data, rs->body.len, 64, o,
			      err, sizeof(err));
}

static void check(const struct ver_req *rq, const struct fz_peer *peer,
		  const struct ver_resp *rs)
{
	struct json_object *o = NULL;
	const char *id = NULL;
	int kind = route_kind(rq->url);

	if (rs->status < 200 || rs->status > 599)
		fail("status out of range", rq, peer, rs);
	if (rs->status > 499)
		fail("a 5xx (nothing here should fail)", rq, peer, rs);
	if (!rs->body.len || rs->body.data[rs->body.len - 1] != '\n')
		fail("empty body or no final newline", rq, peer, rs);
	if (!strcmp(rq->url, "/healthz") && !strcmp(rq->method, "GET") &&
	    rs->status != 200)
		fail("GET /healthz is not 200", rq, peer, rs);
	if (rs->ctype && strcmp(rs->ctype, "application/json")) {
		/* only the Prometheus text of GET /metrics */
		if (rs->status != 200 || strcmp(rq->url, "/metrics"))
			fail("not JSON", rq, peer, rs);
	} else {
		if (parse_answer(rs, &o) ||
		    !json_object_is_type(o, json_type_object))
			fail("the body is not a strict JSON object", rq, peer,
			     rs);
		if (rs->status >= 400 && (!str_field(o, "code", NULL) ||
					  !str_field(o, "message", NULL)))
			fail("an error without string code and message", rq,
			     peer, rs);
	}
	if (rs->status < 300) {
		if (kind == 1 && peer->role != VER_ROLE_ADMIN)
			fail("an admin route succeeded for a non-admin", rq,
			     peer, rs);
		if (kind == 2 &&
		    (peer->role != VER_ROLE_AGENT || !peer->may_attest ||
		     !str_field(o, "agent_id", &id) || strcmp(id, peer->id)))
			fail("attestation succeeded for another peer", rq, peer,
			     rs);
	}
	json_object_put(o);
}

static void one(const uint8_t *p, size_t n)
{
	const struct fz_peer *peer;
	struct ver_req rq;
	struct ver_resp rs;
	const uint8_t *nl;
	const char *route;
	size_t tail, rlen;
	char *url, *q;

	if (n < 3)
		return;
	route = routes[p[1] % 16];
	peer = &peers[p[2] % 8];
	memset(&rq, 0, sizeof(rq));
	rq.ctx = &F.ctx;
	rq.method = methods[p[0] % 6];
	p += 3;
	n -= 3;
	nl = memchr(p, '\n', n);
	tail = nl ? (size_t)(nl - p) : n;
	rlen = strlen(route);
	url = malloc(rlen + tail + 1);
	if (!url)
		return;
	memcpy(url, route, rlen);
	memcpy(url + rlen, p, tail);
	url[rlen + tail] = '\0'; /* a NUL in the tail ends it, as in C */
	q = strchr(url, '?');
	if (q)
		*q++ = '\0';
	cur_query = q;
	rq.url = url;
	fill_query(&rq, q);
	att_buf_init(&rq.body, F.cfg.max_body);
	if (nl && att_buf_append(&rq.body, nl + 1, n - tail - 1))
		goto out; /* server.c answers 413 before routing */
	rq.peer.role = peer->role;
	if (peer->role == VER_ROLE_AGENT) {
		snprintf(rq.peer.id, sizeof(rq.peer.id), "%s", peer->id);
		fpr_of(peer->id, peer->old, rq.peer.fpr);
	} else if (peer->role == VER_ROLE_ADMIN) {
		fpr_of("admin", 0, rq.peer.fpr);
	}
	memset(&rs, 0, sizeof(rs));
	att_buf_init(&rs.body, 0);
	/* as server.c: the route and its role before the body */
	ver_route_match(&rq);
	if (!ver_route_gate(&rq, &rs))
		ver_route(&rq, &rs);
	ver_metrics_request(F.ctx.metrics, rs.status);
	if (F.trace)
		trace(&rq, peer, &rs);
	check(&rq, peer, &rs);
	att_buf_release(&rs.body);
out:
	att_buf_release(&rq.body);
	cur_query = NULL;
	free(url);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *sep;
	unsigned int i;

	if (!F.ready)
		init();
	setup();
	for (i = 0; i < FZ_MAX_REQUESTS; i++) {
		sep = memmem(p, (size_t)(end - p), FZ_SEP, 4);
		one(p, (size_t)((sep ? sep : end) - p));
		if (!sep)
			break;
		p = sep + 4;
	}
	teardown();
	return 0;
}
