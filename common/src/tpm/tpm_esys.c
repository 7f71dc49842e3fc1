// SPDX-License-Identifier: Apache-2.0
/*
 * tpm_esys.c - libattest's tpm2-tss ESAPI wrapper (see tpm_esys.h).
 */
#include "attest/tpm_esys.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#include "attest/err.h"
#include "attest/log.h"

#define EK_COUNT 2
#define NV_CHUNK 512

struct att_esys {
	TSS2_TCTI_CONTEXT *tcti;
	ESYS_CONTEXT *esys;
	ESYS_TR ek[EK_COUNT];
	TPM2B_PUBLIC ek_pub[EK_COUNT];
	ESYS_TR ak;
	int ak_persistent; /* the handle is not ours to flush */
	TPM2B_PUBLIC ak_pub;
};

/* The one place TPM errors become text. */
static int tpm_fail(const char *what, TSS2_RC rc)
{
	att_err("tpm: %s: %s (0x%x)", what, Tss2_RC_Decode(rc),
		(unsigned int)rc);
	return ATT_E_TPM;
}

/* TCG EK Credential Profile, policy A: PolicySecret(TPM_RH_ENDORSEMENT). */
static const uint8_t ek_policy_a_sha256[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8, 0x1a, 0x90, 0xcc,
	0x8d, 0x46, 0xa5, 0xd7, 0x24, 0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52,
	0x0b, 0x64, 0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa,
};

static void ek_template(enum att_esys_key_alg alg, TPM2B_PUBLIC *t)
{
	TPMT_PUBLIC *p = &t->publicArea;

	memset(t, 0, sizeof(*t));
	p->nameAlg = TPM2_ALG_SHA256;
	p->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_ADMINWITHPOLICY |
			      TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
	p->authPolicy.size = sizeof(ek_policy_a_sha256);
	memcpy(p->authPolicy.buffer, ek_policy_a_sha256,
	       sizeof(ek_policy_a_sha256));
	if (alg == ATT_ESYS_KEY_RSA) {
		p->type = TPM2_ALG_RSA;
		p->parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_AES;
		p->parameters.rsaDetail.symmetric.keyBits.aes = 128;
		p->parameters.rsaDetail.symmetric.mode.aes = TPM2_ALG_CFB;
		p->parameters.rsaDetail.scheme.scheme = TPM2_ALG_NULL;
		p->parameters.rsaDetail.keyBits = 2048;
		p->parameters.rsaDetail.exponent = 0;
		p->unique.rsa.size = 256;
	} else {
		p->type = TPM2_ALG_ECC;
		p->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
		p->parameters.eccDetail.symmetric.keyBits.aes = 128;
		p->parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
		p->parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
		p->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
		p->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
		p->unique.ecc.x.size = 32;
		p->unique.ecc.y.size = 32;
	}
}

static void ak_template(enum att_esys_ak_type type, TPM2B_PUBLIC *t)
{
	TPMT_PUBLIC *p = &t->publicArea;

	memset(t, 0, sizeof(*t));
	p->nameAlg = TPM2_ALG_SHA256;
	/*
	 * noDA: the AK has an empty authValue, so dictionary-attack
	 * protection guards nothing; with it, every power loss while the
	 * agent runs counts as a failed try, and a few of them lock quotes
	 * out until the TPM's recovery time passes (seen with swtpm after 3).
	 */
	p->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA |
			      TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT;
	if (type == ATT_ESYS_AK_ECC_ECDSA) {
		p->type = TPM2_ALG_ECC;
		p->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
		p->parameters.eccDetail.scheme.scheme = TPM2_ALG_ECDSA;
		p->parameters.eccDetail.scheme.details.ecdsa.hashAlg =
			TPM2_ALG_SHA256;
		p->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
		p->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	} else {
		p->type = TPM2_ALG_RSA;
		p->parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_NULL;
		p->parameters.rsaDetail.scheme.scheme =
			type == ATT_ESYS_AK_RSA_RSAPSS ? TPM2_ALG_RSAPSS
						       : TPM2_ALG_RSASSA;
		p->parameters.rsaDetail.scheme.details.anySig.hashAlg =
			TPM2_ALG_SHA256;
		p->parameters.rsaDetail.keyBits = 2048;
		p->parameters.rsaDetail.exponent = 0;
	}
}

