// SPDX-License-Identifier: Apache-2.0
/*
 * api_enroll.c - enrollment.
 *
 *   POST /v1/enrollment/tokens (admin) {"ttl": S}
 *        -> 201 {"token": hex, "expires": t}    single use; only its
 *           SHA-256 is stored
 *   POST /v1/enroll {"agent_id", "token", "ek_public", "ek_cert",
 *        "ek_chain": [...], "ak_public"}        (base64 TPM2B_PUBLIC, DER)
 *        -> 200 {"agent_id", "credential_blob", "encrypted_secret"}
 *           MakeCredential(EK, AK name, secret) after the EK certificate
 *           chain, the EK/certificate match and the AK attributes are
 *           checked; an id bound to another EK is refused (409).
 *   POST /v1/enroll/activate {"agent_id", "secret", "csr"}
 *        -> 200 {"agent_id", "certificate"}     the secret proves the AK
 *           is in the EK's TPM; one try; the AK is bound and a client
 *           certificate (CN = agent id) issued from the CSR.
 * No client certificate is needed for these two: the token and the TPM
 * are the proof.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "attest/log.h"
#include "attest/tpm_cred.h"
#include "attest/tpm_ek.h"
#include "attest/tpm_key.h"
#include "ca.h"
#include "service.h"

#define VER_TOKEN_BYTES	      32
#define VER_SECRET_BYTES      32
#define VER_TPM_PUBLIC_MAX    1024
#define VER_CHAIN_MAX	      4
#define VER_TOKEN_TTL_DEFAULT 3600
#define VER_TOKEN_TTL_MAX     (30 * 86400)

static void token_hash(const char *token, char *hex)
{
	uint8_t md[32];
	unsigned int n = 0;

	EVP_Digest(token, strlen(token), md, &n, EVP_sha256(), NULL);
	att_hex_encode(md, sizeof(md), hex);
}

int ver_api_tokens(struct ver_req *rq, struct ver_resp *rs)
{
	static const char *const fields[] = {"ttl", NULL};
	struct json_object *req = NULL, *o;
	uint8_t raw[VER_TOKEN_BYTES];
	char tok[2 * VER_TOKEN_BYTES + 1], hash[65];
	int64_t ttl = VER_TOKEN_TTL_DEFAULT, expires;
	int rc;

	if (rq->body.len) {
		if (ver_parse_body(rq, rs, &req))
			return 0;
		if (ver_fields_only(rs, req, fields) ||
		    ver_field_int(rs, req, "ttl", 0, 1, VER_TOKEN_TTL_MAX,
				  &ttl))
			goto out;
	}
	if (RAND_bytes(raw, sizeof(raw)) != 1) {
		ver_error(rs, 500, "internal", "no random bytes");
		goto out;
	}
	att_hex_encode(raw, sizeof(raw), tok);
	OPENSSL_cleanse(raw, sizeof(raw));
	token_hash(tok, hash);
	expires = (int64_t)time(NULL) + ttl;
	rc = att_store_token_put(rq->ctx->store, hash, expires);
	if (rc) {
		ver_store_error(rs, rc, "token");
		goto out;
	}
	o = json_object_new_object();
	if (o) {
		json_object_object_add(o, "token", json_object_new_string(tok));
		json_object_object_add(o, "expires",
				       json_object_new_int64(expires));
		ver_json_reply(rs, 201, o);
		json_object_put(o);
	} else {
		ver_error(rs, 500, "internal", "out of memory");
	}
	OPENSSL_cleanse(tok, sizeof(tok));
out:
	json_object_put(req);
	return 0;
}

struct enroll_in {
	const char *id, *token;
	uint8_t *ek_pub, *ek_cert, *ak_pub;
	size_t ek_pub_len, ek_cert_len, ak_pub_len;
	struct att_tpm_key *ek, *ak;
	X509 *cert;
	STACK_OF(X509) * chain;
};

static void enroll_in_release(struct enroll_in *in)
{
	free(in->ek_pub);
	free(in->ek_cert);
	free(in->ak_pub);
	att_tpm_key_free(in->ek);
	att_tpm_key_free(in->ak);
	X509_free(in->cert);
	sk_X509_pop_free(in->chain, X509_free);
}

static int parse_chain(struct ver_resp *rs, struct json_object *req,
		       struct enroll_in *in)
{
	struct json_object *arr, *v;
	uint8_t *der;
	size_t i, n, len;
	X509 *x;

	in->chain = sk_X509_new_null();
	if (!in->chain)
		return ver_error(rs, 503, "unavailable", "out of memory"),
		       ATT_E_NOMEM;
	if (!json_object_object_get_ex(req, "ek_chain", &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array) ||
	    json_object_array_length(arr) > VER_CHAIN_MAX) {
		ver_error(rs, 400, "wrong_type",
			  "field 'ek_chain' must be an array of at most %d "
			  "base64 certificates",
			  VER_CHAIN_MAX);
		return ATT_E_FORMAT;
	}
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		const char *s;

		v = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(v, json_type_string))
			goto bad;
		s = json_object_get_string(v);
		der = malloc(ATT_EK_CERT_MAX);
		if (!der)
			goto bad;
		if (att_b64_decode(s, strlen(s), der, ATT_EK_CERT_MAX, &len) ||
		    att_ek_cert_parse(der, len, &x)) {
			free(der);
			goto bad;
		}
		free(der);
		if (!sk_X509_push(in->chain, x)) {
			X509_free(x);
			goto bad;
		}
	}
	return 0;
bad:
	ver_error(rs, 400, "bad_certificate",
		  "ek_chain[%zu] is not a base64 DER certificate", i);
	return ATT_E_FORMAT;
}

static int enroll_parse(struct ver_resp *rs, struct json_object *req,
			struct enroll_in *in)
{
	static const char *const fields[] = {
		"agent_id", "token",	 "ek_public", "ek_cert",
		"ek_chain", "ak_public", NULL};

	if (ver_fields_only(rs, req, fields) ||
	    ver_field_str(rs, req, "agent_id", 1, &in->id) ||
	    ver_field_str(rs, req, "token", 1, &in->token) ||
	    ver_field_b64(rs, req, "ek_public", 1, VER_TPM_PUBLIC_MAX,
			  &in->ek_pub, &in->ek_pub_len) ||
	    ver_field_b64(rs, req, "ek_cert", 1, ATT_EK_CERT_MAX, &in->ek_cert,
			  &in->ek_cert_len) ||
	    ver_field_b64(rs, req, "ak_public", 1, VER_TPM_PUBLIC_MAX,
			  &in->ak_pub, &in->ak_pub_len))
		return ATT_E_FORMAT;
	if (!ver_id_valid(in->id)) {
		ver_error(rs, 400, "bad_agent_id",
			  "field 'agent_id' must be 1-64 of [A-Za-z0-9._-], "
			  "not starting with '.' or '-'");
		return ATT_E_FORMAT;
	}
	if (att_tpm_key_parse(in->ek_pub, in->ek_pub_len, &in->ek)) {
		ver_error(rs, 400, "bad_ek",
			  "field 'ek_public' is not a TPM2B_PUBLIC");
		return ATT_E_FORMAT;
	}
	if (att_tpm_key_parse(in->ak_pub, in->ak_pub_len, &in->ak)) {
		ver_error(rs, 400, "bad_ak",
			  "field 'ak_public' is not a TPM2B_PUBLIC");
		return ATT_E_FORMAT;
	}
	if (att_ek_cert_parse(in->ek_cert, in->ek_cert_len, &in->cert)) {
		ver_error(rs, 400, "bad_certificate",
			  "field 'ek_cert' is not a DER certificate");
		return ATT_E_FORMAT;
	}
	return parse_chain(rs, req, in);
}

static int enroll_check(struct ver_req *rq, struct ver_resp *rs,
			struct enroll_in *in)
{
	enum att_ak_reason why_ak;
	const char *why = NULL;
	int rc;

	rc = att_ek_cert_verify(rq->ctx->ek_ca, in->cert, in->chain, &why);
	if (rc) {
		ver_error(rs, 403, "ek_cert_untrusted",
			  "the EK certificate does not validate: %s",
			  why ? why : att_strerror(rc));
		return rc;
	}
	if (att_ek_cert_matches(in->cert, in->ek)) {
		ver_error(rs, 403, "ek_cert_mismatch",
			  "the EK certificate certifies another key");
		return ATT_E_VERIFY;
	}
	rc = att_tpm_ak_check(in->ak, &why_ak);
	if (rc || why_ak != ATT_AK_OK) {
		ver_error(rs, 422, "bad_ak", "the AK is not acceptable: %s",
			  att_ak_reason_str(why_ak));
		return ATT_E_VERIFY;
	}
	return 0;
}

/*
 * The insert of a new agent hit a unique key: another enrollment stored
 * the same id, or the same EK under another id, since they were looked up.
 */
