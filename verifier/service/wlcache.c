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

static int get_one(struct ver_wlcache *c, struct att_store *s, const char *name,
		   int64_t version, int as_layer, struct ver_wlref **ref,
		   int64_t *got_version);

struct ver_wlref {
	struct ver_wlref *next;
	char name[ATT_STORE_NAME_MAX + 1];
	int64_t version;
	struct att_wl *wl;
	unsigned int refs; /* the cache holds one while listed */
	uint64_t used;
	/* a layered whitelist (never cached: its layers are) */
	struct ver_wlref *layer[ATT_WL_LAYERS_MAX];
	size_t nlayers;
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
	size_t i;

	if (--r->refs == 0) {
		att_wl_free(r->wl);
		for (i = 0; i < r->nlayers; i++)
			ref_drop(r->layer[i]);
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

/*
 * A layered whitelist: each layer through the cache (its newest version
 * when the list says 0), then their union, in a reference of its own.
 */
static int get_layered(struct ver_wlcache *c, struct att_store *s,
		       const char *name, int64_t version,
		       const struct ver_wllayer *ls, size_t n,
		       struct ver_wlref **ref, char *why, size_t whylen)
{
	const struct att_wl *wls[ATT_WL_LAYERS_MAX];
	struct ver_wlref *r = calloc(1, sizeof(*r));
	int64_t got;
	char err[200];
	size_t i;
	int rc = 0;

	if (!r)
		return ATT_E_NOMEM;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->version = version;
	r->refs = 1;
	for (i = 0; i < n && !rc; i++) {
		rc = get_one(c, s, ls[i].name, ls[i].version, 1, &r->layer[i],
			     &got);
		if (!rc) {
			r->nlayers++;
			wls[i] = r->layer[i]->wl;
		} else {
			snprintf(why, whylen, "layer %s%s: %s", ls[i].name, "",
				 rc == ATT_E_NOT_FOUND ? "no such whitelist"
				 : rc == ATT_E_FORMAT
					 ? "a layered whitelist is not a layer"
					 : att_strerror(rc));
			att_err("whitelist %s@%lld: %s", name,
				(long long)version, why);
			/* the layered one exists: its layer is the problem */
			if (rc == ATT_E_NOT_FOUND)
				rc = ATT_E_STATE;
		}
	}
	if (!rc) {
		rc = att_wl_union_new(wls, n, &r->wl, err, sizeof(err));
		if (rc) {
			snprintf(why, whylen, "%s", err);
			att_err("whitelist %s@%lld: %s", name,
				(long long)version, err);
		}
	}
	if (rc) {
		pthread_mutex_lock(&c->lock);
		ref_drop(r);
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	*ref = r;
	return 0;
}

static int get_one(struct ver_wlcache *c, struct att_store *s, const char *name,
		   int64_t version, int as_layer, struct ver_wlref **ref,
		   int64_t *got_version)
{
	struct ver_wllayer ls[ATT_WL_LAYERS_MAX];
	struct att_store_wl w;
	struct ver_wlref *r, *old;
	char err[300];
	size_t nl;
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
	rc = ver_wldoc_layers(w.body, w.body_len, ls, &nl, err, sizeof(err));
	if (!rc && nl && as_layer) {
		att_err("whitelist %s@%lld is layered: not a layer", name,
			(long long)version);
		rc = ATT_E_FORMAT;
	}
	if (rc || nl) {
		att_store_wl_release(&w);
		return rc ? rc
			  : get_layered(c, s, name, version, ls, nl, ref, err,
					sizeof(err));
	}
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

int ver_wlcache_get(struct ver_wlcache *c, struct att_store *s,
		    const char *name, int64_t version, struct ver_wlref **ref,
		    int64_t *got_version)
{
	return get_one(c, s, name, version, 0, ref, got_version);
}

const struct att_wl *ver_wlref_wl(const struct ver_wlref *ref)
{
	return ref->wl;
}

int ver_wlcache_get_layers(struct ver_wlcache *c, struct att_store *s,
			   const char *name, const struct ver_wllayer *ls,
			   size_t n, struct ver_wlref **ref, char *why,
			   size_t whylen)
{
	why[0] = '\0';
	return get_layered(c, s, name, 0, ls, n, ref, why, whylen);
}

size_t ver_wlref_layers(const struct ver_wlref *ref)
{
	return ref->nlayers;
}

const char *ver_wlref_layer_name(const struct ver_wlref *ref, size_t i)
{
	return i < ref->nlayers ? ref->layer[i]->name : "";
}

int64_t ver_wlref_layer_version(const struct ver_wlref *ref, size_t i)
{
	return i < ref->nlayers ? ref->layer[i]->version : 0;
}

void ver_wlref_put(struct ver_wlcache *c, struct ver_wlref *ref)
{
	if (!ref)
		return;
	pthread_mutex_lock(&c->lock);
	ref_drop(ref);
	pthread_mutex_unlock(&c->lock);
}
