// SPDX-License-Identifier: Apache-2.0
/*
 * resultjson.c - a log check's result as JSON (see resultjson.h).
 */
#include <stdint.h>

#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/check.h"
#include "attest/codec.h"
#include "attest/whitelist.h"
#include "resultjson.h"

struct json_object *ver_path_json(const char *p, size_t n)
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

static struct json_object *failures_json(const struct att_check_result *cr)
{
	struct json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < cr->nfailures; i++) {
		const struct att_check_failure *f = &cr->failures[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(
			o, "index", json_object_new_int64((int64_t)f->index));
		json_object_object_add(o, "path",
				       ver_path_json(f->path, f->path_len));
		json_object_object_add(
			o, "reason",
			json_object_new_string(att_verdict_name(f->verdict)));
		json_object_object_add(o, "detail",
				       json_object_new_string(f->detail));
		json_object_array_add(arr, o);
	}
	return arr;
}

void ver_check_result_json(struct json_object *o,
			   const struct att_check_result *cr, int with_compared)
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
	json_object_object_add(o, "failures", failures_json(cr));
}
