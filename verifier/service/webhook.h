/* SPDX-License-Identifier: Apache-2.0 */
/*
 * webhook.h - state changes posted as JSON to an HTTPS URL by a worker
 * thread: verification never waits for it. Failed posts are retried with
 * exponential backoff (1 s doubling, at most 6 tries); the queue is
 * bounded (the oldest event is dropped, with a warning, when full).
 */
#ifndef ATTEST_VERIFIER_WEBHOOK_H
#define ATTEST_VERIFIER_WEBHOOK_H

#include <stdint.h>

#include "store.h"

struct ver_webhook;
struct ver_verdict;

/* url must be https://; ca (may be NULL: system store) pins the server. */
int ver_webhook_new(const char *url, const char *ca, struct ver_webhook **out);
/* Stops the worker (an event being retried is given up) and frees. */
void ver_webhook_free(struct ver_webhook *w);
/* Queues a JSON document (copied). NULL w: no webhook configured. */
void ver_webhook_post(struct ver_webhook *w, const char *json);
/*
 * Posts {"event": "state_changed", "agent_id", "from", "to", "at",
 * "reasons"}: agent id went from `from` to v's state at `at`, for v's
 * reasons. NULL w: nothing.
 */
void ver_webhook_state_change(struct ver_webhook *w, const char *id,
			      enum att_agent_state from, int64_t at,
			      const struct ver_verdict *v);

#endif
