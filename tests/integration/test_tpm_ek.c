// SPDX-License-Identifier: Apache-2.0
/*
 * test_tpm_ek.c - the EK certificate swtpm_setup --create-ek-cert writes
 * to NV validates against swtpm's local CA and certifies the EK the agent
 * derives; self-signed and wrong-CA certificates are rejected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/tpm_ek.h"
#include "attest/tpm_esys.h"
#include "attest/tpm_key.h"
#include "swtpm.h"

struct fx {
	struct att_swtpm *sw;
	struct att_esys *tpm;
	struct att_tpm_key *ek[2];
	struct att_buf cert_der;
	X509 *cert;
	struct att_ek_ca *ca;
};

static struct fx F;

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
	for (i = 0; i < 2; i++)
		if (att_esys_ek_public(F.tpm, (enum att_esys_key_alg)i, &pub) ||
		    att_tpm_key_parse(pub.data, pub.len, &F.ek[i]))
			return -1;
	att_buf_release(&pub);
	att_buf_init(&F.cert_der, 0);
	if (att_esys_ek_cert(F.tpm, ATT_ESYS_KEY_RSA, &F.cert_der) ||
	    att_ek_cert_parse(F.cert_der.data, F.cert_der.len, &F.cert))
		return -1;
	if (att_ek_ca_load(ATT_SWTPM_LOCALCA_DIR, &F.ca)) {
		fprintf(stderr, "FATAL: cannot load %s\n",
			ATT_SWTPM_LOCALCA_DIR);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	att_tpm_key_free(F.ek[0]);
	att_tpm_key_free(F.ek[1]);
	att_buf_release(&F.cert_der);
	X509_free(F.cert);
	att_ek_ca_free(F.ca);
	att_esys_free(F.tpm);
	att_swtpm_free(F.sw);
	return 0;
}

static void swtpm_ek_cert_validates(void **state)
{
	const char *why = "unset";

	(void)state;
	assert_int_equal(att_ek_cert_verify(F.ca, F.cert, NULL, &why), ATT_OK);
	assert_null(why);
	/* and it certifies the EK derived from the TCG template */
	assert_int_equal(att_ek_cert_matches(F.cert, F.ek[ATT_ESYS_KEY_RSA]),
			 ATT_OK);
	assert_int_equal(att_ek_cert_matches(F.cert, F.ek[ATT_ESYS_KEY_ECC]),
			 ATT_E_VERIFY);
}

static void ecc_p256_cert_absent(void **state)
{
	struct att_buf b;

	(void)state;
	/* swtpm stores a P-384 ECC EK certificate (0x01c00016), not P-256 */
	att_buf_init(&b, 0);
	assert_int_equal(att_esys_ek_cert(F.tpm, ATT_ESYS_KEY_ECC, &b),
			 ATT_E_NOT_FOUND);
	att_buf_release(&b);
}

static EVP_PKEY *rsa_key(void)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);

	assert_non_null(k);
	return k;
}

static void add_ext(X509 *x, X509 *issuer, int nid, const char *val)
{
	X509V3_CTX ctx;
	X509_EXTENSION *e;

	X509V3_set_ctx(&ctx, issuer ? issuer : x, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &ctx, nid, val);
	assert_non_null(e);
	assert_int_equal(X509_add_ext(x, e, -1), 1);
	X509_EXTENSION_free(e);
}

/* A certificate for key, issued by (issuer, ikey) or self-signed. */
static X509 *make_cert(EVP_PKEY *key, const X509_NAME *subject, int ca,
		       X509 *issuer, EVP_PKEY *ikey)
{
	X509 *x = X509_new();

	assert_non_null(x);
	assert_int_equal(X509_set_version(x, 2), 1);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 4242);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600L * 24 * 365);
	assert_int_equal(X509_set_subject_name(x, subject), 1);
	assert_int_equal(
		X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer)
					       : subject),
		1);
	assert_int_equal(X509_set_pubkey(x, key), 1);
	if (ca) {
		add_ext(x, issuer, NID_basic_constraints, "critical,CA:TRUE");
		add_ext(x, issuer, NID_key_usage, "critical,keyCertSign");
	}
	assert_true(X509_sign(x, ikey, EVP_sha256()) > 0);
	return x;
}

static X509_NAME *cn(const char *s)
{
	X509_NAME *n = X509_NAME_new();

	assert_non_null(n);
	assert_int_equal(X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
						    (const unsigned char *)s,
						    -1, -1, 0),
			 1);
	return n;
}

static void self_signed_rejected(void **state)
{
	EVP_PKEY *k = rsa_key();
	X509_NAME *n = cn("self-signed EK");
	X509 *x = make_cert(k, n, 0, NULL, k);
	const char *why = NULL;

	(void)state;
	assert_int_equal(att_ek_cert_verify(F.ca, x, NULL, &why), ATT_E_VERIFY);
	assert_non_null(why);
	X509_free(x);
	X509_NAME_free(n);
	EVP_PKEY_free(k);
}

