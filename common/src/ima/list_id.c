// SPDX-License-Identifier: Apache-2.0
/*
 * list_id.c - a measurement list's identity as text: "<bank>:<hex>", the
 * template digest of its entry 0 (e.g. "sha1:0f3c..."). The verifier puts
 * it in the challenge; the agent compares it with its own entry 0.
 */
#include "attest/replay.h"

#include <stdio.h>
#include <string.h>

#include "attest/codec.h"
#include "attest/err.h"

int att_list_id_format(enum att_hash alg, const uint8_t *digest, char *out,
		       size_t outsz)
{
	const char *name = att_hash_name(alg);
	size_t n = att_hash_size(alg), nl;

	if (!name || !n)
		return ATT_E_INVAL;
	nl = strlen(name);
	if (outsz < nl + 1 + 2 * n + 1)
		return ATT_E_TOO_BIG;
	memcpy(out, name, nl);
	out[nl] = ':';
	att_hex_encode(digest, n, out + nl + 1);
	return ATT_OK;
}

int att_list_id_parse(const char *s, enum att_hash *alg, uint8_t *digest)
{
	const char *colon;
	size_t got;

	if (!s || !(colon = strchr(s, ':')))
		return ATT_E_FORMAT;
	*alg = att_hash_by_name(s, (size_t)(colon - s));
	if (*alg == ATT_HASH_NONE)
		return ATT_E_FORMAT;
	if (strlen(colon + 1) != 2 * att_hash_size(*alg) ||
	    att_hex_decode(colon + 1, strlen(colon + 1), digest, ATT_DIGEST_MAX,
			   &got) ||
	    got != att_hash_size(*alg))
		return ATT_E_FORMAT;
	return ATT_OK;
}
