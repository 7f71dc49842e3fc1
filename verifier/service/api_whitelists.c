// SPDX-License-Identifier: Apache-2.0
/*
 * api_whitelists.c - /v1/whitelists: list, create, get (any version),
 * update (a new version, optionally only from an expected one), delete.
 * A whitelist is compiled before it is stored: one that does not load is
 * refused with the loader's message and the stored versions stay as they
 * were. A layered whitelist ({"layers": [...]}, wldoc.h) names others,
 * which must exist and not be layered; a whitelist that is a layer of one
 * cannot be deleted or become layered.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/err.h"
#include "attest/whitelist.h"
#include "service.h"
#include "wlcache.h"
#include "wldoc.h"

static int add_wl(const struct att_store_wl *w, void *arg)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return ATT_E_NOMEM;
	json_object_object_add(o, "name", json_object_new_string(w->name));
	json_object_object_add(o, "version", json_object_new_int64(w->version));
	json_object_object_add(o, "created", json_object_new_int64(w->created));
	json_object_array_add(arg, o);
	return 0;
}

int ver_api_wl_list(struct ver_req *rq, struct ver_resp *rs)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	int rc;

	if (!o || !arr) {
		json_object_put(o);
		json_object_put(arr);
		return ver_error(rs, 500, "internal", "out of memory");
	}
	json_object_object_add(o, "whitelists", arr);
	rc = att_store_wl_list(rq->ctx->store, add_wl, arr);
	if (rc)
		ver_store_error(rs, rc, "whitelists");
	else
		ver_json_reply(rs, 200, o);
	json_object_put(o);
	return 0;
}

struct names {
	char (*v)[ATT_STORE_NAME_MAX + 1];
	size_t n, cap;
};

static int add_name(const struct att_store_wl *w, void *arg)
{
	struct names *ns = arg;

	if (ns->n == ns->cap) {
		size_t nc = ns->cap ? ns->cap * 2 : 16;
		void *nv = realloc(ns->v, nc * sizeof(*ns->v));

		if (!nv)
			return ATT_E_NOMEM;
		ns->v = nv;
		ns->cap = nc;
	}
	snprintf(ns->v[ns->n++], sizeof(*ns->v), "%s", w->name);
	return 0;
}

/* Does the newest version of whitelist wname list name as a layer? */
static int lists_layer(struct att_store *s, const char *wname, const char *name)
{
	struct ver_wllayer ls[ATT_WL_LAYERS_MAX];
	struct att_store_wl full;
	char err[200];
	size_t i, n = 0;

	if (att_store_wl_get(s, wname, 0, &full))
		return 0; /* deleted meanwhile */
	if (ver_wldoc_layers(full.body, full.body_len, ls, &n, err,
			     sizeof(err)))
		n = 0;
	att_store_wl_release(&full);
	for (i = 0; i < n; i++)
		if (!strcmp(ls[i].name, name))
			return 1;
	return 0;
}

/*
 * The layered whitelist whose newest version lists name as a layer, into
 * user ("": none). Reads every whitelist's newest version: an
 * administrator's delete or update, not a verification.
 */
static int layer_user(struct att_store *s, const char *name, char *user,
		      size_t len)
{
	struct names ns = {0};
	size_t i;
	int rc = att_store_wl_list(s, add_name, &ns);

	user[0] = '\0';
	for (i = 0; !rc && i < ns.n; i++)
		if (strcmp(ns.v[i], name) && lists_layer(s, ns.v[i], name)) {
			snprintf(user, len, "%s", ns.v[i]);
			break;
		}
	free(ns.v);
	return rc;
}

static void add_layers(struct json_object *o, const struct ver_wlref *ref)
{
	struct json_object *arr, *l;
	size_t i;

	if (!ref || !ver_wlref_layers(ref))
		return;
	arr = json_object_new_array();
	for (i = 0; arr && i < ver_wlref_layers(ref); i++) {
		l = json_object_new_object();
		json_object_object_add(
			l, "name",
			json_object_new_string(ver_wlref_layer_name(ref, i)));
		json_object_object_add(
			l, "version",
			json_object_new_int64(ver_wlref_layer_version(ref, i)));
		json_object_array_add(arr, l);
	}
	json_object_object_add(o, "layers", arr);
}

