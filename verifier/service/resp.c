// SPDX-License-Identifier: Apache-2.0
/*
 * resp.c - JSON answers, JSON errors and request body helpers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/log.h"
#include "service.h"

int ver_json_reply(struct ver_resp *rs, unsigned int status,
		   struct json_object *obj)
{
	const char *s;
	size_t n;

	s = json_object_to_json_string_length(
		obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
		&n);
	att_buf_release(&rs->body);
	rs->status = status;
	rs->ctype = "application/json";
	if (!s || att_buf_append(&rs->body, s, n) ||
	    att_buf_append_u8(&rs->body, '\n')) {
		rs->status = 500;
		return ATT_E_NOMEM;
	}
	return 0;
}

int ver_error(struct ver_resp *rs, unsigned int status, const char *code,
	      const char *fmt, ...)
{
	struct json_object *o = json_object_new_object();
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	att_json_utf8_clean(msg);
	if (!o) {
		rs->status = 500;
		return 0;
	}
	json_object_object_add(o, "code", json_object_new_string(code));
	json_object_object_add(o, "message", json_object_new_string(msg));
	ver_json_reply(rs, status, o);
	json_object_put(o);
	return 0;
}

int ver_parse_body(struct ver_req *rq, struct ver_resp *rs,
		   struct json_object **out)
{
	char err[256];
	int rc;

	*out = NULL;
	if (rq->body.len == 0) {
		ver_error(rs, 400, "empty_body", "a JSON object is required");
		return ATT_E_FORMAT;
	}
	rc = att_json_parse((const char *)rq->body.data, rq->body.len,
			    VER_JSON_DEPTH, out, err, sizeof(err));
	if (rc) {
		ver_error(rs, 400, "invalid_json", "%s", err);
		return rc;
	}
	if (!json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = NULL;
		ver_error(rs, 400, "invalid_json",
			  "the body must be a JSON object");
		return ATT_E_FORMAT;
	}
	return 0;
}

int ver_store_error(struct ver_resp *rs, int err, const char *what)
{
	switch (err) {
	case ATT_E_NOT_FOUND:
		return ver_error(rs, 404, "not_found", "%s not found", what);
	case ATT_E_EXISTS:
		return ver_error(rs, 409, "exists", "%s already exists", what);
	case ATT_E_STATE:
		return ver_error(rs, 409, "conflict",
				 "%s was changed concurrently or is in use",
				 what);
	case ATT_E_NOMEM:
		return ver_error(rs, 503, "unavailable", "out of memory");
	case ATT_E_INVAL:
		return ver_error(rs, 400, "bad_request", "invalid %s", what);
	default:
		return ver_error(rs, 503, "storage_unavailable",
				 "storage failed (%s)", att_errname(err));
	}
}

const char *ver_query(struct ver_req *rq, const char *key)
{
	unsigned int i;

	for (i = 0; i < rq->nquery; i++)
		if (!strcmp(rq->query[i].key, key))
			return rq->query[i].value;
	return NULL;
}

int ver_field_str(struct ver_resp *rs, struct json_object *o, const char *name,
		  int required, const char **out)
{
	struct json_object *v;

	*out = NULL;
	if (!json_object_object_get_ex(o, name, &v) || !v) {
		if (!required)
			return 0;
		ver_error(rs, 400, "missing_field", "field '%s' is required",
			  name);
		return ATT_E_FORMAT;
	}
	if (!json_object_is_type(v, json_type_string)) {
		ver_error(rs, 400, "wrong_type", "field '%s' must be a string",
			  name);
		return ATT_E_FORMAT;
	}
	*out = json_object_get_string(v);
	return 0;
}

int ver_field_int(struct ver_resp *rs, struct json_object *o, const char *name,
		  int required, int64_t min, int64_t max, int64_t *out)
{
	struct json_object *v;
	int64_t x;

	if (!json_object_object_get_ex(o, name, &v) || !v) {
		if (!required)
			return 0;
		ver_error(rs, 400, "missing_field", "field '%s' is required",
			  name);
		return ATT_E_FORMAT;
	}
	if (!json_object_is_type(v, json_type_int)) {
		ver_error(rs, 400, "wrong_type",
			  "field '%s' must be an integer", name);
		return ATT_E_FORMAT;
	}
	errno = 0;
	x = json_object_get_int64(v);
	if (errno || x < min || x > max) {
		ver_error(rs, 400, "out_of_range",
			  "field '%s' must be from %lld to %lld", name,
			  (long long)min, (long long)max);
		return ATT_E_FORMAT;
	}
	*out = x;
	return 0;
}

int ver_fields_only(struct ver_resp *rs, struct json_object *o,
		    const char *const *allowed)
{
	const char *const *a;

	json_object_object_foreach(o, key, val)
	{
		(void)val;
		for (a = allowed; *a; a++)
			if (!strcmp(*a, key))
				break;
		if (!*a) {
			ver_error(rs, 400, "unknown_field",
				  "unknown field '%.100s'", key);
			return ATT_E_FORMAT;
		}
	}
	return 0;
}

int ver_deleted(struct ver_resp *rs, const char *what)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return ver_error(rs, 500, "internal", "out of memory");
	json_object_object_add(o, "deleted", json_object_new_string(what));
	ver_json_reply(rs, 200, o);
	json_object_put(o);
	return 0;
}

int ver_field_b64(struct ver_resp *rs, struct json_object *o, const char *name,
		  int required, size_t max, uint8_t **out, size_t *len)
{
	const char *s;
	size_t n;

	*out = NULL;
	*len = 0;
	if (ver_field_str(rs, o, name, required, &s))
		return ATT_E_FORMAT;
	if (!s)
		return 0;
	n = strlen(s);
	if (n / 4 * 3 > max + 2) {
		ver_error(rs, 400, "too_large", "field '%s' is over %zu bytes",
			  name, max);
		return ATT_E_TOO_BIG;
	}
	*out = malloc(n / 4 * 3 + 3);
	if (!*out) {
		ver_error(rs, 503, "unavailable", "out of memory");
		return ATT_E_NOMEM;
	}
	if (att_b64_decode(s, n, *out, max, len) || *len == 0) {
		free(*out);
		*out = NULL;
		*len = 0;
		ver_error(rs, 400, "bad_base64",
			  "field '%s' must be non-empty standard base64 "
			  "(padded, no white space) of at most %zu bytes",
			  name, max);
		return ATT_E_FORMAT;
	}
	return 0;
}

int ver_add_b64(struct json_object *o, const char *name, const uint8_t *p,
		size_t n)
{
	char *s = malloc(att_b64_enclen(n) + 1);

	if (!s)
		return ATT_E_NOMEM;
	att_b64_encode(p, n, s);
	json_object_object_add(o, name, json_object_new_string(s));
	free(s);
	return 0;
}
