/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wlcache.h - whitelists compiled once per (name, version) and shared by
 * concurrent verifications (reference counted; a bounded LRU).
 */
#ifndef ATTEST_VERIFIER_WLCACHE_H
#define ATTEST_VERIFIER_WLCACHE_H

#include <stddef.h>
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
/*
 * The union of layers ls[0..n) (a request's, before it is stored): as a
 * stored layered whitelist would be compiled; why says what is wrong (a
 * missing layer, a layered layer, two lattice or boot sections).
 */
struct ver_wllayer;
int ver_wlcache_get_layers(struct ver_wlcache *c, struct att_store *s,
			   const char *name, const struct ver_wllayer *ls,
			   size_t n, struct ver_wlref **ref, char *why,
			   size_t whylen);
const struct att_wl *ver_wlref_wl(const struct ver_wlref *ref);
/*
 * Of a layered whitelist (wldoc.h): its layers, each name@version as
 * resolved for this reference (0 layers: a plain whitelist).
 */
size_t ver_wlref_layers(const struct ver_wlref *ref);
const char *ver_wlref_layer_name(const struct ver_wlref *ref, size_t i);
int64_t ver_wlref_layer_version(const struct ver_wlref *ref, size_t i);
void ver_wlref_put(struct ver_wlcache *c, struct ver_wlref *ref);

#endif
