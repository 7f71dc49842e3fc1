// SPDX-License-Identifier: Apache-2.0
/*
 * cmd_keylime.c - attest-whitelist import / export: Keylime's runtime
 * policy JSON and its legacy "hash  path" allowlist plus exclude list, both
 * ways, so that a Keylime user can move in either direction.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/whitelist.h"
#include "wlcli.h"
#include "wldoc.h"

struct kl_args {
	const char *allowlist, *excludes, *policy, *out, *in;
};

static int kl_parse(int argc, char **argv, struct kl_args *a)
{
	static const struct option opts[] = {
		{"allowlist", required_argument, NULL, 'a'},
		{"excludes", required_argument, NULL, 'x'},
		{"policy", required_argument, NULL, 'p'},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->out = "-";
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			a->allowlist = optarg;
			break;
		case 'x':
			a->excludes = optarg;
			break;
		case 'p':
			a->policy = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		default:
			return ATT_E_INVAL;
		}
	}
	if (optind < argc)
		a->in = argv[optind++];
	return optind == argc ? ATT_OK : ATT_E_INVAL;
}

/* Splits text into lines, calling fn(line, len) for non-comment lines. */
static int each_line(const char *t, size_t len,
		     int (*fn)(struct wldoc *, const char *, size_t, unsigned),
		     struct wldoc *d)
{
	size_t pos = 0;
	unsigned int line = 0;
	int rc;

	while (pos < len) {
		const char *nl = memchr(t + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - t) : len, n = end - pos;

		line++;
		if (n && t[end - 1] == '\r')
			n--;
		if (n && t[pos] != '#') {
			rc = fn(d, t + pos, n, line);
			if (rc)
				return rc;
		}
		pos = end + 1;
	}
	return ATT_OK;
}

static int allow_line(struct wldoc *d, const char *l, size_t n, unsigned line)
{
	const char *sp = memchr(l, ' ', n);
	char *hex, *path;
	size_t i;
	int rc;

	if (!sp) {
		fprintf(stderr,
			"attest-whitelist: allowlist line %u: no path\n", line);
		return ATT_E_FORMAT;
	}
	i = (size_t)(sp - l) + 1;
	if (i < n && (l[i] == ' ' || l[i] == '*'))
		i++;
	hex = strndup(l, (size_t)(sp - l));
	path = strndup(l + i, n - i);
	rc = !hex || !path ? ATT_E_NOMEM : wldoc_add_digest(d, path, hex);
	if (rc)
		fprintf(stderr, "attest-whitelist: allowlist line %u: %s\n",
			line,
			rc == ATT_E_FORMAT ? "path is not UTF-8"
					   : att_strerror(rc));
	free(hex);
	free(path);
	return rc;
}

static int excl_line(struct wldoc *d, const char *l, size_t n, unsigned line)
{
	char *re = strndup(l, n);
	int rc;

	(void)line;
	if (!re)
		return ATT_E_NOMEM;
	rc = wldoc_add_exclude(d, re);
	free(re);
	return rc;
}

static int read_all(const char *path, struct att_buf *b)
{
	att_buf_init(b, 0);
	if (att_buf_read_file(b, path, 256u << 20)) {
		fprintf(stderr, "attest-whitelist: %s: cannot read\n", path);
		return ATT_E_IO;
	}
	return ATT_OK;
}

