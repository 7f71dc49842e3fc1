/* SPDX-License-Identifier: Apache-2.0 */
/*
 * softtpm.c - software EK and TPM2_ActivateCredential for the load
 * generator (the agent's half of enrollment, docs/verifier.md "Enrollment").
 */
#include "softtpm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "attest/digest.h"
#include "attest/err.h"

struct softtpm_ek {
	EVP_PKEY *pkey;
	int ecc; /* P-256 EK (TCG template L-2 shape), else RSA-2048 */
	uint8_t pub[sizeof(TPM2B_PUBLIC)];
	size_t pub_len;
	uint8_t x[32]; /* ECC: the public point */
	uint8_t y[32];
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

static int softtpm_marshal_ecc(struct softtpm_ek *ek)
{
	TPM2B_PUBLIC p = {0};
	TPMT_PUBLIC *t = &p.publicArea;
	BIGNUM *x = NULL, *y = NULL;
	size_t off = 0;
	int rc = ATT_E_CRYPTO;

	if (!EVP_PKEY_get_bn_param(ek->pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x) ||
	    !EVP_PKEY_get_bn_param(ek->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y))
		goto out;
	if (BN_bn2binpad(x, ek->x, 32) != 32 ||
	    BN_bn2binpad(y, ek->y, 32) != 32)
		goto out;
	t->type = TPM2_ALG_ECC;
	t->nameAlg = TPM2_ALG_SHA256;
	t->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_ADMINWITHPOLICY |
			      TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
	t->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
	t->parameters.eccDetail.symmetric.keyBits.aes = 128;
	t->parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
	t->parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
	t->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
	t->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	t->unique.ecc.x.size = 32;
	t->unique.ecc.y.size = 32;
	memcpy(t->unique.ecc.x.buffer, ek->x, 32);
	memcpy(t->unique.ecc.y.buffer, ek->y, 32);
	if (Tss2_MU_TPM2B_PUBLIC_Marshal(&p, ek->pub, sizeof(ek->pub), &off))
		goto out;
	ek->pub_len = off;
	rc = 0;
out:
	BN_free(x);
	BN_free(y);
	return rc;
}

static int softtpm_ek_make(int ecc, struct softtpm_ek **out)
{
	struct softtpm_ek *ek = calloc(1, sizeof(*ek));
	int rc;

	if (!ek)
		return ATT_E_NOMEM;
	ek->ecc = ecc;
	ek->pkey = ecc ? EVP_EC_gen("P-256") : EVP_RSA_gen(2048);
	if (!ek->pkey) {
		free(ek);
		return ATT_E_CRYPTO;
	}
	rc = ecc ? softtpm_marshal_ecc(ek) : softtpm_marshal_pub(ek);
	if (rc) {
		softtpm_ek_free(ek);
		return rc;
	}
	*out = ek;
	return 0;
}

int softtpm_ek_new(struct softtpm_ek **out)
{
	return softtpm_ek_make(0, out);
}

int softtpm_ek_new_ecc(struct softtpm_ek **out)
{
	return softtpm_ek_make(1, out);
}

EVP_PKEY *softtpm_ek_pkey(const struct softtpm_ek *ek)
{
	return ek->pkey;
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

/*
 * ECC: the secret is the ephemeral point Q_e (TPMS_ECC_POINT); Z =
 * x(d_ek * Q_e); seed = KDFe(sha256, Z, "IDENTITY", x_e, x_ek).
 */
static int softtpm_ecdh_seed(const struct softtpm_ek *ek, const uint8_t *in,
			     size_t inlen, uint8_t *seed, size_t *seed_len)
{
	TPMS_ECC_POINT pt;
	OSSL_PARAM prm[3];
	EVP_PKEY_CTX *fc = NULL, *dc = NULL;
	EVP_PKEY *peer = NULL;
	uint8_t oct[65], z[32];
	size_t off = 0, zlen = sizeof(z);
	int rc = ATT_E_FORMAT;

	memset(&pt, 0, sizeof(pt));
	if (Tss2_MU_TPMS_ECC_POINT_Unmarshal(in, inlen, &off, &pt) ||
	    off != inlen || pt.x.size != 32 || pt.y.size != 32)
		return rc;
	oct[0] = 0x04;
	memcpy(oct + 1, pt.x.buffer, 32);
	memcpy(oct + 33, pt.y.buffer, 32);
	prm[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
						  (char *)"P-256", 0);
	prm[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, oct,
						   sizeof(oct));
	prm[2] = OSSL_PARAM_construct_end();
	rc = ATT_E_CRYPTO;
	fc = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	if (!fc || EVP_PKEY_fromdata_init(fc) <= 0 ||
	    EVP_PKEY_fromdata(fc, &peer, EVP_PKEY_PUBLIC_KEY, prm) <= 0)
		goto out;
	dc = EVP_PKEY_CTX_new(ek->pkey, NULL);
	if (!dc || EVP_PKEY_derive_init(dc) <= 0 ||
	    EVP_PKEY_derive_set_peer(dc, peer) <= 0 ||
	    EVP_PKEY_derive(dc, z, &zlen) <= 0 || zlen != sizeof(z)) {
		rc = ATT_E_VERIFY;
		goto out;
	}
	rc = att_kdfe(ATT_HASH_SHA256, z, zlen, "IDENTITY", pt.x.buffer, 32,
		      ek->x, 32, 256, seed);
	if (!rc)
		*seed_len = 32;
out:
	OPENSSL_cleanse(z, sizeof(z));
	EVP_PKEY_free(peer);
	EVP_PKEY_CTX_free(fc);
	EVP_PKEY_CTX_free(dc);
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

	if (ek->ecc)
		rc = softtpm_ecdh_seed(ek, cred->secret.secret,
				       cred->secret.size, seed, &seed_len);
	else
		rc = softtpm_oaep_decrypt(ek, cred->secret.secret,
					  cred->secret.size, seed, &seed_len);
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

struct softtpm_ak {
	EVP_PKEY *pkey;
	uint8_t pub[sizeof(TPM2B_PUBLIC)];
	size_t pub_len;
	uint64_t clock;
	uint32_t reset_count;
};

void softtpm_ak_reboot(struct softtpm_ak *ak)
{
	ak->reset_count++;
}

void softtpm_ak_free(struct softtpm_ak *ak)
{
	if (!ak)
		return;
	EVP_PKEY_free(ak->pkey);
	free(ak);
}

const uint8_t *softtpm_ak_public(const struct softtpm_ak *ak, size_t *len)
{
	*len = ak->pub_len;
	return ak->pub;
}

static int softtpm_ak_marshal(struct softtpm_ak *ak)
{
	TPM2B_PUBLIC p = {0};
	TPMT_PUBLIC *t = &p.publicArea;
	BIGNUM *x = NULL, *y = NULL;
	size_t off = 0;
	int rc = ATT_E_CRYPTO;

	if (!EVP_PKEY_get_bn_param(ak->pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x) ||
	    !EVP_PKEY_get_bn_param(ak->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y))
		goto out;
	t->type = TPM2_ALG_ECC;
	t->nameAlg = TPM2_ALG_SHA256;
	t->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_USERWITHAUTH |
			      TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT;
	t->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
	t->parameters.eccDetail.scheme.scheme = TPM2_ALG_ECDSA;
	t->parameters.eccDetail.scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256;
	t->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
	t->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	t->unique.ecc.x.size = 32;
	t->unique.ecc.y.size = 32;
	if (BN_bn2binpad(x, t->unique.ecc.x.buffer, 32) != 32 ||
	    BN_bn2binpad(y, t->unique.ecc.y.buffer, 32) != 32)
		goto out;
	if (Tss2_MU_TPM2B_PUBLIC_Marshal(&p, ak->pub, sizeof(ak->pub), &off))
		goto out;
	ak->pub_len = off;
	rc = 0;
out:
	BN_free(x);
	BN_free(y);
	return rc;
}

int softtpm_ak_new(struct softtpm_ak **out)
{
	struct softtpm_ak *ak = calloc(1, sizeof(*ak));
	int rc;

	if (!ak)
		return ATT_E_NOMEM;
	ak->pkey = EVP_EC_gen("P-256");
	if (!ak->pkey) {
		free(ak);
		return ATT_E_CRYPTO;
	}
	rc = softtpm_ak_marshal(ak);
	if (rc) {
		softtpm_ak_free(ak);
		return rc;
	}
	*out = ak;
	return 0;
}

static int softtpm_sign(struct softtpm_ak *ak, const uint8_t *msg, size_t mlen,
			TPMT_SIGNATURE *ts)
{
	EVP_MD_CTX *mc = EVP_MD_CTX_new();
	uint8_t der[80];
	const uint8_t *dp = der;
	const BIGNUM *r, *s;
	ECDSA_SIG *es = NULL;
	size_t dlen = sizeof(der);
	int rc = ATT_E_CRYPTO;

	if (!mc ||
	    EVP_DigestSignInit(mc, NULL, EVP_sha256(), NULL, ak->pkey) <= 0 ||
	    EVP_DigestSign(mc, der, &dlen, msg, mlen) <= 0)
		goto out;
	es = d2i_ECDSA_SIG(NULL, &dp, (long)dlen);
	if (!es)
		goto out;
	ECDSA_SIG_get0(es, &r, &s);
	ts->sigAlg = TPM2_ALG_ECDSA;
	ts->signature.ecdsa.hash = TPM2_ALG_SHA256;
	ts->signature.ecdsa.signatureR.size = 32;
	ts->signature.ecdsa.signatureS.size = 32;
	if (BN_bn2binpad(r, ts->signature.ecdsa.signatureR.buffer, 32) != 32 ||
	    BN_bn2binpad(s, ts->signature.ecdsa.signatureS.buffer, 32) != 32)
		goto out;
	rc = 0;
out:
	ECDSA_SIG_free(es);
	EVP_MD_CTX_free(mc);
	return rc;
}

int softtpm_quote(struct softtpm_ak *ak, const uint8_t *nonce, size_t nlen,
		  const struct att_pcr_sel *sel, const struct att_pcrs *pcrs,
		  uint8_t *attest, size_t acap, size_t *alen, uint8_t *sig,
		  size_t scap, size_t *slen)
{
	TPMS_ATTEST a = {0};
	TPMT_SIGNATURE ts = {0};
	struct timespec ts_now;
	uint64_t now_ms;
	size_t off = 0;
	int rc;

	if (nlen > sizeof(a.extraData.buffer))
		return ATT_E_TOO_BIG;
	a.magic = TPM2_GENERATED_VALUE;
	a.type = TPM2_ST_ATTEST_QUOTE;
	a.extraData.size = (UINT16)nlen;
	memcpy(a.extraData.buffer, nonce, nlen);
	/*
	 * Milliseconds, running with the wall clock as a TPM's Clock does
	 * (the verifier flags a clock that falls behind as a clone).
	 */
	clock_gettime(CLOCK_MONOTONIC, &ts_now);
	now_ms = (uint64_t)ts_now.tv_sec * 1000u +
		 (uint64_t)ts_now.tv_nsec / 1000000u;
	ak->clock = now_ms > ak->clock ? now_ms : ak->clock + 1;
	a.clockInfo.clock = ak->clock;
	a.clockInfo.resetCount = ak->reset_count;
	a.clockInfo.safe = 1;
	a.firmwareVersion = 0x20240101;
	rc = att_pcr_sel_to_tpml(sel, &a.attested.quote.pcrSelect);
	if (rc)
		return rc;
	rc = att_pcr_digest(ATT_HASH_SHA256, sel, pcrs,
			    a.attested.quote.pcrDigest.buffer);
	if (rc)
		return rc;
	a.attested.quote.pcrDigest.size = 32;
	if (Tss2_MU_TPMS_ATTEST_Marshal(&a, attest, acap, &off))
		return ATT_E_TOO_BIG;
	*alen = off;
	rc = softtpm_sign(ak, attest, off, &ts);
	if (rc)
		return rc;
	off = 0;
	if (Tss2_MU_TPMT_SIGNATURE_Marshal(&ts, sig, scap, &off))
		return ATT_E_TOO_BIG;
	*slen = off;
	return 0;
}
