/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.h - judging a whole measurement list: read, replay, judge.
 *
 * One pass over a streamed list: every entry's template hash is checked
 * and replayed, its content judged by the whitelist, and (when quoted PCR
 * values are given) the replay is compared with them after every entry.
 * The list is trusted only when the replay reaches the quoted values at
 * some prefix and no entry of that prefix failed. Entries after the
 * matched prefix are counted as unverified, never as verified.
 *
 * slim.ko's records are judged whatever the whitelist: a slim_gap record
 * (the module was reloaded in this boot) is a failure, and so is a
 * slim_event record that does not parse or is out of sequence; the
 * whitelist's lattice section judges the valid ones and the state they
 * fold into (att_lat_step, att_lat_final).
 */
#ifndef ATTEST_CHECK_H
#define ATTEST_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "attest/ima.h"
#include "attest/pcrs.h"
#include "attest/replay.h"
#include "attest/whitelist.h"

struct att_check_opts {
	const struct att_pcrs *quoted; /* NULL: no replay comparison */
	uint32_t pcr_mask;	       /* PCRs the log may extend; 0: 1<<10 */
	size_t max_failures;	       /* kept in detail; 0: 1000 */
	/*
	 * boot_aggregate needs its bank's PCRs 0-7 in `quoted`: without
	 * them it fails (naming the bank) instead of being judged by the
	 * whitelist like any entry (the verifier sets this).
	 */
	int boot_aggregate_quoted;
	/*
	 * Called with every entry and its judgement (the layer that
	 * accepted it, for a layered whitelist), e.g. to explain a list
	 * entry by entry; NULL: none. A non-zero return ends the check
	 * with status ERROR.
	 */
	int (*on_entry)(const struct att_ima_entry *e,
			const struct att_judgement *j, void *arg);
	void *arg;
};

struct att_check_failure {
	uint64_t index;
	enum att_verdict verdict;
	int layer; /* a layered whitelist's layer knowing the path, or -1 */
	uint32_t pcr;
	char *path; /* NUL-terminated copy, bytes as in the list */
	size_t path_len;
	char detail[ATT_DETAIL_LEN];
};

enum att_check_status {
	ATT_CHECK_TRUSTED = 0,
	ATT_CHECK_UNTRUSTED = 1,
	ATT_CHECK_ERROR = 2,
};

struct att_check_result {
	enum att_check_status status;
	uint64_t entries;  /* entries read */
	uint64_t verified; /* entries in the matched prefix */
	uint64_t counts[ATT_V_COUNT];
	/* entries each layer of a layered whitelist accepted (first one) */
	uint64_t layer_counts[ATT_WL_LAYERS_MAX];
	uint64_t failures_total;	    /* failing entries in the prefix */
	uint64_t failures_unverified;	    /* failing entries after it */
	struct att_check_failure *failures; /* first max_failures */
	size_t nfailures;
	int replay_compared; /* quoted values were given */
	int replay_matched;  /* some prefix matched them */
	enum att_replay_rule rule;
	/*
	 * slim.ko's lattice (docs/lattice-events.md) at the end of the
	 * matched prefix (of the whole list without quoted values; the
	 * replay's starting state when nothing matched), and the lattice
	 * policy's verdict on it: empty when accepted.
	 */
	struct att_lat_state lattice;
	char lattice_refusal[200];
	int error; /* ATT_E_* when status is ERROR */
	char errmsg[300];
};

void att_check_result_init(struct att_check_result *res);
void att_check_result_release(struct att_check_result *res);

/*
 * Runs the check from the reader's current position, continuing the
 * replay `rp` (reset it for a whole list). wl NULL: template hashes and
 * the replay only (entries are "unchecked"). An input error ends the check
 * with status ERROR (never TRUSTED) and the reader's message.
 */
int att_check_list(struct att_ima_reader *r, const struct att_wl *wl,
		   struct att_replay *rp, const struct att_check_opts *o,
		   struct att_check_result *res);

#endif
