/* SPDX-License-Identifier: Apache-2.0 */
/*
 * whitelist.h - the reference values an IMA list is judged against.
 *
 * The native format is JSON and a superset of Keylime's runtime policy:
 *   {"meta": {...}, "release": N, "digests": {"/path": ["hex", ...]},
 *    "excludes": ["regex", ...], "keyrings": {"name": ["hex"]},
 *    "ima": {"ignored_keyrings": [...], "log_hash_alg": "sha1",
 *            "dm_policy": null},
 *    "ima-buf": {"name": ["hex"]}, "verification-keys": "..." | [...],
 *    "attest": {"violations": "fail" | "allow"},
 *    "lattice": {...}, "boot": {...}}
 * Keylime's legacy "hash  path" allowlist and its exclude list load too.
 * A whitelist is compiled once into hash tables; judging an entry is a
 * lookup, never a re-parse.
 */
#ifndef ATTEST_WHITELIST_H
#define ATTEST_WHITELIST_H

#include <stddef.h>
#include <stdint.h>

#include "attest/ima.h"

enum att_verdict {
	/* acceptable */
	ATT_V_ALLOWED = 0,	 /* digest on the whitelist for this path */
	ATT_V_EXCLUDED,		 /* path matches an exclude rule */
	ATT_V_SIG_OK,		 /* valid signature by a trusted key */
	ATT_V_BOOT_AGGREGATE_OK, /* matches the quoted PCRs 0-9 */
	ATT_V_IGNORED_KEYRING,	 /* ima-buf of an ignored keyring */
	ATT_V_VIOLATION_ALLOWED, /* violation, policy allows them */
	ATT_V_UNCHECKED,	 /* nothing to check it against (offline) */
	/* failures: ATT_V_FIRST_FAILURE and after */
	ATT_V_UNKNOWN_PATH,	  /* path not on the whitelist */
	ATT_V_HASH_MISMATCH,	  /* path known, digest not */
	ATT_V_VIOLATION,	  /* ToMToU / open-writers violation */
	ATT_V_BAD_TEMPLATE_HASH,  /* template digest != hash of its data */
	ATT_V_SIG_BAD,		  /* signature present and not valid */
	ATT_V_BOOT_AGGREGATE_BAD, /* does not match the quoted PCRs */
	ATT_V_WRONG_PCR,	  /* entry extends a PCR the log may not use */
	ATT_V_BUF_DIGEST_BAD,	  /* ima-buf digest is not the buffer's hash */
	ATT_V_NO_DIGEST,	  /* template without a file digest */
	ATT_V_GAP, /* the list continues after an unmeasured gap */
	/* slim.ko's lattice event records (docs/lattice-events.md) */
	ATT_V_LATTICE_OK,	 /* acceptable (not a failure) */
	ATT_V_LATTICE_MALFORMED, /* not a valid record */
	ATT_V_LATTICE_POLICY,	 /* the whitelist's lattice section refuses it */
	ATT_V_COUNT,
};

#define ATT_V_FIRST_FAILURE ATT_V_UNKNOWN_PATH

static inline int att_verdict_ok(enum att_verdict v)
{
	return v < ATT_V_FIRST_FAILURE || v == ATT_V_LATTICE_OK;
}

/* "allowed", "unknown-path", ... (stable: used in JSON and the API). */
const char *att_verdict_name(enum att_verdict v);
/* A sentence for people. */
const char *att_verdict_text(enum att_verdict v);

struct att_wl;

enum att_wl_violations {
	ATT_WL_VIOLATIONS_FAIL = 0,
	ATT_WL_VIOLATIONS_ALLOW = 1,
};

/* Caps applied while loading (0: the defaults). */
struct att_wl_limits {
	size_t max_bytes;	     /* document size, default 256 MiB */
	size_t max_paths;	     /* default 4 M */
	size_t max_digests_per_path; /* default 1024 */
	size_t max_excludes;	     /* default 4096 */
	int max_depth;		     /* JSON nesting, default 16 */
};

