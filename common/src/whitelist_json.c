// SPDX-License-Identifier: Apache-2.0
/*
 * whitelist_json.c - loads the native / Keylime runtime policy JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "attest/json.h"
#include "wl_internal.h"

static int want_type(struct json_object *o, enum json_type t, const char *what,
		     char *err, size_t errlen)
{
	static const char *const names[] = { "null",   "boolean", "number",
					     "number", "object",  "array",
					     "string" };

	if (json_object_is_type(o, t))
		return ATT_OK;
	snprintf(err, errlen, "%s: must be %s", what,
		 (unsigned int)t < 7 ? names[t] : "?");
	return ATT_E_FORMAT;
}

/* "name": ["hex", ...] objects: digests, keyrings, ima-buf. */
static int load_digest_object(struct att_wl *wl, struct dmap *m,
			      struct json_object *obj, const char *what,
			      char *err, size_t errlen)
{
	int rc = want_type(obj, json_type_object, what, err, errlen);

	if (rc)
		return rc;
	json_object_object_foreach(obj, name, arr)
	{
		size_t i, n, nlen = strlen(name);

		if (!nlen) {
			snprintf(err, errlen, "%s: empty name", what);
			return ATT_E_FORMAT;
		}
		if (!json_object_is_type(arr, json_type_array)) {
			snprintf(err, errlen, "%s[\"%.64s\"]: must be an array "
					      "of digests", what, name);
			return ATT_E_FORMAT;
		}
		n = json_object_array_length(arr);
		if (n > wl->lim.max_digests_per_path) {
			snprintf(err, errlen, "%s[\"%.64s\"]: more than %zu "
					      "digests", what, name,
				 wl->lim.max_digests_per_path);
			return ATT_E_TOO_BIG;
		}
		if (m->count >= wl->lim.max_paths) {
			snprintf(err, errlen, "%s: more than %zu names", what,
				 wl->lim.max_paths);
			return ATT_E_TOO_BIG;
		}
		if (!n) {
			rc = dmap_add_name(m, name, nlen);
			if (rc)
				return rc;
		}
		for (i = 0; i < n; i++) {
			struct json_object *d = json_object_array_get_idx(arr, i);
			uint8_t dig[ATT_DIGEST_MAX];
			enum att_hash alg;
			size_t dlen;

			if (!json_object_is_type(d, json_type_string) ||
			    wl_parse_digest(json_object_get_string(d),
					    (size_t)json_object_get_string_len(d),
					    &alg, dig, &dlen)) {
				snprintf(err, errlen,
					 "%s[\"%.64s\"][%zu]: not a digest "
					 "(hex of a known length, or "
					 "algo:hex)",
					 what, name, i);
				return ATT_E_FORMAT;
			}
			rc = dmap_add(m, name, nlen, alg, dig, dlen);
			if (rc)
				return rc;
		}
	}
	return ATT_OK;
}

static int load_excludes(struct att_wl *wl, struct json_object *arr,
			 char *err, size_t errlen)
{
	const char **pats;
	size_t i, n;
	int rc = want_type(arr, json_type_array, "excludes", err, errlen);

	if (rc)
		return rc;
	n = json_object_array_length(arr);
	if (n > wl->lim.max_excludes) {
		snprintf(err, errlen, "excludes: more than %zu patterns",
			 wl->lim.max_excludes);
		return ATT_E_TOO_BIG;
	}
	if (!n)
		return ATT_OK;
	pats = calloc(n, sizeof(*pats));
	if (!pats)
		return ATT_E_NOMEM;
	for (i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(p, json_type_string)) {
			snprintf(err, errlen, "excludes[%zu]: must be a string",
				 i);
			free(pats);
			return ATT_E_FORMAT;
		}
		pats[i] = json_object_get_string(p);
	}
	rc = wl_compile_excludes(wl, pats, n, err, errlen);
	free(pats);
	return rc;
}

