// SPDX-License-Identifier: Apache-2.0
/*
 * cmd_edit.c - attest-whitelist merge, add, remove, diff, show, validate.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/digest.h"
#include "attest/err.h"
#include "attest/whitelist.h"
#include "wlcli.h"
#include "wldoc.h"

static int load(const char *path, struct wldoc **d)
{
	char err[300] = "";
	int rc = wldoc_load(path, d, err, sizeof(err));

	if (rc)
		fprintf(stderr, "attest-whitelist: %s: %s\n", path,
			err[0] ? err : att_strerror(rc));
	return rc;
}

static int write_out(const struct wldoc *d, const char *out)
{
	if (wldoc_write(d, out)) {
		fprintf(stderr, "attest-whitelist: cannot write %s\n", out);
		return WLCLI_EXIT_ERROR;
	}
	return WLCLI_EXIT_OK;
}

/* -o FILE and the positional arguments; returns optind or -1. */
static int opt_out(int argc, char **argv, const char **out, const char **digest,
		   enum att_hash *hash)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"digest", required_argument, NULL, 'd'},
		{"hash", required_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	int c;

	*out = "-";
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			*out = optarg;
			break;
		case 'd':
			if (!digest)
				return -1;
			*digest = optarg;
			break;
		case 'H':
			if (!hash)
				return -1;
			*hash = att_hash_by_name(optarg, strlen(optarg));
			if (*hash == ATT_HASH_NONE || *hash == ATT_HASH_MD5)
				return -1;
			break;
		default:
			return -1;
		}
	}
	return optind;
}

static int cmd_merge(int argc, char **argv)
{
	struct wldoc *d = NULL, *s;
	const char *out;
	int i, first = opt_out(argc, argv, &out, NULL, NULL), rc;

	if (first < 0 || argc - first < 1) {
		fprintf(stderr,
			"usage: attest-whitelist merge A B... [-o FILE]\n");
		return WLCLI_EXIT_ERROR;
	}
	for (i = first; i < argc; i++) {
		if (load(argv[i], &s)) {
			wldoc_free(d);
			return WLCLI_EXIT_ERROR;
		}
		if (!d) {
			d = s;
			continue;
		}
		rc = wldoc_merge(d, s);
		wldoc_free(s);
		if (rc) {
			fprintf(stderr,
				"attest-whitelist: %s: cannot merge: "
				"%s\n",
				argv[i],
				rc == ATT_E_UNSUPPORTED
					? "verification keys in different forms"
					: att_strerror(rc));
			wldoc_free(d);
			return WLCLI_EXIT_ERROR;
		}
	}
	wldoc_set_meta(d, "merge", NULL);
	rc = write_out(d, out);
	wldoc_free(d);
	return rc;
}

static int hash_file(const char *path, enum att_hash h, char *hex)
{
	uint8_t buf[65536], d[ATT_DIGEST_MAX];
	struct att_md *md;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return ATT_E_IO;
	rc = att_md_new(h, &md);
	if (!rc)
		rc = att_md_init(md);
	while (!rc && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			rc = errno == EINTR ? ATT_OK : ATT_E_IO;
			continue;
		}
		rc = att_md_update(md, buf, (size_t)n);
	}
	if (!rc)
		rc = att_md_final(md, d);
	if (!rc)
		att_hex_encode(d, att_hash_size(h), hex);
	att_md_free(md);
	close(fd);
	return rc;
}

/*
 * add WL PATH... : hashes the files on this machine and adds them;
 * add WL --digest HEX PATH : adds that digest for PATH.
 */
