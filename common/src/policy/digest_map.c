// SPDX-License-Identifier: Apache-2.0
/*
 * digest_map.c - name -> digests map for compiled whitelists.
 */
#include "digest_map.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "attest/err.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                   \
	do {                       \
		v0 += v1;          \
		v1 = ROTL(v1, 13); \
		v1 ^= v0;          \
		v0 = ROTL(v0, 32); \
		v2 += v3;          \
		v3 = ROTL(v3, 16); \
		v3 ^= v2;          \
		v0 += v3;          \
		v3 = ROTL(v3, 21); \
		v3 ^= v0;          \
		v2 += v1;          \
		v1 = ROTL(v1, 17); \
		v1 ^= v2;          \
		v2 = ROTL(v2, 32); \
	} while (0)

/* SipHash-2-4 (Aumasson and Bernstein). */
uint64_t att_siphash(uint64_t k0, uint64_t k1, const void *p, size_t n)
{
	const uint8_t *in = p;
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
	uint64_t v3 = 0x7465646279746573ULL ^ k1;
	uint64_t b = (uint64_t)n << 56, m;
	size_t i, left = n & 7;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&m, in + i, 8);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (; left; left--)
		b |= (uint64_t)in[i + left - 1] << (8 * (left - 1));
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

int dmap_init(struct dmap *m)
{
	uint64_t k[2];

	memset(m, 0, sizeof(*m));
	att_buf_init(&m->names, 0);
	att_buf_init(&m->digests, 0);
	if (RAND_bytes((unsigned char *)k, sizeof(k)) != 1)
		return ATT_E_CRYPTO;
	m->k0 = k[0];
	m->k1 = k[1];
	return ATT_OK;
}

void dmap_release(struct dmap *m)
{
	free(m->entries);
	free(m->slots);
	att_buf_release(&m->names);
	att_buf_release(&m->digests);
	memset(m, 0, sizeof(*m));
}

static size_t slot_of(const struct dmap *m, const void *name, size_t nlen)
{
	return (size_t)att_siphash(m->k0, m->k1, name, nlen) & (m->nslots - 1);
}

static int rehash(struct dmap *m, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));
	size_t i;

	if (!s)
		return ATT_E_NOMEM;
	free(m->slots);
	m->slots = s;
	m->nslots = nslots;
	for (i = 0; i < m->count; i++) {
		const struct dmap_entry *e = &m->entries[i];
		size_t j = slot_of(m, m->names.data + e->name_off, e->name_len);

		while (s[j])
			j = (j + 1) & (nslots - 1);
		s[j] = (uint32_t)(i + 1);
	}
	return ATT_OK;
}

/* Inserts name, known to be absent, into the table. */
static int insert_new(struct dmap *m, const void *name, size_t nlen,
		      size_t slot_hint_valid, size_t slot, size_t *idx)
{
	struct dmap_entry *e;
	int rc;

	if (nlen > UINT32_MAX || m->count >= UINT32_MAX - 1)
		return ATT_E_TOO_BIG;
	if ((m->count + 1) * 2 > m->nslots) {
		rc = rehash(m, m->nslots ? m->nslots * 2 : 1024);
		if (rc)
			return rc;
		slot_hint_valid = 0;
	}
	if (m->count == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		struct dmap_entry *ne = realloc(m->entries, ncap * sizeof(*ne));

		if (!ne)
			return ATT_E_NOMEM;
		m->entries = ne;
		m->cap = ncap;
	}
	e = &m->entries[m->count];
	memset(e, 0, sizeof(*e));
	e->name_off = m->names.len;
	e->name_len = (uint32_t)nlen;
	rc = att_buf_append(&m->names, name, nlen);
	if (rc)
		return rc;
	if (!slot_hint_valid) {
		slot = slot_of(m, name, nlen);
		while (m->slots[slot])
			slot = (slot + 1) & (m->nslots - 1);
	}
	m->slots[slot] = (uint32_t)(m->count + 1);
	*idx = m->count++;
	return ATT_OK;
}

/*
 * Looks name up; when absent, *slot is the empty slot where it would go
 * (valid until the table changes).
 */
