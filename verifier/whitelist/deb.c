// SPDX-License-Identifier: Apache-2.0
/*
 * deb.c - reads a .deb: the ar container (deb(5): "!<arch>\n", then
 * debian-binary, control.tar*, data.tar*, with "_"-prefixed members
 * allowed and ignored as dpkg does) and the files of its data member.
 */
#include "deb.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/digest.h"
#include "attest/err.h"
#include "pkg.h"
#include "pkg_src.h"

#define AR_HDR	  60
#define DEB_CHUNK (256 * 1024)

struct deb_ctx {
	struct pkg_src *s;
	struct pkg_list *l;
	struct att_md *md;
	uint8_t *buf;
	uint64_t unpacked;
	char *err;
	size_t errlen;
};

/* An ar header's decimal size field: digits, then spaces. */
static int ar_size(const char *f, size_t n, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;

	if (!n || f[0] < '0' || f[0] > '9')
		return ATT_E_FORMAT;
	for (; i < n && f[i] >= '0' && f[i] <= '9'; i++)
		v = v * 10 + (uint64_t)(f[i] - '0');
	for (; i < n; i++)
		if (f[i] != ' ')
			return ATT_E_FORMAT;
	*out = v;
	return ATT_OK;
}

static void member_name(const char *hdr, char *name)
{
	size_t n = 16;

	memcpy(name, hdr, 16);
	while (n && name[n - 1] == ' ')
		n--;
	if (n && name[n - 1] == '/')
		n--; /* GNU ar */
	name[n] = '\0';
}

static int is_tar_name(const char *name, const char *base)
{
	static const char *const ext[] = {"",	  ".gz",  ".xz",
					  ".zst", ".bz2", ".lzma"};
	size_t bl = strlen(base), i;

	if (strncmp(name, base, bl))
		return 0;
	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (!strcmp(name + bl, ext[i]))
			return 1;
	return 0;
}

static int fail(struct deb_ctx *c, int rc, const char *what, const char *name)
{
	snprintf(c->err, c->errlen, "%s%s%s", what, name ? ": " : "",
		 name ? name : "");
	return rc;
}

static int hash_file(struct deb_ctx *c, struct archive *a, const char *path,
		     int exec)
{
	uint8_t head[4], d[ATT_DIGEST_MAX] = {0};
	uint64_t bytes = 0;
	size_t nhead = 0;
	int rc;

	att_md_init(c->md);
	for (;;) {
		la_ssize_t r = archive_read_data(a, c->buf, DEB_CHUNK);

		if (r < 0)
			return fail(c, ATT_E_FORMAT, "data member corrupt",
				    archive_error_string(a));
		if (r == 0)
			break;
		c->unpacked += (uint64_t)r;
		bytes += (uint64_t)r;
		if (c->unpacked > PKG_MAX_UNPACKED)
			return fail(c, ATT_E_TOO_BIG,
				    "more unpacked than the cap", path);
		while (nhead < sizeof(head) && nhead < (size_t)r) {
			head[nhead] = c->buf[nhead];
			nhead++;
		}
		att_md_update(c->md, c->buf, (size_t)r);
	}
	att_md_final(c->md, d);
	c->l->bytes += bytes;
	rc = pkg_list_add(c->l, PKG_REG, path, NULL,
			  pkg_is_candidate(path, exec, head, nhead), d);
	return rc == ATT_E_EXISTS ? fail(c, ATT_E_FORMAT, "listed twice", path)
				  : rc;
}

static int one_entry(struct deb_ctx *c, struct archive *a,
		     struct archive_entry *ent)
{
	const char *name = archive_entry_pathname(ent);
	const char *hl = archive_entry_hardlink(ent);
	char path[PKG_MAX_PATH + 1], tpath[PKG_MAX_PATH + 1];
	mode_t type = archive_entry_filetype(ent);
	int rc;

	if (!name)
		return fail(c, ATT_E_FORMAT, "member without a name", NULL);
	rc = pkg_path_norm(name, strlen(name), path);
	if (rc)
		return fail(c, rc,
			    rc == ATT_E_TOO_BIG
				    ? "member name too long"
				    : "member name absolute or with '..'",
			    name);
	if (hl) {
		const struct pkg_entry *t;

		rc = pkg_path_norm(hl, strlen(hl), tpath);
		t = rc ? NULL : pkg_list_find(c->l, tpath);
		if (!t || (t->kind != PKG_REG && t->kind != PKG_HARDLINK))
			return fail(c, ATT_E_FORMAT,
				    "hard link to no earlier file of the "
				    "package",
				    name);
		rc = pkg_list_add(c->l, PKG_HARDLINK, path, NULL, t->candidate,
				  t->digest);
		return rc == ATT_E_EXISTS
			       ? fail(c, ATT_E_FORMAT, "listed twice", name)
			       : rc;
	}
	switch (type) {
	case AE_IFREG:
		return hash_file(c, a, path, (archive_entry_perm(ent) & 0111));
	case AE_IFLNK:
		if (!archive_entry_symlink(ent))
			return fail(c, ATT_E_FORMAT, "symlink without target",
				    name);
		rc = pkg_list_add(c->l, PKG_SYMLINK, path,
				  archive_entry_symlink(ent), 0, NULL);
		break;
	case AE_IFDIR: {
		const struct pkg_entry *e = pkg_list_find(c->l, path);

		if (e && e->kind == PKG_DIR)
			return ATT_OK;
		rc = pkg_list_add(c->l, PKG_DIR, path, NULL, 0, NULL);
		break;
	}
	default:
		rc = pkg_list_add(c->l, PKG_SPECIAL, path, NULL, 0, NULL);
		break;
	}
	return rc == ATT_E_EXISTS ? fail(c, ATT_E_FORMAT, "listed twice", name)
				  : rc;
}

