// SPDX-License-Identifier: Apache-2.0
/*
 * test_tpm_verify.c - quote verification, public-area parsing, AK checks
 * and the KDFs without a TPM: quotes are built with libtss2-mu and signed
 * in software, so that every malformed or out-of-range case can be made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "attest/buf.h"
#include "attest/digest.h"
#include "attest/err.h"
#include "attest/pcrs.h"
#include "attest/tpm_cred.h"
#include "attest/tpm_key.h"
#include "attest/tpm_quote.h"

#define AK_ATTRS                                                      \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |             \
	 TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | \
	 TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT)

/* A software "AK": the private key and its TPM public area. */
struct swak {
	EVP_PKEY *priv;
	TPMT_PUBLIC pub;
};

static void bn_to(const EVP_PKEY *k, const char *param, uint8_t *out, int len)
{
	BIGNUM *bn = NULL;

	assert_int_equal(EVP_PKEY_get_bn_param(k, param, &bn), 1);
	assert_int_equal(BN_bn2binpad(bn, out, len), len);
	BN_free(bn);
}

/* An ECDSA AK on curve (OpenSSL's name), n bytes a coordinate. */
static void swak_ecc_on(struct swak *a, TPMI_ALG_HASH h, const char *curve,
			TPMI_ECC_CURVE id, int n)
{
	memset(a, 0, sizeof(*a));
	a->priv = EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve);
	assert_non_null(a->priv);
	a->pub.type = TPM2_ALG_ECC;
	a->pub.nameAlg = TPM2_ALG_SHA256;
	a->pub.objectAttributes = AK_ATTRS;
	a->pub.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
	a->pub.parameters.eccDetail.scheme.scheme = TPM2_ALG_ECDSA;
	a->pub.parameters.eccDetail.scheme.details.ecdsa.hashAlg = h;
	a->pub.parameters.eccDetail.curveID = id;
	a->pub.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	bn_to(a->priv, OSSL_PKEY_PARAM_EC_PUB_X, a->pub.unique.ecc.x.buffer, n);
	bn_to(a->priv, OSSL_PKEY_PARAM_EC_PUB_Y, a->pub.unique.ecc.y.buffer, n);
	a->pub.unique.ecc.x.size = a->pub.unique.ecc.y.size = (UINT16)n;
}

static void swak_ecc(struct swak *a, TPMI_ALG_HASH h)
{
	swak_ecc_on(a, h, "P-256", TPM2_ECC_NIST_P256, 32);
}

static void swak_rsa(struct swak *a, TPM2_ALG_ID scheme, unsigned int bits)
{
	memset(a, 0, sizeof(*a));
	a->priv = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
	assert_non_null(a->priv);
	a->pub.type = TPM2_ALG_RSA;
	a->pub.nameAlg = TPM2_ALG_SHA256;
	a->pub.objectAttributes = AK_ATTRS;
	a->pub.parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_NULL;
	a->pub.parameters.rsaDetail.scheme.scheme = scheme;
	a->pub.parameters.rsaDetail.scheme.details.anySig.hashAlg =
		TPM2_ALG_SHA256;
	a->pub.parameters.rsaDetail.keyBits = (uint16_t)bits;
	bn_to(a->priv, OSSL_PKEY_PARAM_RSA_N, a->pub.unique.rsa.buffer,
	      (int)bits / 8);
	a->pub.unique.rsa.size = (uint16_t)(bits / 8);
}

static void marshal_pub(const TPMT_PUBLIC *p, struct att_buf *out)
{
	TPM2B_PUBLIC tb = {.publicArea = *p};
	uint8_t tmp[sizeof(TPM2B_PUBLIC)];
	size_t off = 0;

	assert_int_equal(
		Tss2_MU_TPM2B_PUBLIC_Marshal(&tb, tmp, sizeof(tmp), &off),
		TSS2_RC_SUCCESS);
	att_buf_init(out, 0);
	assert_int_equal(att_buf_append(out, tmp, off), ATT_OK);
}

static struct att_tpm_key *parse_pub(const TPMT_PUBLIC *p)
{
	struct att_buf b;
	struct att_tpm_key *k = NULL;

	marshal_pub(p, &b);
	assert_int_equal(att_tpm_key_parse(b.data, b.len, &k), ATT_OK);
	att_buf_release(&b);
	return k;
}

static void swak_free(struct swak *a)
{
	EVP_PKEY_free(a->priv);
}

static const uint8_t nonce[24] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

struct ev {
	TPMS_ATTEST att;
	struct att_pcr_sel sel;
	struct att_pcrs pcrs;
	struct att_buf attest, sig;
};

