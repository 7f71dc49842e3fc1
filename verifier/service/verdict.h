/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verdict.h - what one attestation decided, typed: the agent's new state
 * and the reasons, each with its kind. The result document, the history
 * row, the metrics and the webhook event are all made from it; nothing
 * reads a reason's text to learn what it is about.
 *
 * To add a kind of reason: a value here (before VER_REASON_OTHER when
 * /metrics should count it as a class of its own), its name in
 * verdict.c's table, and the place in attest.c that finds it.
 */
#ifndef ATTEST_VERIFIER_VERDICT_H
#define ATTEST_VERIFIER_VERDICT_H

#include <stddef.h>

#include "attest/whitelist.h"
#include "store.h"

struct json_object;

/*
 * What a reason is about. QUOTE .. OTHER are the classes of
 * attest_untrusted_reasons_total, in its order (after the entries' own
 * verdicts); MORE and STALE are counted in no class.
 */
enum ver_reason_kind {
	VER_REASON_ENTRY = 0,	 /* a failing log entry: .entry says how */
	VER_REASON_QUOTE,	 /* the quote, or its clock, is refused */
	VER_REASON_CLONE,	 /* a cloned TPM is suspected (sticky) */
	VER_REASON_BOOT,	 /* the whitelist's boot policy */
	VER_REASON_UEFI,	 /* the UEFI event log */
	VER_REASON_LATTICE,	 /* slim.ko's lattice */
	VER_REASON_STATIC_PCR,	 /* a configured static PCR value */
	VER_REASON_LOG,		 /* a log: not sent, unreadable, no replay */
	VER_REASON_NO_WHITELIST, /* no whitelist assigned */
	VER_REASON_OTHER,	 /* none of the above */
	VER_REASON_MORE,	 /* "... N failing entries in all" */
	VER_REASON_STALE,	 /* no attestation for two intervals */
	VER_REASON_KIND_COUNT
};

/* The metrics class of a kind ("quote", "cloned-tpm", ...); NULL for
 * ENTRY (its verdict names it), MORE and STALE. */
const char *ver_reason_kind_name(enum ver_reason_kind k);

struct ver_reason {
	enum ver_reason_kind kind;
	enum att_verdict entry; /* VER_REASON_ENTRY: the entry's verdict */
	char *text;		/* for people: UTF-8, at most 399 bytes */
};

struct ver_verdict {
	enum att_agent_state state;
	struct ver_reason *reasons; /* each text once, in the order found */
	size_t nreasons, cap;
	int new_boot; /* the quote starts a new boot (or is the first) */
	/* a reason was given (set even if its copy failed for memory) */
	int refused;
	/*
	 * The result document (ver_attest_run: the state, the reasons and
	 * what each check found), owned; NULL when there is none.
	 */
	struct json_object *doc;
};

void ver_verdict_init(struct ver_verdict *v, enum att_agent_state state);
void ver_verdict_release(struct ver_verdict *v);
/*
 * Adds a reason (printf-style; cut at 399 bytes and made valid UTF-8)
 * unless one with the same text is there already (a file in two logs is
 * one reason). entry: the verdict for VER_REASON_ENTRY, else ignored.
 */
void ver_verdict_add(struct ver_verdict *v, enum ver_reason_kind kind,
		     enum att_verdict entry, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Appends the reasons' texts to the JSON array arr. */
int ver_verdict_reasons_json(const struct ver_verdict *v,
			     struct json_object *arr);
/*
 * {"state": ..., "reasons": [...]}: the whole result of a verdict that
 * has nothing else to show (the sweep's stale); NULL without memory.
 */
struct json_object *ver_verdict_json(const struct ver_verdict *v);

/* The reason the sweep and the fleet view give for a stale agent. */
void ver_verdict_stale(struct ver_verdict *v, int64_t last_attest);

#endif
