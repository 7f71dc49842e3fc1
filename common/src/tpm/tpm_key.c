// SPDX-License-Identifier: Apache-2.0
/*
 * tpm_key.c - TPM2B_PUBLIC parsing, Names, OpenSSL keys and AK checks.
 */
#include "attest/tpm_key.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/param_build.h>
#include <tss2/tss2_mu.h>

#include "attest/digest.h"
#include "attest/err.h"

struct att_tpm_key {
	atomic_int refs;
	TPMT_PUBLIC pub;
	EVP_PKEY *pkey;
	uint8_t name[ATT_TPM_NAME_MAX];
	size_t name_len;
	uint8_t raw[sizeof(TPM2B_PUBLIC)];
	size_t raw_len;
};

static const char *curve_group(TPMI_ECC_CURVE c, size_t *bytes)
{
	switch (c) {
	case TPM2_ECC_NIST_P256:
		*bytes = 32;
		return "prime256v1";
	case TPM2_ECC_NIST_P384:
		*bytes = 48;
		return "secp384r1";
	case TPM2_ECC_NIST_P521:
		*bytes = 66;
		return "secp521r1";
	default:
		return NULL;
	}
}

static int make_pkey(const TPMT_PUBLIC *pub, EVP_PKEY **out)
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	BIGNUM *n = NULL, *e = NULL;
	uint8_t point[1 + 2 * 66];
	const char *type;
	int rc = ATT_E_CRYPTO;

	*out = NULL;
	if (!bld)
		return ATT_E_NOMEM;
	if (pub->type == TPM2_ALG_RSA) {
		const TPM2B_PUBLIC_KEY_RSA *m = &pub->unique.rsa;
		uint32_t exp = pub->parameters.rsaDetail.exponent;
		uint16_t bits = pub->parameters.rsaDetail.keyBits;

		if (bits < 1024 || bits > 4096 || bits % 8 ||
		    m->size != bits / 8 || !(m->buffer[0] & 0x80)) {
			rc = ATT_E_UNSUPPORTED;
			goto out;
		}
		type = "RSA";
		n = BN_bin2bn(m->buffer, m->size, NULL);
		e = BN_new();
		if (!n || !e || !BN_set_word(e, exp ? exp : 65537) ||
		    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
		    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
			goto out;
	} else if (pub->type == TPM2_ALG_ECC) {
		const TPMS_ECC_POINT *q = &pub->unique.ecc;
		size_t sz;
		const char *grp =
			curve_group(pub->parameters.eccDetail.curveID, &sz);

		if (!grp || q->x.size > sz || q->y.size > sz) {
			rc = ATT_E_UNSUPPORTED;
			goto out;
		}
		type = "EC";
		memset(point, 0, sizeof(point));
		point[0] = 0x04;
		memcpy(point + 1 + sz - q->x.size, q->x.buffer, q->x.size);
		memcpy(point + 1 + 2 * sz - q->y.size, q->y.buffer, q->y.size);
		if (!OSSL_PARAM_BLD_push_utf8_string(
			    bld, OSSL_PKEY_PARAM_GROUP_NAME, grp, 0) ||
		    !OSSL_PARAM_BLD_push_octet_string(
			    bld, OSSL_PKEY_PARAM_PUB_KEY, point, 1 + 2 * sz))
			goto out;
	} else {
		rc = ATT_E_UNSUPPORTED;
		goto out;
	}
	params = OSSL_PARAM_BLD_to_param(bld);
	ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) <= 0)
		goto out;
	/* fromdata does not check that an EC point is on the curve */
	if (EVP_PKEY_fromdata(ctx, out, EVP_PKEY_PUBLIC_KEY, params) <= 0) {
		rc = ATT_E_FORMAT;
		goto out;
	}
	if (pub->type == TPM2_ALG_ECC) {
		/*
		 * On the curve and not the point at infinity. The full check
		 * would also multiply by the group order, which proves
		 * nothing more on these curves (cofactor 1: every other
		 * point has that order) and cost as much as a signature
		 * check.
		 */
		EVP_PKEY_CTX *chk =
			EVP_PKEY_CTX_new_from_pkey(NULL, *out, NULL);
		int ok = chk && EVP_PKEY_public_check_quick(chk) == 1;

		EVP_PKEY_CTX_free(chk);
		if (!ok) {
			EVP_PKEY_free(*out);
			*out = NULL;
			rc = ATT_E_FORMAT;
			goto out;
		}
	}
	rc = ATT_OK;