static void write_pem(const char *path, X509 *x)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(PEM_write_X509(f, x), 1);
	fclose(f);
}

static void wrong_ca_rejected(void **state)
{
	EVP_PKEY *cak = rsa_key();
	X509_NAME *can = cn("not the TPM vendor CA");
	X509 *cax = make_cert(cak, can, 1, NULL, cak);
	X509 *leaf, *mimic;
	struct att_ek_ca *other;
	const char *why = NULL;
	char dir[256], path[300];

	(void)state;
	/* the real EK public key, the real subject, the wrong issuer */
	leaf = make_cert(X509_get0_pubkey(F.cert),
			 X509_get_subject_name(F.cert), 0, cax, cak);
	assert_int_equal(att_ek_cert_verify(F.ca, leaf, NULL, &why),
			 ATT_E_VERIFY);
	assert_non_null(why);
	/* even when the fake CA copies the real issuer's name */
	X509_free(cax);
	cax = make_cert(cak, X509_get_issuer_name(F.cert), 1, NULL, cak);
	mimic = make_cert(X509_get0_pubkey(F.cert),
			  X509_get_subject_name(F.cert), 0, cax, cak);
	why = NULL;
	assert_int_equal(att_ek_cert_verify(F.ca, mimic, NULL, &why),
			 ATT_E_VERIFY);
	assert_non_null(why);

	/* the same certificates do validate against their own CA, and the
	 * swtpm certificate does not */
	snprintf(dir, sizeof(dir), "%s/otherca", att_swtpm_dir(F.sw));
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/ca.pem", dir);
	write_pem(path, cax);
	assert_int_equal(att_ek_ca_load(dir, &other), ATT_OK);
	assert_int_equal(att_ek_cert_verify(other, mimic, NULL, NULL), ATT_OK);
	assert_int_equal(att_ek_cert_verify(other, F.cert, NULL, &why),
			 ATT_E_VERIFY);
	/* a TLS server certificate is no EK certificate, even from a
	 * trusted CA; a CA certificate is not either */
	X509_free(leaf);
	leaf = make_cert(X509_get0_pubkey(F.cert),
			 X509_get_subject_name(F.cert), 0, cax, cak);
	add_ext(leaf, cax, NID_ext_key_usage, "serverAuth");
	assert_true(X509_sign(leaf, cak, EVP_sha256()) > 0);
	assert_int_equal(att_ek_cert_verify(other, leaf, NULL, &why),
			 ATT_E_VERIFY);
	assert_string_equal(why,
			    "EK certificate EKU lacks tcg-kp-EKCertificate");
	X509_free(leaf);
	leaf = make_cert(X509_get0_pubkey(F.cert),
			 X509_get_subject_name(F.cert), 0, cax, cak);
	add_ext(leaf, cax, NID_ext_key_usage, "2.23.133.8.1");
	assert_true(X509_sign(leaf, cak, EVP_sha256()) > 0);
	assert_int_equal(att_ek_cert_verify(other, leaf, NULL, NULL), ATT_OK);
	assert_int_equal(att_ek_cert_verify(other, cax, NULL, &why),
			 ATT_E_VERIFY);
	assert_string_equal(why, "EK certificate is a CA certificate");
	att_ek_ca_free(other);
	X509_free(leaf);
	X509_free(mimic);
	X509_free(cax);
	X509_NAME_free(can);
	EVP_PKEY_free(cak);
}

/* A self-signed root in its own CA directory, named name. */
static struct att_ek_ca *own_root(const char *name, EVP_PKEY *k, X509 **root)
{
	struct att_ek_ca *ca;
	X509_NAME *n = cn(name);
	char dir[256], path[300];

	*root = make_cert(k, n, 1, NULL, k);
	X509_NAME_free(n);
	snprintf(dir, sizeof(dir), "%s/%s", att_swtpm_dir(F.sw), name);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/ca.pem", dir);
	write_pem(path, *root);
	assert_int_equal(att_ek_ca_load(dir, &ca), ATT_OK);
	return ca;
}

static void expect_refused(struct att_ek_ca *ca, X509 *x,
			   STACK_OF(X509) * inter, const char *why_part)
{
	const char *why = NULL;

	assert_int_equal(att_ek_cert_verify(ca, x, inter, &why), ATT_E_VERIFY);
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("refused for '%s', '%s' wanted", why, why_part);
}

/*
 * Expired and not yet valid EK certificates, weak keys (RSA 1024 and EC
 * P-224 EKs, an RSA 1024 CA), and chains: three intermediates sent by
 * the agent validate, six do not.
 */
