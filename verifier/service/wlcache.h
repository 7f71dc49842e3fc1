/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wlcache.h - whitelists compiled once per (name, version) and shared by
 * concurrent verifications (reference counted; a bounded LRU).
 */
#ifndef ATTEST_VERIFIER_WLCACHE_H
#define ATTEST_VERIFIER_WLCACHE_H

#include <stdint.h>

struct att_store;
struct att_wl;
struct ver_wlcache;
struct ver_wlref;

int ver_wlcache_new(unsigned int max_entries, struct ver_wlcache **out);
void ver_wlcache_free(struct ver_wlcache *c);

/*
 * The compiled whitelist name@version (0: the newest; *got_version says
 * which). ATT_E_NOT_FOUND when there is no such whitelist. Release with
 * ver_wlref_put().
 */
int ver_wlcache_get(struct ver_wlcache *c, struct att_store *s,
		    const char *name, int64_t version, struct ver_wlref **ref,
		    int64_t *got_version);
const struct att_wl *ver_wlref_wl(const struct ver_wlref *ref);
void ver_wlref_put(struct ver_wlcache *c, struct ver_wlref *ref);

#endif
