// SPDX-License-Identifier: Apache-2.0
/*
 * replay.c - IMA list replay into PCR values, incremental and resumable.
 */
#include "attest/replay.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/rd.h"

struct att_replay {
	struct att_replay_state st;
	struct att_md *md[ATT_REPLAY_MAX_BANKS];
	uint8_t thash[ATT_REPLAY_MAX_BANKS][ATT_DIGEST_MAX];
	int sha1_slot;	     /* bank slot of sha1, -1 when not tracked */
	struct att_md *sha1; /* for the padded rule and the list digest */
};

int att_replay_new(const enum att_hash *banks, unsigned int nbanks,
		   struct att_replay **out)
{
	struct att_replay *rp;
	unsigned int i, j;
	int rc;

	if (!nbanks || nbanks > ATT_REPLAY_MAX_BANKS)
		return ATT_E_INVAL;
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return ATT_E_NOMEM;
	rp->sha1_slot = -1;
	for (i = 0; i < nbanks; i++) {
		for (j = 0; j < i; j++)
			if (banks[j] == banks[i]) {
				rc = ATT_E_INVAL;
				goto fail;
			}
		rc = att_md_new(banks[i], &rp->md[i]);
		if (rc)
			goto fail;
		rp->st.banks[i] = banks[i];
		if (banks[i] == ATT_HASH_SHA1)
			rp->sha1_slot = (int)i;
	}
	rp->st.nbanks = nbanks;
	rc = att_md_new(ATT_HASH_SHA1, &rp->sha1);
	if (rc)
		goto fail;
	*out = rp;
	return ATT_OK;
fail:
	att_replay_free(rp);
	return rc;
}

void att_replay_free(struct att_replay *rp)
{
	unsigned int i;

	if (!rp)
		return;
	for (i = 0; i < ATT_REPLAY_MAX_BANKS; i++)
		att_md_free(rp->md[i]);
	att_md_free(rp->sha1);
	free(rp);
}

void att_replay_reset(struct att_replay *rp)
{
	rp->st.next_index = 0;
	rp->st.next_offset = 0;
	rp->st.rule = ATT_RULE_UNKNOWN;
	rp->st.pcr_mask = 0;
	memset(rp->st.val, 0, sizeof(rp->st.val));
	att_lat_state_init(&rp->st.lat);
	rp->st.first_alg = ATT_HASH_NONE;
	memset(rp->st.first_digest, 0, sizeof(rp->st.first_digest));
}

/* A valid slim_gap record: the banks start from the values it names. */
static void apply_gap(struct att_replay *rp, const struct att_ima_entry *e)
{
	struct att_replay_state *st = &rp->st;
	struct att_slim_gap g;
	unsigned int i, k;
	char why[120];

	if (att_slim_gap_parse(e, &g, why, sizeof(why)))
		return; /* judged malformed by att_check_list */
	for (i = 0; i < st->nbanks; i++)
		for (k = 0; k < g.n; k++) {
			if (g.alg[k] != st->banks[i])
				continue;
			memcpy(st->val[0][i][e->pcr], g.val[k],
			       att_hash_size(g.alg[k]));
			memcpy(st->val[1][i][e->pcr], g.val[k],
			       att_hash_size(g.alg[k]));
		}
	st->lat.gap = 1;
}

static int extend(struct att_md *md, uint8_t *pcr, const uint8_t *d)
{
	size_t n = att_hash_size(att_md_hash(md));
	int rc;

	rc = att_md_init(md);
	if (!rc)
		rc = att_md_update(md, pcr, n);
	if (!rc)
		rc = att_md_update(md, d, n);
	if (!rc)
		rc = att_md_final(md, pcr);
	return rc;
}

