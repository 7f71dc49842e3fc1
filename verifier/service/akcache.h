/* SPDX-License-Identifier: Apache-2.0 */
/*
 * akcache.h - agents' attestation keys parsed once and kept: parsing a
 * TPM public area into an OpenSSL key (and checking its point) costs about
 * as much as the quote's signature check, every round, for a key that does
 * not change between enrollments.
 */
#ifndef ATTEST_VERIFIER_AKCACHE_H
#define ATTEST_VERIFIER_AKCACHE_H

#include <stddef.h>
#include <stdint.h>

struct att_tpm_key;
struct ver_akcache;

/*
 * A cache of at most slots keys, in sets of VER_AKCACHE_WAYS chosen by a
 * hash of the bytes (least recently used out). A slot is a pointer, a
 * cached key ~2 KiB (only agents' keys are ever cached). 65,536 slots in
 * sets of 4, keys asked in random order: 10,000 agents miss about 0.1% of
 * lookups (Poisson, 0.6 keys a set), 50,000 agents 11% (3.1 a set).
 */
#define VER_AKCACHE_SLOTS 65536
#define VER_AKCACHE_WAYS  4

int ver_akcache_new(unsigned int slots, struct ver_akcache **out);
void ver_akcache_free(struct ver_akcache *c);
/*
 * The key of these TPM2B_PUBLIC bytes: from the cache when the same bytes
 * were parsed before, else parsed (att_tpm_key_parse's errors) and kept.
 * The caller owns one reference (att_tpm_key_free). c may be NULL: then
 * the bytes are just parsed.
 */
int ver_akcache_get(struct ver_akcache *c, const uint8_t *pub, size_t len,
		    struct att_tpm_key **out);
/* Lookups answered from the cache, and parses (tests, metrics). */
void ver_akcache_stats(struct ver_akcache *c, uint64_t *hits, uint64_t *misses);

#endif
