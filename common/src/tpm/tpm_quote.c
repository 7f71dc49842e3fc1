// SPDX-License-Identifier: Apache-2.0
/*
 * tpm_quote.c - TPM2_Quote verification (libtss2-mu + OpenSSL 3).
 */
#include "attest/tpm_quote.h"

#include <pthread.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "attest/err.h"

int att_pcr_sel_add(struct att_pcr_sel *sel, enum att_hash bank, uint32_t mask)
{
	unsigned int i;

	if (!att_hash_info(bank) || !att_hash_info(bank)->tpm_alg ||
	    (mask >> ATT_PCR_COUNT))
		return ATT_E_INVAL;
	for (i = 0; i < sel->count; i++) {
		if (sel->b[i].bank == bank) {
			sel->b[i].mask |= mask;
			return ATT_OK;
		}
	}
	if (sel->count >= ATT_PCR_SEL_MAX_BANKS)
		return ATT_E_TOO_BIG;
	sel->b[sel->count].bank = bank;
	sel->b[sel->count].mask = mask;
	sel->count++;
	return ATT_OK;
}

int att_pcr_sel_equal(const struct att_pcr_sel *a, const struct att_pcr_sel *b)
{
	unsigned int i;

	if (a->count != b->count)
		return 0;
	for (i = 0; i < a->count; i++)
		if (a->b[i].bank != b->b[i].bank ||
		    a->b[i].mask != b->b[i].mask)
			return 0;
	return 1;
}

int att_pcr_sel_to_tpml(const struct att_pcr_sel *sel, TPML_PCR_SELECTION *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	if (sel->count > TPM2_NUM_PCR_BANKS)
		return ATT_E_TOO_BIG;
	for (i = 0; i < sel->count; i++) {
		const struct att_hash_info *hi = att_hash_info(sel->b[i].bank);
		TPMS_PCR_SELECTION *s = &out->pcrSelections[i];

		if (!hi || !hi->tpm_alg || (sel->b[i].mask >> ATT_PCR_COUNT))
			return ATT_E_INVAL;
		s->hash = hi->tpm_alg;
		s->sizeofSelect = 3;
		s->pcrSelect[0] = (uint8_t)sel->b[i].mask;
		s->pcrSelect[1] = (uint8_t)(sel->b[i].mask >> 8);
		s->pcrSelect[2] = (uint8_t)(sel->b[i].mask >> 16);
	}
	out->count = sel->count;
	return ATT_OK;
}

int att_pcr_sel_from_tpml(const TPML_PCR_SELECTION *in, struct att_pcr_sel *out)
{
	unsigned int i, j;

	memset(out, 0, sizeof(*out));
	if (in->count > ATT_PCR_SEL_MAX_BANKS || in->count > TPM2_NUM_PCR_BANKS)
		return ATT_E_TOO_BIG;
	for (i = 0; i < in->count; i++) {
		const TPMS_PCR_SELECTION *s = &in->pcrSelections[i];
		enum att_hash h = att_hash_by_tpm_alg(s->hash);
		uint32_t mask = 0;

		if (h == ATT_HASH_NONE)
			return ATT_E_UNSUPPORTED;
		if (s->sizeofSelect > sizeof(s->pcrSelect))
			return ATT_E_FORMAT;
		for (j = 0; j < s->sizeofSelect; j++) {
			if (j >= ATT_PCR_COUNT / 8) {
				if (s->pcrSelect[j])
					return ATT_E_UNSUPPORTED;
				continue;
			}
			mask |= (uint32_t)s->pcrSelect[j] << (8 * j);
		}
		for (j = 0; j < out->count; j++)
			if (out->b[j].bank == h)
				return ATT_E_FORMAT;
		out->b[out->count].bank = h;
		out->b[out->count].mask = mask;
		out->count++;
	}
	return ATT_OK;
}

int att_pcrs_quoted(const struct att_pcrs *in, const struct att_pcr_sel *sel,
		    struct att_pcrs *out)
{
	const uint8_t *v;
	unsigned int b, i;
	int rc;