int att_replay_extend(struct att_replay *rp, const struct att_ima_entry *e,
		      int *tdigest_ok)
{
	struct att_replay_state *st = &rp->st;
	int want_ng = st->rule != ATT_RULE_SHA1_PADDED;
	int want_pad = st->rule != ATT_RULE_NG;
	uint8_t sha1[ATT_DIGEST_MAX];
	size_t tlen = att_hash_size(e->tdigest_alg);
	unsigned int i;
	int rc, listed_slot = -1, have_sha1 = 0;

	if (e->pcr >= ATT_PCR_COUNT || !tlen)
		return ATT_E_INVAL;
	*tdigest_ok = 1;
	if (st->next_index == 0) {
		if (att_is_slim_gap(e))
			apply_gap(rp, e);
		st->first_alg = e->tdigest_alg;
		memset(st->first_digest, 0, sizeof(st->first_digest));
		memcpy(st->first_digest, e->tdigest, tlen);
	}
	for (i = 0; i < st->nbanks; i++) {
		size_t n = att_hash_size(st->banks[i]);

		if (e->violation) {
			memset(rp->thash[i], 0xff, n);
			continue;
		}
		if (st->banks[i] == e->tdigest_alg)
			listed_slot = (int)i;
		if (!want_ng && st->banks[i] != e->tdigest_alg &&
		    st->banks[i] != ATT_HASH_SHA1)
			continue;
		rc = att_md_digest(rp->md[i], e->hash_input, e->hash_input_len,
				   rp->thash[i]);
		if (rc)
			return rc;
	}
	if (!e->violation) {
		if (listed_slot >= 0) {
			*tdigest_ok = !CRYPTO_memcmp(rp->thash[listed_slot],
						     e->tdigest, tlen);
		} else if (e->tdigest_alg == ATT_HASH_SHA1) {
			/* ima-ng's SHA-1 template digest, no sha1 bank. */
			rc = att_md_digest(rp->sha1, e->hash_input,
					   e->hash_input_len, sha1);
			if (rc)
				return rc;
			have_sha1 = 1;
			*tdigest_ok = !CRYPTO_memcmp(sha1, e->tdigest, tlen);
		} else {
			uint8_t t[ATT_DIGEST_MAX];
			struct att_md *md;

			rc = att_md_new(e->tdigest_alg, &md);
			if (!rc)
				rc = att_md_digest(md, e->hash_input,
						   e->hash_input_len, t);
			att_md_free(md);
			if (rc)
				return rc;
			*tdigest_ok = !CRYPTO_memcmp(t, e->tdigest, tlen);
		}
	}
	if (want_pad && !e->violation) {
		if (rp->sha1_slot >= 0) {
			memcpy(sha1, rp->thash[rp->sha1_slot], 20);
		} else if (!have_sha1) {
			rc = att_md_digest(rp->sha1, e->hash_input,
					   e->hash_input_len, sha1);
			if (rc)
				return rc;
		}
		memset(sha1 + 20, 0, sizeof(sha1) - 20);
	} else if (want_pad) {
		/* Pre-5.8 kernels padded the SHA-1 violation digest too. */
		memset(sha1, 0, sizeof(sha1));
		memset(sha1, 0xff, 20);
	}
	for (i = 0; i < st->nbanks; i++) {
		if (want_ng) {
			rc = extend(rp->md[i], st->val[0][i][e->pcr],
				    rp->thash[i]);
			if (rc)
				return rc;
		}
		if (want_pad) {
			if (want_ng && st->banks[i] == ATT_HASH_SHA1) {
				memcpy(st->val[1][i][e->pcr],
				       st->val[0][i][e->pcr], 20);
				continue;
			}
			rc = extend(rp->md[i], st->val[1][i][e->pcr], sha1);
			if (rc)
				return rc;
		}
	}
	st->pcr_mask |= 1u << e->pcr;
	st->next_index = e->index + 1;
	st->next_offset = e->next_offset;
	return ATT_OK;
}

static int bank_slot(const struct att_replay_state *st, enum att_hash bank)
{
	unsigned int i;

	for (i = 0; i < st->nbanks; i++)
		if (st->banks[i] == bank)
			return (int)i;
	return -1;
}

const uint8_t *att_replay_last_thash(const struct att_replay *rp,
				     enum att_hash bank)
{
	int s = bank_slot(&rp->st, bank);

	return s < 0 ? NULL : rp->thash[s];
}

const uint8_t *att_replay_pcr_rule(const struct att_replay *rp,
				   enum att_replay_rule rule,
				   enum att_hash bank, unsigned int pcr)
{
	int s = bank_slot(&rp->st, bank);

	if (s < 0 || pcr >= ATT_PCR_COUNT)
		return NULL;
	return rp->st.val[rule == ATT_RULE_SHA1_PADDED][s][pcr];
}

const uint8_t *att_replay_pcr(const struct att_replay *rp, enum att_hash bank,
			      unsigned int pcr)
{
	return att_replay_pcr_rule(rp, rp->st.rule, bank, pcr);
}

static int match_rule(const struct att_replay *rp, int r,
		      const struct att_pcrs *q, uint32_t mask, int *compared)
{
	const struct att_replay_state *st = &rp->st;
	unsigned int i, p;

	for (i = 0; i < st->nbanks; i++) {
		enum att_hash b = st->banks[i];
		size_t n = att_hash_size(b);

		if ((q->mask[b] & mask) != mask)
			continue;
		for (p = 0; p < ATT_PCR_COUNT; p++) {
			if (!(mask & (1u << p)))
				continue;
			/* PCR values are public: plain memcmp is fine. */
			if (memcmp(st->val[r][i][p], q->val[b][p], n))
				return 0;
		}
		(*compared)++;
	}
	return 1;
}