static int read_data(struct deb_ctx *c, uint64_t size)
{
	struct archive *a;
	struct archive_entry *ent;
	char lib[200];
	int r = ARCHIVE_FATAL, rc;

	c->s->limit = size;
	rc = pkg_src_archive(c->s, 0, &a, lib, sizeof(lib));
	if (!rc) {
		while ((r = archive_read_next_header(a, &ent)) == ARCHIVE_OK) {
			rc = one_entry(c, a, ent);
			if (rc)
				break;
		}
		if (!rc && r != ARCHIVE_EOF) {
			snprintf(lib, sizeof(lib), "%s",
				 archive_error_string(a)
					 ? archive_error_string(a)
					 : "unreadable");
			rc = ATT_E_FORMAT;
		} else if (rc) {
			lib[0] = '\0'; /* one_entry said why */
		}
		archive_read_free(a);
	}
	if (c->s->err)
		return fail(c, ATT_E_IO, "read failed", strerror(c->s->err));
	/* the member must be there to its end: libarchive stops at the
	 * end-of-archive blocks, or earlier on an error */
	if (c->s->limit) {
		int sk = pkg_src_skip(c->s, c->s->limit);

		if (sk == ATT_E_TRUNCATED)
			return fail(c, sk, "data member cut short", NULL);
		if (sk)
			return fail(c, ATT_E_IO, "read failed",
				    strerror(c->s->err));
	}
	c->s->limit = UINT64_MAX;
	if (rc && lib[0])
		return fail(c, rc, "data member corrupt", lib);
	return rc;
}

int deb_read(struct pkg_src *s, struct pkg_list *l, struct att_md *md,
	     char *err, size_t errlen)
{
	struct deb_ctx c = {
		.s = s, .l = l, .md = md, .err = err, .errlen = errlen};
	char magic[8], hdr[AR_HDR], name[17];
	int rc, idx = 0, control = 0, data = 0;

	c.buf = malloc(DEB_CHUNK);
	if (!c.buf)
		return ATT_E_NOMEM;
	rc = pkg_src_read(s, magic, sizeof(magic));
	if (rc == ATT_E_IO) {
		rc = fail(&c, rc, "read failed", strerror(s->err));
		goto out;
	}
	if (rc || memcmp(magic, "!<arch>\n", 8)) {
		rc = fail(&c, ATT_E_FORMAT, "not an ar archive", NULL);
		goto out;
	}
	for (;; idx++) {
		uint64_t size;

		rc = pkg_src_read(s, hdr, AR_HDR);
		if (rc == ATT_E_EOF && data) {
			rc = ATT_OK;
			break;
		}
		if (rc == ATT_E_EOF || rc == ATT_E_TRUNCATED) {
			rc = fail(&c, ATT_E_TRUNCATED,
				  rc == ATT_E_TRUNCATED ? "ar header cut short"
							: "no data.tar member",
				  NULL);
			goto out;
		}
		if (rc) {
			rc = fail(&c, rc, "read failed", strerror(s->err));
			goto out;
		}
		member_name(hdr, name);
		if (memcmp(hdr + 58, "`\n", 2) ||
		    ar_size(hdr + 48, 10, &size)) {
			rc = fail(&c, ATT_E_FORMAT, "bad ar member header",
				  name);
			goto out;
		}
		if (size > PKG_MAX_MEMBER) {
			rc = fail(&c, ATT_E_TOO_BIG, "ar member over the cap",
				  name);
			goto out;
		}
		if (idx == 0) {
			char v[16] = "";

			if (strcmp(name, "debian-binary") || size < 4 ||
			    size > sizeof(v) - 1) {
				rc = fail(&c, ATT_E_FORMAT,
					  "first member is not debian-binary",
					  name);
				goto out;
			}
			rc = pkg_src_read(s, v, (size_t)size);
			if (rc || strncmp(v, "2.", 2)) {
				rc = fail(&c,
					  rc ? ATT_E_TRUNCATED : ATT_E_FORMAT,
					  rc ? "debian-binary cut short"
					     : "not a version 2 package",
					  NULL);
				goto out;
			}
		} else if (name[0] == '_' ||
			   (!control && !data &&
			    is_tar_name(name, "control.tar"))) {
			control |= name[0] != '_';
			if (pkg_src_skip(s, size)) {
				rc = fail(&c, ATT_E_TRUNCATED,
					  "ar member cut short", name);
				goto out;
			}
		} else if (control && !data && is_tar_name(name, "data.tar")) {
			data = 1;
			rc = read_data(&c, size);
			if (rc)
				goto out;
		} else {
			rc = fail(&c, ATT_E_FORMAT, "unexpected ar member",
				  name);
			goto out;
		}
		/* members start on even offsets; the last pad may be absent */
		if (size & 1) {
			rc = pkg_src_skip(s, 1);
			if (rc == ATT_E_TRUNCATED && data) {
				rc = ATT_OK;
				break;
			}
			if (rc) {
				rc = fail(&c, ATT_E_TRUNCATED,
					  "ar padding missing", name);
				goto out;
			}
		}
	}
out:
	free(c.buf);
	return rc;
}
