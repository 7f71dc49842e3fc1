/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wl_internal.h - the compiled whitelist, shared by its loaders and judge.
 */
#ifndef ATTEST_WL_INTERNAL_H
#define ATTEST_WL_INTERNAL_H

#include <regex.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "attest/boot.h"
#include "attest/lattice.h"
#include "attest/whitelist.h"
#include "digest_map.h"

struct wl_key {
	uint32_t keyid;
	EVP_PKEY *pkey;
};

struct att_wl {
	struct dmap digests;	 /* path -> file digests */
	struct dmap keyrings;	 /* keyring name -> key digests */
	struct dmap bufs;	 /* ima-buf name -> buffer digests */
	struct dmap ignored;	 /* ignored keyrings (names only) */
	int ignore_all_keyrings; /* "*" in ignored_keyrings */
	regex_t excl;		 /* all excludes, anchored, alternated */
	int have_excl;
	size_t nexcl;
	struct wl_key *keys;
	size_t nkeys;
	enum att_wl_violations violations;
	struct att_lat_policy *lattice; /* the "lattice" section, or NULL */
	struct att_boot_policy *boot;	/* the "boot" section, or NULL */
	struct att_wl_limits lim;
	/* a union (att_wl_union_new): its layers, not owned */
	const struct att_wl *layers[ATT_WL_LAYERS_MAX];
	size_t nlayers;
};

/* One whitelist's own judgement of an entry (no layers). */
enum att_verdict wl_judge_one(const struct att_wl *wl,
			      const struct att_ima_entry *e,
			      struct att_judgement *j);
/* Judges one entry by a union's layers (whitelist_union.c). */
enum att_verdict wl_union_judge(const struct att_wl *wl,
				const struct att_ima_entry *e,
				struct att_judgement *j);

int wl_new(const struct att_wl_limits *lim, struct att_wl **out);
/* Compiles the exclude patterns (NUL-separated in one buffer). */
int wl_compile_excludes(struct att_wl *wl, const char *const *pats, size_t n,
			char *err, size_t errlen);
/*
 * 1 when an ERE is safe to compile (no stacked quantifiers, at most 4
 * bounds of at most 16): glibc expands repetitions into copies.
 */
int wl_pattern_safe(const char *p);
/* Parses a digest string "hex" or "algo:hex" into alg/bytes. */
int wl_parse_digest(const char *s, size_t n, enum att_hash *alg, uint8_t *d,
		    size_t *dlen);
/* Adds verification keys from PEM text (one or more public keys). */
int wl_add_keys_pem(struct att_wl *wl, const char *pem, size_t len, char *err,
		    size_t errlen);
/* Adds a DER SubjectPublicKeyInfo. */
int wl_add_key_der(struct att_wl *wl, const uint8_t *der, size_t len);

/* Verifies an IMA v2 signature (type 0x03) over the entry's digest. */
enum att_verdict wl_verify_sig(const struct att_wl *wl,
			       const struct att_ima_entry *e, char *detail,
			       size_t dlen);

#endif
