/* SPDX-License-Identifier: Apache-2.0 */
/*
 * akcache.c - parsed attestation keys by their bytes. A slot holds one
 * key; a key is found only when its bytes are equal to the ones asked
 * for, so a collision costs a parse, never a wrong key. Keys are
 * reference-counted: one evicted while a round uses it lives until that
 * round drops it.
 */
#include "akcache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "attest/err.h"
#include "attest/tpm_key.h"

struct ver_akcache {
	pthread_mutex_t lock;
	unsigned int nslots;
	struct att_tpm_key **slot;
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
	c->slot = calloc(slots, sizeof(*c->slot));
	if (!c->slot) {
		free(c);
		return ATT_E_NOMEM;
	}
	c->nslots = slots;
	pthread_mutex_init(&c->lock, NULL);
	*out = c;
	return ATT_OK;
}

void ver_akcache_free(struct ver_akcache *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->nslots; i++)
		att_tpm_key_free(c->slot[i]);
	free(c->slot);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* FNV-1a: spreads keys over slots; equality is checked on the bytes. */
static unsigned int akc_slot(const struct ver_akcache *c, const uint8_t *p,
			     size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return (unsigned int)(h % c->nslots);
}

static int akc_same(const struct att_tpm_key *k, const uint8_t *p, size_t len)
{
	size_t klen;
	const uint8_t *kb = att_tpm_key_bytes(k, &klen);

	return klen == len && !memcmp(kb, p, len);
}

int ver_akcache_get(struct ver_akcache *c, const uint8_t *pub, size_t len,
		    struct att_tpm_key **out)
{
	struct att_tpm_key *k, *old;
	unsigned int i;
	int rc;

	*out = NULL;
	if (!c)
		return att_tpm_key_parse(pub, len, out);
	i = akc_slot(c, pub, len);
	pthread_mutex_lock(&c->lock);
	k = c->slot[i];
	if (k && akc_same(k, pub, len)) {
		*out = att_tpm_key_ref(k);
		c->hits++;
		pthread_mutex_unlock(&c->lock);
		return ATT_OK;
	}
	c->misses++;
	pthread_mutex_unlock(&c->lock);
	/* Parsed outside the lock; another thread may race to the slot. */
	rc = att_tpm_key_parse(pub, len, &k);
	if (rc)
		return rc;
	pthread_mutex_lock(&c->lock);
	old = c->slot[i];
	c->slot[i] = att_tpm_key_ref(k);
	pthread_mutex_unlock(&c->lock);
	att_tpm_key_free(old);
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
