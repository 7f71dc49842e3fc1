/* SPDX-License-Identifier: Apache-2.0 */
/*
 * digest_map.h - a map from byte-string names (paths, keyring names) to a
 * set of digests: open addressing over a keyed SipHash (names come from
 * untrusted lists, so the hash is seeded from the CSPRNG), names and
 * digests kept in append-only arenas addressed by offset.
 */
#ifndef ATTEST_DIGEST_MAP_H
#define ATTEST_DIGEST_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "attest/buf.h"
#include "attest/digest.h"

struct dmap_entry {
	uint64_t name_off;
	uint32_t name_len;
	uint32_t ndigests;
	uint64_t first_digest; /* offset+1 in the digest arena, 0: none */
	uint64_t last_digest;
};

struct dmap {
	struct dmap_entry *entries;
	size_t count, cap;
	struct att_buf names;
	struct att_buf digests;
	uint32_t *slots; /* entry index + 1, 0: empty */
	size_t nslots;
	size_t ndigests;
	uint64_t k0, k1;
};

/* A digest record in the arena: u64 next(+1), u8 alg, u8 len, bytes. */
#define DMAP_REC_HDR 10

int dmap_init(struct dmap *m);
void dmap_release(struct dmap *m);
/* Adds digest (alg may be NONE: matched by length and bytes) to name. */
int dmap_add(struct dmap *m, const void *name, size_t nlen, enum att_hash alg,
	     const uint8_t *d, size_t dlen);
/* Adds name with no digests (if absent). */
int dmap_add_name(struct dmap *m, const void *name, size_t nlen);
/* Adds a name that must be new (ATT_E_EXISTS otherwise); *idx: its entry. */
int dmap_add_new(struct dmap *m, const void *name, size_t nlen, size_t *idx);
/* Adds a digest to entry idx (one lookup saved per digest). */
int dmap_add_digest(struct dmap *m, size_t idx, enum att_hash alg,
		    const uint8_t *d, size_t dlen);
const struct dmap_entry *dmap_find(const struct dmap *m, const void *name,
				   size_t nlen);
/* 1 when the entry holds that digest. */
int dmap_has_digest(const struct dmap *m, const struct dmap_entry *e,
		    enum att_hash alg, const uint8_t *d, size_t dlen);

uint64_t att_siphash(uint64_t k0, uint64_t k1, const void *p, size_t n);

#endif