static int cmd_add(int argc, char **argv)
{
	enum att_hash h = ATT_HASH_SHA256;
	const char *out, *digest = NULL;
	int i, first = opt_out(argc, argv, &out, &digest, &h);
	struct wldoc *d;
	int rc = WLCLI_EXIT_OK;

	if (first < 0 || argc - first < 2 || (digest && argc - first != 2)) {
		fprintf(stderr,
			"usage: attest-whitelist add WL PATH... | add WL "
			"--digest HEX PATH [-o FILE]\n");
		return WLCLI_EXIT_ERROR;
	}
	if (load(argv[first], &d))
		return WLCLI_EXIT_ERROR;
	for (i = first + 1; i < argc; i++) {
		char hex[2 * ATT_DIGEST_MAX + 1];
		uint8_t tmp[ATT_DIGEST_MAX];
		enum att_hash alg;
		size_t n;

		if (digest) {
			if (att_wl_parse_digest(digest, strlen(digest), &alg,
						tmp, &n)) {
				fprintf(stderr,
					"attest-whitelist: '%s' is not "
					"a digest\n",
					digest);
				rc = WLCLI_EXIT_ERROR;
				break;
			}
			snprintf(hex, sizeof(hex), "%s", digest);
		} else if (hash_file(argv[i], h, hex)) {
			fprintf(stderr, "attest-whitelist: %s: cannot read\n",
				argv[i]);
			rc = WLCLI_EXIT_ERROR;
			break;
		}
		if (argv[i][0] != '/' || wldoc_add_digest(d, argv[i], hex)) {
			fprintf(stderr,
				"attest-whitelist: %s: paths must be "
				"absolute UTF-8\n",
				argv[i]);
			rc = WLCLI_EXIT_ERROR;
			break;
		}
	}
	if (rc == WLCLI_EXIT_OK)
		rc = write_out(d, out);
	wldoc_free(d);
	return rc;
}

static int cmd_remove(int argc, char **argv)
{
	const char *out, *digest = NULL;
	int i, first = opt_out(argc, argv, &out, &digest, NULL);
	struct wldoc *d;
	int rc = WLCLI_EXIT_OK;

	if (first < 0 || argc - first < 2) {
		fprintf(stderr, "usage: attest-whitelist remove WL PATH... "
				"[--digest HEX] [-o FILE]\n");
		return WLCLI_EXIT_ERROR;
	}
	if (load(argv[first], &d))
		return WLCLI_EXIT_ERROR;
	for (i = first + 1; i < argc; i++) {
		if (wldoc_remove(d, argv[i], digest)) {
			fprintf(stderr,
				"attest-whitelist: %s%s%s: not in the "
				"whitelist\n",
				argv[i], digest ? " " : "",
				digest ? digest : "");
			rc = WLCLI_EXIT_ERROR;
			break;
		}
	}
	if (rc == WLCLI_EXIT_OK)
		rc = write_out(d, out);
	wldoc_free(d);
	return rc;
}

static int has(struct json_object *arr, const char *s)
{
	size_t i, n = arr ? json_object_array_length(arr) : 0;

	for (i = 0; i < n; i++)
		if (!strcmp(json_object_get_string(
				    json_object_array_get_idx(arr, i)),
			    s))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Lines "SIGN path digest" for entries of a not in b, sorted. */
static size_t diff_side(struct json_object *a, struct json_object *b, char sign)
{
	const char **keys;
	size_t i, n, lines = 0;

	if (!a)
		return 0;
	n = (size_t)json_object_object_length(a);
	keys = calloc(n ? n : 1, sizeof(*keys));
	if (!keys)
		return 0;
	i = 0;
	json_object_object_foreach(a, k, v)
	{
		(void)v;
		keys[i++] = k;
	}
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 0; i < n; i++) {
		struct json_object *da = json_object_object_get(a, keys[i]);
		struct json_object *db = NULL;
		size_t j, m = json_object_array_length(da);

		if (b)
			json_object_object_get_ex(b, keys[i], &db);
		if (!m && !db) {
			printf("%c %s\n", sign, keys[i]);
			lines++;
		}
		for (j = 0; j < m; j++) {
			const char *s = json_object_get_string(
				json_object_array_get_idx(da, j));

			if (!has(db, s)) {
				printf("%c %s %s\n", sign, keys[i], s);
				lines++;
			}
		}
	}
	free(keys);
	return lines;
}

/* "SIGN exclude RE" for each pattern of a missing from b. */
static size_t diff_excludes(struct json_object *a, struct json_object *b,
			    char sign)
{
	size_t i, m = a ? json_object_array_length(a) : 0, lines = 0;

	for (i = 0; i < m; i++) {
		const char *s =
			json_object_get_string(json_object_array_get_idx(a, i));

		if (!has(b, s)) {
			printf("%c exclude %s\n", sign, s);
			lines++;
		}
	}
	return lines;
}