	att_pcrs_clear(out);
	for (b = 0; b < sel->count; b++)
		for (i = 0; i < ATT_PCR_COUNT; i++) {
			if (!(sel->b[b].mask & (1u << i)))
				continue;
			v = att_pcrs_get(in, sel->b[b].bank, i);
			if (!v)
				return ATT_E_NOT_FOUND;
			rc = att_pcrs_set(out, sel->b[b].bank, i, v,
					  att_hash_size(sel->b[b].bank));
			if (rc)
				return rc;
		}
	return ATT_OK;
}

int att_pcr_digest(enum att_hash h, const struct att_pcr_sel *sel,
		   const struct att_pcrs *pcrs, uint8_t *out)
{
	struct att_md *md;
	unsigned int i, pcr;
	int rc;

	rc = att_md_new(h, &md);
	if (rc)
		return rc;
	rc = att_md_init(md);
	for (i = 0; !rc && i < sel->count; i++) {
		size_t sz = att_hash_size(sel->b[i].bank);

		for (pcr = 0; !rc && pcr < ATT_PCR_COUNT; pcr++) {
			const uint8_t *v;

			if (!(sel->b[i].mask & (1u << pcr)))
				continue;
			v = att_pcrs_get(pcrs, sel->b[i].bank, pcr);
			if (!v)
				rc = ATT_E_NOT_FOUND;
			else
				rc = att_md_update(md, v, sz);
		}
	}
	if (!rc)
		rc = att_md_final(md, out);
	att_md_free(md);
	return rc;
}

int att_tpm_attest_parse(const uint8_t *p, size_t len, TPMS_ATTEST *out)
{
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	if (!p)
		return ATT_E_INVAL;
	if (len > ATT_QUOTE_ATTEST_MAX)
		return ATT_E_TOO_BIG;
	if (Tss2_MU_TPMS_ATTEST_Unmarshal(p, len, &off, out) != TSS2_RC_SUCCESS)
		return ATT_E_FORMAT;
	return off == len ? ATT_OK : ATT_E_TRAILING;
}

int att_tpm_sig_parse(const uint8_t *p, size_t len, TPMT_SIGNATURE *out)
{
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	if (!p)
		return ATT_E_INVAL;
	if (len > ATT_QUOTE_SIG_MAX)
		return ATT_E_TOO_BIG;
	if (Tss2_MU_TPMT_SIGNATURE_Unmarshal(p, len, &off, out) !=
	    TSS2_RC_SUCCESS)
		return ATT_E_FORMAT;
	return off == len ? ATT_OK : ATT_E_TRAILING;
}

static int verdict(enum att_quote_reason *reason, enum att_quote_reason r)
{
	if (reason)
		*reason = r;
	return r == ATT_QR_OK ? ATT_OK : ATT_E_VERIFY;
}

/*
 * The orders n of the curves we verify, made once: building an EC_GROUP
 * to read its order cost 4% of the verifier's CPU when it was done for
 * every quote. Kept for the life of the process.
 */
static const struct {
	TPMI_ECC_CURVE id;
	int nid;
} curves[] = {
	{TPM2_ECC_NIST_P256, NID_X9_62_prime256v1},
	{TPM2_ECC_NIST_P384, NID_secp384r1},
	{TPM2_ECC_NIST_P521, NID_secp521r1},
};
#define NCURVES (sizeof(curves) / sizeof(curves[0]))
static BIGNUM *curve_orders[NCURVES];
static pthread_once_t curve_orders_once = PTHREAD_ONCE_INIT;

static void curve_orders_init(void)
{
	EC_GROUP *g;
	size_t i;

	for (i = 0; i < NCURVES; i++) {
		g = EC_GROUP_new_by_curve_name(curves[i].nid);
		if (g)
			curve_orders[i] = BN_dup(EC_GROUP_get0_order(g));
		EC_GROUP_free(g);
	}
}