int att_replay_match(struct att_replay *rp, const struct att_pcrs *quoted,
		     uint32_t pcr_mask)
{
	struct att_replay_state *st = &rp->st;
	int compared = 0;

	if (!pcr_mask)
		return 0;
	if (st->rule != ATT_RULE_SHA1_PADDED &&
	    match_rule(rp, 0, quoted, pcr_mask, &compared) && compared) {
		if (st->rule == ATT_RULE_UNKNOWN && st->next_index)
			st->rule = ATT_RULE_NG;
		return 1;
	}
	compared = 0;
	if (st->rule != ATT_RULE_NG &&
	    match_rule(rp, 1, quoted, pcr_mask, &compared) && compared) {
		if (st->rule == ATT_RULE_UNKNOWN && st->next_index)
			st->rule = ATT_RULE_SHA1_PADDED;
		return 1;
	}
	return 0;
}

const struct att_replay_state *att_replay_state(const struct att_replay *rp)
{
	return &rp->st;
}

struct att_lat_state *att_replay_lattice(struct att_replay *rp)
{
	return &rp->st.lat;
}

int att_replay_restore(struct att_replay *rp, const struct att_replay_state *st)
{
	unsigned int i;

	if (st->nbanks != rp->st.nbanks || st->rule > ATT_RULE_SHA1_PADDED)
		return ATT_E_INVAL;
	for (i = 0; i < st->nbanks; i++)
		if (st->banks[i] != rp->st.banks[i])
			return ATT_E_INVAL;
	rp->st = *st;
	return ATT_OK;
}

/*
 * Encoding: "ATRS" u8 version(1) u8 rule u8 nbanks u8 0 be64 next_index
 * be64 next_offset be32 pcr_mask, then per bank: be16 tpm alg id, then for
 * each rule tracked (both when unknown, else the decided one) and each PCR
 * in pcr_mask, the value. Only values that can be non-zero are stored.
 * Version 2 appends the lattice state (att_lat_state_encode); version 3
 * then the list's identity: be16 tpm alg id (0: entry 0 not replayed
 * yet), then that many digest bytes.
 */
static const uint8_t state_magic[4] = {'A', 'T', 'R', 'S'};
#define STATE_VERSION 3

static int rules_stored(enum att_replay_rule r, int *first, int *count)
{
	*first = r == ATT_RULE_SHA1_PADDED;
	*count = r == ATT_RULE_UNKNOWN ? 2 : 1;
	return ATT_OK;
}

int att_replay_state_encode(const struct att_replay_state *st, uint8_t **out,
			    size_t *outlen)
{
	struct att_buf b;
	unsigned int i, p;
	int first, count, r, rc = ATT_OK;

	att_buf_init(&b, 0);
	rules_stored(st->rule, &first, &count);
	rc |= att_buf_append(&b, state_magic, 4);
	rc |= att_buf_append_u8(&b, STATE_VERSION);
	rc |= att_buf_append_u8(&b, (uint8_t)st->rule);
	rc |= att_buf_append_u8(&b, (uint8_t)st->nbanks);
	rc |= att_buf_append_u8(&b, 0);
	rc |= att_buf_append_u32be(&b, (uint32_t)(st->next_index >> 32));
	rc |= att_buf_append_u32be(&b, (uint32_t)st->next_index);
	rc |= att_buf_append_u32be(&b, (uint32_t)(st->next_offset >> 32));
	rc |= att_buf_append_u32be(&b, (uint32_t)st->next_offset);
	rc |= att_buf_append_u32be(&b, st->pcr_mask);
	for (i = 0; i < st->nbanks; i++) {
		const struct att_hash_info *hi = att_hash_info(st->banks[i]);

		rc |= att_buf_append_u16be(&b, hi ? hi->tpm_alg : 0);
	}
	for (r = first; r < first + count; r++)
		for (i = 0; i < st->nbanks; i++)
			for (p = 0; p < ATT_PCR_COUNT; p++)
				if (st->pcr_mask & (1u << p))
					rc |= att_buf_append(
						&b, st->val[r][i][p],
						att_hash_size(st->banks[i]));
	if (!rc)
		rc = att_lat_state_encode(&st->lat, &b);
	if (!rc) {
		const struct att_hash_info *fi = att_hash_info(st->first_alg);

		rc |= att_buf_append_u16be(&b, fi ? fi->tpm_alg : 0);
		if (fi)
			rc |= att_buf_append(&b, st->first_digest,
					     att_hash_size(st->first_alg));
	}
	if (rc) {
		att_buf_release(&b);
		return ATT_E_NOMEM;
	}
	*out = b.data;
	*outlen = b.len;
	return ATT_OK;
}

