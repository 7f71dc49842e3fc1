// SPDX-License-Identifier: Apache-2.0
/*
 * whitelist.c - the compiled whitelist and the judgement of one entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "wl_internal.h"

struct verdict_desc {
	const char *name;
	const char *text;
};

static const struct verdict_desc verdicts[ATT_V_COUNT] = {
	[ATT_V_ALLOWED] = {"allowed", "digest is on the whitelist"},
	[ATT_V_EXCLUDED] = {"excluded", "path matches an exclude rule"},
	[ATT_V_SIG_OK] = {"signature-ok", "valid signature by a trusted key"},
	[ATT_V_BOOT_AGGREGATE_OK] = {"boot-aggregate-ok",
				     "boot_aggregate matches PCRs 0-9"},
	[ATT_V_IGNORED_KEYRING] = {"ignored-keyring",
				   "keyring is on the ignore list"},
	[ATT_V_VIOLATION_ALLOWED] = {"violation-allowed",
				     "violation, allowed by policy"},
	[ATT_V_UNCHECKED] = {"unchecked", "nothing to check it against"},
	[ATT_V_UNKNOWN_PATH] = {"unknown-path", "path is not on the whitelist"},
	[ATT_V_HASH_MISMATCH] = {"hash-mismatch",
				 "digest is not one whitelisted for the path"},
	[ATT_V_VIOLATION] = {"violation", "ToMToU or open-writers violation"},
	[ATT_V_BAD_TEMPLATE_HASH] = {"bad-template-hash",
				     "template digest does not match the "
				     "entry's data"},
	[ATT_V_SIG_BAD] = {"signature-bad", "signature is not valid"},
	[ATT_V_BOOT_AGGREGATE_BAD] = {"boot-aggregate-bad",
				      "boot_aggregate does not match PCRs "
				      "0-9"},
	[ATT_V_WRONG_PCR] = {"wrong-pcr",
			     "entry extends a PCR this log may not use"},
	[ATT_V_BUF_DIGEST_BAD] = {"buf-digest-bad",
				  "digest is not the hash of the buffer"},
	[ATT_V_NO_DIGEST] = {"no-digest", "template has no file digest"},
	[ATT_V_GAP] = {"gap", "list continues after an unmeasured gap"},
	[ATT_V_LATTICE_OK] = {"lattice-event",
			      "slim.ko lattice event, accepted"},
	[ATT_V_LATTICE_MALFORMED] = {"lattice-malformed",
				     "malformed slim.ko lattice event"},
	[ATT_V_LATTICE_POLICY] = {"lattice-policy",
				  "the whitelist's lattice section refuses it"},
};

const char *att_verdict_name(enum att_verdict v)
{
	return (unsigned int)v < ATT_V_COUNT ? verdicts[v].name : "unknown";
}

const char *att_verdict_text(enum att_verdict v)
{
	return (unsigned int)v < ATT_V_COUNT ? verdicts[v].text : "unknown";
}

int wl_new(const struct att_wl_limits *lim, struct att_wl **out)
{
	struct att_wl *wl = calloc(1, sizeof(*wl));
	int rc;

	if (!wl)
		return ATT_E_NOMEM;
	if (lim)
		wl->lim = *lim;
	if (!wl->lim.max_bytes)
		wl->lim.max_bytes = 256u << 20;
	if (!wl->lim.max_paths)
		wl->lim.max_paths = 4u << 20;
	if (!wl->lim.max_digests_per_path)
		wl->lim.max_digests_per_path = 1024;
	if (!wl->lim.max_excludes)
		wl->lim.max_excludes = 4096;
	if (!wl->lim.max_depth)
		wl->lim.max_depth = 16;
	if ((rc = dmap_init(&wl->digests)) || (rc = dmap_init(&wl->keyrings)) ||
	    (rc = dmap_init(&wl->bufs)) || (rc = dmap_init(&wl->ignored))) {
		att_wl_free(wl);
		return rc;
	}
	*out = wl;
	return ATT_OK;
}

void att_wl_free(struct att_wl *wl)
{
	size_t i;

	if (!wl)
		return;
	dmap_release(&wl->digests);
	dmap_release(&wl->keyrings);
	dmap_release(&wl->bufs);
	dmap_release(&wl->ignored);
	if (wl->have_excl)
		regfree(&wl->excl);
	for (i = 0; i < wl->nkeys; i++)
		EVP_PKEY_free(wl->keys[i].pkey);
	free(wl->keys);
	att_lat_policy_free(wl->lattice);
	att_boot_policy_free(wl->boot);
	free(wl);
}

const struct att_lat_policy *att_wl_lattice(const struct att_wl *wl)
{
	size_t i;

	for (i = 0; i < wl->nlayers; i++)
		if (wl->layers[i]->lattice)
			return wl->layers[i]->lattice;
	return wl->lattice;
}

const struct att_boot_policy *att_wl_boot(const struct att_wl *wl)
{
	size_t i;

	for (i = 0; i < wl->nlayers; i++)
		if (wl->layers[i]->boot)
			return wl->layers[i]->boot;
	return wl->boot;
}

size_t att_wl_path_count(const struct att_wl *wl)
{
	size_t i, n = wl->digests.count;

	for (i = 0; i < wl->nlayers; i++)
		n += wl->layers[i]->digests.count;
	return n;
}

size_t att_wl_digest_count(const struct att_wl *wl)
{
	size_t i, n = wl->digests.ndigests;

	for (i = 0; i < wl->nlayers; i++)
		n += wl->layers[i]->digests.ndigests;
	return n;
}

enum att_wl_violations att_wl_violations(const struct att_wl *wl)
{
	size_t i;

	for (i = 0; i < wl->nlayers; i++)
		if (wl->layers[i]->violations == ATT_WL_VIOLATIONS_ALLOW)
			return ATT_WL_VIOLATIONS_ALLOW;
	return wl->violations;
}

int wl_parse_digest(const char *s, size_t n, enum att_hash *alg, uint8_t *d,
		    size_t *dlen)
{
	const char *colon = memchr(s, ':', n);

	*alg = ATT_HASH_NONE;
	if (colon) {
		*alg = att_hash_by_name(s, (size_t)(colon - s));
		if (*alg == ATT_HASH_NONE)
			return ATT_E_UNSUPPORTED;
		n -= (size_t)(colon + 1 - s);
		s = colon + 1;
		if (n != 2 * att_hash_size(*alg))
			return ATT_E_FORMAT;
	} else if (n != 40 && n != 64 && n != 96 && n != 128) {
		return ATT_E_FORMAT;
	}
	return att_hex_decode(s, n, d, ATT_DIGEST_MAX, dlen);
}

int att_wl_parse_digest(const char *s, size_t n, enum att_hash *alg, uint8_t *d,
			size_t *dlen)
{
	return wl_parse_digest(s, n, alg, d, dlen);
}

/*
 * glibc's regcomp expands repetitions into copies of the tree: "a+++++..."
 * or nested bounds such as "((a{255}){255}){255}" take gigabytes (found by
 * fuzz_whitelist). Exclude patterns are short path prefixes in practice, so
 * a quantifier may not follow another one, bounds are at most 16, and a
 * pattern has at most 4 of them.
 */