/* A well-formed quote of sha256:7,10 with nonce and PCR digest. */
static void ev_init(struct ev *e)
{
	uint8_t v[32];

	memset(e, 0, sizeof(*e));
	att_buf_init(&e->attest, 0);
	att_buf_init(&e->sig, 0);
	assert_int_equal(att_pcr_sel_add(&e->sel, ATT_HASH_SHA256,
					 (1u << 7) | (1u << 10)),
			 ATT_OK);
	att_pcrs_clear(&e->pcrs);
	memset(v, 0x11, sizeof(v));
	att_pcrs_set(&e->pcrs, ATT_HASH_SHA256, 7, v, 32);
	memset(v, 0x22, sizeof(v));
	att_pcrs_set(&e->pcrs, ATT_HASH_SHA256, 10, v, 32);
	e->att.magic = TPM2_GENERATED_VALUE;
	e->att.type = TPM2_ST_ATTEST_QUOTE;
	e->att.extraData.size = sizeof(nonce);
	memcpy(e->att.extraData.buffer, nonce, sizeof(nonce));
	e->att.clockInfo.clock = 1000;
	e->att.clockInfo.resetCount = 3;
	e->att.clockInfo.restartCount = 1;
	e->att.clockInfo.safe = 1;
	assert_int_equal(
		att_pcr_sel_to_tpml(&e->sel, &e->att.attested.quote.pcrSelect),
		ATT_OK);
	assert_int_equal(att_pcr_digest(ATT_HASH_SHA256, &e->sel, &e->pcrs,
					e->att.attested.quote.pcrDigest.buffer),
			 ATT_OK);
	e->att.attested.quote.pcrDigest.size = 32;
}

static void ev_marshal(struct ev *e, size_t extra)
{
	uint8_t tmp[sizeof(TPMS_ATTEST)];
	size_t off = 0;

	assert_int_equal(
		Tss2_MU_TPMS_ATTEST_Marshal(&e->att, tmp, sizeof(tmp), &off),
		TSS2_RC_SUCCESS);
	e->attest.len = 0;
	assert_int_equal(att_buf_append(&e->attest, tmp, off), ATT_OK);
	while (extra--)
		assert_int_equal(att_buf_append_u8(&e->attest, 0), ATT_OK);
}

static void put_sig(struct ev *e, const TPMT_SIGNATURE *s)
{
	uint8_t tmp[sizeof(TPMT_SIGNATURE)];
	size_t off = 0;

	assert_int_equal(
		Tss2_MU_TPMT_SIGNATURE_Marshal(s, tmp, sizeof(tmp), &off),
		TSS2_RC_SUCCESS);
	e->sig.len = 0;
	assert_int_equal(att_buf_append(&e->sig, tmp, off), ATT_OK);
}

/* Signs the attest bytes as a TPM would, into a TPMT_SIGNATURE. */
static void sign(struct ev *e, const struct swak *a, TPM2_ALG_ID alg,
		 TPMI_ALG_HASH h, TPMT_SIGNATURE *out)
{
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pctx = NULL;
	const char *md = h == TPM2_ALG_SHA1 ? "SHA1" : "SHA256";
	uint8_t der[600];
	size_t dlen = sizeof(der);

	memset(out, 0, sizeof(*out));
	assert_int_equal(
		EVP_DigestSignInit_ex(m, &pctx, md, NULL, NULL, a->priv, NULL),
		1);
	if (alg == TPM2_ALG_RSAPSS) {
		EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
		EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
	}
	assert_int_equal(
		EVP_DigestSign(m, der, &dlen, e->attest.data, e->attest.len),
		1);
	EVP_MD_CTX_free(m);
	out->sigAlg = alg;
	if (alg == TPM2_ALG_ECDSA) {
		const uint8_t *p = der;
		ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)dlen);
		TPMS_SIGNATURE_ECC *ec = &out->signature.ecdsa;
		int n = (EVP_PKEY_get_bits(a->priv) + 7) / 8;

		assert_non_null(es);
		ec->hash = h;
		assert_int_equal(BN_bn2binpad(ECDSA_SIG_get0_r(es),
					      ec->signatureR.buffer, n),
				 n);
		assert_int_equal(BN_bn2binpad(ECDSA_SIG_get0_s(es),
					      ec->signatureS.buffer, n),
				 n);
		ec->signatureR.size = ec->signatureS.size = (UINT16)n;
		ECDSA_SIG_free(es);
	} else {
		out->signature.rsassa.hash = h;
		memcpy(out->signature.rsassa.sig.buffer, der, dlen);
		out->signature.rsassa.sig.size = (uint16_t)dlen;
	}
	put_sig(e, out);
}

