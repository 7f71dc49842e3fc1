// SPDX-License-Identifier: Apache-2.0
/*
 * ima_template.c - IMA template descriptors and template-data field decoding.
 */
#include <string.h>

#include "attest/err.h"
#include "attest/ima.h"
#include "attest/rd.h"
#include "ima_internal.h"

static const char *const field_names[ATT_IMA_F_COUNT] = {
	[ATT_IMA_F_D] = "d",
	[ATT_IMA_F_N] = "n",
	[ATT_IMA_F_D_NG] = "d-ng",
	[ATT_IMA_F_D_NGV2] = "d-ngv2",
	[ATT_IMA_F_N_NG] = "n-ng",
	[ATT_IMA_F_SIG] = "sig",
	[ATT_IMA_F_BUF] = "buf",
	[ATT_IMA_F_D_MODSIG] = "d-modsig",
	[ATT_IMA_F_MODSIG] = "modsig",
	[ATT_IMA_F_EVMSIG] = "evmsig",
	[ATT_IMA_F_XATTRNAMES] = "xattrnames",
	[ATT_IMA_F_XATTRLENGTHS] = "xattrlengths",
	[ATT_IMA_F_XATTRVALUES] = "xattrvalues",
	[ATT_IMA_F_IUID] = "iuid",
	[ATT_IMA_F_IGID] = "igid",
	[ATT_IMA_F_IMODE] = "imode",
};

struct builtin_template {
	const char *name;
	const char *fmt;
};

static const struct builtin_template builtins[] = {
	{"ima", "d|n"},
	{"ima-ng", "d-ng|n-ng"},
	{"ima-ngv2", "d-ngv2|n-ng"},
	{"ima-sig", "d-ng|n-ng|sig"},
	{"ima-sigv2", "d-ngv2|n-ng|sig"},
	{"ima-buf", "d-ng|n-ng|buf"},
	{"ima-modsig", "d-ng|n-ng|sig|d-modsig|modsig"},
	{"evm-sig", "d-ng|n-ng|evmsig|xattrnames|xattrlengths|xattrvalues|iuid|"
		    "igid|imode"},
};

const char *att_ima_field_name(enum att_ima_field_id id)
{
	if ((unsigned int)id >= ATT_IMA_F_COUNT)
		return "?";
	return field_names[id];
}

static int field_by_name(const char *s, size_t len, enum att_ima_field_id *id)
{
	int i;

	for (i = 0; i < ATT_IMA_F_COUNT; i++) {
		if (strlen(field_names[i]) == len &&
		    !memcmp(field_names[i], s, len)) {
			*id = (enum att_ima_field_id)i;
			return ATT_OK;
		}
	}
	return ATT_E_UNSUPPORTED;
}

static int parse_fmt(const char *fmt, size_t len, struct att_ima_template *t)
{
	size_t start = 0, i;
	int rc;

	t->nfields = 0;
	for (i = 0; i <= len; i++) {
		if (i < len && fmt[i] != '|')
			continue;
		if (i == start)
			return ATT_E_UNSUPPORTED; /* empty field name */
		if (t->nfields == ATT_IMA_MAX_FIELDS)
			return ATT_E_UNSUPPORTED;
		rc = field_by_name(fmt + start, i - start,
				   &t->fields[t->nfields]);
		if (rc)
			return rc;
		t->nfields++;
		start = i + 1;
	}
	return ATT_OK;
}

int att_ima_template_parse(const char *name, size_t len,
			   struct att_ima_template *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		if (strlen(builtins[i].name) == len &&
		    !memcmp(builtins[i].name, name, len)) {
			t->legacy = i == 0;
			return parse_fmt(builtins[i].fmt,
					 strlen(builtins[i].fmt), t);
		}
	}
	if (!len)
		return ATT_E_UNSUPPORTED;
	return parse_fmt(name, len, t);
}

