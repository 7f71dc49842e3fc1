// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_ek_cert.c - EK certificates as enrollment takes them (api_enroll.c):
 * att_ek_cert_parse (DER as read from NV, zero padding allowed), the chain
 * and profile checks of att_ek_cert_verify against the fuzz EK CA of
 * fuzz_fixtures.h (loaded with att_ek_ca_load), the binding of the
 * certificate to the EK's TPM2B_PUBLIC (att_ek_cert_matches) and, for an
 * EK the certificate binds, MakeCredential to it.
 *
 * Input: the EK certificate (DER), up to 3 intermediate certificates (DER)
 * and the EK's TPM2B_PUBLIC, concatenated. Each certificate ends where
 * its DER encoding does; what follows the last one that parses is the
 * TPM2B_PUBLIC (if anything follows). The whole input is also parsed on
 * its own as one certificate read from NV (trailing zeros are padding,
 * anything else is refused). Seeds: corpus/ek_cert, made by
 * corpus/make-seeds.py (valid RSA and ECC chains, and the ways a
 * certificate should be refused: CA, expired, weak key, wrong EKU, bad
 * signature, unknown CA, truncated, trailing bytes, a key mismatch).
 *
 * Checked: parse answers a certificate exactly when it succeeds, and
 * takes whatever d2i_X509 takes; verify answers OK, or VERIFY with a
 * reason, or CRYPTO; an accepted certificate is, by checks of this file's
 * own (acceptable()), no CA, valid now, of a strong RSA or EC key and
 * without an EKU that lacks tcg-kp-EKCertificate; matches answers OK,
 * VERIFY or FORMAT; MakeCredential for a bound EK fails only with an error
 * code and fills the blob and secret when it succeeds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "attest/err.h"
#include "attest/tpm_cred.h"
#include "attest/tpm_ek.h"
#include "attest/tpm_key.h"

#include "fuzz_fixtures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_CERTS 4

static struct att_ek_ca *ca;

static void init(void)
{
	char dir[] = "/tmp/fuzz_ek_cert.XXXXXX", path[64];
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/root.pem", dir);
	f = fopen(path, "w");
	if (!f || fputs(fz_ek_ca_pem, f) < 0 || fclose(f) ||
	    att_ek_ca_load(dir, &ca))
		abort();
	unlink(path);
	rmdir(dir);
}

/*
 * What an accepted EK certificate must be, checked here independently of
 * tpm_ek.c: no CA, inside its validity period, an RSA key of 2048 bits or
 * more or an EC key of 256, and an EKU, if any, with tcg-kp-EKCertificate.
 */
static int acceptable(X509 *cert)
{
	EVP_PKEY *k = X509_get0_pubkey(cert);
	EXTENDED_KEY_USAGE *eku;
	ASN1_OBJECT *want;
	int crit = 0, i, found = 0;

	if (X509_check_ca(cert) ||
	    X509_cmp_current_time(X509_get0_notBefore(cert)) >= 0 ||
	    X509_cmp_current_time(X509_get0_notAfter(cert)) <= 0 || !k)
		return 0;
	if (!(EVP_PKEY_is_a(k, "RSA") && EVP_PKEY_get_bits(k) >= 2048) &&
	    !(EVP_PKEY_is_a(k, "EC") && EVP_PKEY_get_bits(k) >= 256))
		return 0;
	eku = X509_get_ext_d2i(cert, NID_ext_key_usage, &crit, NULL);
	if (!eku)
		return crit == -1;
	want = OBJ_txt2obj("2.23.133.8.1", 1);
	for (i = 0; want && i < sk_ASN1_OBJECT_num(eku); i++)
		if (!OBJ_cmp(sk_ASN1_OBJECT_value(eku, i), want))
			found = 1;
	ASN1_OBJECT_free(want);
	EXTENDED_KEY_USAGE_free(eku);
	return found;
}

static void check_verify(X509 *cert, STACK_OF(X509) * chain)
{
	const char *why = NULL;
	int rc = att_ek_cert_verify(ca, cert, chain, &why);

	if (rc == ATT_OK && (why || !acceptable(cert)))
		__builtin_trap();
	if (rc == ATT_E_VERIFY && !why)
		__builtin_trap();
	if (rc != ATT_OK && rc != ATT_E_VERIFY && rc != ATT_E_CRYPTO)
		__builtin_trap();
	ERR_clear_error();
}

static void check_ek(X509 *cert, const uint8_t *p, size_t n)
{
	static const uint8_t secret[32] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct att_tpm_key *ek = NULL;
	struct att_cred cred;
	const uint8_t *name;
	size_t nlen;
	int rc;

	if (att_tpm_key_parse(p, n, &ek))
		return;
	rc = att_ek_cert_matches(cert, ek);
	if (rc != ATT_OK && rc != ATT_E_VERIFY && rc != ATT_E_FORMAT)
		__builtin_trap();
	if (rc == ATT_OK) {
		/* the EK's own name stands in for an AK's */
		name = att_tpm_key_name(ek, &nlen);
		memset(&cred, 0, sizeof(cred));
		rc = att_make_credential(ek, name, nlen, secret, sizeof(secret),
					 &cred);
		if (rc > 0 || rc < ATT_E_MIN)
			__builtin_trap();
		if (rc == ATT_OK &&
		    (!cred.blob.size || !cred.secret.size ||
		     cred.blob.size > sizeof(cred.blob.credential) ||
		     cred.secret.size > sizeof(cred.secret.secret)))
			__builtin_trap();
	}
	att_tpm_key_free(ek);
	ERR_clear_error();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	STACK_OF(X509) *chain = NULL;
	X509 *certs[FZ_MAX_CERTS], *x = NULL;
	const uint8_t *p = data, *q;
	unsigned int n = 0, i;
	size_t left = size;
	int rc;

	if (!ca)
		init();

	/* The whole input as one certificate read from NV. */
	rc = att_ek_cert_parse(data, size, &x);
	if ((rc == ATT_OK) != (x != NULL))
		__builtin_trap();
	if (x) {
		check_verify(x, NULL);
		X509_free(x);
	}

	/* Certificate, intermediates, TPM2B_PUBLIC. */
	while (n < FZ_MAX_CERTS && left) {
		q = p;
		x = d2i_X509(NULL, &q, (long)(left > 1 << 20 ? 1 << 20 : left));
		ERR_clear_error();
		if (!x)
			break;
		X509_free(x);
		x = NULL;
		/* what d2i took, parse takes too (no padding: exact length) */
		rc = att_ek_cert_parse(p, (size_t)(q - p), &x);
		if (rc == ATT_E_TOO_BIG)
			break;
		if (rc != ATT_OK || !x)
			__builtin_trap();
		certs[n++] = x;
		left -= (size_t)(q - p);
		p = q;
	}
	if (!n)
		return 0;
	chain = sk_X509_new_null();
	for (i = 1; chain && i < n; i++)
		if (sk_X509_push(chain, certs[i]))
			certs[i] = NULL;
	check_verify(certs[0], chain);
	if (left)
		check_ek(certs[0], p, left);
	sk_X509_pop_free(chain, X509_free);
	for (i = 0; i < n; i++)
		X509_free(certs[i]);
	return 0;
}
