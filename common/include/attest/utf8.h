/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8.h - strict UTF-8 (RFC 3629): the one definition the JSON readers
 * (json.c, jsonpull.c) and the cleaners share.
 */
#ifndef ATTEST_UTF8_H
#define ATTEST_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length (1..4) of the valid UTF-8 sequence at p, of which `left` bytes
 * may be read; 0 when it is not one: a stray continuation byte, a cut
 * sequence, an overlong form (C0, C1, E0 80..9F, F0 80..8F), a surrogate
 * (ED A0..BF) or a code point past U+10FFFF (F4 90.., F5..FF).
 */
size_t att_utf8_len(const uint8_t *p, size_t left);

/* The four hex digits of a JSON \u escape at p: 0, or -1 if not hex. */
int att_utf8_hex4(const char *p, unsigned int *v);

#endif
