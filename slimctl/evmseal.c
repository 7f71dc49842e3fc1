// SPDX-License-Identifier: Apache-2.0
/*
 * evmseal.c - the EVM key sealed in the TPM: `slimctl evm-seal` and
 * `slimctl evm-load`.
 *
 * evm-seal makes a random 32-byte key (or takes --key-file), seals it as a
 * keyed-hash object under an ECC P-256 storage primary in the owner
 * hierarchy, with an authorization policy of PolicyPCR over the selected
 * sha256 PCRs (0-7 by default) and no password, and writes the blob:
 *
 *     "SLIMEVM1" | u32 be PCR mask | u16 be len | TPM2B_PUBLIC (marshaled)
 *                                  | u16 be len | TPM2B_PRIVATE (marshaled)
 *
 * evm-load re-creates the same primary, loads the object, satisfies the
 * policy in a policy session and unseals: only when the PCRs hold the
 * values they had at sealing. The key goes to the module as a logon key
 * (never readable by user space), then is unlinked from the keyring.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>

#include "attest/err.h"
#include "attest/pcrs.h"
#include "attest/tpm_esys.h"
#include "attest/tpm_quote.h"
#include "slimctl.h"

#define SLC_BLOB_MAGIC "SLIMEVM1"
#define SLC_BLOB_MAX   4096
#define SLC_KEY_DESC   "slim:evm"

/* libattest's ESAPI wrapper (attest/tpm_esys.h) and the storage primary */
struct slc_tpm {
	struct att_esys *tpm;
	ESYS_CONTEXT *esys;
	ESYS_TR primary;
};

static int slc_tpm_fail(const char *what, TSS2_RC rc)
{
	fprintf(stderr, "slimctl: %s: %s\n", what, Tss2_RC_Decode(rc));
	return ATT_E_TPM;
}

static void slc_tpm_close(struct slc_tpm *t)
{
	if (t->esys && t->primary != ESYS_TR_NONE)
		Esys_FlushContext(t->esys, t->primary);
	att_esys_free(t->tpm);
	t->tpm = NULL;
	t->esys = NULL;
}

/* the storage primary: the same template always gives the same key */
static int slc_tpm_open(const char *tcti, struct slc_tpm *t)
{
	TPM2B_SENSITIVE_CREATE sens = {0};
	TPM2B_PUBLIC tmpl = {0};
	TPM2B_DATA outside = {0};
	TPML_PCR_SELECTION none = {0};
	struct att_esys_fail fail;
	TSS2_RC rc;

	memset(t, 0, sizeof(*t));
	t->primary = ESYS_TR_NONE;
	if (att_esys_open(tcti, 0, &t->tpm, &fail))
		return slc_tpm_fail(fail.step == ATT_ESYS_FAIL_TCTI
					    ? "TCTI"
					    : "Esys_Initialize",
				    fail.rc);
	t->esys = att_esys_context(t->tpm);
	tmpl.publicArea.type = TPM2_ALG_ECC;
	tmpl.publicArea.nameAlg = TPM2_ALG_SHA256;
	tmpl.publicArea.objectAttributes =
		TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
		TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
		TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_NODA;
	tmpl.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
	tmpl.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128;
	tmpl.publicArea.parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
	tmpl.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
	tmpl.publicArea.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
	tmpl.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	rc = Esys_CreatePrimary(t->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD,
				ESYS_TR_NONE, ESYS_TR_NONE, &sens, &tmpl,
				&outside, &none, &t->primary, NULL, NULL, NULL,
				NULL);
	if (rc != TSS2_RC_SUCCESS) {
		slc_tpm_close(t);
		return slc_tpm_fail("CreatePrimary (owner hierarchy)", rc);
	}
	return ATT_OK;
}

/* PolicyPCR on the current values in a session of type @type */
static int slc_policy_session(struct slc_tpm *t, TPM2_SE type, uint32_t mask,
			      ESYS_TR *session)
{
	TPMT_SYM_DEF sym = {.algorithm = TPM2_ALG_NULL};
	TPM2B_DIGEST empty = {0};
	struct att_pcr_sel one = {0};
	TPML_PCR_SELECTION sel;
	TSS2_RC rc;

	rc = Esys_StartAuthSession(t->esys, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				   NULL, type, &sym, TPM2_ALG_SHA256, session);
	if (rc != TSS2_RC_SUCCESS)
		return slc_tpm_fail("StartAuthSession", rc);
	if (att_pcr_sel_add(&one, ATT_HASH_SHA256, mask) ||
	    att_pcr_sel_to_tpml(&one, &sel)) {
		Esys_FlushContext(t->esys, *session);
		fprintf(stderr, "slimctl: PCR mask 0x%x: out of range\n",
			(unsigned int)mask);
		return ATT_E_INVAL;
	}
	rc = Esys_PolicyPCR(t->esys, *session, ESYS_TR_NONE, ESYS_TR_NONE,
			    ESYS_TR_NONE, &empty, &sel);
	if (rc != TSS2_RC_SUCCESS) {
		Esys_FlushContext(t->esys, *session);
		return slc_tpm_fail("PolicyPCR", rc);
	}
	return ATT_OK;
}

