// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_akcache.c - the verifier's cache of parsed attestation
 * keys: a key is found again only for the same bytes, a collision or an
 * eviction costs a parse and never a wrong key, a set evicts its least
 * recently used key, a key in use outlives its
 * eviction, bad bytes are refused every time and never kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <tss2/tss2_mu.h>

#include "akcache.h"
#include "attest/err.h"
#include "attest/tpm_key.h"

/* A P-256 signing key's marshaled TPM2B_PUBLIC. */
static size_t ecc_pub(uint8_t *out, size_t cap)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	TPM2B_PUBLIC tb;
	TPMT_PUBLIC *p = &tb.publicArea;
	BIGNUM *x = NULL, *y = NULL;
	size_t off = 0;

	assert_non_null(k);
	memset(&tb, 0, sizeof(tb));
	p->type = TPM2_ALG_ECC;
	p->nameAlg = TPM2_ALG_SHA256;
	p->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT;
	p->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
	p->parameters.eccDetail.scheme.scheme = TPM2_ALG_ECDSA;
	p->parameters.eccDetail.scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256;
	p->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
	p->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	assert_int_equal(EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_EC_PUB_X, &x),
			 1);
	assert_int_equal(EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_EC_PUB_Y, &y),
			 1);
	assert_int_equal(BN_bn2binpad(x, p->unique.ecc.x.buffer, 32), 32);
	assert_int_equal(BN_bn2binpad(y, p->unique.ecc.y.buffer, 32), 32);
	p->unique.ecc.x.size = p->unique.ecc.y.size = 32;
	assert_int_equal(Tss2_MU_TPM2B_PUBLIC_Marshal(&tb, out, cap, &off),
			 TSS2_RC_SUCCESS);
	BN_free(x);
	BN_free(y);
	EVP_PKEY_free(k);
	return off;
}

static void assert_key_is(const struct att_tpm_key *k, const uint8_t *b,
			  size_t n)
{
	size_t kn;
	const uint8_t *kb = att_tpm_key_bytes(k, &kn);

	assert_int_equal(kn, n);
	assert_memory_equal(kb, b, n);
	assert_int_equal(EVP_PKEY_get_bits(att_tpm_key_pkey(k)), 256);
}

static void hits_and_misses(void **state)
{
	uint8_t a[sizeof(TPM2B_PUBLIC)], b[sizeof(TPM2B_PUBLIC)];
	size_t na = ecc_pub(a, sizeof(a)), nb = ecc_pub(b, sizeof(b));
	struct att_tpm_key *k1, *k2, *k3;
	struct ver_akcache *c;
	uint64_t hits, misses;

	(void)state;
	assert_int_equal(ver_akcache_new(0, &c), ATT_E_INVAL);
	assert_int_equal(ver_akcache_new(64, &c), ATT_OK);
	assert_int_equal(ver_akcache_get(c, a, na, &k1), ATT_OK);
	assert_int_equal(ver_akcache_get(c, a, na, &k2), ATT_OK);
	assert_ptr_equal(k1, k2); /* the same parsed key, shared */
	assert_int_equal(ver_akcache_get(c, b, nb, &k3), ATT_OK);
	assert_ptr_not_equal(k3, k1);
	assert_key_is(k1, a, na);
	assert_key_is(k3, b, nb);
	ver_akcache_stats(c, &hits, &misses);
	assert_int_equal(hits, 1);
	assert_int_equal(misses, 2);
	att_tpm_key_free(k1);
	att_tpm_key_free(k2);
	att_tpm_key_free(k3);
	ver_akcache_free(c);
}

/* One slot: every other key evicts; a key still in use stays valid. */
static void eviction_keeps_keys_in_use(void **state)
{
	uint8_t a[sizeof(TPM2B_PUBLIC)], b[sizeof(TPM2B_PUBLIC)];
	size_t na = ecc_pub(a, sizeof(a)), nb = ecc_pub(b, sizeof(b));
	struct att_tpm_key *ka, *kb;
	struct ver_akcache *c;
	uint64_t hits, misses;
	int i;

	(void)state;
	assert_int_equal(ver_akcache_new(1, &c), ATT_OK);
	assert_int_equal(ver_akcache_get(c, a, na, &ka), ATT_OK);
	for (i = 0; i < 3; i++) {
		assert_int_equal(ver_akcache_get(c, b, nb, &kb), ATT_OK);
		assert_key_is(kb, b, nb);
		att_tpm_key_free(kb);
	}
	/* a was evicted from the cache but not freed: still usable */
	assert_key_is(ka, a, na);
	att_tpm_key_free(ka);
	assert_int_equal(ver_akcache_get(c, a, na, &ka), ATT_OK);
	assert_key_is(ka, a, na);
	att_tpm_key_free(ka);
	ver_akcache_stats(c, &hits, &misses);
	assert_int_equal(hits, 2);
	assert_int_equal(misses, 3);
	ver_akcache_free(c);
}

