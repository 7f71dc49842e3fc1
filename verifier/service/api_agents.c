// SPDX-License-Identifier: Apache-2.0
/*
 * api_agents.c - /v1/agents (admin): list, get (state, last result with
 * its failures, history), delete, PUT /v1/agents/ID/whitelist to
 * assign a whitelist (a fixed version, or 0 to follow the newest), and
 * DELETE /v1/agents/ID/clone to clear a suspected cloned TPM (audited:
 * a history row and a log line name the administrator's certificate).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "attest/err.h"
#include "attest/json.h"
#include "attest/log.h"
#include "service.h"

#define VER_HISTORY_MAX	 20
#define VER_UPDATE_TRIES 8

static struct json_object *wl_ref(const struct att_agent_rec *a)
{
	struct json_object *o;

	if (!a->wl_name[0])
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(a->wl_name));
	json_object_object_add(o, "version",
			       json_object_new_int64(a->wl_version));
	return o;
}

static struct json_object *stored_json(const char *s)
{
	struct json_object *o = NULL;
	char err[64];

	if (!s || att_json_parse(s, strlen(s), 32, &o, err, sizeof(err)))
		return NULL;
	return o;
}

static struct json_object *agent_summary(const struct ver_ctx *c,
					 const struct att_agent_rec *a)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "id", json_object_new_string(a->id));
	json_object_object_add(
		o, "state",
		json_object_new_string(att_agent_state_name(
			ver_effective_state(c, a, (int64_t)time(NULL)))));
	json_object_object_add(o, "whitelist", wl_ref(a));
	json_object_object_add(o, "enrolled_at",
			       json_object_new_int64(a->enrolled_at));
	json_object_object_add(
		o, "last_attestation",
		a->last_attest ? json_object_new_int64(a->last_attest) : NULL);
	json_object_object_add(o, "boot_count",
			       json_object_new_int64(a->boot_count));
	return o;
}

struct list_ctx {
	const struct ver_ctx *ctx;
	struct json_object *arr;
};

static int add_agent(const struct att_agent_rec *a, void *arg)
{
	struct list_ctx *l = arg;
	struct json_object *o = agent_summary(l->ctx, a);

	if (!o)
		return ATT_E_NOMEM;
	json_object_array_add(l->arr, o);
	return 0;
}

int ver_api_agent_list(struct ver_req *rq, struct ver_resp *rs)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	struct list_ctx l = {rq->ctx, arr};
	int rc;

	if (!o || !arr) {
		json_object_put(o);
		json_object_put(arr);
		return ver_error(rs, 500, "internal", "out of memory");
	}
	json_object_object_add(o, "agents", arr);
	rc = att_store_agent_list_brief(rq->ctx->store, add_agent, &l);
	if (rc)
		ver_store_error(rs, rc, "agents");
	else
		ver_json_reply(rs, 200, o);
	json_object_put(o);
	return 0;
}

static int add_hist(int64_t at, const char *state, const char *res, void *arg)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return ATT_E_NOMEM;
	json_object_object_add(o, "at", json_object_new_int64(at));
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "result", stored_json(res));
	json_object_array_add(arg, o);
	return 0;
}

static int agent_get(struct ver_req *rq, struct ver_resp *rs, const char *id)
{
	struct att_agent_rec a;
	struct json_object *o, *hist;
	int rc;

	rc = att_store_agent_get(rq->ctx->store, id, &a);
	if (rc)
		return ver_store_error(rs, rc, "agent");
	o = agent_summary(rq->ctx, &a);
	hist = json_object_new_array();
	if (!o || !hist) {
		json_object_put(o);
		json_object_put(hist);
		att_agent_rec_release(&a);
		return ver_error(rs, 500, "internal", "out of memory");
	}
	json_object_object_add(o, "reset_count",
			       json_object_new_int64(a.reset_count));
	json_object_object_add(o, "restart_count",
			       json_object_new_int64(a.restart_count));
	json_object_object_add(o, "last_result", stored_json(a.last_result));
	json_object_object_add(o, "clone_suspected",
			       a.clone[0] ? json_object_new_string(a.clone)
					  : NULL);
	json_object_object_add(o, "history", hist);
	rc = att_store_history_list(rq->ctx->store, id, VER_HISTORY_MAX,
				    add_hist, hist);
	if (rc)
		ver_store_error(rs, rc, "history");
	else
		ver_json_reply(rs, 200, o);
	json_object_put(o);
	att_agent_rec_release(&a);
	return 0;
}

static int agent_assign(struct ver_req *rq, struct ver_resp *rs, const char *id)
{
	static const char *const fields[] = {"name", "version", NULL};
	struct json_object *req = NULL, *o;
	struct att_agent_rec a;
	const char *name;
	int64_t version = 0, latest = 0;
	int rc, i;

	if (ver_parse_body(rq, rs, &req))
		return 0;
	if (ver_fields_only(rs, req, fields) ||
	    ver_field_str(rs, req, "name", 1, &name) ||
	    ver_field_int(rs, req, "version", 0, 0, INT64_MAX, &version))
		goto out;
	/*
	 * Only whether it exists: its newest version, not its body (which
	 * is megabytes for a large list). A name's versions are 1..newest:
	 * each upload takes the next, and only a whole name is deleted.
	 */
	rc = att_store_wl_latest(rq->ctx->store, name, &latest);
	if (!rc && version > latest)
		rc = ATT_E_NOT_FOUND;
	if (rc == ATT_E_NOT_FOUND || rc == ATT_E_INVAL) {
		ver_error(rs, 422, "unknown_whitelist",
			  "no whitelist '%.128s'%s", name,
			  version ? " at that version" : "");
		goto out;
	}
	if (rc) {
		ver_store_error(rs, rc, "whitelist");
		goto out;
	}
	/* Optimistic: re-read and retry when another writer came first. */
	for (i = 0; i < VER_UPDATE_TRIES; i++) {
		rc = att_store_agent_get(rq->ctx->store, id, &a);
		if (rc)
			break;
		snprintf(a.wl_name, sizeof(a.wl_name), "%s", name);
		a.wl_version = version;
		rc = att_store_agent_update(rq->ctx->store, &a);
		if (!rc) {
			o = agent_summary(rq->ctx, &a);
			if (o)
				ver_json_reply(rs, 200, o);
			else
				ver_error(rs, 500, "internal", "out of memory");
			json_object_put(o);
		}
		att_agent_rec_release(&a);
		if (rc != ATT_E_STATE)
			break;
	}
	if (rc)
		ver_store_error(rs, rc, "agent");
