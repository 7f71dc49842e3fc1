// SPDX-License-Identifier: Apache-2.0
/*
 * pcrs.c - PCR value sets and the PCR file formats.
 */
#include "attest/pcrs.h"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/codec.h"
#include "attest/err.h"

void att_pcrs_clear(struct att_pcrs *s)
{
	memset(s, 0, sizeof(*s));
}

int att_pcrs_set(struct att_pcrs *s, enum att_hash bank, unsigned int pcr,
		 const uint8_t *v, size_t len)
{
	if (!att_hash_info(bank) || pcr >= ATT_PCR_COUNT)
		return ATT_E_INVAL;
	if (len != att_hash_size(bank))
		return ATT_E_FORMAT;
	memcpy(s->val[bank][pcr], v, len);
	s->mask[bank] |= 1u << pcr;
	return ATT_OK;
}

const uint8_t *att_pcrs_get(const struct att_pcrs *s, enum att_hash bank,
			    unsigned int pcr)
{
	if (!att_hash_info(bank) || pcr >= ATT_PCR_COUNT ||
	    !(s->mask[bank] & (1u << pcr)))
		return NULL;
	return s->val[bank][pcr];
}

static enum att_hash bank_by_hexlen(size_t n)
{
	switch (n) {
	case 40:
		return ATT_HASH_SHA1;
	case 64:
		return ATT_HASH_SHA256;
	case 96:
		return ATT_HASH_SHA384;
	case 128:
		return ATT_HASH_SHA512;
	default:
		return ATT_HASH_NONE;
	}
}

static int set_hex(struct att_pcrs *s, enum att_hash bank, unsigned long pcr,
		   const char *hex, size_t n, unsigned int line, char *err,
		   size_t errlen)
{
	uint8_t v[ATT_DIGEST_MAX];
	size_t vlen;

	if (bank == ATT_HASH_NONE)
		bank = bank_by_hexlen(n);
	if (pcr >= ATT_PCR_COUNT) {
		snprintf(err, errlen, "line %u: PCR index out of range", line);
		return ATT_E_FORMAT;
	}
	if (bank == ATT_HASH_NONE || n != 2 * att_hash_size(bank) ||
	    att_hex_decode(hex, n, v, sizeof(v), &vlen)) {
		snprintf(err, errlen,
			 "line %u: PCR value is not %zu hex digits", line,
			 bank == ATT_HASH_NONE ? (size_t)64
					       : 2 * att_hash_size(bank));
		return ATT_E_FORMAT;
	}
	return att_pcrs_set(s, bank, (unsigned int)pcr, v, vlen);
}

static size_t trim_len(const char *p, size_t n)
{
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	return n;
}

/* Parses a decimal number of at most 2 digits at p, advancing *i. */
static int small_dec(const char *p, size_t n, size_t *i, unsigned long *v)
{
	size_t start = *i;

	*v = 0;
	while (*i < n && p[*i] >= '0' && p[*i] <= '9' && *i - start < 3)
		*v = *v * 10 + (unsigned long)(p[(*i)++] - '0');
	return *i > start && *i - start <= 2 ? ATT_OK : ATT_E_FORMAT;
}

int att_pcrs_parse_lines(struct att_pcrs *s, enum att_hash bank,
			 const char *text, size_t len, char *err, size_t errlen)
{
	size_t pos = 0;
	unsigned int line = 0;
	int rc, any = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		const char *p = text + pos;
		size_t n = trim_len(p, end - pos), i = 0;
		unsigned long pcr;

		line++;
		pos = end + 1;
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i == n || p[i] == '#')
			continue;
		if (n - i < 4 || memcmp(p + i, "PCR-", 4)) {
			snprintf(err, errlen, "line %u: expected 'PCR-NN: hex'",
				 line);
			return ATT_E_FORMAT;
		}
		i += 4;
		if (small_dec(p, n, &i, &pcr) || i + 1 >= n || p[i] != ':') {
			snprintf(err, errlen, "line %u: bad PCR index", line);
			return ATT_E_FORMAT;
		}
		i++;
		while (i < n && p[i] == ' ')
			i++;
		rc = set_hex(s, bank, pcr, p + i, n - i, line, err, errlen);
		if (rc)
			return rc;
		any = 1;
	}
	if (!any) {
		snprintf(err, errlen, "no PCR values found");
		return ATT_E_FORMAT;
	}
	return ATT_OK;
}

