// SPDX-License-Identifier: Apache-2.0
/*
 * api_fleet.c - GET /v1/fleet (admin): counts by state and one row per
 * agent (id, state, last attestation, failure reasons, whitelist and
 * version, boot count, slim.ko's lattice as its last result showed it). "stale"
 * is decided here, at read time, from the shared database: an attested agent
 * whose last attestation is older than two intervals, whichever replica it last
 * talked to.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "attest/err.h"
#include "attest/json.h"
#include "service.h"
#include "verdict.h"

enum att_agent_state ver_effective_state(const struct ver_ctx *c,
					 const struct att_agent_rec *a,
					 int64_t now)
{
	if ((a->state == ATT_AGENT_TRUSTED ||
	     a->state == ATT_AGENT_UNTRUSTED) &&
	    a->last_attest > 0 &&
	    now - a->last_attest > 2 * (int64_t)c->cfg->interval)
		return ATT_AGENT_STALE;
	return a->state;
}

struct fleet {
	struct ver_ctx *ctx;
	struct json_object *rows;
	unsigned long counts[ATT_AGENT_STATE_COUNT];
	int64_t now;
};

/* res: the last result, parsed (or NULL) */
static struct json_object *reasons(const struct att_agent_rec *a,
				   enum att_agent_state state,
				   struct json_object *res)
{
	struct json_object *arr = json_object_new_array(), *r;
	struct ver_verdict v;
	size_t i, n;

	if (state == ATT_AGENT_STALE) {
		ver_verdict_init(&v, state);
		ver_verdict_stale(&v, a->last_attest);
		ver_verdict_reasons_json(&v, arr);
		ver_verdict_release(&v);
	}
	if (a->state != ATT_AGENT_UNTRUSTED || !res)
		return arr;
	if (json_object_object_get_ex(res, "reasons", &r) &&
	    json_object_is_type(r, json_type_array)) {
		n = json_object_array_length(r);
		for (i = 0; i < n; i++)
			json_object_array_add(
				arr, json_object_get(
					     json_object_array_get_idx(r, i)));
	}
	return arr;
}

/* slim.ko's lattice as the last result showed it, or null */
static struct json_object *lattice(struct json_object *res)
{
	struct json_object *l;

	if (res && json_object_object_get_ex(res, "lattice", &l) &&
	    json_object_is_type(l, json_type_object))
		return json_object_get(l);
	return NULL;
}

static int add_row(const struct att_agent_rec *a, void *arg)
{
	struct fleet *f = arg;
	enum att_agent_state state = ver_effective_state(f->ctx, a, f->now);
	struct json_object *o = json_object_new_object(), *w = NULL,
			   *res = NULL;
	char err[64];
	if (!o)
		return ATT_E_NOMEM;
	if (a->last_result &&
	    att_json_parse(a->last_result, strlen(a->last_result), 32, &res,
			   err, sizeof(err)))
		res = NULL;
	f->counts[state]++;
	if (a->wl_name[0]) {
		w = json_object_new_object();
		json_object_object_add(w, "name",
				       json_object_new_string(a->wl_name));
		json_object_object_add(w, "version",
				       json_object_new_int64(a->wl_version));
	}
	json_object_object_add(o, "id", json_object_new_string(a->id));
	json_object_object_add(
		o, "state",
		json_object_new_string(att_agent_state_name(state)));
	json_object_object_add(
		o, "last_attestation",
		a->last_attest ? json_object_new_int64(a->last_attest) : NULL);
	json_object_object_add(o, "failure_reasons", reasons(a, state, res));
	json_object_object_add(o, "lattice", lattice(res));
	json_object_object_add(o, "whitelist", w);
	json_object_object_add(o, "boot_count",
			       json_object_new_int64(a->boot_count));
	json_object_array_add(f->rows, o);
	json_object_put(res);
	return 0;
}

int ver_api_fleet(struct ver_req *rq, struct ver_resp *rs)
{
	struct json_object *o, *counts;
	struct fleet f;
	size_t i;
	int rc;

	memset(&f, 0, sizeof(f));
	f.ctx = rq->ctx;
	f.now = (int64_t)time(NULL);
	o = json_object_new_object();
	f.rows = json_object_new_array();
	counts = json_object_new_object();
	json_object_object_add(o, "generated_at", json_object_new_int64(f.now));
	json_object_object_add(o, "counts", counts);
	json_object_object_add(o, "agents", f.rows);
	if (!o || !f.rows || !counts) {
		json_object_put(o);
		return ver_error(rs, 500, "internal", "out of memory");
	}
	rc = att_store_agent_list(rq->ctx->store, add_row, &f);
	if (rc) {
		json_object_put(o);
		return ver_store_error(rs, rc, "agents");
	}
	for (i = ATT_AGENT_NONE + 1; i < ATT_AGENT_STATE_COUNT; i++)
		json_object_object_add(
			counts, att_agent_state_name((enum att_agent_state)i),
			json_object_new_int64((int64_t)f.counts[i]));
	json_object_object_add(
		counts, "total",
		json_object_new_int64(
			(int64_t)json_object_array_length(f.rows)));
	ver_json_reply(rs, 200, o);
	json_object_put(o);
	return 0;
}
