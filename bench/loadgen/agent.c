/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agent.c - one simulated agent speaking the verifier's REST protocol
 * (docs/verifier.md): enrollment with a software EK certified by the
 * bench's TPM vendor CA, credential activation, a client certificate from
 * a CSR; then challenge/evidence rounds with quotes from its software AK
 * over its own simulated PCR 10.
 *
 * Honest agents append c->entries new ima-ng entries per round and send
 * the list from the entry the verifier asks for. Misbehaving agents
 * (bad signature, unknown file) reboot before every round after the first
 * (resetCount moves on, the list starts over with boot_aggregate): the
 * verifier never moves their replay state past a failure, so without the
 * reboot they would resend an ever longer list.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "attest/jsonpull.h"
#include "attest/pcrs.h"
#include "attest/tpm_cred.h"
#include "attest/tpm_key.h"
#include "attest/tpm_quote.h"
#include "lg.h"
#include "softtpm.h"

#define LG_SEL_MASK 0x7ffu /* sha256 PCRs 0-10 */

struct lg_agent {
	const struct lg_conf *c;
	char id[48];
	unsigned int idx;
	enum lg_kind kind;
	const char *url;
	struct softtpm_ek *ek;
	struct softtpm_ak *ak;
	char *cert_pem, *key_pem;
	CURL *h;
	uint64_t count; /* entries in the current boot's list */
	uint32_t boot;
	uint32_t first;
	uint8_t pcr10[32];
	struct att_buf unknown; /* LG_UNKNOWN: its unknown file's record */
	uint8_t unknown_t256[32];
	atomic_int busy;
	/* The round's challenge: the last verdict's (held != 0) or asked. */
	int held;
	int64_t held_expires;
	uint64_t held_next;
	char held_nonce[65];
};

static atomic_int lg_nerrors;

void lg_errorf(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&lg_nerrors, 1) >= 20)
		return;
	va_start(ap, fmt);
	fputs("att-bench-loadgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static size_t lg_write_cb(char *p, size_t sz, size_t n, void *ud)
{
	struct att_buf *b = ud;

	if (att_buf_append(b, p, sz * n))
		return 0;
	return sz * n;
}

CURL *lg_curl_new(const struct lg_conf *c, const struct curl_blob *cert,
		  const struct curl_blob *key)
{
	CURL *h = curl_easy_init();

	if (!h)
		return NULL;
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &c->ca);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, lg_write_cb);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, c->timeout);
	curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
	/*
	 * A held connection stays usable however long it waited: libcurl
	 * drops one idle for more than 118 s by default, and with 10,000
	 * agents on a slow host the connect phase lasts longer than that,
	 * so saturation began with thousands of TLS handshakes (pg2 with
	 * 10,000 agents fell to 83-394/s).
	 */
	curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, 86400L);
	if (cert) {
		curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, cert);
		curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, key);
		curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	}
	return h;
}

int lg_http(CURL *h, const char *url, const char *method, const char *body,
	    size_t len, struct att_buf *resp, long *status)
{
	CURLcode cc;

	*status = 0;
	resp->len = 0;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, resp);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST,
			 strcmp(method, "POST") ? method : NULL);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)len);
	} else {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	}
	cc = curl_easy_perform(h);
	if (cc != CURLE_OK) {
		lg_errorf("%s %s: %s", method, url, curl_easy_strerror(cc));
		return ATT_E_NET;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	return att_buf_cstr(resp);
}

int lg_scratch_init(struct lg_scratch *s, const struct lg_conf *c)
{
	memset(s, 0, sizeof(*s));
	att_buf_init(&s->body, 0);
	att_buf_init(&s->resp, 0);
	att_buf_init(&s->log, 0);
	att_buf_init(&s->b64, 0);
	s->admin = lg_curl_new(c, &c->admin_cert, &c->admin_key);
	s->anon = lg_curl_new(c, NULL, NULL);
	if (att_md_new(ATT_HASH_SHA256, &s->sha256))
		return ATT_E_NOMEM;
	return s->admin && s->anon ? 0 : ATT_E_NOMEM;
}

