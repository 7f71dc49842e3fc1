/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep.h - a thread that finds agents that stopped attesting: an agent
 * trusted or untrusted whose last attestation is more than two intervals
 * old is stored as "stale" (optimistic update: with several replicas one
 * of them writes it), with a history row, and the change is posted to the
 * webhook. Its next attestation moves it out of "stale" the usual way.
 */
#ifndef ATTEST_VERIFIER_SWEEP_H
#define ATTEST_VERIFIER_SWEEP_H

#include <stdint.h>

struct ver_ctx;
struct ver_sweep;

/* Starts the thread: a pass every period seconds. */
int ver_sweep_start(struct ver_ctx *ctx, unsigned int period,
		    struct ver_sweep **out);
/* Stops it (waits for a pass in progress) and frees. NULL is fine. */
void ver_sweep_stop(struct ver_sweep *s);

/* One pass at time now; *marked counts the agents stored as stale. */
int ver_sweep_once(struct ver_ctx *ctx, int64_t now, unsigned int *marked);

#endif
