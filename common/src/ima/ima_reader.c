// SPDX-License-Identifier: Apache-2.0
/*
 * ima_reader.c - the streaming IMA list reader: source window, format
 * detection, seeking and entry dispatch.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest/err.h"
#include "ima_internal.h"

#define WIN_INITIAL (256 * 1024)

static const struct att_ima_limits default_limits = {
	.max_name = 255,
	.max_data = 256 * 1024,
	.max_path = 4096 + 1,
	.max_pcr = 23,
};

/*
 * Messages quote bytes of the list (a template name): anything but
 * printable ASCII becomes '?', since they end up on terminals and in JSON
 * answers, which must be UTF-8.
 */
void ima_set_err(struct att_ima_reader *r, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; msg[i]; i++) {
		unsigned char c = (unsigned char)msg[i];

		if (c < 0x20 || c > 0x7e)
			msg[i] = '?';
	}
	snprintf(r->err, sizeof(r->err), "entry %llu at byte %llu: %s",
		 (unsigned long long)r->index, (unsigned long long)r->pos, msg);
}

static int reader_alloc(enum att_ima_format fmt, enum att_hash talg,
			const struct att_ima_limits *limits,
			struct att_ima_reader **out)
{
	struct att_ima_reader *r;

	if (att_hash_size(talg) == 0)
		return ATT_E_UNSUPPORTED;
	if (fmt != ATT_IMA_FMT_AUTO && fmt != ATT_IMA_FMT_BINARY &&
	    fmt != ATT_IMA_FMT_ASCII)
		return ATT_E_INVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return ATT_E_NOMEM;
	r->fd = -1;
	r->fmt = fmt;
	r->talg = talg;
	r->lim = limits ? *limits : default_limits;
	if (!r->lim.max_name || r->lim.max_name > 255)
		r->lim.max_name = 255;
	att_buf_init(&r->scratch, 0);
	*out = r;
	return ATT_OK;
}

int att_ima_reader_new_fd(int fd, enum att_ima_format fmt,
			  enum att_hash tdigest_alg,
			  const struct att_ima_limits *limits,
			  struct att_ima_reader **out)
{
	struct att_ima_reader *r;
	int rc;

	if (fd < 0)
		return ATT_E_INVAL;
	rc = reader_alloc(fmt, tdigest_alg, limits, &r);
	if (rc)
		return rc;
	r->fd = fd;
	r->fd_base = (int64_t)lseek(fd, 0, SEEK_CUR);
	if (r->fd_base < 0)
		r->fd_base = -1; /* a pipe: read forward only */
	*out = r;
	return ATT_OK;
}

int att_ima_reader_new_mem(const void *p, size_t len, enum att_ima_format fmt,
			   enum att_hash tdigest_alg,
			   const struct att_ima_limits *limits,
			   struct att_ima_reader **out)
{
	struct att_ima_reader *r;
	int rc;

	if (!p && len)
		return ATT_E_INVAL;
	rc = reader_alloc(fmt, tdigest_alg, limits, &r);
	if (rc)
		return rc;
	r->mem = p ? p : (const uint8_t *)"";
	r->memlen = len;
	*out = r;
	return ATT_OK;
}

void att_ima_reader_free(struct att_ima_reader *r)
{
	if (!r)
		return;
	free(r->win);
	att_buf_release(&r->scratch);
	free(r);
}

enum att_ima_format att_ima_reader_format(const struct att_ima_reader *r)
{
	return r->fmt;
}

const char *att_ima_reader_error(const struct att_ima_reader *r)
{
	return r->err[0] ? r->err : "no error";
}

