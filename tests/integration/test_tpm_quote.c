// SPDX-License-Identifier: Apache-2.0
/*
 * test_tpm_quote.c - quotes made by a real swtpm through the agent's TPM
 * layer, verified by libattest: good quotes (RSASSA, RSAPSS, ECDSA) pass,
 * and each kind of bad evidence is rejected with its own reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/rand.h>
#include <tss2/tss2_mu.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/pcrs.h"
#include "attest/tpm_esys.h"
#include "attest/tpm_key.h"
#include "attest/tpm_quote.h"
#include "swtpm.h"

#define NAK 3

struct fx {
	struct att_swtpm *sw;
	struct att_esys *tpm;
	struct att_buf blob[NAK];
	struct att_tpm_key *ak[NAK];
};

static struct fx F;

static const enum att_esys_ak_type ak_types[NAK] = {
	ATT_ESYS_AK_RSA_RSASSA,
	ATT_ESYS_AK_ECC_ECDSA,
	ATT_ESYS_AK_RSA_RSAPSS,
};

static int use_ak(int i)
{
	return att_esys_ak_load(F.tpm, ATT_ESYS_KEY_RSA, F.blob[i].data,
				F.blob[i].len);
}

static int setup(void **state)
{
	struct att_buf pub;
	uint8_t d[32];
	int i;

	(void)state;
	/* A test that cannot start swtpm fails: it never skips. */
	if (att_swtpm_start(&F.sw)) {
		fprintf(stderr, "FATAL: cannot start swtpm\n");
		return -1;
	}
	if (att_esys_new(att_swtpm_tcti(F.sw), &F.tpm))
		return -1;
	att_buf_init(&pub, 0);
	for (i = 0; i < NAK; i++) {
		att_buf_init(&F.blob[i], 0);
		if (att_esys_ak_create(F.tpm, ak_types[i], ATT_ESYS_KEY_RSA,
				       &F.blob[i]) ||
		    att_esys_ak_public(F.tpm, &pub) ||
		    att_tpm_key_parse(pub.data, pub.len, &F.ak[i]))
			return -1;
	}
	att_buf_release(&pub);
	/* something non-trivial in the quoted PCRs */
	memset(d, 0x5a, sizeof(d));
	if (att_esys_pcr_extend(F.tpm, 16, ATT_HASH_SHA256, d) ||
	    att_esys_pcr_extend(F.tpm, 16, ATT_HASH_SHA1, d) ||
	    att_esys_pcr_extend(F.tpm, 10, ATT_HASH_SHA256, d))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < NAK; i++) {
		att_tpm_key_free(F.ak[i]);
		att_buf_release(&F.blob[i]);
	}
	att_esys_free(F.tpm);
	att_swtpm_free(F.sw);
	return 0;
}

struct quote {
	uint8_t nonce[32];
	struct att_pcr_sel sel;
	struct att_pcrs pcrs;
	struct att_buf attest, sig;
};

static void quote_init(struct quote *q)
{
	memset(q, 0, sizeof(*q));
	assert_int_equal(RAND_bytes(q->nonce, sizeof(q->nonce)), 1);
	assert_int_equal(att_pcr_sel_add(&q->sel, ATT_HASH_SHA256,
					 (1u << 0) | (1u << 10) | (1u << 16)),
			 ATT_OK);
	assert_int_equal(att_pcr_sel_add(&q->sel, ATT_HASH_SHA1, 1u << 16),
			 ATT_OK);
	att_pcrs_clear(&q->pcrs);
	att_buf_init(&q->attest, 0);
	att_buf_init(&q->sig, 0);
}

static void quote_make(struct quote *q, int ak)
{
	quote_init(q);
	assert_int_equal(use_ak(ak), ATT_OK);
	assert_int_equal(att_esys_quote(F.tpm, q->nonce, sizeof(q->nonce),
					&q->sel, &q->attest, &q->sig),
			 ATT_OK);
	assert_int_equal(att_esys_pcr_read(F.tpm, &q->sel, &q->pcrs), ATT_OK);
}

