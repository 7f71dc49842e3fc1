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

int ver_wldoc_load(const char *stored, size_t len, struct att_wl **wl,
		   char *err, size_t errlen)
{
	struct json_object *doc;
	int rc;

	*wl = NULL;
	rc = att_json_parse(stored, len, WLDOC_DEPTH, &doc, err, errlen);
	if (rc)
		return rc;
	rc = load_parts(doc, wl, err, errlen);
	json_object_put(doc);
	ver_wldoc_trim();
	return rc;
}