void lg_scratch_release(struct lg_scratch *s)
{
	att_buf_release(&s->body);
	att_buf_release(&s->resp);
	att_buf_release(&s->log);
	att_buf_release(&s->b64);
	if (s->admin)
		curl_easy_cleanup(s->admin);
	if (s->anon)
		curl_easy_cleanup(s->anon);
	att_md_free(s->sha256);
}

void lg_agent_free(struct lg_agent *a)
{
	if (!a)
		return;
	if (a->h)
		curl_easy_cleanup(a->h);
	softtpm_ek_free(a->ek);
	softtpm_ak_free(a->ak);
	free(a->cert_pem);
	if (a->key_pem)
		OPENSSL_cleanse(a->key_pem, strlen(a->key_pem));
	free(a->key_pem);
	att_buf_release(&a->unknown);
	free(a);
}

int lg_agent_new(const struct lg_conf *c, unsigned int idx, enum lg_kind kind,
		 struct lg_agent **out)
{
	struct lg_agent *a = calloc(1, sizeof(*a));
	char path[256];
	int rc;

	*out = NULL;
	if (!a)
		return ATT_E_NOMEM;
	a->c = c;
	a->idx = idx;
	a->kind = kind;
	a->url = c->urls[idx % c->nurls];
	snprintf(a->id, sizeof(a->id), "%s-%05u", c->prefix, idx);
	att_buf_init(&a->unknown, 0);
	atomic_init(&a->busy, 0);
	rc = c->ecc_ek ? softtpm_ek_new_ecc(&a->ek) : softtpm_ek_new(&a->ek);
	if (!rc)
		rc = softtpm_ak_new(&a->ak);
	if (!rc && kind == LG_UNKNOWN) {
		if (c->unknown_path)
			snprintf(path, sizeof(path), "%s", c->unknown_path);
		else
			snprintf(path, sizeof(path),
				 "/usr/bin/not-whitelisted-%s", a->id);
		rc = lg_record(path, a->id, strlen(a->id), &a->unknown,
			       a->unknown_t256);
	}
	if (rc) {
		lg_agent_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

const char *lg_agent_id(const struct lg_agent *a)
{
	return a->id;
}

enum lg_kind lg_agent_kind(const struct lg_agent *a)
{
	return a->kind;
}

void lg_agent_set_first(struct lg_agent *a, uint32_t n)
{
	a->first = n;
}

int lg_agent_claim(struct lg_agent *a)
{
	int zero = 0;

	return atomic_compare_exchange_strong(&a->busy, &zero, 1);
}

void lg_agent_release(struct lg_agent *a)
{
	atomic_store(&a->busy, 0);
}

/* ---- enrollment ---- */

static int lg_json_add_b64(struct json_object *o, const char *k,
			   const uint8_t *p, size_t n)
{
	char *s = malloc(att_b64_enclen(n) + 1);

	if (!s)
		return ATT_E_NOMEM;
	att_b64_encode(p, n, s);
	json_object_object_add(o, k, json_object_new_string(s));
	free(s);
	return 0;
}

/* The EK certificate, issued by the bench's TPM vendor CA. */
static int lg_ek_cert(const struct lg_agent *a, uint8_t **der, size_t *len)
{
	const struct lg_conf *c = a->c;
	X509 *x = X509_new();
	X509_NAME *nm = X509_NAME_new();
	X509V3_CTX v3;
	X509_EXTENSION *e;
	unsigned char *p = NULL;
	int n, rc = ATT_E_CRYPTO;

	if (!x || !nm)
		goto out;
	X509V3_set_ctx(&v3, c->ekca_cert, x, NULL, NULL, 0);
	if (X509_set_version(x, 2) != 1 ||
	    ASN1_INTEGER_set(X509_get_serialNumber(x), (long)a->idx + 1) != 1 ||
	    !X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC,
					(const unsigned char *)a->id, -1, -1,
					0) ||
	    X509_set_subject_name(x, nm) != 1 ||
	    X509_set_issuer_name(x, X509_get_subject_name(c->ekca_cert)) != 1 ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), -86400) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x), 10L * 365 * 86400) ||
	    X509_set_pubkey(x, softtpm_ek_pkey(a->ek)) != 1)
		goto out;
	e = X509V3_EXT_conf_nid(NULL, &v3, NID_basic_constraints,
				"critical,CA:FALSE");
	if (!e || !X509_add_ext(x, e, -1)) {
		X509_EXTENSION_free(e);
		goto out;
	}
	X509_EXTENSION_free(e);
	e = X509V3_EXT_conf_nid(NULL, &v3, NID_key_usage,
				c->ecc_ek ? "critical,keyAgreement"
					  : "critical,keyEncipherment");
	if (!e || !X509_add_ext(x, e, -1)) {
		X509_EXTENSION_free(e);
		goto out;
	}
	X509_EXTENSION_free(e);
	if (!X509_sign(x, c->ekca_key, EVP_sha256()))
		goto out;
	n = i2d_X509(x, &p);
	if (n <= 0)
		goto out;
	*der = p;
	*len = (size_t)n;
	rc = 0;
