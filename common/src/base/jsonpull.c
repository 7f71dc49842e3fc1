// SPDX-License-Identifier: Apache-2.0
/*
 * jsonpull.c - strict JSON pull parser.
 */
#include "attest/jsonpull.h"

#include <stdio.h>
#include <string.h>

#include "attest/err.h"
#include "attest/utf8.h"

enum {
	EXP_VALUE,	  /* a value (top level, after ':' or ',' in arr) */
	EXP_VALUE_OR_END, /* first element of an array, or ']' */
	EXP_KEY_OR_END,	  /* first key of an object, or '}' */
	EXP_KEY,	  /* a key after ',' */
	EXP_COMMA_OR_END, /* after a value inside a container */
	EXP_DONE,	  /* top-level value complete */
};

#define JP_MAX_NUMBER 64

int att_jp_init(struct att_jp *jp, const char *text, size_t len, int max_depth)
{
	memset(jp, 0, sizeof(*jp));
	jp->p = text;
	jp->len = len;
	jp->max_depth = max_depth > 0 && max_depth <= ATT_JP_MAX_DEPTH
				? max_depth
				: ATT_JP_MAX_DEPTH;
	jp->expect = EXP_VALUE;
	att_buf_init(&jp->sbuf, len + 1);
	return ATT_OK;
}

void att_jp_release(struct att_jp *jp)
{
	att_buf_release(&jp->sbuf);
}

static int fail(struct att_jp *jp, int rc, const char *what)
{
	snprintf(jp->err, sizeof(jp->err), "JSON error at byte %zu: %s",
		 jp->pos, what);
	return rc;
}

