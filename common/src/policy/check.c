// SPDX-License-Identifier: Apache-2.0
/*
 * check.c - one pass over a list: parse, replay, judge, match.
 */
#include "attest/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "attest/codec.h"
#include "attest/err.h"

void att_check_result_init(struct att_check_result *res)
{
	memset(res, 0, sizeof(*res));
}

void att_check_result_release(struct att_check_result *res)
{
	size_t i;

	for (i = 0; i < res->nfailures; i++)
		free(res->failures[i].path);
	free(res->failures);
	res->failures = NULL;
	res->nfailures = 0;
}

static int add_failure(struct att_check_result *res, size_t max,
		       const struct att_ima_entry *e,
		       const struct att_judgement *j)
{
	struct att_check_failure *f;

	res->failures_total++;
	if (res->nfailures >= max)
		return ATT_OK;
	if (!res->nfailures || !(res->nfailures & (res->nfailures - 1))) {
		size_t ncap = res->nfailures ? res->nfailures * 2 : 16;
		struct att_check_failure *nf;

		nf = realloc(res->failures, ncap * sizeof(*nf));
		if (!nf)
			return ATT_E_NOMEM;
		res->failures = nf;
	}
	f = &res->failures[res->nfailures];
	memset(f, 0, sizeof(*f));
	f->index = e->index;
	f->verdict = j->verdict;
	f->layer = j->layer;
	f->pcr = e->pcr;
	f->path_len = e->path ? e->path_len : 0;
	f->path = malloc(f->path_len + 1);
	if (!f->path)
		return ATT_E_NOMEM;
	if (f->path_len)
		memcpy(f->path, e->path, f->path_len);
	f->path[f->path_len] = '\0';
	memcpy(f->detail, j->detail, sizeof(f->detail));
	if (!f->detail[0] && e->file_digest && !e->violation &&
	    e->file_digest_len <= ATT_DIGEST_MAX) {
		char hex[2 * ATT_DIGEST_MAX + 1];

		att_hex_encode(e->file_digest, e->file_digest_len, hex);
		snprintf(f->detail, sizeof(f->detail), "%s:%s",
			 att_hash_name(e->file_alg), hex);
	}
	res->nfailures++;
	return ATT_OK;
}

/*
 * boot_aggregate is checked against the quoted PCRs 0-9 when they are
 * there; otherwise the whitelist judges it like any entry.
 */
static int judge_boot_aggregate(const struct att_ima_entry *e,
				const struct att_pcrs *q, int strict,
				struct att_judgement *j)
{
	enum att_hash bank = e->file_alg;
	uint8_t a[ATT_DIGEST_MAX], b[ATT_DIGEST_MAX];
	int rc;

	if (!q)
		return 0;
	if (bank == ATT_HASH_NONE || (q->mask[bank] & 0xff) != 0xff) {
		if (!strict)
			return 0;
		/* It needs values the quote does not cover. */
		j->verdict = ATT_V_BOOT_AGGREGATE_BAD;
		j->layer = -1;
		j->index = e->index;
		j->path = e->path;
		j->path_len = e->path_len;
		snprintf(j->detail, sizeof(j->detail),
			 "its PCRs 0-7 (%s) were not quoted",
			 bank == ATT_HASH_NONE ? "unknown bank"
					       : att_hash_name(bank));
		return 1;
	}
	j->layer = -1;
	j->index = e->index;
	j->path = e->path;
	j->path_len = e->path_len;
	j->detail[0] = '\0';
	rc = att_boot_aggregate(q, bank, 0, a);
	if (!rc && bank != ATT_HASH_SHA1)
		rc = att_boot_aggregate(q, bank, 1, b);
	if (rc)
		return rc;
	if (!CRYPTO_memcmp(a, e->file_digest, e->file_digest_len) ||
	    (bank != ATT_HASH_SHA1 &&
	     !CRYPTO_memcmp(b, e->file_digest, e->file_digest_len)))
		j->verdict = ATT_V_BOOT_AGGREGATE_OK;
	else
		j->verdict = ATT_V_BOOT_AGGREGATE_BAD;
	return 1;
}

/* the first entry, or the second after a slim_gap record */
static int is_boot_aggregate(const struct att_ima_entry *e, int gap)
{
	return (e->index == 0 || (gap && e->index == 1)) && e->path_len == 14 &&
	       e->file_digest && !memcmp(e->path, "boot_aggregate", 14);
}

static void judgement(struct att_judgement *j, const struct att_ima_entry *e,
		      enum att_verdict v, const char *detail)
{
	j->verdict = v;
	j->layer = -1;
	j->index = e->index;
	j->path = e->path;
	j->path_len = e->path_len;
	snprintf(j->detail, sizeof(j->detail), "%s", detail);
}

/* slim.ko's records: 1 when e is one (j set), 0 when not, or ATT_E_* */
static int judge_slim(const struct att_ima_entry *e, const struct att_wl *wl,
		      struct att_replay *rp, struct att_judgement *j)
{
	struct att_slim_gap g;
	char why[sizeof(j->detail)];
	int rc;