out:
	X509_NAME_free(nm);
	X509_free(x);
	return rc;
}

static char *lg_bio_string(BIO *b)
{
	BUF_MEM *bm;
	char *s;

	BIO_get_mem_ptr(b, &bm);
	s = malloc(bm->length + 1);
	if (s) {
		memcpy(s, bm->data, bm->length);
		s[bm->length] = '\0';
	}
	return s;
}

/* A P-256 TLS key (PEM in a->key_pem) and a CSR for CN = id (*csr). */
static int lg_csr(struct lg_agent *a, char **csr)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509_REQ *rq = X509_REQ_new();
	X509_NAME *nm = X509_NAME_new();
	BIO *b1 = BIO_new(BIO_s_mem()), *b2 = BIO_new(BIO_s_mem());
	int rc = ATT_E_CRYPTO;

	if (!k || !rq || !nm || !b1 || !b2 ||
	    !X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC,
					(const unsigned char *)a->id, -1, -1,
					0) ||
	    X509_REQ_set_subject_name(rq, nm) != 1 ||
	    X509_REQ_set_pubkey(rq, k) != 1 ||
	    X509_REQ_sign(rq, k, EVP_sha256()) <= 0 ||
	    PEM_write_bio_X509_REQ(b1, rq) != 1 ||
	    PEM_write_bio_PrivateKey(b2, k, NULL, NULL, 0, NULL, NULL) != 1)
		goto out;
	*csr = lg_bio_string(b1);
	a->key_pem = lg_bio_string(b2);
	rc = *csr && a->key_pem ? 0 : ATT_E_NOMEM;
out:
	BIO_free(b1);
	BIO_free(b2);
	X509_NAME_free(nm);
	X509_REQ_free(rq);
	EVP_PKEY_free(k);
	return rc;
}