int wl_pattern_safe(const char *p)
{
	int prev_quant = 0, bounds = 0;

	for (; *p; p++) {
		int quant = *p == '*' || *p == '+' || *p == '?' || *p == '{';

		if (*p == '\\' && p[1]) {
			p++;
			prev_quant = 0;
			continue;
		}
		if (quant && prev_quant)
			return 0;
		if (*p == '{') {
			unsigned long v = 0;

			if (++bounds > 4)
				return 0;
			for (p++; *p && *p != '}'; p++) {
				if (*p >= '0' && *p <= '9') {
					v = v * 10 + (unsigned long)(*p - '0');
					if (v > 16)
						return 0;
				} else if (*p == ',') {
					v = 0;
				} else {
					return 0;
				}
			}
			if (!*p)
				return 0;
		}
		prev_quant = quant;
	}
	return 1;
}

/* Translates the Python escapes Keylime's patterns use into POSIX ERE. */
static int translate_pattern(const char *p, char *out, size_t outmax)
{
	size_t o = 0;
	const char *rep;

	for (; *p; p++) {
		rep = NULL;
		if (p[0] == '\\' && p[1]) {
			switch (p[1]) {
			case 'd':
				rep = "[0-9]";
				break;
			case 'D':
				rep = "[^0-9]";
				break;
			case 's':
				rep = "[[:space:]]";
				break;
			case 'S':
				rep = "[^[:space:]]";
				break;
			}
		}
		if (rep) {
			size_t rl = strlen(rep);

			if (o + rl >= outmax)
				return ATT_E_TOO_BIG;
			memcpy(out + o, rep, rl);
			o += rl;
			p++;
			continue;
		}
		if (o + 2 >= outmax)
			return ATT_E_TOO_BIG;
		if (p[0] == '\\' && p[1])
			out[o++] = *p++;
		out[o++] = *p;
	}
	out[o] = '\0';
	return ATT_OK;
}

