// SPDX-License-Identifier: Apache-2.0
/*
 * api_check.c - POST /v1/check (admin): one-shot check of a measurement
 * list against a stored whitelist, without enrollment or a quote:
 *   {"whitelist": {"name": N, "version": V}, "log": base64 binary list,
 *    "pcrs": {"sha256": {"10": hex}},   (optional: replay compared)
 *    "explain": true}                   (optional: every entry's verdict)
 * -> {"verdict": "pass" | "fail", "entries", "verified", "unverified",
 *     "replay_compared", "replay_matched", "failures_total", "failures",
 *     "layers" (a layered whitelist: entries each layer accepted),
 *     "explained" (with explain: index, path, verdict and the layer that
 *     accepted it, for the first VER_EXPLAIN_MAX entries)}
 * Nothing is stored. Without a quote a pass is not an attestation: it
 * says the list (and its replay) agrees with the whitelist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/check.h"
#include "attest/check_json.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "attest/pcrs.h"
#include "attest/replay.h"
#include "attest/whitelist.h"
#include "service.h"
#include "wlcache.h"

static const enum att_hash check_banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};

#define VER_EXPLAIN_MAX 100000

struct explain {
	struct json_object *arr;
	const struct ver_wlref *ref;
	uint64_t n;
};

static int explain_entry(const struct att_ima_entry *e,
			 const struct att_judgement *j, void *arg)
{
	struct explain *x = arg;
	struct json_object *o;

	if (x->n++ >= VER_EXPLAIN_MAX)
		return 0;
	o = json_object_new_object();
	if (!o)
		return ATT_E_NOMEM;
	json_object_object_add(o, "index",
			       json_object_new_int64((int64_t)e->index));
	json_object_object_add(
		o, "path", att_path_json((const char *)j->path, j->path_len));
	json_object_object_add(
		o, "verdict",
		json_object_new_string(att_verdict_name(j->verdict)));
	if (j->layer >= 0 && (size_t)j->layer < ver_wlref_layers(x->ref))
		json_object_object_add(
			o, "layer",
			json_object_new_string(ver_wlref_layer_name(
				x->ref, (size_t)j->layer)));
	json_object_array_add(x->arr, o);
	return 0;
}

/* A layered whitelist's layers for the result (n 0: not layered). */
struct check_layers {
	const char *names[ATT_WL_LAYERS_MAX];
	int64_t versions[ATT_WL_LAYERS_MAX];
	struct att_check_layers l;
};

static void layers_of(const struct ver_wlref *ref, struct check_layers *cl)
{
	size_t i;

	memset(cl, 0, sizeof(*cl));
	for (i = 0; i < ver_wlref_layers(ref) && i < ATT_WL_LAYERS_MAX; i++) {
		cl->names[i] = ver_wlref_layer_name(ref, i);
		cl->versions[i] = ver_wlref_layer_version(ref, i);
	}
	cl->l.n = i;
	cl->l.names = cl->names;
	cl->l.versions = cl->versions;
}

