// SPDX-License-Identifier: Apache-2.0
/*
 * auth.c - client certificate roles (see auth.h).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "attest/log.h"
#include "auth.h"

#define VER_MAX_CHAIN 8

struct ver_auth {
	X509_STORE *admin;
	X509_STORE *agent;
};

static int load_store(const char *path, X509_STORE **out)
{
	X509_STORE *st = X509_STORE_new();

	*out = NULL;
	if (!st)
		return ATT_E_NOMEM;
	if (X509_STORE_load_file(st, path) != 1) {
		att_err("cannot load CA certificates from %s", path);
		X509_STORE_free(st);
		return ATT_E_CRYPTO;
	}
	*out = st;
	return 0;
}

int ver_auth_new(const char *admin_ca_pem, const char *agent_ca_pem,
		 struct ver_auth **out)
{
	struct ver_auth *a = calloc(1, sizeof(*a));
	int rc;

	*out = NULL;
	if (!a)
		return ATT_E_NOMEM;
	rc = load_store(admin_ca_pem, &a->admin);
	if (!rc)
		rc = load_store(agent_ca_pem, &a->agent);
	if (rc) {
		ver_auth_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void ver_auth_free(struct ver_auth *a)
{
	if (!a)
		return;
	X509_STORE_free(a->admin);
	X509_STORE_free(a->agent);
	free(a);
}

int ver_id_valid(const char *id)
{
	size_t i, n = strlen(id);

	if (n == 0 || n > 64 || id[0] == '.' || id[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		char c = id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return 0;
	}
	return 1;
}

static int verify(X509_STORE *store, X509 *leaf, STACK_OF(X509) * chain)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	int ok = 0;

	if (!ctx)
		return 0;
	if (X509_STORE_CTX_init(ctx, store, leaf, chain) == 1 &&
	    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT) == 1)
		ok = X509_verify_cert(ctx) == 1;
	X509_STORE_CTX_free(ctx);
	return ok;
}

static int common_name(X509 *x, char *out, size_t cap)
{
	X509_NAME *nm = X509_get_subject_name(x);
	int idx = X509_NAME_get_index_by_NID(nm, NID_commonName, -1);
	const ASN1_STRING *s;
	int n;

	if (idx < 0 || X509_NAME_get_index_by_NID(nm, NID_commonName, idx) >= 0)
		return ATT_E_FORMAT; /* none, or more than one */
	s = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(nm, idx));
	n = ASN1_STRING_length(s);
	if (n <= 0 || (size_t)n >= cap)
		return ATT_E_FORMAT;
	memcpy(out, ASN1_STRING_get0_data(s), (size_t)n);
	out[n] = '\0';
	if (strlen(out) != (size_t)n)
		return ATT_E_FORMAT;
	return 0;
}

void ver_auth_classify(struct ver_auth *a, const uint8_t *const *der,
		       const size_t *len, unsigned int n, struct ver_peer *p)
{
	STACK_OF(X509) *chain = NULL;
	X509 *leaf = NULL, *x;
	uint8_t md[32];
	unsigned int i, mdlen = 0;

	memset(p, 0, sizeof(p[0]));
	if (n == 0 || n > VER_MAX_CHAIN)
		return;
	chain = sk_X509_new_null();
	if (!chain)
		return;
	for (i = 0; i < n; i++) {
		const unsigned char *q = der[i];

		x = d2i_X509(NULL, &q, (long)len[i]);
		if (!x || q != der[i] + len[i]) {
			X509_free(x);
			goto out;
		}
		if (i == 0) {
			leaf = x;
		} else if (!sk_X509_push(chain, x)) {
			X509_free(x);
			goto out;
		}
	}
	if (EVP_Digest(der[0], len[0], md, &mdlen, EVP_sha256(), NULL) != 1 ||
	    mdlen != sizeof(md))
		goto out;
	if (verify(a->admin, leaf, chain)) {
		p->role = VER_ROLE_ADMIN;
	} else if (verify(a->agent, leaf, chain) &&
		   !common_name(leaf, p->id, sizeof(p->id)) &&
		   ver_id_valid(p->id)) {
		p->role = VER_ROLE_AGENT;
	} else {
		p->id[0] = '\0';
		goto out;
	}
	att_hex_encode(md, sizeof(md), p->fpr);
out:
	X509_free(leaf);
	sk_X509_pop_free(chain, X509_free);
}
