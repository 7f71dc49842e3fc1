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
#include "attest/jsonpull.h"
#include "wl_internal.h"

static int want_type(struct json_object *o, enum json_type t, const char *what,
		     char *err, size_t errlen)
{
	static const char *const names[] = {"null",   "boolean", "number",
					    "number", "object",	 "array",
					    "string"};

	if (json_object_is_type(o, t))
		return ATT_OK;
	snprintf(err, errlen, "%s: must be %s", what,
		 (unsigned int)t < 7 ? names[t] : "?");
	return ATT_E_FORMAT;
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
				snprintf(err, errlen,
					 "ima.dm_policy: device-"
					 "mapper policies are not "
					 "supported");
				return ATT_E_UNSUPPORTED;
			}
		} else {
			snprintf(err, errlen, "ima: unknown field '%.64s'",
				 key);
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
			snprintf(err, errlen,
				 "verification-keys: no pubkeys "
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
				snprintf(err, errlen,
					 "attest.violations: must "
					 "be \"fail\" or "
					 "\"allow\"");
				return ATT_E_FORMAT;
			}
			wl->violations = !strcmp(s, "allow")
						 ? ATT_WL_VIOLATIONS_ALLOW
						 : ATT_WL_VIOLATIONS_FAIL;
		} else {
			snprintf(err, errlen, "attest: unknown field '%.64s'",
				 key);
			return ATT_E_FORMAT;
		}
	}
	return ATT_OK;
}

/* Section bits, to refuse a repeated top-level key. */
enum {
	SEC_DIGESTS = 1 << 0,
	SEC_KEYRINGS = 1 << 1,
	SEC_IMABUF = 1 << 2,
	SEC_EXCLUDES = 1 << 3,
	SEC_IMA = 1 << 4,
	SEC_KEYS = 1 << 5,
	SEC_ATTEST = 1 << 6,
	SEC_META = 1 << 7,
	SEC_RELEASE = 1 << 8,
	SEC_LATTICE = 1 << 9,
	SEC_BOOT = 1 << 10,
};

#define WL_MAX_NAME 8192

static int jp_fail(struct att_jp *jp, int rc, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", jp->err[0] ? jp->err : att_strerror(rc));
	return rc;
}

/* "name": ["hex", ...] objects: digests, keyrings, ima-buf, streamed. */
static int pull_digest_object(struct att_wl *wl, struct att_jp *jp,
			      struct dmap *m, const char *what, char *err,
			      size_t errlen)
{
	char name[WL_MAX_NAME];
	enum att_jp_tok t;
	int rc;

	if ((rc = att_jp_next(jp, &t)))
		return jp_fail(jp, rc, err, errlen);
	if (t != ATT_JP_OBJ_START) {
		snprintf(err, errlen, "%s: must be object", what);
		return ATT_E_FORMAT;
	}
	for (;;) {
		size_t nlen, n = 0, idx;

		if ((rc = att_jp_next(jp, &t)))
			return jp_fail(jp, rc, err, errlen);
		if (t == ATT_JP_OBJ_END)
			return ATT_OK;
		nlen = jp->slen;
		if (!nlen || nlen >= sizeof(name) ||
		    memchr(jp->str, '\0', nlen)) {
			snprintf(err, errlen,
				 "%s: empty, too long or NUL-"
				 "holding name",
				 what);
			return ATT_E_FORMAT;
		}
		memcpy(name, jp->str, nlen);
		name[nlen] = '\0';
		if (m->count >= wl->lim.max_paths) {
			snprintf(err, errlen, "%s: more than %zu names", what,
				 wl->lim.max_paths);
			return ATT_E_TOO_BIG;
		}
		if ((rc = att_jp_next(jp, &t)))
			return jp_fail(jp, rc, err, errlen);
		if (t != ATT_JP_ARR_START) {
			snprintf(err, errlen,
				 "%s[\"%.64s\"]: must be an array "
				 "of digests",
				 what, name);
			return ATT_E_FORMAT;
		}
		rc = dmap_add_new(m, name, nlen, &idx);
		if (rc == ATT_E_EXISTS) {
			snprintf(err, errlen, "%s: duplicate key '%.64s'", what,
				 name);
			return ATT_E_FORMAT;
		}
		if (rc)
			return rc;
		for (;;) {
			uint8_t dig[ATT_DIGEST_MAX];
			enum att_hash alg;
			size_t dlen;

			if ((rc = att_jp_next(jp, &t)))
				return jp_fail(jp, rc, err, errlen);
			if (t == ATT_JP_ARR_END)
				break;
			if (++n > wl->lim.max_digests_per_path) {
				snprintf(err, errlen,
					 "%s[\"%.64s\"]: more than %zu "
					 "digests",
					 what, name,
					 wl->lim.max_digests_per_path);
				return ATT_E_TOO_BIG;
			}
			if (t != ATT_JP_STRING ||
			    wl_parse_digest(jp->str, jp->slen, &alg, dig,
					    &dlen)) {
				snprintf(err, errlen,
					 "%s[\"%.64s\"][%zu]: not a digest "
					 "(hex of a known length, or "
					 "algo:hex)",
					 what, name, n - 1);
				return ATT_E_FORMAT;
			}
			rc = dmap_add_digest(m, idx, alg, dig, dlen);
			if (rc)
				return rc;
		}
	}
}