int att_esys_new(const char *tcti, struct att_esys **out)
{
	return att_esys_open(tcti, ATT_ESYS_TCTI_ENV | ATT_ESYS_STARTUP, out,
			     NULL);
}

/* A failure to open: to fail when the caller words it, else logged. */
static int open_fail(struct att_esys_fail *fail, int step, const char *what,
		     TSS2_RC rc)
{
	if (!fail)
		return tpm_fail(what, rc);
	fail->step = step;
	fail->rc = rc;
	return ATT_E_TPM;
}

int att_esys_open(const char *tcti, unsigned int flags, struct att_esys **out,
		  struct att_esys_fail *fail)
{
	struct att_esys *t;
	TSS2_RC rc;
	int i;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return ATT_E_NOMEM;
	for (i = 0; i < EK_COUNT; i++)
		t->ek[i] = ESYS_TR_NONE;
	t->ak = ESYS_TR_NONE;
	if ((flags & ATT_ESYS_TCTI_ENV) && (!tcti || !*tcti))
		tcti = getenv("TPM2TOOLS_TCTI");
	rc = Tss2_TctiLdr_Initialize(tcti && *tcti ? tcti : NULL, &t->tcti);
	if (rc != TSS2_RC_SUCCESS) {
		free(t);
		return open_fail(fail, ATT_ESYS_FAIL_TCTI, "opening the TCTI",
				 rc);
	}
	rc = Esys_Initialize(&t->esys, t->tcti, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		Tss2_TctiLdr_Finalize(&t->tcti);
		free(t);
		return open_fail(fail, ATT_ESYS_FAIL_INIT, "Esys_Initialize",
				 rc);
	}
	if (!(flags & ATT_ESYS_STARTUP)) {
		*out = t;
		return ATT_OK;
	}
	/*
	 * A bare simulator may need TPM2_Startup; elsewhere firmware or the
	 * kernel did it (TPM_RC_INITIALIZE) or a resource manager refuses
	 * it: only worth a warning, the next command says what is wrong.
	 */
	rc = Esys_Startup(t->esys, TPM2_SU_CLEAR);
	if (rc != TSS2_RC_SUCCESS && (rc & 0xfff) != TPM2_RC_INITIALIZE)
		att_warn("tpm: TPM2_Startup: %s (0x%x)", Tss2_RC_Decode(rc),
			 (unsigned int)rc);
	*out = t;
	return ATT_OK;
}

static void flush_ak(struct att_esys *t)
{
	if (t->ak == ESYS_TR_NONE)
		return;
	if (t->ak_persistent)
		Esys_TR_Close(t->esys, &t->ak);
	else
		Esys_FlushContext(t->esys, t->ak);
	t->ak = ESYS_TR_NONE;
	t->ak_persistent = 0;
}

void att_esys_free(struct att_esys *t)
{
	int i;

	if (!t)
		return;
	if (t->esys) {
		flush_ak(t);
		for (i = 0; i < EK_COUNT; i++)
			if (t->ek[i] != ESYS_TR_NONE)
				Esys_FlushContext(t->esys, t->ek[i]);
		Esys_Finalize(&t->esys);
	}
	if (t->tcti)
		Tss2_TctiLdr_Finalize(&t->tcti);
	free(t);
}

ESYS_CONTEXT *att_esys_context(struct att_esys *t)
{
	return t->esys;
}

