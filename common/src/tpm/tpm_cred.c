// SPDX-License-Identifier: Apache-2.0
/*
 * tpm_cred.c - MakeCredential in software: seed (RSA-OAEP "IDENTITY" or
 * ECDH + KDFe), KDFa'd AES-CFB key and outer HMAC, as TPM2_ActivateCredential
 * expects them (TPM 2.0 Part 1, 24 "Protected storage" and Part 3,
 * MakeCredential).
 */
#include "attest/tpm_cred.h"

#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "attest/err.h"

static const char identity_label[] = "IDENTITY";

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

int att_kdfa(enum att_hash h, const uint8_t *key, size_t keylen,
	     const char *label, const uint8_t *u, size_t ulen, const uint8_t *v,
	     size_t vlen, uint32_t bits, uint8_t *out)
{
	EVP_MAC *mac = NULL;
	EVP_MAC_CTX *ctx = NULL;
	OSSL_PARAM params[2];
	uint8_t ctr[4], nbits[4], blk[ATT_DIGEST_MAX];
	size_t dsz = att_hash_size(h), need = bits / 8, done = 0, n;
	uint32_t i;
	int rc = ATT_E_CRYPTO;

	if (!dsz || !label || bits % 8 || !bits || (!key && keylen) ||
	    (!u && ulen) || (!v && vlen))
		return ATT_E_INVAL;
	mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	if (!ctx)
		goto out;
	params[0] = OSSL_PARAM_construct_utf8_string(
		OSSL_MAC_PARAM_DIGEST, (char *)att_hash_name(h), 0);
	params[1] = OSSL_PARAM_construct_end();
	be32(nbits, bits);
	for (i = 1; done < need; i++) {
		be32(ctr, i);
		if (EVP_MAC_init(ctx, key, keylen, params) != 1 ||
		    EVP_MAC_update(ctx, ctr, 4) != 1 ||
		    EVP_MAC_update(ctx, (const uint8_t *)label,
				   strlen(label) + 1) != 1 ||
		    (ulen && EVP_MAC_update(ctx, u, ulen) != 1) ||
		    (vlen && EVP_MAC_update(ctx, v, vlen) != 1) ||
		    EVP_MAC_update(ctx, nbits, 4) != 1 ||
		    EVP_MAC_final(ctx, blk, &n, sizeof(blk)) != 1 || n != dsz)
			goto out;
		n = need - done < dsz ? need - done : dsz;
		memcpy(out + done, blk, n);
		done += n;
	}
	rc = ATT_OK;
out:
	OPENSSL_cleanse(blk, sizeof(blk));
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return rc;
}

int att_kdfe(enum att_hash h, const uint8_t *z, size_t zlen, const char *label,
	     const uint8_t *u, size_t ulen, const uint8_t *v, size_t vlen,
	     uint32_t bits, uint8_t *out)
{
	struct att_md *md;
	uint8_t ctr[4], blk[ATT_DIGEST_MAX];
	size_t dsz = att_hash_size(h), need = bits / 8, done = 0, n;
	uint32_t i;
	int rc;

	if (!dsz || !label || !z || bits % 8 || !bits || (!u && ulen) ||
	    (!v && vlen))
		return ATT_E_INVAL;
	rc = att_md_new(h, &md);
	if (rc)
		return rc;
	for (i = 1; !rc && done < need; i++) {
		be32(ctr, i);
		rc = att_md_init(md);
		if (!rc)
			rc = att_md_update(md, ctr, 4);
		if (!rc)
			rc = att_md_update(md, z, zlen);
		if (!rc)
			rc = att_md_update(md, label, strlen(label) + 1);
		if (!rc && ulen)
			rc = att_md_update(md, u, ulen);
		if (!rc && vlen)
			rc = att_md_update(md, v, vlen);
		if (!rc)
			rc = att_md_final(md, blk);
		if (!rc) {
			n = need - done < dsz ? need - done : dsz;
			memcpy(out + done, blk, n);
			done += n;
		}
	}
	OPENSSL_cleanse(blk, sizeof(blk));
	att_md_free(md);
	return rc;
}

