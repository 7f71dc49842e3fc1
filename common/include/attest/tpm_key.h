/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tpm_key.h - TPM public areas (TPM2B_PUBLIC) on the verifier side: parse
 * with libtss2-mu, compute the Name, convert to an OpenSSL key, and check
 * that a key is fit to be an attestation key (AK).
 */
#ifndef ATTEST_TPM_KEY_H
#define ATTEST_TPM_KEY_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

/* A Name: be16 nameAlg || H_nameAlg(TPMT_PUBLIC). */
#define ATT_TPM_NAME_MAX (2 + 64)

struct att_tpm_key;

/*
 * Parses a marshaled TPM2B_PUBLIC (as TPM2_ReadPublic and TPM2_Create
 * return it). Only RSA (1024..4096 bits) and ECC (NIST P-256/384/521) keys
 * with a known nameAlg are accepted; a non-canonical encoding or trailing
 * bytes are rejected (ATT_E_FORMAT, ATT_E_TRAILING, ATT_E_UNSUPPORTED).
 */
int att_tpm_key_parse(const uint8_t *p, size_t len, struct att_tpm_key **out);
/*
 * One more reference to a parsed key, which is read-only and may be used
 * by several threads at once; att_tpm_key_free drops one and frees the key
 * with the last.
 */
struct att_tpm_key *att_tpm_key_ref(struct att_tpm_key *k);
void att_tpm_key_free(struct att_tpm_key *k);

const TPMT_PUBLIC *att_tpm_key_public(const struct att_tpm_key *k);
/* The key as an OpenSSL public key (owned by k). */
EVP_PKEY *att_tpm_key_pkey(const struct att_tpm_key *k);
/* The key's Name (owned by k). */
const uint8_t *att_tpm_key_name(const struct att_tpm_key *k, size_t *len);
/* The key's TPM2B_PUBLIC, as parsed. */
const uint8_t *att_tpm_key_bytes(const struct att_tpm_key *k, size_t *len);

/* Why a key is not an acceptable AK. */
enum att_ak_reason {
	ATT_AK_OK = 0,
	ATT_AK_NOT_RESTRICTED,	  /* restricted attribute clear */
	ATT_AK_NOT_SIGN,	  /* sign clear */
	ATT_AK_DECRYPT,		  /* decrypt set: not a pure signing key */
	ATT_AK_NOT_FIXED_TPM,	  /* fixedTPM clear */
	ATT_AK_NOT_FIXED_PARENT,  /* fixedParent clear */
	ATT_AK_NOT_TPM_GENERATED, /* sensitiveDataOrigin clear */
	ATT_AK_SCHEME,	  /* no signing scheme, or not RSASSA/RSAPSS/ECDSA */
	ATT_AK_WEAK_HASH, /* SHA-1 (or unknown) signing hash or nameAlg */
	ATT_AK_WEAK_KEY,  /* RSA below 2048 bits */
};

/*
 * Checks the attributes and scheme of a would-be AK. ATT_OK, or
 * ATT_E_VERIFY with *reason set (reason may be NULL).
 */
int att_tpm_ak_check(const struct att_tpm_key *ak, enum att_ak_reason *reason);
const char *att_ak_reason_str(enum att_ak_reason r);

#endif
