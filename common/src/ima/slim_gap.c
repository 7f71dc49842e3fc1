// SPDX-License-Identifier: Apache-2.0
/*
 * slim_gap.c - slim.ko's gap record (kernel/README.md, "The gap entry"):
 * the first entry of a list whose PCR was not zero when the module
 * started. Its name holds every bank's PCR value at that moment:
 * "slim_gap sha1:<hex> sha256:<hex> ...".
 */
#include "attest/lattice.h"

#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "attest/codec.h"
#include "attest/err.h"

#define GAP_PREFIX     "slim_gap"
#define GAP_PREFIX_LEN 8

int att_is_slim_gap(const struct att_ima_entry *e)
{
	return e->index == 0 && e->template_name &&
	       !strcmp(e->template_name, "ima-ng") && e->path &&
	       e->path_len >= GAP_PREFIX_LEN &&
	       !memcmp(e->path, GAP_PREFIX, GAP_PREFIX_LEN) &&
	       (e->path_len == GAP_PREFIX_LEN ||
		e->path[GAP_PREFIX_LEN] == ' ');
}

static int gap_fail(char *why, size_t n, const char *msg)
{
	snprintf(why, n, "malformed slim_gap record: %s", msg);
	return ATT_E_FORMAT;
}

/* one "name:hex" token */
static int gap_token(struct att_slim_gap *g, const uint8_t *t, size_t len,
		     char *why, size_t n)
{
	const uint8_t *colon = memchr(t, ':', len);
	enum att_hash h;
	size_t nl, hl, got, i;

	if (!colon || colon == t)
		return gap_fail(why, n, "a bank without 'name:'");
	nl = (size_t)(colon - t);
	hl = len - nl - 1;
	h = att_hash_by_name((const char *)t, nl);
	if (h == ATT_HASH_NONE) {
		/* tpm_alg_XXXX or a bank this verifier has no hash for */
		return ATT_OK;
	}
	for (i = 0; i < g->n; i++)
		if (g->alg[i] == h)
			return gap_fail(why, n, "a bank named twice");
	if (g->n == ATT_GAP_MAX_BANKS)
		return gap_fail(why, n, "too many banks");
	if (hl != 2 * att_hash_size(h) ||
	    att_hex_decode((const char *)colon + 1, hl, g->val[g->n],
			   sizeof(g->val[g->n]), &got) ||
	    got != att_hash_size(h))
		return gap_fail(why, n, "a bank value of the wrong length");
	g->alg[g->n++] = h;
	return ATT_OK;
}

int att_slim_gap_parse(const struct att_ima_entry *e, struct att_slim_gap *g,
		       char *why, size_t whylen)
{
	const uint8_t *p, *end, *sp;
	size_t i;
	int rc, dng = 0;

	memset(g, 0, sizeof(*g));
	why[0] = '\0';
	if (!att_is_slim_gap(e))
		return gap_fail(why, whylen, "not the list's first entry");
	if (memchr(e->path, '\0', e->path_len))
		return gap_fail(why, whylen, "a NUL in its name");
	p = e->path + GAP_PREFIX_LEN;
	end = e->path + e->path_len;
	while (p < end) {
		p++; /* the space */
		sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			sp = end;
		rc = gap_token(g, p, (size_t)(sp - p), why, whylen);
		if (rc)
			return rc;
		p = sp;
	}
	if (!g->n)
		return gap_fail(why, whylen, "no bank this verifier knows");
	if (!e->file_digest || e->file_alg == ATT_HASH_NONE)
		return gap_fail(why, whylen, "no digest");
	for (i = 0; i < g->n; i++) {
		if (g->alg[i] != e->file_alg)
			continue;
		if (e->file_digest_len != att_hash_size(g->alg[i]) ||
		    CRYPTO_memcmp(e->file_digest, g->val[i],
				  e->file_digest_len))
			return gap_fail(why, whylen,
					"its digest is not the value of the "
					"bank it names");
		dng = 1;
	}
	if (!dng)
		return gap_fail(why, whylen,
				"its digest's bank is not among those named");
	return ATT_OK;
}
