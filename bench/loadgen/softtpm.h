/* SPDX-License-Identifier: Apache-2.0 */
/*
 * softtpm.h - the load generator's software TPM: an RSA-2048 EK held by
 * OpenSSL, and TPM2_ActivateCredential done in software (FORMATS.md 4).
 */
#ifndef BENCH_SOFTTPM_H
#define BENCH_SOFTTPM_H

#include <stddef.h>
#include <stdint.h>

#include "attest/tpm_cred.h"

struct softtpm_ek;

/* A fresh RSA-2048 EK (nameAlg sha256, AES-128-CFB, TCG EK attributes). */
int softtpm_ek_new(struct softtpm_ek **out);
void softtpm_ek_free(struct softtpm_ek *ek);
/* The EK's marshaled TPM2B_PUBLIC (owned by ek). */
const uint8_t *softtpm_ek_public(const struct softtpm_ek *ek, size_t *len);

/*
 * TPM2_ActivateCredential: decrypts the seed (RSA-OAEP, label
 * "IDENTITY\0"), checks the outer HMAC (KDFa "INTEGRITY") over
 * encIdentity || ak_name, decrypts encIdentity (KDFa "STORAGE",
 * AES-128-CFB, IV 0) and returns the secret in out (cap bytes).
 * ATT_E_VERIFY when the HMAC does not match.
 */
int softtpm_activate(const struct softtpm_ek *ek, const uint8_t *ak_name,
		     size_t ak_name_len, const struct att_cred *cred,
		     uint8_t *out, size_t cap, size_t *out_len);

#endif
