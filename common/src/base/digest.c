// SPDX-License-Identifier: Apache-2.0
/*
 * digest.c - hash algorithm table and reusable EVP contexts.
 */
/*
 * The replay hashes a few hundred bytes millions of times: for SHA-1 and
 * SHA-2 the low-level OpenSSL functions (deprecated in 3.0, still the same
 * implementation with SHA-NI) avoid EVP's per-call dispatch and cleansing,
 * which cost more than the hashing itself at these sizes.
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include "attest/digest.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "attest/err.h"

static const struct att_hash_info hash_table[ATT_HASH_COUNT] = {
	[ATT_HASH_MD5] = {ATT_HASH_MD5, "md5", 16, 0x0000, 1},
	[ATT_HASH_SHA1] = {ATT_HASH_SHA1, "sha1", 20, 0x0004, 2},
	[ATT_HASH_SHA224] = {ATT_HASH_SHA224, "sha224", 28, 0x0000, 7},
	[ATT_HASH_SHA256] = {ATT_HASH_SHA256, "sha256", 32, 0x000b, 4},
	[ATT_HASH_SHA384] = {ATT_HASH_SHA384, "sha384", 48, 0x000c, 5},
	[ATT_HASH_SHA512] = {ATT_HASH_SHA512, "sha512", 64, 0x000d, 6},
	[ATT_HASH_SM3] = {ATT_HASH_SM3, "sm3", 32, 0x0012, 17},
};

/* OpenSSL's names where they differ from IMA's. */
static const char *evp_name(enum att_hash h)
{
	return h == ATT_HASH_SM3 ? "SM3" : hash_table[h].name;
}

const struct att_hash_info *att_hash_info(enum att_hash h)
{
	if (h <= ATT_HASH_NONE || h >= ATT_HASH_COUNT)
		return NULL;
	return &hash_table[h];
}

enum att_hash att_hash_by_name(const char *name, size_t len)
{
	int h;

	for (h = ATT_HASH_NONE + 1; h < ATT_HASH_COUNT; h++) {
		const char *n = hash_table[h].name;

		if (strlen(n) == len && !memcmp(n, name, len))
			return (enum att_hash)h;
	}
	return ATT_HASH_NONE;
}

enum att_hash att_hash_by_tpm_alg(uint16_t alg)
{
	int h;

	for (h = ATT_HASH_NONE + 1; h < ATT_HASH_COUNT; h++)
		if (hash_table[h].tpm_alg && hash_table[h].tpm_alg == alg)
			return (enum att_hash)h;
	return ATT_HASH_NONE;
}

enum att_hash att_hash_by_kernel_algo(int algo)
{
	int h;

	for (h = ATT_HASH_NONE + 1; h < ATT_HASH_COUNT; h++)
		if (hash_table[h].kernel_algo == algo)
			return (enum att_hash)h;
	return ATT_HASH_NONE;
}

size_t att_hash_size(enum att_hash h)
{
	const struct att_hash_info *i = att_hash_info(h);

	return i ? i->size : 0;
}

const char *att_hash_name(enum att_hash h)
{
	const struct att_hash_info *i = att_hash_info(h);

	return i ? i->name : "none";
}

struct att_md {
	enum att_hash hash;
	int fast; /* low-level context in use */
	union {
		SHA_CTX sha1;
		SHA256_CTX sha256;
		SHA512_CTX sha512;
	} u;
	EVP_MD *md;
	EVP_MD_CTX *ctx;
};

static int fast_hash(enum att_hash h)
{
	return h == ATT_HASH_SHA1 || h == ATT_HASH_SHA224 ||
	       h == ATT_HASH_SHA256 || h == ATT_HASH_SHA384 ||
	       h == ATT_HASH_SHA512;
}

