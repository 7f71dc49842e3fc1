// SPDX-License-Identifier: Apache-2.0
/*
 * wldoc.c - stored whitelist documents (see wldoc.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__ /* defined by the headers above */
#include <malloc.h>
#endif

#include <json-c/json.h>

#include "attest/err.h"
#include "attest/json.h"
#include "attest/whitelist.h"
#include "wldoc.h"

#define WLDOC_DEPTH 20

static int load_parts(struct json_object *doc, struct att_wl **wl, char *err,
		      size_t errlen)
{
	struct json_object *w = NULL, *lg = NULL, *ex = NULL;
	const char *txt;
	size_t n;

	json_object_object_get_ex(doc, "whitelist", &w);
	json_object_object_get_ex(doc, "legacy", &lg);
	json_object_object_get_ex(doc, "excludes", &ex);
	if ((w != NULL) == (lg != NULL)) {
		snprintf(err, errlen,
			 "exactly one of 'whitelist' (a JSON whitelist or "
			 "Keylime runtime policy) and 'legacy' (allowlist "
			 "text) is required");
		return ATT_E_FORMAT;
	}
	if (ex && !json_object_is_type(ex, json_type_string)) {
		snprintf(err, errlen, "field 'excludes' must be a string");
		return ATT_E_FORMAT;
	}
	if (w) {
		if (ex) {
			snprintf(err, errlen,
				 "'excludes' goes with 'legacy'; a JSON "
				 "whitelist has its own 'excludes'");
			return ATT_E_FORMAT;
		}
		if (!json_object_is_type(w, json_type_object)) {
			snprintf(err, errlen,
				 "field 'whitelist' must be an object");
			return ATT_E_FORMAT;
		}
		txt = json_object_to_json_string_length(
			w, JSON_C_TO_STRING_PLAIN, &n);
		if (!txt)
			return ATT_E_NOMEM;
		return att_wl_load_json(txt, n, NULL, wl, err, errlen);
	}
	if (!json_object_is_type(lg, json_type_string)) {
		snprintf(err, errlen, "field 'legacy' must be a string");
		return ATT_E_FORMAT;
	}
	return att_wl_load_legacy(json_object_get_string(lg),
				  (size_t)json_object_get_string_len(lg),
				  ex ? json_object_get_string(ex) : NULL,
				  ex ? (size_t)json_object_get_string_len(ex)
				     : 0,
				  NULL, wl, err, errlen);
}

int ver_wldoc_from_request(struct json_object *req, char **stored,
			   size_t *stored_len, struct att_wl **wl, char *err,
			   size_t errlen)
{
	struct json_object *doc, *v;
	const char *txt;
	size_t n;
	int rc;

	*stored = NULL;
	*wl = NULL;
	rc = load_parts(req, wl, err, errlen);
	if (rc)
		return rc;
	doc = json_object_new_object();
	if (!doc)
		goto nomem;
	if (json_object_object_get_ex(req, "whitelist", &v)) {
		json_object_object_add(doc, "format",
				       json_object_new_string("json"));
		json_object_object_add(doc, "whitelist", json_object_get(v));
	} else {
		json_object_object_add(doc, "format",
				       json_object_new_string("legacy"));
		json_object_object_get_ex(req, "legacy", &v);
		json_object_object_add(doc, "legacy", json_object_get(v));
		if (json_object_object_get_ex(req, "excludes", &v))
			json_object_object_add(doc, "excludes",
					       json_object_get(v));
	}
	txt = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN,
						&n);
	*stored = txt ? strndup(txt, n) : NULL;
	*stored_len = n;
	json_object_put(doc);
	if (!*stored)
		goto nomem;
	return 0;
nomem:
	att_wl_free(*wl);
	*wl = NULL;
	snprintf(err, errlen, "out of memory");
	return ATT_E_NOMEM;
}

int ver_wldoc_to_json(const char *stored, size_t len, struct json_object **out)
{
	char err[128];

	return att_json_parse(stored, len, WLDOC_DEPTH, out, err, sizeof(err));
}

void ver_wldoc_trim(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/* One entry of "layers": "name" or {"name": N, "version": V}. */
static int layer_entry(struct json_object *v, size_t i, struct ver_wllayer *l,
		       char *err, size_t errlen)
{
	struct json_object *nm = v, *ver = NULL;
	const char *s;
	size_t n;

	l->version = 0;
	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val)
		{
			(void)val;
			if (strcmp(key, "name") && strcmp(key, "version")) {
				snprintf(err, errlen,
					 "layers[%zu]: unknown field '%.32s'",
					 i, key);
				return ATT_E_FORMAT;
			}
		}
		if (!json_object_object_get_ex(v, "name", &nm))
			nm = NULL;
		json_object_object_get_ex(v, "version", &ver);
	}
	if (!nm || !json_object_is_type(nm, json_type_string)) {
		snprintf(err, errlen,
			 "layers[%zu]: a whitelist name or {\"name\", "
			 "\"version\"}",
			 i);
		return ATT_E_FORMAT;
	}
	if (ver) {
		if (!json_object_is_type(ver, json_type_int) ||
		    json_object_get_int64(ver) < 0) {
			snprintf(err, errlen,
				 "layers[%zu]: 'version' must be an integer "
				 ">= 0 (0: the newest)",
				 i);
			return ATT_E_FORMAT;
		}
		l->version = json_object_get_int64(ver);
	}
	s = json_object_get_string(nm);
	n = strlen(s);
	if (n == 0 || n >= sizeof(l->name) || s[0] == '.' ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-") != n) {
		snprintf(err, errlen,
			 "layers[%zu]: a name is 1-128 of [A-Za-z0-9._-], "
			 "not starting with '.'",
			 i);
		return ATT_E_FORMAT;
	}
	memcpy(l->name, s, n + 1);
	return 0;
}

