// SPDX-License-Identifier: Apache-2.0
/*
 * pkg_src.c - buffered reads from a file descriptor with a limit, and the
 * libarchive readers the package and initramfs readers open over it.
 */
#include "pkg_src.h"

#include <archive.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest/digest.h"
#include "attest/err.h"

#define SRC_BUF (256 * 1024)

int pkg_src_init(struct pkg_src *s, int fd)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->limit = UINT64_MAX;
	s->buf = malloc(SRC_BUF);
	if (!s->buf)
		return ATT_E_NOMEM;
	s->cap = SRC_BUF;
	return ATT_OK;
}

void pkg_src_release(struct pkg_src *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

/* Makes bytes available: moves what is left to the front, reads more. */
static int fill(struct pkg_src *s, size_t want)
{
	if (s->pos && s->pos == s->len)
		s->pos = s->len = 0;
	if (s->len - s->pos >= want)
		return ATT_OK;
	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->len -= s->pos;
		s->pos = 0;
	}
	while (!s->eof && s->len < want) {
		ssize_t r = read(s->fd, s->buf + s->len, s->cap - s->len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			s->err = errno;
			return ATT_E_IO;
		}
		if (r == 0)
			s->eof = 1;
		if (s->tap)
			att_md_update(s->tap, s->buf + s->len, (size_t)r);
		s->len += (size_t)r;
	}
	return ATT_OK;
}

static size_t avail_now(const struct pkg_src *s)
{
	size_t a = s->len - s->pos;

	return (uint64_t)a > s->limit ? (size_t)s->limit : a;
}

static void consume(struct pkg_src *s, size_t n)
{
	s->pos += n;
	s->off += n;
	if (s->limit != UINT64_MAX)
		s->limit -= n;
}

int pkg_src_read(struct pkg_src *s, void *dst, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t k;
		int rc = fill(s, 1);

		if (rc)
			return rc;
		k = avail_now(s);
		if (!k)
			return done ? ATT_E_TRUNCATED : ATT_E_EOF;
		if (k > n - done)
			k = n - done;
		memcpy((uint8_t *)dst + done, s->buf + s->pos, k);
		consume(s, k);
		done += k;
	}
	return ATT_OK;
}

int pkg_src_skip(struct pkg_src *s, uint64_t n)
{
	while (n) {
		size_t k;
		int rc = fill(s, 1);

		if (rc)
			return rc;
		k = avail_now(s);
		if (!k)
			return ATT_E_TRUNCATED;
		if ((uint64_t)k > n)
			k = (size_t)n;
		consume(s, k);
		n -= k;
	}
	return ATT_OK;
}

int pkg_src_drain(struct pkg_src *s)
{
	while (!s->eof) {
		int rc;

		s->pos = s->len = 0;
		rc = fill(s, 1);
		if (rc)
			return rc;
	}
	s->pos = s->len = 0;
	return ATT_OK;
}

const uint8_t *pkg_src_peek(struct pkg_src *s, size_t n, size_t *avail)
{
	if (n > 65536)
		n = 65536;
	*avail = 0;
	if (fill(s, n))
		return NULL;
	*avail = avail_now(s) < n ? avail_now(s) : n;
	return s->buf + s->pos;
}

static la_ssize_t src_cb(struct archive *a, void *ctx, const void **out)
{
	struct pkg_src *s = ctx;
	size_t k;

	if (fill(s, 1)) {
		archive_set_error(a, s->err, "read failed: %s",
				  strerror(s->err));
		return -1;
	}
	k = avail_now(s);
	*out = s->buf + s->pos;
	consume(s, k);
	return (la_ssize_t)k;
}

int pkg_src_archive(struct pkg_src *s, int raw, struct archive **out, char *err,
		    size_t errlen)
{
	struct archive *a = archive_read_new();
	int rc = ATT_OK;

	*out = NULL;
	if (!a)
		return ATT_E_NOMEM;
	/* ARCHIVE_WARN would mean an external program: refuse it. */
	if (archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
	    archive_read_support_filter_xz(a) != ARCHIVE_OK ||
	    archive_read_support_filter_lzma(a) != ARCHIVE_OK ||
	    archive_read_support_filter_zstd(a) != ARCHIVE_OK ||
	    archive_read_support_filter_lz4(a) != ARCHIVE_OK ||
	    archive_read_support_filter_bzip2(a) != ARCHIVE_OK) {
		snprintf(err, errlen,
			 "libarchive lacks a built-in decompressor");
		archive_read_free(a);
		return ATT_E_UNSUPPORTED;
	}
	if (raw)
		rc = archive_read_support_format_raw(a);
	else
		rc = archive_read_support_format_tar(a);
	if (rc != ARCHIVE_OK ||
	    archive_read_open(a, s, NULL, src_cb, NULL) != ARCHIVE_OK) {
		snprintf(err, errlen, "%s",
			 archive_error_string(a) ? archive_error_string(a)
						 : "cannot open the archive");
		archive_read_free(a);
		return ATT_E_FORMAT;
	}
	*out = a;
	return ATT_OK;
}

int pkg_archive_read(struct archive *a, void *dst, size_t n, size_t *got)
{
	*got = 0;
	while (*got < n) {
		la_ssize_t r =
			archive_read_data(a, (uint8_t *)dst + *got, n - *got);

		if (r < 0)
			return ATT_E_FORMAT;
		if (r == 0)
			return *got ? ATT_E_TRUNCATED : ATT_E_EOF;
		*got += (size_t)r;
	}
	return ATT_OK;
}
