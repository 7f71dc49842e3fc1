// SPDX-License-Identifier: Apache-2.0
/*
 * pkg_cache.c - one JSON file per archive: {"v": 1, "hash": ALG, "bytes": N,
 * "entries": [[KIND, CANDIDATE, DIGEST-or-TARGET, PATH], ...]} where KIND
 * is "r" (regular), "h" (hard link), "l" (symlink), "d" or "s" (special).
 * A file that does not parse is ignored and rewritten.
 */
#include "pkg_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"

#define CACHE_VERSION 1
#define CACHE_MAX     (512u << 20)

static const char kinds[] = "rhlds"; /* by enum pkg_kind */

static int cache_path(const char *dir, enum att_hash h, enum pkg_type type,
		      const uint8_t *sha256, struct att_buf *p, int mkdirs)
{
	char hex[65];

	att_hex_encode(sha256, 32, hex);
	if (mkdirs) {
		if (att_buf_printf(p, "%s/%s", dir, att_hash_name(h)) ||
		    att_buf_cstr(p))
			return ATT_E_NOMEM;
		if (mkdir(dir, 0755) && errno != EEXIST)
			return ATT_E_IO;
		if (mkdir((char *)p->data, 0755) && errno != EEXIST)
			return ATT_E_IO;
		p->len = 0;
	}
	if (att_buf_printf(p, "%s/%s/%s-%s.json", dir, att_hash_name(h),
			   type == PKG_TYPE_DEB ? "deb" : "initrd", hex) ||
	    att_buf_cstr(p))
		return ATT_E_NOMEM;
	return ATT_OK;
}

static int load_entry(struct json_object *a, size_t dlen, struct pkg_list *l)
{
	const char *k, *x, *path, *kp;
	uint8_t d[ATT_DIGEST_MAX] = {0};
	size_t xl;
	int cand;

	if (!json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) != 4)
		return ATT_E_FORMAT;
	k = json_object_get_string(json_object_array_get_idx(a, 0));
	x = json_object_get_string(json_object_array_get_idx(a, 2));
	path = json_object_get_string(json_object_array_get_idx(a, 3));
	cand = json_object_get_int(json_object_array_get_idx(a, 1));
	if (!k || !x || !path || strlen(k) != 1 || path[0] != '/' ||
	    strlen(path) > PKG_MAX_PATH)
		return ATT_E_FORMAT;
	kp = strchr(kinds, k[0]);
	if (!kp)
		return ATT_E_FORMAT;
	xl = strlen(x);
	if (*kp == 'r' || *kp == 'h') {
		size_t got;

		if (xl != 2 * dlen ||
		    att_hex_decode(x, xl, d, sizeof(d), &got) || got != dlen)
			return ATT_E_FORMAT;
	}
	return pkg_list_add(l, (enum pkg_kind)(kp - kinds), path,
			    *kp == 'l' ? x : NULL, cand == 1, d);
}

int pkg_cache_load(const char *dir, enum att_hash h, enum pkg_type type,
		   const uint8_t *sha256, struct pkg_list *l)
{
	struct json_object *root = NULL, *v, *ents;
	struct json_tokener *tok;
	struct att_buf p, b;
	size_t i, n;
	int rc = ATT_E_NOT_FOUND;

	att_buf_init(&p, 0);
	att_buf_init(&b, 0);
	if (cache_path(dir, h, type, sha256, &p, 0) ||
	    att_buf_read_file(&b, (char *)p.data, CACHE_MAX))
		goto out;
	tok = json_tokener_new();
	if (!tok)
		goto out;
	root = json_tokener_parse_ex(tok, (const char *)b.data, (int)b.len);
	json_tokener_free(tok);
	if (!root || !json_object_object_get_ex(root, "v", &v) ||
	    json_object_get_int(v) != CACHE_VERSION ||
	    !json_object_object_get_ex(root, "hash", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), att_hash_name(h)) ||
	    !json_object_object_get_ex(root, "entries", &ents) ||
	    !json_object_is_type(ents, json_type_array))
		goto out;
	n = json_object_array_length(ents);
	for (i = 0; i < n; i++)
		if (load_entry(json_object_array_get_idx(ents, i),
			       att_hash_size(h), l))
			break;
	if (i < n) {
		pkg_list_release(l);
		pkg_list_init(l, type == PKG_TYPE_INITRD);
		goto out;
	}
	if (json_object_object_get_ex(root, "bytes", &v))
		l->bytes = (uint64_t)json_object_get_int64(v);
	rc = ATT_OK;
out:
	json_object_put(root);
	att_buf_release(&p);
	att_buf_release(&b);
	return rc;
}

int pkg_cache_store(const char *dir, enum att_hash h, enum pkg_type type,
		    const uint8_t *sha256, const struct pkg_list *l)
{
	struct json_object *root = json_object_new_object(),
			   *ents = json_object_new_array();
	struct att_buf p;
	const char *text;
	size_t i;
	int rc = ATT_E_NOMEM;

	att_buf_init(&p, 0);
	if (!root || !ents)
		goto out;
	json_object_object_add(root, "v", json_object_new_int(CACHE_VERSION));
	json_object_object_add(root, "hash",
			       json_object_new_string(att_hash_name(h)));
	json_object_object_add(root, "bytes",
			       json_object_new_int64((int64_t)l->bytes));
	for (i = 0; i < l->n; i++) {
		const struct pkg_entry *e = &l->e[i];
		struct json_object *a = json_object_new_array();
		char k[2] = {kinds[e->kind], 0};
		char hex[2 * ATT_DIGEST_MAX + 1] = "";

		if (!a)
			goto out;
		if (e->kind == PKG_REG || e->kind == PKG_HARDLINK)
			att_hex_encode(e->digest, att_hash_size(h), hex);
		json_object_array_add(a, json_object_new_string(k));
		json_object_array_add(a, json_object_new_int(e->candidate));
		json_object_array_add(
			a, json_object_new_string(e->target ? e->target : hex));
		json_object_array_add(a, json_object_new_string(e->path));
		json_object_array_add(ents, a);
	}
	json_object_object_add(root, "entries", ents);
	ents = NULL;
	rc = cache_path(dir, h, type, sha256, &p, 1);
	if (rc)
		goto out;
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	rc = text ? att_write_file_atomic((char *)p.data, text, strlen(text),
					  0644)
		  : ATT_E_NOMEM;
out:
	json_object_put(ents);
	json_object_put(root);
	att_buf_release(&p);
	return rc;
}