int wl_compile_excludes(struct att_wl *wl, const char *const *pats, size_t n,
			char *err, size_t errlen)
{
	struct att_buf all;
	char one[4096 + 64];
	size_t i;
	int rc;

	if (!n)
		return ATT_OK;
	if (n > wl->lim.max_excludes) {
		snprintf(err, errlen, "excludes: more than %zu patterns",
			 wl->lim.max_excludes);
		return ATT_E_TOO_BIG;
	}
	att_buf_init(&all, 0);
	for (i = 0; i < n; i++) {
		regex_t re;

		if (strlen(pats[i]) > 1024 ||
		    translate_pattern(pats[i], one, sizeof(one))) {
			snprintf(err, errlen, "excludes[%zu]: pattern too long",
				 i);
			att_buf_release(&all);
			return ATT_E_TOO_BIG;
		}
		if (!wl_pattern_safe(one)) {
			snprintf(
				err, errlen,
				"excludes[%zu]: repeated quantifiers or bounds "
				"over 16 are not allowed: '%.64s'",
				i, pats[i]);
			att_buf_release(&all);
			return ATT_E_UNSUPPORTED;
		}
		if (regcomp(&re, one, REG_EXTENDED | REG_NOSUB)) {
			snprintf(err, errlen,
				 "excludes[%zu]: not a valid regular "
				 "expression: '%.64s'",
				 i, pats[i]);
			att_buf_release(&all);
			return ATT_E_FORMAT;
		}
		regfree(&re);
		rc = att_buf_printf(&all, "%s^(%s)", i ? "|" : "", one);
		if (rc) {
			att_buf_release(&all);
			return rc;
		}
	}
	rc = att_buf_cstr(&all);
	if (!rc &&
	    regcomp(&wl->excl, (char *)all.data, REG_EXTENDED | REG_NOSUB)) {
		snprintf(err, errlen, "excludes: patterns do not combine");
		rc = ATT_E_FORMAT;
	}
	att_buf_release(&all);
	if (rc)
		return rc;
	wl->have_excl = 1;
	wl->nexcl = n;
	return ATT_OK;
}

static int excluded(const struct att_wl *wl, const uint8_t *path, size_t n)
{
	char buf[4096 + 2];

	if (!wl->have_excl || n >= sizeof(buf))
		return 0;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return regexec(&wl->excl, buf, 0, NULL, 0) == 0;
}

static void digest_detail(const struct att_ima_entry *e, char *d, size_t n)
{
	char hex[2 * ATT_DIGEST_MAX + 1];

	att_hex_encode(e->file_digest, e->file_digest_len, hex);
	snprintf(d, n, "%s:%s", att_hash_name(e->file_alg), hex);
}

static enum att_verdict judge_buf(const struct att_wl *wl,
				  const struct att_ima_entry *e,
				  struct att_judgement *j)
{
	uint8_t h[ATT_DIGEST_MAX];
	const struct dmap_entry *k;
	const struct dmap *m;

