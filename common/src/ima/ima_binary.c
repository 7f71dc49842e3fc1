// SPDX-License-Identifier: Apache-2.0
/*
 * ima_binary.c - one record of binary_runtime_measurements.
 *
 * pcr u32 | template digest (bank size) | name_len u32 | name |
 *   data_len u32 | data                 (all templates but "ima")
 *   digest[20] | u32 len | name         ("ima")
 *
 * The record's length is learnt in three peeks (head, lengths, body), each
 * checked against its cap before the window grows; then the whole record is
 * decoded from a bounded reader over exactly its bytes.
 */
#include <string.h>

#include "attest/err.h"
#include "attest/rd.h"
#include "ima_internal.h"

static int all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;
	size_t i;

	for (i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static int peek(struct att_ima_reader *r, size_t need, const uint8_t **p,
		int first)
{
	size_t avail;
	int rc = ima_src_peek(r, need, p, &avail);

	if (rc == ATT_E_EOF && !first)
		rc = ATT_E_TRUNCATED;
	if (rc == ATT_E_TRUNCATED)
		ima_set_err(r, "record is truncated (%zu of %zu bytes)", avail,
			    need);
	else if (rc && rc != ATT_E_EOF)
		ima_set_err(r, "read failed: %s", att_strerror(rc));
	return rc;
}

static int decode_record(struct att_ima_reader *r, struct att_ima_entry *e,
			 const uint8_t *p, size_t len)
{
	size_t tlen = att_hash_size(r->talg);
	const uint8_t *name, *data;
	uint32_t nlen, dlen;
	struct att_rd rd;
	int rc;

	att_rd_init(&rd, p, len);
	if ((rc = att_rd_u32le(&rd, &e->pcr)) ||
	    (rc = att_rd_copy(&rd, e->tdigest, tlen)) ||
	    (rc = att_rd_lv32le(&rd, r->lim.max_name, &name, &nlen)))
		return rc;
	memcpy(r->tname, name, nlen);
	r->tname[nlen] = '\0';
	e->template_name = r->tname;
	e->violation = all_zero(e->tdigest, tlen);
	if (e->tmpl.legacy) {
		const uint8_t *d;

		if ((rc = att_rd_bytes(&rd, 20, &d)) ||
		    (rc = att_rd_lv32le(&rd, ATT_IMA_LEGACY_NAME_MAX, &name,
					&nlen)))
			return rc;
		e->fields[0] = (struct att_ima_field){ATT_IMA_F_D, d, 20};
		e->fields[1] = (struct att_ima_field){ATT_IMA_F_N, name, nlen};
		memset(r->legacy_in, 0, sizeof(r->legacy_in));
		memcpy(r->legacy_in, d, 20);
		memcpy(r->legacy_in + 20, name, nlen);
		e->hash_input = r->legacy_in;
		e->hash_input_len = sizeof(r->legacy_in);
		rc = att_ima_decode_legacy(e);
	} else {
		rc = att_rd_lv32le(&rd, r->lim.max_data, &data, &dlen);
		if (rc)
			return rc;
		e->hash_input = data;
		e->hash_input_len = dlen;
		rc = att_ima_decode_fields(e, data, dlen, &r->lim);
	}
	if (!rc)
		rc = att_rd_end(&rd);
	return rc;
}

int ima_read_binary(struct att_ima_reader *r, struct att_ima_entry *e,
		    size_t *consumed)
{
	size_t tlen = att_hash_size(r->talg);
	size_t need = 4 + tlen + 4;
	const uint8_t *p;
	uint32_t pcr, nlen, blen;
	int rc;

	rc = peek(r, need, &p, 1);
	if (rc)
		return rc;
	pcr = le32(p);
	nlen = le32(p + 4 + tlen);
	if (pcr > r->lim.max_pcr) {
		ima_set_err(r, "PCR index %u out of range", pcr);
		return ATT_E_FORMAT;
	}
	if (nlen == 0 || nlen > r->lim.max_name) {
		ima_set_err(r, "template name length %u not in 1..%u", nlen,
			    r->lim.max_name);
		return nlen ? ATT_E_TOO_BIG : ATT_E_FORMAT;
	}
	need += nlen + 4;
	rc = peek(r, need, &p, 0);
	if (rc)
		return rc;
	if (memchr(p + 4 + tlen + 4, '\0', nlen)) {
		ima_set_err(r, "template name holds a NUL byte");
		return ATT_E_FORMAT;
	}
	rc = att_ima_template_parse((const char *)p + 4 + tlen + 4, nlen,
				    &e->tmpl);
	if (rc) {
		ima_set_err(r, "unknown template '%.*s'",
			    (int)(nlen > 64 ? 64 : nlen),
			    (const char *)p + 4 + tlen + 4);
		return ATT_E_UNSUPPORTED;
	}
	if (e->tmpl.legacy) {
		/* "ima": digest[20] then u32 name length. */
		need += 20;
		rc = peek(r, need, &p, 0);
		if (rc)
			return rc;
		blen = le32(p + need - 4);
		if (blen > ATT_IMA_LEGACY_NAME_MAX) {
			ima_set_err(r, "ima template name length %u over %u",
				    blen, ATT_IMA_LEGACY_NAME_MAX);
			return ATT_E_TOO_BIG;
		}
	} else {
		blen = le32(p + need - 4);
		if (blen > r->lim.max_data) {
			ima_set_err(r, "template data length %u over %u", blen,
				    r->lim.max_data);
			return ATT_E_TOO_BIG;
		}
	}
	need += blen;
	rc = peek(r, need, &p, 0);
	if (rc)
		return rc;
	rc = decode_record(r, e, p, need);
	if (rc) {
		switch (rc) {
		case ATT_E_TOO_BIG:
			ima_set_err(r, "a field length is over its cap");
			break;
		case ATT_E_TRUNCATED:
			ima_set_err(r, "a field runs past the template data");
			break;
		case ATT_E_TRAILING:
			ima_set_err(r, "bytes after the last template field");
			break;
		case ATT_E_UNSUPPORTED:
			ima_set_err(r, "unsupported digest algorithm");
			break;
		default:
			ima_set_err(r, "malformed template field");
		}
		return rc;
	}
	*consumed = need;
	return ATT_OK;
}