/* Fills the window so that it holds `need` bytes from r->pos if it can. */
static int win_fill(struct att_ima_reader *r, size_t need)
{
	size_t start = (size_t)(r->pos - r->win_off);

	if (start > r->wlen) {
		/* pos moved past the window (seek/skip): drop it. */
		if (r->fd_base < 0 ||
		    lseek(r->fd, (off_t)(r->fd_base + (int64_t)r->pos),
			  SEEK_SET) < 0)
			return ATT_E_IO;
		r->win_off = r->pos;
		r->wlen = 0;
		r->src_eof = 0;
		start = 0;
	}
	if (r->wlen - start >= need || r->src_eof)
		return ATT_OK;
	if (start) {
		memmove(r->win, r->win + start, r->wlen - start);
		r->wlen -= start;
		r->win_off += start;
	}
	if (need > r->wcap) {
		size_t ncap = r->wcap ? r->wcap : WIN_INITIAL;
		uint8_t *nw;

		while (ncap < need)
			ncap *= 2;
		nw = realloc(r->win, ncap);
		if (!nw)
			return ATT_E_NOMEM;
		r->win = nw;
		r->wcap = ncap;
	}
	while (r->wlen < need) {
		ssize_t n = read(r->fd, r->win + r->wlen, r->wcap - r->wlen);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ATT_E_IO;
		}
		if (n == 0) {
			r->src_eof = 1;
			break;
		}
		r->wlen += (size_t)n;
	}
	return ATT_OK;
}

int ima_src_peek(struct att_ima_reader *r, size_t need, const uint8_t **p,
		 size_t *avail)
{
	size_t have;
	int rc;

	if (r->mem) {
		have = r->pos < r->memlen ? (size_t)(r->memlen - r->pos) : 0;
		*p = r->mem + (have ? r->pos : 0);
	} else {
		rc = win_fill(r, need ? need : 1);
		if (rc)
			return rc;
		have = r->wlen - (size_t)(r->pos - r->win_off);
		*p = r->win + (size_t)(r->pos - r->win_off);
	}
	*avail = have;
	if (need && have == 0)
		return ATT_E_EOF;
	if (have < need)
		return ATT_E_TRUNCATED;
	return ATT_OK;
}

enum att_ima_format att_ima_detect(const uint8_t *p, size_t len)
{
	/*
	 * A binary list starts with a u32 PCR index (< 256): bytes 1..3 are
	 * zero. An ascii list starts with "%2d ": a space or a digit, then
	 * a digit or space, never a zero byte.
	 */
	if (len >= 4 && (p[0] == ' ' || (p[0] >= '0' && p[0] <= '9')) &&
	    p[1] != 0)
		return ATT_IMA_FMT_ASCII;
	return ATT_IMA_FMT_BINARY;
}

int att_ima_reader_seek(struct att_ima_reader *r, uint64_t index,
			uint64_t offset)
{
	if (r->mem && offset > r->memlen)
		return ATT_E_INVAL;
	r->pos = offset;
	r->index = index;
	r->err[0] = '\0';
	return ATT_OK;
}

int att_ima_reader_next(struct att_ima_reader *r, struct att_ima_entry *e)
{
	size_t consumed = 0, avail;
	const uint8_t *p;
	int rc;

	if (r->fmt == ATT_IMA_FMT_AUTO) {
		rc = ima_src_peek(r, 4, &p, &avail);
		if (rc == ATT_E_EOF)
			return rc;
		r->fmt = att_ima_detect(p, avail);
	}
	memset(e, 0, sizeof(*e));
	e->index = r->index;
	e->offset = r->pos;
	e->tdigest_alg = r->talg;
	if (r->fmt == ATT_IMA_FMT_ASCII)
		rc = ima_read_ascii(r, e, &consumed);
	else
		rc = ima_read_binary(r, e, &consumed);
	if (rc)
		return rc;
	r->pos += consumed;
	r->index++;
	e->next_offset = r->pos;
	return ATT_OK;
}

int att_ima_reader_skip_to(struct att_ima_reader *r, uint64_t index)
{
	struct att_ima_entry e;
	int rc;

	while (r->index < index) {
		rc = att_ima_reader_next(r, &e);
		if (rc)
			return rc;
	}
	return r->index == index ? ATT_OK : ATT_E_INVAL;
}
