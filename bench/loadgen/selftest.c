/* SPDX-License-Identifier: Apache-2.0 */
/*
 * selftest.c - att-bench-loadgen --selftest: the software TPM's credential
 * activation (RSA and ECC EKs) checked against libattest's
 * att_make_credential, and its quotes against att_quote_verify; timed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/rand.h>

#include "attest/digest.h"
#include "attest/err.h"
#include "attest/tpm_cred.h"
#include "attest/tpm_key.h"
#include "attest/tpm_quote.h"
#include "lg.h"
#include "softtpm.h"

static double loadgen_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int loadgen_one(int ecc, double *t_gen, double *t_act)
{
	struct softtpm_ek *sek = NULL;
	struct att_tpm_key *ek = NULL;
	uint8_t name[34], secret[32], got[64];
	const uint8_t *pub;
	struct att_cred cred;
	size_t publen, glen = 0;
	double t0 = loadgen_now(), t1;
	int rc;

	rc = ecc ? softtpm_ek_new_ecc(&sek) : softtpm_ek_new(&sek);
	if (rc)
		return rc;
	*t_gen += loadgen_now() - t0;
	pub = softtpm_ek_public(sek, &publen);
	rc = att_tpm_key_parse(pub, publen, &ek);
	if (rc)
		goto out;
	name[0] = 0x00;
	name[1] = 0x0b; /* TPM2_ALG_SHA256 */
	rc = ATT_E_CRYPTO;
	if (RAND_bytes(name + 2, 32) != 1 || RAND_bytes(secret, 32) != 1)
		goto out;
	rc = att_make_credential(ek, name, sizeof(name), secret, sizeof(secret),
				 &cred);
	if (rc)
		goto out;
	t1 = loadgen_now();
	rc = softtpm_activate(sek, name, sizeof(name), &cred, got, sizeof(got),
			      &glen);
	*t_act += loadgen_now() - t1;
	if (rc)
		goto out;
	rc = ATT_E_VERIFY;
	if (glen != sizeof(secret) || memcmp(got, secret, glen))
		goto out;
	/* The same credential bound to another AK name must be refused. */
	name[2] ^= 1;
	if (softtpm_activate(sek, name, sizeof(name), &cred, got, sizeof(got),
			     &glen) != ATT_E_VERIFY)
		goto out;
	rc = 0;
out:
	att_tpm_key_free(ek);
	softtpm_ek_free(sek);
	return rc;
}

/* An AK, a quote over sha256 PCRs 0-10, att_quote_verify; then a tampered
 * signature must fail with ATT_QR_SIGNATURE. */
static int loadgen_quote(double *t_quote, double *t_verify)
{
	struct softtpm_ak *sak = NULL;
	struct att_tpm_key *ak = NULL;
	struct att_pcr_sel sel = {0};
	struct att_pcrs *pcrs = calloc(1, sizeof(*pcrs));
	enum att_quote_reason why = ATT_QR_OK;
	uint8_t nonce[20], attest[1024], sig[256], v[32];
	const uint8_t *pub;
	size_t publen, alen, slen;
	unsigned int i;
	double t0;
	int rc = ATT_E_NOMEM;

	if (!pcrs)
		return rc;
	att_pcrs_clear(pcrs);
	for (i = 0; i <= 10; i++) {
		memset(v, (int)i, sizeof(v));
		rc = att_pcrs_set(pcrs, ATT_HASH_SHA256, i, v, sizeof(v));
		if (rc)
			goto out;
	}
	rc = att_pcr_sel_add(&sel, ATT_HASH_SHA256, 0x7ff);
	if (rc)
		goto out;
	rc = softtpm_ak_new(&sak);
	if (rc)
		goto out;
	pub = softtpm_ak_public(sak, &publen);
	rc = att_tpm_key_parse(pub, publen, &ak);
	if (rc)
		goto out;
	rc = ATT_E_CRYPTO;
	if (RAND_bytes(nonce, sizeof(nonce)) != 1)
		goto out;
	t0 = loadgen_now();
	rc = softtpm_quote(sak, nonce, sizeof(nonce), &sel, pcrs, attest,
			   sizeof(attest), &alen, sig, sizeof(sig), &slen);
	*t_quote += loadgen_now() - t0;
	if (rc)
		goto out;
	t0 = loadgen_now();
	rc = att_quote_verify(ak, attest, alen, sig, slen, nonce, sizeof(nonce),
			      &sel, pcrs, NULL, &why);
	*t_verify += loadgen_now() - t0;
	if (rc) {
		fprintf(stderr, "quote refused: %s\n",
			att_quote_reason_str(why));
		goto out;
	}
	sig[slen - 1] ^= 1;
	rc = att_quote_verify(ak, attest, alen, sig, slen, nonce, sizeof(nonce),
			      &sel, pcrs, NULL, &why);
	if (rc != ATT_E_VERIFY || why != ATT_QR_SIGNATURE) {
		rc = ATT_E_INTERNAL;
		goto out;
	}
	rc = 0;
out:
	att_tpm_key_free(ak);
	softtpm_ak_free(sak);
	free(pcrs);
	return rc;
}

int lg_selftest(long n)
{
	double t_gen = 0, t_act = 0, t_quote = 0, t_verify = 0;
	double e_gen = 0, e_act = 0;
	long i;
	int rc;

	for (i = 0; i < n; i++) {
		rc = loadgen_one(0, &t_gen, &t_act);
		if (!rc)
			rc = loadgen_one(1, &e_gen, &e_act);
		if (rc) {
			fprintf(stderr, "selftest %ld failed: %s\n", i,
				att_strerror(rc));
			return rc;
		}
	}
	for (i = 0; i < n; i++) {
		rc = loadgen_quote(&t_quote, &t_verify);
		if (rc) {
			fprintf(stderr, "quote selftest %ld failed: %s\n", i,
				att_strerror(rc));
			return rc;
		}
	}
	printf("quote ok: ECDSA P-256 quote %.3f ms, att_quote_verify "
	       "%.3f ms\n",
	       t_quote * 1e3 / (double)n, t_verify * 1e3 / (double)n);
	printf("selftest ok: %ld RSA EKs, RSA-2048 keygen %.2f ms/EK, "
	       "ActivateCredential %.3f ms\n",
	       n, t_gen * 1e3 / (double)n, t_act * 1e3 / (double)n);
	printf("selftest ok: %ld ECC EKs, P-256 keygen %.3f ms/EK, "
	       "ActivateCredential %.3f ms\n",
	       n, e_gen * 1e3 / (double)n, e_act * 1e3 / (double)n);
	return 0;
}
