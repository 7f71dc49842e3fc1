// SPDX-License-Identifier: Apache-2.0
/*
 * sweep.c - agents that stopped attesting become "stale" (see sweep.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "attest/err.h"
#include "attest/log.h"
#include "config.h"
#include "service.h"
#include "store.h"
#include "sweep.h"
#include "verdict.h"
#include "webhook.h"

#define SWEEP_MAX_PASS 100000 /* agents marked in one pass, at most */

struct ver_sweep {
	struct ver_ctx *ctx;
	unsigned int period;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
};

struct ids {
	char (*id)[ATT_STORE_ID_MAX + 1];
	size_t n, cap;
	struct ver_ctx *ctx;
	int64_t now;
};

static int collect(const struct att_agent_rec *a, void *arg)
{
	struct ids *l = arg;
	void *p;

	if (ver_effective_state(l->ctx, a, l->now) != ATT_AGENT_STALE ||
	    a->state == ATT_AGENT_STALE)
		return 0;
	if (l->n == SWEEP_MAX_PASS)
		return 0; /* the rest next pass */
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		p = realloc(l->id, l->cap * sizeof(*l->id));
		if (!p)
			return ATT_E_NOMEM;
		l->id = p;
	}
	snprintf(l->id[l->n++], sizeof(*l->id), "%s", a->id);
	return 0;
}

/* Stores one agent as stale if it still is; 1 when this replica did. */
static int mark(struct ver_ctx *ctx, const char *id, int64_t now)
{
	struct att_agent_rec a;
	struct ver_verdict v;
	struct json_object *res;
	enum att_agent_state from;
	int rc, hrc, done = 0;

	rc = att_store_agent_get(ctx->store, id, &a);
	if (rc)
		return 0; /* deleted meanwhile, or the database is away */
	if (ver_effective_state(ctx, &a, now) != ATT_AGENT_STALE ||
	    a.state == ATT_AGENT_STALE)
		goto out; /* it attested meanwhile */
	from = a.state;
	a.state = ATT_AGENT_STALE;
	rc = att_store_agent_update(ctx->store, &a);
	if (rc) {
		/* ATT_E_STATE: an attestation or another replica wrote. */
		if (rc != ATT_E_STATE)
			att_warn("sweep: %s: %s", id, att_strerror(rc));
		goto out;
	}
	done = 1;
	att_info("sweep: %s: %s -> stale (no attestation since %lld)", id,
		 att_agent_state_name(from), (long long)a.last_attest);
	ver_verdict_init(&v, ATT_AGENT_STALE);
	ver_verdict_stale(&v, a.last_attest);
	res = ver_verdict_json(&v);
	hrc = res ? att_store_history_add(ctx->store, id, now,
					  att_agent_state_name(ATT_AGENT_STALE),
					  json_object_to_json_string_ext(
						  res, JSON_C_TO_STRING_PLAIN))
		  : ATT_E_NOMEM;
	if (hrc)
		att_warn("sweep: %s: history not written: %s", id,
			 att_strerror(hrc));
	ver_webhook_state_change(ctx->webhook, id, from, now, &v);
	json_object_put(res);
	ver_verdict_release(&v);
out:
	att_agent_rec_release(&a);
	return done;
}

int ver_sweep_once(struct ver_ctx *ctx, int64_t now, unsigned int *marked)
{
	struct ids l;
	size_t i;
	int rc;

	*marked = 0;
	memset(&l, 0, sizeof(l));
	l.ctx = ctx;
	l.now = now;
	rc = att_store_agent_list_brief(ctx->store, collect, &l);
	for (i = 0; !rc && i < l.n; i++)
		*marked += (unsigned int)mark(ctx, l.id[i], now);
	free(l.id);
	return rc;
}

static void *run(void *arg)
{
	struct ver_sweep *s = arg;
	struct timespec until;
	unsigned int marked;
	int rc;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += s->period;
		while (!s->stop && pthread_cond_timedwait(&s->cond, &s->lock,
							  &until) != ETIMEDOUT)
			;
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->lock);
		rc = ver_sweep_once(s->ctx, (int64_t)time(NULL), &marked);
		if (rc)
			att_warn("sweep: %s", att_strerror(rc));
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int ver_sweep_start(struct ver_ctx *ctx, unsigned int period,
		    struct ver_sweep **out)
{
	struct ver_sweep *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return ATT_E_NOMEM;
	s->ctx = ctx;
	s->period = period ? period : 1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	if (pthread_create(&s->thread, NULL, run, s)) {
		pthread_cond_destroy(&s->cond);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return ATT_E_INTERNAL;
	}
	*out = s;
	return ATT_OK;
}

void ver_sweep_stop(struct ver_sweep *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