int att_pcrs_parse_yaml(struct att_pcrs *s, const char *text, size_t len,
			char *err, size_t errlen)
{
	enum att_hash bank = ATT_HASH_NONE;
	size_t pos = 0;
	unsigned int line = 0;
	int rc, any = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		const char *p = text + pos;
		size_t n = trim_len(p, end - pos), i = 0, ind;
		unsigned long pcr;

		line++;
		pos = end + 1;
		while (i < n && p[i] == ' ')
			i++;
		ind = i;
		if (i == n || p[i] == '#')
			continue;
		if (p[n - 1] == ':') {
			/* "  sha256:" opens a bank; "selected-pcrs:" etc. too
			 */
			bank = att_hash_by_name(p + i, n - 1 - i);
			continue;
		}
		if (!ind || bank == ATT_HASH_NONE)
			continue;
		rc = small_dec(p, n, &i, &pcr);
		while (!rc && i < n && p[i] == ' ')
			i++;
		if (rc || i >= n || p[i] != ':') {
			snprintf(err, errlen, "line %u: expected 'NN: 0xHEX'",
				 line);
			return ATT_E_FORMAT;
		}
		i++;
		while (i < n && p[i] == ' ')
			i++;
		if (n - i >= 2 && p[i] == '0' &&
		    (p[i + 1] == 'x' || p[i + 1] == 'X'))
			i += 2;
		rc = set_hex(s, bank, pcr, p + i, n - i, line, err, errlen);
		if (rc)
			return rc;
		any = 1;
	}
	if (!any) {
		snprintf(err, errlen, "no PCR values found");
		return ATT_E_FORMAT;
	}
	return ATT_OK;
}

int att_pcrs_parse_json(struct att_pcrs *s, const char *text, size_t len,
			char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(8);
	struct json_object *root;
	int rc = ATT_OK, any = 0;

	if (!tok)
		return ATT_E_NOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(root, json_type_object)) {
		snprintf(err, errlen, "PCR JSON: not an object of banks");
		rc = ATT_E_FORMAT;
		goto out;
	}
	json_object_object_foreach(root, bname, bobj)
	{
		enum att_hash bank = att_hash_by_name(bname, strlen(bname));

		if (bank == ATT_HASH_NONE ||
		    !json_object_is_type(bobj, json_type_object)) {
			snprintf(err, errlen, "PCR JSON: bad bank '%.32s'",
				 bname);
			rc = ATT_E_FORMAT;
			goto out;
		}
		json_object_object_foreach(bobj, pname, pval)
		{
			size_t i = 0, pl = strlen(pname);
			unsigned long pcr;
			const char *hex;

			if (small_dec(pname, pl, &i, &pcr) || i != pl ||
			    !json_object_is_type(pval, json_type_string)) {
				snprintf(err, errlen,
					 "PCR JSON: bad entry '%.32s'", pname);
				rc = ATT_E_FORMAT;
				goto out;
			}
			hex = json_object_get_string(pval);
			rc = set_hex(s, bank, pcr, hex, strlen(hex), 0, err,
				     errlen);
			if (rc)
				goto out;
			any = 1;
		}
	}
	if (!any) {
		snprintf(err, errlen, "no PCR values found");
		rc = ATT_E_FORMAT;
	}
out:
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}

int att_pcrs_parse_any(struct att_pcrs *s, enum att_hash bank, const char *text,
		       size_t len, char *err, size_t errlen)
{
	size_t i = 0;

	/* The first line that is neither blank nor a comment decides. */
	for (;;) {
		while (i < len && (text[i] == ' ' || text[i] == '\n' ||
				   text[i] == '\t' || text[i] == '\r'))
			i++;
		if (i >= len || text[i] != '#')
			break;
		while (i < len && text[i] != '\n')
			i++;
	}
	if (i < len && text[i] == '{')
		return att_pcrs_parse_json(s, text, len, err, errlen);
	if (len - i >= 4 && !memcmp(text + i, "PCR-", 4))
		return att_pcrs_parse_lines(s, bank, text, len, err, errlen);
	return att_pcrs_parse_yaml(s, text, len, err, errlen);
}
