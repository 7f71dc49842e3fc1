// SPDX-License-Identifier: Apache-2.0
/*
 * vhost.c - a simulated attested host against a real verifier (see
 * vhost.h).
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
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

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

/* ---- the fixture ---- */

int vh_setup(struct vh_host *h, const char *prefix, int use_pg)
{
	int created;

	memset(h, 0, sizeof(*h));
	att_buf_init(&h->log, 0);
	snprintf(h->dir, sizeof(h->dir), "/tmp/att-%.16s-XXXXXX", prefix);
	if (!mkdtemp(h->dir))
		return -1;
	snprintf(h->db, sizeof(h->db), "sqlite:%s/v.db", h->dir);
	if (use_pg) {
		if (att_pg_start(&h->pg)) {
			fprintf(stderr, "FATAL: cannot start PostgreSQL\n");
			return -1;
		}
		snprintf(h->db, sizeof(h->db), "%s", att_pg_url(h->pg));
	}
	if (att_pki_init(h->dir)) {
		fprintf(stderr, "FATAL: cannot make the test PKI\n");
		return -1;
	}
	if (att_swtpm_start(&h->sw) ||
	    att_esys_new(att_swtpm_tcti(h->sw), &h->tpm) ||
	    att_esys_ak_ensure(h->tpm, ATT_ESYS_AK_RSA_RSASSA, ATT_ESYS_KEY_RSA,
			       VH_AK_HANDLE, &created)) {
		fprintf(stderr, "FATAL: no swtpm with an AK\n");
		return -1;
	}
	return 0;
}

void vh_tpm_power_cycle(struct vh_host *h, int orderly)
{
	if (orderly)
		assert_int_equal(Esys_Shutdown(att_esys_context(h->tpm),
					       ESYS_TR_NONE, ESYS_TR_NONE,
					       ESYS_TR_NONE, TPM2_SU_CLEAR),
				 TSS2_RC_SUCCESS);
	att_esys_free(h->tpm);
	h->tpm = NULL;
	assert_int_equal(att_swtpm_restart(h->sw), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(h->sw), &h->tpm), 0);
	assert_int_equal(att_esys_ak_load_persistent(h->tpm, VH_AK_HANDLE), 0);
}

int vh_start_verifier(struct vh_host *h, const char *const *extra)
{
	if (att_vproc_start(h->dir, h->db, extra, &h->vp)) {
		fprintf(stderr, "FATAL: cannot start attest-verifier\n");
		return -1;
	}
	return 0;
}

int vh_setup_enrolled(struct vh_host *h, const char *prefix, int use_pg,
		      const char *const *extra)
{
	struct json_object *js;

	if (vh_setup(h, prefix, use_pg))
		return -1;
	h->no_schema = 1;
	if (vh_start_verifier(h, extra)) {
		fprintf(stderr, "FATAL: cannot start attest-verifier\n");
		return -1;
	}
	vh_enroll(h, h->tpm, "host-1");
	if (vh_req(h, "admin", "POST", "/v1/whitelists",
		   "{\"name\":\"base\",\"whitelist\":{\"digests\":{}}}",
		   &js) != 201)
		return -1;
	json_object_put(js);
	if (vh_req(h, "admin", "PUT", "/v1/agents/host-1/whitelist",
		   "{\"name\":\"base\"}", &js) != 200)
		return -1;
	json_object_put(js);
	return 0;
}

static struct {
	int (*setup)(int use_pg);
	int (*teardown)(void);
	int use_pg;
} B;

static int backend_setup(void **state)
{
	(void)state;
	return B.setup(B.use_pg) ? -1 : 0;
}

static int backend_teardown(void **state)
{
	(void)state;
	return B.teardown && B.teardown() ? -1 : 0;
}

int vh_run_backend(const char *name, int use_pg, const struct CMUnitTest *tests,
		   size_t n, int (*setup)(int use_pg), int (*teardown)(void))
{
	B.setup = setup;
	B.teardown = teardown;
	B.use_pg = use_pg;
	return _cmocka_run_group_tests(name, tests, n, backend_setup,
				       backend_teardown);
}