static int ek_load(struct att_esys *t, enum att_esys_key_alg alg)
{
	TPM2B_SENSITIVE_CREATE sens;
	TPM2B_PUBLIC tmpl;
	TPM2B_DATA outside;
	TPML_PCR_SELECTION pcrs;
	TPM2B_PUBLIC *pub = NULL;
	TSS2_RC rc;

	if (alg != ATT_ESYS_KEY_RSA && alg != ATT_ESYS_KEY_ECC)
		return ATT_E_INVAL;
	if (t->ek[alg] != ESYS_TR_NONE)
		return ATT_OK;
	/* Without a resource manager a TPM has few object slots (swtpm:
	 * 3): keep one EK loaded at a time; it is re-derived on demand. */
	for (int i = 0; i < EK_COUNT; i++) {
		if (t->ek[i] != ESYS_TR_NONE) {
			Esys_FlushContext(t->esys, t->ek[i]);
			t->ek[i] = ESYS_TR_NONE;
		}
	}
	memset(&sens, 0, sizeof(sens));
	memset(&outside, 0, sizeof(outside));
	memset(&pcrs, 0, sizeof(pcrs));
	ek_template(alg, &tmpl);
	rc = Esys_CreatePrimary(t->esys, ESYS_TR_RH_ENDORSEMENT,
				ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
				&sens, &tmpl, &outside, &pcrs, &t->ek[alg],
				&pub, NULL, NULL, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		t->ek[alg] = ESYS_TR_NONE;
		return tpm_fail("creating the EK", rc);
	}
	t->ek_pub[alg] = *pub;
	Esys_Free(pub);
	return ATT_OK;
}

static int marshal_public(const TPM2B_PUBLIC *pub, struct att_buf *out)
{
	uint8_t tmp[sizeof(TPM2B_PUBLIC)];
	size_t off = 0;
	TSS2_RC rc = Tss2_MU_TPM2B_PUBLIC_Marshal(pub, tmp, sizeof(tmp), &off);

	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("marshaling a public area", rc);
	out->len = 0;
	return att_buf_append(out, tmp, off);
}

int att_esys_ek_public(struct att_esys *t, enum att_esys_key_alg alg,
		       struct att_buf *out)
{
	int rc = ek_load(t, alg);

	return rc ? rc : marshal_public(&t->ek_pub[alg], out);
}

/* A policy session satisfying the EK's policy A. */
static int ek_session(struct att_esys *t, ESYS_TR *sess)
{
	TPMT_SYM_DEF sym = {.algorithm = TPM2_ALG_NULL};
	TSS2_RC rc;

	rc = Esys_StartAuthSession(t->esys, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				   NULL, TPM2_SE_POLICY, &sym, TPM2_ALG_SHA256,
				   sess);
	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("starting a policy session", rc);
	/* keep the session after use: we flush it ourselves, always */
	Esys_TRSess_SetAttributes(t->esys, *sess, TPMA_SESSION_CONTINUESESSION,
				  TPMA_SESSION_CONTINUESESSION);
	rc = Esys_PolicySecret(t->esys, ESYS_TR_RH_ENDORSEMENT, *sess,
			       ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
			       NULL, NULL, NULL, 0, NULL, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		Esys_FlushContext(t->esys, *sess);
		*sess = ESYS_TR_NONE;
		return tpm_fail("PolicySecret(endorsement)", rc);
	}
	return ATT_OK;
}

/* Whether a handle (persistent object, NV index) exists, without ESYS
 * logging an error for the ones that do not. */
static int handle_exists(struct att_esys *t, TPM2_HANDLE h, int *exists)
{
	TPMS_CAPABILITY_DATA *cap = NULL;
	TPMI_YES_NO more;
	TSS2_RC rc;

	*exists = 0;
	rc = Esys_GetCapability(t->esys, ESYS_TR_NONE, ESYS_TR_NONE,
				ESYS_TR_NONE, TPM2_CAP_HANDLES, h, 1, &more,
				&cap);
	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("TPM2_GetCapability(handles)", rc);
	*exists = cap->data.handles.count >= 1 &&
		  cap->data.handles.handle[0] == h;
	Esys_Free(cap);
	return ATT_OK;
}