/* NULL for a curve we do not do (or when it could not be made). */
static const BIGNUM *curve_order(TPMI_ECC_CURVE c)
{
	size_t i;

	pthread_once(&curve_orders_once, curve_orders_init);
	for (i = 0; i < NCURVES; i++)
		if (curves[i].id == c)
			return curve_orders[i];
	return NULL;
}

/*
 * DER-encodes an ECDSA (r, s) after checking 1 <= r, s < n.
 * ATT_E_VERIFY for values out of range.
 */
static int ecdsa_der(const TPMT_PUBLIC *pub, const TPMS_SIGNATURE_ECC *e,
		     uint8_t **der, int *derlen)
{
	const BIGNUM *n = curve_order(pub->parameters.eccDetail.curveID);
	BIGNUM *r = BN_bin2bn(e->signatureR.buffer, e->signatureR.size, NULL);
	BIGNUM *s = BN_bin2bn(e->signatureS.buffer, e->signatureS.size, NULL);
	ECDSA_SIG *es = NULL;
	int rc = ATT_E_CRYPTO;

	*der = NULL;
	if (!n || !r || !s)
		goto out;
	if (BN_is_zero(r) || BN_is_zero(s) || BN_cmp(r, n) >= 0 ||
	    BN_cmp(s, n) >= 0) {
		rc = ATT_E_VERIFY;
		goto out;
	}
	es = ECDSA_SIG_new();
	if (!es || !ECDSA_SIG_set0(es, r, s))
		goto out;
	r = s = NULL; /* owned by es */
	*derlen = i2d_ECDSA_SIG(es, der);
	if (*derlen <= 0) {
		*der = NULL;
		goto out;
	}
	rc = ATT_OK;
out:
	ECDSA_SIG_free(es);
	BN_free(r);
	BN_free(s);
	return rc;
}

static int check_signature(const struct att_tpm_key *ak,
			   const TPMT_SIGNATURE *sig, const uint8_t *msg,
			   size_t len, enum att_hash *hout,
			   enum att_quote_reason *reason)
{
	const TPMT_PUBLIC *pub = att_tpm_key_public(ak);
	EVP_PKEY *pkey = att_tpm_key_pkey(ak);
	EVP_MD_CTX *mctx = NULL;
	EVP_PKEY_CTX *pctx = NULL;
	const uint8_t *sp;
	uint8_t *der = NULL;
	size_t slen;
	TPM2_ALG_ID ak_scheme;
	TPMI_ALG_HASH ak_hash, sig_hash;
	enum att_hash h;
	int derlen = 0, ret, rc;

