// SPDX-License-Identifier: Apache-2.0
/*
 * lattice_policy.c - the whitelist's "lattice" section
 * (docs/lattice-events.md): what a host's slim.ko state must show.
 */
#include "attest/lattice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/codec.h"
#include "attest/err.h"

#define LAT_MAX_DIGESTS 256
#define LAT_MAX_MATCHES 256
#define LAT_MAX_PATTERN 4096

void att_lat_policy_free(struct att_lat_policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nacceptable; i++) {
		free(p->acceptable[i].exe);
		free(p->acceptable[i].comm);
		free(p->acceptable[i].path);
	}
	free(p->acceptable);
	free(p->digests);
	free(p);
}

static int bad(char *err, size_t n, const char *what)
{
	snprintf(err, n, "lattice.%s", what);
	return ATT_E_FORMAT;
}

static int get_bool(struct json_object *v, int *out)
{
	if (!json_object_is_type(v, json_type_boolean))
		return ATT_E_FORMAT;
	*out = json_object_get_boolean(v);
	return ATT_OK;
}

static int load_digests(struct att_lat_policy *p, struct json_object *v,
			char *err, size_t n)
{
	size_t i, len;

	if (!json_object_is_type(v, json_type_array))
		return bad(err, n, "policy_digests: must be an array");
	len = json_object_array_length(v);
	if (len > LAT_MAX_DIGESTS)
		return bad(err, n, "policy_digests: more than 256");
	p->digests = calloc(len ? len : 1, sizeof(*p->digests));
	if (!p->digests)
		return ATT_E_NOMEM;
	for (i = 0; i < len; i++) {
		struct json_object *d = json_object_array_get_idx(v, i);
		const char *s = json_object_get_string(d);
		size_t dl;

		if (!json_object_is_type(d, json_type_string) ||
		    json_object_get_string_len(d) != 2 * ATT_SEV_DIGEST_LEN ||
		    att_hex_decode(s, 2 * ATT_SEV_DIGEST_LEN, p->digests[i],
				   ATT_SEV_DIGEST_LEN, &dl) ||
		    dl != ATT_SEV_DIGEST_LEN)
			return bad(err, n,
				   "policy_digests: each must be 64 hex digits "
				   "(SHA-256)");
	}
	p->ndigests = len;
	p->check_digests = 1;
	return ATT_OK;
}

static int dup_pattern(struct json_object *v, char **out)
{
	if (!json_object_is_type(v, json_type_string) ||
	    !json_object_get_string_len(v) ||
	    json_object_get_string_len(v) > LAT_MAX_PATTERN ||
	    strlen(json_object_get_string(v)) !=
		    (size_t)json_object_get_string_len(v))
		return ATT_E_FORMAT;
	*out = strdup(json_object_get_string(v));
	return *out ? ATT_OK : ATT_E_NOMEM;
}

static int load_match(struct att_lat_match *m, struct json_object *o, char *err,
		      size_t n)
{
	const struct att_sev_cause_info *c;
	int rc, any = 0;

	if (!json_object_is_type(o, json_type_object))
		return bad(err, n,
			   "acceptable_demotions: each must be an object");
	json_object_object_foreach(o, key, val)
	{
		rc = ATT_OK;
		if (!strcmp(key, "exe") && !m->exe)
			rc = dup_pattern(val, &m->exe);
		else if (!strcmp(key, "comm") && !m->comm)
			rc = dup_pattern(val, &m->comm);
		else if (!strcmp(key, "path") && !m->path)
			rc = dup_pattern(val, &m->path);
		else if (!strcmp(key, "cause") && !m->cause &&
			 json_object_is_type(val, json_type_string) &&
			 (c = att_sev_cause_by_name(
				  json_object_get_string(val))))
			m->cause = c->value;
		else
			return bad(
				err, n,
				"acceptable_demotions: keys are exe, comm, "
				"path (non-empty strings) and cause (\"file\", "
				"\"ip\", \"process\", \"pipe\", \"unix\", "
				"\"shm\", \"msg\", \"mqueue\" or "
				"\"object\")");
		if (rc == ATT_E_FORMAT)
			return bad(err, n,
				   "acceptable_demotions: exe, comm and path "
				   "must be non-empty strings");
		if (rc)
			return rc;
		any = 1;
	}
	if (!any)
		return bad(err, n,
			   "acceptable_demotions: an empty entry "
			   "would accept every demotion");
	return ATT_OK;
}

