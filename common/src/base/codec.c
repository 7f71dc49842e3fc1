// SPDX-License-Identifier: Apache-2.0
/*
 * codec.c - hex and strict base64.
 */
#include "attest/codec.h"

#include <string.h>

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

/* Base64 digit values plus one; 0: not a digit ('=' included). */
static const uint8_t b64_tab[256] = {
	['A'] = 1,  ['B'] = 2,	['C'] = 3,  ['D'] = 4,	['E'] = 5,  ['F'] = 6,
	['G'] = 7,  ['H'] = 8,	['I'] = 9,  ['J'] = 10, ['K'] = 11, ['L'] = 12,
	['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16, ['Q'] = 17, ['R'] = 18,
	['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24,
	['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30,
	['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36,
	['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42,
	['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48,
	['w'] = 49, ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54,
	['2'] = 55, ['3'] = 56, ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60,
	['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
};

/* Four digits as 24 bits; bit 31 set when one of them is not a digit. */
static uint32_t b64_quad(const unsigned char *q)
{
	uint32_t a = b64_tab[q[0]], b = b64_tab[q[1]], c = b64_tab[q[2]],
		 d = b64_tab[q[3]];

	if (!a || !b || !c || !d)
		return 0x80000000u;
	return (a - 1) << 18 | (b - 1) << 12 | (c - 1) << 6 | (d - 1);
}

int att_b64_decode(const char *s, size_t slen, uint8_t *out, size_t outmax,
		   size_t *outlen)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char last[4];
	size_t i, o = 0, pad = 0;
	uint32_t w;

	if (slen % 4)
		return ATT_E_FORMAT;
	if (slen >= 1 && s[slen - 1] == '=')
		pad++;
	if (slen >= 2 && s[slen - 2] == '=')
		pad++;
	if (slen / 4 * 3 - pad > outmax)
		return ATT_E_TOO_BIG;
	/* Every quad but the last: four digits, three bytes. */
	for (i = 0; i + 4 < slen; i += 4) {
		w = b64_quad(u + i);
		if (w & 0x80000000u)
			return ATT_E_FORMAT;
		out[o] = (uint8_t)(w >> 16);
		out[o + 1] = (uint8_t)(w >> 8);
		out[o + 2] = (uint8_t)w;
		o += 3;
	}
	if (slen) {
		/* The last quad: its '=' padding reads as 'A', whose bits
		 * must then be zero (canonical). */
		memcpy(last, u + i, 4);
		if (pad >= 1)
			last[3] = 'A';
		if (pad == 2)
			last[2] = 'A';
		w = b64_quad(last);
		if (w & 0x80000000u)
			return ATT_E_FORMAT;
		out[o++] = (uint8_t)(w >> 16);
		if (pad < 2)
			out[o++] = (uint8_t)(w >> 8);
		else if (w & 0xffff)
			return ATT_E_FORMAT; /* non-canonical bits */
		if (pad < 1)
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