static int parse_layers(struct json_object *arr, struct ver_wllayer *out,
			size_t *n, char *err, size_t errlen)
{
	size_t i, k, cnt;
	int rc;

	*n = 0;
	if (!json_object_is_type(arr, json_type_array)) {
		snprintf(err, errlen, "field 'layers' must be an array");
		return ATT_E_FORMAT;
	}
	cnt = json_object_array_length(arr);
	if (cnt == 0 || cnt > ATT_WL_LAYERS_MAX) {
		snprintf(err, errlen, "'layers' holds 1 to %d whitelists",
			 ATT_WL_LAYERS_MAX);
		return ATT_E_FORMAT;
	}
	for (i = 0; i < cnt; i++) {
		rc = layer_entry(json_object_array_get_idx(arr, i), i, &out[i],
				 err, errlen);
		if (rc)
			return rc;
		for (k = 0; k < i; k++)
			if (!strcmp(out[k].name, out[i].name)) {
				snprintf(err, errlen,
					 "layers[%zu]: '%s' is listed twice", i,
					 out[i].name);
				return ATT_E_FORMAT;
			}
	}
	*n = cnt;
	return 0;
}

int ver_wldoc_layers_from_request(struct json_object *layers, char **stored,
				  size_t *stored_len, struct ver_wllayer *out,
				  size_t *n, char *err, size_t errlen)
{
	struct json_object *doc, *arr, *o;
	const char *txt;
	size_t i, len;
	int rc;

	*stored = NULL;
	rc = parse_layers(layers, out, n, err, errlen);
	if (rc)
		return rc;
	doc = json_object_new_object();
	arr = json_object_new_array();
	if (!doc || !arr) {
		json_object_put(doc);
		json_object_put(arr);
		goto nomem;
	}
	json_object_object_add(doc, "format", json_object_new_string("layers"));
	json_object_object_add(doc, "layers", arr);
	for (i = 0; i < *n; i++) {
		o = json_object_new_object();
		if (!o) {
			json_object_put(doc);
			goto nomem;
		}
		json_object_object_add(o, "name",
				       json_object_new_string(out[i].name));
		json_object_object_add(o, "version",
				       json_object_new_int64(out[i].version));
		json_object_array_add(arr, o);
	}
	txt = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN,
						&len);
	*stored = txt ? strndup(txt, len) : NULL;
	*stored_len = len;
	json_object_put(doc);
	if (*stored)
		return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return ATT_E_NOMEM;
}

int ver_wldoc_layers(const char *stored, size_t len, struct ver_wllayer *out,
		     size_t *n, char *err, size_t errlen)
{
	struct json_object *doc, *f, *arr;
	int rc = 0;

	*n = 0;
	rc = att_json_parse(stored, len, WLDOC_DEPTH, &doc, err, errlen);
	if (rc)
		return rc;
	if (json_object_object_get_ex(doc, "format", &f) &&
	    json_object_is_type(f, json_type_string) &&
	    !strcmp(json_object_get_string(f), "layers")) {
		if (!json_object_object_get_ex(doc, "layers", &arr)) {
			snprintf(err, errlen,
				 "a layered whitelist without "
				 "'layers'");
			rc = ATT_E_FORMAT;
		} else {
			rc = parse_layers(arr, out, n, err, errlen);
		}
	}
	json_object_put(doc);
	return rc;
}

int ver_wldoc_load(const char *stored, size_t len, struct att_wl **wl,
		   char *err, size_t errlen)
{
	struct json_object *doc, *f;
	int rc;

	*wl = NULL;
	rc = att_json_parse(stored, len, WLDOC_DEPTH, &doc, err, errlen);
	if (rc)
		return rc;
	if (json_object_object_get_ex(doc, "format", &f) &&
	    json_object_is_type(f, json_type_string) &&
	    !strcmp(json_object_get_string(f), "layers")) {
		json_object_put(doc);
		snprintf(err, errlen,
			 "a layered whitelist is compiled from "
			 "its layers");
		return ATT_E_STATE;
	}
	rc = load_parts(doc, wl, err, errlen);
	json_object_put(doc);
	ver_wldoc_trim();
	return rc;
}