static void summary(struct json_object *o, const char *name, int64_t version,
		    const struct att_wl *wl)
{
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "version", json_object_new_int64(version));
	json_object_object_add(
		o, "paths",
		json_object_new_int64((int64_t)att_wl_path_count(wl)));
	json_object_object_add(
		o, "digests",
		json_object_new_int64((int64_t)att_wl_digest_count(wl)));
}

/* POST (name in the body, must be new) and PUT (name in the URL). */
static int wl_store(struct ver_req *rq, struct ver_resp *rs,
		    const char *url_name)
{
	static const char *const fields[] = {
		"name",	  "whitelist", "legacy", "excludes", "expected_version",
		"layers", NULL};
	struct json_object *req = NULL, *o, *lj;
	struct ver_wllayer ls[ATT_WL_LAYERS_MAX];
	struct ver_wlref *ref = NULL;
	struct att_store_wl cur;
	struct att_wl *wl = NULL;
	const char *name = url_name;
	char *stored = NULL, err[300], user[ATT_STORE_NAME_MAX + 1];
	size_t stored_len, nl;
	int64_t expect = url_name ? -1 : 0, version;
	int rc;

	if (ver_parse_body(rq, rs, &req))
		return 0;
	if (ver_fields_only(rs, req, fields))
		goto out;
	if (!url_name) {
		if (ver_field_str(rs, req, "name", 1, &name))
			goto out;
		if (strlen(name) == 0 || strlen(name) > ATT_STORE_NAME_MAX ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"
				 "RSTUVWXYZ0123456789._-") != strlen(name) ||
		    name[0] == '.') {
			ver_error(rs, 400, "bad_name",
				  "field 'name' must be 1-128 of "
				  "[A-Za-z0-9._-], not starting with '.'");
			goto out;
		}
		if (json_object_object_get_ex(req, "expected_version", NULL)) {
			ver_error(rs, 400, "unknown_field",
				  "'expected_version' is for updates (PUT)");
			goto out;
		}
	} else {
		if (json_object_object_get_ex(req, "name", NULL)) {
			ver_error(rs, 400, "unknown_field",
				  "the name is in the URL, not the body");
			goto out;
		}
		if (ver_field_int(rs, req, "expected_version", 0, 1, INT64_MAX,
				  &expect))
			goto out;
		rc = att_store_wl_get(rq->ctx->store, name, 0, &cur);
		att_store_wl_release(&cur);
		if (rc) {
			ver_store_error(rs, rc, "whitelist");
			goto out;
		}
	}
	if (json_object_object_get_ex(req, "layers", &lj)) {
		if (json_object_object_get_ex(req, "whitelist", NULL) ||
		    json_object_object_get_ex(req, "legacy", NULL) ||
		    json_object_object_get_ex(req, "excludes", NULL)) {
			ver_error(rs, 422, "invalid_whitelist",
				  "'layers' names other whitelists: it has "
				  "no 'whitelist', 'legacy' or 'excludes'");
			goto out;
		}
		rc = ver_wldoc_layers_from_request(lj, &stored, &stored_len, ls,
						   &nl, err, sizeof(err));
		if (!rc)
			rc = ver_wlcache_get_layers(rq->ctx->wlc,
						    rq->ctx->store, name, ls,
						    nl, &ref, err, sizeof(err));
		if (rc) {
			ver_error(rs, rc == ATT_E_NOMEM ? 503 : 422,
				  "invalid_whitelist", "%s", err);
			goto out;
		}
		rc = layer_user(rq->ctx->store, name, user, sizeof(user));
		if (rc) {
			ver_store_error(rs, rc, "whitelists");
			goto out;
		}
		if (user[0]) {
			ver_error(rs, 409, "in_use",
				  "whitelist '%s' is a layer of '%s': it "
				  "cannot have layers",
				  name, user);
			goto out;
		}
	} else {
		rc = ver_wldoc_from_request(req, &stored, &stored_len, &wl, err,
					    sizeof(err));
		if (rc) {
			ver_error(rs, rc == ATT_E_NOMEM ? 503 : 422,
				  "invalid_whitelist", "%s", err);
			goto out;
		}
	}
	rc = att_store_wl_put(rq->ctx->store, name, stored, stored_len, expect,
			      &version);
	if (rc) {
		ver_store_error(rs, rc, "whitelist");
		goto out;
	}
	o = json_object_new_object();
	if (!o) {
		ver_error(rs, 500, "internal", "out of memory");
		goto out;
	}
	summary(o, name, version, ref ? ver_wlref_wl(ref) : wl);
	add_layers(o, ref);
	ver_json_reply(rs, url_name ? 200 : 201, o);
	json_object_put(o);