/* RSA EK: seed is random, encrypted with OAEP(nameAlg, "IDENTITY\0"). */
static int seed_rsa(const struct att_tpm_key *ek, enum att_hash h,
		    uint8_t *seed, size_t seedlen, TPM2B_ENCRYPTED_SECRET *out)
{
	EVP_PKEY_CTX *ctx;
	void *label = NULL;
	size_t outlen = sizeof(out->secret);
	int rc = ATT_E_CRYPTO;

	if (RAND_bytes(seed, (int)seedlen) != 1)
		return ATT_E_CRYPTO;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, att_tpm_key_pkey(ek), NULL);
	if (!ctx || EVP_PKEY_encrypt_init(ctx) != 1 ||
	    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) != 1 ||
	    EVP_PKEY_CTX_set_rsa_oaep_md_name(ctx, att_hash_name(h), NULL) !=
		    1 ||
	    EVP_PKEY_CTX_set_rsa_mgf1_md_name(ctx, att_hash_name(h), NULL) != 1)
		goto out;
	label = OPENSSL_memdup(identity_label, sizeof(identity_label));
	if (!label || EVP_PKEY_CTX_set0_rsa_oaep_label(
			      ctx, label, sizeof(identity_label)) != 1)
		goto out;
	label = NULL; /* owned by ctx */
	if (EVP_PKEY_encrypt(ctx, out->secret, &outlen, seed, seedlen) != 1)
		goto out;
	out->size = (uint16_t)outlen;
	rc = ATT_OK;
out:
	OPENSSL_free(label);
	EVP_PKEY_CTX_free(ctx);
	return rc;
}

/*
 * ECC EK: an ephemeral key pair on the EK's curve; Z = x(d_e * Q_ek);
 * seed = KDFe(nameAlg, Z, "IDENTITY", x_e, x_ek); the secret is the
 * ephemeral public point.
 */
static int seed_ecc(const struct att_tpm_key *ek, enum att_hash h,
		    uint8_t *seed, size_t seedlen, TPM2B_ENCRYPTED_SECRET *out)
{
	const TPMT_PUBLIC *pub = att_tpm_key_public(ek);
	EVP_PKEY *eph = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	BIGNUM *x = NULL, *y = NULL;
	TPMS_ECC_POINT pt;
	char group[32];
	uint8_t z[66];
	size_t zlen = sizeof(z), gl, off = 0;
	int fsz, rc = ATT_E_CRYPTO;

	memset(&pt, 0, sizeof(pt));
	if (EVP_PKEY_get_utf8_string_param(att_tpm_key_pkey(ek),
					   OSSL_PKEY_PARAM_GROUP_NAME, group,
					   sizeof(group), &gl) != 1)
		return ATT_E_CRYPTO;
	eph = EVP_PKEY_Q_keygen(NULL, NULL, "EC", group);
	if (!eph)
		goto out;
	fsz = (EVP_PKEY_get_bits(eph) + 7) / 8;
	if (fsz <= 0 || fsz > (int)sizeof(z))
		goto out;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, eph, NULL);
	if (!ctx || EVP_PKEY_derive_init(ctx) != 1 ||
	    EVP_PKEY_derive_set_peer(ctx, att_tpm_key_pkey(ek)) != 1 ||
	    EVP_PKEY_derive(ctx, z, &zlen) != 1 || zlen != (size_t)fsz)
		goto out;
	if (EVP_PKEY_get_bn_param(eph, OSSL_PKEY_PARAM_EC_PUB_X, &x) != 1 ||
	    EVP_PKEY_get_bn_param(eph, OSSL_PKEY_PARAM_EC_PUB_Y, &y) != 1 ||
	    BN_bn2binpad(x, pt.x.buffer, fsz) != fsz ||
	    BN_bn2binpad(y, pt.y.buffer, fsz) != fsz)
		goto out;
	pt.x.size = pt.y.size = (uint16_t)fsz;
	rc = att_kdfe(h, z, zlen, identity_label, pt.x.buffer, pt.x.size,
		      pub->unique.ecc.x.buffer, pub->unique.ecc.x.size,
		      (uint32_t)seedlen * 8, seed);
	if (rc)
		goto out;
	rc = ATT_E_INTERNAL;
	if (Tss2_MU_TPMS_ECC_POINT_Marshal(&pt, out->secret,
					   sizeof(out->secret),
					   &off) != TSS2_RC_SUCCESS)
		goto out;
	out->size = (uint16_t)off;
	rc = ATT_OK;
out:
	OPENSSL_cleanse(z, sizeof(z));
	BN_free(x);
	BN_free(y);
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(eph);
	return rc;
}

static int hmac(enum att_hash h, const uint8_t *key, size_t keylen,
		const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
		uint8_t *out)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	OSSL_PARAM params[2];
	size_t n;
	int rc = ATT_E_CRYPTO;

	params[0] = OSSL_PARAM_construct_utf8_string(
		OSSL_MAC_PARAM_DIGEST, (char *)att_hash_name(h), 0);
	params[1] = OSSL_PARAM_construct_end();
	if (ctx && EVP_MAC_init(ctx, key, keylen, params) == 1 &&
	    EVP_MAC_update(ctx, a, alen) == 1 &&
	    EVP_MAC_update(ctx, b, blen) == 1 &&
	    EVP_MAC_final(ctx, out, &n, ATT_DIGEST_MAX) == 1 &&
	    n == att_hash_size(h))
		rc = ATT_OK;
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return rc;
}

