// SPDX-License-Identifier: Apache-2.0
/*
 * enroll.c - the agent's side of enrollment.
 */
#include "enroll.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/log.h"
#include "attest/tpm_cred.h"

#define TOKEN_MAX 512

int agent_identity_paths(const struct agent_config *c,
			 struct agent_identity *id)
{
	if ((size_t)snprintf(id->key_path, sizeof(id->key_path), "%s/agent.key",
			     c->state_dir) >= sizeof(id->key_path) ||
	    (size_t)snprintf(id->cert_path, sizeof(id->cert_path),
			     "%s/agent.pem",
			     c->state_dir) >= sizeof(id->cert_path) ||
	    (size_t)snprintf(id->id_path, sizeof(id->id_path), "%s/agent.id",
			     c->state_dir) >= sizeof(id->id_path))
		return ATT_E_TOO_BIG;
	return ATT_OK;
}

int agent_is_enrolled(const struct agent_config *c,
		      const struct agent_identity *id)
{
	struct att_buf b;
	struct stat st;
	int yes;

	if (stat(id->cert_path, &st) || stat(id->key_path, &st))
		return 0;
	att_buf_init(&b, 0);
	yes = !att_buf_read_file(&b, id->id_path, 256) &&
	      b.len == strlen(c->agent_id) &&
	      !memcmp(b.data, c->agent_id, b.len);
	att_buf_release(&b);
	return yes;
}

static char *b64(const struct att_buf *b)
{
	char *s = malloc(att_b64_enclen(b->len) + 1);

	if (s)
		att_b64_encode(b->data, b->len, s);
	return s;
}

static int read_token(const char *path, char *out, size_t cap)
{
	struct att_buf b;
	size_t n;

	att_buf_init(&b, 0);
	if (!path || att_buf_read_file(&b, path, TOKEN_MAX)) {
		att_err("enroll: cannot read the enrollment token %s",
			path ? path : "(enrollment_token_file not set)");
		att_buf_release(&b);
		return ATT_E_IO;
	}
	n = b.len;
	while (n && (b.data[n - 1] == '\n' || b.data[n - 1] == '\r' ||
		     b.data[n - 1] == ' '))
		n--;
	if (!n || n >= cap) {
		att_buf_wipe_release(&b);
		return ATT_E_FORMAT;
	}
	memcpy(out, b.data, n);
	out[n] = '\0';
	att_buf_wipe_release(&b);
	return ATT_OK;
}

/* Posts a JSON object; *reply gets the parsed answer of a 2xx. */
static int post(struct att_http *h, const char *path, struct json_object *o,
		struct json_object **reply)
{
	struct att_http_resp r = {0};
	const char *body = json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	char err[200];
	int rc;

	*reply = NULL;
	rc = att_http_request(h, "POST", path, body, strlen(body), &r);
	if (rc) {
		att_http_resp_release(&r);
		return rc;
	}
	if (r.status < 200 || r.status > 299) {
		long status = r.status;

		att_buf_cstr(&r.body);
		att_err("enroll: %s: HTTP %ld: %.300s", path, status,
			r.body.data ? (char *)r.body.data : "");
		att_http_resp_release(&r);
		return status >= 500 ? ATT_E_NET : ATT_E_AUTH;
	}
	rc = att_json_parse((const char *)r.body.data, r.body.len, 8, reply,
			    err, sizeof(err));
	if (rc)
		att_err("enroll: %s: bad reply: %s", path, err);
	att_http_resp_release(&r);
	return rc;
}

static int b64_field(struct json_object *o, const char *name, uint8_t *out,
		     size_t cap, uint16_t *len)
{
	struct json_object *v;
	const char *s;
	size_t n;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return ATT_E_FORMAT;
	s = json_object_get_string(v);
	if (att_b64_decode(s, strlen(s), out, cap, &n) || n > 0xffff)
		return ATT_E_FORMAT;
	*len = (uint16_t)n;
	return ATT_OK;
}

/* A new TLS key (saved 0600 under a temporary name) and its CSR. */
static int make_key_csr(const struct agent_identity *id, const char *cn,
			char *tmpkey, size_t tmpcap, char **csr_pem)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509_REQ *req = X509_REQ_new();
	X509_NAME *nm = X509_NAME_new();
	BIO *mem = BIO_new(BIO_s_mem()), *kb = NULL;
	BUF_MEM *bm;
	int rc = ATT_E_CRYPTO;
	FILE *f = NULL;
	int fd;

	*csr_pem = NULL;
	if (!k || !req || !nm || !mem)
		goto out;
	snprintf(tmpkey, tmpcap, "%s.new", id->key_path);
	fd = open(tmpkey, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = ATT_E_IO;
		goto out;
	}
	if (PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL) != 1 ||
	    fflush(f) || fsync(fileno(f))) {
		rc = ATT_E_IO;
		goto out;
	}
	if (X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC,
				       (const unsigned char *)cn, -1, -1,
				       0) != 1 ||
	    X509_REQ_set_subject_name(req, nm) != 1 ||
	    X509_REQ_set_pubkey(req, k) != 1 ||
	    X509_REQ_sign(req, k, EVP_sha256()) <= 0 ||
	    PEM_write_bio_X509_REQ(mem, req) != 1)
		goto out;
	BIO_get_mem_ptr(mem, &bm);
	*csr_pem = strndup(bm->data, bm->length);
	rc = *csr_pem ? ATT_OK : ATT_E_NOMEM;
out:
	if (f)
		fclose(f);
	BIO_free(kb);
	BIO_free(mem);
	X509_NAME_free(nm);
	X509_REQ_free(req);
	EVP_PKEY_free(k);
	return rc;
}