int att_replay_state_decode(const uint8_t *p, size_t len,
			    struct att_replay_state *st)
{
	const uint8_t *magic;
	uint8_t ver, rule, nbanks, pad;
	uint32_t hi, lo;
	struct att_rd r;
	unsigned int i, pcr;
	int first, count, k, rc;

	memset(st, 0, sizeof(*st));
	att_rd_init(&r, p, len);
	if ((rc = att_rd_bytes(&r, 4, &magic)) || (rc = att_rd_u8(&r, &ver)) ||
	    (rc = att_rd_u8(&r, &rule)) || (rc = att_rd_u8(&r, &nbanks)) ||
	    (rc = att_rd_u8(&r, &pad)))
		return ATT_E_FORMAT;
	if (!memcmp(magic, state_magic, 4) && ver == 1)
		return ATT_E_UNSUPPORTED; /* no lattice state: replay again */
	if (memcmp(magic, state_magic, 4) || ver < 2 || ver > STATE_VERSION ||
	    rule > ATT_RULE_SHA1_PADDED || !nbanks ||
	    nbanks > ATT_REPLAY_MAX_BANKS || pad)
		return ATT_E_FORMAT;
	st->rule = rule;
	st->nbanks = nbanks;
	if (att_rd_u32be(&r, &hi) || att_rd_u32be(&r, &lo))
		return ATT_E_FORMAT;
	st->next_index = ((uint64_t)hi << 32) | lo;
	if (att_rd_u32be(&r, &hi) || att_rd_u32be(&r, &lo))
		return ATT_E_FORMAT;
	st->next_offset = ((uint64_t)hi << 32) | lo;
	if (att_rd_u32be(&r, &st->pcr_mask) || st->pcr_mask >> ATT_PCR_COUNT)
		return ATT_E_FORMAT;
	for (i = 0; i < nbanks; i++) {
		uint16_t alg;

		if (att_rd_u16be(&r, &alg))
			return ATT_E_FORMAT;
		st->banks[i] = att_hash_by_tpm_alg(alg);
		if (st->banks[i] == ATT_HASH_NONE)
			return ATT_E_FORMAT;
	}
	rules_stored(st->rule, &first, &count);
	for (k = first; k < first + count; k++)
		for (i = 0; i < nbanks; i++)
			for (pcr = 0; pcr < ATT_PCR_COUNT; pcr++)
				if ((st->pcr_mask & (1u << pcr)) &&
				    att_rd_copy(&r, st->val[k][i][pcr],
						att_hash_size(st->banks[i])))
					return ATT_E_FORMAT;
	if (att_lat_state_decode(&r, &st->lat))
		return ATT_E_FORMAT;
	st->first_alg = ATT_HASH_NONE;
	if (ver >= 3) {
		uint16_t alg;

		if (att_rd_u16be(&r, &alg))
			return ATT_E_FORMAT;
		if (alg) {
			st->first_alg = att_hash_by_tpm_alg(alg);
			if (st->first_alg == ATT_HASH_NONE ||
			    att_rd_copy(&r, st->first_digest,
					att_hash_size(st->first_alg)))
				return ATT_E_FORMAT;
		}
	}
	return att_rd_end(&r) ? ATT_E_FORMAT : ATT_OK;
}

int att_boot_aggregate(const struct att_pcrs *pcrs, enum att_hash bank,
		       int with_8_9, uint8_t *out)
{
	static const uint8_t zero[ATT_DIGEST_MAX];
	size_t n = att_hash_size(bank);
	struct att_md *md;
	unsigned int i, last = with_8_9 ? 9 : 7;
	int rc;

	if (!n)
		return ATT_E_UNSUPPORTED;
	rc = att_md_new(bank, &md);
	if (rc)
		return rc;
	rc = att_md_init(md);
	for (i = 0; !rc && i <= last; i++) {
		const uint8_t *v = att_pcrs_get(pcrs, bank, i);

		rc = att_md_update(md, v ? v : zero, n);
	}
	if (!rc)
		rc = att_md_final(md, out);
	att_md_free(md);
	return rc;
}