int vh_run_backends(const struct CMUnitTest *tests, size_t n,
		    int (*setup)(int use_pg), int (*teardown)(void))
{
	int fails;

	fails = vh_run_backend("sqlite", 0, tests, n, setup, teardown);
	fails += vh_run_backend("postgresql", 1, tests, n, setup, teardown);
	return fails;
}

static struct {
	struct vh_host *h;
	const char *prefix;
	const char *const *extra;
	int (*after)(struct vh_host *h);
} G;

static int group_setup(int use_pg)
{
	if (vh_setup_enrolled(G.h, G.prefix, use_pg, G.extra))
		return -1;
	return G.after ? G.after(G.h) : 0;
}

static int group_teardown(void)
{
	return vh_teardown(G.h) ? -1 : 0;
}

int vh_run_groups(struct vh_host *h, const char *prefix,
		  const char *const *extra, int (*after)(struct vh_host *h),
		  const struct CMUnitTest *tests, size_t n)
{
	G.h = h;
	G.prefix = prefix;
	G.extra = extra;
	G.after = after;
	return vh_run_backends(tests, n, group_setup, group_teardown);
}

char *vh_snapshot(struct vh_host *h)
{
	static const char *const what[] = {"/v1/whitelists",
					   "/v1/whitelists/base", "/v1/agents",
					   "/v1/agents/host-1"};
	struct json_object *js;
	struct att_buf b;
	size_t i;
	char *out;

	att_buf_init(&b, 0);
	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		const char *s;

		assert_int_equal(vh_req(h, "admin", "GET", what[i], NULL, &js),
				 200);
		s = json_object_to_json_string(js);
		att_buf_append(&b, s, strlen(s));
		json_object_put(js);
	}
	att_buf_append(&b, "", 1);
	out = strdup((char *)b.data);
	att_buf_release(&b);
	return out;
}

int vh_teardown(struct vh_host *h)
{
	char cmd[160];
	int st, rc = 0;

	if (h->vp && att_vproc_stop(h->vp, &st) == 0 && st != 0)
		rc = -1;
	att_vproc_free(h->vp);
	att_esys_free(h->tpm);
	att_swtpm_free(h->sw);
	att_pg_free(h->pg);
	att_buf_release(&h->log);
	if (h->dir[0] && !getenv("ATT_KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h->dir);
		if (system(cmd))
			rc = -1;
	}
	memset(h, 0, sizeof(*h));
	return rc;
}

int vh_req(struct vh_host *h, const char *who, const char *method,
	   const char *path, const char *body, struct json_object **js)
{
	struct att_vh_resp r;
	int st;

	assert_int_equal(att_vh_request(att_vproc_port(h->vp), h->dir, who,
					method, path, body,
					body ? strlen(body) : 0, &r),
			 0);
	st = r.status;
	/* Every answer, and every accepted body, matches its schema. */
	if (!h->no_schema && strcmp(path, "/metrics"))
		assert_int_equal(
			att_vh_check_exchange(method, path, body, st, r.body),
			0);
	*js = json_tokener_parse(r.body);
	if (!*js)
		fprintf(stderr, "not JSON (%d): %s\n", st, r.body);
	assert_non_null(*js);
	att_vh_resp_release(&r);
	return st;
}

struct json_object *vh_jget(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no '%s' in %s", k, json_object_to_json_string(o));
	return v;
}

const char *vh_jstr(struct json_object *o, const char *k)
{
	return json_object_get_string(vh_jget(o, k));
}

int64_t vh_jint(struct json_object *o, const char *k)
{
	return json_object_get_int64(vh_jget(o, k));
}

char *vh_b64(const void *p, size_t n)
{
	char *s = malloc(att_b64_enclen(n) + 1);

	assert_non_null(s);
	att_b64_encode(p, n, s);
	return s;
}

static void extend_td(struct vh_host *h, const struct att_buf *td)
{
	uint8_t d1[20], d256[32];

	ib_hash("sha1", td->data, td->len, d1);
	ib_hash("sha256", td->data, td->len, d256);
	assert_int_equal(att_esys_pcr_extend(h->tpm, 10, ATT_HASH_SHA1, d1), 0);
	assert_int_equal(att_esys_pcr_extend(h->tpm, 10, ATT_HASH_SHA256, d256),
			 0);
}

/* Measures a file: appends its ima-ng record and extends PCR 10. */
void vh_measure(struct vh_host *h, const char *path, const char *content)
{
	struct att_buf td;
	uint8_t d[32];

	att_buf_init(&td, 0);
	ib_hash("sha256", content, strlen(content), d);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, path);
	ib_record(&h->log, 10, "sha1", "ima-ng", &td, 0);
	extend_td(h, &td);
	att_buf_release(&td);
	h->nentries++;
}

