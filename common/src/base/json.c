// SPDX-License-Identifier: Apache-2.0
/*
 * json.c - strict JSON parsing: json-c plus a duplicate-key check.
 *
 * Every object member has exactly one ':' outside strings, so the number of
 * such colons in the text equals the number of members json-c kept unless a
 * key was repeated. Only then is the text scanned again to name the key.
 */
#include "attest/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/err.h"
#include "attest/utf8.h"

static size_t count_members(struct json_object *o)
{
	size_t n = 0, i, len;

	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			n += 1 + count_members(v);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		len = json_object_array_length(o);
		for (i = 0; i < len; i++)
			n += count_members(json_object_array_get_idx(o, i));
	}
	return n;
}

/* Index just past the string starting at text[i] == '"'. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (t[i] == '\\')
			i++;
		else if (t[i] == '"')
			return i + 1;
	}
	return len;
}

static size_t count_colons(const char *t, size_t len)
{
	size_t i = 0, n = 0;

	while (i < len) {
		if (t[i] == '"') {
			i = skip_string(t, len, i);
			continue;
		}
		n += t[i] == ':';
		i++;
	}
	return n;
}

struct key_span {
	size_t off, len;
	unsigned int obj;
};

static int span_cmp(const void *a, const void *b, void *arg)
{
	const struct key_span *x = a, *y = b;
	const char *t = arg;
	size_t n = x->len < y->len ? x->len : y->len;
	int c;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	c = memcmp(t + x->off, t + y->off, n);
	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * Slow path, only after a duplicate was detected: collects every key with
 * the object it belongs to, sorts, and reports the first repeated one.
 * Keys are compared as written (escapes included), which finds every
 * duplicate json-c would merge except differently escaped spellings; those
 * are reported without a name.
 */
static void name_duplicate(const char *t, size_t len, char *err, size_t errlen)
{
	unsigned int stack[64], depth = 0, next_obj = 0;
	struct key_span *keys = NULL;
	size_t nkeys = 0, cap = 0, i = 0, k;

	while (i < len) {
		char c = t[i];

		if (c == '{' || c == '[') {
			if (depth < 64)
				stack[depth] = c == '{' ? ++next_obj : 0;
			depth++;
			i++;
		} else if (c == '}' || c == ']') {
			depth -= depth > 0;
			i++;
		} else if (c == '"') {
			size_t end = skip_string(t, len, i), j = end;

			while (j < len && (t[j] == ' ' || t[j] == '\t' ||
					   t[j] == '\n' || t[j] == '\r'))
				j++;
			if (j < len && t[j] == ':' && depth && depth <= 64 &&
			    stack[depth - 1]) {
				if (nkeys == cap) {
					size_t nc = cap ? cap * 2 : 64;
					struct key_span *nk =
						realloc(keys, nc * sizeof(*nk));

					if (!nk)
						break;
					keys = nk;
					cap = nc;
				}
				keys[nkeys++] = (struct key_span){
					i + 1, end - i - 2, stack[depth - 1]};
			}
			i = end;
		} else {
			i++;
		}
	}
	qsort_r(keys, nkeys, sizeof(*keys), span_cmp, (void *)t);
	for (k = 1; k < nkeys; k++) {
		if (!span_cmp(&keys[k - 1], &keys[k], (void *)t)) {
			snprintf(err, errlen, "duplicate key '%.*s'",
				 (int)(keys[k].len > 64 ? 64 : keys[k].len),
				 t + keys[k].off);
			free(keys);
			return;
		}
	}
	snprintf(err, errlen, "duplicate key");
	free(keys);
}

/*
 * What json-c lets through: bytes that are not strict UTF-8 (overlong
 * forms, surrogates, code points past U+10FFFF: its VALIDATE_UTF8 checks
 * only the shape), and \u escapes of a lone surrogate or of U+0000 (a
 * NUL would cut the string where C reads it). Malformed escapes are
 * json-c's to refuse.
 */
static int text_strict(const char *t, size_t len, char *err, size_t errlen)
{
	const uint8_t *u = (const uint8_t *)t;
	unsigned int cp, lo;
	size_t i = 0, n;
	int in_str = 0;

	while (i < len) {
		if (u[i] >= 0x80) {
			n = att_utf8_len(u + i, len - i);
			if (!n) {
				snprintf(err, errlen,
					 "JSON error at byte %zu: not UTF-8 "
					 "(a broken, overlong, surrogate or "
					 "beyond U+10FFFF sequence)",
					 i);
				return ATT_E_FORMAT;
			}
			i += n;
			continue;
		}
		if (t[i] == '"') {
			in_str = !in_str;
		} else if (in_str && t[i] == '\\' && i + 1 < len) {
			if (t[i + 1] != 'u' || i + 6 > len ||
			    att_utf8_hex4(t + i + 2, &cp)) {
				i += 2;
				continue;
			}
			if (cp == 0) {
				snprintf(err, errlen,
					 "JSON error at byte %zu: \\u0000 in a "
					 "string",
					 i);
				return ATT_E_FORMAT;
			}
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				snprintf(err, errlen,
					 "JSON error at byte %zu: lone low "
					 "surrogate escape",
					 i);
				return ATT_E_FORMAT;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (i + 12 > len || t[i + 6] != '\\' ||
				    t[i + 7] != 'u' ||
				    att_utf8_hex4(t + i + 8, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff) {
					snprintf(err, errlen,
						 "JSON error at byte %zu: lone "
						 "high surrogate escape",
						 i);
					return ATT_E_FORMAT;
				}
				i += 12;
				continue;
			}
			i += 6;
			continue;
		}
		i++;
	}
	return ATT_OK;
}

int att_json_parse(const char *text, size_t len, int max_depth,
		   struct json_object **out, char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error jerr;
	size_t end;

	if (len > (size_t)INT32_MAX) {
		snprintf(err, errlen, "document too large");
		return ATT_E_TOO_BIG;
	}
	if (text_strict(text, len, err, errlen))
		return ATT_E_FORMAT;
	tok = json_tokener_new_ex(max_depth > 0 ? max_depth : 32);
	if (!tok)
		return ATT_E_NOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!o && jerr == json_tokener_continue && end == len) {
		/* A bare number at the end is complete only after a delimiter.
		 */
		o = json_tokener_parse_ex(tok, " ", 1);
		jerr = json_tokener_get_error(tok);
		end = len;
	}
	json_tokener_free(tok);
	if (!o || jerr != json_tokener_success) {
		json_object_put(o);
		if (jerr == json_tokener_continue)
			snprintf(err, errlen, "JSON ends early");
		else
			snprintf(err, errlen, "JSON error at byte %zu: %s", end,
				 json_tokener_error_desc(jerr));
		return jerr == json_tokener_error_depth ? ATT_E_TOO_BIG
							: ATT_E_FORMAT;
	}
	while (end < len && (text[end] == ' ' || text[end] == '\n' ||
			     text[end] == '\t' || text[end] == '\r'))
		end++;
	if (end != len) {
		json_object_put(o);
		snprintf(err, errlen,
			 "unexpected data after the JSON value "
			 "at byte %zu",
			 end);
		return ATT_E_TRAILING;
	}
	if (count_colons(text, len) != count_members(o)) {
		json_object_put(o);
		name_duplicate(text, len, err, errlen);
		return ATT_E_FORMAT;
	}
	*out = o;
	return ATT_OK;
}

void att_json_utf8_clean(char *s)
{
	size_t n;

	while (*s) {
		n = att_utf8_len((const uint8_t *)s, strnlen(s, 4));
		if (n == 0) {
			*s++ = '?';
			continue;
		}
		s += n;
	}
}