static int aes_cfb_encrypt(const uint8_t *key, uint16_t bits, const uint8_t *in,
			   size_t len, uint8_t *out)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	EVP_CIPHER *c = EVP_CIPHER_fetch(
		NULL, bits == 128 ? "AES-128-CFB" : "AES-256-CFB", NULL);
	static const uint8_t iv[16];
	int l1 = 0, l2 = 0, rc = ATT_E_CRYPTO;

	if (ctx && c && EVP_EncryptInit_ex2(ctx, c, key, iv, NULL) == 1 &&
	    EVP_EncryptUpdate(ctx, out, &l1, in, (int)len) == 1 &&
	    EVP_EncryptFinal_ex(ctx, out + l1, &l2) == 1 &&
	    (size_t)(l1 + l2) == len)
		rc = ATT_OK;
	EVP_CIPHER_free(c);
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

int att_make_credential(const struct att_tpm_key *ek, const uint8_t *ak_name,
			size_t ak_name_len, const uint8_t *cred,
			size_t cred_len, struct att_cred *out)
{
	const TPMT_PUBLIC *pub;
	const TPMT_SYM_DEF_OBJECT *sym;
	enum att_hash h;
	uint8_t seed[ATT_DIGEST_MAX], symkey[32], hkey[ATT_DIGEST_MAX];
	uint8_t plain[2 + ATT_DIGEST_MAX], enc[2 + ATT_DIGEST_MAX];
	uint8_t mac[ATT_DIGEST_MAX];
	size_t dsz, plen;
	uint8_t *p;
	int rc;

	if (!ek || !ak_name || !cred || !out || !cred_len)
		return ATT_E_INVAL;
	memset(out, 0, sizeof(*out));
	pub = att_tpm_key_public(ek);
	h = att_hash_by_tpm_alg(pub->nameAlg);
	dsz = att_hash_size(h);
	if (!dsz)
		return ATT_E_UNSUPPORTED;
	/* the AK name: be16 alg || digest of that alg */
	if (ak_name_len < 2 ||
	    att_hash_size(att_hash_by_tpm_alg(
		    (uint16_t)(ak_name[0] << 8 | ak_name[1]))) !=
		    ak_name_len - 2)
		return ATT_E_INVAL;
	if (cred_len > dsz)
		return ATT_E_TOO_BIG;
	if ((pub->type != TPM2_ALG_RSA && pub->type != TPM2_ALG_ECC) ||
	    !(pub->objectAttributes & TPMA_OBJECT_RESTRICTED) ||
	    !(pub->objectAttributes & TPMA_OBJECT_DECRYPT))
		return ATT_E_UNSUPPORTED;
	sym = &pub->parameters.asymDetail.symmetric;
	if (sym->algorithm != TPM2_ALG_AES || sym->mode.aes != TPM2_ALG_CFB ||
	    (sym->keyBits.aes != 128 && sym->keyBits.aes != 256))
		return ATT_E_UNSUPPORTED;

	if (pub->type == TPM2_ALG_RSA)
		rc = seed_rsa(ek, h, seed, dsz, &out->secret);
	else
		rc = seed_ecc(ek, h, seed, dsz, &out->secret);
	if (rc)
		goto out;
	rc = att_kdfa(h, seed, dsz, "STORAGE", ak_name, ak_name_len, NULL, 0,
		      sym->keyBits.aes, symkey);
	if (rc)
		goto out;
	plain[0] = (uint8_t)(cred_len >> 8);
	plain[1] = (uint8_t)cred_len;
	memcpy(plain + 2, cred, cred_len);
	plen = 2 + cred_len;
	rc = aes_cfb_encrypt(symkey, sym->keyBits.aes, plain, plen, enc);
	if (rc)
		goto out;
	rc = att_kdfa(h, seed, dsz, "INTEGRITY", NULL, 0, NULL, 0,
		      (uint32_t)dsz * 8, hkey);
	if (rc)
		goto out;
	rc = hmac(h, hkey, dsz, enc, plen, ak_name, ak_name_len, mac);
	if (rc)
		goto out;
	p = out->blob.credential;
	p[0] = (uint8_t)(dsz >> 8);
	p[1] = (uint8_t)dsz;
	memcpy(p + 2, mac, dsz);
	memcpy(p + 2 + dsz, enc, plen);
	out->blob.size = (uint16_t)(2 + dsz + plen);
out:
	OPENSSL_cleanse(seed, sizeof(seed));
	OPENSSL_cleanse(symkey, sizeof(symkey));
	OPENSSL_cleanse(hkey, sizeof(hkey));
	OPENSSL_cleanse(plain, sizeof(plain));
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}