static int verify(struct ev *e, const struct att_tpm_key *k,
		  enum att_quote_reason *r)
{
	return att_quote_verify(k, e->attest.data, e->attest.len, e->sig.data,
				e->sig.len, nonce, sizeof(nonce), &e->sel,
				&e->pcrs, NULL, r);
}

static void ev_release(struct ev *e)
{
	att_buf_release(&e->attest);
	att_buf_release(&e->sig);
}

static void software_quotes_verify(void **state)
{
	TPM2_ALG_ID rsa_alg[2] = {TPM2_ALG_RSASSA, TPM2_ALG_RSAPSS};
	enum att_quote_reason r = ATT_QR_MALFORMED;
	struct att_quote_info info;
	TPMT_SIGNATURE s;
	struct att_tpm_key *k;
	struct swak a;
	struct ev e;

	(void)state;
	swak_ecc(&a, TPM2_ALG_SHA256);
	k = parse_pub(&a.pub);
	ev_init(&e);
	ev_marshal(&e, 0);
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA256, &s);
	assert_int_equal(att_quote_verify(k, e.attest.data, e.attest.len,
					  e.sig.data, e.sig.len, nonce,
					  sizeof(nonce), &e.sel, &e.pcrs, &info,
					  &r),
			 ATT_OK);
	assert_int_equal(r, ATT_QR_OK);
	assert_int_equal(info.clock, 1000);
	assert_int_equal(info.reset_count, 3);
	assert_int_equal(info.restart_count, 1);
	assert_int_equal(info.safe, 1);
	ev_release(&e);
	att_tpm_key_free(k);
	swak_free(&a);

	for (int i = 0; i < 2; i++) {
		swak_rsa(&a, rsa_alg[i], 2048);
		k = parse_pub(&a.pub);
		ev_init(&e);
		ev_marshal(&e, 0);
		sign(&e, &a, rsa_alg[i], TPM2_ALG_SHA256, &s);
		assert_int_equal(verify(&e, k, &r), ATT_OK);
		/* the other RSA scheme is not the AK's */
		sign(&e, &a, rsa_alg[1 - i], TPM2_ALG_SHA256, &s);
		assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
		assert_int_equal(r, ATT_QR_SIG_SCHEME);
		ev_release(&e);
		att_tpm_key_free(k);
		swak_free(&a);
	}
}

static void ecdsa_out_of_range(void **state)
{
	static const uint8_t n256[32] = {
		0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84,
		0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
	};
	enum att_quote_reason r;
	TPMT_SIGNATURE s, t;
	struct att_tpm_key *k;
	struct swak a;
	struct ev e;

	(void)state;
	swak_ecc(&a, TPM2_ALG_SHA256);
	k = parse_pub(&a.pub);
	ev_init(&e);
	ev_marshal(&e, 0);
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA256, &s);
	assert_int_equal(verify(&e, k, &r), ATT_OK);
	/* r = 0 */
	t = s;
	memset(t.signature.ecdsa.signatureR.buffer, 0, 32);
	put_sig(&e, &t);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_RANGE);
	/* empty s */
	t = s;
	t.signature.ecdsa.signatureS.size = 0;
	put_sig(&e, &t);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_RANGE);
	/* s = n, and r = n */
	t = s;
	memcpy(t.signature.ecdsa.signatureS.buffer, n256, 32);
	put_sig(&e, &t);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_RANGE);
	t = s;
	memcpy(t.signature.ecdsa.signatureR.buffer, n256, 32);
	put_sig(&e, &t);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_RANGE);
	/* r + n, as a longer integer */
	t = s;
	t.signature.ecdsa.signatureR.size = 33;
	t.signature.ecdsa.signatureR.buffer[0] = 1;
	memcpy(t.signature.ecdsa.signatureR.buffer + 1,
	       s.signature.ecdsa.signatureR.buffer, 32);
	put_sig(&e, &t);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_RANGE);
	/* a different, in-range value: just a bad signature */
	t = s;
	t.signature.ecdsa.signatureS.buffer[31] ^= 1;
	put_sig(&e, &t);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIGNATURE);
	ev_release(&e);
	att_tpm_key_free(k);
	swak_free(&a);
}

/*
 * P-384 and P-521: a good signature verifies; s = n (the order read here
 * from OpenSSL's group, not from the verifier's) is out of range, and
 * s = n - 1 is in range but a bad signature.
 */