static int load_matches(struct att_lat_policy *p, struct json_object *v,
			char *err, size_t n)
{
	size_t i, len;
	int rc;

	if (!json_object_is_type(v, json_type_array))
		return bad(err, n, "acceptable_demotions: must be an array");
	len = json_object_array_length(v);
	if (len > LAT_MAX_MATCHES)
		return bad(err, n, "acceptable_demotions: more than 256");
	p->acceptable = calloc(len ? len : 1, sizeof(*p->acceptable));
	if (!p->acceptable)
		return ATT_E_NOMEM;
	for (i = 0; i < len; i++) {
		p->nacceptable = i + 1;
		rc = load_match(&p->acceptable[i],
				json_object_array_get_idx(v, i), err, n);
		if (rc)
			return rc;
	}
	return ATT_OK;
}

static int load_key(struct att_lat_policy *p, const char *key,
		    struct json_object *val, char *err, size_t n)
{
	const char *s = json_object_get_string(val);
	int str = json_object_is_type(val, json_type_string);

	if (!strcmp(key, "mode")) {
		if (!str || (strcmp(s, "enforce") && strcmp(s, "permissive") &&
			     strcmp(s, "off")))
			return bad(err, n,
				   "mode: must be \"enforce\", \"permissive\" "
				   "or \"off\"");
		p->mode = !strcmp(s, "enforce")	     ? ATT_SEV_MODE_ENFORCE
			  : !strcmp(s, "permissive") ? ATT_SEV_MODE_PERMISSIVE
						     : ATT_SEV_MODE_OFF;
		return ATT_OK;
	}
	if (!strcmp(key, "policy_digests"))
		return load_digests(p, val, err, n);
	if (!strcmp(key, "evm_key"))
		return get_bool(val, &p->evm_key)
			       ? bad(err, n, "evm_key: must be true or false")
			       : ATT_OK;
	if (!strcmp(key, "relabels"))
		return get_bool(val, &p->relabels)
			       ? bad(err, n, "relabels: must be true or false")
			       : ATT_OK;
	if (!strcmp(key, "refusals"))
		return get_bool(val, &p->refusals)
			       ? bad(err, n, "refusals: must be true or false")
			       : ATT_OK;
	if (!strcmp(key, "dropped_events"))
		return get_bool(val, &p->dropped_allowed)
			       ? bad(err, n,
				     "dropped_events: must be true or false")
			       : ATT_OK;
	if (!strcmp(key, "demotions")) {
		if (!str || (strcmp(s, "allow") && strcmp(s, "deny")))
			return bad(err, n,
				   "demotions: must be \"allow\" or \"deny\"");
		p->demotions = !strcmp(s, "deny") ? ATT_LAT_DEMOTIONS_DENY
						  : ATT_LAT_DEMOTIONS_ALLOW;
		return ATT_OK;
	}
	if (!strcmp(key, "acceptable_demotions"))
		return load_matches(p, val, err, n);
	snprintf(err, n, "lattice: unknown field '%.64s'", key);
	return ATT_E_FORMAT;
}

int att_lat_policy_from_json(struct json_object *o, struct att_lat_policy **out,
			     char *err, size_t errlen)
{
	struct att_lat_policy *p;
	int rc = ATT_OK;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "lattice: must be an object");
		return ATT_E_FORMAT;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return ATT_E_NOMEM;
	p->mode = -1;
	p->relabels = 1;
	json_object_object_foreach(o, key, val)
	{
		rc = load_key(p, key, val, err, errlen);
		if (rc)
			break;
	}
	if (rc) {
		att_lat_policy_free(p);
		return rc;
	}
	*out = p;
	return ATT_OK;
}
