/* SPDX-License-Identifier: Apache-2.0 */
/*
 * logsrc.h - a measurement list the agent ships: the slim module's list,
 * mainline IMA's list, or a file; read incrementally from the entry the
 * verifier asks for.
 *
 * The source remembers the byte offset of entries it has seen (every
 * AGENT_LOG_CKPT_EVERY-th entry and the furthest one), so a request for
 * entry N reads from the nearest known offset instead of from the start;
 * a list of a million entries is not re-read every round. The descriptor
 * is opened once (before the agent drops privileges) and kept.
 */
#ifndef ATTEST_AGENT_LOGSRC_H
#define ATTEST_AGENT_LOGSRC_H

#include <stddef.h>
#include <stdint.h>

#include "attest/buf.h"
#include "attest/digest.h"

#define AGENT_LOG_CKPT_EVERY 1024

/* Where mainline IMA and the slim module publish their binary lists. */
#define AGENT_LOG_IMA_PATH \
	"/sys/kernel/security/ima/binary_runtime_measurements"
#define AGENT_LOG_SLIM_PATH \
	"/sys/kernel/security/slim/binary_runtime_measurements"

struct agent_log_ckpt {
	uint64_t index, offset;
};

struct agent_log {
	char *name; /* "ima", "slim", or the configured name */
	char *path;
	uint32_t pcr;
	enum att_hash tdigest_alg;
	int fd;
	struct agent_log_ckpt *ckpt; /* ascending index */
	size_t nckpt, cap;
	uint64_t seen_index;  /* furthest entry start known: index, */
	uint64_t seen_offset; /* and its byte offset */
	int shorter; /* the last read found fewer entries than it was asked
			for: a new list (slim.ko removed and loaded again) */
};

/* Opens path; the descriptor stays open for the agent's life. */
int agent_log_open(const char *name, const char *path, uint32_t pcr,
		   enum att_hash tdigest_alg, struct agent_log **out);
void agent_log_free(struct agent_log *l);

/* Forgets every remembered offset (the list restarted: a new boot). */
void agent_log_reset(struct agent_log *l);

/*
 * Appends to out the raw binary records of entries from_index onwards,
 * whole records only, at most max_bytes (at least one record when there
 * is one, even if it is larger than max_bytes is not possible: a record is
 * capped by the reader's limits). *count gets the number of entries
 * appended, *more is set when entries remain after them. A from_index past
 * the end appends nothing (count 0) and sets l->shorter when the list
 * ends before from_index; ATT_E_FORMAT etc. when the list itself is
 * malformed.
 */
int agent_log_read(struct agent_log *l, uint64_t from_index, size_t max_bytes,
		   struct att_buf *out, uint64_t *count, int *more);

/*
 * Whether the list's entry 0 has the template digest `digest` of bank
 * `alg` (the identity the verifier names in its challenge): *same is 1
 * when it has, 0 when it has another or the list is empty (a new list:
 * slim.ko removed and loaded again). ATT_E_FORMAT etc. when entry 0
 * cannot be read.
 */
int agent_log_first_is(struct agent_log *l, enum att_hash alg,
		       const uint8_t *digest, int *same);

#endif
