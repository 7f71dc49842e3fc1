/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ima_internal.h - shared between the IMA list reader's files.
 */
#ifndef ATTEST_IMA_INTERNAL_H
#define ATTEST_IMA_INTERNAL_H

#include <stdint.h>

#include "attest/buf.h"
#include "attest/ima.h"

#define IMA_LEGACY_HASH_INPUT (20 + ATT_IMA_LEGACY_NAME_MAX + 1)

struct att_ima_reader {
	/* Source: a descriptor read through a window, or memory. */
	int fd;
	int64_t fd_base; /* fd position at creation (offset 0) */
	const uint8_t *mem;
	size_t memlen;
	uint8_t *win;
	size_t wcap;
	size_t wlen;	  /* valid bytes in win */
	uint64_t win_off; /* input offset of win[0] */
	int src_eof;

	uint64_t pos;	/* input offset of the next entry */
	uint64_t index; /* index of the next entry */
	enum att_ima_format fmt;
	enum att_hash talg;
	struct att_ima_limits lim;

	char tname[256];
	struct att_buf scratch; /* ascii: rebuilt template data */
	uint8_t legacy_in[IMA_LEGACY_HASH_INPUT];
	char err[256];
};

/* Decodes fields[0..1] of the legacy "ima" template. */
int att_ima_decode_legacy(struct att_ima_entry *e);

/*
 * Makes at least `need` bytes from r->pos available and points *p at them.
 * *avail gets what is available (may exceed need). ATT_E_EOF when nothing is
 * left and need > 0; ATT_E_TRUNCATED when some but fewer than need bytes.
 */
int ima_src_peek(struct att_ima_reader *r, size_t need, const uint8_t **p,
		 size_t *avail);

int ima_read_binary(struct att_ima_reader *r, struct att_ima_entry *e,
		    size_t *consumed);
int ima_read_ascii(struct att_ima_reader *r, struct att_ima_entry *e,
		   size_t *consumed);

void ima_set_err(struct att_ima_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
