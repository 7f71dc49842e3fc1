// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_whitelist.c - the whitelist loaders (JSON and legacy text) and the
 * strict JSON parser under them.
 */
#include <stddef.h>
#include <stdint.h>

#include "attest/err.h"
#include "attest/whitelist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct att_wl *wl = NULL;
	char err[300];
	size_t half = size / 2;
	int rc;

	rc = att_wl_load_any((const char *)data, size, NULL, &wl, err,
			     sizeof(err));
	if (!rc != !!wl)
		__builtin_trap();
	att_wl_free(wl);
	wl = NULL;
	rc = att_wl_load_legacy((const char *)data, half,
				(const char *)data + half, size - half, NULL,
				&wl, err, sizeof(err));
	if (!rc != !!wl)
		__builtin_trap();
	att_wl_free(wl);
	return 0;
}