	if (att_is_slim_gap(e)) {
		if (att_slim_gap_parse(e, &g, why, sizeof(why)))
			judgement(j, e, ATT_V_LATTICE_MALFORMED, why);
		else
			judgement(j, e, ATT_V_GAP,
				  "module reloaded in this boot (slim_gap): "
				  "what ran before it is unknown until the "
				  "next boot");
		return 1;
	}
	if (!att_is_slim_event(e))
		return 0;
	rc = att_lat_step(att_replay_lattice(rp),
			  wl ? att_wl_lattice(wl) : NULL, e, why, sizeof(why));
	if (rc < 0)
		return rc;
	judgement(j, e,
		  rc == ATT_LAT_OK	  ? ATT_V_LATTICE_OK
		  : rc == ATT_LAT_REFUSED ? ATT_V_LATTICE_POLICY
					  : ATT_V_LATTICE_MALFORMED,
		  why);
	return 1;
}

static void set_error(struct att_check_result *res, int rc, const char *msg)
{
	res->status = ATT_CHECK_ERROR;
	res->error = rc;
	snprintf(res->errmsg, sizeof(res->errmsg), "%s", msg);
}

int att_check_list(struct att_ima_reader *r, const struct att_wl *wl,
		   struct att_replay *rp, const struct att_check_opts *o,
		   struct att_check_result *res)
{
	uint32_t mask = o->pcr_mask ? o->pcr_mask : 1u << 10;
	size_t maxf = o->max_failures ? o->max_failures : 1000;
	uint64_t matched_at = 0; /* entries in the matched prefix */
	uint64_t fails_at_match = 0, first = att_replay_state(rp)->next_index;
	struct att_ima_entry e;
	struct att_judgement j;
	int rc, ok, matched = 0;

	res->replay_compared = o->quoted != NULL;
	res->lattice = att_replay_state(rp)->lat;
	/* The empty prefix matches when the quote shows untouched PCRs. */
	if (o->quoted && att_replay_match(rp, o->quoted, mask)) {
		matched = 1;
		matched_at = att_replay_state(rp)->next_index;
	}
	for (;;) {
		rc = att_ima_reader_next(r, &e);
		if (rc == ATT_E_EOF)
			break;
		if (rc) {
			set_error(res, rc, att_ima_reader_error(r));
			return rc;
		}
		res->entries++;
		if (!(mask & (1u << e.pcr))) {
			j = (struct att_judgement){.verdict = ATT_V_WRONG_PCR,
						   .layer = -1};
			snprintf(j.detail, sizeof(j.detail), "PCR %u", e.pcr);
		} else {
			rc = att_replay_extend(rp, &e, &ok);
			if (rc) {
				set_error(res, rc, "replay failed");
				return rc;
			}
			if (!ok) {
				j = (struct att_judgement){
					.verdict = ATT_V_BAD_TEMPLATE_HASH,
					.layer = -1};
			} else {
				rc = judge_slim(&e, wl, rp, &j);
				if (!rc &&
				    is_boot_aggregate(
					    &e, att_replay_lattice(rp)->gap))
					rc = judge_boot_aggregate(
						&e, o->quoted,
						o->boot_aggregate_quoted, &j);
				if (rc < 0) {
					set_error(res, rc, "boot_aggregate");
					return rc;
				}
				if (!rc && wl) {
					att_wl_judge(wl, &e, &j);
				} else if (!rc) {
					j = (struct att_judgement){
						.verdict = ATT_V_UNCHECKED,
						.layer = -1};
				}
			}
		}
		res->counts[j.verdict]++;
		if (att_verdict_ok(j.verdict) && j.layer >= 0 &&
		    j.layer < ATT_WL_LAYERS_MAX)
			res->layer_counts[j.layer]++;
		if (o->on_entry) {
			j.index = e.index;
			j.path = e.path;
			j.path_len = e.path_len;
			rc = o->on_entry(&e, &j, o->arg);
			if (rc) {
				set_error(res, rc, "entry callback failed");
				return rc;
			}
		}
		if (!att_verdict_ok(j.verdict)) {
			rc = add_failure(res, maxf, &e, &j);
			if (rc) {
				set_error(res, rc, "out of memory");
				return rc;
			}
		}
		if (o->quoted && att_replay_match(rp, o->quoted, mask)) {
			matched = 1;
			matched_at = att_replay_state(rp)->next_index;
			fails_at_match = res->failures_total;
			res->lattice = att_replay_state(rp)->lat;
		}
	}
	if (!o->quoted)
		res->lattice = att_replay_state(rp)->lat;
	/* the state the TPM vouches for: the required mode, the EVM key */
	if ((matched || !o->quoted) && wl)
		att_lat_final(&res->lattice, att_wl_lattice(wl),
			      res->lattice_refusal,
			      sizeof(res->lattice_refusal));
	res->rule = att_replay_state(rp)->rule;
	res->replay_matched = matched;
	if (o->quoted && matched) {
		size_t i, k = 0;

		res->verified = matched_at - first;
		/* Failures past the matched prefix are unverified. */
		res->failures_unverified = res->failures_total - fails_at_match;
		res->failures_total = fails_at_match;
		for (i = 0; i < res->nfailures; i++) {
			if (res->failures[i].index < matched_at)
				res->failures[k++] = res->failures[i];
			else
				free(res->failures[i].path);
		}
		res->nfailures = k;
	} else if (!o->quoted) {
		res->verified = res->entries;
	}
	if ((o->quoted && !matched) || res->lattice_refusal[0])
		res->status = ATT_CHECK_UNTRUSTED;
	else
		res->status = res->failures_total ? ATT_CHECK_UNTRUSTED
						  : ATT_CHECK_TRUSTED;
	return ATT_OK;
}
