/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pkg_src.h - a buffered, bounded byte source over a file descriptor, and
 * libarchive readers opened over part of it.
 */
#ifndef ATTEST_WL_PKG_SRC_H
#define ATTEST_WL_PKG_SRC_H

#include <stddef.h>
#include <stdint.h>

struct archive;
struct att_md;

struct pkg_src {
	int fd;
	uint8_t *buf;
	size_t pos, len, cap;
	uint64_t off;	/* bytes consumed so far */
	uint64_t limit; /* bytes that may still be consumed (UINT64_MAX: all) */
	int eof;	/* the file ended */
	int err;	/* errno of a failed read, 0 */
	struct att_md *tap; /* when set, fed every byte read from fd */
};

int pkg_src_init(struct pkg_src *s, int fd);
void pkg_src_release(struct pkg_src *s);
/*
 * Reads n bytes: ATT_E_EOF when the input (or the limit) ends before the
 * first byte, ATT_E_TRUNCATED when it ends after it, ATT_E_IO (s->err).
 */
int pkg_src_read(struct pkg_src *s, void *dst, size_t n);
/* Skips n bytes: ATT_E_TRUNCATED when fewer are left. */
int pkg_src_skip(struct pkg_src *s, uint64_t n);
/* Reads the file to its end (through tap), ignoring the limit. */
int pkg_src_drain(struct pkg_src *s);
/* Up to n (<= 64 KiB) bytes ahead, not consumed; *avail may be less. */
const uint8_t *pkg_src_peek(struct pkg_src *s, size_t n, size_t *avail);

/*
 * A libarchive reader over the source's next bytes (up to s->limit): the
 * tar format (raw 0) or the raw decompressed stream (raw 1), with the
 * gzip, xz, lzma, zstd, lz4 and bzip2 filters built into libarchive (never
 * an external program). Free with archive_read_free().
 */
int pkg_src_archive(struct pkg_src *s, int raw, struct archive **out, char *err,
		    size_t errlen);

/* Reads exactly n bytes of an archive entry's data (ATT_E_TRUNCATED). */
int pkg_archive_read(struct archive *a, void *dst, size_t n, size_t *got);

#endif