static int challenge(const struct agent_config *c, struct att_esys *tpm,
		     struct att_http *http, const char *token,
		     struct json_object **reply)
{
	enum att_esys_key_alg ek =
		c->ek_ecc ? ATT_ESYS_KEY_ECC : ATT_ESYS_KEY_RSA;
	struct att_buf ekpub, ekcert, akpub;
	struct json_object *o = json_object_new_object();
	char *e = NULL, *ce = NULL, *a = NULL;
	int rc, created = 0;

	att_buf_init(&ekpub, 0);
	att_buf_init(&ekcert, 0);
	att_buf_init(&akpub, 0);
	rc = att_esys_ek_public(tpm, ek, &ekpub);
	if (!rc) {
		rc = att_esys_ek_cert(tpm, ek, &ekcert);
		if (rc == ATT_E_NOT_FOUND)
			rc = ATT_OK; /* the verifier decides if it may do */
	}
	if (!rc)
		rc = att_esys_ak_ensure(tpm,
					c->ek_ecc ? ATT_ESYS_AK_ECC_ECDSA
						  : ATT_ESYS_AK_RSA_RSASSA,
					ek, c->ak_handle, &created);
	if (!rc)
		rc = att_esys_ak_public(tpm, &akpub);
	if (rc)
		goto out;
	e = b64(&ekpub);
	a = b64(&akpub);
	ce = ekcert.len ? b64(&ekcert) : NULL;
	if (!o || !e || !a || (ekcert.len && !ce)) {
		rc = ATT_E_NOMEM;
		goto out;
	}
	json_object_object_add(o, "agent_id",
			       json_object_new_string(c->agent_id));
	json_object_object_add(o, "token", json_object_new_string(token));
	json_object_object_add(o, "ek_public", json_object_new_string(e));
	if (ce)
		json_object_object_add(o, "ek_cert",
				       json_object_new_string(ce));
	json_object_object_add(o, "ak_public", json_object_new_string(a));
	att_info("enroll: %s: %s AK at 0x%08x, asking for a credential",
		 c->agent_id, created ? "new" : "existing", c->ak_handle);
	rc = post(http, "/v1/enroll", o, reply);
out:
	free(e);
	free(a);
	free(ce);
	json_object_put(o);
	att_buf_release(&ekpub);
	att_buf_release(&ekcert);
	att_buf_release(&akpub);
	return rc;
}

static int save_identity(const struct agent_config *c,
			 const struct agent_identity *id, const char *tmpkey,
			 struct json_object *reply)
{
	struct json_object *v;
	const char *pem;
	int rc;

	if (!json_object_object_get_ex(reply, "certificate", &v) ||
	    !json_object_is_type(v, json_type_string))
		return ATT_E_FORMAT;
	pem = json_object_get_string(v);
	rc = att_write_file_atomic(id->cert_path, pem, strlen(pem), 0644);
	if (!rc && rename(tmpkey, id->key_path))
		rc = ATT_E_IO;
	if (!rc)
		rc = att_write_file_atomic(id->id_path, c->agent_id,
					   strlen(c->agent_id), 0644);
	return rc;
}

int agent_enroll(const struct agent_config *c, struct att_esys *tpm,
		 struct att_http *http, const struct agent_identity *id)
{
	enum att_esys_key_alg ek =
		c->ek_ecc ? ATT_ESYS_KEY_ECC : ATT_ESYS_KEY_RSA;
	struct json_object *reply = NULL, *o = NULL;
	struct att_cred cred;
	uint8_t secret[64];
	char token[TOKEN_MAX], tmpkey[600] = "", *csr = NULL, s64[96];
	size_t slen = 0;
	int rc;

	if (mkdir(c->state_dir, 0700) && errno != EEXIST) {
		att_err("enroll: state directory %s: %s", c->state_dir,
			strerror(errno));
		return ATT_E_IO;
	}
	rc = read_token(c->token_file, token, sizeof(token));
	if (!rc)
		rc = challenge(c, tpm, http, token, &reply);
	OPENSSL_cleanse(token, sizeof(token));
	if (rc)
		goto out;
	memset(&cred, 0, sizeof(cred));
	if (b64_field(reply, "credential_blob", cred.blob.credential,
		      sizeof(cred.blob.credential), &cred.blob.size) ||
	    b64_field(reply, "encrypted_secret", cred.secret.secret,
		      sizeof(cred.secret.secret), &cred.secret.size)) {
		att_err("enroll: the credential challenge is malformed");
		rc = ATT_E_FORMAT;
		goto out;
	}
	rc = att_esys_activate(tpm, ek, &cred, secret, sizeof(secret), &slen);
	if (rc) {
		att_err("enroll: the TPM refused the credential: it was not "
			"made for this TPM's EK and AK");
		goto out;
	}
	rc = make_key_csr(id, c->agent_id, tmpkey, sizeof(tmpkey), &csr);
	if (rc)
		goto out;
	att_b64_encode(secret, slen, s64);
	o = json_object_new_object();
	json_object_object_add(o, "agent_id",
			       json_object_new_string(c->agent_id));
	json_object_object_add(o, "secret", json_object_new_string(s64));
	json_object_object_add(o, "csr", json_object_new_string(csr));
	OPENSSL_cleanse(s64, sizeof(s64));
	json_object_put(reply);
	reply = NULL;
	rc = post(http, "/v1/enroll/activate", o, &reply);
	if (!rc)
		rc = save_identity(c, id, tmpkey, reply);
	if (!rc)
		att_info("enroll: %s: enrolled; client certificate in %s",
			 c->agent_id, id->cert_path);
out:
	OPENSSL_cleanse(secret, sizeof(secret));
	if (rc && tmpkey[0])
		unlink(tmpkey);
	free(csr);
	json_object_put(o);
	json_object_put(reply);
	return rc;
}
