/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tpm_esys.h - libattest's one wrapper of tpm2-tss ESAPI, for attest-agent
 * (and the tests that drive swtpm through it) and slimctl: opening the
 * TPM, endorsement key and its certificate, attestation key (create,
 * persist, reload), quote, credential activation and PCR reads. A binary
 * that uses it links tss2-esys, tss2-tctildr and tss2-rc.
 *
 * Every function returns ATT_OK or a negative ATT_E_*; TPM failures are
 * ATT_E_TPM, logged once here with Tss2_RC_Decode's text (att_esys_open
 * with a struct att_esys_fail leaves the words to its caller).
 */
#ifndef ATTEST_TPM_ESYS_H
#define ATTEST_TPM_ESYS_H

#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_esys.h>

#include "attest/buf.h"
#include "attest/pcrs.h"
#include "attest/tpm_cred.h"
#include "attest/tpm_quote.h"

/* TCG EK credential profile NV indices of the EK certificates. */
#define ATT_ESYS_EK_CERT_NV_RSA 0x01c00002u
#define ATT_ESYS_EK_CERT_NV_ECC 0x01c0000au
/* Default persistent handle of the AK. */
#define ATT_ESYS_AK_HANDLE_DEFAULT 0x81010010u

enum att_esys_key_alg {
	ATT_ESYS_KEY_RSA = 0, /* RSA 2048 (TCG EK template L-1) */
	ATT_ESYS_KEY_ECC = 1, /* NIST P-256 (TCG EK template L-2) */
};

enum att_esys_ak_type {
	ATT_ESYS_AK_RSA_RSASSA = 0, /* RSA 2048, RSASSA-PKCS1v1.5 SHA-256 */
	ATT_ESYS_AK_RSA_RSAPSS = 1, /* RSA 2048, RSASSA-PSS SHA-256 */
	ATT_ESYS_AK_ECC_ECDSA = 2,  /* NIST P-256, ECDSA SHA-256 */
};

struct att_esys;

/*
 * Opens the TPM named by a tpm2-tools style TCTI string:
 * "device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=2321", "mssim:...";
 * NULL or "": $TPM2TOOLS_TCTI as tpm2-tools read it, else tctildr's
 * default (tpm2-abrmd, /dev/tpmrm0, /dev/tpm0, ...).
 */
int att_esys_new(const char *tcti, struct att_esys **out);

/* How att_esys_open opens the TPM. */
enum {
	ATT_ESYS_TCTI_ENV = 1u << 0, /* NULL or "" tcti: $TPM2TOOLS_TCTI */
	ATT_ESYS_STARTUP = 1u << 1,  /* TPM2_Startup(CLEAR), a refusal only
					warned about */
};

/* Where att_esys_open failed, for a caller that words it itself. */
struct att_esys_fail {
	enum { ATT_ESYS_FAIL_TCTI, ATT_ESYS_FAIL_INIT } step;
	TSS2_RC rc;
};

/*
 * att_esys_new is att_esys_open(tcti, ATT_ESYS_TCTI_ENV |
 * ATT_ESYS_STARTUP, out, NULL). With fail set, a failure to open is not
 * logged: fail says which step and its TSS2_RC (ATT_E_TPM).
 */
int att_esys_open(const char *tcti, unsigned int flags, struct att_esys **out,
		  struct att_esys_fail *fail);
/* Flushes transient objects (persistent ones stay) and closes. */
void att_esys_free(struct att_esys *t);

/* For code that needs more of ESAPI (tests). */
ESYS_CONTEXT *att_esys_context(struct att_esys *t);

/*
 * Creates (once per handle) the EK of that algorithm from the TCG
 * default template and writes its marshaled TPM2B_PUBLIC into out.
 */
int att_esys_ek_public(struct att_esys *t, enum att_esys_key_alg alg,
		       struct att_buf *out);
/* The EK certificate (DER, as stored) from NV; ATT_E_NOT_FOUND if none. */
int att_esys_ek_cert(struct att_esys *t, enum att_esys_key_alg alg,
		     struct att_buf *out);

/* An AK as saved on disk: TPM2B_PUBLIC || TPM2B_PRIVATE, marshaled. */
#define ATT_ESYS_AK_BLOB_MAX (sizeof(TPM2B_PUBLIC) + sizeof(TPM2B_PRIVATE))

/*
 * Creates an AK of that type as a child of the EK of ek_alg and loads it.
 * blob (may be NULL) receives the saved-context form for att_esys_ak_load
 * after a restart.
 */
int att_esys_ak_create(struct att_esys *t, enum att_esys_ak_type type,
		       enum att_esys_key_alg ek_alg, struct att_buf *blob);
/* Loads a saved AK under the EK of ek_alg (the AK's parent). */
int att_esys_ak_load(struct att_esys *t, enum att_esys_key_alg ek_alg,
		     const uint8_t *blob, size_t len);
/* Makes the loaded AK persistent at handle (0x81xxxxxx). ATT_E_EXISTS when
 * the handle is taken. */
int att_esys_ak_persist(struct att_esys *t, uint32_t handle);
/* Uses the persistent AK at handle (ATT_E_NOT_FOUND when none). */
int att_esys_ak_load_persistent(struct att_esys *t, uint32_t handle);
/*
 * The AK kept at persistent handle: loaded when it is there, else created
 * (type, child of the EK of ek_alg) and persisted there once. *created
 * (may be NULL) tells which. An object at handle that is not an AK of that
 * type is left alone: ATT_E_EXISTS.
 */
int att_esys_ak_ensure(struct att_esys *t, enum att_esys_ak_type type,
		       enum att_esys_key_alg ek_alg, uint32_t handle,
		       int *created);
/* Removes the persistent object at handle. */
int att_esys_evict(struct att_esys *t, uint32_t handle);
/* The current AK's marshaled TPM2B_PUBLIC (ATT_E_STATE without an AK). */
int att_esys_ak_public(struct att_esys *t, struct att_buf *out);
/* The current AK's ESYS handle (ESYS_TR_NONE without an AK). */
ESYS_TR att_esys_ak_handle(struct att_esys *t);

/*
 * TPM2_Quote with the AK over sel with nonce as qualifyingData: attest
 * gets the TPMS_ATTEST bytes, sig the marshaled TPMT_SIGNATURE.
 */
int att_esys_quote(struct att_esys *t, const uint8_t *nonce, size_t nonce_len,
		   const struct att_pcr_sel *sel, struct att_buf *attest,
		   struct att_buf *sig);

/* Reads the selected PCR values into pcrs (added to what it holds). */
int att_esys_pcr_read(struct att_esys *t, const struct att_pcr_sel *sel,
		      struct att_pcrs *pcrs);
/* Extends one PCR of one bank with a digest of that bank's size. */
int att_esys_pcr_extend(struct att_esys *t, unsigned int pcr,
			enum att_hash bank, const uint8_t *digest);

/*
 * TPM2_ActivateCredential of cred with the current AK and the EK of
 * ek_alg. out (max bytes) receives the secret; ATT_E_TPM when the TPM
 * refuses it (wrong EK, wrong AK name, tampered blob).
 */
int att_esys_activate(struct att_esys *t, enum att_esys_key_alg ek_alg,
		      const struct att_cred *cred, uint8_t *out, size_t max,
		      size_t *len);

#endif