int att_esys_ek_cert(struct att_esys *t, enum att_esys_key_alg alg,
		     struct att_buf *out)
{
	TPM2_HANDLE idx = alg == ATT_ESYS_KEY_RSA ? ATT_ESYS_EK_CERT_NV_RSA
						  : ATT_ESYS_EK_CERT_NV_ECC;
	TPM2B_NV_PUBLIC *nvpub = NULL;
	ESYS_TR nv = ESYS_TR_NONE, auth;
	uint16_t size, off = 0;
	TSS2_RC rc;
	int ret = ATT_OK, exists;

	if (alg != ATT_ESYS_KEY_RSA && alg != ATT_ESYS_KEY_ECC)
		return ATT_E_INVAL;
	out->len = 0;
	ret = handle_exists(t, idx, &exists);
	if (ret)
		return ret;
	if (!exists)
		return ATT_E_NOT_FOUND; /* no such index: no certificate */
	rc = Esys_TR_FromTPMPublic(t->esys, idx, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, &nv);
	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("opening the EK certificate index", rc);
	rc = Esys_NV_ReadPublic(t->esys, nv, ESYS_TR_NONE, ESYS_TR_NONE,
				ESYS_TR_NONE, &nvpub, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		ret = tpm_fail("reading the EK certificate index", rc);
		goto out;
	}
	size = nvpub->nvPublic.dataSize;
	auth = (nvpub->nvPublic.attributes & TPMA_NV_AUTHREAD)
		       ? nv
		       : ESYS_TR_RH_OWNER;
	Esys_Free(nvpub);
	if (!size) {
		ret = ATT_E_NOT_FOUND;
		goto out;
	}
	while (off < size) {
		uint16_t n = size - off > NV_CHUNK ? NV_CHUNK : size - off;
		TPM2B_MAX_NV_BUFFER *data = NULL;

		rc = Esys_NV_Read(t->esys, auth, nv, ESYS_TR_PASSWORD,
				  ESYS_TR_NONE, ESYS_TR_NONE, n, off, &data);
		if (rc != TSS2_RC_SUCCESS) {
			ret = tpm_fail("reading the EK certificate", rc);
			goto out;
		}
		ret = data->size == n ? att_buf_append(out, data->buffer, n)
				      : ATT_E_TPM;
		Esys_Free(data);
		if (ret)
			goto out;
		off += n;
	}
out:
	Esys_TR_Close(t->esys, &nv);
	return ret;
}

static int load_under_ek(struct att_esys *t, enum att_esys_key_alg ek_alg,
			 const TPM2B_PRIVATE *priv, const TPM2B_PUBLIC *pub)
{
	ESYS_TR sess = ESYS_TR_NONE, h = ESYS_TR_NONE;
	TSS2_RC rc;
	int ret;

	ret = ek_session(t, &sess);
	if (ret)
		return ret;
	rc = Esys_Load(t->esys, t->ek[ek_alg], sess, ESYS_TR_NONE, ESYS_TR_NONE,
		       priv, pub, &h);
	Esys_FlushContext(t->esys, sess);
	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("loading the AK", rc);
	flush_ak(t);
	t->ak = h;
	t->ak_pub = *pub;
	return ATT_OK;
}

static int blob_marshal(const TPM2B_PUBLIC *pub, const TPM2B_PRIVATE *priv,
			struct att_buf *out)
{
	uint8_t tmp[ATT_ESYS_AK_BLOB_MAX];
	size_t off = 0;

	if (Tss2_MU_TPM2B_PUBLIC_Marshal(pub, tmp, sizeof(tmp), &off) ||
	    Tss2_MU_TPM2B_PRIVATE_Marshal(priv, tmp, sizeof(tmp), &off))
		return ATT_E_INTERNAL;
	out->len = 0;
	return att_buf_append(out, tmp, off);
}

