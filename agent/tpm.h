/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tpm.h - the agent's TPM layer over tpm2-tss ESAPI: endorsement key and
 * its certificate, attestation key (create, persist, reload), quote,
 * credential activation and PCR reads.
 *
 * Every function returns ATT_OK or a negative ATT_E_*; TPM failures are
 * ATT_E_TPM, logged once here with Tss2_RC_Decode's text.
 */
#ifndef ATTEST_AGENT_TPM_H
#define ATTEST_AGENT_TPM_H

#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_esys.h>

#include "attest/buf.h"
#include "attest/pcrs.h"
#include "attest/tpm_cred.h"
#include "attest/tpm_quote.h"

/* TCG EK credential profile NV indices of the EK certificates. */
#define AGENT_EK_CERT_NV_RSA 0x01c00002u
#define AGENT_EK_CERT_NV_ECC 0x01c0000au
/* Default persistent handle of the AK. */
#define AGENT_AK_HANDLE_DEFAULT 0x81010010u

enum agent_key_alg {
	AGENT_KEY_RSA = 0, /* RSA 2048 (TCG EK template L-1) */
	AGENT_KEY_ECC = 1, /* NIST P-256 (TCG EK template L-2) */
};

enum agent_ak_type {
	AGENT_AK_RSA_RSASSA = 0, /* RSA 2048, RSASSA-PKCS1v1.5 SHA-256 */
	AGENT_AK_RSA_RSAPSS = 1, /* RSA 2048, RSASSA-PSS SHA-256 */
	AGENT_AK_ECC_ECDSA = 2,	 /* NIST P-256, ECDSA SHA-256 */
};

struct agent_tpm;

/*
 * Opens the TPM named by a tpm2-tools style TCTI string:
 * "device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=2321", "mssim:...";
 * NULL or "": $TPM2TOOLS_TCTI as tpm2-tools read it, else tctildr's
 * default (tpm2-abrmd, /dev/tpmrm0, /dev/tpm0, ...).
 */
int agent_tpm_new(const char *tcti, struct agent_tpm **out);
/* Flushes transient objects (persistent ones stay) and closes. */
void agent_tpm_free(struct agent_tpm *t);

/* For code that needs more of ESAPI (tests). */
ESYS_CONTEXT *agent_tpm_esys(struct agent_tpm *t);

/*
 * Creates (once per handle) the EK of that algorithm from the TCG
 * default template and writes its marshaled TPM2B_PUBLIC into out.
 */
int agent_tpm_ek_public(struct agent_tpm *t, enum agent_key_alg alg,
			struct att_buf *out);
/* The EK certificate (DER, as stored) from NV; ATT_E_NOT_FOUND if none. */
int agent_tpm_ek_cert(struct agent_tpm *t, enum agent_key_alg alg,
		      struct att_buf *out);

/* An AK as saved on disk: TPM2B_PUBLIC || TPM2B_PRIVATE, marshaled. */
#define AGENT_AK_BLOB_MAX (sizeof(TPM2B_PUBLIC) + sizeof(TPM2B_PRIVATE))

/*
 * Creates an AK of that type as a child of the EK of ek_alg and loads it.
 * blob (may be NULL) receives the saved-context form for agent_tpm_ak_load
 * after a restart.
 */
int agent_tpm_ak_create(struct agent_tpm *t, enum agent_ak_type type,
			enum agent_key_alg ek_alg, struct att_buf *blob);
/* Loads a saved AK under the EK of ek_alg (the AK's parent). */
int agent_tpm_ak_load(struct agent_tpm *t, enum agent_key_alg ek_alg,
		      const uint8_t *blob, size_t len);
/* Makes the loaded AK persistent at handle (0x81xxxxxx). ATT_E_EXISTS when
 * the handle is taken. */
int agent_tpm_ak_persist(struct agent_tpm *t, uint32_t handle);
/* Uses the persistent AK at handle (ATT_E_NOT_FOUND when none). */
int agent_tpm_ak_load_persistent(struct agent_tpm *t, uint32_t handle);
/*
 * The AK kept at persistent handle: loaded when it is there, else created
 * (type, child of the EK of ek_alg) and persisted there once. *created
 * (may be NULL) tells which. An object at handle that is not an AK of that
 * type is left alone: ATT_E_EXISTS.
 */
int agent_tpm_ak_ensure(struct agent_tpm *t, enum agent_ak_type type,
			enum agent_key_alg ek_alg, uint32_t handle,
			int *created);
/* Removes the persistent object at handle. */
int agent_tpm_evict(struct agent_tpm *t, uint32_t handle);
/* The current AK's marshaled TPM2B_PUBLIC (ATT_E_STATE without an AK). */
int agent_tpm_ak_public(struct agent_tpm *t, struct att_buf *out);
/* The current AK's ESYS handle (ESYS_TR_NONE without an AK). */
ESYS_TR agent_tpm_ak_handle(struct agent_tpm *t);

/*
 * TPM2_Quote with the AK over sel with nonce as qualifyingData: attest
 * gets the TPMS_ATTEST bytes, sig the marshaled TPMT_SIGNATURE.
 */
int agent_tpm_quote(struct agent_tpm *t, const uint8_t *nonce, size_t nonce_len,
		    const struct att_pcr_sel *sel, struct att_buf *attest,
		    struct att_buf *sig);

/* Reads the selected PCR values into pcrs (added to what it holds). */
int agent_tpm_pcr_read(struct agent_tpm *t, const struct att_pcr_sel *sel,
		       struct att_pcrs *pcrs);
/* Extends one PCR of one bank with a digest of that bank's size. */
int agent_tpm_pcr_extend(struct agent_tpm *t, unsigned int pcr,
			 enum att_hash bank, const uint8_t *digest);

/*
 * TPM2_ActivateCredential of cred with the current AK and the EK of
 * ek_alg. out (max bytes) receives the secret; ATT_E_TPM when the TPM
 * refuses it (wrong EK, wrong AK name, tampered blob).
 */
int agent_tpm_activate(struct agent_tpm *t, enum agent_key_alg ek_alg,
		       const struct att_cred *cred, uint8_t *out, size_t max,
		       size_t *len);

#endif