out:
	json_object_put(req);
	return 0;
}

/* DELETE /v1/agents/ID/clone: the admin vouches for the agent's TPM. */
static int agent_clone_clear(struct ver_req *rq, struct ver_resp *rs,
			     const char *id)
{
	struct att_agent_rec a;
	struct json_object *o = NULL, *ev;
	char was[sizeof(a.clone)];
	int64_t now = (int64_t)time(NULL);
	int rc = 0, i;

	for (i = 0; i < VER_UPDATE_TRIES; i++) {
		rc = att_store_agent_get(rq->ctx->store, id, &a);
		if (rc)
			break;
		if (!a.clone[0]) {
			att_agent_rec_release(&a);
			return ver_error(rs, 404, "no_clone_suspected",
					 "agent '%s' has no suspected clone",
					 id);
		}
		memcpy(was, a.clone, sizeof(was));
		a.clone[0] = '\0';
		rc = att_store_agent_update(rq->ctx->store, &a);
		if (!rc) {
			o = agent_summary(rq->ctx, &a);
			break;
		}
		att_agent_rec_release(&a);
		if (rc != ATT_E_STATE)
			return ver_store_error(rs, rc, "agent");
	}
	if (rc)
		return ver_store_error(rs, rc, "agent");
	att_warn("audit: administrator %s cleared agent %s's suspected cloned "
		 "TPM (%s)",
		 rq->peer.fpr, id, was);
	ev = json_object_new_object();
	if (ev) {
		json_object_object_add(ev, "event",
				       json_object_new_string("clone_cleared"));
		json_object_object_add(ev, "by",
				       json_object_new_string(rq->peer.fpr));
		json_object_object_add(ev, "was", json_object_new_string(was));
		rc = att_store_history_add(
			rq->ctx->store, id, now, att_agent_state_name(a.state),
			json_object_to_json_string_ext(
				ev, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
		if (rc)
			att_warn("%s: audit history row not written: %s", id,
				 att_strerror(rc));
		json_object_put(ev);
	}
	att_agent_rec_release(&a);
	if (!o)
		return ver_error(rs, 500, "internal", "out of memory");
	ver_json_reply(rs, 200, o);
	json_object_put(o);
	return 0;
}

/* The agent id of the path ({id}); NULL, answered 404, when invalid. */
static const char *path_id(struct ver_req *rq, struct ver_resp *rs)
{
	const char *id = rq->arg[0];

	if (id && ver_id_valid(id))
		return id;
	ver_error(rs, 404, "not_found", "no such agent");
	return NULL;
}

int ver_api_agent_get(struct ver_req *rq, struct ver_resp *rs)
{
	const char *id = path_id(rq, rs);

	return id ? agent_get(rq, rs, id) : 0;
}

int ver_api_agent_assign(struct ver_req *rq, struct ver_resp *rs)
{
	const char *id = path_id(rq, rs);

	return id ? agent_assign(rq, rs, id) : 0;
}

int ver_api_agent_clone_clear(struct ver_req *rq, struct ver_resp *rs)
{
	const char *id = path_id(rq, rs);

	return id ? agent_clone_clear(rq, rs, id) : 0;
}

int ver_api_agent_delete(struct ver_req *rq, struct ver_resp *rs)
{
	const char *id = path_id(rq, rs);
	int rc;

	if (!id)
		return 0;
	rc = att_store_agent_delete(rq->ctx->store, id);
	if (rc)
		return ver_store_error(rs, rc, "agent");
	return ver_deleted(rs, id);
}