static int load_ima(struct att_wl *wl, struct json_object *ima, char *err,
		    size_t errlen)
{
	int rc = want_type(ima, json_type_object, "ima", err, errlen);

	if (rc)
		return rc;
	json_object_object_foreach(ima, key, val)
	{
		if (!strcmp(key, "ignored_keyrings")) {
			size_t i, n;

			rc = want_type(val, json_type_array,
				       "ima.ignored_keyrings", err, errlen);
			if (rc)
				return rc;
			n = json_object_array_length(val);
			for (i = 0; i < n; i++) {
				struct json_object *s =
					json_object_array_get_idx(val, i);
				const char *name;

				if (!json_object_is_type(s, json_type_string)) {
					snprintf(err, errlen,
						 "ima.ignored_keyrings[%zu]: "
						 "must be a string",
						 i);
					return ATT_E_FORMAT;
				}
				name = json_object_get_string(s);
				if (!strcmp(name, "*"))
					wl->ignore_all_keyrings = 1;
				else if ((rc = dmap_add_name(&wl->ignored, name,
							     strlen(name))))
					return rc;
			}
		} else if (!strcmp(key, "log_hash_alg")) {
			const char *a;

			rc = want_type(val, json_type_string,
				       "ima.log_hash_alg", err, errlen);
			if (rc)
				return rc;
			a = json_object_get_string(val);
			if (att_hash_by_name(a, strlen(a)) == ATT_HASH_NONE) {
				snprintf(err, errlen,
					 "ima.log_hash_alg: unknown algorithm "
					 "'%.32s'",
					 a);
				return ATT_E_UNSUPPORTED;
			}
		} else if (!strcmp(key, "dm_policy")) {
			/* Keylime's device-mapper policy: not judged here. */
			if (val && !json_object_is_type(val, json_type_null)) {
				snprintf(err, errlen, "ima.dm_policy: device-"
						      "mapper policies are not "
						      "supported");
				return ATT_E_UNSUPPORTED;
			}
		} else {
			snprintf(err, errlen, "ima: unknown field '%.64s'", key);
			return ATT_E_FORMAT;
		}
	}
	return ATT_OK;
}

static int load_keys(struct att_wl *wl, struct json_object *v, char *err,
		     size_t errlen)
{
	struct json_object *inner = NULL, *arr;
	size_t i, n;
	int rc;

	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		size_t len = (size_t)json_object_get_string_len(v);

		if (!len)
			return ATT_OK;
		if (s[0] != '{')
			return wl_add_keys_pem(wl, s, len, err, errlen);
		/* Keylime: a JSON document in a string, with "pubkeys". */
		rc = att_json_parse(s, len, 8, &inner, err, errlen);
		if (rc)
			return rc;
		if (!json_object_object_get_ex(inner, "pubkeys", &arr) ||
		    !json_object_is_type(arr, json_type_array)) {
			json_object_put(inner);
			snprintf(err, errlen, "verification-keys: no pubkeys "
					      "array");
			return ATT_E_FORMAT;
		}
	} else if (json_object_is_type(v, json_type_array)) {
		arr = v;
	} else {
		snprintf(err, errlen,
			 "verification-keys: must be a string or an array");
		return ATT_E_FORMAT;
	}
	n = json_object_array_length(arr);
	rc = ATT_OK;
	for (i = 0; i < n && !rc; i++) {
		struct json_object *k = json_object_array_get_idx(arr, i);
		const char *s;
		size_t len;

		if (!json_object_is_type(k, json_type_string)) {
			snprintf(err, errlen,
				 "verification-keys[%zu]: must be a string", i);
			rc = ATT_E_FORMAT;
			break;
		}
		s = json_object_get_string(k);
		len = (size_t)json_object_get_string_len(k);
		if (len >= 5 && !memcmp(s, "-----", 5)) {
			rc = wl_add_keys_pem(wl, s, len, err, errlen);
		} else {
			uint8_t *der = malloc(len);
			size_t dlen;

			if (!der) {
				rc = ATT_E_NOMEM;
				break;
			}
			rc = att_b64_decode(s, len, der, len, &dlen);
			if (!rc)
				rc = wl_add_key_der(wl, der, dlen);
			free(der);
			if (rc)
				snprintf(err, errlen,
					 "verification-keys[%zu]: not a PEM "
					 "or base64 DER public key",
					 i);
		}
	}
	json_object_put(inner);
	return rc;
}