static int all_zero(const uint8_t *p, size_t n)
{
	size_t i;
	uint8_t acc = 0;

	for (i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

/*
 * d-ng: "algo:" '\0' digest; d-ngv2: "type:algo:" '\0' digest, type "ima"
 * or "verity". A violation may carry 20 zero bytes whatever the algorithm.
 */
static int decode_digest_ng(struct att_ima_entry *e, const uint8_t *p,
			    size_t len, int v2)
{
	const uint8_t *nul = memchr(p, '\0', len);
	const uint8_t *alg, *colon;
	size_t hlen, dlen;
	enum att_hash h;

	if (!nul || nul == p || nul[-1] != ':')
		return ATT_E_FORMAT;
	alg = p;
	if (v2) {
		colon = memchr(p, ':', (size_t)(nul - p) - 1);
		if (!colon)
			return ATT_E_FORMAT;
		if (!((colon - p == 3 && !memcmp(p, "ima", 3)) ||
		      (colon - p == 6 && !memcmp(p, "verity", 6))))
			return ATT_E_UNSUPPORTED;
		alg = colon + 1;
	}
	h = att_hash_by_name((const char *)alg, (size_t)(nul - 1 - alg));
	if (h == ATT_HASH_NONE)
		return ATT_E_UNSUPPORTED;
	hlen = att_hash_size(h);
	dlen = len - (size_t)(nul + 1 - p);
	if (dlen != hlen && !(e->violation && dlen == 20))
		return ATT_E_FORMAT;
	if (e->violation && !all_zero(nul + 1, dlen))
		return ATT_E_FORMAT;
	e->file_alg = h;
	e->file_digest = nul + 1;
	e->file_digest_len = dlen;
	return ATT_OK;
}

static int decode_name_ng(struct att_ima_entry *e, const uint8_t *p, size_t len)
{
	if (!len || p[len - 1] != '\0')
		return ATT_E_FORMAT;
	if (memchr(p, '\0', len - 1))
		return ATT_E_FORMAT; /* NUL inside the name */
	e->path = p;
	e->path_len = len - 1;
	return ATT_OK;
}

static int decode_one(struct att_ima_entry *e, const struct att_ima_field *f)
{
	switch (f->id) {
	case ATT_IMA_F_D:
		if (f->len != 20)
			return ATT_E_FORMAT;
		e->file_alg = ATT_HASH_SHA1;
		e->file_digest = f->data;
		e->file_digest_len = f->len;
		return ATT_OK;
	case ATT_IMA_F_D_NG:
		return decode_digest_ng(e, f->data, f->len, 0);
	case ATT_IMA_F_D_NGV2:
		return decode_digest_ng(e, f->data, f->len, 1);
	case ATT_IMA_F_N_NG:
		return decode_name_ng(e, f->data, f->len);
	case ATT_IMA_F_N:
		if (memchr(f->data, '\0', f->len))
			return ATT_E_FORMAT;
		e->path = f->data;
		e->path_len = f->len;
		return ATT_OK;
	case ATT_IMA_F_SIG:
		e->sig = f->len ? f->data : NULL;
		e->sig_len = f->len;
		return ATT_OK;
	case ATT_IMA_F_BUF:
		e->buf = f->data;
		e->buf_len = f->len;
		return ATT_OK;
	case ATT_IMA_F_D_MODSIG:
		/* Empty when the file had no appended signature. */
		if (!f->len)
			return ATT_OK;
		{
			struct att_ima_entry tmp = {.violation = 0};

			return decode_digest_ng(&tmp, f->data, f->len, 0);
		}
	case ATT_IMA_F_IUID:
	case ATT_IMA_F_IGID:
		return f->len == 2 || f->len == 4 || f->len == 8 ? ATT_OK
								 : ATT_E_FORMAT;
	case ATT_IMA_F_IMODE:
		return f->len == 2 ? ATT_OK : ATT_E_FORMAT;
	default:
		return ATT_OK; /* opaque bytes */
	}
}

static void clear_decoded(struct att_ima_entry *e)
{
	e->file_alg = ATT_HASH_NONE;
	e->file_digest = NULL;
	e->file_digest_len = 0;
	e->path = NULL;
	e->path_len = 0;
	e->sig = NULL;
	e->sig_len = 0;
	e->buf = NULL;
	e->buf_len = 0;
}

int att_ima_decode_fields(struct att_ima_entry *e, const uint8_t *data,
			  size_t len, const struct att_ima_limits *lim)
{
	struct att_rd r;
	unsigned int i;
	int rc;

	clear_decoded(e);
	att_rd_init(&r, data, len);
	for (i = 0; i < e->tmpl.nfields; i++) {
		struct att_ima_field *f = &e->fields[i];
		enum att_ima_field_id id = e->tmpl.fields[i];
		uint32_t max =
			id == ATT_IMA_F_N_NG ? lim->max_path : lim->max_data;

		f->id = id;
		rc = att_rd_lv32le(&r, max, &f->data, &f->len);
		if (rc)
			return rc;
		rc = decode_one(e, f);
		if (rc)
			return rc;
	}
	return att_rd_end(&r);
}

int att_ima_decode_legacy(struct att_ima_entry *e)
{
	int rc;

	clear_decoded(e);
	rc = decode_one(e, &e->fields[0]);
	if (!rc)
		rc = decode_one(e, &e->fields[1]);
	return rc;
}
