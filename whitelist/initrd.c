// SPDX-License-Identifier: Apache-2.0
/*
 * initrd.c - reads an initramfs: cpio newc archives, possibly several
 * and possibly compressed, as the kernel's populate_rootfs() unpacks them.
 */
#include "initrd.h"

#include <archive.h>
#include <archive_entry.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attest/digest.h"
#include "attest/err.h"
#include "pkg.h"
#include "pkg_src.h"

#define CPIO_HDR   110
#define CPIO_CHUNK (256 * 1024)
#define MAX_GROUPS 65536

/* Where cpio bytes come from: the file itself or a decompressed stream. */
struct cpio_in {
	int (*read)(void *ctx, void *dst, size_t n);
	void *ctx;
	uint64_t off; /* within the segment: headers are 4-byte aligned */
};

/* Names of one inode (nlink > 1) in the current archive. */
struct group {
	uint32_t ino, maj, min;
	size_t *idx;
	size_t n;
};

struct initrd_ctx {
	struct pkg_list *l;
	struct att_md *md;
	uint8_t *buf;
	uint64_t unpacked;
	struct group *g;
	size_t ng;
	char *err;
	size_t errlen;
};

static int fail(struct initrd_ctx *c, int rc, const char *what,
		const struct cpio_in *in, const char *name)
{
	snprintf(c->err, c->errlen, "%s (offset %" PRIu64 "%s%s%s)", what,
		 in ? in->off : 0, name ? ", member '" : "", name ? name : "",
		 name ? "'" : "");
	return rc;
}

static void groups_reset(struct initrd_ctx *c)
{
	size_t i;

	for (i = 0; i < c->ng; i++)
		free(c->g[i].idx);
	free(c->g);
	c->g = NULL;
	c->ng = 0;
}

static int in_read(struct cpio_in *in, void *dst, size_t n)
{
	int rc = n ? in->read(in->ctx, dst, n) : ATT_OK;

	if (!rc)
		in->off += n;
	return rc;
}

static int in_pad(struct cpio_in *in)
{
	uint8_t z[4];
	size_t pad = (4 - (size_t)(in->off & 3)) & 3;

	return in_read(in, z, pad);
}

static int hex8(const char *p, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 8; i++) {
		char ch = p[i];

		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= (uint32_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v |= (uint32_t)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			v |= (uint32_t)(ch - 'A' + 10);
		else
			return ATT_E_FORMAT;
	}
	*out = v;
	return ATT_OK;
}

/* A regular file's data: hashed in chunks. */
static int hash_data(struct initrd_ctx *c, struct cpio_in *in, uint32_t size,
		     uint8_t *d, uint8_t *head, size_t *nhead)
{
	uint32_t left = size;
	int rc;

	*nhead = 0;
	att_md_init(c->md);
	while (left) {
		size_t k = left > CPIO_CHUNK ? CPIO_CHUNK : left;

		rc = in_read(in, c->buf, k);
		if (rc)
			return rc;
		c->unpacked += k;
		if (c->unpacked > PKG_MAX_UNPACKED)
			return ATT_E_TOO_BIG;
		while (*nhead < 4 && *nhead < k) {
			head[*nhead] = c->buf[*nhead];
			(*nhead)++;
		}
		att_md_update(c->md, c->buf, k);
		left -= (uint32_t)k;
	}
	att_md_final(c->md, d);
	c->l->bytes += size;
	return ATT_OK;
}

/* A name of an inode with more links: the group's content is the last
 * non-empty data (the kernel writes each body into the shared inode). */
static int link_group(struct initrd_ctx *c, const uint32_t *f, size_t idx,
		      uint32_t size)
{
	struct group *g = NULL;
	size_t i, *ni;

	for (i = 0; i < c->ng && !g; i++)
		if (c->g[i].ino == f[0] && c->g[i].maj == f[7] &&
		    c->g[i].min == f[8])
			g = &c->g[i];
	if (!g) {
		struct group *ng;

		if (c->ng >= MAX_GROUPS)
			return ATT_E_TOO_BIG;
		ng = realloc(c->g, (c->ng + 1) * sizeof(*ng));
		if (!ng)
			return ATT_E_NOMEM;
		c->g = ng;
		g = &c->g[c->ng++];
		memset(g, 0, sizeof(*g));
		g->ino = f[0];
		g->maj = f[7];
		g->min = f[8];
	}
	ni = realloc(g->idx, (g->n + 1) * sizeof(*ni));
	if (!ni)
		return ATT_E_NOMEM;
	g->idx = ni;
	g->idx[g->n++] = idx;
	if (g->n > 1)
		c->l->e[idx].kind = PKG_HARDLINK;
	for (i = 0; i + 1 < g->n; i++) {
		struct pkg_entry *e = &c->l->e[g->idx[i]];
		const struct pkg_entry *last = &c->l->e[idx];

		if (size || g->n == 1) {
			memcpy(e->digest, last->digest, sizeof(e->digest));
			e->candidate = last->candidate;
		} else {
			memcpy(c->l->e[idx].digest, e->digest,
			       sizeof(e->digest));
			c->l->e[idx].candidate = e->candidate;
		}
	}
	return ATT_OK;
}