static void quote_release(struct quote *q)
{
	att_buf_release(&q->attest);
	att_buf_release(&q->sig);
}

static int verify(const struct quote *q, int ak, enum att_quote_reason *r,
		  struct att_quote_info *info)
{
	return att_quote_verify(F.ak[ak], q->attest.data, q->attest.len,
				q->sig.data, q->sig.len, q->nonce,
				sizeof(q->nonce), &q->sel, &q->pcrs, info, r);
}

static void good_quote(int ak)
{
	struct att_quote_info info;
	enum att_quote_reason r = ATT_QR_MALFORMED;
	struct quote q;
	int reboot = -1;

	quote_make(&q, ak);
	assert_int_equal(verify(&q, ak, &r, &info), ATT_OK);
	assert_int_equal(r, ATT_QR_OK);
	assert_int_equal(info.safe, 1);
	assert_int_equal(info.sig_hash, ATT_HASH_SHA256);
	assert_true(att_pcr_sel_equal(&info.sel, &q.sel));
	assert_int_equal(att_quote_check_clock(NULL, &info, &reboot, &r),
			 ATT_OK);
	assert_int_equal(reboot, 0);
	quote_release(&q);
}

static void quote_rsassa_verifies(void **state)
{
	(void)state;
	good_quote(0);
}

static void quote_ecdsa_verifies(void **state)
{
	(void)state;
	good_quote(1);
}

static void quote_rsapss_verifies(void **state)
{
	(void)state;
	good_quote(2);
}

/* A bank the TPM does not have allocated (swtpm: sha1 and sha256 only). */
static void unallocated_bank_not_found(void **state)
{
	struct att_pcr_sel sel = {0};
	struct att_pcrs pcrs;

	(void)state;
	att_pcrs_clear(&pcrs);
	assert_int_equal(att_pcr_sel_add(&sel, ATT_HASH_SHA384, 1u << 10),
			 ATT_OK);
	assert_int_equal(att_esys_pcr_read(F.tpm, &sel, &pcrs),
			 ATT_E_NOT_FOUND);
	/* all 24 PCRs of a bank take several TPM2_PCR_Read calls */
	memset(&sel, 0, sizeof(sel));
	assert_int_equal(att_pcr_sel_add(&sel, ATT_HASH_SHA256, 0xffffff),
			 ATT_OK);
	assert_int_equal(att_esys_pcr_read(F.tpm, &sel, &pcrs), ATT_OK);
	for (unsigned int i = 0; i < 24; i++)
		assert_non_null(att_pcrs_get(&pcrs, ATT_HASH_SHA256, i));
	assert_null(att_pcrs_get(&pcrs, ATT_HASH_SHA1, 0));
}

static void wrong_nonce_rejected(void **state)
{
	enum att_quote_reason r;
	struct quote q;

	(void)state;
	quote_make(&q, 0);
	q.nonce[5] ^= 1;
	assert_int_equal(verify(&q, 0, &r, NULL), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_NONCE);
	quote_release(&q);
}

static void flipped_attest_byte_rejected(void **state)
{
	enum att_quote_reason r;
	struct quote q;
	size_t i;

	(void)state;
	for (int ak = 0; ak < NAK; ak++) {
		quote_make(&q, ak);
		/* every position: the signature check comes first */
		for (i = 0; i < q.attest.len; i++) {
			q.attest.data[i] ^= 0x01;
			assert_int_equal(verify(&q, ak, &r, NULL),
					 ATT_E_VERIFY);
			assert_int_equal(r, ATT_QR_SIGNATURE);
			q.attest.data[i] ^= 0x01;
		}
		assert_int_equal(verify(&q, ak, &r, NULL), ATT_OK);
		quote_release(&q);
	}
}

