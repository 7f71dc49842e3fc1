/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tpm_cred.h - TPM2_MakeCredential in software (the verifier's half of
 * credential activation): proves that an AK (known by its Name) lives in
 * the TPM that holds an EK, for RSA and ECC EKs.
 */
#ifndef ATTEST_TPM_CRED_H
#define ATTEST_TPM_CRED_H

#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_tpm2_types.h>

#include "attest/digest.h"
#include "attest/tpm_key.h"

/*
 * What TPM2_ActivateCredential takes: credentialBlob (TPM2B_ID_OBJECT:
 * be16 hmac size || outer HMAC || encIdentity) and secret
 * (TPM2B_ENCRYPTED_SECRET: OAEP-encrypted seed for RSA, marshaled
 * TPMS_ECC_POINT of the ephemeral key for ECC).
 */
struct att_cred {
	TPM2B_ID_OBJECT blob;
	TPM2B_ENCRYPTED_SECRET secret;
};

/*
 * Makes a credential for the secret cred (1..digest size of the EK's
 * nameAlg bytes) bound to the AK name ak_name and the EK ek (a restricted
 * decryption key with an AES-CFB symmetric scheme). The seed and derived
 * keys are wiped before returning.
 */
int att_make_credential(const struct att_tpm_key *ek, const uint8_t *ak_name,
			size_t ak_name_len, const uint8_t *cred,
			size_t cred_len, struct att_cred *out);

/*
 * KDFa (SP 800-108 counter mode, HMAC): out = first bits/8 bytes of
 * HMAC_h(key, be32 i || label || 0 || u || v || be32 bits), i = 1, 2, ...
 */
int att_kdfa(enum att_hash h, const uint8_t *key, size_t keylen,
	     const char *label, const uint8_t *u, size_t ulen, const uint8_t *v,
	     size_t vlen, uint32_t bits, uint8_t *out);

/*
 * KDFe (SP 800-56A concatenation): out = first bits/8 bytes of
 * H(be32 i || z || label || 0 || u || v), i = 1, 2, ...
 */
int att_kdfe(enum att_hash h, const uint8_t *z, size_t zlen, const char *label,
	     const uint8_t *u, size_t ulen, const uint8_t *v, size_t vlen,
	     uint32_t bits, uint8_t *out);

#endif
