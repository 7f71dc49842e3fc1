// SPDX-License-Identifier: Apache-2.0
/*
 * test_tpm_cred.c - MakeCredential in libattest, TPM2_ActivateCredential in
 * a real swtpm (through the agent's TPM layer), for RSA and ECC EKs; a
 * credential made for another EK or another AK name does not activate.
 * Also: the AK Name we compute is the TPM's, and the AK checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/rand.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/tpm_cred.h"
#include "attest/tpm_esys.h"
#include "attest/tpm_key.h"
#include "swtpm.h"

struct fx {
	struct att_swtpm *sw;
	struct att_esys *tpm;
	struct att_tpm_key *ek[2]; /* by enum att_esys_key_alg */
	struct att_tpm_key *ak[2]; /* RSA AK (parent RSA EK), ECC AK (ECC EK) */
	struct att_buf blob[2];
};

static struct fx F;

static int parse_buf(const struct att_buf *b, struct att_tpm_key **k)
{
	return att_tpm_key_parse(b->data, b->len, k);
}

static int setup(void **state)
{
	struct att_buf pub;
	int i;

	(void)state;
	if (att_swtpm_start(&F.sw)) {
		fprintf(stderr, "FATAL: cannot start swtpm\n");
		return -1;
	}
	if (att_esys_new(att_swtpm_tcti(F.sw), &F.tpm))
		return -1;
	att_buf_init(&pub, 0);
	for (i = 0; i < 2; i++) {
		att_buf_init(&F.blob[i], 0);
		if (att_esys_ek_public(F.tpm, (enum att_esys_key_alg)i, &pub) ||
		    parse_buf(&pub, &F.ek[i]))
			return -1;
		if (att_esys_ak_create(F.tpm,
				       i ? ATT_ESYS_AK_ECC_ECDSA
					 : ATT_ESYS_AK_RSA_RSASSA,
				       (enum att_esys_key_alg)i, &F.blob[i]) ||
		    att_esys_ak_public(F.tpm, &pub) ||
		    parse_buf(&pub, &F.ak[i]))
			return -1;
	}
	att_buf_release(&pub);
	return 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		att_tpm_key_free(F.ek[i]);
		att_tpm_key_free(F.ak[i]);
		att_buf_release(&F.blob[i]);
	}
	att_esys_free(F.tpm);
	att_swtpm_free(F.sw);
	return 0;
}

static void load_ak(int i)
{
	assert_int_equal(att_esys_ak_load(F.tpm, (enum att_esys_key_alg)i,
					  F.blob[i].data, F.blob[i].len),
			 ATT_OK);
}

static void ak_name_is_the_tpms(void **state)
{
	TPM2B_NAME *tn = NULL;
	const uint8_t *n;
	size_t nlen;

	(void)state;
	for (int i = 0; i < 2; i++) {
		load_ak(i);
		assert_int_equal(Esys_TR_GetName(att_esys_context(F.tpm),
						 att_esys_ak_handle(F.tpm),
						 &tn),
				 TSS2_RC_SUCCESS);
		n = att_tpm_key_name(F.ak[i], &nlen);
		assert_int_equal(nlen, tn->size);
		assert_memory_equal(n, tn->name, nlen);
		Esys_Free(tn);
	}
}

static void ak_checks(void **state)
{
	enum att_ak_reason r = ATT_AK_WEAK_KEY;

	(void)state;
	assert_int_equal(att_tpm_ak_check(F.ak[0], &r), ATT_OK);
	assert_int_equal(r, ATT_AK_OK);
	assert_int_equal(att_tpm_ak_check(F.ak[1], &r), ATT_OK);
	/* an EK is a decryption key, not an AK */
	assert_int_equal(att_tpm_ak_check(F.ek[0], &r), ATT_E_VERIFY);
	assert_int_equal(r, ATT_AK_NOT_SIGN);
}

static void activate(int ek, int ak)
{
	uint8_t secret[32], got[64];
	struct att_cred cred;
	const uint8_t *name;
	size_t nlen, glen;

	assert_int_equal(RAND_bytes(secret, sizeof(secret)), 1);
	name = att_tpm_key_name(F.ak[ak], &nlen);
	assert_int_equal(att_make_credential(F.ek[ek], name, nlen, secret,
					     sizeof(secret), &cred),
			 ATT_OK);
	load_ak(ak);
	assert_int_equal(att_esys_activate(F.tpm, (enum att_esys_key_alg)ek,
					   &cred, got, sizeof(got), &glen),
			 ATT_OK);
	assert_int_equal(glen, sizeof(secret));
	assert_memory_equal(got, secret, sizeof(secret));
}