static int cmd_diff(int argc, char **argv)
{
	struct json_object *da = NULL, *db = NULL;
	struct wldoc *a, *b;
	size_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: attest-whitelist diff A B\n");
		return WLCLI_EXIT_ERROR;
	}
	if (load(argv[1], &a))
		return WLCLI_EXIT_ERROR;
	if (load(argv[2], &b)) {
		wldoc_free(a);
		return WLCLI_EXIT_ERROR;
	}
	json_object_object_get_ex(a->root, "digests", &da);
	json_object_object_get_ex(b->root, "digests", &db);
	n = diff_side(da, db, '-') + diff_side(db, da, '+');
	{
		struct json_object *ea = NULL, *eb = NULL;

		json_object_object_get_ex(a->root, "excludes", &ea);
		json_object_object_get_ex(b->root, "excludes", &eb);
		n += diff_excludes(ea, eb, '-') + diff_excludes(eb, ea, '+');
	}
	wldoc_free(a);
	wldoc_free(b);
	return n ? WLCLI_EXIT_UNTRUSTED : WLCLI_EXIT_OK;
}

static int cmd_show(int argc, char **argv)
{
	struct json_object *meta, *ex;
	struct att_wl *wl = NULL;
	struct att_buf t;
	struct wldoc *d;
	char err[300] = "";
	int paths = argc == 3 && !strcmp(argv[1], "--paths");
	const char *file = argv[argc - 1];

	if (argc != 2 && !paths) {
		fprintf(stderr, "usage: attest-whitelist show [--paths] WL\n");
		return WLCLI_EXIT_ERROR;
	}
	if (load(file, &d))
		return WLCLI_EXIT_ERROR;
	att_buf_init(&t, 0);
	if (!att_buf_read_file(&t, file, 256u << 20))
		att_wl_load_any((const char *)t.data, t.len, NULL, &wl, err,
				sizeof(err));
	att_buf_release(&t);
	printf("whitelist: %s\n", file);
	if (json_object_object_get_ex(d->root, "meta", &meta))
		printf("meta: %s\n",
		       json_object_to_json_string_ext(
			       meta, JSON_C_TO_STRING_PLAIN |
					     JSON_C_TO_STRING_NOSLASHESCAPE));
	printf("paths: %zu\ndigests: %zu\n", wl ? att_wl_path_count(wl) : 0,
	       wl ? att_wl_digest_count(wl) : 0);
	if (json_object_object_get_ex(d->root, "excludes", &ex)) {
		size_t i, n = json_object_array_length(ex);

		printf("excludes: %zu\n", n);
		for (i = 0; i < n; i++)
			printf("  %s\n",
			       json_object_get_string(
				       json_object_array_get_idx(ex, i)));
	}
	printf("violations: %s\n",
	       wl && att_wl_violations(wl) == ATT_WL_VIOLATIONS_ALLOW ? "allow"
								      : "fail");
	if (paths) {
		struct json_object *dg;

		if (json_object_object_get_ex(d->root, "digests", &dg))
			diff_side(dg, NULL, ' ');
	}
	att_wl_free(wl);
	wldoc_free(d);
	return WLCLI_EXIT_OK;
}

static int cmd_validate(int argc, char **argv)
{
	struct att_wl *wl = NULL;
	struct att_buf t;
	char err[300] = "";
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: attest-whitelist validate WL\n");
		return WLCLI_EXIT_ERROR;
	}
	att_buf_init(&t, 0);
	rc = att_buf_read_file(&t, argv[1], 256u << 20);
	if (rc) {
		fprintf(stderr, "attest-whitelist: %s: cannot read\n", argv[1]);
		return WLCLI_EXIT_ERROR;
	}
	rc = att_wl_load_json((const char *)t.data, t.len, NULL, &wl, err,
			      sizeof(err));
	att_buf_release(&t);
	if (rc) {
		printf("%s: invalid: %s\n", argv[1], err);
		return WLCLI_EXIT_UNTRUSTED;
	}
	printf("%s: valid (%zu paths, %zu digests)\n", argv[1],
	       att_wl_path_count(wl), att_wl_digest_count(wl));
	att_wl_free(wl);
	return WLCLI_EXIT_OK;
}

int wlcli_edit(const char *cmd, int argc, char **argv)
{
	if (!strcmp(cmd, "merge"))
		return cmd_merge(argc, argv);
	if (!strcmp(cmd, "add"))
		return cmd_add(argc, argv);
	if (!strcmp(cmd, "remove"))
		return cmd_remove(argc, argv);
	if (!strcmp(cmd, "diff"))
		return cmd_diff(argc, argv);
	if (!strcmp(cmd, "show"))
		return cmd_show(argc, argv);
	if (!strcmp(cmd, "validate"))
		return cmd_validate(argc, argv);
	return WLCLI_EXIT_ERROR;
}