static int pull_excludes(struct att_wl *wl, struct att_jp *jp, char *err,
			 size_t errlen)
{
	enum att_jp_tok t;
	char **pats = NULL;
	size_t n = 0, i;
	int rc;

	if ((rc = att_jp_next(jp, &t)))
		return jp_fail(jp, rc, err, errlen);
	if (t != ATT_JP_ARR_START) {
		snprintf(err, errlen, "excludes: must be array");
		return ATT_E_FORMAT;
	}
	for (;;) {
		char **np;

		if ((rc = att_jp_next(jp, &t))) {
			rc = jp_fail(jp, rc, err, errlen);
			goto out;
		}
		if (t == ATT_JP_ARR_END)
			break;
		if (t != ATT_JP_STRING) {
			snprintf(err, errlen, "excludes[%zu]: must be a string",
				 n);
			rc = ATT_E_FORMAT;
			goto out;
		}
		if (n >= wl->lim.max_excludes) {
			snprintf(err, errlen,
				 "excludes: more than %zu patterns",
				 wl->lim.max_excludes);
			rc = ATT_E_TOO_BIG;
			goto out;
		}
		np = realloc(pats, (n + 1) * sizeof(*np));
		if (!np) {
			rc = ATT_E_NOMEM;
			goto out;
		}
		pats = np;
		pats[n] = strndup(jp->str, jp->slen);
		if (!pats[n]) {
			rc = ATT_E_NOMEM;
			goto out;
		}
		if (strlen(pats[n]) != jp->slen) {
			n++;
			snprintf(err, errlen, "excludes[%zu]: NUL in pattern",
				 n - 1);
			rc = ATT_E_FORMAT;
			goto out;
		}
		n++;
	}
	rc = wl_compile_excludes(wl, (const char *const *)pats, n, err, errlen);
out:
	for (i = 0; i < n; i++)
		free(pats[i]);
	free(pats);
	return rc;
}