int att_esys_ak_create(struct att_esys *t, enum att_esys_ak_type type,
		       enum att_esys_key_alg ek_alg, struct att_buf *blob)
{
	TPM2B_SENSITIVE_CREATE sens;
	TPM2B_PUBLIC tmpl;
	TPM2B_DATA outside;
	TPML_PCR_SELECTION pcrs;
	TPM2B_PUBLIC *pub = NULL;
	TPM2B_PRIVATE *priv = NULL;
	ESYS_TR sess = ESYS_TR_NONE;
	TSS2_RC rc;
	int ret;

	if (type > ATT_ESYS_AK_ECC_ECDSA)
		return ATT_E_INVAL;
	ret = ek_load(t, ek_alg);
	if (ret)
		return ret;
	memset(&sens, 0, sizeof(sens));
	memset(&outside, 0, sizeof(outside));
	memset(&pcrs, 0, sizeof(pcrs));
	ak_template(type, &tmpl);
	ret = ek_session(t, &sess);
	if (ret)
		return ret;
	rc = Esys_Create(t->esys, t->ek[ek_alg], sess, ESYS_TR_NONE,
			 ESYS_TR_NONE, &sens, &tmpl, &outside, &pcrs, &priv,
			 &pub, NULL, NULL, NULL);
	Esys_FlushContext(t->esys, sess);
	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("creating the AK", rc);
	ret = load_under_ek(t, ek_alg, priv, pub);
	if (!ret && blob)
		ret = blob_marshal(pub, priv, blob);
	Esys_Free(pub);
	Esys_Free(priv);
	return ret;
}

int att_esys_ak_load(struct att_esys *t, enum att_esys_key_alg ek_alg,
		     const uint8_t *blob, size_t len)
{
	TPM2B_PUBLIC pub;
	TPM2B_PRIVATE priv;
	size_t off = 0;
	int ret;

	memset(&pub, 0, sizeof(pub));
	memset(&priv, 0, sizeof(priv));
	if (!blob)
		return ATT_E_INVAL;
	if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(blob, len, &off, &pub) ||
	    Tss2_MU_TPM2B_PRIVATE_Unmarshal(blob, len, &off, &priv))
		return ATT_E_FORMAT;
	if (off != len)
		return ATT_E_TRAILING;
	ret = ek_load(t, ek_alg);
	return ret ? ret : load_under_ek(t, ek_alg, &priv, &pub);
}

int att_esys_ak_persist(struct att_esys *t, uint32_t handle)
{
	ESYS_TR h = ESYS_TR_NONE;
	TSS2_RC rc;
	int ret, exists;

	if (t->ak == ESYS_TR_NONE)
		return ATT_E_STATE;
	if ((handle >> 24) != TPM2_HT_PERSISTENT)
		return ATT_E_INVAL;
	ret = handle_exists(t, handle, &exists);
	if (ret)
		return ret;
	if (exists)
		return ATT_E_EXISTS;
	rc = Esys_EvictControl(t->esys, ESYS_TR_RH_OWNER, t->ak,
			       ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
			       handle, &h);
	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("persisting the AK", rc);
	flush_ak(t);
	t->ak = h;
	t->ak_persistent = 1;
	return ATT_OK;
}

/* Whether the current AK is the persistent object at handle. */
static int ak_is_at(struct att_esys *t, uint32_t handle)
{
	TPM2_HANDLE cur = 0;

	return t->ak_persistent && t->ak != ESYS_TR_NONE &&
	       Esys_TR_GetTpmHandle(t->esys, t->ak, &cur) == TSS2_RC_SUCCESS &&
	       cur == handle;
}

