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

/*
 * As evb_event, with digests of `hashed` instead of the data (a boot
 * application's image, grub's string after its prefix, a file).
 */
void evb_event_over(struct att_buf *log, uint32_t pcr, uint32_t type,
		    const void *data, size_t n, const void *hashed, size_t hn);

/* EFI_GUID bytes of "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (mixed endian). */
void evb_guid(const char *text, uint8_t g[16]);

/* UEFI_VARIABLE_DATA: vendor GUID, ASCII name as UTF-16, data. */
void evb_var(struct att_buf *out, const char *guid, const char *name,
	     const void *data, size_t n);

/* Appends one EFI_SIGNATURE_LIST of n entries of `size` bytes each. */
void evb_siglist(struct att_buf *out, const char *type_guid,
		 const char *owner_guid, const uint8_t *const *entries,
		 size_t n, size_t size);

/* UEFI_IMAGE_LOAD_EVENT with a file path device path ("\\EFI\\..."). */
void evb_image(struct att_buf *out, const char *path);

#endif
