/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rd.h - a bounded reader over untrusted bytes.
 *
 * A reader never reads past its end and never advances when a read fails,
 * so a caller may try an alternative decoding after an error. Lengths coming
 * from the input are compared against what is left without any addition that
 * could overflow.
 */
#ifndef ATTEST_RD_H
#define ATTEST_RD_H

#include <stddef.h>
#include <stdint.h>

struct att_rd {
	const uint8_t *p;
	size_t len;
	size_t off;
};

void att_rd_init(struct att_rd *r, const void *p, size_t len);

static inline size_t att_rd_left(const struct att_rd *r)
{
	return r->len - r->off;
}

static inline const uint8_t *att_rd_cur(const struct att_rd *r)
{
	return r->p + r->off;
}

int att_rd_u8(struct att_rd *r, uint8_t *v);
int att_rd_u16le(struct att_rd *r, uint16_t *v);
int att_rd_u16be(struct att_rd *r, uint16_t *v);
int att_rd_u32le(struct att_rd *r, uint32_t *v);
int att_rd_u32be(struct att_rd *r, uint32_t *v);
int att_rd_u64le(struct att_rd *r, uint64_t *v);
int att_rd_u64be(struct att_rd *r, uint64_t *v);

/* Points *out at the next n bytes (inside the input) and advances. */
int att_rd_bytes(struct att_rd *r, size_t n, const uint8_t **out);

/* Copies the next n bytes into dst and advances. */
int att_rd_copy(struct att_rd *r, void *dst, size_t n);

int att_rd_skip(struct att_rd *r, size_t n);

/*
 * Reads a u32 little-endian length, checks it against max and against what
 * is left, then points *out at that many bytes. Nothing is consumed on error:
 * ATT_E_TOO_BIG when len > max, ATT_E_TRUNCATED when the input is shorter.
 */
int att_rd_lv32le(struct att_rd *r, uint32_t max, const uint8_t **out,
		  uint32_t *len);

/* ATT_OK when the reader is exhausted, ATT_E_TRAILING otherwise. */
int att_rd_end(const struct att_rd *r);

#endif
