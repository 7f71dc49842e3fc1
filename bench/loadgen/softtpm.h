/* SPDX-License-Identifier: Apache-2.0 */
/*
 * softtpm.h - the load generator's software TPM: an RSA-2048 EK held by
 * OpenSSL, and TPM2_ActivateCredential done in software (docs/verifier.md,
 * "Enrollment").
 */
#ifndef BENCH_SOFTTPM_H
#define BENCH_SOFTTPM_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "attest/tpm_cred.h"
#include "attest/tpm_quote.h"

struct softtpm_ek;

/* A fresh RSA-2048 EK (nameAlg sha256, AES-128-CFB, TCG EK attributes). */
int softtpm_ek_new(struct softtpm_ek **out);
/* A fresh ECC NIST P-256 EK (same attributes and symmetric scheme). */
int softtpm_ek_new_ecc(struct softtpm_ek **out);
/* The EK's key pair (owned by ek), e.g. for its certificate. */
EVP_PKEY *softtpm_ek_pkey(const struct softtpm_ek *ek);
void softtpm_ek_free(struct softtpm_ek *ek);
/* The EK's marshaled TPM2B_PUBLIC (owned by ek). */
const uint8_t *softtpm_ek_public(const struct softtpm_ek *ek, size_t *len);

/*
 * TPM2_ActivateCredential: recovers the seed (RSA-OAEP, label
 * "IDENTITY\0"; ECC: ECDH with the ephemeral point and KDFe), checks the outer
 * HMAC (KDFa "INTEGRITY") over encIdentity || ak_name, decrypts encIdentity
 * (KDFa "STORAGE", AES-128-CFB, IV 0) and returns the secret in out (cap
 * bytes). ATT_E_VERIFY when the HMAC does not match.
 */
int softtpm_activate(const struct softtpm_ek *ek, const uint8_t *ak_name,
		     size_t ak_name_len, const struct att_cred *cred,
		     uint8_t *out, size_t cap, size_t *out_len);

struct softtpm_ak;

/* A fresh ECDSA P-256 AK (restricted signing, ECDSA-SHA256, nameAlg sha256). */
int softtpm_ak_new(struct softtpm_ak **out);
void softtpm_ak_free(struct softtpm_ak *ak);
/* A TPM reset: resetCount moves on (the clock keeps counting up). */
void softtpm_ak_reboot(struct softtpm_ak *ak);
/* The AK's marshaled TPM2B_PUBLIC (owned by ak). */
const uint8_t *softtpm_ak_public(const struct softtpm_ak *ak, size_t *len);

/*
 * TPM2_Quote: TPMS_ATTEST (magic, quote type, extraData = nonce, clock
 * info, selection sel, pcrDigest = SHA-256 over pcrs in selection order)
 * marshaled into attest, and its ECDSA-SHA256 TPMT_SIGNATURE into sig.
 * The AK's clock advances by one each call.
 */
int softtpm_quote(struct softtpm_ak *ak, const uint8_t *nonce, size_t nlen,
		  const struct att_pcr_sel *sel, const struct att_pcrs *pcrs,
		  uint8_t *attest, size_t acap, size_t *alen, uint8_t *sig,
		  size_t scap, size_t *slen);

#endif