static int one_member(struct initrd_ctx *c, struct cpio_in *in,
		      const uint32_t *f, const char *name, const char *path)
{
	uint32_t mode = f[1], size = f[6];
	uint8_t d[ATT_DIGEST_MAX] = {0}, head[4];
	size_t nhead;
	int rc;

	if (S_ISREG(mode)) {
		struct pkg_entry *e;

		rc = hash_data(c, in, size, d, head, &nhead);
		if (rc)
			return fail(c, rc,
				    rc == ATT_E_TOO_BIG
					    ? "more unpacked than the cap"
					    : "file data cut short",
				    in, name);
		rc = pkg_list_add(
			c->l, PKG_REG, path, NULL,
			pkg_is_candidate(path, mode & 0111, head, nhead), d);
		if (rc)
			return rc;
		e = pkg_list_find(c->l, path);
		if (f[4] > 1)
			return link_group(c, f, (size_t)(e - c->l->e), size);
		return ATT_OK;
	}
	if (S_ISLNK(mode)) {
		char t[PKG_MAX_PATH + 1];

		if (!size || size > PKG_MAX_PATH)
			return fail(c, ATT_E_FORMAT, "bad symlink target size",
				    in, name);
		rc = in_read(in, t, size);
		if (rc)
			return fail(c, ATT_E_TRUNCATED, "symlink cut short", in,
				    name);
		t[size] = '\0';
		if (strlen(t) != size)
			return fail(c, ATT_E_FORMAT, "NUL in a symlink target",
				    in, name);
		return pkg_list_add(c->l, PKG_SYMLINK, path, t, 0, NULL);
	}
	/* directories, devices, fifos, sockets: no data is kept */
	if (size) {
		uint32_t left = size;

		if (!S_ISDIR(mode) && !S_ISCHR(mode) && !S_ISBLK(mode) &&
		    !S_ISFIFO(mode) && !S_ISSOCK(mode))
			return fail(c, ATT_E_FORMAT, "unknown file type", in,
				    name);
		while (left) {
			size_t k = left > CPIO_CHUNK ? CPIO_CHUNK : left;

			rc = in_read(in, c->buf, k);
			if (rc)
				return fail(c, ATT_E_TRUNCATED,
					    "member data cut short", in, name);
			left -= (uint32_t)k;
		}
	}
	return pkg_list_add(c->l, S_ISDIR(mode) ? PKG_DIR : PKG_SPECIAL, path,
			    NULL, 0, NULL);
}

/* One archive, its first 4 bytes already read; up to its trailer. */
static int cpio_archive(struct initrd_ctx *c, struct cpio_in *in,
			const uint8_t *first)
{
	char hdr[CPIO_HDR + 1], name[PKG_MAX_PATH + 2], path[PKG_MAX_PATH + 1];
	int rc, have = 4;

	memcpy(hdr, first, 4);
	for (;;) {
		uint32_t f[13];
		int i;

		rc = in_read(in, hdr + have, CPIO_HDR - (size_t)have);
		if (rc)
			return fail(c, ATT_E_TRUNCATED, "cpio header cut short",
				    in, NULL);
		have = 0;
		if (memcmp(hdr, "070701", 6) && memcmp(hdr, "070702", 6))
			return fail(c, ATT_E_FORMAT,
				    "not a cpio newc header (a cpio archive "
				    "must end with TRAILER!!!)",
				    in, NULL);
		for (i = 0; i < 13; i++)
			if (hex8(hdr + 6 + 8 * i, &f[i]))
				return fail(c, ATT_E_FORMAT,
					    "bad hex in a cpio header", in,
					    NULL);
		/* f[11] namesize, with its NUL */
		if (f[11] < 2 || f[11] > PKG_MAX_PATH + 1)
			return fail(c, ATT_E_FORMAT, "bad cpio name size", in,
				    NULL);
		rc = in_read(in, name, f[11]);
		if (!rc)
			rc = in_pad(in);
		if (rc)
			return fail(c, ATT_E_TRUNCATED, "cpio name cut short",
				    in, NULL);
		if (name[f[11] - 1] != '\0' || strlen(name) != f[11] - 1)
			return fail(c, ATT_E_FORMAT, "bad cpio name", in, NULL);
		if (!strcmp(name, "TRAILER!!!")) {
			groups_reset(c);
			return ATT_OK;
		}
		rc = pkg_path_norm(name, f[11] - 1, path);
		if (rc)
			return fail(c, rc, "member name absolute or with '..'",
				    in, name);
		rc = one_member(c, in, f, name, path);
		if (rc)
			return rc;
		rc = in_pad(in);
		if (rc)
			return fail(c, ATT_E_TRUNCATED, "cpio data cut short",
				    in, name);
	}
}

