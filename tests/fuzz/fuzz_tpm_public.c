// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_tpm_public.c - TPM2B_PUBLIC parsing (libtss2-mu), the canonical
 * re-encoding check, Name computation, conversion to an OpenSSL key and
 * the AK attribute checks.
 */
#include <stddef.h>
#include <stdint.h>

#include "attest/err.h"
#include "attest/tpm_key.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct att_tpm_key *k = NULL;
	enum att_ak_reason r;
	const uint8_t *name, *raw;
	size_t nlen, rlen;
	int rc;

	rc = att_tpm_key_parse(data, size, &k);
	if (!rc != !!k)
		__builtin_trap();
	if (!k)
		return 0;
	name = att_tpm_key_name(k, &nlen);
	raw = att_tpm_key_bytes(k, &rlen);
	if (nlen < 2 + 20 || nlen > ATT_TPM_NAME_MAX || rlen != size || !name ||
	    !raw || !att_tpm_key_pkey(k))
		__builtin_trap();
	rc = att_tpm_ak_check(k, &r);
	if ((rc == ATT_OK) != (r == ATT_AK_OK) ||
	    (rc != ATT_OK && rc != ATT_E_VERIFY))
		__builtin_trap();
	att_tpm_key_free(k);
	return 0;
}
