// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_enroll.c - enrollment against the real attest-verifier
 * (SQLite, real TLS, swtpm's local CA as the EK CA) driven by a real swtpm
 * through the agent's TPM layer: token -> EK/EK cert/AK -> MakeCredential
 * -> TPM2_ActivateCredential -> proof -> client certificate, which then
 * authenticates as that agent. Refused: wrong and reused tokens, an EK
 * certificate from another CA, an EK certificate of another key, an EK as
 * AK, a credential made for another AK, a wrong proof (one try), the same
 * id with a different EK, bad base64, unknown fields.
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
#include "attest/tpm_esys.h"
#include "swtpm.h"
#include "verifier_http.h"
#include "verifier_proc.h"

struct fx {
	char dir[64];
	char db[128];
	struct att_vproc *vp;
	struct att_swtpm *sw;
	struct att_esys *tpm;
	struct att_buf ek_pub[2], ek_cert, ak_pub; /* [1]: the ECC EK */
};

static struct fx F;

static char *b64(const struct att_buf *b)
{
	char *s = malloc(att_b64_enclen(b->len) + 1);

	assert_non_null(s);
	att_b64_encode(b->data, b->len, s);
	return s;
}

static int setup(void **state)
{
	const char *extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, NULL};
	int i;

	(void)state;
	snprintf(F.dir, sizeof(F.dir), "/tmp/att-venr-XXXXXX");
	if (!mkdtemp(F.dir))
		return -1;
	snprintf(F.db, sizeof(F.db), "sqlite:%s/v.db", F.dir);
	if (att_pki_init(F.dir)) {
		fprintf(stderr, "FATAL: cannot make the test PKI\n");
		return -1;
	}
	if (att_swtpm_start(&F.sw)) {
		fprintf(stderr, "FATAL: cannot start swtpm\n");
		return -1;
	}
	if (att_esys_new(att_swtpm_tcti(F.sw), &F.tpm))
		return -1;
	att_buf_init(&F.ak_pub, 0);
	att_buf_init(&F.ek_cert, 0);
	for (i = 0; i < 2; i++) {
		att_buf_init(&F.ek_pub[i], 0);
		if (att_esys_ek_public(F.tpm, (enum att_esys_key_alg)i,
				       &F.ek_pub[i])) {
			fprintf(stderr, "FATAL: no EK %d\n", i);
			return -1;
		}
	}
	if (att_esys_ek_cert(F.tpm, ATT_ESYS_KEY_RSA, &F.ek_cert)) {
		fprintf(stderr, "FATAL: no RSA EK certificate in swtpm\n");
		return -1;
	}
	if (att_esys_ak_create(F.tpm, ATT_ESYS_AK_RSA_RSASSA, ATT_ESYS_KEY_RSA,
			       NULL) ||
	    att_esys_ak_public(F.tpm, &F.ak_pub))
		return -1;
	if (att_vproc_start(F.dir, F.db, extra, &F.vp)) {
		fprintf(stderr, "FATAL: cannot start attest-verifier\n");
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];
	int st, i, rc = 0;

	(void)state;
	if (F.vp && att_vproc_stop(F.vp, &st) == 0 && st != 0)
		rc = -1;
	att_vproc_free(F.vp);
	att_esys_free(F.tpm);
	att_swtpm_free(F.sw);
	for (i = 0; i < 2; i++)
		att_buf_release(&F.ek_pub[i]);
	att_buf_release(&F.ek_cert);
	att_buf_release(&F.ak_pub);
	if (!getenv("ATT_KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", F.dir);
		if (system(cmd))
			rc = -1;
	}
	return rc;
}

static int req(const char *who, const char *method, const char *path,
	       const char *body, struct json_object **js)
{
	struct att_vh_resp r;
	int st;

	assert_int_equal(att_vh_request(att_vproc_port(F.vp), F.dir, who,
					method, path, body,
					body ? strlen(body) : 0, &r),
			 0);
	st = r.status;
	/* Every answer, and every accepted body, matches its schema. */
	if (strcmp(path, "/metrics"))
		assert_int_equal(
			att_vh_check_exchange(method, path, body, st, r.body),
			0);
	*js = json_tokener_parse(r.body);
	if (!*js)
		fprintf(stderr, "not JSON: %s\n", r.body);
	assert_non_null(*js);
	att_vh_resp_release(&r);
	return st;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no '%s' in %s", k, json_object_to_json_string(o));
	return json_object_get_string(v);
}

/* Status; the error code must be `code` when it is not NULL. */
static int req_code(const char *who, const char *path, const char *body,
		    const char *code)
{
	struct json_object *js;
	int st = req(who, "POST", path, body, &js);

	if (code)
		assert_string_equal(jstr(js, "code"), code);
	json_object_put(js);
	return st;
}