out:
	ver_wlref_put(rq->ctx->wlc, ref);
	att_wl_free(wl);
	free(stored);
	json_object_put(req);
	ver_wldoc_trim();
	return 0;
}

int ver_api_wl_get(struct ver_req *rq, struct ver_resp *rs)
{
	const char *name = rq->arg[0];
	const char *vs = ver_query(rq, "version");
	struct ver_wllayer ls[ATT_WL_LAYERS_MAX];
	struct ver_wlref *ref = NULL;
	struct att_store_wl w;
	struct json_object *o, *doc = NULL;
	struct att_wl *wl = NULL;
	uint64_t version = 0;
	int64_t got;
	char err[300];
	size_t nl = 0;
	int rc;

	if (vs && ver_parse_u64(vs, 1, INT64_MAX, &version))
		return ver_error(rs, 400, "bad_version",
				 "'version' must be a positive integer");
	rc = att_store_wl_get(rq->ctx->store, name, (int64_t)version, &w);
	if (rc)
		return ver_store_error(rs, rc, "whitelist");
	rc = ver_wldoc_layers(w.body, w.body_len, ls, &nl, err, sizeof(err));
	if (!rc && nl) {
		/* its layers as they resolve now */
		rc = ver_wlcache_get(rq->ctx->wlc, rq->ctx->store, name,
				     w.version, &ref, &got);
		if (rc) {
			att_store_wl_release(&w);
			return ver_error(rs, 409, "broken_layers",
					 "layered whitelist '%s' does not "
					 "resolve (a layer is missing or "
					 "layered; see the log)",
					 name);
		}
	} else if (!rc) {
		rc = ver_wldoc_load(w.body, w.body_len, &wl, err, sizeof(err));
	}
	if (!rc)
		rc = ver_wldoc_to_json(w.body, w.body_len, &doc);
	if (rc) {
		ver_wlref_put(rq->ctx->wlc, ref);
		att_wl_free(wl);
		att_store_wl_release(&w);
		return ver_error(rs, 500, "internal",
				 "stored whitelist does not load");
	}
	o = doc;
	summary(o, w.name, w.version, ref ? ver_wlref_wl(ref) : wl);
	if (ref) {
		json_object_object_del(o, "layers");
		add_layers(o, ref);
	}
	json_object_object_add(o, "created", json_object_new_int64(w.created));
	ver_json_reply(rs, 200, o);
	json_object_put(o);
	ver_wlref_put(rq->ctx->wlc, ref);
	att_wl_free(wl);
	att_store_wl_release(&w);
	return 0;
}

int ver_api_wl_create(struct ver_req *rq, struct ver_resp *rs)
{
	return wl_store(rq, rs, NULL);
}

int ver_api_wl_put(struct ver_req *rq, struct ver_resp *rs)
{
	return wl_store(rq, rs, rq->arg[0]);
}

int ver_api_wl_delete(struct ver_req *rq, struct ver_resp *rs)
{
	const char *name = rq->arg[0];
	int rc;

	char user[ATT_STORE_NAME_MAX + 1];

	rc = layer_user(rq->ctx->store, name, user, sizeof(user));
	if (rc)
		return ver_store_error(rs, rc, "whitelists");
	if (user[0])
		return ver_error(rs, 409, "in_use",
				 "whitelist '%s' is a layer of '%s'", name,
				 user);
	rc = att_store_wl_delete(rq->ctx->store, name);
	if (rc == ATT_E_STATE)
		return ver_error(rs, 409, "in_use",
				 "whitelist '%s' is assigned to an agent",
				 name);
	if (rc)
		return ver_store_error(rs, rc, "whitelist");
	return ver_deleted(rs, name);
}