static long lookup(const struct dmap *m, const void *name, size_t nlen,
		   size_t *slot)
{
	size_t j;

	if (!m->nslots)
		return -2;
	for (j = slot_of(m, name, nlen); m->slots[j];
	     j = (j + 1) & (m->nslots - 1)) {
		const struct dmap_entry *e = &m->entries[m->slots[j] - 1];

		if (e->name_len == nlen &&
		    !memcmp(m->names.data + e->name_off, name, nlen))
			return (long)m->slots[j] - 1;
	}
	*slot = j;
	return -1;
}

static int add_entry(struct dmap *m, const void *name, size_t nlen,
		     struct dmap_entry **out)
{
	size_t slot = 0, idx;
	long i = lookup(m, name, nlen, &slot);
	int rc;

	if (i >= 0) {
		*out = &m->entries[i];
		return ATT_OK;
	}
	rc = insert_new(m, name, nlen, i == -1, slot, &idx);
	if (!rc)
		*out = &m->entries[idx];
	return rc;
}

int dmap_add_new(struct dmap *m, const void *name, size_t nlen, size_t *idx)
{
	size_t slot = 0;
	long i = lookup(m, name, nlen, &slot);

	if (i >= 0)
		return ATT_E_EXISTS;
	return insert_new(m, name, nlen, i == -1, slot, idx);
}

int dmap_add_name(struct dmap *m, const void *name, size_t nlen)
{
	struct dmap_entry *e;

	return add_entry(m, name, nlen, &e);
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int append_digest(struct dmap *m, struct dmap_entry *e,
			 enum att_hash alg, const uint8_t *d, size_t dlen)
{
	uint8_t hdr[DMAP_REC_HDR];
	uint64_t off;
	int rc;

	if (dmap_has_digest(m, e, alg, d, dlen))
		return ATT_OK;
	off = m->digests.len;
	put_u64(hdr, 0);
	hdr[8] = (uint8_t)alg;
	hdr[9] = (uint8_t)dlen;
	rc = att_buf_append(&m->digests, hdr, sizeof(hdr));
	if (!rc)
		rc = att_buf_append(&m->digests, d, dlen);
	if (rc)
		return rc;
	if (e->last_digest)
		put_u64(m->digests.data + e->last_digest - 1, off + 1);
	else
		e->first_digest = off + 1;
	e->last_digest = off + 1;
	e->ndigests++;
	m->ndigests++;
	return ATT_OK;
}

int dmap_add(struct dmap *m, const void *name, size_t nlen, enum att_hash alg,
	     const uint8_t *d, size_t dlen)
{
	struct dmap_entry *e;
	int rc;

	if (!dlen || dlen > ATT_DIGEST_MAX)
		return ATT_E_INVAL;
	rc = add_entry(m, name, nlen, &e);
	if (rc)
		return rc;
	return append_digest(m, e, alg, d, dlen);
}

int dmap_add_digest(struct dmap *m, size_t idx, enum att_hash alg,
		    const uint8_t *d, size_t dlen)
{
	if (!dlen || dlen > ATT_DIGEST_MAX || idx >= m->count)
		return ATT_E_INVAL;
	return append_digest(m, &m->entries[idx], alg, d, dlen);
}

int dmap_has_digest(const struct dmap *m, const struct dmap_entry *e,
		    enum att_hash alg, const uint8_t *d, size_t dlen)
{
	uint64_t r = e->first_digest;

	while (r) {
		const uint8_t *rec = m->digests.data + r - 1;
		enum att_hash ralg = (enum att_hash)rec[8];

		if (rec[9] == dlen && !memcmp(rec + DMAP_REC_HDR, d, dlen) &&
		    (ralg == ATT_HASH_NONE || alg == ATT_HASH_NONE ||
		     ralg == alg))
			return 1;
		r = get_u64(rec);
	}
	return 0;
}

const struct dmap_entry *dmap_find(const struct dmap *m, const void *name,
				   size_t nlen)
{
	size_t slot;
	long i = lookup(m, name, nlen, &slot);

	return i < 0 ? NULL : &m->entries[i];
}