int att_esys_ak_load_persistent(struct att_esys *t, uint32_t handle)
{
	TPM2B_PUBLIC *pub = NULL;
	ESYS_TR h = ESYS_TR_NONE;
	TSS2_RC rc;
	int ret, exists;

	if ((handle >> 24) != TPM2_HT_PERSISTENT)
		return ATT_E_INVAL;
	ret = handle_exists(t, handle, &exists);
	if (ret)
		return ret;
	if (!exists)
		return ATT_E_NOT_FOUND;
	/* ESYS keeps one resource object per TPM handle: reuse ours */
	if (ak_is_at(t, handle)) {
		h = t->ak;
		t->ak = ESYS_TR_NONE;
		t->ak_persistent = 0;
	} else {
		rc = Esys_TR_FromTPMPublic(t->esys, handle, ESYS_TR_NONE,
					   ESYS_TR_NONE, ESYS_TR_NONE, &h);
		if (rc != TSS2_RC_SUCCESS)
			return tpm_fail("opening the persistent AK", rc);
	}
	rc = Esys_ReadPublic(t->esys, h, ESYS_TR_NONE, ESYS_TR_NONE,
			     ESYS_TR_NONE, &pub, NULL, NULL);
	if (rc != TSS2_RC_SUCCESS) {
		Esys_TR_Close(t->esys, &h);
		return tpm_fail("reading the AK", rc);
	}
	flush_ak(t);
	t->ak = h;
	t->ak_persistent = 1;
	t->ak_pub = *pub;
	Esys_Free(pub);
	return ATT_OK;
}

/* Whether a public area is what ak_template(type) makes. */
static int ak_is_type(const TPM2B_PUBLIC *pub, enum att_esys_ak_type type)
{
	TPM2B_PUBLIC want;
	const TPMT_PUBLIC *a = &pub->publicArea, *b = &want.publicArea;

	ak_template(type, &want);
	if (a->type != b->type || a->nameAlg != b->nameAlg ||
	    a->objectAttributes != b->objectAttributes || a->authPolicy.size)
		return 0;
	if (a->type == TPM2_ALG_RSA)
		return a->parameters.rsaDetail.scheme.scheme ==
			       b->parameters.rsaDetail.scheme.scheme &&
		       a->parameters.rsaDetail.scheme.details.anySig.hashAlg ==
			       b->parameters.rsaDetail.scheme.details.anySig
				       .hashAlg &&
		       a->parameters.rsaDetail.keyBits ==
			       b->parameters.rsaDetail.keyBits;
	return a->parameters.eccDetail.scheme.scheme ==
		       b->parameters.eccDetail.scheme.scheme &&
	       a->parameters.eccDetail.scheme.details.anySig.hashAlg ==
		       b->parameters.eccDetail.scheme.details.anySig.hashAlg &&
	       a->parameters.eccDetail.curveID ==
		       b->parameters.eccDetail.curveID;
}

int att_esys_ak_ensure(struct att_esys *t, enum att_esys_ak_type type,
		       enum att_esys_key_alg ek_alg, uint32_t handle,
		       int *created)
{
	int ret;

	if (created)
		*created = 0;
	if (type > ATT_ESYS_AK_ECC_ECDSA)
		return ATT_E_INVAL;
	ret = att_esys_ak_load_persistent(t, handle);
	if (ret == ATT_OK) {
		if (ak_is_type(&t->ak_pub, type))
			return ATT_OK;
		flush_ak(t);
		att_err("tpm: the object at 0x%08x is not the AK asked for",
			(unsigned int)handle);
		return ATT_E_EXISTS;
	}
	if (ret != ATT_E_NOT_FOUND)
		return ret;
	ret = att_esys_ak_create(t, type, ek_alg, NULL);
	if (!ret)
		ret = att_esys_ak_persist(t, handle);
	if (!ret && created)
		*created = 1;
	return ret;
}

