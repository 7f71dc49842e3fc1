// SPDX-License-Identifier: Apache-2.0
/*
 * tpm_ek.c - EK certificate chain validation with OpenSSL 3.
 */
#include "attest/tpm_ek.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "attest/buf.h"
#include "attest/err.h"

struct att_ek_ca {
	X509_STORE *store;
	unsigned int ncerts;
};

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a > b && !strcasecmp(s + a - b, suf);
}

static int add_cert(struct att_ek_ca *ca, X509 *x)
{
	if (ca->ncerts >= ATT_EK_CA_MAX_CERTS)
		return ATT_E_TOO_BIG;
	if (X509_STORE_add_cert(ca->store, x) != 1) {
		/* a duplicate is harmless */
		unsigned long e = ERR_peek_last_error();

		if (ERR_GET_REASON(e) != X509_R_CERT_ALREADY_IN_HASH_TABLE)
			return ATT_E_CRYPTO;
	}
	ca->ncerts++;
	ERR_clear_error();
	return ATT_OK;
}

static int load_file(struct att_ek_ca *ca, const char *path, int pem)
{
	struct att_buf b;
	BIO *bio;
	X509 *x;
	int rc, n = 0;

	att_buf_init(&b, 0);
	rc = att_buf_read_file(&b, path, 1 << 20);
	if (rc)
		return rc;
	bio = BIO_new_mem_buf(b.data, (int)b.len);
	if (!bio) {
		att_buf_release(&b);
		return ATT_E_NOMEM;
	}
	if (pem) {
		while (!rc && (x = PEM_read_bio_X509(bio, NULL, NULL, NULL))) {
			rc = add_cert(ca, x);
			X509_free(x);
			n++;
		}
	} else {
		x = d2i_X509_bio(bio, NULL);
		if (x) {
			rc = add_cert(ca, x);
			X509_free(x);
			n++;
		}
	}
	ERR_clear_error();
	BIO_free(bio);
	att_buf_release(&b);
	if (!rc && !n)
		rc = ATT_E_FORMAT;
	return rc;
}

int att_ek_ca_load(const char *dir, struct att_ek_ca **out)
{
	struct att_ek_ca *ca;
	struct dirent *de;
	char path[4096];
	DIR *d;
	int rc = ATT_OK;

	*out = NULL;
	d = opendir(dir);
	if (!d)
		return ATT_E_IO;
	ca = calloc(1, sizeof(*ca));
	if (!ca || !(ca->store = X509_STORE_new())) {
		closedir(d);
		free(ca);
		return ATT_E_NOMEM;
	}
	while (!rc && (de = readdir(d))) {
		int pem = has_suffix(de->d_name, ".pem") ||
			  has_suffix(de->d_name, ".crt");
		int der = has_suffix(de->d_name, ".der") ||
			  has_suffix(de->d_name, ".cer");

		if (de->d_name[0] == '.' || (!pem && !der))
			continue;
		/* skip private keys that live next to the CA certificates */
		if (strstr(de->d_name, "key"))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     de->d_name) >= sizeof(path))
			continue;
		rc = load_file(ca, path, pem);
	}
	closedir(d);
	if (!rc && !ca->ncerts)
		rc = ATT_E_NOT_FOUND;
	if (rc) {
		att_ek_ca_free(ca);
		return rc;
	}
	*out = ca;
	return ATT_OK;
}

void att_ek_ca_free(struct att_ek_ca *ca)
{
	if (!ca)
		return;
	X509_STORE_free(ca->store);
	free(ca);
}

int att_ek_cert_parse(const uint8_t *der, size_t len, X509 **out)
{
	const uint8_t *p = der;
	X509 *x;
	size_t used, i;

	*out = NULL;
	if (!der || !len)
		return ATT_E_INVAL;
	if (len > ATT_EK_CERT_MAX)
		return ATT_E_TOO_BIG;
	x = d2i_X509(NULL, &p, (long)len);
	if (!x) {
		ERR_clear_error();
		return ATT_E_FORMAT;
	}
	used = (size_t)(p - der);
	for (i = used; i < len; i++) {
		if (der[i]) {
			X509_free(x);
			return ATT_E_TRAILING;
		}
	}
	*out = x;
	return ATT_OK;
}

