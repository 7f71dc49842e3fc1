// SPDX-License-Identifier: Apache-2.0
/*
 * codec.c - hex and strict base64.
 */
#include "attest/codec.h"

#include "attest/buf.h"
#include "attest/err.h"

static const char hex_digits[] = "0123456789abcdef";

void att_hex_encode(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex_digits[p[i] >> 4];
		out[2 * i + 1] = hex_digits[p[i] & 0xf];
	}
	out[2 * n] = '\0';
}

/* -1 for anything that is not a hex digit. */
static const signed char hex_table[256] = {
	['0'] = 0 + 1,	['1'] = 1 + 1,	['2'] = 2 + 1,	['3'] = 3 + 1,
	['4'] = 4 + 1,	['5'] = 5 + 1,	['6'] = 6 + 1,	['7'] = 7 + 1,
	['8'] = 8 + 1,	['9'] = 9 + 1,	['a'] = 10 + 1, ['b'] = 11 + 1,
	['c'] = 12 + 1, ['d'] = 13 + 1, ['e'] = 14 + 1, ['f'] = 15 + 1,
	['A'] = 10 + 1, ['B'] = 11 + 1, ['C'] = 12 + 1, ['D'] = 13 + 1,
	['E'] = 14 + 1, ['F'] = 15 + 1,
};

static int hex_val(char c)
{
	return hex_table[(unsigned char)c] - 1;
}

int att_hex_decode(const char *hex, size_t hexlen, uint8_t *out, size_t outmax,
		   size_t *outlen)
{
	size_t i;

	if (hexlen % 2)
		return ATT_E_FORMAT;
	if (hexlen / 2 > outmax)
		return ATT_E_TOO_BIG;
	for (i = 0; i < hexlen; i += 2) {
		int hi = hex_val(hex[i]), lo = hex_val(hex[i + 1]);

		if (hi < 0 || lo < 0)
			return ATT_E_FORMAT;
		out[i / 2] = (uint8_t)((hi << 4) | lo);
	}
	*outlen = hexlen / 2;
	return ATT_OK;
}

static const char b64_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t att_b64_enclen(size_t n)
{
	return (n + 2) / 3 * 4;
}

void att_b64_encode(const uint8_t *p, size_t n, char *out)
{
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = ((uint32_t)p[i] << 16) |
			     ((uint32_t)p[i + 1] << 8) | p[i + 2];

		out[o++] = b64_chars[(v >> 18) & 63];
		out[o++] = b64_chars[(v >> 12) & 63];
		out[o++] = b64_chars[(v >> 6) & 63];
		out[o++] = b64_chars[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		out[o++] = b64_chars[(v >> 18) & 63];
		out[o++] = b64_chars[(v >> 12) & 63];
		out[o++] = i + 1 < n ? b64_chars[(v >> 6) & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
}

static int b64_val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int att_b64_decode(const char *s, size_t slen, uint8_t *out, size_t outmax,
		   size_t *outlen)
{
	size_t i, o = 0, pad = 0;

	if (slen % 4)
		return ATT_E_FORMAT;
	if (slen >= 1 && s[slen - 1] == '=')
		pad++;
	if (slen >= 2 && s[slen - 2] == '=')
		pad++;
	if (slen / 4 * 3 - pad > outmax)
		return ATT_E_TOO_BIG;
	for (i = 0; i < slen; i += 4) {
		int v[4], k, last = i + 4 == slen;
		uint32_t w;

		for (k = 0; k < 4; k++) {
			if (last && s[i + k] == '=' && k >= 4 - (int)pad) {
				v[k] = 0;
				continue;
			}
			v[k] = b64_val(s[i + k]);
			if (v[k] < 0)
				return ATT_E_FORMAT;
		}
		w = ((uint32_t)v[0] << 18) | ((uint32_t)v[1] << 12) |
		    ((uint32_t)v[2] << 6) | (uint32_t)v[3];
		out[o++] = (uint8_t)(w >> 16);
		if (!last || pad < 2)
			out[o++] = (uint8_t)(w >> 8);
		else if (w & 0xffff)
			return ATT_E_FORMAT; /* non-canonical bits */
		if (!last || pad < 1)
			out[o++] = (uint8_t)w;
		else if (pad == 1 && (w & 0xff))
			return ATT_E_FORMAT;
	}
	*outlen = o;
	return ATT_OK;
}

int att_escape_bytes(const uint8_t *p, size_t n, struct att_buf *out)
{
	size_t i;
	int rc = ATT_OK;

	for (i = 0; i < n && !rc; i++) {
		uint8_t c = p[i];

		if (c == '\\') {
			rc = att_buf_append(out, "\\\\", 2);
		} else if (c < 0x20 || c > 0x7e) {
			char t[4] = {'\\', 'x', hex_digits[c >> 4],
				     hex_digits[c & 0xf]};

			rc = att_buf_append(out, t, 4);
		} else {
			rc = att_buf_append_u8(out, c);
		}
	}
	return rc;
}