static void skip_ws(struct att_jp *jp)
{
	while (jp->pos < jp->len) {
		char c = jp->p[jp->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		jp->pos++;
	}
}

static int put_utf8(struct att_buf *b, unsigned int cp)
{
	uint8_t t[4];
	size_t n;

	if (cp < 0x80) {
		t[0] = (uint8_t)cp;
		n = 1;
	} else if (cp < 0x800) {
		t[0] = (uint8_t)(0xc0 | (cp >> 6));
		t[1] = (uint8_t)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		t[0] = (uint8_t)(0xe0 | (cp >> 12));
		t[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		t[2] = (uint8_t)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		t[0] = (uint8_t)(0xf0 | (cp >> 18));
		t[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
		t[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		t[3] = (uint8_t)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return att_buf_append(b, t, n);
}

static int read_escape(struct att_jp *jp)
{
	const char *p = jp->p;
	unsigned int cp, lo;
	char c;

	if (jp->pos + 1 >= jp->len)
		return fail(jp, ATT_E_FORMAT, "string ends inside an escape");
	c = p[jp->pos + 1];
	jp->pos += 2;
	switch (c) {
	case '"':
	case '\\':
	case '/':
		return att_buf_append_u8(&jp->sbuf, (uint8_t)c);
	case 'b':
		return att_buf_append_u8(&jp->sbuf, '\b');
	case 'f':
		return att_buf_append_u8(&jp->sbuf, '\f');
	case 'n':
		return att_buf_append_u8(&jp->sbuf, '\n');
	case 'r':
		return att_buf_append_u8(&jp->sbuf, '\r');
	case 't':
		return att_buf_append_u8(&jp->sbuf, '\t');
	case 'u':
		break;
	default:
		return fail(jp, ATT_E_FORMAT, "invalid escape");
	}
	if (jp->len - jp->pos < 4 || att_utf8_hex4(p + jp->pos, &cp))
		return fail(jp, ATT_E_FORMAT, "invalid \\u escape");
	jp->pos += 4;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(jp, ATT_E_FORMAT, "lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (jp->len - jp->pos < 6 || p[jp->pos] != '\\' ||
		    p[jp->pos + 1] != 'u' ||
		    att_utf8_hex4(p + jp->pos + 2, &lo) || lo < 0xdc00 ||
		    lo > 0xdfff)
			return fail(jp, ATT_E_FORMAT, "lone high surrogate");
		jp->pos += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	return put_utf8(&jp->sbuf, cp);
}

/* At the opening quote; leaves jp->str/slen set. */
static int read_string(struct att_jp *jp)
{
	const uint8_t *p = (const uint8_t *)jp->p;
	size_t start = ++jp->pos, n;
	int escaped = 0, rc;

	for (;;) {
		/* Fast path: plain ASCII that needs no decoding. */
		if (!escaped)
			while (jp->pos < jp->len && p[jp->pos] >= 0x20 &&
			       p[jp->pos] < 0x80 && p[jp->pos] != '"' &&
			       p[jp->pos] != '\\')
				jp->pos++;
		if (jp->pos >= jp->len)
			return fail(jp, ATT_E_FORMAT, "unterminated string");
		if (p[jp->pos] == '"')
			break;
		if (p[jp->pos] == '\\') {
			if (!escaped) {
				jp->sbuf.len = 0;
				rc = att_buf_append(&jp->sbuf, p + start,
						    jp->pos - start);
				if (rc)
					return rc;
				escaped = 1;
			}
			rc = read_escape(jp);
			if (rc)
				return rc;
			continue;
		}
		if (p[jp->pos] < 0x20)
			return fail(jp, ATT_E_FORMAT,
				    "control character in string");
		n = att_utf8_len(p + jp->pos, jp->len - jp->pos);
		if (!n)
			return fail(jp, ATT_E_FORMAT, "invalid UTF-8");
		if (escaped) {
			rc = att_buf_append(&jp->sbuf, p + jp->pos, n);
			if (rc)
				return rc;
		}
		jp->pos += n;
	}
	if (escaped) {
		jp->str = (const char *)jp->sbuf.data;
		jp->slen = jp->sbuf.len;
		if (!jp->str) {
			jp->str = "";
		}
	} else {
		jp->str = jp->p + start;
		jp->slen = jp->pos - start;
	}
	jp->pos++;
	return ATT_OK;
}

static int read_number(struct att_jp *jp)
{
	const char *p = jp->p;
	size_t start = jp->pos, i = jp->pos;

	if (i < jp->len && p[i] == '-')
		i++;
	if (i >= jp->len)
		return fail(jp, ATT_E_FORMAT, "bad number");
	if (p[i] == '0') {
		i++;
	} else if (p[i] >= '1' && p[i] <= '9') {
		while (i < jp->len && p[i] >= '0' && p[i] <= '9')
			i++;
	} else {
		return fail(jp, ATT_E_FORMAT, "bad number");
	}
	if (i < jp->len && p[i] == '.') {
		size_t d = ++i;

		while (i < jp->len && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == d)
			return fail(jp, ATT_E_FORMAT, "bad number");
	}
	if (i < jp->len && (p[i] == 'e' || p[i] == 'E')) {
		size_t d;

		i++;
		if (i < jp->len && (p[i] == '+' || p[i] == '-'))
			i++;
		d = i;
		while (i < jp->len && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == d)
			return fail(jp, ATT_E_FORMAT, "bad number");
	}
	if (i - start > JP_MAX_NUMBER)
		return fail(jp, ATT_E_TOO_BIG, "number too long");
	jp->str = p + start;
	jp->slen = i - start;
	jp->pos = i;
	return ATT_OK;
}

static int literal(struct att_jp *jp, const char *word)
{
	size_t n = strlen(word);

	if (jp->len - jp->pos < n || memcmp(jp->p + jp->pos, word, n))
		return fail(jp, ATT_E_FORMAT, "unexpected character");
	jp->pos += n;
	return ATT_OK;
}

static void after_value(struct att_jp *jp)
{
	jp->expect = jp->depth ? EXP_COMMA_OR_END : EXP_DONE;
}

static int open_container(struct att_jp *jp, char kind)
{
	if (jp->depth >= jp->max_depth)
		return fail(jp, ATT_E_TOO_BIG, "nesting too deep");
	jp->stack[jp->depth++] = kind;
	jp->pos++;
	jp->expect = kind == 'o' ? EXP_KEY_OR_END : EXP_VALUE_OR_END;
	return ATT_OK;
}

static int close_container(struct att_jp *jp, char kind)
{
	if (!jp->depth || jp->stack[jp->depth - 1] != kind)
		return fail(jp, ATT_E_FORMAT, "mismatched bracket");
	jp->depth--;
	jp->pos++;
	after_value(jp);
	return ATT_OK;
}

static int read_value(struct att_jp *jp, enum att_jp_tok *tok)
{
	int rc;
	char c = jp->p[jp->pos];

	switch (c) {
	case '{':
		*tok = ATT_JP_OBJ_START;
		return open_container(jp, 'o');
	case '[':
		*tok = ATT_JP_ARR_START;
		return open_container(jp, 'a');
	case '"':
		*tok = ATT_JP_STRING;
		rc = read_string(jp);
		break;
	case 't':
		*tok = ATT_JP_TRUE;
		rc = literal(jp, "true");
		break;
	case 'f':
		*tok = ATT_JP_FALSE;
		rc = literal(jp, "false");
		break;
	case 'n':
		*tok = ATT_JP_NULL;
		rc = literal(jp, "null");
		break;
	default:
		*tok = ATT_JP_NUMBER;
		rc = read_number(jp);
	}
	if (!rc)
		after_value(jp);
	return rc;
}

int att_jp_next(struct att_jp *jp, enum att_jp_tok *tok)
{
	char c;
	int rc;

	skip_ws(jp);
	jp->tok_start = jp->pos;
	if (jp->expect == EXP_DONE) {
		if (jp->pos != jp->len)
			return fail(jp, ATT_E_TRAILING,
				    "unexpected data after the JSON value");
		*tok = ATT_JP_END;
		return ATT_OK;
	}
	if (jp->pos >= jp->len)
		return fail(jp, ATT_E_FORMAT, "JSON ends early");
	c = jp->p[jp->pos];
	switch (jp->expect) {
	case EXP_VALUE:
		return read_value(jp, tok);
	case EXP_VALUE_OR_END:
		if (c == ']') {
			*tok = ATT_JP_ARR_END;
			return close_container(jp, 'a');
		}
		return read_value(jp, tok);
	case EXP_KEY_OR_END:
		if (c == '}') {
			*tok = ATT_JP_OBJ_END;
			return close_container(jp, 'o');
		}
		/* fall through */
	case EXP_KEY:
		if (c != '"')
			return fail(jp, ATT_E_FORMAT, "expected a key");
		rc = read_string(jp);
		if (rc)
			return rc;
		skip_ws(jp);
		if (jp->pos >= jp->len || jp->p[jp->pos] != ':')
			return fail(jp, ATT_E_FORMAT, "expected ':'");
		jp->pos++;
		jp->expect = EXP_VALUE;
		*tok = ATT_JP_KEY;
		return ATT_OK;
	case EXP_COMMA_OR_END: {
		char kind = jp->stack[jp->depth - 1];

		if (c == ',') {
			jp->pos++;
			jp->expect = kind == 'o' ? EXP_KEY : EXP_VALUE;
			return att_jp_next(jp, tok);
		}
		if (c == (kind == 'o' ? '}' : ']')) {
			*tok = kind == 'o' ? ATT_JP_OBJ_END : ATT_JP_ARR_END;
			return close_container(jp, kind);
		}
		return fail(jp, ATT_E_FORMAT,
			    "expected ',' or a closing "
			    "bracket");
	}
	default:
		return fail(jp, ATT_E_INTERNAL, "bad parser state");
	}
}

int att_jp_skip(struct att_jp *jp, enum att_jp_tok first, size_t *start,
		size_t *end)
{
	enum att_jp_tok t;
	int depth, rc;

	*start = jp->tok_start;
	if (first != ATT_JP_OBJ_START && first != ATT_JP_ARR_START) {
		*end = jp->pos;
		return ATT_OK;
	}
	depth = jp->depth - 1;
	do {
		rc = att_jp_next(jp, &t);
		if (rc)
			return rc;
	} while (jp->depth > depth);
	*end = jp->pos;
	return ATT_OK;
}
