/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay.h - replaying an IMA measurement list into PCR values.
 *
 * For each bank b the template hash is H_b(template data), and
 * PCR_b = H_b(PCR_b || template hash). Kernels before 5.8 extended every
 * bank with the SHA-1 template digest zero-padded to the bank size: both
 * rules are tracked until a match with quoted values decides which one the
 * host uses. A violation (zero template digest) extends 0xff..ff.
 *
 * A slim_gap record at index 0 (kernel/README.md) sets each bank to the
 * value it names before it is extended like any entry.
 *
 * The state (entry index, byte offset, running PCR values, rule, the
 * lattice state folded by att_check_list) can be
 * saved and restored, so a verifier replays only the new entries of a list
 * and can test every prefix against a quoted PCR value.
 */
#ifndef ATTEST_REPLAY_H
#define ATTEST_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "attest/digest.h"
#include "attest/ima.h"
#include "attest/lattice.h"
#include "attest/pcrs.h"

#define ATT_REPLAY_MAX_BANKS 4

enum att_replay_rule {
	ATT_RULE_UNKNOWN = 0,	  /* both tracked, not decided yet */
	ATT_RULE_NG = 1,	  /* per-bank template hashes (>= 5.8) */
	ATT_RULE_SHA1_PADDED = 2, /* SHA-1 digest zero-padded (< 5.8) */
};

struct att_replay_state {
	uint64_t next_index;  /* entries replayed so far */
	uint64_t next_offset; /* byte offset of the next entry */
	enum att_replay_rule rule;
	uint32_t pcr_mask; /* PCRs any entry extended */
	unsigned int nbanks;
	enum att_hash banks[ATT_REPLAY_MAX_BANKS];
	/* [rule-1][bank slot][pcr] */
	uint8_t val[2][ATT_REPLAY_MAX_BANKS][ATT_PCR_COUNT][ATT_DIGEST_MAX];
	/* slim.ko's lattice, folded from the entries replayed (check.c) */
	struct att_lat_state lat;
	/*
	 * The list's identity: entry 0's template digest as written in the
	 * list (first_alg ATT_HASH_NONE until entry 0 is replayed). A list
	 * whose entry 0 differs is a new list (slim.ko loaded again), which
	 * the agent sends from entry 0 (the challenge carries this).
	 */
	enum att_hash first_alg;
	uint8_t first_digest[ATT_DIGEST_MAX];
};

struct att_replay;

/* banks: the PCR banks to track (e.g. sha1 and sha256). */
int att_replay_new(const enum att_hash *banks, unsigned int nbanks,
		   struct att_replay **out);
void att_replay_free(struct att_replay *rp);

/* Back to all-zero PCRs, entry 0. */
void att_replay_reset(struct att_replay *rp);

/*
 * Extends one entry with the template hashes computed from its data (the
 * kernel extends what it computed, so an edited entry cannot replay to the
 * quoted value). *tdigest_ok is set to 0 when the template digest written
 * in the list is not the hash of the entry's template data.
 */
int att_replay_extend(struct att_replay *rp, const struct att_ima_entry *e,
		      int *tdigest_ok);

/*
 * The computed template hash of the last extended entry for a bank (what
 * the kernel writes in *_runtime_measurements_<bank>).
 */
const uint8_t *att_replay_last_thash(const struct att_replay *rp,
				     enum att_hash bank);

/* The running value of a PCR under the state's rule (NG when unknown). */
const uint8_t *att_replay_pcr(const struct att_replay *rp, enum att_hash bank,
			      unsigned int pcr);
const uint8_t *att_replay_pcr_rule(const struct att_replay *rp,
				   enum att_replay_rule rule,
				   enum att_hash bank, unsigned int pcr);

/*
 * Compares the running values of the PCRs in pcr_mask with `quoted`, for
 * every tracked bank that `quoted` holds (at least one must). Returns 1 on
 * a match (and fixes the rule when it was unknown), 0 otherwise.
 */
int att_replay_match(struct att_replay *rp, const struct att_pcrs *quoted,
		     uint32_t pcr_mask);

const struct att_replay_state *att_replay_state(const struct att_replay *rp);
/* The lattice state that travels with the replay (att_lat_step folds). */
struct att_lat_state *att_replay_lattice(struct att_replay *rp);
int att_replay_restore(struct att_replay *rp,
		       const struct att_replay_state *st);

/*
 * A versioned, portable byte encoding of the state (for storage). A
 * version 1 encoding (no lattice state) decodes as ATT_E_UNSUPPORTED: the
 * caller replays that list from its start. A version 2 encoding (no list
 * identity) decodes with first_alg ATT_HASH_NONE.
 */
int att_replay_state_encode(const struct att_replay_state *st, uint8_t **out,
			    size_t *outlen);
int att_replay_state_decode(const uint8_t *p, size_t len,
			    struct att_replay_state *st);

/*
 * A list's identity as text, "<bank>:<hex>" (list_id.c). out needs
 * ATT_LIST_ID_MAX bytes; ATT_E_INVAL for an unknown bank. The parser is
 * strict: a known bank, exactly its digest size in hex.
 */
#define ATT_LIST_ID_MAX (16 + 2 * ATT_DIGEST_MAX + 2)
int att_list_id_format(enum att_hash alg, const uint8_t *digest, char *out,
		       size_t outsz);
int att_list_id_parse(const char *s, enum att_hash *alg, uint8_t *digest);

/*
 * boot_aggregate over PCRs 0-7 (and 8-9 when with_8_9) of one bank of
 * `pcrs`; PCRs missing from the set count as zero.
 */
int att_boot_aggregate(const struct att_pcrs *pcrs, enum att_hash bank,
		       int with_8_9, uint8_t *out);

#endif
