// SPDX-License-Identifier: Apache-2.0
/*
 * wldoc.c - the editable whitelist document.
 */
#include "wldoc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/whitelist.h"

#define WLDOC_VERSION ATT_VERSION
#define WLDOC_MAX     (256u << 20)

int wldoc_new(struct wldoc **out)
{
	struct wldoc *d = calloc(1, sizeof(*d));

	if (!d)
		return ATT_E_NOMEM;
	d->root = json_object_new_object();
	if (!d->root) {
		free(d);
		return ATT_E_NOMEM;
	}
	*out = d;
	return ATT_OK;
}

void wldoc_free(struct wldoc *d)
{
	if (!d)
		return;
	json_object_put(d->root);
	free(d);
}

int wldoc_load(const char *path, struct wldoc **out, char *err, size_t errlen)
{
	struct att_wl *wl = NULL;
	struct json_object *root = NULL;
	struct att_buf b;
	struct wldoc *d;
	int rc;

	att_buf_init(&b, 0);
	rc = att_buf_read_file(&b, path, WLDOC_MAX);
	if (rc) {
		snprintf(err, errlen, "%s",
			 rc == ATT_E_IO ? "cannot read" : att_strerror(rc));
		return rc;
	}
	/* The engine's loader is the authority on what is valid. */
	rc = att_wl_load_json((const char *)b.data, b.len, NULL, &wl, err,
			      errlen);
	att_wl_free(wl);
	if (!rc)
		rc = att_json_parse((const char *)b.data, b.len, 64, &root, err,
				    errlen);
	att_buf_release(&b);
	if (rc)
		return rc;
	d = calloc(1, sizeof(*d));
	if (!d) {
		json_object_put(root);
		return ATT_E_NOMEM;
	}
	d->root = root;
	*out = d;
	return ATT_OK;
}

static struct json_object *section(struct wldoc *d, const char *name,
				   enum json_type t)
{
	struct json_object *o;

	if (json_object_object_get_ex(d->root, name, &o))
		return o;
	o = t == json_type_array ? json_object_new_array()
				 : json_object_new_object();
	if (o)
		json_object_object_add(d->root, name, o);
	return o;
}

static int array_has_string(struct json_object *a, const char *s)
{
	size_t i, n = json_object_array_length(a);

	for (i = 0; i < n; i++)
		if (!strcmp(json_object_get_string(
				    json_object_array_get_idx(a, i)),
			    s))
			return 1;
	return 0;
}

static int add_to_map(struct json_object *map, const char *key, const char *val)
{
	struct json_object *arr;

	if (!json_object_object_get_ex(map, key, &arr)) {
		arr = json_object_new_array();
		if (!arr)
			return ATT_E_NOMEM;
		json_object_object_add(map, key, arr);
	}
	if (!val || array_has_string(arr, val))
		return ATT_OK;
	return json_object_array_add(arr, json_object_new_string(val))
		       ? ATT_E_NOMEM
		       : ATT_OK;
}

int wldoc_add_digest(struct wldoc *d, const char *path, const char *hex)
{
	struct json_object *digests = section(d, "digests", json_type_object);

	if (!digests)
		return ATT_E_NOMEM;
	if (!wldoc_utf8_ok((const uint8_t *)path, strlen(path)))
		return ATT_E_FORMAT;
	return add_to_map(digests, path, hex);
}

int wldoc_add_buf(struct wldoc *d, const char *name, const char *hex)
{
	struct json_object *bufs = section(d, "ima-buf", json_type_object);

	if (!bufs)
		return ATT_E_NOMEM;
	if (!wldoc_utf8_ok((const uint8_t *)name, strlen(name)))
		return ATT_E_FORMAT;
	return add_to_map(bufs, name, hex);
}

int wldoc_remove(struct wldoc *d, const char *path, const char *hex)
{
	struct json_object *digests, *arr, *keep;
	size_t i, n;
	int found = 0;

	if (!json_object_object_get_ex(d->root, "digests", &digests) ||
	    !json_object_object_get_ex(digests, path, &arr))
		return ATT_E_NOT_FOUND;
	if (!hex) {
		json_object_object_del(digests, path);
		return ATT_OK;
	}
	keep = json_object_new_array();
	if (!keep)
		return ATT_E_NOMEM;
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		const char *s = json_object_get_string(
			json_object_array_get_idx(arr, i));

		if (!strcmp(s, hex))
			found = 1;
		else
			json_object_array_add(keep, json_object_new_string(s));
	}
	if (!found) {
		json_object_put(keep);
		return ATT_E_NOT_FOUND;
	}
	json_object_object_add(digests, path, keep);
	return ATT_OK;
}