static char *new_token(void)
{
	struct json_object *js;
	char *t;

	assert_int_equal(req("admin", "POST", "/v1/enrollment/tokens",
			     "{\"ttl\":600}", &js),
			 201);
	t = strdup(jstr(js, "token"));
	json_object_put(js);
	return t;
}

/* The /v1/enroll body; NULL token: a fresh one. */
static char *enroll_body(const char *id, const char *token,
			 const struct att_buf *ek, const struct att_buf *cert,
			 const struct att_buf *ak)
{
	char *tok = token ? strdup(token) : new_token();
	char *e = b64(ek), *c = b64(cert), *a = b64(ak), *body;
	size_t n = strlen(e) + strlen(c) + strlen(a) + 512;

	body = malloc(n);
	assert_non_null(body);
	snprintf(body, n,
		 "{\"agent_id\":\"%s\",\"token\":\"%s\",\"ek_public\":\"%s\","
		 "\"ek_cert\":\"%s\",\"ak_public\":\"%s\"}",
		 id, tok, e, c, a);
	free(tok);
	free(e);
	free(c);
	free(a);
	return body;
}

/* Decodes the challenge and runs TPM2_ActivateCredential. */
static int activate(struct json_object *js, uint8_t *secret, size_t *slen)
{
	struct att_cred cred;
	const char *b = jstr(js, "credential_blob");
	const char *s = jstr(js, "encrypted_secret");
	size_t n;

	memset(&cred, 0, sizeof(cred));
	assert_int_equal(att_b64_decode(b, strlen(b), cred.blob.credential,
					sizeof(cred.blob.credential), &n),
			 0);
	cred.blob.size = (uint16_t)n;
	assert_int_equal(att_b64_decode(s, strlen(s), cred.secret.secret,
					sizeof(cred.secret.secret), &n),
			 0);
	cred.secret.size = (uint16_t)n;
	return att_esys_activate(F.tpm, ATT_ESYS_KEY_RSA, &cred, secret, 64,
				 slen);
}

/* A fresh TLS key for the agent (DIR/ID.key) and its CSR (PEM). */
static char *make_csr(const char *id)
{
	char path[256], *pem;
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509_REQ *r = X509_REQ_new();
	X509_NAME *nm = X509_NAME_new();
	BIO *b = BIO_new(BIO_s_mem());
	FILE *f;
	BUF_MEM *bm;

	assert_non_null(k);
	assert_non_null(r);
	snprintf(path, sizeof(path), "%s/%s.key", F.dir, id);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL),
			 1);
	fclose(f);
	X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC,
				   (const unsigned char *)"ignored", -1, -1, 0);
	X509_REQ_set_subject_name(r, nm);
	X509_REQ_set_pubkey(r, k);
	assert_true(X509_REQ_sign(r, k, EVP_sha256()) > 0);
	assert_int_equal(PEM_write_bio_X509_REQ(b, r), 1);
	BIO_get_mem_ptr(b, &bm);
	pem = strndup(bm->data, bm->length);
	BIO_free(b);
	X509_NAME_free(nm);
	X509_REQ_free(r);
	EVP_PKEY_free(k);
	return pem;
}

static char *activate_body(const char *id, const uint8_t *secret, size_t slen,
			   const char *csr)
{
	struct json_object *o = json_object_new_object();
	char s[128], *out;

	att_b64_encode(secret, slen, s);
	json_object_object_add(o, "agent_id", json_object_new_string(id));
	json_object_object_add(o, "secret", json_object_new_string(s));
	json_object_object_add(o, "csr", json_object_new_string(csr));
	out = strdup(json_object_to_json_string(o));
	json_object_put(o);
	return out;
}

static void save_cert(const char *id, const char *pem)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.pem", F.dir, id);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(pem, f);
	fclose(f);
}