/* import --allowlist FILE [--excludes FILE] | --policy FILE  [-o OUT] */
static int cmd_import(int argc, char **argv)
{
	struct att_wl *wl = NULL;
	struct wldoc *d = NULL;
	struct att_buf a, x;
	struct kl_args k;
	char err[300] = "";
	int rc;

	if (kl_parse(argc, argv, &k) || k.in || (!k.allowlist == !k.policy) ||
	    (k.excludes && !k.allowlist)) {
		fprintf(stderr,
			"usage: attest-whitelist import --allowlist FILE "
			"[--excludes FILE] | --policy FILE [-o OUT]\n");
		return WLCLI_EXIT_ERROR;
	}
	if (k.policy) {
		if (wldoc_load(k.policy, &d, err, sizeof(err))) {
			fprintf(stderr, "attest-whitelist: %s: %s\n", k.policy,
				err);
			return WLCLI_EXIT_ERROR;
		}
		goto write;
	}
	if (read_all(k.allowlist, &a))
		return WLCLI_EXIT_ERROR;
	att_buf_init(&x, 0);
	if (k.excludes && read_all(k.excludes, &x)) {
		att_buf_release(&a);
		return WLCLI_EXIT_ERROR;
	}
	/* The engine's loader decides what is valid, then we convert. */
	rc = att_wl_load_legacy((const char *)a.data, a.len,
				k.excludes ? (const char *)x.data : NULL, x.len,
				NULL, &wl, err, sizeof(err));
	att_wl_free(wl);
	if (rc)
		fprintf(stderr, "attest-whitelist: %s: %s\n", k.allowlist, err);
	if (!rc)
		rc = wldoc_new(&d);
	if (!rc)
		rc = each_line((const char *)a.data, a.len, allow_line, d);
	if (!rc && k.excludes)
		rc = each_line((const char *)x.data, x.len, excl_line, d);
	att_buf_release(&a);
	att_buf_release(&x);
	if (rc) {
		wldoc_free(d);
		return WLCLI_EXIT_ERROR;
	}
	wldoc_set_meta(d, k.allowlist, NULL);
write:
	rc = wldoc_write(d, k.out) ? WLCLI_EXIT_ERROR : WLCLI_EXIT_OK;
	wldoc_free(d);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int export_allowlist(struct wldoc *d, const char *out, int *skipped)
{
	struct json_object *dg;
	struct att_buf b;
	const char **keys;
	size_t i, n;
	int rc = ATT_OK;

	att_buf_init(&b, 0);
	if (!json_object_object_get_ex(d->root, "digests", &dg))
		return att_write_file_atomic(out, "", 0, 0644);
	n = (size_t)json_object_object_length(dg);
	keys = calloc(n ? n : 1, sizeof(*keys));
	if (!keys)
		return ATT_E_NOMEM;
	i = 0;
	json_object_object_foreach(dg, k, v)
	{
		(void)v;
		keys[i++] = k;
	}
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 0; i < n && !rc; i++) {
		struct json_object *arr = json_object_object_get(dg, keys[i]);
		size_t j, m = json_object_array_length(arr);

		if (strchr(keys[i], '\n')) {
			fprintf(stderr, "attest-whitelist: a path with a "
					"newline cannot be written as a "
					"legacy allowlist line (left out)\n");
			(*skipped)++;
			continue;
		}
		for (j = 0; j < m && !rc; j++) {
			const char *h = json_object_get_string(
				json_object_array_get_idx(arr, j));
			const char *colon = strchr(h, ':');

			rc = att_buf_printf(&b, "%s  %s\n",
					    colon ? colon + 1 : h, keys[i]);
		}
	}
	free(keys);
	if (!rc)
		rc = att_write_file_atomic(out, b.data ? (char *)b.data : "",
					   b.len, 0644);
	att_buf_release(&b);
	return rc;
}

static int export_excludes(struct wldoc *d, const char *out)
{
	struct json_object *ex;
	struct att_buf b;
	size_t i, n;
	int rc = ATT_OK;

	att_buf_init(&b, 0);
	if (json_object_object_get_ex(d->root, "excludes", &ex)) {
		n = json_object_array_length(ex);
		for (i = 0; i < n && !rc; i++)
			rc = att_buf_printf(
				&b, "%s\n",
				json_object_get_string(
					json_object_array_get_idx(ex, i)));
	}
	if (!rc)
		rc = att_write_file_atomic(out, b.data ? (char *)b.data : "",
					   b.len, 0644);
	att_buf_release(&b);
	return rc;
}