/*
 * Loads a JSON whitelist (native or Keylime runtime policy). On failure
 * err gets a message naming the offending field.
 */
int att_wl_load_json(const char *text, size_t len,
		     const struct att_wl_limits *lim, struct att_wl **out,
		     char *err, size_t errlen);
/*
 * Loads Keylime's legacy allowlist ("<hex>  <path>" lines, '#' comments)
 * and, optionally, its exclude list (one regex a line).
 */
int att_wl_load_legacy(const char *allow, size_t alen, const char *excl,
		       size_t elen, const struct att_wl_limits *lim,
		       struct att_wl **out, char *err, size_t errlen);
/* Detects JSON or legacy text and loads it (no exclude list). */
int att_wl_load_any(const char *text, size_t len,
		    const struct att_wl_limits *lim, struct att_wl **out,
		    char *err, size_t errlen);
void att_wl_free(struct att_wl *wl);

size_t att_wl_path_count(const struct att_wl *wl);
size_t att_wl_digest_count(const struct att_wl *wl);
enum att_wl_violations att_wl_violations(const struct att_wl *wl);

/* Judgement of one entry. */
#define ATT_DETAIL_LEN 320

struct att_judgement {
	enum att_verdict verdict;
	/*
	 * Of a layered whitelist (att_wl_union_new): the layer whose rules
	 * accepted the entry, or that knows its path when it failed as a
	 * hash mismatch; -1 otherwise and for a plain whitelist.
	 */
	int layer;
	uint64_t index;
	const uint8_t *path; /* points into the entry */
	size_t path_len;
	char detail[ATT_DETAIL_LEN]; /* e.g. the digest seen, the key id */
};

/*
 * Judges an entry's content by the whitelist (the template hash and PCR
 * checks are the replay's; boot_aggregate is the checker's).
 */
int att_wl_judge(const struct att_wl *wl, const struct att_ima_entry *e,
		 struct att_judgement *j);

/*
 * Parses a digest as whitelists write it: hex of a known length (40, 64,
 * 96, 128 digits) or "alg:hex". ATT_E_FORMAT / ATT_E_UNSUPPORTED if not.
 */
int att_wl_parse_digest(const char *s, size_t n, enum att_hash *alg, uint8_t *d,
			size_t *dlen);

/* Iteration, for tools: calls fn for every path and its digests. */
typedef int (*att_wl_path_fn)(const uint8_t *path, size_t path_len,
			      const uint8_t *const *digests, const size_t *lens,
			      size_t n, void *arg);
int att_wl_foreach_path(const struct att_wl *wl, att_wl_path_fn fn, void *arg);

struct att_lat_policy;
/* The "lattice" section, NULL when the whitelist has none. */
const struct att_lat_policy *att_wl_lattice(const struct att_wl *wl);

struct att_boot_policy;
/* The "boot" section (measured boot, attest/boot.h), NULL when none. */
const struct att_boot_policy *att_wl_boot(const struct att_wl *wl);

/*
 * Layers: a whitelist that is the union of n compiled ones (e.g. a site's
 * own files, a distribution release, its security updates), each
 * versioned and replaced on its own. An entry is accepted when some layer
 * accepts it (digest, exclude, signature, allowed violation), and the
 * judgement names the first such layer; it fails as a hash mismatch when
 * some layer knows its path, else as the first layer says. The union's
 * lattice and boot sections are the one layer's that has them (two
 * layers with one are refused). The layers are not copied: they must
 * outlive the union, which att_wl_free() frees alone. Counts are sums.
 */
#define ATT_WL_LAYERS_MAX 16
int att_wl_union_new(const struct att_wl *const *layers, size_t n,
		     struct att_wl **out, char *err, size_t errlen);
/* The number of layers of a union; 0 for a plain whitelist. */
size_t att_wl_layer_count(const struct att_wl *wl);

#endif
