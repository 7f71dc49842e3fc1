// SPDX-License-Identifier: Apache-2.0
/*
 * pkg_list.c - the entries of one archive, indexed by path; member name
 * normalisation; the file selection shared with the root filesystem walk.
 */
#include "pkg.h"

#include <stdlib.h>
#include <string.h>

#include "attest/err.h"

void pkg_list_init(struct pkg_list *l, int replace)
{
	memset(l, 0, sizeof(*l));
	l->replace = replace;
}

void pkg_list_release(struct pkg_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->e[i].path);
		free(l->e[i].target);
	}
	free(l->e);
	free(l->slot);
	pkg_list_init(l, 0);
}

static uint64_t path_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s) {
		h ^= (uint8_t)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

/* The slot holding path, or the empty slot where it would go. */
static size_t *slot_of(const struct pkg_list *l, const char *path)
{
	size_t i = (size_t)path_hash(path) & (l->nslot - 1);

	while (l->slot[i] && strcmp(l->e[l->slot[i] - 1].path, path))
		i = (i + 1) & (l->nslot - 1);
	return &l->slot[i];
}

static int rehash(struct pkg_list *l)
{
	size_t n = l->nslot ? l->nslot * 2 : 1024, i;
	size_t *old = l->slot, nold = l->nslot;

	l->slot = calloc(n, sizeof(*l->slot));
	if (!l->slot) {
		l->slot = old;
		return ATT_E_NOMEM;
	}
	l->nslot = n;
	for (i = 0; i < nold; i++)
		if (old[i])
			*slot_of(l, l->e[old[i] - 1].path) = old[i];
	free(old);
	return ATT_OK;
}

struct pkg_entry *pkg_list_find(const struct pkg_list *l, const char *path)
{
	size_t *s;

	if (!l->nslot)
		return NULL;
	s = slot_of(l, path);
	return *s ? &l->e[*s - 1] : NULL;
}

int pkg_list_add(struct pkg_list *l, enum pkg_kind kind, const char *path,
		 const char *target, int candidate, const uint8_t *digest)
{
	struct pkg_entry *e;
	size_t *s;
	char *p, *t = NULL;

	if (l->n >= PKG_MAX_ENTRIES)
		return ATT_E_TOO_BIG;
	if ((l->n + 1) * 2 > l->nslot && rehash(l))
		return ATT_E_NOMEM;
	s = slot_of(l, path);
	if (*s && !l->replace)
		return ATT_E_EXISTS;
	p = strdup(path);
	if (target)
		t = strdup(target);
	if (!p || (target && !t)) {
		free(p);
		free(t);
		return ATT_E_NOMEM;
	}
	if (*s) {
		e = &l->e[*s - 1];
		free(e->path);
		free(e->target);
	} else {
		if (l->n == l->cap) {
			size_t nc = l->cap ? l->cap * 2 : 256;
			struct pkg_entry *ne = realloc(l->e, nc * sizeof(*ne));

			if (!ne) {
				free(p);
				free(t);
				return ATT_E_NOMEM;
			}
			l->e = ne;
			l->cap = nc;
		}
		e = &l->e[l->n++];
		*s = l->n;
	}
	memset(e, 0, sizeof(*e));
	e->path = p;
	e->target = t;
	e->kind = kind;
	e->candidate = candidate;
	if (digest)
		memcpy(e->digest, digest, ATT_DIGEST_MAX);
	return ATT_OK;
}

int pkg_path_norm(const char *name, size_t len, char *out)
{
	size_t i = 0, o = 0;

	if (!len || memchr(name, '\0', len))
		return ATT_E_FORMAT;
	if (name[0] == '/')
		return ATT_E_FORMAT; /* absolute: never in a package */
	while (i < len) {
		size_t j = i;

		while (j < len && name[j] != '/')
			j++;
		if (j == i || (j - i == 1 && name[i] == '.')) {
			/* empty or "." */
		} else if (j - i == 2 && name[i] == '.' && name[i + 1] == '.') {
			return ATT_E_FORMAT;
		} else {
			if (o + 1 + (j - i) > PKG_MAX_PATH)
				return ATT_E_TOO_BIG;
			out[o++] = '/';
			memcpy(out + o, name + i, j - i);
			o += j - i;
		}
		i = j + 1;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return ATT_OK;
}

int pkg_is_candidate(const char *path, int exec, const uint8_t *head, size_t n)
{
	static const char *const ko[] = {".ko", ".ko.xz", ".ko.zst", ".ko.gz"};
	size_t l = strlen(path), i;

	if (exec)
		return 1;
	if (n >= 4 && !memcmp(head,
			      "\x7f"
			      "ELF",
			      4))
		return 1;
	if (n >= 2 && head[0] == '#' && head[1] == '!')
		return 1;
	for (i = 0; i < sizeof(ko) / sizeof(ko[0]); i++) {
		size_t k = strlen(ko[i]);

		if (l > k && !strcmp(path + l - k, ko[i]))
			return 1;
	}
	return 0;
}