/* A new boot: the list restarts with boot_aggregate over PCRs 0-9. */
void vh_boot(struct vh_host *h)
{
	struct att_pcr_sel sel;
	struct att_pcrs pcrs;
	struct att_buf td;
	uint8_t agg[32];

	att_buf_release(&h->log);
	att_buf_init(&h->log, 0);
	h->nentries = 0;
	memset(&sel, 0, sizeof(sel));
	att_pcr_sel_add(&sel, ATT_HASH_SHA256, 0x3ff);
	att_pcrs_clear(&pcrs);
	assert_int_equal(att_esys_pcr_read(h->tpm, &sel, &pcrs), 0);
	assert_int_equal(att_boot_aggregate(&pcrs, ATT_HASH_SHA256, 1, agg), 0);
	att_buf_init(&td, 0);
	ib_dng(&td, "sha256", agg, 32);
	ib_nng(&td, "boot_aggregate");
	ib_record(&h->log, 10, "sha1", "ima-ng", &td, 0);
	extend_td(h, &td);
	att_buf_release(&td);
	h->nentries++;
}

/* Byte offset of entry i in h->log. */
size_t vh_entry_offset(const struct vh_host *h, uint64_t idx)
{
	size_t off = 0;
	uint64_t i;
	uint32_t nl, dl;

	for (i = 0; i < idx; i++) {
		off += 4 + 20;
		memcpy(&nl, h->log.data + off, 4);
		off += 4 + nl;
		memcpy(&dl, h->log.data + off, 4);
		off += 4 + dl;
	}
	return off;
}

static char *make_csr(struct vh_host *h, const char *id)
{
	char path[256], *pem;
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509_REQ *r = X509_REQ_new();
	BIO *b = BIO_new(BIO_s_mem());
	BUF_MEM *bm;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.key", h->dir, id);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL),
			 1);
	fclose(f);
	X509_REQ_set_pubkey(r, k);
	assert_true(X509_REQ_sign(r, k, EVP_sha256()) > 0);
	assert_int_equal(PEM_write_bio_X509_REQ(b, r), 1);
	BIO_get_mem_ptr(b, &bm);
	pem = strndup(bm->data, bm->length);
	BIO_free(b);
	X509_REQ_free(r);
	EVP_PKEY_free(k);
	return pem;
}

char *vh_enroll_body(struct vh_host *h, struct att_esys *tpm, const char *id)
{
	struct att_buf ek, cert, ak;
	struct json_object *js;
	char *e, *c, *a, *body;
	size_t n;

	att_buf_init(&ek, 0);
	att_buf_init(&cert, 0);
	att_buf_init(&ak, 0);
	assert_int_equal(att_esys_ek_public(tpm, ATT_ESYS_KEY_RSA, &ek), 0);
	assert_int_equal(att_esys_ek_cert(tpm, ATT_ESYS_KEY_RSA, &cert), 0);
	assert_int_equal(att_esys_ak_public(tpm, &ak), 0);
	assert_int_equal(
		vh_req(h, "admin", "POST", "/v1/enrollment/tokens", "{}", &js),
		201);
	e = vh_b64(ek.data, ek.len);
	c = vh_b64(cert.data, cert.len);
	a = vh_b64(ak.data, ak.len);
	n = strlen(e) + strlen(c) + strlen(a) + 512;
	body = malloc(n);
	assert_non_null(body);
	snprintf(body, n,
		 "{\"agent_id\":\"%s\",\"token\":\"%s\",\"ek_public\":\"%s\","
		 "\"ek_cert\":\"%s\",\"ak_public\":\"%s\"}",
		 id, vh_jstr(js, "token"), e, c, a);
	json_object_put(js);
	free(e);
	free(c);
	free(a);
	att_buf_release(&ek);
	att_buf_release(&cert);
	att_buf_release(&ak);
	return body;
}

