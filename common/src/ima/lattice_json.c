// SPDX-License-Identifier: Apache-2.0
/*
 * lattice_json.c - a host's lattice state as the JSON object of the
 * verifier's results (schemas/lattice.schema.json).
 */
#include "attest/lattice.h"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/codec.h"
#include "attest/json.h"

/* the host's bytes, as valid UTF-8 */
static struct json_object *jtext(const char *s)
{
	char b[ATT_LAT_TEXT + 1];

	snprintf(b, sizeof(b), "%s", s);
	att_json_utf8_clean(b);
	return json_object_new_string(b);
}

static struct json_object *demotion_json(const struct att_lat_demotion *d)
{
	const struct att_sev_cause_info *c = att_sev_cause(d->cause);
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "time",
			       json_object_new_int64((int64_t)d->time));
	json_object_object_add(o, "pid", json_object_new_int64(d->pid));
	json_object_object_add(o, "comm", jtext(d->comm));
	json_object_object_add(o, "exe", jtext(d->exe));
	json_object_object_add(o, "from", jtext(d->old_label));
	json_object_object_add(o, "to", jtext(d->new_label));
	json_object_object_add(o, "cause",
			       json_object_new_string(c ? c->name : "unknown"));
	if (d->cause == ATT_SEV_CAUSE_FILE)
		json_object_object_add(o, "path", jtext(d->path));
	return o;
}

struct json_object *att_lat_state_json(const struct att_lat_state *st,
				       const char *log)
{
	struct json_object *o = json_object_new_object(), *arr;
	char hex[2 * ATT_SEV_DIGEST_LEN + 1];
	unsigned int i;

	if (!o)
		return NULL;
	if (log)
		json_object_object_add(o, "log", json_object_new_string(log));
	json_object_object_add(o, "loaded",
			       json_object_new_boolean(st->loaded));
	json_object_object_add(o, "reloaded", json_object_new_boolean(st->gap));
	json_object_object_add(o, "version",
			       st->loaded ? jtext(st->version) : NULL);
	json_object_object_add(
		o, "mode",
		st->loaded ? json_object_new_string(att_sev_mode_name(st->mode))
			   : NULL);
	if (st->have_policy)
		att_hex_encode(st->policy_digest, ATT_SEV_DIGEST_LEN, hex);
	json_object_object_add(o, "policy_digest",
			       st->have_policy ? json_object_new_string(hex)
					       : NULL);
	json_object_object_add(o, "evm_key",
			       json_object_new_boolean(st->evm_key));
	json_object_object_add(o, "relabels",
			       json_object_new_int64((int64_t)st->relabels));
	json_object_object_add(o, "demotions",
			       json_object_new_int64((int64_t)st->demotions));
	json_object_object_add(o, "dropped_events",
			       json_object_new_int64((int64_t)st->dropped));
	json_object_object_add(o, "events_capped",
			       json_object_new_boolean(st->capped));
	arr = json_object_new_array();
	for (i = st->nrecent; i > 0; i--)
		json_object_array_add(arr, demotion_json(&st->recent[i - 1]));
	json_object_object_add(o, "recent_demotions", arr);
	return o;
}