/* A Keylime runtime policy: attest's own sections dropped, defaults filled. */
static int export_policy(struct wldoc *d, const char *out)
{
	static const char *const maps[] = {"digests", "keyrings", "ima-buf"};
	struct json_object *o, *keys;
	size_t i;

	json_object_object_del(d->root, "attest");
	json_object_object_del(d->root, "lattice");
	json_object_object_del(d->root, "boot"); /* Keylime's is separate */
	for (i = 0; i < 3; i++)
		if (!json_object_object_get_ex(d->root, maps[i], &o))
			json_object_object_add(d->root, maps[i],
					       json_object_new_object());
	if (!json_object_object_get_ex(d->root, "excludes", &o))
		json_object_object_add(d->root, "excludes",
				       json_object_new_array());
	if (!json_object_object_get_ex(d->root, "release", &o))
		json_object_object_add(d->root, "release",
				       json_object_new_int(0));
	if (!json_object_object_get_ex(d->root, "ima", &o)) {
		o = json_object_new_object();
		json_object_object_add(o, "ignored_keyrings",
				       json_object_new_array());
		json_object_object_add(o, "log_hash_alg",
				       json_object_new_string("sha1"));
		json_object_object_add(o, "dm_policy", NULL);
		json_object_object_add(d->root, "ima", o);
	}
	if (json_object_object_get_ex(d->root, "verification-keys", &keys) &&
	    json_object_is_type(keys, json_type_array)) {
		/* Keylime keeps its keyring as a JSON document in a string. */
		struct json_object *kr = json_object_new_object();
		struct json_object *meta = json_object_new_object();

		json_object_object_add(meta, "version", json_object_new_int(1));
		json_object_object_add(kr, "meta", meta);
		json_object_object_add(kr, "pubkeys", json_object_get(keys));
		json_object_object_add(
			d->root, "verification-keys",
			json_object_new_string(json_object_to_json_string_ext(
				kr, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE)));
		json_object_put(kr);
	} else if (!json_object_object_get_ex(d->root, "verification-keys",
					      &keys)) {
		json_object_object_add(d->root, "verification-keys",
				       json_object_new_string(""));
	}
	if (!json_object_object_get_ex(d->root, "meta", &o))
		wldoc_set_meta(d, NULL, NULL);
	return wldoc_write(d, out);
}

/* export WL --allowlist OUT [--excludes OUT] | --policy OUT */
static int cmd_export(int argc, char **argv)
{
	struct wldoc *d;
	struct kl_args k;
	char err[300] = "";
	int rc = ATT_OK, skipped = 0;

	if (kl_parse(argc, argv, &k) || !k.in ||
	    (!k.allowlist && !k.policy && !k.excludes)) {
		fprintf(stderr,
			"usage: attest-whitelist export WL [--allowlist "
			"OUT] [--excludes OUT] [--policy OUT]\n");
		return WLCLI_EXIT_ERROR;
	}
	if (wldoc_load(k.in, &d, err, sizeof(err))) {
		fprintf(stderr, "attest-whitelist: %s: %s\n", k.in, err);
		return WLCLI_EXIT_ERROR;
	}
	if (k.allowlist)
		rc = export_allowlist(d, k.allowlist, &skipped);
	if (!rc && k.excludes)
		rc = export_excludes(d, k.excludes);
	if (!rc && k.policy)
		rc = export_policy(d, k.policy);
	wldoc_free(d);
	if (rc) {
		fprintf(stderr, "attest-whitelist: export failed: %s\n",
			att_strerror(rc));
		return WLCLI_EXIT_ERROR;
	}
	return skipped ? WLCLI_EXIT_UNTRUSTED : WLCLI_EXIT_OK;
}

int wlcli_keylime(const char *cmd, int argc, char **argv)
{
	return !strcmp(cmd, "import") ? cmd_import(argc, argv)
				      : cmd_export(argc, argv);
}
