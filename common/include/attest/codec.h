/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codec.h - hex and base64.
 */
#ifndef ATTEST_CODEC_H
#define ATTEST_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* Writes 2*n lowercase hex digits and a NUL into out (size >= 2*n+1). */
void att_hex_encode(const uint8_t *p, size_t n, char *out);

/*
 * Decodes exactly hexlen hex digits (either case) into out (size outmax).
 * ATT_E_FORMAT on an odd length or a non-hex digit, ATT_E_TOO_BIG when the
 * result does not fit. *outlen gets the byte count.
 */
int att_hex_decode(const char *hex, size_t hexlen, uint8_t *out, size_t outmax,
		   size_t *outlen);

/* Standard base64 with padding. out must hold att_b64_enclen(n)+1 bytes. */
size_t att_b64_enclen(size_t n);
void att_b64_encode(const uint8_t *p, size_t n, char *out);
/* Strict: padding required, no whitespace, canonical trailing bits. */
int att_b64_decode(const char *s, size_t slen, uint8_t *out, size_t outmax,
		   size_t *outlen);

struct att_buf;

/*
 * Appends p as printable ASCII: bytes outside 0x20..0x7e and the backslash
 * become \xNN (the backslash becomes \\), so any path prints on one
 * line and in JSON without ambiguity.
 */
int att_escape_bytes(const uint8_t *p, size_t n, struct att_buf *out);

#endif