static void enroll_conflict(struct ver_req *rq, struct ver_resp *rs,
			    const struct att_agent_rec *a)
{
	char other[sizeof(a->id)];

	if (att_store_agent_by_ek(rq->ctx->store, a->ek_pub, a->ek_pub_len,
				  a->id, other, sizeof(other)) == 0) {
		ver_error(rs, 409, "ek_in_use",
			  "this EK is enrolled as agent '%s' (delete that "
			  "agent first)",
			  other);
		return;
	}
	ver_error(rs, 409, "conflict",
		  "agent '%s' was enrolled concurrently; try again", a->id);
}

static int enroll_start(struct ver_req *rq, struct ver_resp *rs)
{
	struct json_object *req = NULL, *o;
	struct enroll_in in;
	struct att_agent_rec a;
	struct att_cred cred;
	uint8_t secret[VER_SECRET_BYTES];
	const uint8_t *name;
	char hash[65], other[sizeof(a.id)];
	size_t nlen;
	int rc, existing = 0;

	memset(&in, 0, sizeof(in));
	att_agent_rec_init(&a);
	if (ver_parse_body(rq, rs, &req))
		return 0;
	if (enroll_parse(rs, req, &in))
		goto out;
	/* The token first: without one, nothing else is revealed. */
	token_hash(in.token, hash);
	rc = att_store_token_take(rq->ctx->store, hash, (int64_t)time(NULL));
	if (rc == ATT_E_NOT_FOUND || rc == ATT_E_TIMEOUT) {
		ver_error(rs, 401, "bad_token",
			  "the enrollment token is unknown, used or expired");
		goto out;
	}
	if (rc) {
		ver_store_error(rs, rc, "token");
		goto out;
	}
	if (enroll_check(rq, rs, &in))
		goto out;
	rc = att_store_agent_get(rq->ctx->store, in.id, &a);
	if (rc == 0) {
		if (a.ek_pub_len != in.ek_pub_len ||
		    CRYPTO_memcmp(a.ek_pub, in.ek_pub, in.ek_pub_len)) {
			ver_error(rs, 409, "ek_mismatch",
				  "agent '%s' is enrolled with another EK",
				  in.id);
			goto out;
		}
		existing = 1;
	} else if (rc != ATT_E_NOT_FOUND) {
		ver_store_error(rs, rc, "agent");
		goto out;
	} else {
		att_agent_rec_init(&a);
		snprintf(a.id, sizeof(a.id), "%s", in.id);
	}
	/* One TPM, one identity: an EK enrolled under another id is refused. */
	rc = att_store_agent_by_ek(rq->ctx->store, in.ek_pub, in.ek_pub_len,
				   in.id, other, sizeof(other));
	if (rc == 0) {
		ver_error(rs, 409, "ek_in_use",
			  "this EK is enrolled as agent '%s' (delete that "
			  "agent first)",
			  other);
		goto out;
	}
	if (rc != ATT_E_NOT_FOUND) {
		ver_store_error(rs, rc, "agent");
		goto out;
	}
	name = att_tpm_key_name(in.ak, &nlen);
	if (RAND_bytes(secret, sizeof(secret)) != 1) {
		ver_error(rs, 500, "internal", "no random bytes");
		goto out;
	}
	rc = att_make_credential(in.ek, name, nlen, secret, sizeof(secret),
				 &cred);
	if (rc == ATT_E_UNSUPPORTED || rc == ATT_E_TOO_BIG) {
		/* The certificate binds the key, not the rest of the area. */
		ver_error(rs, 422, "bad_ek",
			  "the EK is not acceptable: not a restricted "
			  "decryption key with AES-128 or AES-256 in CFB mode "
			  "and a name algorithm of SHA-256 or stronger");
		goto out;
	}
	if (rc) {
		ver_error(rs, 500, "internal", "MakeCredential failed");
		goto out;
	}
	/* Pending: the AK is bound only once the secret comes back. */
	a.state = ATT_AGENT_ENROLLING;
	free(a.ek_pub);
	free(a.ak_pub);
	if (a.secret)
		OPENSSL_cleanse(a.secret, a.secret_len);
	free(a.secret);
	a.ek_pub = in.ek_pub;
	a.ek_pub_len = in.ek_pub_len;
	in.ek_pub = NULL;
	a.ak_pub = in.ak_pub;
	a.ak_pub_len = in.ak_pub_len;
	in.ak_pub = NULL;
	a.secret = malloc(sizeof(secret));
	if (!a.secret) {
		ver_error(rs, 503, "unavailable", "out of memory");
		goto out;
	}
	memcpy(a.secret, secret, sizeof(secret));
	a.secret_len = sizeof(secret);
	a.cert_fpr[0] = '\0';
	rc = existing ? att_store_agent_update(rq->ctx->store, &a)
		      : att_store_agent_insert(rq->ctx->store, &a);
	if (rc == ATT_E_EXISTS) {
		/* Lost a race: this id, or this EK under another id. */
		enroll_conflict(rq, rs, &a);
		goto out;
	}
	if (rc) {
		ver_store_error(rs, rc, "agent");
		goto out;
	}
	o = json_object_new_object();
	if (!o ||
	    ver_add_b64(o, "credential_blob", cred.blob.credential,
			cred.blob.size) ||
	    ver_add_b64(o, "encrypted_secret", cred.secret.secret,
			cred.secret.size)) {
		json_object_put(o);
		ver_error(rs, 500, "internal", "out of memory");
		goto out;
	}
	json_object_object_add(o, "agent_id", json_object_new_string(in.id));
	ver_json_reply(rs, 200, o);
	json_object_put(o);
	att_info("enroll: %s: credential challenge issued", in.id);
out:
	OPENSSL_cleanse(secret, sizeof(secret));
	att_agent_rec_release(&a);
	enroll_in_release(&in);
	json_object_put(req);
	return 0;
}

