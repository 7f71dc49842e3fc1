// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_uefi_log.c - the TPM event log parser and replay.
 */
#include <stddef.h>
#include <stdint.h>

#include "attest/err.h"
#include "attest/uefi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct att_uefi_limits lim = {4096, 4096};
	struct att_uefi_info info;
	struct att_pcrs p;
	char err[200];
	int rc;

	rc = att_uefi_replay(data, size, &lim, &p, &info, err, sizeof(err));
	if (rc && !err[0])
		__builtin_trap(); /* every refusal says why */
	return 0;
}
