/* SPDX-License-Identifier: Apache-2.0 */
/*
 * metrics.h - counters for /metrics (Prometheus text format 0.0.4).
 */
#ifndef ATTEST_VERIFIER_METRICS_H
#define ATTEST_VERIFIER_METRICS_H

#include "attest/buf.h"

struct ver_verdict;

struct ver_metrics;

enum ver_result {
	VER_RESULT_TRUSTED = 0,
	VER_RESULT_UNTRUSTED = 1,
	VER_RESULT_ERROR = 2,
	VER_RESULT_COUNT
};

/* How a nonce was issued: asked for, or with the previous verdict. */
enum ver_challenge_via {
	VER_CHALLENGE_REQUEST = 0,
	VER_CHALLENGE_VERDICT = 1,
	VER_CHALLENGE_COUNT
};

int ver_metrics_new(struct ver_metrics **out);
void ver_metrics_free(struct ver_metrics *m);
void ver_metrics_request(struct ver_metrics *m, unsigned int status);
void ver_metrics_challenge(struct ver_metrics *m, enum ver_challenge_via via);
void ver_metrics_attestation(struct ver_metrics *m, enum ver_result r,
			     double seconds);
/*
 * An untrusted verdict's reasons: each class present counts once
 * (classes: the failing entries' verdicts by name, then the reason kinds
 * quote .. other of verdict.h; "... N failing entries in all" counts in
 * none). A fixed set of labels, never text from the agent.
 */
void ver_metrics_verdict(struct ver_metrics *m, const struct ver_verdict *v);
/* Appends the counters (agents by state come from the caller). */
int ver_metrics_format(struct ver_metrics *m, struct att_buf *out);

#endif