static int enroll_activate(struct ver_req *rq, struct ver_resp *rs)
{
	static const char *const fields[] = {"agent_id", "secret", "csr", NULL};
	struct json_object *req = NULL, *o;
	struct att_agent_rec a;
	struct att_buf pem;
	const char *id, *csr, *why;
	uint8_t *secret = NULL;
	size_t slen = 0;
	char fpr[65];
	int rc, ok;

	att_agent_rec_init(&a);
	att_buf_init(&pem, 0);
	if (ver_parse_body(rq, rs, &req))
		return 0;
	if (ver_fields_only(rs, req, fields) ||
	    ver_field_str(rs, req, "agent_id", 1, &id) ||
	    ver_field_b64(rs, req, "secret", 1, 64, &secret, &slen) ||
	    ver_field_str(rs, req, "csr", 1, &csr))
		goto out;
	if (!ver_id_valid(id)) {
		ver_error(rs, 400, "bad_agent_id", "invalid 'agent_id'");
		goto out;
	}
	rc = att_store_agent_get(rq->ctx->store, id, &a);
	if (rc == ATT_E_NOT_FOUND ||
	    (!rc && (a.state != ATT_AGENT_ENROLLING || !a.secret))) {
		ver_error(rs, 409, "not_enrolling",
			  "no enrollment of '%s' is waiting for a proof", id);
		goto out;
	}
	if (rc) {
		ver_store_error(rs, rc, "agent");
		goto out;
	}
	ok = slen == a.secret_len && !CRYPTO_memcmp(secret, a.secret, slen);
	/* One try: the secret is dropped whatever the answer. */
	OPENSSL_cleanse(a.secret, a.secret_len);
	free(a.secret);
	a.secret = NULL;
	a.secret_len = 0;
	if (!ok) {
		rc = att_store_agent_update(rq->ctx->store, &a);
		if (rc)
			ver_store_error(rs, rc, "agent");
		else
			ver_error(rs, 403, "bad_proof",
				  "the credential secret is wrong; enroll "
				  "again with a new token");
		goto out;
	}
	rc = ver_ca_issue(rq->ctx->agent_ca, csr, strlen(csr), id,
			  rq->ctx->cfg->agent_cert_days, &pem, fpr, &why);
	if (rc) {
		if (why)
			ver_error(rs, 400, "bad_csr", "%s", why);
		else
			ver_error(rs, 500, "internal",
				  "cannot issue the certificate");
		goto out;
	}
	a.state = ATT_AGENT_REGISTERED;
	snprintf(a.cert_fpr, sizeof(a.cert_fpr), "%s", fpr);
	a.enrolled_at = (int64_t)time(NULL);
	a.reset_count = -1;
	a.restart_count = -1;
	free(a.replay);
	a.replay = NULL;
	a.replay_len = 0;
	rc = att_store_agent_update(rq->ctx->store, &a);
	if (rc) {
		ver_store_error(rs, rc, "agent");
		goto out;
	}
	o = json_object_new_object();
	if (!o) {
		ver_error(rs, 500, "internal", "out of memory");
		goto out;
	}
	json_object_object_add(o, "agent_id", json_object_new_string(id));
	json_object_object_add(o, "certificate",
			       json_object_new_string((const char *)pem.data));
	ver_json_reply(rs, 200, o);
	json_object_put(o);
	att_info("enroll: %s: AK bound, client certificate issued", id);
out:
	if (secret)
		OPENSSL_cleanse(secret, slen);
	free(secret);
	att_buf_release(&pem);
	att_agent_rec_release(&a);
	json_object_put(req);
	return 0;
}

/* 503 and nonzero when enrollment is not configured. */
static int enroll_disabled(struct ver_req *rq, struct ver_resp *rs)
{
	if (rq->ctx->ek_ca && rq->ctx->agent_ca)
		return 0;
	ver_error(
		rs, 503, "enrollment_disabled",
		"enrollment needs ek_ca_dir and agent_ca_key in the settings");
	return 1;
}

int ver_api_enroll(struct ver_req *rq, struct ver_resp *rs)
{
	return enroll_disabled(rq, rs) ? 0 : enroll_start(rq, rs);
}

int ver_api_enroll_activate(struct ver_req *rq, struct ver_resp *rs)
{
	return enroll_disabled(rq, rs) ? 0 : enroll_activate(rq, rs);
}