static void test_happy_path(void **state)
{
	struct json_object *js;
	uint8_t secret[64];
	size_t slen;
	char *body, *csr;

	(void)state;
	body = enroll_body("host-1", NULL, &F.ek_pub[0], &F.ek_cert, &F.ak_pub);
	assert_int_equal(req(NULL, "POST", "/v1/enroll", body, &js), 200);
	free(body);
	assert_int_equal(activate(js, secret, &slen), 0);
	json_object_put(js);
	/* Not usable before the proof: the agent is "enrolling". */
	assert_int_equal(req("admin", "GET", "/v1/agents/host-1", NULL, &js),
			 200);
	assert_string_equal(jstr(js, "state"), "enrolling");
	json_object_put(js);

	csr = make_csr("host-1");
	body = activate_body("host-1", secret, slen, csr);
	assert_int_equal(req(NULL, "POST", "/v1/enroll/activate", body, &js),
			 200);
	free(body);
	free(csr);
	save_cert("host-1", jstr(js, "certificate"));
	json_object_put(js);
	assert_int_equal(req("admin", "GET", "/v1/agents/host-1", NULL, &js),
			 200);
	assert_string_equal(jstr(js, "state"), "registered");
	json_object_put(js);
	/* The issued certificate authenticates as an agent (not admin). */
	assert_int_equal(req("host-1", "GET", "/v1/agents", NULL, &js), 403);
	assert_string_equal(jstr(js, "code"), "forbidden");
	json_object_put(js);
}

static void test_tokens(void **state)
{
	char *tok = new_token(), *body;

	(void)state;
	body = enroll_body("host-t", "00", &F.ek_pub[0], &F.ek_cert, &F.ak_pub);
	assert_int_equal(req_code(NULL, "/v1/enroll", body, "bad_token"), 401);
	free(body);
	/*
	 * A good token gets past the token check; this EK is host-1's, so
	 * a second identity for it is refused (one TPM, one agent).
	 */
	body = enroll_body("host-t", tok, &F.ek_pub[0], &F.ek_cert, &F.ak_pub);
	assert_int_equal(req_code(NULL, "/v1/enroll", body, "ek_in_use"), 409);
	/* Single use: spent by that request. */
	assert_int_equal(req_code(NULL, "/v1/enroll", body, "bad_token"), 401);
	free(body);
	free(tok);
	/* Only admins make tokens. */
	assert_int_equal(req_code(NULL, "/v1/enrollment/tokens", "{}",
				  "unauthenticated"),
			 401);
	assert_int_equal(
		req_code("host-1", "/v1/enrollment/tokens", "{}", "forbidden"),
		403);
	assert_int_equal(req_code("admin", "/v1/enrollment/tokens",
				  "{\"ttl\":-5}", "out_of_range"),
			 400);
}

static void test_bad_ek(void **state)
{
	struct att_buf other;
	char path[256], *body;

	(void)state;
	/* An EK certificate from a CA the verifier does not trust. */
	att_buf_init(&other, 0);
	snprintf(path, sizeof(path),
		 "openssl x509 -in %s/admin.pem -outform DER -out %s/a.der",
		 F.dir, F.dir);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/a.der", F.dir);
	assert_int_equal(att_buf_read_file(&other, path, 65536), 0);
	body = enroll_body("host-x", NULL, &F.ek_pub[0], &other, &F.ak_pub);
	assert_int_equal(
		req_code(NULL, "/v1/enroll", body, "ek_cert_untrusted"), 403);
	free(body);
	att_buf_release(&other);
	/* A valid EK certificate, but of another key (the RSA EK's). */
	body = enroll_body("host-x", NULL, &F.ek_pub[1], &F.ek_cert, &F.ak_pub);
	assert_int_equal(req_code(NULL, "/v1/enroll", body, "ek_cert_mismatch"),
			 403);
	free(body);
	/* The EK as an AK: not a restricted signing key. */
	body = enroll_body("host-x", NULL, &F.ek_pub[0], &F.ek_cert,
			   &F.ek_pub[0]);
	assert_int_equal(req_code(NULL, "/v1/enroll", body, "bad_ak"), 422);
	free(body);
}

static void test_same_id_other_ek(void **state)
{
	struct att_swtpm *sw2;
	struct att_esys *tpm2;
	struct att_buf ek, cert, ak;
	struct json_object *js;
	char *body;

	(void)state;
	/* A second TPM, with its own valid EK and AK, claims host-1. */
	assert_int_equal(att_swtpm_start(&sw2), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(sw2), &tpm2), 0);
	att_buf_init(&ek, 0);
	att_buf_init(&cert, 0);
	att_buf_init(&ak, 0);
	assert_int_equal(att_esys_ek_public(tpm2, ATT_ESYS_KEY_RSA, &ek), 0);
	assert_int_equal(att_esys_ek_cert(tpm2, ATT_ESYS_KEY_RSA, &cert), 0);
	assert_int_equal(att_esys_ak_create(tpm2, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA, NULL),
			 0);
	assert_int_equal(att_esys_ak_public(tpm2, &ak), 0);
	body = enroll_body("host-1", NULL, &ek, &cert, &ak);
	assert_int_equal(req_code(NULL, "/v1/enroll", body, "ek_mismatch"),
			 409);
	free(body);
	/* Under a new id it enrolls fine (its EK is valid). */
	body = enroll_body("host-3", NULL, &ek, &cert, &ak);
	assert_int_equal(req_code(NULL, "/v1/enroll", body, NULL), 200);
	free(body);
	att_esys_free(tpm2);
	att_swtpm_free(sw2);
	att_buf_release(&ek);
	att_buf_release(&cert);
	att_buf_release(&ak);
	assert_int_equal(req("admin", "GET", "/v1/agents/host-1", NULL, &js),
			 200);
	assert_string_equal(jstr(js, "state"), "registered");
	json_object_put(js);
}