int vh_activate_cred(struct att_esys *tpm, struct json_object *challenge,
		     uint8_t *secret, size_t cap, size_t *slen)
{
	struct att_cred cred;
	const char *s;
	size_t n;

	memset(&cred, 0, sizeof(cred));
	s = vh_jstr(challenge, "credential_blob");
	assert_int_equal(att_b64_decode(s, strlen(s), cred.blob.credential,
					sizeof(cred.blob.credential), &n),
			 0);
	cred.blob.size = (uint16_t)n;
	s = vh_jstr(challenge, "encrypted_secret");
	assert_int_equal(att_b64_decode(s, strlen(s), cred.secret.secret,
					sizeof(cred.secret.secret), &n),
			 0);
	cred.secret.size = (uint16_t)n;
	return att_esys_activate(tpm, ATT_ESYS_KEY_RSA, &cred, secret, cap,
				 slen);
}

char *vh_activate_body(struct vh_host *h, const char *id, const uint8_t *secret,
		       size_t slen)
{
	struct json_object *o = json_object_new_object();
	char sb[128], *csr, *out;

	assert_true(att_b64_enclen(slen) < sizeof(sb));
	csr = make_csr(h, id);
	att_b64_encode(secret, slen, sb);
	json_object_object_add(o, "agent_id", json_object_new_string(id));
	json_object_object_add(o, "secret", json_object_new_string(sb));
	json_object_object_add(o, "csr", json_object_new_string(csr));
	free(csr);
	out = strdup(json_object_to_json_string(o));
	assert_non_null(out);
	json_object_put(o);
	return out;
}

void vh_save_cert(struct vh_host *h, const char *id, const char *pem)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.pem", h->dir, id);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(pem, f);
	fclose(f);
}

void vh_enroll(struct vh_host *h, struct att_esys *tpm, const char *id)
{
	struct json_object *js;
	uint8_t secret[64];
	size_t slen;
	char *body;

	body = vh_enroll_body(h, tpm, id);
	assert_int_equal(vh_req(h, NULL, "POST", "/v1/enroll", body, &js), 200);
	free(body);
	assert_int_equal(
		vh_activate_cred(tpm, js, secret, sizeof(secret), &slen), 0);
	json_object_put(js);
	body = vh_activate_body(h, id, secret, slen);
	assert_int_equal(
		vh_req(h, NULL, "POST", "/v1/enroll/activate", body, &js), 200);
	free(body);
	vh_save_cert(h, id, vh_jstr(js, "certificate"));
	json_object_put(js);
}

int vh_attest(struct vh_host *h, struct vh_round *rd,
	      struct json_object **result)
{
	struct att_vproc *keep = h->vp;
	struct json_object *js, *o, *pcrs, *bank, *logs, *log;
	struct att_buf attest_b, sig;
	struct att_pcr_sel sel;
	struct att_pcrs pv;
	uint8_t nonce[32];
	size_t n, off, end;
	int64_t start;
	char body[128], hex[65], key[4], *q, *s, *chunk;
	const char *who = rd->who ? rd->who : rd->id;
	const char *nonce_hex;
	unsigned int i;
	uint32_t asked;
	int st;

	snprintf(body, sizeof(body), "{\"agent_id\":\"%s\"}", rd->id);
	if (rd->challenge)
		js = json_object_get(rd->challenge);
	else
		assert_int_equal(vh_req(h, who, "POST",
					"/v1/attestation/challenge", body, &js),
				 201);
	snprintf(rd->nonce_out, sizeof(rd->nonce_out), "%s",
		 rd->nonce ? rd->nonce : vh_jstr(js, "nonce"));
	nonce_hex = rd->nonce_out;
	assert_int_equal(att_hex_decode(nonce_hex, strlen(nonce_hex), nonce,
					sizeof(nonce), &n),
			 0);
	logs = vh_jget(js, "logs");
	start = rd->start >= 0 ? rd->start
			       : vh_jint(json_object_array_get_idx(logs, 0),
					 "next_entry");
	/* what the agent quotes: the selection asked for */
	asked = 0;
	{
		struct json_object *sa =
			vh_jget(vh_jget(js, "pcr_selection"), "sha256");

		for (i = 0; i < json_object_array_length(sa); i++)
			asked |= 1u << json_object_get_int(
					 json_object_array_get_idx(sa, i));
	}
	json_object_put(js);