	if (!e->file_digest || att_digest(e->file_alg, e->buf, e->buf_len, h))
		return ATT_V_NO_DIGEST;
	if (memcmp(h, e->file_digest, e->file_digest_len)) {
		digest_detail(e, j->detail, sizeof(j->detail));
		return ATT_V_BUF_DIGEST_BAD;
	}
	if (wl->ignore_all_keyrings ||
	    dmap_find(&wl->ignored, e->path, e->path_len))
		return ATT_V_IGNORED_KEYRING;
	m = &wl->keyrings;
	k = dmap_find(m, e->path, e->path_len);
	if (!k) {
		m = &wl->bufs;
		k = dmap_find(m, e->path, e->path_len);
	}
	if (!k)
		return ATT_V_UNKNOWN_PATH;
	if (dmap_has_digest(m, k, e->file_alg, e->file_digest,
			    e->file_digest_len))
		return ATT_V_ALLOWED;
	digest_detail(e, j->detail, sizeof(j->detail));
	return ATT_V_HASH_MISMATCH;
}

static enum att_verdict judge(const struct att_wl *wl,
			      const struct att_ima_entry *e,
			      struct att_judgement *j)
{
	const struct dmap_entry *p;

	if (e->violation)
		return wl->violations == ATT_WL_VIOLATIONS_ALLOW
			       ? ATT_V_VIOLATION_ALLOWED
			       : ATT_V_VIOLATION;
	if (e->buf && e->path)
		return judge_buf(wl, e, j);
	if (!e->file_digest || !e->path)
		return ATT_V_NO_DIGEST;
	if (excluded(wl, e->path, e->path_len))
		return ATT_V_EXCLUDED;
	if (e->sig && wl->nkeys)
		return wl_verify_sig(wl, e, j->detail, sizeof(j->detail));
	p = dmap_find(&wl->digests, e->path, e->path_len);
	if (!p) {
		if (e->index == 0 && e->path_len == 14 &&
		    !memcmp(e->path, "boot_aggregate", 14))
			return ATT_V_UNCHECKED;
		return ATT_V_UNKNOWN_PATH; /* the checker adds the digest */
	}
	if (dmap_has_digest(&wl->digests, p, e->file_alg, e->file_digest,
			    e->file_digest_len))
		return ATT_V_ALLOWED;
	return ATT_V_HASH_MISMATCH; /* the checker adds the digest */
}

/* One layer's judgement (whitelist_union.c asks each layer). */
enum att_verdict wl_judge_one(const struct att_wl *wl,
			      const struct att_ima_entry *e,
			      struct att_judgement *j)
{
	j->detail[0] = '\0';
	return judge(wl, e, j);
}

int att_wl_judge(const struct att_wl *wl, const struct att_ima_entry *e,
		 struct att_judgement *j)
{
	j->detail[0] = '\0';
	j->layer = -1;
	j->index = e->index;
	j->path = e->path;
	j->path_len = e->path_len;
	j->verdict = wl->nlayers ? wl_union_judge(wl, e, j) : judge(wl, e, j);
	return ATT_OK;
}

int att_wl_foreach_path(const struct att_wl *wl, att_wl_path_fn fn, void *arg)
{
	const struct dmap *m = &wl->digests;
	const uint8_t *ds[64];
	size_t ls[64], i;
	int rc;

	for (i = 0; i < wl->nlayers; i++) {
		rc = att_wl_foreach_path(wl->layers[i], fn, arg);
		if (rc)
			return rc;
	}

	for (i = 0; i < m->count; i++) {
		const struct dmap_entry *e = &m->entries[i];
		uint64_t r = e->first_digest;
		size_t n = 0;

		while (r && n < 64) {
			const uint8_t *rec = m->digests.data + r - 1;
			uint64_t next;

			ds[n] = rec + DMAP_REC_HDR;
			ls[n++] = rec[9];
			memcpy(&next, rec, 8);
			r = next;
		}
		rc = fn(m->names.data + e->name_off, e->name_len, ds, ls, n,
			arg);
		if (rc)
			return rc;
	}
	return ATT_OK;
}
