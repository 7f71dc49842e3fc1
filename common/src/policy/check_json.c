// SPDX-License-Identifier: Apache-2.0
/*
 * check_json.c - a log check's result as JSON (see check_json.h).
 */
#include <stdint.h>

#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/check.h"
#include "attest/check_json.h"
#include "attest/codec.h"
#include "attest/whitelist.h"

struct json_object *att_path_json(const char *p, size_t n)
{
	struct att_buf b;
	struct json_object *o;

	att_buf_init(&b, 0);
	if (att_escape_bytes((const uint8_t *)p, n, &b) || att_buf_cstr(&b)) {
		att_buf_release(&b);
		return json_object_new_string("?");
	}
	o = json_object_new_string((const char *)b.data);
	att_buf_release(&b);
	return o;
}

/* Layer i's name, or NULL when i names no layer. */
static const char *layer_name(const struct att_check_layers *l, int i)
{
	return l && i >= 0 && (size_t)i < l->n ? l->names[i] : NULL;
}

static struct json_object *layers_json(const struct att_check_result *cr,
				       const struct att_check_layers *l)
{
	struct json_object *arr = json_object_new_array(), *o;
	size_t i;

	for (i = 0; arr && i < l->n; i++) {
		o = json_object_new_object();
		json_object_object_add(
			o, "name",
			json_object_new_string(l->names[i] ? l->names[i] : ""));
		json_object_object_add(o, "version",
				       json_object_new_int64(l->versions[i]));
		json_object_object_add(
			o, "allowed",
			json_object_new_int64((int64_t)cr->layer_counts[i]));
		json_object_array_add(arr, o);
	}
	return arr;
}

struct json_object *att_check_failures_json(const struct att_check_result *cr,
					    unsigned int flags,
					    const struct att_check_layers *l)
{
	struct json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < cr->nfailures; i++) {
		const struct att_check_failure *f = &cr->failures[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(
			o, "index", json_object_new_int64((int64_t)f->index));
		if (flags & ATT_CHECK_JSON_PCR)
			json_object_object_add(
				o, "pcr", json_object_new_int((int)f->pcr));
		json_object_object_add(o, "path",
				       att_path_json(f->path, f->path_len));
		json_object_object_add(
			o, "reason",
			json_object_new_string(att_verdict_name(f->verdict)));
		if (f->detail[0] || !(flags & ATT_CHECK_JSON_SOME_DETAIL))
			json_object_object_add(
				o, "detail", json_object_new_string(f->detail));
		if (layer_name(l, f->layer))
			json_object_object_add(
				o, "layer",
				json_object_new_string(
					layer_name(l, f->layer)));
		json_object_array_add(arr, o);
	}
	return arr;
}

void att_check_result_json(struct json_object *o,
			   const struct att_check_result *cr, int with_compared,
			   const struct att_check_layers *layers)
{
	json_object_object_add(o, "entries",
			       json_object_new_int64((int64_t)cr->entries));
	json_object_object_add(o, "verified",
			       json_object_new_int64((int64_t)cr->verified));
	json_object_object_add(
		o, "unverified",
		json_object_new_int64((int64_t)(cr->entries - cr->verified)));
	if (with_compared)
		json_object_object_add(
			o, "replay_compared",
			json_object_new_boolean(cr->replay_compared));
	json_object_object_add(o, "replay_matched",
			       json_object_new_boolean(cr->replay_matched));
	json_object_object_add(
		o, "failures_total",
		json_object_new_int64((int64_t)cr->failures_total));
	json_object_object_add(o, "failures",
			       att_check_failures_json(cr, 0, layers));
	if (layers && layers->n)
		json_object_object_add(o, "layers", layers_json(cr, layers));
}