out:
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	return rc;
}

int att_tpm_key_parse(const uint8_t *p, size_t len, struct att_tpm_key **out)
{
	struct att_tpm_key *k;
	TPM2B_PUBLIC tb;
	uint8_t again[sizeof(TPM2B_PUBLIC)];
	size_t off = 0, aoff = 0;
	enum att_hash h;
	int rc;

	*out = NULL;
	if (!p || len > sizeof(k->raw))
		return len > sizeof(k->raw) ? ATT_E_TOO_BIG : ATT_E_INVAL;
	memset(&tb, 0, sizeof(tb));
	if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(p, len, &off, &tb) !=
	    TSS2_RC_SUCCESS)
		return ATT_E_FORMAT;
	if (off != len)
		return ATT_E_TRAILING;
	/*
	 * The Name hashes the bytes as sent, so they must be canonical:
	 * libtss2-mu does not check that the inner size is what the public
	 * area takes, re-marshaling does (it writes the size it computes).
	 */
	if (Tss2_MU_TPM2B_PUBLIC_Marshal(&tb, again, sizeof(again), &aoff) !=
		    TSS2_RC_SUCCESS ||
	    aoff != len || memcmp(again, p, len))
		return ATT_E_FORMAT;
	h = att_hash_by_tpm_alg(tb.publicArea.nameAlg);
	if (h == ATT_HASH_NONE)
		return ATT_E_UNSUPPORTED;
	k = calloc(1, sizeof(*k));
	if (!k)
		return ATT_E_NOMEM;
	atomic_init(&k->refs, 1);
	k->pub = tb.publicArea;
	memcpy(k->raw, p, len);
	k->raw_len = len;
	k->name[0] = (uint8_t)(tb.publicArea.nameAlg >> 8);
	k->name[1] = (uint8_t)tb.publicArea.nameAlg;
	rc = att_digest(h, p + 2, len - 2, k->name + 2);
	if (rc)
		goto fail;
	k->name_len = 2 + att_hash_size(h);
	rc = make_pkey(&k->pub, &k->pkey);
	if (rc)
		goto fail;
	*out = k;
	return ATT_OK;
fail:
	att_tpm_key_free(k);
	return rc;
}

struct att_tpm_key *att_tpm_key_ref(struct att_tpm_key *k)
{
	atomic_fetch_add(&k->refs, 1);
	return k;
}

void att_tpm_key_free(struct att_tpm_key *k)
{
	if (!k || atomic_fetch_sub(&k->refs, 1) > 1)
		return;
	EVP_PKEY_free(k->pkey);
	free(k);
}

const TPMT_PUBLIC *att_tpm_key_public(const struct att_tpm_key *k)
{
	return &k->pub;
}

EVP_PKEY *att_tpm_key_pkey(const struct att_tpm_key *k)
{
	return k->pkey;
}

const uint8_t *att_tpm_key_name(const struct att_tpm_key *k, size_t *len)
{
	*len = k->name_len;
	return k->name;
}

const uint8_t *att_tpm_key_bytes(const struct att_tpm_key *k, size_t *len)
{
	*len = k->raw_len;
	return k->raw;
}

static int fail_ak(enum att_ak_reason *reason, enum att_ak_reason r)
{
	if (reason)
		*reason = r;
	return ATT_E_VERIFY;
}