int ver_api_check(struct ver_req *rq, struct ver_resp *rs)
{
	static const char *const fields[] = {"whitelist", "log", "pcrs",
					     "explain", NULL};
	struct explain x = {0};
	struct check_layers cl;
	struct json_object *ex;
	static const char *const wfields[] = {"name", "version", NULL};
	struct json_object *req = NULL, *w, *pcrs, *o;
	struct att_check_opts opts = {.pcr_mask = 1u << 10};
	struct att_check_result cr;
	struct att_ima_reader *rd = NULL;
	struct att_replay *rp = NULL;
	struct ver_wlref *ref = NULL;
	struct att_pcrs pv;
	const char *name, *txt;
	uint8_t *log = NULL;
	size_t loglen = 0, n;
	int64_t version = 0, got;
	char err[256];
	int rc;

	att_check_result_init(&cr);
	if (ver_parse_body(rq, rs, &req))
		return 0;
	if (ver_fields_only(rs, req, fields))
		goto out;
	if (!json_object_object_get_ex(req, "whitelist", &w) ||
	    !json_object_is_type(w, json_type_object)) {
		ver_error(rs, 400, "missing_field",
			  "field 'whitelist' ({name, version}) is required");
		goto out;
	}
	if (ver_fields_only(rs, w, wfields) ||
	    ver_field_str(rs, w, "name", 1, &name) ||
	    ver_field_int(rs, w, "version", 0, 0, INT64_MAX, &version) ||
	    ver_field_b64(rs, req, "log", 1, rq->ctx->cfg->max_body, &log,
			  &loglen))
		goto out;
	if (json_object_object_get_ex(req, "pcrs", &pcrs)) {
		att_pcrs_clear(&pv);
		txt = json_object_to_json_string_length(
			pcrs, JSON_C_TO_STRING_PLAIN, &n);
		if (!json_object_is_type(pcrs, json_type_object) || !txt ||
		    att_pcrs_parse_json(&pv, txt, n, err, sizeof(err))) {
			ver_error(rs, 400, "bad_pcrs",
				  "field 'pcrs' must be {bank: {pcr: hex}}");
			goto out;
		}
		opts.quoted = &pv;
	}
	rc = ver_wlcache_get(rq->ctx->wlc, rq->ctx->store, name, version, &ref,
			     &got);
	if (rc == ATT_E_NOT_FOUND || rc == ATT_E_INVAL) {
		ver_error(rs, 422, "unknown_whitelist", "no such whitelist");
		goto out;
	}
	if (rc) {
		ver_store_error(rs, rc, "whitelist");
		goto out;
	}
	if (json_object_object_get_ex(req, "explain", &ex)) {
		if (!json_object_is_type(ex, json_type_boolean)) {
			ver_error(rs, 400, "bad_field",
				  "field 'explain' must be a boolean");
			goto out;
		}
		if (json_object_get_boolean(ex)) {
			x.arr = json_object_new_array();
			x.ref = ref;
			if (!x.arr) {
				ver_error(rs, 503, "no_memory",
					  "out of memory");
				goto out;
			}
			opts.on_entry = explain_entry;
			opts.arg = &x;
		}
	}
	rc = att_replay_new(check_banks, 2, &rp);
	if (!rc)
		rc = att_ima_reader_new_mem(log, loglen, ATT_IMA_FMT_BINARY,
					    ATT_HASH_SHA1, NULL, &rd);
	if (!rc)
		rc = att_check_list(rd, ver_wlref_wl(ref), rp, &opts, &cr);
	if (rc && cr.status != ATT_CHECK_ERROR) {
		ver_error(rs, 500, "internal", "check failed: %s",
			  att_strerror(rc));
		goto out;
	}
	if (cr.status == ATT_CHECK_ERROR) {
		ver_error(rs, 422, "bad_log", "%s", cr.errmsg);
		goto out;
	}
	o = json_object_new_object();
	json_object_object_add(
		o, "verdict",
		json_object_new_string(
			cr.status == ATT_CHECK_TRUSTED ? "pass" : "fail"));
	json_object_object_add(o, "whitelist_version",
			       json_object_new_int64(got));
	layers_of(ref, &cl);
	att_check_result_json(o, &cr, 1, &cl.l);
	if (x.arr) {
		json_object_object_add(o, "explained", x.arr);
		x.arr = NULL;
		json_object_object_add(
			o, "explained_truncated",
			json_object_new_boolean(x.n > VER_EXPLAIN_MAX));
	}
	ver_json_reply(rs, 200, o);
	json_object_put(o);
out:
	json_object_put(x.arr);
	att_check_result_release(&cr);
	att_ima_reader_free(rd);
	att_replay_free(rp);
	ver_wlref_put(rq->ctx->wlc, ref);
	free(log);
	json_object_put(req);
	return 0;
}