static int load_attest(struct att_wl *wl, struct json_object *o, char *err,
		       size_t errlen)
{
	int rc = want_type(o, json_type_object, "attest", err, errlen);

	if (rc)
		return rc;
	json_object_object_foreach(o, key, val)
	{
		if (!strcmp(key, "violations")) {
			const char *s = json_object_get_string(val);

			if (!json_object_is_type(val, json_type_string) ||
			    (strcmp(s, "fail") && strcmp(s, "allow"))) {
				snprintf(err, errlen, "attest.violations: must "
						      "be \"fail\" or "
						      "\"allow\"");
				return ATT_E_FORMAT;
			}
			wl->violations = !strcmp(s, "allow") ?
						 ATT_WL_VIOLATIONS_ALLOW :
						 ATT_WL_VIOLATIONS_FAIL;
		} else {
			snprintf(err, errlen, "attest: unknown field '%.64s'",
				 key);
			return ATT_E_FORMAT;
		}
	}
	return ATT_OK;
}

static int load_root(struct att_wl *wl, struct json_object *root, char *err,
		     size_t errlen)
{
	int rc = want_type(root, json_type_object, "whitelist", err, errlen);

	if (rc)
		return rc;
	json_object_object_foreach(root, key, val)
	{
		if (!strcmp(key, "digests"))
			rc = load_digest_object(wl, &wl->digests, val,
						"digests", err, errlen);
		else if (!strcmp(key, "keyrings"))
			rc = load_digest_object(wl, &wl->keyrings, val,
						"keyrings", err, errlen);
		else if (!strcmp(key, "ima-buf"))
			rc = load_digest_object(wl, &wl->bufs, val, "ima-buf",
						err, errlen);
		else if (!strcmp(key, "excludes"))
			rc = load_excludes(wl, val, err, errlen);
		else if (!strcmp(key, "ima"))
			rc = load_ima(wl, val, err, errlen);
		else if (!strcmp(key, "verification-keys"))
			rc = load_keys(wl, val, err, errlen);
		else if (!strcmp(key, "attest"))
			rc = load_attest(wl, val, err, errlen);
		else if (!strcmp(key, "meta"))
			rc = want_type(val, json_type_object, "meta", err,
				       errlen);
		else if (!strcmp(key, "release"))
			rc = want_type(val, json_type_int, "release", err,
				       errlen);
		else {
			snprintf(err, errlen, "unknown field '%.64s'", key);
			rc = ATT_E_FORMAT;
		}
		if (rc)
			return rc;
	}
	return ATT_OK;
}

int att_wl_load_json(const char *text, size_t len,
		     const struct att_wl_limits *lim, struct att_wl **out,
		     char *err, size_t errlen)
{
	struct json_object *root;
	struct att_wl *wl;
	int rc;

	rc = wl_new(lim, &wl);
	if (rc)
		return rc;
	if (len > wl->lim.max_bytes) {
		snprintf(err, errlen, "whitelist larger than %zu bytes",
			 wl->lim.max_bytes);
		att_wl_free(wl);
		return ATT_E_TOO_BIG;
	}
	rc = att_json_parse(text, len, wl->lim.max_depth, &root, err, errlen);
	if (rc) {
		att_wl_free(wl);
		return rc;
	}
	rc = load_root(wl, root, err, errlen);
	json_object_put(root);
	if (rc) {
		att_wl_free(wl);
		return rc;
	}
	*out = wl;
	return ATT_OK;
}

int att_wl_load_any(const char *text, size_t len,
		    const struct att_wl_limits *lim, struct att_wl **out,
		    char *err, size_t errlen)
{
	size_t i = 0;

	while (i < len && (text[i] == ' ' || text[i] == '\n' ||
			   text[i] == '\t' || text[i] == '\r'))
		i++;
	if (i < len && text[i] == '{')
		return att_wl_load_json(text, len, lim, out, err, errlen);
	return att_wl_load_legacy(text, len, NULL, 0, lim, out, err, errlen);
}