static int src_read(void *ctx, void *dst, size_t n)
{
	return pkg_src_read(ctx, dst, n);
}

static int arc_read(void *ctx, void *dst, size_t n)
{
	size_t got;

	return pkg_archive_read(ctx, dst, n, &got);
}

/* The rest of the file is a compressed stream of cpio archives. */
static int compressed(struct initrd_ctx *c, struct pkg_src *s, int *narc)
{
	struct archive *a;
	struct archive_entry *ent;
	struct cpio_in in = {.read = arc_read};
	uint64_t start = s->off;
	char lib[200];
	int rc;

	rc = pkg_src_archive(s, 1, &a, lib, sizeof(lib));
	if (rc) {
		snprintf(c->err, c->errlen,
			 "offset %" PRIu64 ": compressed data: %s", start, lib);
		return rc;
	}
	in.ctx = a;
	if (archive_read_next_header(a, &ent) != ARCHIVE_OK ||
	    archive_filter_count(a) < 2) {
		archive_read_free(a);
		snprintf(c->err, c->errlen,
			 "offset %" PRIu64
			 ": neither a cpio archive nor a known compression",
			 start);
		return ATT_E_FORMAT;
	}
	for (;;) {
		uint8_t first[4];

		rc = in_read(&in, first, 4);
		if (rc == ATT_E_EOF) {
			rc = ATT_OK;
			break;
		}
		if (rc) {
			rc = fail(c, rc == ATT_E_TRUNCATED ? rc : ATT_E_FORMAT,
				  archive_error_string(a)
					  ? archive_error_string(a)
					  : "compressed data cut short",
				  &in, NULL);
			break;
		}
		if (!memcmp(first, "\0\0\0\0", 4))
			continue;
		rc = cpio_archive(c, &in, first);
		if (rc)
			break;
		(*narc)++;
	}
	archive_read_free(a);
	return rc;
}

int initrd_read(struct pkg_src *s, struct pkg_list *l, struct att_md *md,
		char *err, size_t errlen)
{
	struct initrd_ctx c = {.l = l, .md = md, .err = err, .errlen = errlen};
	struct cpio_in in = {.read = src_read, .ctx = s};
	int rc = ATT_OK, narc = 0;

	l->replace = 1;
	c.buf = malloc(CPIO_CHUNK);
	if (!c.buf)
		return ATT_E_NOMEM;
	for (;;) {
		const uint8_t *p;
		size_t n, z = 0;

		/* zero padding between archives */
		p = pkg_src_peek(s, 65536, &n);
		if (!p) {
			rc = fail(&c, ATT_E_IO, "read failed", NULL, NULL);
			break;
		}
		while (z < n && !p[z])
			z++;
		if (z) {
			pkg_src_skip(s, z);
			continue;
		}
		if (!n)
			break;
		in.off = s->off;
		if (n >= 6 &&
		    (!memcmp(p, "070701", 6) || !memcmp(p, "070702", 6))) {
			uint8_t first[4];

			if (s->off & 3) {
				rc = fail(&c, ATT_E_FORMAT,
					  "cpio archive not 4-byte aligned",
					  &in, NULL);
				break;
			}
			pkg_src_read(s, first, 4);
			in.off = s->off;
			rc = cpio_archive(&c, &in, first);
			if (rc)
				break;
			narc++;
			continue;
		}
		rc = compressed(&c, s, &narc);
		break;
	}
	if (!rc && !narc)
		rc = fail(&c, ATT_E_FORMAT, "no cpio archive", NULL, NULL);
	groups_reset(&c);
	free(c.buf);
	return rc;
}