/* Small sections go through the tree parser (duplicate keys and all). */
static int tree_section(struct att_wl *wl, struct att_jp *jp, int sec,
			char *err, size_t errlen)
{
	struct json_object *o = NULL;
	enum att_jp_tok t;
	size_t a, b;
	int rc;

	if ((rc = att_jp_next(jp, &t)) || (rc = att_jp_skip(jp, t, &a, &b)))
		return jp_fail(jp, rc, err, errlen);
	rc = att_json_parse(jp->p + a, b - a, wl->lim.max_depth, &o, err,
			    errlen);
	if (rc)
		return rc;
	switch (sec) {
	case SEC_IMA:
		rc = load_ima(wl, o, err, errlen);
		break;
	case SEC_KEYS:
		rc = load_keys(wl, o, err, errlen);
		break;
	case SEC_ATTEST:
		rc = load_attest(wl, o, err, errlen);
		break;
	case SEC_META:
		rc = want_type(o, json_type_object, "meta", err, errlen);
		break;
	case SEC_LATTICE:
		rc = att_lat_policy_from_json(o, &wl->lattice, err, errlen);
		break;
	case SEC_BOOT:
		rc = att_boot_policy_from_json(o, &wl->boot, err, errlen);
		break;
	default:
		rc = want_type(o, json_type_int, "release", err, errlen);
	}
	json_object_put(o);
	return rc;
}

static const struct {
	const char *name;
	int sec;
} sections[] = {
	{"digests", SEC_DIGESTS}, {"keyrings", SEC_KEYRINGS},
	{"ima-buf", SEC_IMABUF},  {"excludes", SEC_EXCLUDES},
	{"ima", SEC_IMA},	  {"verification-keys", SEC_KEYS},
	{"attest", SEC_ATTEST},	  {"meta", SEC_META},
	{"release", SEC_RELEASE}, {"lattice", SEC_LATTICE},
	{"boot", SEC_BOOT},
};

static int load_root(struct att_wl *wl, struct att_jp *jp, char *err,
		     size_t errlen)
{
	enum att_jp_tok t;
	int rc, seen = 0;

	if ((rc = att_jp_next(jp, &t)))
		return jp_fail(jp, rc, err, errlen);
	if (t != ATT_JP_OBJ_START) {
		snprintf(err, errlen, "whitelist: must be a JSON object");
		return ATT_E_FORMAT;
	}
	for (;;) {
		size_t i;
		int sec = 0;

		if ((rc = att_jp_next(jp, &t)))
			return jp_fail(jp, rc, err, errlen);
		if (t == ATT_JP_OBJ_END)
			break;
		for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
			if (strlen(sections[i].name) == jp->slen &&
			    !memcmp(sections[i].name, jp->str, jp->slen))
				sec = sections[i].sec;
		if (!sec) {
			snprintf(err, errlen, "unknown field '%.*s'",
				 (int)(jp->slen > 64 ? 64 : jp->slen), jp->str);
			return ATT_E_FORMAT;
		}
		if (seen & sec) {
			snprintf(err, errlen, "duplicate key '%.*s'",
				 (int)jp->slen, jp->str);
			return ATT_E_FORMAT;
		}
		seen |= sec;
		if (sec == SEC_DIGESTS)
			rc = pull_digest_object(wl, jp, &wl->digests, "digests",
						err, errlen);
		else if (sec == SEC_KEYRINGS)
			rc = pull_digest_object(wl, jp, &wl->keyrings,
						"keyrings", err, errlen);
		else if (sec == SEC_IMABUF)
			rc = pull_digest_object(wl, jp, &wl->bufs, "ima-buf",
						err, errlen);
		else if (sec == SEC_EXCLUDES)
			rc = pull_excludes(wl, jp, err, errlen);
		else
			rc = tree_section(wl, jp, sec, err, errlen);
		if (rc)
			return rc;
	}
	if ((rc = att_jp_next(jp, &t)))
		return jp_fail(jp, rc, err, errlen);
	return ATT_OK;
}

int att_wl_load_json(const char *text, size_t len,
		     const struct att_wl_limits *lim, struct att_wl **out,
		     char *err, size_t errlen)
{
	struct att_jp jp;
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
	att_jp_init(&jp, text, len, wl->lim.max_depth);
	rc = load_root(wl, &jp, err, errlen);
	att_jp_release(&jp);
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