int att_md_new(enum att_hash h, struct att_md **out)
{
	struct att_md *m;

	if (!att_hash_info(h))
		return ATT_E_UNSUPPORTED;
	m = calloc(1, sizeof(*m));
	if (!m)
		return ATT_E_NOMEM;
	m->hash = h;
	m->fast = fast_hash(h);
	if (m->fast) {
		*out = m;
		return ATT_OK;
	}
	m->md = EVP_MD_fetch(NULL, evp_name(h), NULL);
	if (!m->md) {
		free(m);
		return ATT_E_UNSUPPORTED;
	}
	m->ctx = EVP_MD_CTX_new();
	if (!m->ctx) {
		EVP_MD_free(m->md);
		free(m);
		return ATT_E_NOMEM;
	}
	*out = m;
	return ATT_OK;
}

void att_md_free(struct att_md *m)
{
	if (!m)
		return;
	EVP_MD_CTX_free(m->ctx);
	EVP_MD_free(m->md);
	free(m);
}

enum att_hash att_md_hash(const struct att_md *m)
{
	return m->hash;
}

int att_md_init(struct att_md *m)
{
	int ok;

	switch (m->fast ? m->hash : ATT_HASH_NONE) {
	case ATT_HASH_SHA1:
		ok = SHA1_Init(&m->u.sha1);
		break;
	case ATT_HASH_SHA224:
		ok = SHA224_Init(&m->u.sha256);
		break;
	case ATT_HASH_SHA256:
		ok = SHA256_Init(&m->u.sha256);
		break;
	case ATT_HASH_SHA384:
		ok = SHA384_Init(&m->u.sha512);
		break;
	case ATT_HASH_SHA512:
		ok = SHA512_Init(&m->u.sha512);
		break;
	default:
		ok = EVP_DigestInit_ex2(m->ctx, m->md, NULL);
	}
	return ok == 1 ? ATT_OK : ATT_E_CRYPTO;
}

int att_md_update(struct att_md *m, const void *p, size_t n)
{
	int ok;

	switch (m->fast ? m->hash : ATT_HASH_NONE) {
	case ATT_HASH_SHA1:
		ok = SHA1_Update(&m->u.sha1, p, n);
		break;
	case ATT_HASH_SHA224:
	case ATT_HASH_SHA256:
		ok = SHA256_Update(&m->u.sha256, p, n);
		break;
	case ATT_HASH_SHA384:
	case ATT_HASH_SHA512:
		ok = SHA512_Update(&m->u.sha512, p, n);
		break;
	default:
		ok = EVP_DigestUpdate(m->ctx, p, n);
	}
	return ok == 1 ? ATT_OK : ATT_E_CRYPTO;
}

int att_md_final(struct att_md *m, uint8_t *out)
{
	int ok;

	switch (m->fast ? m->hash : ATT_HASH_NONE) {
	case ATT_HASH_SHA1:
		ok = SHA1_Final(out, &m->u.sha1);
		break;
	case ATT_HASH_SHA224:
		ok = SHA224_Final(out, &m->u.sha256);
		break;
	case ATT_HASH_SHA256:
		ok = SHA256_Final(out, &m->u.sha256);
		break;
	case ATT_HASH_SHA384:
		ok = SHA384_Final(out, &m->u.sha512);
		break;
	case ATT_HASH_SHA512:
		ok = SHA512_Final(out, &m->u.sha512);
		break;
	default:
		ok = EVP_DigestFinal_ex(m->ctx, out, NULL);
	}
	return ok == 1 ? ATT_OK : ATT_E_CRYPTO;
}

int att_md_digest(struct att_md *m, const void *p, size_t n, uint8_t *out)
{
	int rc = att_md_init(m);

	if (!rc)
		rc = att_md_update(m, p, n);
	if (!rc)
		rc = att_md_final(m, out);
	return rc;
}

int att_digest(enum att_hash h, const void *p, size_t n, uint8_t *out)
{
	struct att_md *m;
	int rc = att_md_new(h, &m);

	if (rc)
		return rc;
	rc = att_md_digest(m, p, n, out);
	att_md_free(m);
	return rc;
}
