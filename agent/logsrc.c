// SPDX-License-Identifier: Apache-2.0
/*
 * logsrc.c - incremental reading of a binary measurement list.
 */
#include "logsrc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest/err.h"
#include "attest/ima.h"
#include "attest/log.h"

int agent_log_open(const char *name, const char *path, uint32_t pcr,
		   enum att_hash tdigest_alg, struct agent_log **out)
{
	struct agent_log *l;

	if (!name || !path || pcr >= 24 || !att_hash_size(tdigest_alg))
		return ATT_E_INVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return ATT_E_NOMEM;
	l->name = strdup(name);
	l->path = strdup(path);
	l->pcr = pcr;
	l->tdigest_alg = tdigest_alg;
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!l->name || !l->path || l->fd < 0) {
		int rc = l->fd < 0 && l->name && l->path ? ATT_E_IO
							 : ATT_E_NOMEM;

		if (rc == ATT_E_IO)
			att_err("log %s: cannot open %s: %s", name, path,
				strerror(errno));
		agent_log_free(l);
		return rc;
	}
	*out = l;
	return ATT_OK;
}

void agent_log_free(struct agent_log *l)
{
	if (!l)
		return;
	if (l->fd >= 0)
		close(l->fd);
	free(l->ckpt);
	free(l->name);
	free(l->path);
	free(l);
}

void agent_log_reset(struct agent_log *l)
{
	l->nckpt = 0;
	l->seen_index = 0;
	l->seen_offset = 0;
}

/* Remembers where entry `index` starts. */
static int remember(struct agent_log *l, uint64_t index, uint64_t offset)
{
	if (index > l->seen_index) {
		l->seen_index = index;
		l->seen_offset = offset;
	}
	if (index % AGENT_LOG_CKPT_EVERY)
		return ATT_OK;
	if (l->nckpt && l->ckpt[l->nckpt - 1].index >= index)
		return ATT_OK;
	if (l->nckpt == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		struct agent_log_ckpt *n = realloc(l->ckpt, nc * sizeof(*n));

		if (!n)
			return ATT_E_NOMEM;
		l->ckpt = n;
		l->cap = nc;
	}
	l->ckpt[l->nckpt].index = index;
	l->ckpt[l->nckpt].offset = offset;
	l->nckpt++;
	return ATT_OK;
}

/* The best known starting point at or before index. */
static void nearest(const struct agent_log *l, uint64_t index, uint64_t *ci,
		    uint64_t *co)
{
	size_t lo = 0, hi = l->nckpt;

	*ci = 0;
	*co = 0;
	if (l->seen_index <= index && l->seen_index) {
		*ci = l->seen_index;
		*co = l->seen_offset;
		return;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->ckpt[mid].index <= index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		*ci = l->ckpt[lo - 1].index;
		*co = l->ckpt[lo - 1].offset;
	}
}

static int copy_range(int fd, uint64_t off, size_t n, struct att_buf *out)
{
	int rc = att_buf_reserve(out, n);

	if (rc)
		return rc;
	while (n) {
		ssize_t r = pread(fd, out->data + out->len, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return ATT_E_IO;
		out->len += (size_t)r;
		off += (uint64_t)r;
		n -= (size_t)r;
	}
	return ATT_OK;
}

int agent_log_read(struct agent_log *l, uint64_t from_index, size_t max_bytes,
		   struct att_buf *out, uint64_t *count, int *more)
{
	struct att_ima_reader *r = NULL;
	struct att_ima_entry e;
	uint64_t ci, co, first_off = 0, end_off = 0, end_index;
	int rc, started = 0;

	*count = 0;
	*more = 0;
	l->shorter = 0;
	nearest(l, from_index, &ci, &co);
	end_index = ci;
	/* Each round reads from the descriptor's start position: rewind. */
	if (lseek(l->fd, 0, SEEK_SET) < 0)
		return ATT_E_IO;
	rc = att_ima_reader_new_fd(l->fd, ATT_IMA_FMT_BINARY, l->tdigest_alg,
				   NULL, &r);
	if (!rc)
		rc = att_ima_reader_seek(r, ci, co);
	while (!rc) {
		rc = att_ima_reader_next(r, &e);
		if (rc == ATT_E_EOF) {
			l->shorter = end_index < from_index;
			rc = ATT_OK;
			break;
		}
		if (rc) {
			att_err("log %s: %s", l->name, att_ima_reader_error(r));
			break;
		}
		end_index = e.index + 1;
		rc = remember(l, e.index, e.offset);
		if (!rc)
			rc = remember(l, e.index + 1, e.next_offset);
		if (rc || e.index < from_index)
			continue;
		if (!started) {
			first_off = e.offset;
			started = 1;
		} else if (e.next_offset - first_off > max_bytes) {
			*more = 1;
			break;
		}
		end_off = e.next_offset;
		(*count)++;
	}
	att_ima_reader_free(r);
	if (!rc && *count)
		rc = copy_range(l->fd, first_off, (size_t)(end_off - first_off),
				out);
	return rc;
}

int agent_log_first_is(struct agent_log *l, enum att_hash alg,
		       const uint8_t *digest, int *same)
{
	struct att_ima_reader *r = NULL;
	struct att_ima_entry e;
	int rc;

	*same = 0;
	if (lseek(l->fd, 0, SEEK_SET) < 0)
		return ATT_E_IO;
	rc = att_ima_reader_new_fd(l->fd, ATT_IMA_FMT_BINARY, l->tdigest_alg,
				   NULL, &r);
	if (!rc)
		rc = att_ima_reader_next(r, &e);
	if (rc == ATT_E_EOF) {
		rc = ATT_OK; /* an empty list is not the one named */
	} else if (rc) {
		att_err("log %s: entry 0: %s", l->name,
			r ? att_ima_reader_error(r) : att_strerror(rc));
	} else {
		*same = e.tdigest_alg == alg &&
			!memcmp(e.tdigest, digest, att_hash_size(alg));
	}
	att_ima_reader_free(r);
	return rc;
}
