// SPDX-License-Identifier: Apache-2.0
/*
 * ima_ascii.c - one line of ascii_runtime_measurements.
 *
 * "%2d <template hash hex> <template name> <field> <field> ...\n"
 * The template data is rebuilt from the fields' text exactly as the kernel
 * stored it, so that the template hash can be recomputed and compared.
 * A name field may hold spaces: the fields before it are split from the
 * left, those after it (hex, never spaces) from the right. A name holding a
 * newline cannot be told apart in this format; the binary list can.
 */
#include <string.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "ima_internal.h"

struct span {
	const char *p;
	size_t n;
};

static int is_string_field(enum att_ima_field_id id)
{
	return id == ATT_IMA_F_N || id == ATT_IMA_F_N_NG ||
	       id == ATT_IMA_F_XATTRNAMES;
}

static int append_hex(struct att_buf *b, const struct span *s, uint32_t max)
{
	size_t outlen;
	int rc;

	if (s->n / 2 > max)
		return ATT_E_TOO_BIG;
	rc = att_buf_reserve(b, s->n / 2);
	if (rc)
		return rc;
	rc = att_hex_decode(s->p, s->n, b->data + b->len, s->n / 2, &outlen);
	if (rc)
		return rc;
	b->len += outlen;
	return ATT_OK;
}

/* "algo:hex" or "type:algo:hex" -> "algo:\0" || bytes */
static int append_digest_ng(struct att_buf *b, const struct span *s)
{
	const char *colon = NULL;
	size_t i;
	int rc;

	for (i = 0; i < s->n; i++)
		if (s->p[i] == ':')
			colon = s->p + i;
	if (!colon)
		return ATT_E_FORMAT;
	rc = att_buf_append(b, s->p, (size_t)(colon - s->p) + 1);
	if (!rc)
		rc = att_buf_append_u8(b, 0);
	if (!rc) {
		struct span h = {colon + 1, s->n - (size_t)(colon + 1 - s->p)};

		rc = append_hex(b, &h, ATT_DIGEST_MAX);
	}
	return rc;
}

static int append_field(struct att_ima_reader *r, struct att_buf *b,
			enum att_ima_field_id id, const struct span *s)
{
	switch (id) {
	case ATT_IMA_F_D:
		if (s->n != 40)
			return ATT_E_FORMAT;
		return append_hex(b, s, 20);
	case ATT_IMA_F_D_NG:
	case ATT_IMA_F_D_NGV2:
		return append_digest_ng(b, s);
	case ATT_IMA_F_D_MODSIG:
		return s->n ? append_digest_ng(b, s) : ATT_OK;
	case ATT_IMA_F_N_NG:
		if (s->n + 1 > r->lim.max_path)
			return ATT_E_TOO_BIG;
		if (memchr(s->p, '\0', s->n))
			return ATT_E_FORMAT;
		if (att_buf_append(b, s->p, s->n) || att_buf_append_u8(b, 0))
			return ATT_E_NOMEM;
		return ATT_OK;
	case ATT_IMA_F_N:
		if (s->n > ATT_IMA_LEGACY_NAME_MAX)
			return ATT_E_TOO_BIG;
		/* fall through */
	case ATT_IMA_F_XATTRNAMES:
		if (memchr(s->p, '\0', s->n))
			return ATT_E_FORMAT;
		return att_buf_append(b, s->p, s->n);
	case ATT_IMA_F_IUID:
	case ATT_IMA_F_IGID:
	case ATT_IMA_F_IMODE:
		/* Their width is not in the text: only the binary list works.
		 */
		return ATT_E_UNSUPPORTED;
	default:
		return append_hex(b, s, r->lim.max_data);
	}
}

static int split_fields(const char *p, size_t n,
			const struct att_ima_template *t, struct span *out)
{
	unsigned int i, sidx = t->nfields, k;
	size_t lo = 0, hi = n;

	for (i = 0; i < t->nfields; i++)
		if (is_string_field(t->fields[i])) {
			sidx = i;
			break;
		}
	/* Fields before the string field, from the left. */
	for (i = 0; i < (sidx < t->nfields ? sidx : t->nfields); i++) {
		const char *sp = memchr(p + lo, ' ', hi - lo);
		int last = i + 1 == t->nfields;

		if (last) {
			if (sp)
				return ATT_E_FORMAT;
			out[i] = (struct span){p + lo, hi - lo};
			return ATT_OK;
		}
		if (!sp)
			return ATT_E_FORMAT;
		out[i] = (struct span){p + lo, (size_t)(sp - (p + lo))};
		lo = (size_t)(sp - p) + 1;
	}
	if (sidx == t->nfields)
		return ATT_E_FORMAT;
	/* Fields after it, from the right. */
	for (k = t->nfields - 1; k > sidx; k--) {
		size_t j = hi;

		while (j > lo && p[j - 1] != ' ')
			j--;
		if (j == lo)
			return ATT_E_FORMAT;
		out[k] = (struct span){p + j, hi - j};
		hi = j - 1;
	}
	out[sidx] = (struct span){p + lo, hi - lo};
	return ATT_OK;
}

