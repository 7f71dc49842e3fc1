/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jsonpull.h - a strict, bounded, allocation-light JSON pull parser.
 *
 * For large untrusted documents (whitelists with millions of paths) where
 * building a tree first would cost more than the work itself. Strict
 * RFC 8259: one value, no trailing commas, no comments, UTF-8 validated
 * (no overlongs, no surrogates), \u escapes with paired surrogates only,
 * control characters refused, nesting capped. Strings without escapes are
 * returned as pointers into the input; others are decoded into a buffer.
 * Keys are returned as ATT_JP_KEY; duplicate keys are the caller's to
 * detect (it knows which objects matter).
 */
#ifndef ATTEST_JSONPULL_H
#define ATTEST_JSONPULL_H

#include <stddef.h>
#include <stdint.h>

#include "attest/buf.h"

enum att_jp_tok {
	ATT_JP_OBJ_START,
	ATT_JP_OBJ_END,
	ATT_JP_ARR_START,
	ATT_JP_ARR_END,
	ATT_JP_KEY,
	ATT_JP_STRING,
	ATT_JP_NUMBER,
	ATT_JP_TRUE,
	ATT_JP_FALSE,
	ATT_JP_NULL,
	ATT_JP_END, /* the document is complete */
};

#define ATT_JP_MAX_DEPTH 64

struct att_jp {
	const char *p;
	size_t len, pos;
	int depth, max_depth;
	char stack[ATT_JP_MAX_DEPTH]; /* 'o' or 'a' */
	int expect;		      /* internal grammar state */
	int done;
	const char *str; /* KEY, STRING, NUMBER text (not NUL-terminated) */
	size_t slen;
	size_t tok_start; /* offset of the current token */
	struct att_buf sbuf;
	char err[160];
};

int att_jp_init(struct att_jp *jp, const char *text, size_t len, int max_depth);
void att_jp_release(struct att_jp *jp);

/* Next token. ATT_E_FORMAT / ATT_E_TOO_BIG with jp->err on bad input. */
int att_jp_next(struct att_jp *jp, enum att_jp_tok *tok);

/*
 * Skips the rest of the value whose first token `first` was just read;
 * start and end get the byte span of the whole value in the input.
 */
int att_jp_skip(struct att_jp *jp, enum att_jp_tok first, size_t *start,
		size_t *end);

#endif
