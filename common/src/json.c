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

/* Length of a valid UTF-8 sequence at p (1..4), or 0. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80) /* the NUL stops here too */
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xf0 && p[1] < 0x90))
		return 0; /* overlong */
	if ((c == 0xed && p[1] >= 0xa0) || (c == 0xf4 && p[1] >= 0x90))
		return 0; /* surrogate, over U+10FFFF */
	return n;
}

void att_json_utf8_clean(char *s)
{
	size_t n;

	while (*s) {
		n = utf8_len((const unsigned char *)s);
		if (n == 0) {
			*s++ = '?';
			continue;
		}
		s += n;
	}
}