	/* Quote, then read the logs: the order the agent uses. */
	memset(&sel, 0, sizeof(sel));
	att_pcr_sel_add(&sel, ATT_HASH_SHA256,
			rd->sel_mask ? rd->sel_mask : asked);
	att_buf_init(&attest_b, 0);
	att_buf_init(&sig, 0);
	assert_int_equal(
		att_esys_quote(h->tpm, nonce, n, &sel, &attest_b, &sig), 0);
	att_pcrs_clear(&pv);
	assert_int_equal(att_esys_pcr_read(h->tpm, &sel, &pv), 0);
	if (rd->after_quote)
		rd->after_quote();

	o = json_object_new_object();
	json_object_object_add(
		o, "agent_id",
		json_object_new_string(rd->ev_id ? rd->ev_id : rd->id));
	json_object_object_add(o, "nonce", json_object_new_string(nonce_hex));
	q = vh_b64(attest_b.data, attest_b.len);
	s = vh_b64(sig.data, sig.len);
	json_object_object_add(o, "quote", json_object_new_string(q));
	json_object_object_add(o, "signature", json_object_new_string(s));
	free(q);
	free(s);
	pcrs = json_object_new_object();
	bank = json_object_new_object();
	for (i = 0; i < 24; i++) {
		if (!att_pcrs_get(&pv, ATT_HASH_SHA256, i))
			continue; /* not selected (sel_mask) */
		att_hex_encode(att_pcrs_get(&pv, ATT_HASH_SHA256, i), 32, hex);
		snprintf(key, sizeof(key), "%u", i);
		json_object_object_add(bank, key, json_object_new_string(hex));
	}
	json_object_object_add(pcrs, "sha256", bank);
	json_object_object_add(o, "pcrs", pcrs);
	off = vh_entry_offset(h, (uint64_t)start);
	end = rd->upto >= 0 ? vh_entry_offset(h, (uint64_t)rd->upto)
			    : h->log.len;
	chunk = NULL;
	if (end > off || rd->mangle) {
		struct att_buf cp;

		att_buf_init(&cp, 0);
		assert_int_equal(
			att_buf_append(&cp, h->log.data + off, end - off), 0);
		if (rd->tamper_at)
			cp.data[rd->tamper_at] ^= 0x01;
		if (rd->mangle)
			rd->mangle(&cp);
		chunk = cp.len ? vh_b64(cp.data, cp.len) : NULL;
		att_buf_release(&cp);
	}
	logs = json_object_new_array();
	log = json_object_new_object();
	json_object_object_add(log, "name", json_object_new_string("ima"));
	json_object_object_add(log, "start", json_object_new_int64(start));
	json_object_object_add(log, "entries",
			       json_object_new_string(chunk ? chunk : ""));
	free(chunk);
	json_object_array_add(logs, log);
	json_object_object_add(o, "logs", logs);
	if (rd->want_next)
		json_object_object_add(o, "next_challenge",
				       json_object_new_boolean(1));
	if (rd->uefi) {
		chunk = vh_b64(rd->uefi->data, rd->uefi->len);
		json_object_object_add(o, "uefi_log",
				       json_object_new_string(chunk));
		free(chunk);
	}
	if (rd->edit)
		rd->edit(o);
	if (rd->vp)
		h->vp = rd->vp;
	st = 0;
	*result = NULL;
	if (!rd->no_send)
		st = vh_req(h, who, "POST", "/v1/attestation/evidence",
			    json_object_to_json_string(o), result);
	h->vp = keep;
	if (rd->body_out)
		free(rd->body_out);
	rd->body_out = strdup(json_object_to_json_string(o));
	json_object_put(o);
	att_buf_release(&attest_b);
	att_buf_release(&sig);
	return st;
}

struct json_object *vh_round_ok(struct vh_host *h, const char *state)
{
	struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
	struct json_object *res;

	assert_int_equal(vh_attest(h, &rd, &res), 200);
	free(rd.body_out);
	if (strcmp(vh_jstr(res, "state"), state))
		fail_msg("expected %s: %s", state,
			 json_object_to_json_string(res));
	return res;
}