static void rsa_ek_activates(void **state)
{
	(void)state;
	activate(ATT_ESYS_KEY_RSA, 0);
	activate(ATT_ESYS_KEY_RSA, 1); /* any AK of this TPM */
}

static void ecc_ek_activates(void **state)
{
	(void)state;
	activate(ATT_ESYS_KEY_ECC, 1);
	activate(ATT_ESYS_KEY_ECC, 0);
}

static void must_not_activate(int ek_made_for, int ak_named, int ek_used,
			      int ak_loaded, int tamper)
{
	uint8_t secret[32], got[64];
	struct att_cred cred;
	const uint8_t *name;
	size_t nlen, glen = 99;

	assert_int_equal(RAND_bytes(secret, sizeof(secret)), 1);
	name = att_tpm_key_name(F.ak[ak_named], &nlen);
	assert_int_equal(att_make_credential(F.ek[ek_made_for], name, nlen,
					     secret, sizeof(secret), &cred),
			 ATT_OK);
	if (tamper == 1)
		cred.blob.credential[5] ^= 1; /* in the outer HMAC */
	if (tamper == 2)
		cred.blob.credential[cred.blob.size - 1] ^= 1; /* encIdentity */
	if (tamper == 3)
		cred.secret.secret[cred.secret.size / 2] ^= 1;
	load_ak(ak_loaded);
	assert_int_equal(att_esys_activate(F.tpm,
					   (enum att_esys_key_alg)ek_used,
					   &cred, got, sizeof(got), &glen),
			 ATT_E_TPM);
	assert_int_equal(glen, 0);
}

static void other_ak_name_fails(void **state)
{
	(void)state;
	/* made for AK 1's name, activated with AK 0 loaded */
	must_not_activate(ATT_ESYS_KEY_RSA, 1, ATT_ESYS_KEY_RSA, 0, 0);
	must_not_activate(ATT_ESYS_KEY_ECC, 0, ATT_ESYS_KEY_ECC, 1, 0);
}

static void other_ek_fails(void **state)
{
	(void)state;
	/* made for the ECC EK, offered to the RSA EK, and the reverse */
	must_not_activate(ATT_ESYS_KEY_ECC, 0, ATT_ESYS_KEY_RSA, 0, 0);
	must_not_activate(ATT_ESYS_KEY_RSA, 1, ATT_ESYS_KEY_ECC, 1, 0);
}

static void tampered_fails(void **state)
{
	(void)state;
	for (int t = 1; t <= 3; t++) {
		must_not_activate(ATT_ESYS_KEY_RSA, 0, ATT_ESYS_KEY_RSA, 0, t);
		must_not_activate(ATT_ESYS_KEY_ECC, 1, ATT_ESYS_KEY_ECC, 1, t);
	}
}

static void bad_arguments(void **state)
{
	uint8_t secret[65] = {1};
	struct att_cred cred;
	const uint8_t *name;
	size_t nlen;

	(void)state;
	name = att_tpm_key_name(F.ak[0], &nlen);
	/* longer than the EK's nameAlg digest */
	assert_int_equal(
		att_make_credential(F.ek[0], name, nlen, secret, 33, &cred),
		ATT_E_TOO_BIG);
	assert_int_equal(
		att_make_credential(F.ek[0], name, nlen, secret, 0, &cred),
		ATT_E_INVAL);
	/* a name whose length does not fit its algorithm */
	assert_int_equal(
		att_make_credential(F.ek[0], name, nlen - 1, secret, 16, &cred),
		ATT_E_INVAL);
	/* an AK is no EK */
	assert_int_equal(
		att_make_credential(F.ak[0], name, nlen, secret, 16, &cred),
		ATT_E_UNSUPPORTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ak_name_is_the_tpms),
		cmocka_unit_test(ak_checks),
		cmocka_unit_test(rsa_ek_activates),
		cmocka_unit_test(ecc_ek_activates),
		cmocka_unit_test(other_ak_name_fails),
		cmocka_unit_test(other_ek_fails),
		cmocka_unit_test(tampered_fails),
		cmocka_unit_test(bad_arguments),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