static void other_ak_rejected(void **state)
{
	struct att_buf pub;
	struct att_tpm_key *other;
	enum att_quote_reason r;
	struct quote q;

	(void)state;
	/* a second RSASSA AK of the same TPM */
	att_buf_init(&pub, 0);
	assert_int_equal(att_esys_ak_create(F.tpm, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA, NULL),
			 ATT_OK);
	assert_int_equal(att_esys_ak_public(F.tpm, &pub), ATT_OK);
	assert_int_equal(att_tpm_key_parse(pub.data, pub.len, &other), ATT_OK);
	quote_make(&q, 0);
	assert_int_equal(att_quote_verify(other, q.attest.data, q.attest.len,
					  q.sig.data, q.sig.len, q.nonce,
					  sizeof(q.nonce), &q.sel, &q.pcrs,
					  NULL, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIGNATURE);
	/* an ECDSA quote checked with an RSASSA AK: scheme mismatch */
	quote_release(&q);
	quote_make(&q, 1);
	assert_int_equal(verify(&q, 0, &r, NULL), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_SCHEME);
	/* an RSAPSS quote checked with an RSASSA AK */
	quote_release(&q);
	quote_make(&q, 2);
	assert_int_equal(verify(&q, 0, &r, NULL), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_SCHEME);
	quote_release(&q);
	att_tpm_key_free(other);
	att_buf_release(&pub);
}

static void wrong_pcr_values_rejected(void **state)
{
	enum att_quote_reason r;
	struct quote q;
	uint8_t v[32];

	(void)state;
	quote_make(&q, 1);
	memcpy(v, att_pcrs_get(&q.pcrs, ATT_HASH_SHA256, 10), 32);
	v[31] ^= 0x80;
	assert_int_equal(att_pcrs_set(&q.pcrs, ATT_HASH_SHA256, 10, v, 32),
			 ATT_OK);
	assert_int_equal(verify(&q, 1, &r, NULL), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_PCR_DIGEST);
	/* a value that was not supplied at all */
	att_pcrs_clear(&q.pcrs);
	assert_int_equal(verify(&q, 1, &r, NULL), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_PCR_MISSING);
	quote_release(&q);
}

static void other_selection_rejected(void **state)
{
	enum att_quote_reason r;
	struct att_pcr_sel asked;
	struct quote q;

	(void)state;
	quote_make(&q, 0);
	asked = q.sel;
	asked.b[0].mask |= 1u << 11;
	assert_int_equal(att_quote_verify(F.ak[0], q.attest.data, q.attest.len,
					  q.sig.data, q.sig.len, q.nonce,
					  sizeof(q.nonce), &asked, &q.pcrs,
					  NULL, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SELECTION);
	/* same PCRs, banks in another order */
	memset(&asked, 0, sizeof(asked));
	att_pcr_sel_add(&asked, ATT_HASH_SHA1, 1u << 16);
	att_pcr_sel_add(&asked, ATT_HASH_SHA256,
			(1u << 0) | (1u << 10) | (1u << 16));
	assert_int_equal(att_quote_verify(F.ak[0], q.attest.data, q.attest.len,
					  q.sig.data, q.sig.len, q.nonce,
					  sizeof(q.nonce), &asked, &q.pcrs,
					  NULL, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SELECTION);
	quote_release(&q);
}

/* TPM2_Certify by the AK: a genuine TPM attest that is not a quote. */
static void non_quote_type_rejected(void **state)
{
	ESYS_CONTEXT *e = att_esys_context(F.tpm);
	TPMT_SIG_SCHEME scheme = {.scheme = TPM2_ALG_NULL};
	TPM2B_ATTEST *att = NULL;
	TPMT_SIGNATURE *sig = NULL;
	TPM2B_DATA qual;
	enum att_quote_reason r;
	struct quote q;
	uint8_t sbuf[sizeof(TPMT_SIGNATURE)];
	size_t off = 0;
	ESYS_TR ak;

	(void)state;
	quote_init(&q);
	assert_int_equal(use_ak(0), ATT_OK);
	ak = att_esys_ak_handle(F.tpm);
	qual.size = sizeof(q.nonce);
	memcpy(qual.buffer, q.nonce, sizeof(q.nonce));
	assert_int_equal(Esys_Certify(e, ak, ak, ESYS_TR_PASSWORD,
				      ESYS_TR_PASSWORD, ESYS_TR_NONE, &qual,
				      &scheme, &att, &sig),
			 TSS2_RC_SUCCESS);
	assert_int_equal(
		Tss2_MU_TPMT_SIGNATURE_Marshal(sig, sbuf, sizeof(sbuf), &off),
		TSS2_RC_SUCCESS);
	assert_int_equal(att_quote_verify(F.ak[0], att->attestationData,
					  att->size, sbuf, off, q.nonce,
					  sizeof(q.nonce), &q.sel, &q.pcrs,
					  NULL, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_TYPE);
	Esys_Free(att);
	Esys_Free(sig);
	quote_release(&q);
}

static void malformed_rejected(void **state)
{
	enum att_quote_reason r;
	struct quote q;

	(void)state;
	quote_make(&q, 0);
	/* trailing byte after the signature */
	assert_int_equal(att_buf_append_u8(&q.sig, 0), ATT_OK);
	assert_int_equal(verify(&q, 0, &r, NULL), ATT_E_TRAILING);
	assert_int_equal(r, ATT_QR_MALFORMED);
	q.sig.len--;
	/* truncated signature */
	q.sig.len -= 3;
	assert_int_equal(verify(&q, 0, &r, NULL), ATT_E_FORMAT);
	q.sig.len += 3;
	/* RSA signature one byte short, sizes patched consistently */
	/* u16 sigAlg, u16 hash, u16 size 0x0100 -> 0x00ff */
	assert_int_equal(q.sig.data[4], 0x01);
	q.sig.data[4] = 0x00;
	q.sig.data[5] = 0xff;
	q.sig.len--;
	assert_int_equal(verify(&q, 0, &r, NULL), ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_SIG_SIZE);
	quote_release(&q);
}

/*
 * The AK is created once at its persistent handle and survives a reboot
 * (reloaded, same Name); resetCount moves on and the clock checks see it.
 */
static void persistent_ak_after_reboot(void **state)
{
	struct att_quote_info before, after;
	enum att_quote_reason r;
	struct att_tpm_key *ak, *ak2;
	struct att_buf pub;
	const uint8_t *n1, *n2;
	size_t l1, l2;
	struct quote q;
	int reboot = 0, created = -1;

	(void)state;
	att_buf_init(&pub, 0);
	assert_int_equal(att_esys_ak_ensure(
				 F.tpm, ATT_ESYS_AK_ECC_ECDSA, ATT_ESYS_KEY_RSA,
				 ATT_ESYS_AK_HANDLE_DEFAULT, &created),
			 ATT_OK);
	assert_int_equal(created, 1);
	assert_int_equal(att_esys_ak_public(F.tpm, &pub), ATT_OK);
	assert_int_equal(att_tpm_key_parse(pub.data, pub.len, &ak), ATT_OK);
	assert_int_equal(att_tpm_ak_check(ak, NULL), ATT_OK);
	/* the second time it is loaded, not made again */
	assert_int_equal(att_esys_ak_ensure(
				 F.tpm, ATT_ESYS_AK_ECC_ECDSA, ATT_ESYS_KEY_RSA,
				 ATT_ESYS_AK_HANDLE_DEFAULT, &created),
			 ATT_OK);
	assert_int_equal(created, 0);
	/* an AK of another type is not silently replaced */
	assert_int_equal(att_esys_ak_ensure(F.tpm, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA,
					    ATT_ESYS_AK_HANDLE_DEFAULT,
					    &created),
			 ATT_E_EXISTS);
	assert_int_equal(
		att_esys_ak_load_persistent(F.tpm, ATT_ESYS_AK_HANDLE_DEFAULT),
		ATT_OK);
	assert_int_equal(att_esys_ak_persist(F.tpm, ATT_ESYS_AK_HANDLE_DEFAULT),
			 ATT_E_EXISTS);
	quote_init(&q);
	assert_int_equal(att_esys_quote(F.tpm, q.nonce, sizeof(q.nonce), &q.sel,
					&q.attest, &q.sig),
			 ATT_OK);
	assert_int_equal(att_esys_pcr_read(F.tpm, &q.sel, &q.pcrs), ATT_OK);
	assert_int_equal(att_quote_verify(ak, q.attest.data, q.attest.len,
					  q.sig.data, q.sig.len, q.nonce,
					  sizeof(q.nonce), &q.sel, &q.pcrs,
					  &before, &r),
			 ATT_OK);
	quote_release(&q);

	/* an orderly reboot: the OS sends TPM2_Shutdown first */
	assert_int_equal(Esys_Shutdown(att_esys_context(F.tpm), ESYS_TR_NONE,
				       ESYS_TR_NONE, ESYS_TR_NONE,
				       TPM2_SU_CLEAR),
			 TSS2_RC_SUCCESS);
	att_esys_free(F.tpm);
	F.tpm = NULL;
	assert_int_equal(att_swtpm_restart(F.sw), ATT_OK);
	assert_int_equal(att_esys_new(att_swtpm_tcti(F.sw), &F.tpm), ATT_OK);
	assert_int_equal(att_esys_ak_ensure(
				 F.tpm, ATT_ESYS_AK_ECC_ECDSA, ATT_ESYS_KEY_RSA,
				 ATT_ESYS_AK_HANDLE_DEFAULT, &created),
			 ATT_OK);
	assert_int_equal(created, 0);
	assert_int_equal(att_esys_ak_public(F.tpm, &pub), ATT_OK);
	assert_int_equal(att_tpm_key_parse(pub.data, pub.len, &ak2), ATT_OK);
	n1 = att_tpm_key_name(ak, &l1);
	n2 = att_tpm_key_name(ak2, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(n1, n2, l1);

	quote_init(&q);
	assert_int_equal(att_esys_quote(F.tpm, q.nonce, sizeof(q.nonce), &q.sel,
					&q.attest, &q.sig),
			 ATT_OK);
	assert_int_equal(att_esys_pcr_read(F.tpm, &q.sel, &q.pcrs), ATT_OK);
	r = ATT_QR_OK;
	if (att_quote_verify(ak, q.attest.data, q.attest.len, q.sig.data,
			     q.sig.len, q.nonce, sizeof(q.nonce), &q.sel,
			     &q.pcrs, &after, &r))
		fail_msg("after reboot: %s", att_quote_reason_str(r));
	assert_true(after.reset_count > before.reset_count);
	if (att_quote_check_clock(&before, &after, &reboot, &r))
		fail_msg("clock after reboot: %s", att_quote_reason_str(r));
	assert_int_equal(reboot, 1);
	/* the old quote after the new one: the counter went back */
	assert_int_equal(att_quote_check_clock(&after, &before, &reboot, &r),
			 ATT_E_VERIFY);
	assert_int_equal(r, ATT_QR_RESET_BACKWARDS);
	quote_release(&q);
	/* the saved-context form reloads after the reboot too */
	quote_make(&q, 0);
	assert_int_equal(verify(&q, 0, &r, NULL), ATT_OK);
	quote_release(&q);
	assert_int_equal(att_esys_evict(F.tpm, ATT_ESYS_AK_HANDLE_DEFAULT),
			 ATT_OK);
	assert_int_equal(
		att_esys_ak_load_persistent(F.tpm, ATT_ESYS_AK_HANDLE_DEFAULT),
		ATT_E_NOT_FOUND);
	att_tpm_key_free(ak);
	att_tpm_key_free(ak2);
	att_buf_release(&pub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quote_rsassa_verifies),
		cmocka_unit_test(quote_ecdsa_verifies),
		cmocka_unit_test(quote_rsapss_verifies),
		cmocka_unit_test(unallocated_bank_not_found),
		cmocka_unit_test(wrong_nonce_rejected),
		cmocka_unit_test(flipped_attest_byte_rejected),
		cmocka_unit_test(other_ak_rejected),
		cmocka_unit_test(wrong_pcr_values_rejected),
		cmocka_unit_test(other_selection_rejected),
		cmocka_unit_test(non_quote_type_rejected),
		cmocka_unit_test(malformed_rejected),
		cmocka_unit_test(persistent_ak_after_reboot),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
