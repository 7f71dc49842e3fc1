// SPDX-License-Identifier: Apache-2.0
/*
 * ima_sig.c - IMA file signatures (security.ima type 0x03, version 2)
 * checked against the whitelist's verification keys.
 *
 * Header (packed): u8 type, u8 version, u8 hash_algo (kernel numbering),
 * be32 keyid, be16 sig_size, then the signature (RSA PKCS#1 v1.5 or DER
 * ECDSA) over the file digest. keyid: last 4 bytes of SHA-1 over the
 * public key bit string (X.509 SKID method 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "attest/err.h"
#include "attest/rd.h"
#include "wl_internal.h"

static int key_id(EVP_PKEY *pkey, uint32_t *id)
{
	X509_PUBKEY *xpk = NULL;
	const unsigned char *pk;
	unsigned char sha[20];
	int pklen, rc = ATT_E_CRYPTO;

	if (X509_PUBKEY_set(&xpk, pkey) != 1)
		return ATT_E_CRYPTO;
	if (X509_PUBKEY_get0_param(NULL, &pk, &pklen, NULL, xpk) == 1 &&
	    !att_digest(ATT_HASH_SHA1, pk, (size_t)pklen, sha)) {
		*id = ((uint32_t)sha[16] << 24) | ((uint32_t)sha[17] << 16) |
		      ((uint32_t)sha[18] << 8) | sha[19];
		rc = ATT_OK;
	}
	X509_PUBKEY_free(xpk);
	return rc;
}

static int add_key(struct att_wl *wl, EVP_PKEY *pkey)
{
	struct wl_key *nk;
	uint32_t id;
	int rc = key_id(pkey, &id);

	if (rc)
		return rc;
	nk = realloc(wl->keys, (wl->nkeys + 1) * sizeof(*nk));
	if (!nk)
		return ATT_E_NOMEM;
	wl->keys = nk;
	wl->keys[wl->nkeys].keyid = id;
	wl->keys[wl->nkeys].pkey = pkey;
	wl->nkeys++;
	return ATT_OK;
}

int wl_add_key_der(struct att_wl *wl, const uint8_t *der, size_t len)
{
	const unsigned char *p = der;
	EVP_PKEY *pkey = d2i_PUBKEY(NULL, &p, (long)len);
	int rc;

	if (!pkey || p != der + len) {
		EVP_PKEY_free(pkey);
		return ATT_E_FORMAT;
	}
	rc = add_key(wl, pkey);
	if (rc)
		EVP_PKEY_free(pkey);
	return rc;
}

int wl_add_keys_pem(struct att_wl *wl, const char *pem, size_t len, char *err,
		    size_t errlen)
{
	BIO *bio = BIO_new_mem_buf(pem, (int)len);
	EVP_PKEY *pkey;
	int rc = ATT_OK, n = 0;

	if (!bio)
		return ATT_E_NOMEM;
	while ((pkey = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL))) {
		rc = add_key(wl, pkey);
		if (rc) {
			EVP_PKEY_free(pkey);
			break;
		}
		n++;
	}
	BIO_free(bio);
	if (!rc && !n) {
		snprintf(err, errlen, "verification-keys: no PEM public key");
		rc = ATT_E_FORMAT;
	}
	return rc;
}

enum att_verdict wl_verify_sig(const struct att_wl *wl,
			       const struct att_ima_entry *e, char *detail,
			       size_t dlen)
{
	uint8_t type, ver, algo;
	uint16_t slen;
	uint32_t keyid;
	const uint8_t *sig;
	EVP_PKEY_CTX *ctx;
	const struct wl_key *k = NULL;
	enum att_hash h;
	struct att_rd r;
	size_t i;
	int ok;

	att_rd_init(&r, e->sig, e->sig_len);
	if (att_rd_u8(&r, &type) || att_rd_u8(&r, &ver) ||
	    att_rd_u8(&r, &algo) || att_rd_u32be(&r, &keyid) ||
	    att_rd_u16be(&r, &slen) || att_rd_bytes(&r, slen, &sig) ||
	    att_rd_end(&r)) {
		snprintf(detail, dlen, "malformed signature header");
		return ATT_V_SIG_BAD;
	}
	if (type != 0x03 || ver != 2) {
		snprintf(detail, dlen, "unsupported signature type %u v%u",
			 type, ver);
		return ATT_V_SIG_BAD;
	}
	h = att_hash_by_kernel_algo(algo);
	if (h == ATT_HASH_NONE || h != e->file_alg || h == ATT_HASH_SHA1 ||
	    h == ATT_HASH_MD5) {
		snprintf(detail, dlen,
			 "signature hash algorithm %u not "
			 "acceptable for this entry",
			 algo);
		return ATT_V_SIG_BAD;
	}
	for (i = 0; i < wl->nkeys; i++)
		if (wl->keys[i].keyid == keyid)
			k = &wl->keys[i];
	if (!k) {
		snprintf(detail, dlen, "no trusted key with id %08x", keyid);
		return ATT_V_SIG_BAD;
	}
	ctx = EVP_PKEY_CTX_new(k->pkey, NULL);
	ok = ctx && EVP_PKEY_verify_init(ctx) == 1 &&
	     EVP_PKEY_CTX_set_signature_md(
		     ctx, EVP_get_digestbyname(att_hash_name(h))) == 1;
	if (ok && EVP_PKEY_base_id(k->pkey) == EVP_PKEY_RSA)
		ok = EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1;
	ok = ok && EVP_PKEY_verify(ctx, sig, slen, e->file_digest,
				   e->file_digest_len) == 1;
	EVP_PKEY_CTX_free(ctx);
	if (!ok) {
		snprintf(detail, dlen, "signature by key %08x does not verify",
			 keyid);
		return ATT_V_SIG_BAD;
	}
	snprintf(detail, dlen, "key %08x", keyid);
	return ATT_V_SIG_OK;
}
