// SPDX-License-Identifier: Apache-2.0
/*
 * wlcache.c - compiled whitelists (see wlcache.h). Versions are immutable
 * once stored, so an entry never goes stale; compiling happens outside the
 * lock, and a lost race just drops the second copy.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/err.h"
#include "attest/log.h"
#include "attest/whitelist.h"
#include "store.h"
#include "wlcache.h"
#include "wldoc.h"

struct ver_wlref {
	struct ver_wlref *next;
	char name[ATT_STORE_NAME_MAX + 1];
	int64_t version;
	struct att_wl *wl;
	unsigned int refs; /* the cache holds one while listed */
	uint64_t used;
};

struct ver_wlcache {
	pthread_mutex_t lock;
	struct ver_wlref *head;
	unsigned int n, max;
	uint64_t tick;
};

int ver_wlcache_new(unsigned int max_entries, struct ver_wlcache **out)
{
	struct ver_wlcache *c = calloc(1, sizeof(*c));

	*out = c;
	if (!c)
		return ATT_E_NOMEM;
	pthread_mutex_init(&c->lock, NULL);
	c->max = max_entries ? max_entries : 16;
	return 0;
}

static void ref_drop(struct ver_wlref *r)
{
	if (--r->refs == 0) {
		att_wl_free(r->wl);
		free(r);
	}
}

void ver_wlcache_free(struct ver_wlcache *c)
{
	struct ver_wlref *r, *n;

	if (!c)
		return;
	for (r = c->head; r; r = n) {
		n = r->next;
		ref_drop(r);
	}
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static struct ver_wlref *lookup(struct ver_wlcache *c, const char *name,
				int64_t version)
{
	struct ver_wlref *r;

	for (r = c->head; r; r = r->next)
		if (r->version == version && !strcmp(r->name, name)) {
			r->refs++;
			r->used = ++c->tick;
			return r;
		}
	return NULL;
}

static void evict_one(struct ver_wlcache *c)
{
	struct ver_wlref **pp, **victim = NULL, *r;

	for (pp = &c->head; *pp; pp = &(*pp)->next)
		if (!victim || (*pp)->used < (*victim)->used)
			victim = pp;
	if (!victim)
		return;
	r = *victim;
	*victim = r->next;
	c->n--;
	ref_drop(r);
}

int ver_wlcache_get(struct ver_wlcache *c, struct att_store *s,
		    const char *name, int64_t version, struct ver_wlref **ref,
		    int64_t *got_version)
{
	struct att_store_wl w;
	struct ver_wlref *r, *old;
	char err[300];
	int rc;

	*ref = NULL;
	if (version == 0) {
		rc = att_store_wl_latest(s, name, &version);
		if (rc)
			return rc;
	}
	*got_version = version;
	pthread_mutex_lock(&c->lock);
	r = lookup(c, name, version);
	pthread_mutex_unlock(&c->lock);
	if (r) {
		*ref = r;
		return 0;
	}
	rc = att_store_wl_get(s, name, version, &w);
	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r) {
		att_store_wl_release(&w);
		return ATT_E_NOMEM;
	}
	rc = ver_wldoc_load(w.body, w.body_len, &r->wl, err, sizeof(err));
	att_store_wl_release(&w);
	if (rc) {
		att_err("whitelist %s@%lld does not load: %s", name,
			(long long)version, err);
		free(r);
		return rc;
	}
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->version = version;
	r->refs = 2; /* the cache's and the caller's */
	pthread_mutex_lock(&c->lock);
	old = lookup(c, name, version);
	if (old) {
		pthread_mutex_unlock(&c->lock);
		r->refs = 1;
		ref_drop(r);
		*ref = old;
		return 0;
	}
	if (c->n >= c->max)
		evict_one(c);
	r->used = ++c->tick;
	r->next = c->head;
	c->head = r;
	c->n++;
	pthread_mutex_unlock(&c->lock);
	*ref = r;
	return 0;
}

const struct att_wl *ver_wlref_wl(const struct ver_wlref *ref)
{
	return ref->wl;
}

void ver_wlref_put(struct ver_wlcache *c, struct ver_wlref *ref)
{
	if (!ref)
		return;
	pthread_mutex_lock(&c->lock);
	ref_drop(ref);
	pthread_mutex_unlock(&c->lock);
}
