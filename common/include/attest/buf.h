/* SPDX-License-Identifier: Apache-2.0 */
/*
 * buf.h - a growable byte buffer with a hard cap.
 */
#ifndef ATTEST_BUF_H
#define ATTEST_BUF_H

#include <stddef.h>
#include <stdint.h>

struct att_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	size_t max; /* 0: SIZE_MAX/2 */
};

void att_buf_init(struct att_buf *b, size_t max);
void att_buf_release(struct att_buf *b);      /* frees data, keeps max */
void att_buf_wipe_release(struct att_buf *b); /* zeroes, then frees */
int att_buf_reserve(struct att_buf *b, size_t extra);
int att_buf_append(struct att_buf *b, const void *p, size_t n);
int att_buf_append_u8(struct att_buf *b, uint8_t v);
int att_buf_append_u16be(struct att_buf *b, uint16_t v);
int att_buf_append_u32le(struct att_buf *b, uint32_t v);
int att_buf_append_u32be(struct att_buf *b, uint32_t v);
int att_buf_append_str(struct att_buf *b, const char *s);
int att_buf_printf(struct att_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Makes data a NUL-terminated string (the NUL is not counted in len). */
int att_buf_cstr(struct att_buf *b);

/* Reads a whole file, at most max bytes (ATT_E_TOO_BIG past that). */
int att_buf_read_file(struct att_buf *b, const char *path, size_t max);
/* Writes the buffer to path atomically (temp file, fsync, rename). */
int att_write_file_atomic(const char *path, const void *p, size_t n,
			  unsigned int mode);

#endif