int att_esys_evict(struct att_esys *t, uint32_t handle)
{
	ESYS_TR h = ESYS_TR_NONE, none = ESYS_TR_NONE;
	TSS2_RC rc;
	int ret, exists;

	if ((handle >> 24) != TPM2_HT_PERSISTENT)
		return ATT_E_INVAL;
	ret = handle_exists(t, handle, &exists);
	if (ret)
		return ret;
	if (!exists)
		return ATT_E_NOT_FOUND;
	/* ESYS has one resource object per TPM handle: reuse the AK's */
	if (ak_is_at(t, handle)) {
		h = t->ak;
		t->ak = ESYS_TR_NONE;
		t->ak_persistent = 0;
	} else {
		rc = Esys_TR_FromTPMPublic(t->esys, handle, ESYS_TR_NONE,
					   ESYS_TR_NONE, ESYS_TR_NONE, &h);
		if (rc != TSS2_RC_SUCCESS)
			return tpm_fail("opening a persistent object", rc);
	}
	rc = Esys_EvictControl(t->esys, ESYS_TR_RH_OWNER, h, ESYS_TR_PASSWORD,
			       ESYS_TR_NONE, ESYS_TR_NONE, handle, &none);
	if (rc != TSS2_RC_SUCCESS) {
		Esys_TR_Close(t->esys, &h);
		return tpm_fail("evicting a persistent object", rc);
	}
	return ATT_OK;
}

int att_esys_ak_public(struct att_esys *t, struct att_buf *out)
{
	if (t->ak == ESYS_TR_NONE)
		return ATT_E_STATE;
	return marshal_public(&t->ak_pub, out);
}

ESYS_TR att_esys_ak_handle(struct att_esys *t)
{
	return t->ak;
}

int att_esys_quote(struct att_esys *t, const uint8_t *nonce, size_t nonce_len,
		   const struct att_pcr_sel *sel, struct att_buf *attest,
		   struct att_buf *sig)
{
	TPMT_SIG_SCHEME scheme = {.scheme = TPM2_ALG_NULL};
	TPML_PCR_SELECTION tsel;
	TPM2B_DATA qual;
	TPM2B_ATTEST *quoted = NULL;
	TPMT_SIGNATURE *signature = NULL;
	uint8_t tmp[sizeof(TPMT_SIGNATURE)];
	size_t off = 0;
	TSS2_RC rc;
	int ret;

	if (t->ak == ESYS_TR_NONE)
		return ATT_E_STATE;
	if ((!nonce && nonce_len) || nonce_len > sizeof(qual.buffer))
		return ATT_E_INVAL;
	ret = att_pcr_sel_to_tpml(sel, &tsel);
	if (ret)
		return ret;
	memset(&qual, 0, sizeof(qual));
	qual.size = (uint16_t)nonce_len;
	if (nonce_len)
		memcpy(qual.buffer, nonce, nonce_len);
	rc = Esys_Quote(t->esys, t->ak, ESYS_TR_PASSWORD, ESYS_TR_NONE,
			ESYS_TR_NONE, &qual, &scheme, &tsel, &quoted,
			&signature);
	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("TPM2_Quote", rc);
	attest->len = 0;
	sig->len = 0;
	ret = att_buf_append(attest, quoted->attestationData, quoted->size);
	if (!ret) {
		if (Tss2_MU_TPMT_SIGNATURE_Marshal(signature, tmp, sizeof(tmp),
						   &off))
			ret = ATT_E_INTERNAL;
		else
			ret = att_buf_append(sig, tmp, off);
	}
	Esys_Free(quoted);
	Esys_Free(signature);
	return ret;
}

/* Reads the PCRs of one bank; the TPM returns at most 8 per call. */
static int pcr_read_bank(struct att_esys *t, enum att_hash bank, uint32_t mask,
			 struct att_pcrs *pcrs)
{
	struct att_pcr_sel one = {0};
	size_t sz = att_hash_size(bank);
	int ret, guard;

