// SPDX-License-Identifier: Apache-2.0
/*
 * err.c - descriptions of the project error codes.
 */
#include "attest/err.h"

#include <stddef.h>

struct err_desc {
	const char *name;
	const char *text;
};

static const struct err_desc err_table[] = {
	[0] = {"ATT_OK", "success"},
	[1] = {"ATT_E_NOMEM", "out of memory"},
	[2] = {"ATT_E_INVAL", "invalid argument"},
	[3] = {"ATT_E_TRUNCATED", "input is truncated"},
	[4] = {"ATT_E_TOO_BIG", "a size is over its limit"},
	[5] = {"ATT_E_FORMAT", "malformed input"},
	[6] = {"ATT_E_UNSUPPORTED", "unsupported template, algorithm or type"},
	[7] = {"ATT_E_IO", "input/output error"},
	[8] = {"ATT_E_CRYPTO", "cryptographic library error"},
	[9] = {"ATT_E_NOT_FOUND", "not found"},
	[10] = {"ATT_E_VERIFY", "verification failed"},
	[11] = {"ATT_E_TRAILING", "trailing bytes after the last record"},
	[12] = {"ATT_E_EXISTS", "already exists"},
	[13] = {"ATT_E_TPM", "TPM error"},
	[14] = {"ATT_E_STATE", "operation not valid in this state"},
	[15] = {"ATT_E_INTERNAL", "internal error"},
	[16] = {"ATT_E_EOF", "end of input"},
	[17] = {"ATT_E_DB", "storage error"},
	[18] = {"ATT_E_NET", "network error"},
	[19] = {"ATT_E_AUTH", "not authorised"},
	[20] = {"ATT_E_TIMEOUT", "timed out"},
};

static const struct err_desc *err_lookup(int err)
{
	if (err > 0 || err < ATT_E_MIN)
		return NULL;
	return &err_table[-err];
}

const char *att_strerror(int err)
{
	const struct err_desc *d = err_lookup(err);

	return d ? d->text : "unknown error";
}

const char *att_errname(int err)
{
	const struct err_desc *d = err_lookup(err);

	return d ? d->name : "ATT_E_UNKNOWN";
}
