// SPDX-License-Identifier: Apache-2.0
/*
 * pkg_links.c - resolving a package file's path to the one IMA reports.
 *
 * IMA names a measured file by d_absolute_path() of the opened file
 * (security/integrity/ima/ima_api.c, ima_d_path): the path after every
 * symlink on the way was followed. On Debian 12, whose /bin, /sbin and
 * /lib* are symlinks into /usr, a package's /bin/ls is therefore measured
 * as /usr/bin/ls; an initramfs's files are measured where its own
 * symlinks put them.
 */
#include "pkg.h"

#include <stdlib.h>
#include <string.h>

#include "attest/err.h"

void pkg_links_init(struct pkg_links *k)
{
	memset(k, 0, sizeof(*k));
}

void pkg_links_release(struct pkg_links *k)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		free(k->from[i]);
		free(k->to[i]);
	}
	free(k->from);
	free(k->to);
	pkg_links_init(k);
}

int pkg_links_add(struct pkg_links *k, const char *from, const char *to)
{
	char *f, *t;

	if (k->n == k->cap) {
		size_t nc = k->cap ? k->cap * 2 : 16;
		char **nf = realloc(k->from, nc * sizeof(*nf));

		if (!nf)
			return ATT_E_NOMEM;
		k->from = nf;
		nf = realloc(k->to, nc * sizeof(*nf));
		if (!nf)
			return ATT_E_NOMEM;
		k->to = nf;
		k->cap = nc;
	}
	f = strdup(from);
	t = strdup(to);
	if (!f || !t) {
		free(f);
		free(t);
		return ATT_E_NOMEM;
	}
	k->from[k->n] = f;
	k->to[k->n] = t;
	k->n++;
	return ATT_OK;
}

int pkg_links_add_usrmerge(struct pkg_links *k)
{
	static const char *const dirs[] = {"bin",   "sbin",  "lib",
					   "lib32", "lib64", "libx32"};
	size_t i;
	int rc = ATT_OK;

	for (i = 0; !rc && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char from[16], to[24];

		memcpy(from, "/", 2);
		strncat(from, dirs[i], sizeof(from) - 2);
		memcpy(to, "usr/", 5);
		strncat(to, dirs[i], sizeof(to) - 5);
		rc = pkg_links_add(k, from, to);
	}
	return rc;
}

static const char *lookup(const struct pkg_links *k, const char *p, size_t n)
{
	size_t i;

	for (i = 0; k && i < k->n; i++)
		if (strlen(k->from[i]) == n && !memcmp(k->from[i], p, n))
			return k->to[i];
	return NULL;
}

/* "/a/./b/../c" into "/a/c"; ".." at the root stays at the root. */
static int lex_norm(const char *in, size_t len, char *out)
{
	size_t i = 0, o = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && in[j] != '/')
			j++;
		if (j == i || (j - i == 1 && in[i] == '.')) {
			/* nothing */
		} else if (j - i == 2 && in[i] == '.' && in[i + 1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			if (o + 1 + (j - i) > PKG_MAX_PATH)
				return ATT_E_TOO_BIG;
			out[o++] = '/';
			memcpy(out + o, in + i, j - i);
			o += j - i;
		}
		i = j + 1;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return ATT_OK;
}

int pkg_path_resolve(const struct pkg_links *a, const struct pkg_links *b,
		     const char *path, char *out)
{
	char work[PKG_MAX_PATH + 1], tmp[3 * PKG_MAX_PATH + 4];
	size_t len = strlen(path), p;
	int hops = 0, rc;

	if (len > PKG_MAX_PATH)
		return ATT_E_TOO_BIG;
	memcpy(work, path, len + 1);
restart:
	len = strlen(work);
	for (p = 1; p < len; p++) {
		const char *t;
		size_t dir, tl, o = 0;

		if (work[p] != '/')
			continue;
		t = lookup(a, work, p);
		if (!t)
			t = lookup(b, work, p);
		if (!t)
			continue;
		if (++hops > PKG_MAX_LINK_HOPS)
			return ATT_E_FORMAT;
		tl = strlen(t);
		if (tl > PKG_MAX_PATH)
			return ATT_E_TOO_BIG;
		/* the link's directory, for a relative target */
		dir = p;
		while (dir > 0 && work[dir - 1] != '/')
			dir--;
		if (t[0] != '/') {
			memcpy(tmp, work, dir);
			o = dir;
		}
		tmp[o++] = '/';
		memcpy(tmp + o, t, tl);
		o += tl;
		memcpy(tmp + o, work + p, len - p);
		o += len - p;
		rc = lex_norm(tmp, o, work);
		if (rc)
			return rc;
		goto restart;
	}
	memcpy(out, work, len + 1);
	return ATT_OK;
}

void pkg_divert_init(struct pkg_divert *d)
{
	memset(d, 0, sizeof(*d));
}

void pkg_divert_release(struct pkg_divert *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->from[i]);
		free(d->to[i]);
		free(d->by[i]);
	}
	free(d->from);
	free(d->to);
	free(d->by);
	pkg_divert_init(d);
}

int pkg_divert_add(struct pkg_divert *d, const char *from, const char *to,
		   const char *by)
{
	char *f, *t, *b = NULL;

	if (d->n == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 16;
		char **n1 = realloc(d->from, nc * sizeof(*n1));

		if (!n1)
			return ATT_E_NOMEM;
		d->from = n1;
		n1 = realloc(d->to, nc * sizeof(*n1));
		if (!n1)
			return ATT_E_NOMEM;
		d->to = n1;
		n1 = realloc(d->by, nc * sizeof(*n1));
		if (!n1)
			return ATT_E_NOMEM;
		d->by = n1;
		d->cap = nc;
	}
	f = strdup(from);
	t = strdup(to);
	if (by)
		b = strdup(by);
	if (!f || !t || (by && !b)) {
		free(f);
		free(t);
		free(b);
		return ATT_E_NOMEM;
	}
	d->from[d->n] = f;
	d->to[d->n] = t;
	d->by[d->n] = b;
	d->n++;
	return ATT_OK;
}

const char *pkg_divert_find(const struct pkg_divert *d, const char *pkg,
			    const char *path)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->from[i], path) &&
		    (!d->by[i] || !pkg || strcmp(d->by[i], pkg)))
			return d->to[i];
	return NULL;
}
