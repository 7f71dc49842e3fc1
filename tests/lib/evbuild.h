/* SPDX-License-Identifier: Apache-2.0 */
/*
 * evbuild.h - builds a TCG crypto-agile firmware event log (sha1 + sha256)
 * for tests, independently of libattest's parser: the Spec ID header
 * event, then events whose digests are the hashes of their data, so that
 * a test can extend the same digests into a swtpm and hand the log to the
 * code under test.
 */
#ifndef ATTEST_TESTS_EVBUILD_H
#define ATTEST_TESTS_EVBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "attest/buf.h"

#define EVB_EV_POST_CODE 0x1
#define EVB_EV_SEPARATOR 0x4
#define EVB_EV_ACTION	 0x5

/* The EV_NO_ACTION "Spec ID Event03" header (sha1 and sha256 banks). */
void evb_header(struct att_buf *log);

/*
 * Appends one event on PCR with the sha1 and sha256 of data as its
 * digests; they are returned too (either pointer may be NULL).
 */
void evb_event(struct att_buf *log, uint32_t pcr, uint32_t type,
	       const void *data, size_t n, uint8_t sha1[20],
	       uint8_t sha256[32]);

#endif
