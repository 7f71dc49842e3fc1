/* SPDX-License-Identifier: Apache-2.0 */
/*
 * akcache.c - parsed attestation keys by their bytes. The cache is
 * set-associative: a key's bytes choose a set of VER_AKCACHE_WAYS slots,
 * kept newest-used first, and a new key evicts the least recently used
 * of its set. (Direct-mapped, one slot a set, 10,000 agents in 16,384
 * slots shared a slot for 46% of the keys and evicted each other: one
 * lookup in four parsed again.) A key is found only when its bytes are
 * equal to the ones asked for, so a collision costs a parse, never a
 * wrong key. Keys are reference-counted: one evicted while a round uses
 * it lives until that round drops it.
 */
#include "akcache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "attest/err.h"
#include "attest/tpm_key.h"

struct ver_akcache {
	pthread_mutex_t lock;
	unsigned int nsets, ways;
	struct att_tpm_key **slot; /* set i: slot[i * ways ...], MRU first */
	uint64_t hits, misses;
};

int ver_akcache_new(unsigned int slots, struct ver_akcache **out)
{
	struct ver_akcache *c;

	*out = NULL;
	if (!slots)
		return ATT_E_INVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ATT_E_NOMEM;
	c->ways = slots < VER_AKCACHE_WAYS ? slots : VER_AKCACHE_WAYS;
	c->nsets = slots / c->ways;
	c->slot = calloc((size_t)c->nsets * c->ways, sizeof(*c->slot));
	if (!c->slot) {
		free(c);
		return ATT_E_NOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	*out = c;
	return ATT_OK;
}

void ver_akcache_free(struct ver_akcache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < (size_t)c->nsets * c->ways; i++)
		att_tpm_key_free(c->slot[i]);
	free(c->slot);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* FNV-1a: spreads keys over sets; equality is checked on the bytes. */
static struct att_tpm_key **akc_set(const struct ver_akcache *c,
				    const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return c->slot + (size_t)(h % c->nsets) * c->ways;
}

static int akc_same(const struct att_tpm_key *k, const uint8_t *p, size_t len)
{
	size_t klen;
	const uint8_t *kb = att_tpm_key_bytes(k, &klen);

	return klen == len && !memcmp(kb, p, len);
}

/*
 * The lock is held. The set's key with these bytes moved to the front
 * with a new reference, or NULL.
 */
static struct att_tpm_key *akc_find(struct ver_akcache *c,
				    struct att_tpm_key **set, const uint8_t *p,
				    size_t len)
{
	struct att_tpm_key *k;
	unsigned int w;

	for (w = 0; w < c->ways && set[w]; w++) {
		if (!akc_same(set[w], p, len))
			continue;
		k = set[w];
		memmove(set + 1, set, w * sizeof(*set));
		set[0] = k;
		return att_tpm_key_ref(k);
	}
	return NULL;
}

int ver_akcache_get(struct ver_akcache *c, const uint8_t *pub, size_t len,
		    struct att_tpm_key **out)
{
	struct att_tpm_key **set, *k, *found, *old;
	int rc;

	*out = NULL;
	if (!c)
		return att_tpm_key_parse(pub, len, out);
	set = akc_set(c, pub, len);
	pthread_mutex_lock(&c->lock);
	k = akc_find(c, set, pub, len);
	if (k)
		c->hits++;
	else
		c->misses++;
	pthread_mutex_unlock(&c->lock);
	if (k) {
		*out = k;
		return ATT_OK;
	}
	/* Parsed outside the lock; another thread may have added it since. */
	rc = att_tpm_key_parse(pub, len, &k);
	if (rc)
		return rc;
	pthread_mutex_lock(&c->lock);
	found = akc_find(c, set, pub, len);
	old = NULL;
	if (!found) {
		old = set[c->ways - 1];
		memmove(set + 1, set, (c->ways - 1) * sizeof(*set));
		set[0] = att_tpm_key_ref(k);
	}
	pthread_mutex_unlock(&c->lock);
	att_tpm_key_free(old);
	if (found) {
		att_tpm_key_free(k);
		k = found;
	}
	*out = k;
	return ATT_OK;
}

void ver_akcache_stats(struct ver_akcache *c, uint64_t *hits, uint64_t *misses)
{
	pthread_mutex_lock(&c->lock);
	*hits = c->hits;
	*misses = c->misses;
	pthread_mutex_unlock(&c->lock);
}
