// SPDX-License-Identifier: Apache-2.0
/*
 * deb.c - reads a .deb: the ar container (deb(5): "!<arch>\n", then
 * debian-binary, control.tar*, data.tar*, with "_"-prefixed members
 * allowed and ignored as dpkg does), the files of its data member, and
 * the maintainer scripts of its control member under the paths dpkg runs
 * them from (deb_scripts below).
 */
#include "deb.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "attest/digest.h"
#include "attest/err.h"
#include "pkg.h"
#include "pkg_src.h"

#define AR_HDR		60
#define DEB_CHUNK	(256 * 1024)
#define DEB_CONTROL_MAX (1 << 20) /* the control file (dpkg: far less) */
#define DEB_NAME_MAX	128	  /* a package or architecture name */

/*
 * The maintainer scripts (deb-preinst(5), deb-postinst(5), ...; config is
 * debconf's). dpkg unpacks the control member into /var/lib/dpkg/tmp.ci/,
 * runs the new preinst from there, then moves every script to
 * /var/lib/dpkg/info/PKG.NAME, where postinst, prerm and postrm run.
 * IMA measures a file once per inode and content, under the name it was
 * first read by: preinst under tmp.ci, the others under info (an old
 * package's prerm, the upgraded one's postinst); both names are listed.
 */
static const char *const deb_scripts[] = {"preinst", "postinst", "prerm",
					  "postrm", "config"};
#define DEB_NSCRIPTS (sizeof(deb_scripts) / sizeof(deb_scripts[0]))

struct deb_ctx {
	struct pkg_src *s;
	struct pkg_list *l;
	struct att_md *md;
	uint8_t *buf;
	uint64_t unpacked;
	char *err;
	size_t errlen;
	const char *what; /* the member being read: "control", "data" */
	/* the control member: the control file's fields, the scripts */
	char *control;
	size_t control_len;
	int have_script[DEB_NSCRIPTS];
	uint8_t script_digest[DEB_NSCRIPTS][ATT_DIGEST_MAX];
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

/*
 * Hashes the current entry's data into d (its first bytes into head,
 * *nhead of them; keep: a copy of up to keep_max bytes into *keep).
 */
static int hash_entry(struct deb_ctx *c, struct archive *a, const char *path,
		      uint8_t *d, uint8_t *head, size_t *nhead, size_t keep_max,
		      char **keep, size_t *keep_len)
{
	uint64_t bytes = 0;
	size_t n = 0;

	att_md_init(c->md);
	for (;;) {
		la_ssize_t r = archive_read_data(a, c->buf, DEB_CHUNK);

		if (r < 0) {
			char msg[64];

			snprintf(msg, sizeof(msg), "%s member corrupt",
				 c->what);
			return fail(c, ATT_E_FORMAT, msg,
				    archive_error_string(a));
		}
		if (r == 0)
			break;
		c->unpacked += (uint64_t)r;
		bytes += (uint64_t)r;
		if (c->unpacked > PKG_MAX_UNPACKED)
			return fail(c, ATT_E_TOO_BIG,
				    "more unpacked than the cap", path);
		while (head && n < 4 && n < (size_t)r) {
			head[n] = c->buf[n];
			n++;
		}
		if (keep) {
			char *k;

			if (*keep_len + (size_t)r > keep_max)
				return fail(c, ATT_E_TOO_BIG,
					    "control file over the cap", path);
			k = realloc(*keep, *keep_len + (size_t)r + 1);
			if (!k)
				return ATT_E_NOMEM;
			memcpy(k + *keep_len, c->buf, (size_t)r);
			*keep_len += (size_t)r;
			k[*keep_len] = '\0';
			*keep = k;
		}
		att_md_update(c->md, c->buf, (size_t)r);
	}
	att_md_final(c->md, d);
	if (!keep) /* the control file is read, not listed */
		c->l->bytes += bytes;
	if (nhead)
		*nhead = n;
	return ATT_OK;
}

static int hash_file(struct deb_ctx *c, struct archive *a, const char *path,
		     int exec)
{
	uint8_t head[4], d[ATT_DIGEST_MAX] = {0};
	size_t nhead = 0;
	int rc;

	rc = hash_entry(c, a, path, d, head, &nhead, 0, NULL, NULL);
	if (rc)
		return rc;
	rc = pkg_list_add(c->l, PKG_REG, path, NULL,
			  pkg_is_candidate(path, exec, head, nhead), d);
	return rc == ATT_E_EXISTS ? fail(c, ATT_E_FORMAT, "listed twice", path)
				  : rc;
}

/* An entry's name, normalised into path (PKG_MAX_PATH + 1 bytes). */
static int entry_path(struct deb_ctx *c, const char *name, char *path)
{
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
	return ATT_OK;
}

static int one_entry(struct deb_ctx *c, struct archive *a,
		     struct archive_entry *ent)
{
	const char *name = archive_entry_pathname(ent);
	const char *hl = archive_entry_hardlink(ent);
	char path[PKG_MAX_PATH + 1], tpath[PKG_MAX_PATH + 1];
	mode_t type = archive_entry_filetype(ent);
	int rc;