/*
 * One set of VER_AKCACHE_WAYS slots: that many keys all stay; one more
 * evicts the least recently used, not the oldest inserted.
 */
static void set_keeps_recently_used(void **state)
{
	enum { N = VER_AKCACHE_WAYS + 1 };
	uint8_t b[N][sizeof(TPM2B_PUBLIC)];
	size_t n[N];
	struct att_tpm_key *k;
	struct ver_akcache *c;
	uint64_t hits, misses;
	int i;

	(void)state;
	for (i = 0; i < N; i++)
		n[i] = ecc_pub(b[i], sizeof(b[i]));
	assert_int_equal(ver_akcache_new(VER_AKCACHE_WAYS, &c), ATT_OK);
	/* Keys 0..W-1 in, then all found again, key 0 used last. */
	for (i = 0; i < N - 1; i++) {
		assert_int_equal(ver_akcache_get(c, b[i], n[i], &k), ATT_OK);
		att_tpm_key_free(k);
	}
	for (i = N - 2; i >= 0; i--) {
		assert_int_equal(ver_akcache_get(c, b[i], n[i], &k), ATT_OK);
		assert_key_is(k, b[i], n[i]);
		att_tpm_key_free(k);
	}
	ver_akcache_stats(c, &hits, &misses);
	assert_int_equal(hits, N - 1);
	assert_int_equal(misses, N - 1);
	/* Key W evicts key W-1 (least recently used), key 0 stays. */
	assert_int_equal(ver_akcache_get(c, b[N - 1], n[N - 1], &k), ATT_OK);
	att_tpm_key_free(k);
	assert_int_equal(ver_akcache_get(c, b[0], n[0], &k), ATT_OK);
	att_tpm_key_free(k);
	ver_akcache_stats(c, &hits, &misses);
	assert_int_equal(hits, N);
	assert_int_equal(misses, N);
	assert_int_equal(ver_akcache_get(c, b[N - 2], n[N - 2], &k), ATT_OK);
	assert_key_is(k, b[N - 2], n[N - 2]);
	att_tpm_key_free(k);
	ver_akcache_stats(c, &hits, &misses);
	assert_int_equal(hits, N);
	assert_int_equal(misses, N + 1);
	ver_akcache_free(c);
}

static void bad_bytes_never_kept(void **state)
{
	uint8_t a[sizeof(TPM2B_PUBLIC)];
	size_t na = ecc_pub(a, sizeof(a));
	struct att_tpm_key *k = NULL;
	struct ver_akcache *c;
	uint64_t hits, misses;

	(void)state;
	assert_int_equal(ver_akcache_new(8, &c), ATT_OK);
	a[na - 1] ^= 1; /* y off the curve */
	assert_int_equal(ver_akcache_get(c, a, na, &k), ATT_E_FORMAT);
	assert_null(k);
	assert_int_equal(ver_akcache_get(c, a, na, &k), ATT_E_FORMAT);
	assert_int_equal(ver_akcache_get(c, a, na - 1, &k), ATT_E_FORMAT);
	ver_akcache_stats(c, &hits, &misses);
	assert_int_equal(hits, 0);
	assert_int_equal(misses, 3);
	a[na - 1] ^= 1;
	/* no cache: parsed each time */
	assert_int_equal(ver_akcache_get(NULL, a, na, &k), ATT_OK);
	assert_key_is(k, a, na);
	att_tpm_key_free(k);
	ver_akcache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hits_and_misses),
		cmocka_unit_test(eviction_keeps_keys_in_use),
		cmocka_unit_test(set_keeps_recently_used),
		cmocka_unit_test(bad_bytes_never_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
