/* SPDX-License-Identifier: Apache-2.0 */
/*
 * imabuild.h - builds IMA list records byte by byte for tests, the way
 * the kernel writes them (independently of libattest's reader).
 */
#ifndef ATTEST_TEST_IMABUILD_H
#define ATTEST_TEST_IMABUILD_H

#include <stddef.h>
#include <stdint.h>

#include "attest/buf.h"

/* Template data: append one field (u32 length + bytes). */
void ib_field(struct att_buf *td, const void *p, size_t n);
/* d-ng field: "alg:\0" || digest */
void ib_dng(struct att_buf *td, const char *alg, const uint8_t *d, size_t n);
/* n-ng field: path || NUL */
void ib_nng(struct att_buf *td, const char *path);

/*
 * Appends a binary record: pcr, template digest (computed with tdalg over
 * td unless zero_digest), name, data_len, data.
 */
void ib_record(struct att_buf *out, uint32_t pcr, const char *tdalg,
	       const char *tname, const struct att_buf *td, int zero_digest);

/* Appends a legacy "ima" record for (sha1 digest, name). */
void ib_legacy(struct att_buf *out, uint32_t pcr, const uint8_t *d20,
	       const char *name);

/* Hash helpers over OpenSSL directly. */
void ib_hash(const char *alg, const void *p, size_t n, uint8_t *out);
size_t ib_hash_len(const char *alg);
/* The SHA-256 of a NUL-terminated content as 64 hex digits (a whitelist's). */
void ib_sha256_hex(const char *content, char hex[65]);
void ib_extend(const char *alg, uint8_t *pcr, const uint8_t *d);

/* A typical ima-ng record of a file with the given content. */
void ib_ima_ng(struct att_buf *out, const char *path, const char *content);

#endif
