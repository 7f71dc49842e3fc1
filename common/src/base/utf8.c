// SPDX-License-Identifier: Apache-2.0
/*
 * utf8.c - strict UTF-8 (see utf8.h).
 */
#include "attest/utf8.h"

size_t att_utf8_len(const uint8_t *p, size_t left)
{
	uint8_t c;
	size_t n, i;

	if (!left)
		return 0;
	c = p[0];
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
	if (left < n)
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xf0 && p[1] < 0x90))
		return 0; /* overlong */
	if (c == 0xed && p[1] >= 0xa0)
		return 0; /* surrogate */
	if (c == 0xf4 && p[1] >= 0x90)
		return 0; /* past U+10FFFF */
	return n;
}

int att_utf8_hex4(const char *p, unsigned int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned int)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}