int att_tpm_ak_check(const struct att_tpm_key *ak, enum att_ak_reason *reason)
{
	const TPMT_PUBLIC *p = &ak->pub;
	TPMA_OBJECT a = p->objectAttributes;
	TPMI_ALG_HASH hash;
	TPM2_ALG_ID scheme;
	enum att_hash h;

	if (reason)
		*reason = ATT_AK_OK;
	if (!(a & TPMA_OBJECT_RESTRICTED))
		return fail_ak(reason, ATT_AK_NOT_RESTRICTED);
	if (!(a & TPMA_OBJECT_SIGN_ENCRYPT))
		return fail_ak(reason, ATT_AK_NOT_SIGN);
	if (a & TPMA_OBJECT_DECRYPT)
		return fail_ak(reason, ATT_AK_DECRYPT);
	if (!(a & TPMA_OBJECT_FIXEDTPM))
		return fail_ak(reason, ATT_AK_NOT_FIXED_TPM);
	if (!(a & TPMA_OBJECT_FIXEDPARENT))
		return fail_ak(reason, ATT_AK_NOT_FIXED_PARENT);
	if (!(a & TPMA_OBJECT_SENSITIVEDATAORIGIN))
		return fail_ak(reason, ATT_AK_NOT_TPM_GENERATED);
	if (p->type == TPM2_ALG_RSA) {
		scheme = p->parameters.rsaDetail.scheme.scheme;
		hash = p->parameters.rsaDetail.scheme.details.anySig.hashAlg;
		if (scheme != TPM2_ALG_RSASSA && scheme != TPM2_ALG_RSAPSS)
			return fail_ak(reason, ATT_AK_SCHEME);
		if (p->parameters.rsaDetail.keyBits < 2048)
			return fail_ak(reason, ATT_AK_WEAK_KEY);
	} else if (p->type == TPM2_ALG_ECC) {
		scheme = p->parameters.eccDetail.scheme.scheme;
		hash = p->parameters.eccDetail.scheme.details.anySig.hashAlg;
		if (scheme != TPM2_ALG_ECDSA)
			return fail_ak(reason, ATT_AK_SCHEME);
	} else {
		return fail_ak(reason, ATT_AK_SCHEME);
	}
	h = att_hash_by_tpm_alg(hash);
	if (h == ATT_HASH_NONE || h == ATT_HASH_SHA1 || h == ATT_HASH_MD5)
		return fail_ak(reason, ATT_AK_WEAK_HASH);
	h = att_hash_by_tpm_alg(p->nameAlg);
	if (h == ATT_HASH_NONE || h == ATT_HASH_SHA1 || h == ATT_HASH_MD5)
		return fail_ak(reason, ATT_AK_WEAK_HASH);
	return ATT_OK;
}

const char *att_ak_reason_str(enum att_ak_reason r)
{
	switch (r) {
	case ATT_AK_OK:
		return "acceptable attestation key";
	case ATT_AK_NOT_RESTRICTED:
		return "AK is not restricted";
	case ATT_AK_NOT_SIGN:
		return "AK is not a signing key";
	case ATT_AK_DECRYPT:
		return "AK is also a decryption key";
	case ATT_AK_NOT_FIXED_TPM:
		return "AK is not fixedTPM";
	case ATT_AK_NOT_FIXED_PARENT:
		return "AK is not fixedParent";
	case ATT_AK_NOT_TPM_GENERATED:
		return "AK was not generated in the TPM (sensitiveDataOrigin)";
	case ATT_AK_SCHEME:
		return "AK has no RSASSA, RSAPSS or ECDSA signing scheme";
	case ATT_AK_WEAK_HASH:
		return "AK uses SHA-1 or an unknown hash";
	case ATT_AK_WEAK_KEY:
		return "AK's RSA key is shorter than 2048 bits";
	}
	return "unknown AK reason";
}