	if (pub->type == TPM2_ALG_RSA) {
		ak_scheme = pub->parameters.rsaDetail.scheme.scheme;
		ak_hash =
			pub->parameters.rsaDetail.scheme.details.anySig.hashAlg;
	} else if (pub->type == TPM2_ALG_ECC) {
		ak_scheme = pub->parameters.eccDetail.scheme.scheme;
		ak_hash =
			pub->parameters.eccDetail.scheme.details.anySig.hashAlg;
	} else {
		return ATT_E_UNSUPPORTED;
	}
	if (sig->sigAlg != ak_scheme)
		return verdict(reason, ATT_QR_SIG_SCHEME);
	switch (sig->sigAlg) {
	case TPM2_ALG_RSASSA:
	case TPM2_ALG_RSAPSS:
		if (pub->type != TPM2_ALG_RSA)
			return verdict(reason, ATT_QR_SIG_SCHEME);
		sig_hash = sig->signature.rsassa.hash;
		sp = sig->signature.rsassa.sig.buffer;
		slen = sig->signature.rsassa.sig.size;
		if (slen != pub->unique.rsa.size ||
		    slen != (size_t)EVP_PKEY_get_size(pkey))
			return verdict(reason, ATT_QR_SIG_SIZE);
		break;
	case TPM2_ALG_ECDSA:
		if (pub->type != TPM2_ALG_ECC)
			return verdict(reason, ATT_QR_SIG_SCHEME);
		sig_hash = sig->signature.ecdsa.hash;
		sp = NULL;
		slen = 0;
		break;
	default:
		return verdict(reason, ATT_QR_SIG_SCHEME);
	}
	h = att_hash_by_tpm_alg(sig_hash);
	if (sig_hash != ak_hash || h == ATT_HASH_NONE || h == ATT_HASH_SHA1 ||
	    h == ATT_HASH_MD5)
		return verdict(reason, ATT_QR_SIG_HASH);
	if (sig->sigAlg == TPM2_ALG_ECDSA) {
		rc = ecdsa_der(pub, &sig->signature.ecdsa, &der, &derlen);
		if (rc == ATT_E_VERIFY)
			return verdict(reason, ATT_QR_SIG_RANGE);
		if (rc)
			return rc;
		sp = der;
		slen = (size_t)derlen;
	}
	rc = ATT_E_CRYPTO;
	mctx = EVP_MD_CTX_new();
	if (!mctx || EVP_DigestVerifyInit_ex(mctx, &pctx, att_hash_name(h),
					     NULL, NULL, pkey, NULL) != 1)
		goto out;
	if (sig->sigAlg == TPM2_ALG_RSASSA &&
	    EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) != 1)
		goto out;
	if (sig->sigAlg == TPM2_ALG_RSAPSS &&
	    (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
	     EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) != 1))
		goto out;
	ret = EVP_DigestVerify(mctx, sp, slen, msg, len);
	if (ret == 1) {
		*hout = h;
		rc = ATT_OK;
	} else if (ret == 0) {
		rc = verdict(reason, ATT_QR_SIGNATURE);
	}
out:
	ERR_clear_error();
	EVP_MD_CTX_free(mctx);
	OPENSSL_free(der);
	return rc;
}

int att_quote_verify(const struct att_tpm_key *ak, const uint8_t *attest,
		     size_t attest_len, const uint8_t *sig, size_t sig_len,
		     const uint8_t *nonce, size_t nonce_len,
		     const struct att_pcr_sel *sel, const struct att_pcrs *pcrs,
		     struct att_quote_info *info, enum att_quote_reason *reason)
{
	TPMT_SIGNATURE ts;
	TPMS_ATTEST ta;
	const TPMS_QUOTE_INFO *q;
	struct att_pcr_sel qsel;
	uint8_t dig[ATT_DIGEST_MAX];
	enum att_hash h = ATT_HASH_NONE;
	int rc;

	if (reason)
		*reason = ATT_QR_MALFORMED;
	if (info)
		memset(info, 0, sizeof(*info));
	if (!ak || !attest || !sig || !sel || !pcrs || (!nonce && nonce_len))
		return ATT_E_INVAL;
	rc = att_tpm_sig_parse(sig, sig_len, &ts);
	if (rc)
		return rc;
	/* The signature covers the bytes as received: check it first. */
	rc = check_signature(ak, &ts, attest, attest_len, &h, reason);
	if (rc)
		return rc;
	rc = att_tpm_attest_parse(attest, attest_len, &ta);
	if (rc)
		return rc;
	if (ta.magic != TPM2_GENERATED_VALUE)
		return verdict(reason, ATT_QR_MAGIC);
	if (ta.type != TPM2_ST_ATTEST_QUOTE)
		return verdict(reason, ATT_QR_TYPE);
	q = &ta.attested.quote;
	rc = att_pcr_sel_from_tpml(&q->pcrSelect, &qsel);
	if (rc)
		return rc;
	if (info) {
		info->clock = ta.clockInfo.clock;
		info->reset_count = ta.clockInfo.resetCount;
		info->restart_count = ta.clockInfo.restartCount;
		info->safe = ta.clockInfo.safe;
		info->firmware_version = ta.firmwareVersion;
		info->sel = qsel;
		info->sig_hash = h;
	}
	if (ta.extraData.size != nonce_len ||
	    (nonce_len && CRYPTO_memcmp(ta.extraData.buffer, nonce, nonce_len)))
		return verdict(reason, ATT_QR_NONCE);
	if (!att_pcr_sel_equal(&qsel, sel))
		return verdict(reason, ATT_QR_SELECTION);
	rc = att_pcr_digest(h, &qsel, pcrs, dig);
	if (rc == ATT_E_NOT_FOUND)
		return verdict(reason, ATT_QR_PCR_MISSING);
	if (rc)
		return rc;
	if (q->pcrDigest.size != att_hash_size(h) ||
	    CRYPTO_memcmp(q->pcrDigest.buffer, dig, att_hash_size(h)))
		return verdict(reason, ATT_QR_PCR_DIGEST);
	return verdict(reason, ATT_QR_OK);
}