/* POST/PUT a JSON object; the parsed answer in *js when status is want. */
static int lg_call(CURL *h, struct lg_scratch *s, const char *url,
		   const char *method, struct json_object *body, long want,
		   struct json_object **js)
{
	const char *txt = json_object_to_json_string_ext(
		body, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	long st;
	int rc;

	*js = NULL;
	rc = lg_http(h, url, method, txt, strlen(txt), &s->resp, &st);
	if (rc)
		return rc;
	if (st != want) {
		lg_errorf("%s %s: HTTP %ld: %.300s", method, url, st,
			  (const char *)s->resp.data);
		return ATT_E_VERIFY;
	}
	*js = json_tokener_parse((const char *)s->resp.data);
	return *js ? 0 : ATT_E_FORMAT;
}

static const char *lg_jstr(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int lg_b64_field(struct json_object *o, const char *k, uint8_t *out,
			size_t cap, uint16_t *len)
{
	const char *s = lg_jstr(o, k);
	size_t n = 0;

	if (!s || att_b64_decode(s, strlen(s), out, cap, &n) || n > 0xffff)
		return ATT_E_FORMAT;
	*len = (uint16_t)n;
	return 0;
}

static int lg_enroll_start(struct lg_agent *a, struct lg_scratch *s,
			   const char *token, struct att_cred *cred)
{
	struct json_object *req = json_object_new_object(), *js = NULL;
	const uint8_t *pub;
	uint8_t *der = NULL;
	size_t len = 0;
	char url[256];
	int rc;

	if (!req)
		return ATT_E_NOMEM;
	json_object_object_add(req, "agent_id", json_object_new_string(a->id));
	json_object_object_add(req, "token", json_object_new_string(token));
	pub = softtpm_ek_public(a->ek, &len);
	rc = lg_json_add_b64(req, "ek_public", pub, len);
	if (!rc)
		rc = lg_ek_cert(a, &der, &len);
	if (!rc)
		rc = lg_json_add_b64(req, "ek_cert", der, len);
	pub = softtpm_ak_public(a->ak, &len);
	if (!rc)
		rc = lg_json_add_b64(req, "ak_public", pub, len);
	snprintf(url, sizeof(url), "%s/v1/enroll", a->url);
	if (!rc)
		rc = lg_call(s->anon, s, url, "POST", req, 200, &js);
	memset(cred, 0, sizeof(*cred));
	if (!rc)
		rc = lg_b64_field(js, "credential_blob", cred->blob.credential,
				  sizeof(cred->blob.credential),
				  &cred->blob.size);
	if (!rc)
		rc = lg_b64_field(js, "encrypted_secret", cred->secret.secret,
				  sizeof(cred->secret.secret),
				  &cred->secret.size);
	OPENSSL_free(der);
	json_object_put(js);
	json_object_put(req);
	return rc;
}

static int lg_enroll_activate(struct lg_agent *a, struct lg_scratch *s,
			      const struct att_cred *cred)
{
	struct json_object *req = NULL, *js = NULL;
	struct att_tpm_key *ak = NULL;
	const uint8_t *pub, *name;
	uint8_t secret[64];
	size_t len, nlen, slen = 0;
	char url[256], *csr = NULL;
	const char *pem;
	int rc;

	pub = softtpm_ak_public(a->ak, &len);
	rc = att_tpm_key_parse(pub, len, &ak);
	if (rc)
		return rc;
	name = att_tpm_key_name(ak, &nlen);
	rc = softtpm_activate(a->ek, name, nlen, cred, secret, sizeof(secret),
			      &slen);
	if (!rc)
		rc = lg_csr(a, &csr);
	req = json_object_new_object();
	if (!rc && !req)
		rc = ATT_E_NOMEM;
	if (!rc) {
		json_object_object_add(req, "agent_id",
				       json_object_new_string(a->id));
		json_object_object_add(req, "csr", json_object_new_string(csr));
		rc = lg_json_add_b64(req, "secret", secret, slen);
	}
	snprintf(url, sizeof(url), "%s/v1/enroll/activate", a->url);
	if (!rc)
		rc = lg_call(s->anon, s, url, "POST", req, 200, &js);
	if (!rc) {
		pem = lg_jstr(js, "certificate");
		a->cert_pem = pem ? strdup(pem) : NULL;
		if (!a->cert_pem)
			rc = ATT_E_FORMAT;
	}
	OPENSSL_cleanse(secret, sizeof(secret));
	json_object_put(js);
	json_object_put(req);
	free(csr);
	att_tpm_key_free(ak);
	return rc;
}

int lg_agent_enroll(struct lg_agent *a, struct lg_scratch *s)
{
	struct json_object *req = json_object_new_object(), *js = NULL;
	struct att_cred cred;
	struct curl_blob cb, kb;
	char url[256], token[80];
	const char *t;
	int rc;

	if (!req)
		return ATT_E_NOMEM;
	snprintf(url, sizeof(url), "%s/v1/enrollment/tokens", a->url);
	rc = lg_call(s->admin, s, url, "POST", req, 201, &js);
	t = rc ? NULL : lg_jstr(js, "token");
	if (!rc && (!t || strlen(t) >= sizeof(token)))
		rc = ATT_E_FORMAT;
	if (!rc)
		snprintf(token, sizeof(token), "%s", t);
	json_object_put(js);
	js = NULL;
	if (!rc)
		rc = lg_enroll_start(a, s, token, &cred);
	if (!rc)
		rc = lg_enroll_activate(a, s, &cred);
	if (!rc) {
		json_object_object_add(req, "name",
				       json_object_new_string(a->c->wl_name));
		snprintf(url, sizeof(url), "%s/v1/agents/%s/whitelist", a->url,
			 a->id);
		rc = lg_call(s->admin, s, url, "PUT", req, 200, &js);
		json_object_put(js);
	}
	json_object_put(req);
	if (rc)
		return rc;
	cb.data = a->cert_pem;
	cb.len = strlen(a->cert_pem);
	cb.flags = CURL_BLOB_COPY;
	kb.data = a->key_pem;
	kb.len = strlen(a->key_pem);
	kb.flags = CURL_BLOB_COPY;
	a->h = lg_curl_new(a->c, &cb, &kb);
	return a->h ? 0 : ATT_E_NOMEM;
}

/* ---- rounds ---- */

/* Appends entry k of the current boot to log (may be NULL); extends. */
static int lg_entry(struct lg_agent *a, struct att_md *sha256, uint64_t k,
		    struct att_buf *log, int extend)
{
	const struct lg_files *f = a->c->files;
	const uint8_t *rec, *t256;
	uint8_t buf[64];
	size_t len;
	uint32_t i;

	if (k == 0) {
		rec = f->agg_rec;
		len = f->agg_len;
		t256 = f->agg_t256;
	} else if (a->kind == LG_UNKNOWN && k == 1 + a->c->entries / 2) {
		rec = a->unknown.data;
		len = a->unknown.len;
		t256 = a->unknown_t256;
	} else {
		i = (uint32_t)(((uint64_t)a->idx * 7919u +
				(uint64_t)a->boot * 104729u + k) %
			       f->n);
		rec = f->rec.data + f->off[i];
		len = f->off[i + 1] - f->off[i];
		t256 = f->t256 + (size_t)i * 32;
	}
	if (log && att_buf_append(log, rec, len))
		return ATT_E_NOMEM;
	if (extend) {
		memcpy(buf, a->pcr10, 32);
		memcpy(buf + 32, t256, 32);
		if (att_md_digest(sha256, buf, sizeof(buf), a->pcr10))
			return ATT_E_CRYPTO;
	}
	return 0;
}

static int lg_key(const struct att_jp *jp, const char *k)
{
	size_t n = strlen(k);

	return jp->slen == n && !memcmp(jp->str, k, n);
}

static int lg_jp_skip_next(struct att_jp *jp)
{
	enum att_jp_tok t;
	size_t s, e;
	int rc = att_jp_next(jp, &t);

	return rc ? rc : att_jp_skip(jp, t, &s, &e);
}

static int lg_jp_int(struct att_jp *jp, int64_t *v)
{
	enum att_jp_tok t;
	char num[24], *end;
	int rc = att_jp_next(jp, &t);

	if (rc || t != ATT_JP_NUMBER || !jp->slen || jp->slen >= sizeof(num))
		return ATT_E_FORMAT;
	memcpy(num, jp->str, jp->slen);
	num[jp->slen] = '\0';
	*v = strtoll(num, &end, 10);
	return *end ? ATT_E_FORMAT : 0;
}

/* The first log's next_entry; the other logs skipped. */
static int lg_jp_logs(struct att_jp *jp, struct lg_agent *a, int *have)
{
	enum att_jp_tok t;
	int64_t v;
	size_t s, e;
	int rc = att_jp_next(jp, &t);

	if (rc || t != ATT_JP_ARR_START)
		return ATT_E_FORMAT;
	rc = att_jp_next(jp, &t);
	if (rc || t != ATT_JP_OBJ_START)
		return ATT_E_FORMAT;
	while (!(rc = att_jp_next(jp, &t)) && t == ATT_JP_KEY) {
		if (lg_key(jp, "next_entry")) {
			rc = lg_jp_int(jp, &v);
			if (!rc && v < 0)
				rc = ATT_E_FORMAT;
			a->held_next = (uint64_t)v;
			*have |= 4;
		} else {
			rc = lg_jp_skip_next(jp);
		}
		if (rc)
			return rc;
	}
	if (rc || t != ATT_JP_OBJ_END)
		return ATT_E_FORMAT;
	while (!(rc = att_jp_next(jp, &t)) && t != ATT_JP_ARR_END)
		if ((rc = att_jp_skip(jp, t, &s, &e)))
			break;
	return rc;
}

/* next_challenge's nonce, expires and first log's next_entry. */
static int lg_jp_challenge(struct att_jp *jp, struct lg_agent *a)
{
	enum att_jp_tok t;
	int rc, have = 0;

	while (!(rc = att_jp_next(jp, &t)) && t == ATT_JP_KEY) {
		if (lg_key(jp, "nonce")) {
			rc = att_jp_next(jp, &t);
			if (rc || t != ATT_JP_STRING || jp->slen != 64)
				return ATT_E_FORMAT;
			memcpy(a->held_nonce, jp->str, 64);
			a->held_nonce[64] = '\0';
			have |= 1;
		} else if (lg_key(jp, "expires")) {
			rc = lg_jp_int(jp, &a->held_expires);
			have |= 2;
		} else if (lg_key(jp, "logs")) {
			rc = lg_jp_logs(jp, a, &have);
		} else {
			rc = lg_jp_skip_next(jp);
		}
		if (rc)
			return rc;
	}
	if (rc || t != ATT_JP_OBJ_END || have != 7)
		return ATT_E_FORMAT;
	return 0;
}

/* A challenge asked for, into the agent's held_* fields. */
static int lg_challenge_read(struct lg_agent *a, const char *text)
{
	struct att_jp jp;
	enum att_jp_tok t = ATT_JP_END;
	int rc = att_jp_init(&jp, text, strlen(text), 8);

	if (!rc)
		rc = att_jp_next(&jp, &t);
	if (!rc && t != ATT_JP_OBJ_START)
		rc = ATT_E_FORMAT;
	if (!rc)
		rc = lg_jp_challenge(&jp, a);
	att_jp_release(&jp);
	return rc;
}

/*
 * The round's challenge: the one the last verdict carried while it is
 * valid for 5 more seconds (as attest-agent does), else asked for.
 */
static int lg_challenge(struct lg_agent *a, struct lg_scratch *s,
			uint8_t *nonce, char *nonce_hex, uint64_t *next)
{
	char url[256], body[128];
	size_t len = 0;
	long st;
	int rc, blen;

	if (!a->held || a->held_expires <= (int64_t)time(NULL) + 5) {
		a->held = 0;
		snprintf(url, sizeof(url), "%s/v1/attestation/challenge",
			 a->url);
		blen = snprintf(body, sizeof(body), "{\"agent_id\":\"%s\"}",
				a->id);
		curl_easy_setopt(a->h, CURLOPT_FORBID_REUSE, 0L);
		rc = lg_http(a->h, url, "POST", body, (size_t)blen, &s->resp,
			     &st);
		if (rc)
			return rc;
		if (st != 201) {
			lg_errorf("%s: challenge: HTTP %ld: %.300s", a->id, st,
				  (const char *)s->resp.data);
			return ATT_E_VERIFY;
		}
		rc = lg_challenge_read(a, (const char *)s->resp.data);
		if (rc)
			return rc;
	}
	a->held = 0; /* single use */
	memcpy(nonce_hex, a->held_nonce, 65);
	*next = a->held_next;
	if (att_hex_decode(nonce_hex, 64, nonce, 32, &len) || len != 32)
		return ATT_E_FORMAT;
	return 0;
}

/*
 * The verdict's state, and its next_challenge kept for the next round;
 * read with the pull parser (no tree: the load generator's time is the
 * verifier's less).
 */
static int lg_verdict(struct lg_agent *a, const char *text, char *state,
		      size_t cap)
{
	struct att_jp jp;
	enum att_jp_tok t = ATT_JP_END;
	int rc;

	a->held = 0;
	state[0] = '\0';
	rc = att_jp_init(&jp, text, strlen(text), 8);
	if (!rc)
		rc = att_jp_next(&jp, &t);
	if (!rc && t != ATT_JP_OBJ_START)
		rc = ATT_E_FORMAT;
	while (!rc && !(rc = att_jp_next(&jp, &t)) && t == ATT_JP_KEY) {
		if (lg_key(&jp, "state")) {
			rc = att_jp_next(&jp, &t);
			if (!rc && (t != ATT_JP_STRING || jp.slen >= cap))
				rc = ATT_E_FORMAT;
			if (!rc) {
				memcpy(state, jp.str, jp.slen);
				state[jp.slen] = '\0';
			}
		} else if (lg_key(&jp, "next_challenge")) {
			rc = att_jp_next(&jp, &t);
			if (!rc && t != ATT_JP_OBJ_START)
				rc = ATT_E_FORMAT;
			if (!rc)
				rc = lg_jp_challenge(&jp, a);
			a->held = !rc;
		} else {
			rc = lg_jp_skip_next(&jp);
		}
	}
	if (!rc && t != ATT_JP_OBJ_END)
		rc = ATT_E_FORMAT;
	att_jp_release(&jp);
	return rc || !state[0] ? ATT_E_FORMAT : 0;
}

static int lg_b64_into(struct att_buf *b64, const uint8_t *p, size_t n)
{
	b64->len = 0;
	if (att_buf_reserve(b64, att_b64_enclen(n) + 1))
		return ATT_E_NOMEM;
	att_b64_encode(p, n, (char *)b64->data);
	b64->len = strlen((char *)b64->data);
	return 0;
}

static int lg_evidence_body(struct lg_agent *a, struct lg_scratch *s,
			    const char *nonce_hex, const uint8_t *attest,
			    size_t alen, const uint8_t *sig, size_t slen,
			    uint64_t start)
{
	char q[2048], g[512], hex[65];
	unsigned int i;
	int rc;

	if (att_b64_enclen(alen) >= sizeof(q) ||
	    att_b64_enclen(slen) >= sizeof(g))
		return ATT_E_TOO_BIG;
	att_b64_encode(attest, alen, q);
	att_b64_encode(sig, slen, g);
	s->body.len = 0;
	rc = att_buf_printf(&s->body,
			    "{\"agent_id\":\"%s\",\"nonce\":\"%s\",\"quote\":"
			    "\"%s\",\"signature\":\"%s\",\"pcrs\":{\"sha256\":"
			    "{",
			    a->id, nonce_hex, q, g);
	for (i = 0; !rc && i <= 10; i++) {
		att_hex_encode(i < 10 ? a->c->files->pcr[i] : a->pcr10, 32,
			       hex);
		rc = att_buf_printf(&s->body, "%s\"%u\":\"%s\"", i ? "," : "",
				    i, hex);
	}
	if (!rc)
		rc = att_buf_printf(&s->body,
				    "}},\"logs\":[{\"name\":\"ima\",\"start\":"
				    "%llu,\"entries\":\"",
				    (unsigned long long)start);
	if (!rc)
		rc = lg_b64_into(&s->b64, s->log.data, s->log.len);
	if (!rc)
		rc = att_buf_append(&s->body, s->b64.data, s->b64.len);
	if (!rc)
		rc = att_buf_append_str(&s->body,
					a->c->ask_always ? "\"}]}"
							 : "\"}],\"next_"
							   "challenge\":true}");
	return rc;
}

int lg_agent_round(struct lg_agent *a, struct lg_scratch *s, int close,
		   int *as_expected)
{
	struct att_pcr_sel sel;
	struct att_pcrs *pcrs = NULL;
	uint8_t nonce[32], attest[1024], sig[256];
	char nonce_hex[65], url[256];
	uint64_t next = 0, k, target;
	size_t alen = 0, slen = 0;
	unsigned int i;
	char state[32];
	long st;
	int rc;

	*as_expected = 0;
	rc = lg_challenge(a, s, nonce, nonce_hex, &next);
	if (rc)
		return rc;
	if (a->kind != LG_HONEST && a->count) {
		/* A reboot: resetCount moves on, the list starts over. */
		softtpm_ak_reboot(a->ak);
		a->boot++;
		a->count = 0;
		memset(a->pcr10, 0, sizeof(a->pcr10));
	}
	if (a->count == 0)
		next = 0;
	target = a->count + (a->count || !a->first ? a->c->entries : a->first);
	if (a->count == 0)
		target++; /* boot_aggregate */
	if (next > a->count) {
		lg_errorf("%s: the verifier wants entries from %llu, the "
			  "list has %llu",
			  a->id, (unsigned long long)next,
			  (unsigned long long)a->count);
		return ATT_E_STATE;
	}
	s->log.len = 0;
	for (k = next; !rc && k < target; k++)
		rc = lg_entry(a, s->sha256, k, &s->log, k >= a->count);
	if (rc)
		return rc;
	a->count = target;
	pcrs = malloc(sizeof(*pcrs));
	if (!pcrs)
		return ATT_E_NOMEM;
	att_pcrs_clear(pcrs);
	for (i = 0; !rc && i <= 10; i++)
		rc = att_pcrs_set(pcrs, ATT_HASH_SHA256, i,
				  i < 10 ? a->c->files->pcr[i] : a->pcr10, 32);
	memset(&sel, 0, sizeof(sel));
	if (!rc)
		rc = att_pcr_sel_add(&sel, ATT_HASH_SHA256, LG_SEL_MASK);
	if (!rc)
		rc = softtpm_quote(a->ak, nonce, sizeof(nonce), &sel, pcrs,
				   attest, sizeof(attest), &alen, sig,
				   sizeof(sig), &slen);
	free(pcrs);
	if (rc)
		return rc;
	if (a->kind == LG_BAD_SIG)
		sig[slen - 1] ^= 0x01;
	rc = lg_evidence_body(a, s, nonce_hex, attest, alen, sig, slen, next);
	if (rc)
		return rc;
	snprintf(url, sizeof(url), "%s/v1/attestation/evidence", a->url);
	curl_easy_setopt(a->h, CURLOPT_FORBID_REUSE, close ? 1L : 0L);
	rc = lg_http(a->h, url, "POST", (const char *)s->body.data, s->body.len,
		     &s->resp, &st);
	if (rc)
		return rc;
	if (st != 200) {
		lg_errorf("%s: evidence: HTTP %ld: %.300s", a->id, st,
			  (const char *)s->resp.data);
		return ATT_E_VERIFY;
	}
	if (lg_verdict(a, (const char *)s->resp.data, state, sizeof(state))) {
		lg_errorf("%s: unreadable verdict: %.300s", a->id,
			  (const char *)s->resp.data);
		return ATT_E_FORMAT;
	}
	*as_expected =
		!strcmp(state, a->kind == LG_HONEST ? "trusted" : "untrusted");
	if (!*as_expected)
		lg_errorf("%s (%s): verdict %s: %.400s", a->id,
			  a->kind == LG_HONEST	  ? "honest"
			  : a->kind == LG_BAD_SIG ? "bad signature"
						  : "unknown file",
			  state, (const char *)s->resp.data);
	return 0;
}