	rc = entry_path(c, name, path);
	if (rc)
		return rc;
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

/* One entry of the control member: the control file, or a script. */
static int control_entry(struct deb_ctx *c, struct archive *a,
			 struct archive_entry *ent)
{
	const char *name = archive_entry_pathname(ent);
	char path[PKG_MAX_PATH + 1];
	size_t i;
	int rc;

	rc = entry_path(c, name, path);
	if (rc)
		return rc;
	if (archive_entry_filetype(ent) != AE_IFREG)
		return ATT_OK;
	if (!strcmp(path, "/control")) {
		uint8_t d[ATT_DIGEST_MAX];

		if (c->control)
			return fail(c, ATT_E_FORMAT, "listed twice", name);
		return hash_entry(c, a, path, d, NULL, NULL, DEB_CONTROL_MAX,
				  &c->control, &c->control_len);
	}
	for (i = 0; i < DEB_NSCRIPTS; i++) {
		if (path[0] != '/' || strcmp(path + 1, deb_scripts[i]))
			continue;
		if (c->have_script[i])
			return fail(c, ATT_E_FORMAT, "listed twice", name);
		c->have_script[i] = 1;
		return hash_entry(c, a, path, c->script_digest[i], NULL, NULL,
				  0, NULL, NULL);
	}
	return ATT_OK; /* md5sums, conffiles, triggers, shlibs, ... */
}

/*
 * A field of the control file (deb-control(5)): "Name: value" at the start
 * of a line, the value to its line's end, without surrounding blanks.
 * Copied into out (n bytes); "" when absent.
 */
static void control_field(const char *ctl, const char *field, char *out,
			  size_t n)
{
	size_t fl = strlen(field);
	const char *p = ctl;

	out[0] = '\0';
	while (p && *p) {
		if (!strncasecmp(p, field, fl) && p[fl] == ':') {
			const char *v = p + fl + 1, *e;

			while (*v == ' ' || *v == '\t')
				v++;
			e = v + strcspn(v, "\n");
			while (e > v &&
			       (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
				e--;
			if ((size_t)(e - v) < n) {
				memcpy(out, v, (size_t)(e - v));
				out[e - v] = '\0';
			}
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

/* A package or architecture name: [a-z0-9][a-z0-9+.-]* (deb-control(5)). */
static int name_ok(const char *s)
{
	size_t i;

	if (!s[0])
		return 0;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') ||
		      (i && (s[i] == '+' || s[i] == '.' || s[i] == '-'))))
			return 0;
	return 1;
}

/*
 * The scripts under the names dpkg gives them: info/PKG.NAME (PKG:ARCH
 * for a Multi-Arch: same package, as dpkg names its files) and
 * tmp.ci/NAME.
 */
static int add_scripts(struct deb_ctx *c)
{
	char pkg[DEB_NAME_MAX], arch[DEB_NAME_MAX], ma[DEB_NAME_MAX];
	char path[PKG_MAX_PATH + 1];
	size_t i;
	int rc = ATT_OK, any = 0;

	for (i = 0; i < DEB_NSCRIPTS; i++)
		any |= c->have_script[i];
	if (!any)
		return ATT_OK;
	control_field(c->control ? c->control : "", "Package", pkg,
		      sizeof(pkg));
	control_field(c->control ? c->control : "", "Architecture", arch,
		      sizeof(arch));
	control_field(c->control ? c->control : "", "Multi-Arch", ma,
		      sizeof(ma));
	if (!name_ok(pkg))
		return fail(c, ATT_E_FORMAT,
			    "control member: no valid Package field", NULL);
	if (!strcmp(ma, "same") && !name_ok(arch))
		return fail(c, ATT_E_FORMAT,
			    "control member: no valid Architecture field",
			    NULL);
	for (i = 0; !rc && i < DEB_NSCRIPTS; i++) {
		if (!c->have_script[i])
			continue;
		snprintf(path, sizeof(path), "/var/lib/dpkg/info/%s%s%s.%s",
			 pkg, strcmp(ma, "same") ? "" : ":",
			 strcmp(ma, "same") ? "" : arch, deb_scripts[i]);
		rc = pkg_list_add(c->l, PKG_REG, path, NULL, 1,
				  c->script_digest[i]);
		if (!rc) {
			snprintf(path, sizeof(path), "/var/lib/dpkg/tmp.ci/%s",
				 deb_scripts[i]);
			rc = pkg_list_add(c->l, PKG_REG, path, NULL, 1,
					  c->script_digest[i]);
		}
	}
	return rc == ATT_E_EXISTS ? fail(c, ATT_E_FORMAT, "listed twice",
					 "a maintainer script")
				  : rc;
}

/* The member of size bytes at s, each entry given to fn. */
static int read_member(struct deb_ctx *c, uint64_t size, const char *what,
		       int (*fn)(struct deb_ctx *, struct archive *,
				 struct archive_entry *))
{
	struct archive *a;
	struct archive_entry *ent;
	char lib[200], msg[64];
	int r = ARCHIVE_FATAL, rc;

	c->what = what;
	c->s->limit = size;
	rc = pkg_src_archive(c->s, 0, &a, lib, sizeof(lib));
	if (!rc) {
		while ((r = archive_read_next_header(a, &ent)) == ARCHIVE_OK) {
			rc = fn(c, a, ent);
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

		if (sk == ATT_E_TRUNCATED) {
			snprintf(msg, sizeof(msg), "%s member cut short", what);
			return fail(c, sk, msg, NULL);
		}
		if (sk)
			return fail(c, ATT_E_IO, "read failed",
				    strerror(c->s->err));
	}
	c->s->limit = UINT64_MAX;
	if (rc && lib[0]) {
		snprintf(msg, sizeof(msg), "%s member corrupt", what);
		return fail(c, rc, msg, lib);
	}
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
		} else if (name[0] != '_' && !control && !data &&
			   is_tar_name(name, "control.tar")) {
			control = 1;
			rc = read_member(&c, size, "control", control_entry);
			if (rc)
				goto out;
		} else if (name[0] == '_') {
			if (pkg_src_skip(s, size)) {
				rc = fail(&c, ATT_E_TRUNCATED,
					  "ar member cut short", name);
				goto out;
			}
		} else if (control && !data && is_tar_name(name, "data.tar")) {
			data = 1;
			rc = read_member(&c, size, "data", one_entry);
			if (!rc)
				rc = add_scripts(&c);
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
	free(c.control);
	free(c.buf);
	return rc;
}