static int slc_parse_pcrs(const char *s, uint32_t *mask)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int rc = ATT_OK;

	if (!copy)
		return ATT_E_NOMEM;
	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(tok, &end, 10);
		b = a;
		if (*end == '-') {
			b = strtol(end + 1, &end, 10);
		}
		if (errno || *end || a < 0 || b > 23 || a > b) {
			rc = ATT_E_FORMAT;
			break;
		}
		for (long i = a; i <= b; i++)
			*mask |= 1u << i;
	}
	free(copy);
	return rc == ATT_OK && *mask ? ATT_OK : ATT_E_FORMAT;
}

static void slc_put_be(uint8_t *p, uint32_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static uint32_t slc_get_be(const uint8_t *p, int n)
{
	uint32_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void slc_seal_usage(FILE *f)
{
	fputs("usage: slimctl evm-seal --out BLOB [--pcrs LIST] [--key-file "
	      "K] [--tcti CONF]\n"
	      "  Seals a random 32-byte key (or K) in the TPM under a "
	      "policy on the sha256 PCRs\n"
	      "  LIST (default 0-7, e.g. 0,2,4-7) as they are now.\n",
	      f);
}

int slc_cmd_evm_seal(int argc, char **argv)
{
	const char *out = NULL, *keyfile = NULL, *tcti = NULL, *pcrs = "0-7";
	uint8_t key[SLC_EVM_KEY_LEN], blob[SLC_BLOB_MAX];
	TPM2B_SENSITIVE_CREATE sens = {0};
	TPM2B_PUBLIC tmpl = {0};
	TPM2B_DATA outside = {0};
	TPML_PCR_SELECTION none = {0};
	TPM2B_DIGEST *policy = NULL;
	TPM2B_PUBLIC *pub = NULL;
	TPM2B_PRIVATE *priv = NULL;
	ESYS_TR trial = ESYS_TR_NONE;
	struct slc_tpm t;
	uint32_t mask;
	size_t off, l1, l2;
	TSS2_RC rc;
	FILE *f;
	int ret = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--key-file") && i + 1 < argc)
			keyfile = argv[++i];
		else if (!strcmp(argv[i], "--pcrs") && i + 1 < argc)
			pcrs = argv[++i];
		else if (!strcmp(argv[i], "--tcti") && i + 1 < argc)
			tcti = argv[++i];
		else if (!strcmp(argv[i], "--help")) {
			slc_seal_usage(stdout);
			return 0;
		} else {
			slc_seal_usage(stderr);
			return 2;
		}
	}
	if (!out || slc_parse_pcrs(pcrs, &mask) != ATT_OK) {
		slc_seal_usage(stderr);
		return 2;
	}
	if (keyfile) {
		if (slc_read_key_file(keyfile, key) != ATT_OK)
			return 1;
	} else if (RAND_priv_bytes(key, sizeof(key)) != 1) {
		fputs("slimctl: no random bytes\n", stderr);
		return 1;
	}
	if (slc_tpm_open(tcti, &t) != ATT_OK) {
		OPENSSL_cleanse(key, sizeof(key));
		return 1;
	}
	if (slc_policy_session(&t, TPM2_SE_TRIAL, mask, &trial) != ATT_OK)
		goto done;
	rc = Esys_PolicyGetDigest(t.esys, trial, ESYS_TR_NONE, ESYS_TR_NONE,
				  ESYS_TR_NONE, &policy);
	Esys_FlushContext(t.esys, trial);
	if (rc != TSS2_RC_SUCCESS) {
		slc_tpm_fail("PolicyGetDigest", rc);
		goto done;
	}
	sens.sensitive.data.size = sizeof(key);
	memcpy(sens.sensitive.data.buffer, key, sizeof(key));
	tmpl.publicArea.type = TPM2_ALG_KEYEDHASH;
	tmpl.publicArea.nameAlg = TPM2_ALG_SHA256;
	/* no USERWITHAUTH: only the PCR policy releases it */
	tmpl.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM |
					   TPMA_OBJECT_FIXEDPARENT |
					   TPMA_OBJECT_NODA;
	tmpl.publicArea.authPolicy = *policy;
	tmpl.publicArea.parameters.keyedHashDetail.scheme.scheme =
		TPM2_ALG_NULL;
	rc = Esys_Create(t.esys, t.primary, ESYS_TR_PASSWORD, ESYS_TR_NONE,
			 ESYS_TR_NONE, &sens, &tmpl, &outside, &none, &priv,
			 &pub, NULL, NULL, NULL);
	OPENSSL_cleanse(&sens, sizeof(sens));
	if (rc != TSS2_RC_SUCCESS) {
		slc_tpm_fail("Create (sealed key)", rc);
		goto done;
	}
	memcpy(blob, SLC_BLOB_MAGIC, 8);
	slc_put_be(blob + 8, mask, 4);
	off = 14;
	l1 = 0;
	rc = Tss2_MU_TPM2B_PUBLIC_Marshal(pub, blob + off,
					  SLC_BLOB_MAX - off - 2, &l1);
	if (rc == TSS2_RC_SUCCESS) {
		slc_put_be(blob + 12, (uint32_t)l1, 2);
		off += l1;
		l2 = 0;
		rc = Tss2_MU_TPM2B_PRIVATE_Marshal(priv, blob + off + 2,
						   SLC_BLOB_MAX - off - 2, &l2);
		slc_put_be(blob + off, (uint32_t)l2, 2);
		off += 2 + l2;
	}
	if (rc != TSS2_RC_SUCCESS) {
		slc_tpm_fail("marshal", rc);
		goto done;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(blob, 1, off, f) != off || fclose(f)) {
		fprintf(stderr, "slimctl: %s: %s\n", out, strerror(errno));
		goto done;
	}
	fprintf(stderr, "slimctl: key sealed to sha256 PCRs %s in %s\n", pcrs,
		out);
	ret = 0;
done:
	OPENSSL_cleanse(key, sizeof(key));
	Esys_Free(policy);
	Esys_Free(pub);
	Esys_Free(priv);
	slc_tpm_close(&t);
	return ret;
}

/* add_key(2)/keyctl(2) without libkeyutils */
#define SLC_KEY_SPEC_PROCESS_KEYRING (-2)
#define SLC_KEYCTL_UNLINK	     9
#define SLC_KEYCTL_REVOKE	     3

static void slc_load_usage(FILE *f)
{
	fputs("usage: slimctl evm-load --in BLOB [--tcti CONF] [--unseal-to "
	      "FILE]\n"
	      "  Unseals the key (only if the PCRs match the sealing) and "
	      "hands it to the\n"
	      "  module as a logon key; --unseal-to writes it to FILE "
	      "instead (tests).\n",
	      f);
}

int slc_cmd_evm_load(int argc, char **argv)
{
	const char *in = NULL, *tcti = NULL, *unseal_to = NULL;
	uint8_t blob[SLC_BLOB_MAX];
	TPM2B_PUBLIC pub = {0};
	TPM2B_PRIVATE priv = {0};
	TPM2B_SENSITIVE_DATA *data = NULL;
	ESYS_TR obj = ESYS_TR_NONE, session = ESYS_TR_NONE;
	struct slc_tpm t;
	size_t n, off, l1, l2;
	uint32_t mask;
	long id;
	TSS2_RC rc;
	FILE *f;
	int ret = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--in") && i + 1 < argc)
			in = argv[++i];
		else if (!strcmp(argv[i], "--tcti") && i + 1 < argc)
			tcti = argv[++i];
		else if (!strcmp(argv[i], "--unseal-to") && i + 1 < argc)
			unseal_to = argv[++i];
		else if (!strcmp(argv[i], "--help")) {
			slc_load_usage(stdout);
			return 0;
		} else {
			slc_load_usage(stderr);
			return 2;
		}
	}
	if (!in) {
		slc_load_usage(stderr);
		return 2;
	}
	f = fopen(in, "rb");
	if (!f) {
		fprintf(stderr, "slimctl: %s: %s\n", in, strerror(errno));
		return 1;
	}
	n = fread(blob, 1, sizeof(blob), f);
	fclose(f);
	/* a bounded parse of the blob: magic, mask, two sized parts */
	if (n < 16 || memcmp(blob, SLC_BLOB_MAGIC, 8)) {
		fprintf(stderr, "slimctl: %s: not a sealed EVM key\n", in);
		return 1;
	}
	mask = slc_get_be(blob + 8, 4);
	l1 = slc_get_be(blob + 12, 2);
	off = 14;
	if (!mask || mask >> 24 || l1 > n - off - 2) {
		fprintf(stderr, "slimctl: %s: truncated or corrupt\n", in);
		return 1;
	}
	l2 = slc_get_be(blob + off + l1, 2);
	if (l2 != n - off - l1 - 2) {
		fprintf(stderr, "slimctl: %s: truncated or corrupt\n", in);
		return 1;
	}
	n = 0;
	if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(blob + off, l1, &n, &pub) !=
		    TSS2_RC_SUCCESS ||
	    n != l1) {
		fprintf(stderr, "slimctl: %s: bad public part\n", in);
		return 1;
	}
	n = 0;
	if (Tss2_MU_TPM2B_PRIVATE_Unmarshal(blob + off + l1 + 2, l2, &n,
					    &priv) != TSS2_RC_SUCCESS ||
	    n != l2) {
		fprintf(stderr, "slimctl: %s: bad private part\n", in);
		return 1;
	}
	if (slc_tpm_open(tcti, &t) != ATT_OK)
		return 1;
	rc = Esys_Load(t.esys, t.primary, ESYS_TR_PASSWORD, ESYS_TR_NONE,
		       ESYS_TR_NONE, &priv, &pub, &obj);
	if (rc != TSS2_RC_SUCCESS) {
		slc_tpm_fail("Load (sealed key; another TPM?)", rc);
		goto done;
	}
	if (slc_policy_session(&t, TPM2_SE_POLICY, mask, &session) != ATT_OK)
		goto done;
	rc = Esys_Unseal(t.esys, obj, session, ESYS_TR_NONE, ESYS_TR_NONE,
			 &data);
	if ((rc & 0xfff) == TPM2_RC_POLICY_FAIL ||
	    (rc & 0xbf) == TPM2_RC_POLICY_FAIL) {
		fprintf(stderr,
			"slimctl: the PCRs differ from when the key was "
			"sealed: key not released, the module stays "
			"without a key\n");
		goto done;
	}
	if (rc != TSS2_RC_SUCCESS) {
		slc_tpm_fail("Unseal", rc);
		goto done;
	}
	if (data->size != SLC_EVM_KEY_LEN) {
		fprintf(stderr, "slimctl: unsealed %u bytes, not a key\n",
			data->size);
		goto done;
	}
	if (unseal_to) {
		f = fopen(unseal_to, "wb");
		if (!f ||
		    fwrite(data->buffer, 1, data->size, f) != data->size ||
		    fclose(f)) {
			fprintf(stderr, "slimctl: %s: %s\n", unseal_to,
				strerror(errno));
			goto done;
		}
		ret = 0;
		goto done;
	}
	id = syscall(SYS_add_key, "logon", SLC_KEY_DESC, data->buffer,
		     (size_t)data->size, SLC_KEY_SPEC_PROCESS_KEYRING);
	if (id < 0) {
		fprintf(stderr, "slimctl: add_key: %s\n", strerror(errno));
		goto done;
	}
	if (slc_write_secfs("evm_key", SLC_KEY_DESC, strlen(SLC_KEY_DESC)) !=
	    ATT_OK)
		fprintf(stderr, "slimctl: the module refused the key: %s\n",
			errno == EBUSY ? "a key was already loaded in this boot"
			: errno == EPERM ? "not permitted (CAP_MAC_ADMIN and "
					   "SYSTEM integrity needed)"
					 : strerror(errno));
	else
		ret = 0;
	syscall(SYS_keyctl, SLC_KEYCTL_REVOKE, id);
	syscall(SYS_keyctl, SLC_KEYCTL_UNLINK, id,
		SLC_KEY_SPEC_PROCESS_KEYRING);
	if (!ret)
		fputs("slimctl: EVM key loaded into the module\n", stderr);
done:
	if (data) {
		OPENSSL_cleanse(data, sizeof(*data));
		Esys_Free(data);
	}
	if (session != ESYS_TR_NONE)
		Esys_FlushContext(t.esys, session);
	if (obj != ESYS_TR_NONE)
		Esys_FlushContext(t.esys, obj);
	slc_tpm_close(&t);
	return ret;
}
