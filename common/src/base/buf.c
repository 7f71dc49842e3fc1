// SPDX-License-Identifier: Apache-2.0
/*
 * buf.c - growable byte buffer with a cap, whole-file read, atomic write.
 */
#include "attest/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "attest/err.h"

#define BUF_DEFAULT_MAX (SIZE_MAX / 2)

void att_buf_init(struct att_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max ? max : BUF_DEFAULT_MAX;
}

void att_buf_release(struct att_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void att_buf_wipe_release(struct att_buf *b)
{
	if (b->data)
		OPENSSL_cleanse(b->data, b->cap);
	att_buf_release(b);
}

int att_buf_reserve(struct att_buf *b, size_t extra)
{
	size_t need, ncap;
	uint8_t *p;

	if (extra > b->max || b->len > b->max - extra)
		return ATT_E_TOO_BIG;
	need = b->len + extra + 1; /* room for att_buf_cstr */
	if (need <= b->cap)
		return ATT_OK;
	ncap = b->cap ? b->cap : 64;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	p = realloc(b->data, ncap);
	if (!p)
		return ATT_E_NOMEM;
	b->data = p;
	b->cap = ncap;
	return ATT_OK;
}

int att_buf_append(struct att_buf *b, const void *p, size_t n)
{
	int rc = att_buf_reserve(b, n);

	if (rc)
		return rc;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return ATT_OK;
}

int att_buf_append_u8(struct att_buf *b, uint8_t v)
{
	return att_buf_append(b, &v, 1);
}

int att_buf_append_u16be(struct att_buf *b, uint16_t v)
{
	uint8_t t[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	return att_buf_append(b, t, 2);
}

int att_buf_append_u32le(struct att_buf *b, uint32_t v)
{
	uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			(uint8_t)(v >> 24)};

	return att_buf_append(b, t, 4);
}

int att_buf_append_u32be(struct att_buf *b, uint32_t v)
{
	uint8_t t[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16),
			(uint8_t)(v >> 8), (uint8_t)v};

	return att_buf_append(b, t, 4);
}

int att_buf_append_str(struct att_buf *b, const char *s)
{
	return att_buf_append(b, s, strlen(s));
}

int att_buf_printf(struct att_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return ATT_E_INVAL;
	rc = att_buf_reserve(b, (size_t)n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return ATT_OK;
}

int att_buf_cstr(struct att_buf *b)
{
	int rc = att_buf_reserve(b, 0);

	if (rc)
		return rc;
	b->data[b->len] = '\0';
	return ATT_OK;
}

int att_buf_read_file(struct att_buf *b, const char *path, size_t max)
{
	uint8_t chunk[65536];
	size_t saved_max = b->max;
	int fd, rc = ATT_OK;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ATT_E_IO;
	b->max = max;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = ATT_E_IO;
			break;
		}
		if (n == 0)
			break;
		rc = att_buf_append(b, chunk, (size_t)n);
		if (rc)
			break;
	}
	b->max = saved_max;
	close(fd);
	if (!rc)
		rc = att_buf_cstr(b);
	return rc;
}

int att_write_file_atomic(const char *path, const void *p, size_t n,
			  unsigned int mode)
{
	size_t plen = strlen(path);
	const uint8_t *q = p;
	char *tmp;
	int fd, rc = ATT_E_IO;

	tmp = malloc(plen + 16);
	if (!tmp)
		return ATT_E_NOMEM;
	snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto out_free;
	if (fchmod(fd, (mode_t)mode) < 0)
		goto out_close;
	while (n) {
		ssize_t w = write(fd, q, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto out_close;
		}
		q += w;
		n -= (size_t)w;
	}
	if (fsync(fd) < 0)
		goto out_close;
	if (close(fd) < 0) {
		fd = -1;
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto out_unlink;
	rc = ATT_OK;
	goto out_free;
out_close:
	close(fd);
out_unlink:
	unlink(tmp);
out_free:
	free(tmp);
	return rc;
}
