// SPDX-License-Identifier: Apache-2.0
/*
 * ca.c - agent client certificates (see ca.h).
 */
#include <string.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/log.h"
#include "ca.h"

#define VER_CSR_MAX 16384

struct ver_ca {
	X509 *cert;
	EVP_PKEY *key;
};

int ver_ca_load(const char *cert_pem, const char *key_pem, struct ver_ca **out)
{
	struct ver_ca *ca = calloc(1, sizeof(*ca));
	BIO *b;

	*out = NULL;
	if (!ca)
		return ATT_E_NOMEM;
	b = BIO_new_file(cert_pem, "r");
	ca->cert = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
	BIO_free(b);
	b = BIO_new_file(key_pem, "r");
	ca->key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
	BIO_free(b);
	if (!ca->cert || !ca->key ||
	    X509_check_private_key(ca->cert, ca->key) != 1) {
		att_err("agent CA: cannot load %s with its key %s", cert_pem,
			key_pem);
		ver_ca_free(ca);
		return ATT_E_CRYPTO;
	}
	*out = ca;
	return 0;
}

void ver_ca_free(struct ver_ca *ca)
{
	if (!ca)
		return;
	X509_free(ca->cert);
	EVP_PKEY_free(ca->key);
	free(ca);
}

static int key_ok(EVP_PKEY *k)
{
	int bits = EVP_PKEY_get_bits(k);

	switch (EVP_PKEY_get_base_id(k)) {
	case EVP_PKEY_EC:
		return bits >= 256;
	case EVP_PKEY_RSA:
		return bits >= 2048;
	case EVP_PKEY_ED25519:
		return 1;
	default:
		return 0;
	}
}

static int add_ext(X509 *x, X509 *issuer, int nid, const char *val)
{
	X509V3_CTX v3;
	X509_EXTENSION *e;
	int ok;

	X509V3_set_ctx(&v3, issuer, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &v3, nid, val);
	if (!e)
		return 0;
	ok = X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok;
}

int ver_ca_issue(struct ver_ca *ca, const char *csr_pem, size_t csr_len,
		 const char *id, unsigned int days, struct att_buf *pem,
		 char *fpr, const char **why)
{
	X509_REQ *req = NULL;
	X509 *x = NULL;
	X509_NAME *nm = NULL;
	EVP_PKEY *pub;
	BIGNUM *bn = NULL;
	BIO *b = NULL;
	BUF_MEM *bm;
	uint8_t serial[16], md[32], *der = NULL;
	unsigned int mdlen;
	int rc = ATT_E_CRYPTO, dlen;

	*why = NULL;
	if (csr_len > VER_CSR_MAX) {
		*why = "the CSR is too large";
		return ATT_E_TOO_BIG;
	}
	b = BIO_new_mem_buf(csr_pem, (int)csr_len);
	req = b ? PEM_read_bio_X509_REQ(b, NULL, NULL, NULL) : NULL;
	BIO_free(b);
	b = NULL;
	if (!req) {
		*why = "the CSR is not a PEM certificate request";
		rc = ATT_E_FORMAT;
		goto out;
	}
	pub = X509_REQ_get0_pubkey(req);
	if (!pub || X509_REQ_verify(req, pub) != 1) {
		*why = "the CSR's signature does not verify";
		rc = ATT_E_VERIFY;
		goto out;
	}
	if (!key_ok(pub)) {
		*why = "the CSR's key is weak or of an unknown type";
		rc = ATT_E_VERIFY;
		goto out;
	}
	x = X509_new();
	nm = X509_NAME_new();
	if (!x || !nm || RAND_bytes(serial, sizeof(serial)) != 1)
		goto out;
	serial[0] &= 0x7f;
	serial[0] |= 0x40;
	bn = BN_bin2bn(serial, sizeof(serial), NULL);
	if (!bn || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) ||
	    X509_set_version(x, 2) != 1 ||
	    !X509_NAME_add_entry_by_txt(nm, "O", MBSTRING_ASC,
					(const unsigned char *)"attest agent",
					-1, -1, 0) ||
	    !X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC,
					(const unsigned char *)id, -1, -1, 0) ||
	    X509_set_subject_name(x, nm) != 1 ||
	    X509_set_issuer_name(x, X509_get_subject_name(ca->cert)) != 1 ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), -300) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x), (long)days * 86400) ||
	    X509_set_pubkey(x, pub) != 1 ||
	    !add_ext(x, ca->cert, NID_basic_constraints, "critical,CA:FALSE") ||
	    !add_ext(x, ca->cert, NID_key_usage, "critical,digitalSignature") ||
	    !add_ext(x, ca->cert, NID_ext_key_usage, "clientAuth") ||
	    !add_ext(x, ca->cert, NID_subject_key_identifier, "hash") ||
	    !add_ext(x, ca->cert, NID_authority_key_identifier, "keyid") ||
	    !X509_sign(x, ca->key, EVP_sha256()))
		goto out;
	dlen = i2d_X509(x, &der);
	if (dlen <= 0 ||
	    EVP_Digest(der, (size_t)dlen, md, &mdlen, EVP_sha256(), NULL) != 1)
		goto out;
	att_hex_encode(md, 32, fpr);
	b = BIO_new(BIO_s_mem());
	if (!b || PEM_write_bio_X509(b, x) != 1)
		goto out;
	BIO_get_mem_ptr(b, &bm);
	att_buf_release(pem);
	rc = att_buf_append(pem, bm->data, bm->length);
	if (!rc)
		rc = att_buf_cstr(pem);
out:
	OPENSSL_free(der);
	BIO_free(b);
	BN_free(bn);
	X509_NAME_free(nm);
	X509_free(x);
	X509_REQ_free(req);
	return rc;
}