static int key_too_weak(EVP_PKEY *k)
{
	if (!k)
		return 1;
	if (EVP_PKEY_is_a(k, "RSA"))
		return EVP_PKEY_get_bits(k) < 2048;
	if (EVP_PKEY_is_a(k, "EC"))
		return EVP_PKEY_get_bits(k) < 256;
	return 1;
}

/*
 * An EK certificate is an end-entity certificate; when it names extended
 * key usages, tcg-kp-EKCertificate (2.23.133.8.1) must be one of them.
 */
static const char *ek_profile_problem(X509 *cert)
{
	EXTENDED_KEY_USAGE *eku;
	ASN1_OBJECT *want;
	int i, found = 0, crit = 0;

	if (X509_check_ca(cert))
		return "EK certificate is a CA certificate";
	eku = X509_get_ext_d2i(cert, NID_ext_key_usage, &crit, NULL);
	if (!eku)
		return crit == -1 ? NULL : "EK certificate has a bad EKU";
	want = OBJ_txt2obj("2.23.133.8.1", 1);
	for (i = 0; want && i < sk_ASN1_OBJECT_num(eku); i++)
		if (!OBJ_cmp(sk_ASN1_OBJECT_value(eku, i), want))
			found = 1;
	ASN1_OBJECT_free(want);
	EXTENDED_KEY_USAGE_free(eku);
	return found ? NULL : "EK certificate EKU lacks tcg-kp-EKCertificate";
}

int att_ek_cert_verify(const struct att_ek_ca *ca, X509 *cert,
		       STACK_OF(X509) * intermediates, const char **why)
{
	const char *bad;
	X509_STORE_CTX *ctx;
	int ok, err, rc;

	if (why)
		*why = NULL;
	if (!ca || !cert)
		return ATT_E_INVAL;
	if (key_too_weak(X509_get0_pubkey(cert))) {
		if (why)
			*why = "EK certificate key is weak or of unknown type";
		return ATT_E_VERIFY;
	}
	bad = ek_profile_problem(cert);
	ERR_clear_error();
	if (bad) {
		if (why)
			*why = bad;
		return ATT_E_VERIFY;
	}
	ctx = X509_STORE_CTX_new();
	if (!ctx ||
	    X509_STORE_CTX_init(ctx, ca->store, cert, intermediates) != 1) {
		X509_STORE_CTX_free(ctx);
		return ATT_E_NOMEM;
	}
	/* Vendor chains are short; a long one is refused, not walked. */
	X509_STORE_CTX_set_depth(ctx, ATT_EK_CHAIN_DEPTH);
	ok = X509_verify_cert(ctx);
	err = X509_STORE_CTX_get_error(ctx);
	if (ok == 1) {
		rc = ATT_OK;
	} else if (err != X509_V_OK) {
		rc = ATT_E_VERIFY;
		if (why)
			*why = X509_verify_cert_error_string(err);
	} else {
		rc = ATT_E_CRYPTO;
	}
	/* every CA on the chain must be strong enough too */
	if (rc == ATT_OK) {
		STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(ctx);
		int i;

		for (i = 1; chain && i < sk_X509_num(chain); i++) {
			if (key_too_weak(X509_get0_pubkey(
				    sk_X509_value(chain, i)))) {
				rc = ATT_E_VERIFY;
				if (why)
					*why = "EK CA key is weak";
			}
		}
	}
	ERR_clear_error();
	X509_STORE_CTX_free(ctx);
	return rc;
}

int att_ek_cert_matches(X509 *cert, const struct att_tpm_key *ek)
{
	EVP_PKEY *ck;

	if (!cert || !ek)
		return ATT_E_INVAL;
	ck = X509_get0_pubkey(cert);
	if (!ck)
		return ATT_E_FORMAT;
	return EVP_PKEY_eq(ck, att_tpm_key_pkey(ek)) == 1 ? ATT_OK
							  : ATT_E_VERIFY;
}
