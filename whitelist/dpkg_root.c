// SPDX-License-Identifier: Apache-2.0
/*
 * dpkg_root.c - the installed packages and diversions of a dpkg database.
 */
#include "dpkg_root.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "deb822.h"

void dpkg_root_init(struct dpkg_root *d)
{
	memset(d, 0, sizeof(*d));
	pkg_divert_init(&d->divert);
}

void dpkg_root_release(struct dpkg_root *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->p[i].name);
		free(d->p[i].version);
		free(d->p[i].arch);
	}
	free(d->p);
	pkg_divert_release(&d->divert);
	dpkg_root_init(d);
}

static int add(struct dpkg_root *d, const char *name, const char *ver,
	       const char *arch)
{
	struct dpkg_pkg *p;

	if (d->n == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 256;
		struct dpkg_pkg *np = realloc(d->p, nc * sizeof(*np));

		if (!np)
			return ATT_E_NOMEM;
		d->p = np;
		d->cap = nc;
	}
	p = &d->p[d->n];
	p->name = strdup(name);
	p->version = strdup(ver);
	p->arch = strdup(arch);
	if (!p->name || !p->version || !p->arch) {
		free(p->name);
		free(p->version);
		free(p->arch);
		return ATT_E_NOMEM;
	}
	d->n++;
	return ATT_OK;
}

int dpkg_status_parse(struct dpkg_root *d, const char *text, size_t len,
		      char *err, size_t errlen)
{
	struct deb822 r;
	const char *s;
	size_t n, k = 0;

	deb822_init(&r, text, len);
	while (deb822_next(&r, &s, &n)) {
		char name[256], ver[256], arch[64], status[128];
		size_t sl;

		k++;
		if (deb822_field(s, n, "Package", name, sizeof(name)) ||
		    deb822_field(s, n, "Status", status, sizeof(status))) {
			snprintf(err, errlen,
				 "status: stanza %zu lacks Package or Status",
				 k);
			return ATT_E_FORMAT;
		}
		sl = strlen(status);
		/* "install ok installed", "hold ok installed" */
		if (sl < 10 || strcmp(status + sl - 10, " installed"))
			continue;
		if (deb822_field(s, n, "Version", ver, sizeof(ver)) ||
		    deb822_field(s, n, "Architecture", arch, sizeof(arch))) {
			snprintf(err, errlen,
				 "status: %s lacks Version or Architecture",
				 name);
			return ATT_E_FORMAT;
		}
		if (add(d, name, ver, arch))
			return ATT_E_NOMEM;
	}
	return ATT_OK;
}

int dpkg_diversions_parse(struct dpkg_root *d, const char *text, size_t len,
			  char *err, size_t errlen)
{
	const char *p = text, *end = text + len, *l[3];
	size_t ll[3];
	int i, rc;

	while (p < end) {
		char from[PKG_MAX_PATH + 1], to[PKG_MAX_PATH + 1], by[256];

		for (i = 0; i < 3; i++) {
			const char *e = memchr(p, '\n', (size_t)(end - p));

			if (p >= end || !e) {
				snprintf(err, errlen,
					 "diversions: not three lines per "
					 "diversion");
				return ATT_E_FORMAT;
			}
			l[i] = p;
			ll[i] = (size_t)(e - p);
			p = e + 1;
		}
		if (!ll[0] || l[0][0] != '/' || !ll[1] || l[1][0] != '/' ||
		    ll[0] > PKG_MAX_PATH || ll[1] > PKG_MAX_PATH || !ll[2] ||
		    ll[2] >= sizeof(by) ||
		    pkg_path_norm(l[0] + 1, ll[0] - 1, from) ||
		    pkg_path_norm(l[1] + 1, ll[1] - 1, to)) {
			snprintf(err, errlen, "diversions: bad diversion");
			return ATT_E_FORMAT;
		}
		memcpy(by, l[2], ll[2]);
		by[ll[2]] = '\0';
		rc = pkg_divert_add(&d->divert, from, to,
				    strcmp(by, ":") ? by : NULL);
		if (rc)
			return rc;
	}
	return ATT_OK;
}

static int read_db(const char *root, const char *name, struct att_buf *b,
		   int must)
{
	struct att_buf p;
	int rc;

	att_buf_init(&p, 0);
	rc = att_buf_printf(&p, "%s/var/lib/dpkg/%s", root, name) ||
			     att_buf_cstr(&p)
		     ? ATT_E_NOMEM
		     : att_buf_read_file(b, (char *)p.data, DPKG_MAX_STATUS);
	if (rc == ATT_E_IO && errno == ENOENT && !must)
		rc = ATT_OK;
	att_buf_release(&p);
	return rc;
}

int dpkg_root_load(struct dpkg_root *d, const char *root, char *err,
		   size_t errlen)
{
	struct att_buf st, dv;
	int rc;

	att_buf_init(&st, DPKG_MAX_STATUS);
	att_buf_init(&dv, DPKG_MAX_STATUS);
	rc = read_db(root, "status", &st, 1);
	if (rc) {
		snprintf(err, errlen, "var/lib/dpkg/status: %s",
			 rc == ATT_E_IO ? strerror(errno) : att_strerror(rc));
		goto out;
	}
	rc = dpkg_status_parse(d, (char *)st.data, st.len, err, errlen);
	if (!rc) {
		rc = read_db(root, "diversions", &dv, 0);
		if (rc)
			snprintf(err, errlen, "var/lib/dpkg/diversions: %s",
				 att_strerror(rc));
	}
	if (!rc)
		rc = dpkg_diversions_parse(d, (char *)dv.data, dv.len, err,
					   errlen);
out:
	att_buf_release(&st);
	att_buf_release(&dv);
	return rc;
}

int dpkg_root_archive(const char *root, const struct dpkg_pkg *p,
		      struct att_buf *out)
{
	const char *v;
	int rc;

	if (strchr(p->name, '/') || strchr(p->version, '/') ||
	    strchr(p->arch, '/'))
		return ATT_E_NOT_FOUND;
	rc = att_buf_printf(out, "%s/var/cache/apt/archives/%s_", root,
			    p->name);
	for (v = p->version; !rc && *v; v++)
		rc = *v == ':' ? att_buf_printf(out, "%%3a")
			       : att_buf_append(out, v, 1);
	if (!rc)
		rc = att_buf_printf(out, "_%s.deb", p->arch);
	if (!rc)
		rc = att_buf_cstr(out);
	if (rc)
		return rc;
	return access((char *)out->data, R_OK) ? ATT_E_NOT_FOUND : ATT_OK;
}