static void ecdsa_range_other_curves(void **state)
{
	static const struct {
		const char *name;
		int nid;
		TPMI_ECC_CURVE id;
		int n;
	} curves[] = {
		{"P-384", NID_secp384r1, TPM2_ECC_NIST_P384, 48},
		{"P-521", NID_secp521r1, TPM2_ECC_NIST_P521, 66},
	};
	enum att_quote_reason r;
	TPMT_SIGNATURE s, t;
	struct att_tpm_key *k;
	EC_GROUP *g;
	BIGNUM *nm1;
	struct swak a;
	struct ev e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(curves) / sizeof(curves[0]); i++) {
		swak_ecc_on(&a, TPM2_ALG_SHA256, curves[i].name, curves[i].id,
			    curves[i].n);
		k = parse_pub(&a.pub);
		ev_init(&e);
		ev_marshal(&e, 0);
		sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA256, &s);
		assert_int_equal(s.signature.ecdsa.signatureS.size,
				 curves[i].n);
		assert_int_equal(verify(&e, k, &r), ATT_OK);
		g = EC_GROUP_new_by_curve_name(curves[i].nid);
		assert_non_null(g);
		t = s;
		assert_int_equal(
			BN_bn2binpad(EC_GROUP_get0_order(g),
				     t.signature.ecdsa.signatureS.buffer,
				     curves[i].n),
			curves[i].n);
		put_sig(&e, &t);
		assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
		assert_int_equal(r, ATT_QR_SIG_RANGE);
		nm1 = BN_dup(EC_GROUP_get0_order(g));
		assert_non_null(nm1);
		assert_int_equal(BN_sub_word(nm1, 1), 1);
		assert_int_equal(
			BN_bn2binpad(nm1, t.signature.ecdsa.signatureS.buffer,
				     curves[i].n),
			curves[i].n);
		put_sig(&e, &t);
		assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
		assert_int_equal(r, ATT_QR_SIGNATURE);
		BN_free(nm1);
		EC_GROUP_free(g);
		ev_release(&e);
		att_tpm_key_free(k);
		swak_free(&a);
	}
}

static void signed_but_wrong(void **state)
{
	enum att_quote_reason r;
	TPMT_SIGNATURE s;
	struct att_tpm_key *k;
	struct swak a;
	struct ev e;

	(void)state;
	swak_ecc(&a, TPM2_ALG_SHA256);
	k = parse_pub(&a.pub);

	ev_init(&e);
	e.att.magic = 0xff544348;
	ev_marshal(&e, 0);
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA256, &s);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_MAGIC);
	ev_release(&e);

	/* a nonce of another length (empty) */
	ev_init(&e);
	e.att.extraData.size = 0;
	ev_marshal(&e, 0);
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA256, &s);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_NONCE);
	ev_release(&e);

	/* the PCR digest has the wrong size */
	ev_init(&e);
	e.att.attested.quote.pcrDigest.size = 20;
	ev_marshal(&e, 0);
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA256, &s);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_PCR_DIGEST);
	ev_release(&e);

	/* a signed attest with a trailing byte, or cut short */
	ev_init(&e);
	ev_marshal(&e, 1);
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA256, &s);
	assert_int_equal(verify(&e, k, &r), ATT_E_TRAILING);
	assert_int_equal(r, ATT_QR_MALFORMED);
	ev_marshal(&e, 0);
	e.attest.len -= 5;
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA256, &s);
	assert_int_equal(verify(&e, k, &r), ATT_E_FORMAT);
	ev_release(&e);

	/* a selection with PCR 24 (no such PCR) */
	ev_init(&e);
	e.att.attested.quote.pcrSelect.pcrSelections[0].sizeofSelect = 4;
	e.att.attested.quote.pcrSelect.pcrSelections[0].pcrSelect[3] = 1;
	ev_marshal(&e, 0);
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA256, &s);
	assert_int_equal(verify(&e, k, &r), ATT_E_UNSUPPORTED);
	ev_release(&e);

	/* a SHA-1 signature from a SHA-256 AK */
	ev_init(&e);
	ev_marshal(&e, 0);
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA1, &s);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_HASH);
	ev_release(&e);
	att_tpm_key_free(k);
	swak_free(&a);

	/* SHA-1 is refused even when the AK says SHA-1 */
	swak_ecc(&a, TPM2_ALG_SHA1);
	k = parse_pub(&a.pub);
	assert_int_equal(att_tpm_ak_check(k, NULL), ATT_E_VERIFY);
	ev_init(&e);
	ev_marshal(&e, 0);
	sign(&e, &a, TPM2_ALG_ECDSA, TPM2_ALG_SHA1, &s);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_HASH);
	ev_release(&e);
	att_tpm_key_free(k);
	swak_free(&a);
}