static void test_other_ak_and_bad_proof(void **state)
{
	struct json_object *js;
	struct att_buf ak2;
	uint8_t secret[64];
	size_t slen;
	char *body, *csr;

	(void)state;
	/* Once host-1 is deleted, its EK may enroll under another id. */
	body = enroll_body("host-2", NULL, &F.ek_pub[0], &F.ek_cert, &F.ak_pub);
	assert_int_equal(req_code(NULL, "/v1/enroll", body, "ek_in_use"), 409);
	free(body);
	assert_int_equal(req("admin", "DELETE", "/v1/agents/host-1", NULL, &js),
			 200);
	json_object_put(js);
	/* The credential names AK1, but the TPM holds another AK now. */
	body = enroll_body("host-2", NULL, &F.ek_pub[0], &F.ek_cert, &F.ak_pub);
	assert_int_equal(req(NULL, "POST", "/v1/enroll", body, &js), 200);
	free(body);
	att_buf_init(&ak2, 0);
	assert_int_equal(att_esys_ak_create(F.tpm, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA, NULL),
			 0);
	assert_int_equal(att_esys_ak_public(F.tpm, &ak2), 0);
	assert_true(ak2.len != F.ak_pub.len ||
		    memcmp(ak2.data, F.ak_pub.data, ak2.len));
	assert_int_equal(activate(js, secret, &slen), ATT_E_TPM);
	json_object_put(js);
	/* Guessing fails, and spends the one try. */
	memset(secret, 0x5a, 32);
	csr = make_csr("host-2");
	body = activate_body("host-2", secret, 32, csr);
	assert_int_equal(
		req_code(NULL, "/v1/enroll/activate", body, "bad_proof"), 403);
	assert_int_equal(
		req_code(NULL, "/v1/enroll/activate", body, "not_enrolling"),
		409);
	free(body);
	free(csr);
	att_buf_release(&ak2);
	/* Activation for an agent nobody enrolled. */
	csr = make_csr("host-9");
	body = activate_body("host-9", secret, 32, csr);
	assert_int_equal(
		req_code(NULL, "/v1/enroll/activate", body, "not_enrolling"),
		409);
	free(body);
	free(csr);
}

static void test_bad_bodies(void **state)
{
	(void)state;
	assert_int_equal(req_code(NULL, "/v1/enroll",
				  "{\"agent_id\":\"h\",\"token\":\"t\","
				  "\"ek_public\":\"@@@@\",\"ek_cert\":\"AA==\","
				  "\"ak_public\":\"AA==\"}",
				  "bad_base64"),
			 400);
	assert_int_equal(req_code(NULL, "/v1/enroll",
				  "{\"agent_id\":\"h\",\"token\":\"t\","
				  "\"ek_public\":\"AA=\",\"ek_cert\":\"AA==\","
				  "\"ak_public\":\"AA==\"}",
				  "bad_base64"),
			 400);
	assert_int_equal(req_code(NULL, "/v1/enroll",
				  "{\"agent_id\":\"../x\",\"token\":\"t\","
				  "\"ek_public\":\"AA==\",\"ek_cert\":\"AA==\","
				  "\"ak_public\":\"AA==\"}",
				  "bad_agent_id"),
			 400);
	assert_int_equal(req_code(NULL, "/v1/enroll",
				  "{\"agent_id\":\"h\",\"token\":\"t\","
				  "\"ek_public\":\"AA==\",\"ek_cert\":\"AA==\","
				  "\"ak_public\":\"AA==\"}",
				  "bad_ek"),
			 400);
	assert_int_equal(req_code(NULL, "/v1/enroll",
				  "{\"agent_id\":\"h\",\"x\":1}",
				  "unknown_field"),
			 400);
	assert_int_equal(req_code(NULL, "/v1/enroll", "{\"agent_id\":\"h\"}",
				  "missing_field"),
			 400);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_happy_path),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_bad_ek),
		cmocka_unit_test(test_same_id_other_ek),
		cmocka_unit_test(test_other_ak_and_bad_proof),
		cmocka_unit_test(test_bad_bodies),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