int att_quote_check_clock(const struct att_quote_info *prev,
			  const struct att_quote_info *cur, int *reboot,
			  enum att_quote_reason *reason)
{
	*reboot = 0;
	if (!cur->safe)
		return verdict(reason, ATT_QR_CLOCK_UNSAFE);
	if (!prev)
		return verdict(reason, ATT_QR_OK);
	if (cur->reset_count < prev->reset_count)
		return verdict(reason, ATT_QR_RESET_BACKWARDS);
	if (cur->reset_count > prev->reset_count) {
		*reboot = 1;
		return verdict(reason, ATT_QR_OK);
	}
	if (cur->restart_count < prev->restart_count)
		return verdict(reason, ATT_QR_RESTART_BACKWARDS);
	/* Two quotes of one TPM are at least a millisecond apart. */
	if (cur->restart_count == prev->restart_count &&
	    cur->clock <= prev->clock)
		return verdict(reason, ATT_QR_CLOCK_BACKWARDS);
	return verdict(reason, ATT_QR_OK);
}

int att_quote_clock_behind(uint64_t prev_clock, int64_t prev_at,
			   uint64_t cur_clock, int64_t cur_from,
			   unsigned int drift_pct, uint64_t slack_ms,
			   uint64_t *min_ms)
{
	uint64_t wall_ms, want, adv;

	*min_ms = 0;
	if (cur_from <= prev_at || cur_clock < prev_clock || drift_pct >= 100)
		return 0;
	wall_ms = (uint64_t)(cur_from - prev_at) * 1000u;
	want = wall_ms - wall_ms / 100u * drift_pct;
	want = want > slack_ms ? want - slack_ms : 0;
	adv = cur_clock - prev_clock;
	*min_ms = want;
	return adv < want;
}

const char *att_quote_reason_str(enum att_quote_reason r)
{
	switch (r) {
	case ATT_QR_OK:
		return "quote verified";
	case ATT_QR_MALFORMED:
		return "quote or signature is malformed";
	case ATT_QR_SIG_SCHEME:
		return "signature scheme is not the AK's";
	case ATT_QR_SIG_HASH:
		return "signature hash is not the AK's (or is SHA-1)";
	case ATT_QR_SIG_SIZE:
		return "RSA signature length is not the modulus length";
	case ATT_QR_SIG_RANGE:
		return "ECDSA signature value out of range";
	case ATT_QR_SIGNATURE:
		return "signature does not verify with the AK";
	case ATT_QR_MAGIC:
		return "attest magic is not TPM_GENERATED";
	case ATT_QR_TYPE:
		return "attest is not a quote";
	case ATT_QR_NONCE:
		return "quote nonce is not the one issued";
	case ATT_QR_SELECTION:
		return "quoted PCR selection is not the one requested";
	case ATT_QR_PCR_MISSING:
		return "a quoted PCR value is missing";
	case ATT_QR_PCR_DIGEST:
		return "PCR values do not match the quoted digest";
	case ATT_QR_CLOCK_UNSAFE:
		return "TPM clock is not safe";
	case ATT_QR_CLOCK_BACKWARDS:
		return "TPM clock did not advance since the last quote";
	case ATT_QR_RESET_BACKWARDS:
		return "TPM resetCount went backwards";
	case ATT_QR_RESTART_BACKWARDS:
		return "TPM restartCount went backwards";
	}
	return "unknown quote reason";
}
