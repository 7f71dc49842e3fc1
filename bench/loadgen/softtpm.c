/* SPDX-License-Identifier: Apache-2.0 */
/*
 * softtpm.c - software EK and TPM2_ActivateCredential for the load
 * generator (the agent's half of FORMATS.md section 4).
 */
#include "softtpm.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "attest/digest.h"
#include "attest/err.h"

struct softtpm_ek {
	EVP_PKEY *pkey;
	uint8_t pub[sizeof(TPM2B_PUBLIC)];
	size_t pub_len;
};

void softtpm_ek_free(struct softtpm_ek *ek)
{
	if (!ek)
		return;
	EVP_PKEY_free(ek->pkey);
	free(ek);
}

const uint8_t *softtpm_ek_public(const struct softtpm_ek *ek, size_t *len)
{
	*len = ek->pub_len;
	return ek->pub;
}

static int softtpm_marshal_pub(struct softtpm_ek *ek)
{
	TPM2B_PUBLIC p = {0};
	BIGNUM *n = NULL;
	size_t off = 0;
	int rc = ATT_E_CRYPTO;

	if (!EVP_PKEY_get_bn_param(ek->pkey, OSSL_PKEY_PARAM_RSA_N, &n))
		return ATT_E_CRYPTO;
	p.publicArea.type = TPM2_ALG_RSA;
	p.publicArea.nameAlg = TPM2_ALG_SHA256;
	p.publicArea.objectAttributes =
		TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
		TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_ADMINWITHPOLICY |
		TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
	p.publicArea.parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_AES;
	p.publicArea.parameters.rsaDetail.symmetric.keyBits.aes = 128;
	p.publicArea.parameters.rsaDetail.symmetric.mode.aes = TPM2_ALG_CFB;
	p.publicArea.parameters.rsaDetail.scheme.scheme = TPM2_ALG_NULL;
	p.publicArea.parameters.rsaDetail.keyBits = 2048;
	p.publicArea.parameters.rsaDetail.exponent = 0;
	p.publicArea.unique.rsa.size = 256;
	if (BN_bn2binpad(n, p.publicArea.unique.rsa.buffer, 256) != 256)
		goto out;
	if (Tss2_MU_TPM2B_PUBLIC_Marshal(&p, ek->pub, sizeof(ek->pub), &off))
		goto out;
	ek->pub_len = off;
	rc = 0;
out:
	BN_free(n);
	return rc;
}

int softtpm_ek_new(struct softtpm_ek **out)
{
	struct softtpm_ek *ek = calloc(1, sizeof(*ek));
	int rc;

	if (!ek)
		return ATT_E_NOMEM;
	ek->pkey = EVP_RSA_gen(2048);
	if (!ek->pkey) {
		free(ek);
		return ATT_E_CRYPTO;
	}
	rc = softtpm_marshal_pub(ek);
	if (rc) {
		softtpm_ek_free(ek);
		return rc;
	}
	*out = ek;
	return 0;
}

static int softtpm_oaep_decrypt(const struct softtpm_ek *ek, const uint8_t *in,
				size_t inlen, uint8_t *seed, size_t *seed_len)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(ek->pkey, NULL);
	unsigned char *label = OPENSSL_memdup("IDENTITY", 9);
	int rc = ATT_E_CRYPTO;

	if (!c || !label)
		goto out;
	if (EVP_PKEY_decrypt_init(c) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_OAEP_PADDING) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_oaep_md(c, EVP_sha256()) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_mgf1_md(c, EVP_sha256()) <= 0 ||
	    EVP_PKEY_CTX_set0_rsa_oaep_label(c, label, 9) <= 0)
		goto out;
	label = NULL; /* owned by c */
	if (EVP_PKEY_decrypt(c, seed, seed_len, in, inlen) <= 0) {
		rc = ATT_E_VERIFY;
		goto out;
	}
	rc = 0;
out:
	OPENSSL_free(label);
	EVP_PKEY_CTX_free(c);
	return rc;
}

int softtpm_activate(const struct softtpm_ek *ek, const uint8_t *ak_name,
		     size_t ak_name_len, const struct att_cred *cred,
		     uint8_t *out, size_t cap, size_t *out_len)
{
	uint8_t seed[256], hkey[32], skey[16], mac[32], plain[2 + 64];
	uint8_t iv[16] = {0};
	const uint8_t *b = cred->blob.credential;
	size_t blen = cred->blob.size, seed_len = sizeof(seed), hlen;
	unsigned int mlen = sizeof(mac);
	EVP_CIPHER_CTX *cc = NULL;
	uint8_t macin[sizeof(plain) + ATT_TPM_NAME_MAX];
	const uint8_t *enc;
	size_t enclen, slen;
	int rc, n = 0, f = 0;

	rc = softtpm_oaep_decrypt(ek, cred->secret.secret, cred->secret.size,
				  seed, &seed_len);
	if (rc)
		return rc;
	rc = ATT_E_FORMAT;
	if (blen < 2)
		goto out;
	hlen = (size_t)b[0] << 8 | b[1];
	if (hlen != 32 || blen < 2 + hlen + 2 ||
	    blen - 2 - hlen > sizeof(plain))
		goto out;
	enc = b + 2 + hlen;
	enclen = blen - 2 - hlen;
	rc = att_kdfa(ATT_HASH_SHA256, seed, seed_len, "INTEGRITY", NULL, 0,
		      NULL, 0, 256, hkey);
	if (rc)
		goto out;
	rc = ATT_E_INVAL;
	if (ak_name_len > ATT_TPM_NAME_MAX)
		goto out;
	memcpy(macin, enc, enclen);
	memcpy(macin + enclen, ak_name, ak_name_len);
	rc = ATT_E_CRYPTO;
	if (!HMAC(EVP_sha256(), hkey, sizeof(hkey), macin, enclen + ak_name_len,
		  mac, &mlen))
		goto out;
	if (CRYPTO_memcmp(mac, b + 2, 32)) {
		rc = ATT_E_VERIFY;
		goto out;
	}
	rc = att_kdfa(ATT_HASH_SHA256, seed, seed_len, "STORAGE", ak_name,
		      ak_name_len, NULL, 0, 128, skey);
	if (rc)
		goto out;
	rc = ATT_E_CRYPTO;
	cc = EVP_CIPHER_CTX_new();
	if (!cc || !EVP_DecryptInit_ex(cc, EVP_aes_128_cfb(), NULL, skey, iv) ||
	    !EVP_DecryptUpdate(cc, plain, &n, enc, (int)enclen) ||
	    !EVP_DecryptFinal_ex(cc, plain + n, &f))
		goto out;
	rc = ATT_E_FORMAT;
	slen = (size_t)plain[0] << 8 | plain[1];
	if ((size_t)(n + f) < 2 || slen != (size_t)(n + f) - 2)
		goto out;
	rc = ATT_E_TOO_BIG;
	if (slen > cap)
		goto out;
	memcpy(out, plain + 2, slen);
	*out_len = slen;
	rc = 0;
out:
	OPENSSL_cleanse(seed, sizeof(seed));
	OPENSSL_cleanse(hkey, sizeof(hkey));
	OPENSSL_cleanse(skey, sizeof(skey));
	OPENSSL_cleanse(plain, sizeof(plain));
	EVP_CIPHER_CTX_free(cc);
	return rc;
}