static int parse_line(struct att_ima_reader *r, struct att_ima_entry *e,
		      const char *p, size_t n)
{
	size_t tlen = att_hash_size(r->talg), i = 0, outlen, ns;
	struct span spans[ATT_IMA_MAX_FIELDS];
	const char *sp;
	uint32_t pcr = 0;
	unsigned int f;
	int rc, digits = 0;

	while (i < n && p[i] == ' ')
		i++;
	for (; i < n && p[i] >= '0' && p[i] <= '9' && digits < 4; i++, digits++)
		pcr = pcr * 10 + (uint32_t)(p[i] - '0');
	if (!digits || i >= n || p[i] != ' ' || pcr > r->lim.max_pcr) {
		ima_set_err(r, "bad PCR field");
		return ATT_E_FORMAT;
	}
	e->pcr = pcr;
	i++;
	if (n - i < tlen * 2 + 1 || p[i + tlen * 2] != ' ' ||
	    att_hex_decode(p + i, tlen * 2, e->tdigest, sizeof(e->tdigest),
			   &outlen)) {
		ima_set_err(r, "bad template hash: want %zu hex digits",
			    tlen * 2);
		return ATT_E_FORMAT;
	}
	i += tlen * 2 + 1;
	sp = memchr(p + i, ' ', n - i);
	ns = sp ? (size_t)(sp - (p + i)) : n - i;
	if (!ns || ns > r->lim.max_name || !sp) {
		ima_set_err(r, "bad template name");
		return ATT_E_FORMAT;
	}
	memcpy(r->tname, p + i, ns);
	r->tname[ns] = '\0';
	e->template_name = r->tname;
	if (att_ima_template_parse(r->tname, ns, &e->tmpl)) {
		ima_set_err(r, "unknown template '%.64s'", r->tname);
		return ATT_E_UNSUPPORTED;
	}
	i += ns + 1;
	for (outlen = 0; outlen < tlen && !e->tdigest[outlen]; outlen++)
		;
	e->violation = outlen == tlen;
	if (split_fields(p + i, n - i, &e->tmpl, spans)) {
		ima_set_err(r, "wrong number of fields for template '%.64s'",
			    r->tname);
		return ATT_E_FORMAT;
	}
	r->scratch.len = 0;
	for (f = 0; f < e->tmpl.nfields; f++) {
		size_t lenpos = r->scratch.len;

		if (!e->tmpl.legacy && att_buf_append_u32le(&r->scratch, 0))
			return ATT_E_NOMEM;
		rc = append_field(r, &r->scratch, e->tmpl.fields[f], &spans[f]);
		if (rc) {
			ima_set_err(r, "bad %s field: %s",
				    att_ima_field_name(e->tmpl.fields[f]),
				    att_strerror(rc));
			return rc;
		}
		if (!e->tmpl.legacy) {
			uint32_t flen = (uint32_t)(r->scratch.len - lenpos - 4);
			uint8_t *q = r->scratch.data + lenpos;

			q[0] = (uint8_t)flen;
			q[1] = (uint8_t)(flen >> 8);
			q[2] = (uint8_t)(flen >> 16);
			q[3] = (uint8_t)(flen >> 24);
		}
	}
	if (e->tmpl.legacy) {
		const uint8_t *d = r->scratch.data;
		size_t nlen = r->scratch.len - 20;

		e->fields[0] = (struct att_ima_field){ATT_IMA_F_D, d, 20};
		e->fields[1] = (struct att_ima_field){ATT_IMA_F_N, d + 20,
						      (uint32_t)nlen};
		memset(r->legacy_in, 0, sizeof(r->legacy_in));
		memcpy(r->legacy_in, d, 20 + nlen);
		e->hash_input = r->legacy_in;
		e->hash_input_len = sizeof(r->legacy_in);
		rc = att_ima_decode_legacy(e);
	} else {
		if (r->scratch.len > r->lim.max_data) {
			ima_set_err(r, "template data over %u bytes",
				    r->lim.max_data);
			return ATT_E_TOO_BIG;
		}
		e->hash_input = r->scratch.data;
		e->hash_input_len = r->scratch.len;
		rc = att_ima_decode_fields(e, r->scratch.data, r->scratch.len,
					   &r->lim);
	}
	if (rc)
		ima_set_err(r, "malformed field: %s", att_strerror(rc));
	return rc;
}

int ima_read_ascii(struct att_ima_reader *r, struct att_ima_entry *e,
		   size_t *consumed)
{
	size_t cap = 2 * (size_t)r->lim.max_data + r->lim.max_path + 1024;
	size_t avail, need = 1;
	const uint8_t *p, *nl;
	int rc;

	for (;;) {
		rc = ima_src_peek(r, need, &p, &avail);
		if (rc == ATT_E_EOF)
			return rc;
		if (rc && rc != ATT_E_TRUNCATED) {
			ima_set_err(r, "read failed: %s", att_strerror(rc));
			return rc;
		}
		nl = memchr(p, '\n', avail < cap ? avail : cap);
		if (nl)
			break;
		if (avail >= cap) {
			ima_set_err(r, "line longer than %zu bytes", cap);
			return ATT_E_TOO_BIG;
		}
		if (avail < need) {
			ima_set_err(r, "last line is not terminated");
			return ATT_E_TRUNCATED;
		}
		need = avail + 4096;
	}
	rc = parse_line(r, e, (const char *)p, (size_t)(nl - p));
	if (rc)
		return rc;
	*consumed = (size_t)(nl - p) + 1;
	return ATT_OK;
}