int wldoc_add_exclude(struct wldoc *d, const char *regex)
{
	struct json_object *ex = section(d, "excludes", json_type_array);

	if (!ex)
		return ATT_E_NOMEM;
	if (array_has_string(ex, regex))
		return ATT_OK;
	return json_object_array_add(ex, json_object_new_string(regex))
		       ? ATT_E_NOMEM
		       : ATT_OK;
}

static int merge_map(struct wldoc *d, const struct wldoc *src, const char *name)
{
	struct json_object *from, *to;
	int rc;

	if (!json_object_object_get_ex(src->root, name, &from))
		return ATT_OK;
	to = section(d, name, json_type_object);
	if (!to)
		return ATT_E_NOMEM;
	json_object_object_foreach(from, key, arr)
	{
		size_t i, n = json_object_array_length(arr);

		rc = add_to_map(to, key, NULL);
		for (i = 0; !rc && i < n; i++)
			rc = add_to_map(
				to, key,
				json_object_get_string(
					json_object_array_get_idx(arr, i)));
		if (rc)
			return rc;
	}
	return ATT_OK;
}

int wldoc_merge(struct wldoc *d, const struct wldoc *src)
{
	struct json_object *ex, *ima, *ign, *at, *keys, *lat, *boot;
	int rc;

	/* attest options: the later whitelist's settings win. */
	if (json_object_object_get_ex(src->root, "attest", &at)) {
		struct json_object *dat =
			section(d, "attest", json_type_object);

		if (!dat)
			return ATT_E_NOMEM;
		json_object_object_foreach(at, k, v)
			json_object_object_add(dat, k, json_object_get(v));
	}
	/* slim.ko's lattice policy: the later whitelist's section wins. */
	if (json_object_object_get_ex(src->root, "lattice", &lat))
		json_object_object_add(d->root, "lattice", json_object_get(lat));
	/* The measured boot policy too: the later whitelist's section wins. */
	if (json_object_object_get_ex(src->root, "boot", &boot))
		json_object_object_add(d->root, "boot", json_object_get(boot));
	if (json_object_object_get_ex(src->root, "verification-keys", &keys)) {
		struct json_object *dk;

		if (!json_object_object_get_ex(d->root, "verification-keys",
					       &dk) ||
		    (json_object_is_type(dk, json_type_string) &&
		     !json_object_get_string_len(dk))) {
			json_object_object_add(d->root, "verification-keys",
					       json_object_get(keys));
		} else if (json_object_is_type(dk, json_type_array) &&
			   json_object_is_type(keys, json_type_array)) {
			size_t i, n = json_object_array_length(keys);

			for (i = 0; i < n; i++) {
				const char *s = json_object_get_string(
					json_object_array_get_idx(keys, i));

				if (!array_has_string(dk, s))
					json_object_array_add(
						dk, json_object_new_string(s));
			}
		} else if (strcmp(json_object_to_json_string(dk),
				  json_object_to_json_string(keys))) {
			return ATT_E_UNSUPPORTED; /* two keyrings, two forms */
		}
	}

	if ((rc = merge_map(d, src, "digests")) ||
	    (rc = merge_map(d, src, "keyrings")) ||
	    (rc = merge_map(d, src, "ima-buf")))
		return rc;
	if (json_object_object_get_ex(src->root, "excludes", &ex)) {
		size_t i, n = json_object_array_length(ex);

		for (i = 0; i < n; i++) {
			rc = wldoc_add_exclude(
				d, json_object_get_string(
					   json_object_array_get_idx(ex, i)));
			if (rc)
				return rc;
		}
	}
	if (json_object_object_get_ex(src->root, "ima", &ima) &&
	    json_object_object_get_ex(ima, "ignored_keyrings", &ign)) {
		struct json_object *dima = section(d, "ima", json_type_object);
		struct json_object *dign;
		size_t i, n = json_object_array_length(ign);

		if (!dima)
			return ATT_E_NOMEM;
		if (!json_object_object_get_ex(dima, "ignored_keyrings",
					       &dign)) {
			dign = json_object_new_array();
			json_object_object_add(dima, "ignored_keyrings", dign);
		}
		for (i = 0; i < n; i++) {
			const char *s = json_object_get_string(
				json_object_array_get_idx(ign, i));

			if (!array_has_string(dign, s))
				json_object_array_add(
					dign, json_object_new_string(s));
		}
	}
	return ATT_OK;
}