static void expired_weak_and_long_chains(void **state)
{
	EVP_PKEY *rk = rsa_key(), *weak, *ec224, *ik[6];
	X509 *root, *x, *inter[6];
	X509_NAME *n = cn("an EK");
	STACK_OF(X509) * sk;
	struct att_ek_ca *ca, *wca;
	int i;

	(void)state;
	ca = own_root("vendor-root", rk, &root);
	/* expired a day ago; valid only from tomorrow */
	x = make_cert(X509_get0_pubkey(F.cert), n, 0, root, rk);
	X509_gmtime_adj(X509_getm_notAfter(x), -86400);
	assert_true(X509_sign(x, rk, EVP_sha256()) > 0);
	expect_refused(ca, x, NULL, "expired");
	X509_free(x);
	x = make_cert(X509_get0_pubkey(F.cert), n, 0, root, rk);
	X509_gmtime_adj(X509_getm_notBefore(x), 86400);
	assert_true(X509_sign(x, rk, EVP_sha256()) > 0);
	expect_refused(ca, x, NULL, "not yet valid");
	X509_free(x);
	/* weak EK keys */
	weak = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
	assert_non_null(weak);
	x = make_cert(weak, n, 0, root, rk);
	expect_refused(ca, x, NULL, "weak");
	X509_free(x);
	ec224 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-224");
	assert_non_null(ec224);
	x = make_cert(ec224, n, 0, root, rk);
	expect_refused(ca, x, NULL, "weak");
	X509_free(x);
	/* a weak CA: the chain is refused though it verifies */
	wca = own_root("weak-root", weak, &inter[0]);
	x = make_cert(X509_get0_pubkey(F.cert), n, 0, inter[0], weak);
	expect_refused(wca, x, NULL, "EK CA key is weak");
	X509_free(x);
	X509_free(inter[0]);
	att_ek_ca_free(wca);
	/* root -> i0 -> ... -> i5 -> EK */
	for (i = 0; i < 6; i++) {
		char nm[32];
		X509_NAME *in;

		snprintf(nm, sizeof(nm), "intermediate %d", i);
		in = cn(nm);
		ik[i] = rsa_key();
		inter[i] = make_cert(ik[i], in, 1, i ? inter[i - 1] : root,
				     i ? ik[i - 1] : rk);
		X509_NAME_free(in);
	}
	sk = sk_X509_new_null();
	for (i = 0; i < 3; i++)
		sk_X509_push(sk, inter[i]);
	x = make_cert(X509_get0_pubkey(F.cert), n, 0, inter[2], ik[2]);
	assert_int_equal(att_ek_cert_verify(ca, x, sk, NULL), ATT_OK);
	X509_free(x);
	for (; i < 6; i++)
		sk_X509_push(sk, inter[i]);
	x = make_cert(X509_get0_pubkey(F.cert), n, 0, inter[5], ik[5]);
	expect_refused(ca, x, sk, "too long");
	X509_free(x);
	sk_X509_free(sk);
	for (i = 0; i < 6; i++) {
		X509_free(inter[i]);
		EVP_PKEY_free(ik[i]);
	}
	att_ek_ca_free(ca);
	X509_free(root);
	X509_NAME_free(n);
	EVP_PKEY_free(weak);
	EVP_PKEY_free(ec224);
	EVP_PKEY_free(rk);
}

static void cert_parsing(void **state)
{
	struct att_buf b;
	X509 *x;

	(void)state;
	att_buf_init(&b, 0);
	assert_int_equal(att_buf_append(&b, F.cert_der.data, F.cert_der.len),
			 ATT_OK);
	/* NV zero padding is fine */
	assert_int_equal(att_buf_append(&b, "\0\0\0\0", 4), ATT_OK);
	assert_int_equal(att_ek_cert_parse(b.data, b.len, &x), ATT_OK);
	X509_free(x);
	/* anything else after the certificate is not */
	b.data[b.len - 1] = 1;
	assert_int_equal(att_ek_cert_parse(b.data, b.len, &x), ATT_E_TRAILING);
	/* truncated */
	assert_int_equal(att_ek_cert_parse(b.data, F.cert_der.len - 1, &x),
			 ATT_E_FORMAT);
	assert_null(x);
	att_buf_release(&b);
}

static void ca_dir_errors(void **state)
{
	struct att_ek_ca *ca = NULL;
	char dir[256];

	(void)state;
	assert_int_equal(att_ek_ca_load("/nonexistent/attest-ca", &ca),
			 ATT_E_IO);
	snprintf(dir, sizeof(dir), "%s/emptyca", att_swtpm_dir(F.sw));
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(att_ek_ca_load(dir, &ca), ATT_E_NOT_FOUND);
	assert_null(ca);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(swtpm_ek_cert_validates),
		cmocka_unit_test(ecc_p256_cert_absent),
		cmocka_unit_test(self_signed_rejected),
		cmocka_unit_test(wrong_ca_rejected),
		cmocka_unit_test(expired_weak_and_long_chains),
		cmocka_unit_test(cert_parsing),
		cmocka_unit_test(ca_dir_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