	for (guard = 0; mask && guard < ATT_PCR_COUNT; guard++) {
		TPML_PCR_SELECTION in, *outsel = NULL;
		TPML_DIGEST *vals = NULL;
		struct att_pcr_sel got;
		unsigned int i, pcr;
		TSS2_RC rc;

		one.count = 0;
		ret = att_pcr_sel_add(&one, bank, mask);
		if (!ret)
			ret = att_pcr_sel_to_tpml(&one, &in);
		if (ret)
			return ret;
		rc = Esys_PCR_Read(t->esys, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, &in, NULL, &outsel, &vals);
		if (rc != TSS2_RC_SUCCESS)
			return tpm_fail("TPM2_PCR_Read", rc);
		ret = att_pcr_sel_from_tpml(outsel, &got);
		if (!ret && (got.count > 1 ||
			     (got.count == 1 && got.b[0].bank != bank)))
			ret = ATT_E_TPM;
		if (!ret && (!got.count || !got.b[0].mask))
			ret = ATT_E_NOT_FOUND; /* bank not allocated */
		for (i = 0, pcr = 0; !ret && pcr < ATT_PCR_COUNT; pcr++) {
			if (!(got.b[0].mask & (1u << pcr)))
				continue;
			if (i >= vals->count || vals->digests[i].size != sz ||
			    !(mask & (1u << pcr))) {
				ret = ATT_E_TPM;
				break;
			}
			ret = att_pcrs_set(pcrs, bank, pcr,
					   vals->digests[i].buffer, sz);
			i++;
		}
		if (!ret)
			mask &= ~got.b[0].mask;
		Esys_Free(outsel);
		Esys_Free(vals);
		if (ret)
			return ret;
	}
	return mask ? ATT_E_TPM : ATT_OK;
}

int att_esys_pcr_read(struct att_esys *t, const struct att_pcr_sel *sel,
		      struct att_pcrs *pcrs)
{
	unsigned int i;
	int ret;

	for (i = 0; i < sel->count; i++) {
		ret = pcr_read_bank(t, sel->b[i].bank, sel->b[i].mask, pcrs);
		if (ret)
			return ret;
	}
	return ATT_OK;
}

int att_esys_pcr_extend(struct att_esys *t, unsigned int pcr,
			enum att_hash bank, const uint8_t *digest)
{
	const struct att_hash_info *hi = att_hash_info(bank);
	TPML_DIGEST_VALUES v;
	TSS2_RC rc;

	if (!hi || !hi->tpm_alg || pcr >= ATT_PCR_COUNT || !digest)
		return ATT_E_INVAL;
	memset(&v, 0, sizeof(v));
	v.count = 1;
	v.digests[0].hashAlg = hi->tpm_alg;
	memcpy(&v.digests[0].digest, digest, hi->size);
	rc = Esys_PCR_Extend(t->esys, ESYS_TR_PCR0 + pcr, ESYS_TR_PASSWORD,
			     ESYS_TR_NONE, ESYS_TR_NONE, &v);
	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("TPM2_PCR_Extend", rc);
	return ATT_OK;
}

int att_esys_activate(struct att_esys *t, enum att_esys_key_alg ek_alg,
		      const struct att_cred *cred, uint8_t *out, size_t max,
		      size_t *len)
{
	TPM2B_DIGEST *info = NULL;
	ESYS_TR sess = ESYS_TR_NONE;
	TSS2_RC rc;
	int ret;

	*len = 0;
	if (t->ak == ESYS_TR_NONE)
		return ATT_E_STATE;
	if (!cred || !out)
		return ATT_E_INVAL;
	ret = ek_load(t, ek_alg);
	if (!ret)
		ret = ek_session(t, &sess);
	if (ret)
		return ret;
	rc = Esys_ActivateCredential(t->esys, t->ak, t->ek[ek_alg],
				     ESYS_TR_PASSWORD, sess, ESYS_TR_NONE,
				     &cred->blob, &cred->secret, &info);
	Esys_FlushContext(t->esys, sess);
	if (rc != TSS2_RC_SUCCESS)
		return tpm_fail("TPM2_ActivateCredential", rc);
	if (info->size > max) {
		ret = ATT_E_TOO_BIG;
	} else {
		memcpy(out, info->buffer, info->size);
		*len = info->size;
	}
	OPENSSL_cleanse(info, sizeof(*info));
	Esys_Free(info);
	return ret;
}
