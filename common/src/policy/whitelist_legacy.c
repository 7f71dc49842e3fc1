// SPDX-License-Identifier: Apache-2.0
/*
 * whitelist_legacy.c - Keylime's legacy allowlist ("<hex>  <path>", as
 * sha256sum prints) and exclude list (one regular expression a line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/err.h"
#include "wl_internal.h"

static int load_allow(struct att_wl *wl, const char *t, size_t len, char *err,
		      size_t errlen)
{
	size_t pos = 0;
	unsigned int line = 0;
	int rc;

	while (pos < len) {
		const char *nl = memchr(t + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - t) : len, i = pos, h;
		uint8_t d[ATT_DIGEST_MAX];
		enum att_hash alg;
		size_t dlen;

		line++;
		pos = end + 1;
		if (end > i && t[end - 1] == '\r')
			end--;
		if (i == end || t[i] == '#')
			continue;
		if (memchr(t + i, '\0', end - i)) {
			snprintf(err, errlen, "line %u: NUL byte", line);
			return ATT_E_FORMAT;
		}
		h = i;
		while (i < end && t[i] != ' ' && t[i] != '\t')
			i++;
		if (wl_parse_digest(t + h, i - h, &alg, d, &dlen)) {
			snprintf(err, errlen, "line %u: not a digest", line);
			return ATT_E_FORMAT;
		}
		/* sha256sum: two spaces, or " *" for binary mode. */
		if (i < end && t[i] == ' ')
			i++;
		if (i < end && (t[i] == ' ' || t[i] == '*'))
			i++;
		if (i == end) {
			snprintf(err, errlen, "line %u: no path", line);
			return ATT_E_FORMAT;
		}
		if (wl->digests.count >= wl->lim.max_paths) {
			snprintf(err, errlen, "more than %zu paths",
				 wl->lim.max_paths);
			return ATT_E_TOO_BIG;
		}
		rc = dmap_add(&wl->digests, t + i, end - i, alg, d, dlen);
		if (rc)
			return rc;
	}
	return ATT_OK;
}

static int load_excl(struct att_wl *wl, const char *t, size_t len, char *err,
		     size_t errlen)
{
	char *copy = malloc(len + 1);
	const char **pats = NULL;
	size_t n = 0, cap = 0, pos = 0;
	int rc = ATT_OK;

	if (!copy)
		return ATT_E_NOMEM;
	memcpy(copy, t, len);
	copy[len] = '\0';
	while (pos < len) {
		char *nl = memchr(copy + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - copy) : len;
		char *line = copy + pos;

		copy[end] = '\0';
		if (end > pos && copy[end - 1] == '\r')
			copy[end - 1] = '\0';
		pos = end + 1;
		if (!line[0] || line[0] == '#')
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			const char **np = realloc(pats, nc * sizeof(*np));

			if (!np) {
				rc = ATT_E_NOMEM;
				goto out;
			}
			pats = np;
			cap = nc;
		}
		pats[n++] = line;
	}
	rc = wl_compile_excludes(wl, pats, n, err, errlen);
out:
	free(pats);
	free(copy);
	return rc;
}

int att_wl_load_legacy(const char *allow, size_t alen, const char *excl,
		       size_t elen, const struct att_wl_limits *lim,
		       struct att_wl **out, char *err, size_t errlen)
{
	struct att_wl *wl;
	int rc = wl_new(lim, &wl);

	if (rc)
		return rc;
	if (alen > wl->lim.max_bytes || elen > wl->lim.max_bytes) {
		snprintf(err, errlen, "list larger than %zu bytes",
			 wl->lim.max_bytes);
		rc = ATT_E_TOO_BIG;
	}
	if (!rc)
		rc = load_allow(wl, allow, alen, err, errlen);
	if (!rc && excl)
		rc = load_excl(wl, excl, elen, err, errlen);
	if (rc) {
		att_wl_free(wl);
		return rc;
	}
	*out = wl;
	return ATT_OK;
}