static void rsa_signature_size(void **state)
{
	enum att_quote_reason r;
	TPMT_SIGNATURE s, t;
	struct att_tpm_key *k;
	struct swak a;
	struct ev e;

	(void)state;
	swak_rsa(&a, TPM2_ALG_RSASSA, 2048);
	k = parse_pub(&a.pub);
	ev_init(&e);
	ev_marshal(&e, 0);
	sign(&e, &a, TPM2_ALG_RSASSA, TPM2_ALG_SHA256, &s);
	t = s;
	t.signature.rsassa.sig.size = 255; /* leading byte dropped */
	memmove(t.signature.rsassa.sig.buffer,
		s.signature.rsassa.sig.buffer + 1, 255);
	put_sig(&e, &t);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_SIZE);
	/* an ECDSA signature offered for an RSA AK */
	t.sigAlg = TPM2_ALG_ECDSA;
	memset(&t.signature, 0, sizeof(t.signature));
	t.signature.ecdsa.hash = TPM2_ALG_SHA256;
	put_sig(&e, &t);
	assert_int_equal(verify(&e, k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_SCHEME);
	ev_release(&e);
	att_tpm_key_free(k);
	swak_free(&a);
}

static void ak_attribute_checks(void **state)
{
	static const struct {
		TPMA_OBJECT clear, set;
		enum att_ak_reason want;
	} cases[] = {
		{TPMA_OBJECT_RESTRICTED, 0, ATT_AK_NOT_RESTRICTED},
		{TPMA_OBJECT_SIGN_ENCRYPT, 0, ATT_AK_NOT_SIGN},
		{0, TPMA_OBJECT_DECRYPT, ATT_AK_DECRYPT},
		{TPMA_OBJECT_FIXEDTPM, 0, ATT_AK_NOT_FIXED_TPM},
		{TPMA_OBJECT_FIXEDPARENT, 0, ATT_AK_NOT_FIXED_PARENT},
		{TPMA_OBJECT_SENSITIVEDATAORIGIN, 0, ATT_AK_NOT_TPM_GENERATED},
	};
	enum att_ak_reason r;
	struct att_tpm_key *k;
	struct swak a;
	TPMT_PUBLIC p;
	size_t i;

	(void)state;
	swak_ecc(&a, TPM2_ALG_SHA256);
	k = parse_pub(&a.pub);
	assert_int_equal(att_tpm_ak_check(k, &r), ATT_OK);
	att_tpm_key_free(k);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = a.pub;
		p.objectAttributes &= ~cases[i].clear;
		p.objectAttributes |= cases[i].set;
		k = parse_pub(&p);
		assert_int_equal(att_tpm_ak_check(k, &r), ATT_E_VERIFY);
		assert_int_equal(r, cases[i].want);
		assert_non_null(att_ak_reason_str(r));
		att_tpm_key_free(k);
	}
	p = a.pub;
	p.parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
	k = parse_pub(&p);
	assert_int_equal(att_tpm_ak_check(k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_AK_SCHEME);
	att_tpm_key_free(k);
	p = a.pub;
	p.nameAlg = TPM2_ALG_SHA1;
	k = parse_pub(&p);
	assert_int_equal(att_tpm_ak_check(k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_AK_WEAK_HASH);
	att_tpm_key_free(k);
	swak_free(&a);

	swak_rsa(&a, TPM2_ALG_RSASSA, 1024);
	k = parse_pub(&a.pub);
	assert_int_equal(att_tpm_ak_check(k, &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_AK_WEAK_KEY);
	att_tpm_key_free(k);
	swak_free(&a);
}

static void public_parsing(void **state)
{
	struct att_tpm_key *k = NULL;
	const uint8_t *name;
	uint8_t want[32];
	struct att_buf b;
	struct swak a;
	TPMT_PUBLIC p;
	size_t nlen;

	(void)state;
	swak_ecc(&a, TPM2_ALG_SHA256);
	marshal_pub(&a.pub, &b);
	assert_int_equal(att_tpm_key_parse(b.data, b.len, &k), ATT_OK);
	/* Name = be16 nameAlg || SHA-256(TPMT_PUBLIC) */
	name = att_tpm_key_name(k, &nlen);
	assert_int_equal(nlen, 34);
	assert_int_equal(name[0], 0x00);
	assert_int_equal(name[1], 0x0b);
	assert_int_equal(
		att_digest(ATT_HASH_SHA256, b.data + 2, b.len - 2, want),
		ATT_OK);
	assert_memory_equal(name + 2, want, 32);
	att_tpm_key_free(k);
	/* trailing byte, truncation, inner size too short */
	assert_int_equal(att_buf_append_u8(&b, 0), ATT_OK);
	assert_int_equal(att_tpm_key_parse(b.data, b.len, &k), ATT_E_TRAILING);
	assert_null(k);
	assert_int_equal(att_tpm_key_parse(b.data, b.len - 2, &k),
			 ATT_E_FORMAT);
	b.data[1]--;
	assert_int_equal(att_tpm_key_parse(b.data, b.len - 1, &k),
			 ATT_E_FORMAT);
	att_buf_release(&b);
	/* a point that is not on the curve */
	p = a.pub;
	p.unique.ecc.y.buffer[31] ^= 1;
	marshal_pub(&p, &b);
	assert_int_equal(att_tpm_key_parse(b.data, b.len, &k), ATT_E_FORMAT);
	att_buf_release(&b);
	/* a curve we do not do, a nameAlg we do not know */
	p = a.pub;
	p.parameters.eccDetail.curveID = TPM2_ECC_BN_P256;
	marshal_pub(&p, &b);
	assert_int_equal(att_tpm_key_parse(b.data, b.len, &k),
			 ATT_E_UNSUPPORTED);
	att_buf_release(&b);
	p = a.pub;
	p.nameAlg = TPM2_ALG_SHA3_256;
	marshal_pub(&p, &b);
	assert_int_not_equal(att_tpm_key_parse(b.data, b.len, &k), ATT_OK);
	att_buf_release(&b);
	swak_free(&a);
}

static void selections(void **state)
{
	struct att_pcr_sel s = {0}, back;
	TPML_PCR_SELECTION t;

	(void)state;
	assert_int_equal(att_pcr_sel_add(&s, ATT_HASH_SHA256, 1u << 24),
			 ATT_E_INVAL);
	assert_int_equal(att_pcr_sel_add(&s, ATT_HASH_MD5, 1), ATT_E_INVAL);
	assert_int_equal(att_pcr_sel_add(&s, ATT_HASH_SHA1, 0x800001), ATT_OK);
	assert_int_equal(att_pcr_sel_add(&s, ATT_HASH_SHA256, 0x10), ATT_OK);
	assert_int_equal(att_pcr_sel_add(&s, ATT_HASH_SHA1, 0x2), ATT_OK);
	assert_int_equal(s.count, 2);
	assert_int_equal(att_pcr_sel_to_tpml(&s, &t), ATT_OK);
	assert_int_equal(t.pcrSelections[0].hash, TPM2_ALG_SHA1);
	assert_int_equal(t.pcrSelections[0].pcrSelect[0], 0x03);
	assert_int_equal(t.pcrSelections[0].pcrSelect[2], 0x80);
	assert_int_equal(att_pcr_sel_from_tpml(&t, &back), ATT_OK);
	assert_true(att_pcr_sel_equal(&s, &back));
	/* repeated bank, unknown bank, a PCR past 23 */
	t.pcrSelections[1].hash = TPM2_ALG_SHA1;
	assert_int_equal(att_pcr_sel_from_tpml(&t, &back), ATT_E_FORMAT);
	t.pcrSelections[1].hash = 0x0099;
	assert_int_equal(att_pcr_sel_from_tpml(&t, &back), ATT_E_UNSUPPORTED);
	t.pcrSelections[1].hash = TPM2_ALG_SHA256;
	t.pcrSelections[1].sizeofSelect = 4;
	t.pcrSelections[1].pcrSelect[3] = 0x01;
	assert_int_equal(att_pcr_sel_from_tpml(&t, &back), ATT_E_UNSUPPORTED);
	/* a zero fourth byte is only a longer bitmap */
	t.pcrSelections[1].pcrSelect[3] = 0;
	assert_int_equal(att_pcr_sel_from_tpml(&t, &back), ATT_OK);
	assert_true(att_pcr_sel_equal(&s, &back));
}

/* Raw bytes: sizes past the buffer, oversized lists, trailing bytes. */
static void raw_unmarshal_errors(void **state)
{
	TPMT_SIGNATURE sig;
	TPMS_ATTEST att;
	struct ev e;
	size_t nonce_off;

	(void)state;
	ev_init(&e);
	ev_marshal(&e, 0);
	assert_int_equal(
		att_tpm_attest_parse(e.attest.data, e.attest.len, &att),
		ATT_OK);
	/* magic(4) type(2) qualifiedSigner(2+0) extraData size at 8 */
	nonce_off = 8;
	assert_int_equal(e.attest.data[nonce_off + 1], sizeof(nonce));
	e.attest.data[nonce_off] = 0x7f; /* past the end and the TPM2B */
	assert_int_equal(
		att_tpm_attest_parse(e.attest.data, e.attest.len, &att),
		ATT_E_FORMAT);
	e.attest.data[nonce_off] = 0;
	e.attest.data[nonce_off + 1] = 0xff; /* past the end */
	assert_int_equal(
		att_tpm_attest_parse(e.attest.data, e.attest.len, &att),
		ATT_E_FORMAT);
	ev_release(&e);

	/* a TPML_PCR_SELECTION with more banks than a TPM has */
	ev_init(&e);
	e.att.attested.quote.pcrSelect.count = 2;
	ev_marshal(&e, 0);
	{
		/* count sits after magic, type, 2 TPM2Bs, clock (17), fw (8) */
		size_t off = 4 + 2 + 2 + 2 + sizeof(nonce) + 17 + 8;

		assert_int_equal(e.attest.data[off + 3], 2);
		e.attest.data[off + 3] = 17;
		assert_int_equal(
			att_tpm_attest_parse(e.attest.data, e.attest.len, &att),
			ATT_E_FORMAT);
	}
	ev_release(&e);

	/* an unknown signature algorithm, and an empty input */
	{
		const uint8_t bad[] = {0x00, 0x99, 0x00, 0x0b, 0x00, 0x00};

		assert_int_equal(att_tpm_sig_parse(bad, sizeof(bad), &sig),
				 ATT_E_FORMAT);
		assert_int_equal(att_tpm_sig_parse(bad, 0, &sig), ATT_E_FORMAT);
		assert_int_equal(att_tpm_attest_parse(bad, 0, &att),
				 ATT_E_FORMAT);
	}
}

static void clock_checks(void **state)
{
	struct att_quote_info a = {
		.clock = 10, .reset_count = 2, .restart_count = 1, .safe = 1};
	struct att_quote_info b = a;
	enum att_quote_reason r;
	int reboot;

	(void)state;
	/* the same clockInfo again: a clone, or a replay */
	assert_int_equal(att_quote_check_clock(&a, &b, &reboot, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_CLOCK_BACKWARDS);
	b.clock = 11;
	assert_int_equal(att_quote_check_clock(&a, &b, &reboot, &r), ATT_OK);
	assert_int_equal(reboot, 0);
	b.safe = 0;
	assert_int_equal(att_quote_check_clock(&a, &b, &reboot, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_CLOCK_UNSAFE);
	b = a;
	b.restart_count = 0;
	b.clock = 100; /* what went backwards is the count, not the clock */
	assert_int_equal(att_quote_check_clock(&a, &b, &reboot, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_RESTART_BACKWARDS);
	b = a;
	b.reset_count = 1;
	b.restart_count = 5;
	b.clock = 100;
	assert_int_equal(att_quote_check_clock(&a, &b, &reboot, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_RESET_BACKWARDS);
	b = a;
	b.clock = 9;
	assert_int_equal(att_quote_check_clock(&a, &b, &reboot, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_CLOCK_BACKWARDS);
	/* a later restart may start from any clock not before */
	b = a;
	b.restart_count = 2;
	b.clock = 10;
	assert_int_equal(att_quote_check_clock(&a, &b, &reboot, &r), ATT_OK);
	assert_int_equal(reboot, 0);
	b = a;
	b.reset_count = 3;
	b.restart_count = 0;
	b.clock = 1;
	assert_int_equal(att_quote_check_clock(&a, &b, &reboot, &r), ATT_OK);
	assert_int_equal(reboot, 1);
}

/* The clock against the wall time between two quotes. */
static void clock_behind_wall(void **state)
{
	uint64_t min;

	(void)state;
	/* 100 s of wall time, 5% drift, 2 s slack: at least 93 s */
	assert_int_equal(att_quote_clock_behind(1000, 500, 1000 + 93000, 600, 5,
						2000, &min),
			 0);
	assert_int_equal(min, 93000);
	assert_int_equal(att_quote_clock_behind(1000, 500, 1000 + 92999, 600, 5,
						2000, &min),
			 1);
	/* a clone started 60 s after the copy, seen 100 s later */
	assert_int_equal(att_quote_clock_behind(50000, 500, 50000 + 40000, 600,
						5, 2000, &min),
			 1);
	/* challenge before the last evidence: nothing to say */
	assert_int_equal(
		att_quote_clock_behind(1000, 600, 1001, 600, 5, 2000, &min), 0);
	/* short intervals are covered by the slack */
	assert_int_equal(
		att_quote_clock_behind(1000, 600, 1001, 602, 5, 2000, &min), 0);
	/* no drift allowance, no slack: every millisecond counts */
	assert_int_equal(att_quote_clock_behind(0, 0, 9999, 10, 0, 0, &min), 1);
	assert_int_equal(att_quote_clock_behind(0, 0, 10000, 10, 0, 0, &min),
			 0);
}

/* KDFa is SP 800-108 counter mode: check against OpenSSL's KBKDF. */
static void kdfa_matches_kbkdf(void **state)
{
	uint8_t key[32], u[34], ours[48], ref[48];
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "KBKDF", NULL);
	EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
	OSSL_PARAM p[6];
	char label[] = "STORAGE";

	(void)state;
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(u); i++)
		u[i] = (uint8_t)(0x80 + i);
	assert_int_equal(att_kdfa(ATT_HASH_SHA256, key, sizeof(key), label, u,
				  sizeof(u), NULL, 0, 384, ours),
			 ATT_OK);
	p[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MAC, "HMAC", 0);
	p[1] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256",
						0);
	p[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, key,
						 sizeof(key));
	p[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, label,
						 strlen(label));
	p[4] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, u,
						 sizeof(u));
	p[5] = OSSL_PARAM_construct_end();
	assert_non_null(ctx);
	assert_int_equal(EVP_KDF_derive(ctx, ref, sizeof(ref), p), 1);
	assert_memory_equal(ours, ref, sizeof(ref));
	EVP_KDF_CTX_free(ctx);
	EVP_KDF_free(kdf);
}

/* KDFe is the SP 800-56A single-step KDF: check against OpenSSL's SSKDF. */
static void kdfe_matches_sskdf(void **state)
{
	uint8_t z[32], u[32], v[32], info[9 + 64], ours[40], ref[40];
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "SSKDF", NULL);
	EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
	OSSL_PARAM p[4];

	(void)state;
	for (size_t i = 0; i < 32; i++) {
		z[i] = (uint8_t)(3 * i);
		u[i] = (uint8_t)(5 * i);
		v[i] = (uint8_t)(7 * i);
	}
	assert_int_equal(att_kdfe(ATT_HASH_SHA256, z, sizeof(z), "IDENTITY", u,
				  sizeof(u), v, sizeof(v), 320, ours),
			 ATT_OK);
	memcpy(info, "IDENTITY", 9); /* with its NUL */
	memcpy(info + 9, u, 32);
	memcpy(info + 41, v, 32);
	p[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256",
						0);
	p[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, z,
						 sizeof(z));
	p[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info,
						 sizeof(info));
	p[3] = OSSL_PARAM_construct_end();
	assert_non_null(ctx);
	assert_int_equal(EVP_KDF_derive(ctx, ref, sizeof(ref), p), 1);
	assert_memory_equal(ours, ref, sizeof(ref));
	EVP_KDF_CTX_free(ctx);
	EVP_KDF_free(kdf);
}

static void reasons_have_text(void **state)
{
	(void)state;
	for (int r = ATT_QR_OK; r <= ATT_QR_RESTART_BACKWARDS; r++)
		assert_string_not_equal(
			att_quote_reason_str((enum att_quote_reason)r),
			"unknown quote reason");
	for (int r = ATT_AK_OK; r <= ATT_AK_WEAK_KEY; r++)
		assert_string_not_equal(
			att_ak_reason_str((enum att_ak_reason)r),
			"unknown AK reason");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(software_quotes_verify),
		cmocka_unit_test(ecdsa_out_of_range),
		cmocka_unit_test(ecdsa_range_other_curves),
		cmocka_unit_test(signed_but_wrong),
		cmocka_unit_test(rsa_signature_size),
		cmocka_unit_test(ak_attribute_checks),
		cmocka_unit_test(public_parsing),
		cmocka_unit_test(selections),
		cmocka_unit_test(raw_unmarshal_errors),
		cmocka_unit_test(clock_checks),
		cmocka_unit_test(clock_behind_wall),
		cmocka_unit_test(kdfa_matches_kbkdf),
		cmocka_unit_test(kdfe_matches_sskdf),
		cmocka_unit_test(reasons_have_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