int wldoc_set_meta(struct wldoc *d, const char *source, const char *hash_alg)
{
	struct json_object *meta = section(d, "meta", json_type_object);
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;

	if (!meta)
		return ATT_E_NOMEM;
	if (sde && *sde) {
		char *end;
		long long v = strtoll(sde, &end, 10);

		if (!*end && v >= 0)
			now = (time_t)v;
	}
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(meta, "version", json_object_new_int(1));
	json_object_object_add(
		meta, "generator",
		json_object_new_string("attest-whitelist " WLDOC_VERSION));
	json_object_object_add(meta, "timestamp", json_object_new_string(ts));
	if (source)
		json_object_object_add(meta, "source",
				       json_object_new_string(source));
	if (hash_alg)
		json_object_object_add(meta, "hash_alg",
				       json_object_new_string(hash_alg));
	return ATT_OK;
}

size_t wldoc_path_count(const struct wldoc *d)
{
	struct json_object *digests;

	if (!json_object_object_get_ex(d->root, "digests", &digests))
		return 0;
	return (size_t)json_object_object_length(digests);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_json_str(const void *a, const void *b)
{
	return strcmp(json_object_get_string(*(struct json_object *const *)a),
		      json_object_get_string(*(struct json_object *const *)b));
}

/* Deep copy with object keys sorted, and string arrays of maps sorted. */
static struct json_object *sorted_copy(struct json_object *o, int sort_arrays)
{
	struct json_object *c;
	size_t i, n;

	if (json_object_is_type(o, json_type_object)) {
		const char **keys;

		n = (size_t)json_object_object_length(o);
		keys = calloc(n ? n : 1, sizeof(*keys));
		c = json_object_new_object();
		if (!keys || !c) {
			free(keys);
			json_object_put(c);
			return NULL;
		}
		i = 0;
		json_object_object_foreach(o, k, v)
		{
			(void)v;
			keys[i++] = k;
		}
		qsort(keys, n, sizeof(*keys), cmp_str);
		for (i = 0; i < n; i++) {
			struct json_object *val =
				json_object_object_get(o, keys[i]);
			int sa = !strcmp(keys[i], "digests") ||
				 !strcmp(keys[i], "keyrings") ||
				 !strcmp(keys[i], "ima-buf") || sort_arrays;

			json_object_object_add(
				c, keys[i], val ? sorted_copy(val, sa) : NULL);
		}
		free(keys);
		return c;
	}
	if (json_object_is_type(o, json_type_array)) {
		struct json_object **items;

		n = json_object_array_length(o);
		items = calloc(n ? n : 1, sizeof(*items));
		c = json_object_new_array();
		if (!items || !c) {
			free(items);
			json_object_put(c);
			return NULL;
		}
		for (i = 0; i < n; i++)
			items[i] = json_object_array_get_idx(o, i);
		if (sort_arrays)
			qsort(items, n, sizeof(*items), cmp_json_str);
		for (i = 0; i < n; i++)
			json_object_array_add(c, sorted_copy(items[i], 0));
		free(items);
		return c;
	}
	return json_object_get(o);
}

int wldoc_to_string(const struct wldoc *d, char **out)
{
	struct json_object *c = sorted_copy(d->root, 0);
	const char *s;

	if (!c)
		return ATT_E_NOMEM;
	s = json_object_to_json_string_ext(
		c, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			   JSON_C_TO_STRING_NOSLASHESCAPE);
	*out = s ? strdup(s) : NULL;
	json_object_put(c);
	return *out ? ATT_OK : ATT_E_NOMEM;
}

int wldoc_write(const struct wldoc *d, const char *path)
{
	char *s;
	size_t n;
	int rc = wldoc_to_string(d, &s);

	if (rc)
		return rc;
	n = strlen(s);
	if (!strcmp(path, "-")) {
		rc = fwrite(s, 1, n, stdout) == n &&
				     fputc('\n', stdout) != EOF &&
				     !fflush(stdout)
			     ? ATT_OK
			     : ATT_E_IO;
	} else {
		s[n] = '\n'; /* replace the NUL: written with its length */
		rc = att_write_file_atomic(path, s, n + 1, 0644);
	}
	free(s);
	return rc;
}

int wldoc_utf8_ok(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = s[i];
		size_t k;

		if (c == 0)
			return 0;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			k = 1;
		else if (c >= 0xe0 && c <= 0xef)
			k = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			k = 3;
		else
			return 0;
		if (n - i <= k)
			return 0;
		if ((c == 0xe0 && s[i + 1] < 0xa0) ||
		    (c == 0xed && s[i + 1] >= 0xa0) ||
		    (c == 0xf0 && s[i + 1] < 0x90) ||
		    (c == 0xf4 && s[i + 1] >= 0x90))
			return 0;
		for (i++; k; k--, i++)
			if ((s[i] & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}
