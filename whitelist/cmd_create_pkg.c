// SPDX-License-Identifier: Apache-2.0
/*
 * cmd_create_pkg.c - attest-whitelist create --deb / --apt-repo /
 * --dpkg-root / --initrd: the archives to read, read in parallel through
 * the cache, their files listed under the paths IMA reports.
 */
#include "create_pkg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apt_repo.h"
#include "attest/buf.h"
#include "attest/err.h"
#include "dpkg_root.h"
#include "pkg_run.h"
#include "wldoc.h"

static int jobs_from_dpkg(const struct create_pkg_args *a,
			  const struct apt_index *idx, struct pkg_jobs *js,
			  struct dpkg_root *dr, int *reported)
{
	size_t i;
	int rc = ATT_OK;

	for (i = 0; !rc && i < dr->n; i++) {
		const struct dpkg_pkg *p = &dr->p[i];
		const struct apt_pkg *ap =
			apt_index_find(idx, p->name, p->version, p->arch);
		struct att_buf file, label;

		att_buf_init(&file, 0);
		att_buf_init(&label, 0);
		if (att_buf_printf(&label, "%s %s %s", p->name, p->version,
				   p->arch) ||
		    att_buf_cstr(&label)) {
			rc = ATT_E_NOMEM;
		} else if (ap) {
			rc = pkg_jobs_add(js, ap->file, (char *)label.data,
					  PKG_TYPE_DEB, ap->sha256, ap->size);
		} else if (!dpkg_root_archive(a->dpkg_root, p, &file)) {
			rc = pkg_jobs_add(js, (char *)file.data,
					  (char *)label.data, PKG_TYPE_DEB,
					  NULL, 0);
		} else {
			fprintf(stderr,
				"attest-whitelist: %s: installed, but no .deb "
				"of it in %s/var/cache/apt/archives%s (its "
				"files are not listed)\n",
				(char *)label.data, a->dpkg_root,
				a->apt_repo ? " nor in --apt-repo" : "");
			(*reported)++;
		}
		if (!rc && js->n && !js->j[js->n - 1].pkg &&
		    !strcmp(js->j[js->n - 1].label, (char *)label.data)) {
			js->j[js->n - 1].pkg = strdup(p->name);
			if (!js->j[js->n - 1].pkg)
				rc = ATT_E_NOMEM;
		}
		att_buf_release(&file);
		att_buf_release(&label);
	}
	return rc;
}

static int make_jobs(const struct create_pkg_args *a, struct pkg_jobs *js,
		     struct apt_index *idx, struct dpkg_root *dr, int *reported)
{
	char err[400];
	size_t i;
	int rc = ATT_OK;

	for (i = 0; !rc && i < a->ndebs; i++)
		rc = pkg_jobs_add(js, a->debs[i], NULL, PKG_TYPE_DEB, NULL, 0);
	for (i = 0; !rc && i < a->ninitrds; i++)
		rc = pkg_jobs_add(js, a->initrds[i], NULL, PKG_TYPE_INITRD,
				  NULL, 0);
	if (rc)
		return rc;
	if (a->apt_repo) {
		rc = apt_index_load(idx, a->apt_repo, a->keyring, err,
				    sizeof(err));
		if (rc) {
			fprintf(stderr, "attest-whitelist: %s: %s\n",
				a->apt_repo, err);
			return rc;
		}
		fprintf(stderr,
			"attest-whitelist: %s: %zu signed indices, %zu "
			"packages (every version), %zu .deb files\n",
			a->apt_repo, idx->nindices, idx->n, idx->nfiles);
	}
	if (a->dpkg_root) {
		rc = dpkg_root_load(dr, a->dpkg_root, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "attest-whitelist: %s: %s\n",
				a->dpkg_root, err);
			return rc;
		}
		return jobs_from_dpkg(a, idx, js, dr, reported);
	}
	for (i = 0; !rc && a->apt_repo && i < idx->n; i++) {
		const struct apt_pkg *p = &idx->p[i];
		struct att_buf label;

		if (p->dup)
			continue;
		att_buf_init(&label, 0);
		rc = att_buf_printf(&label, "%s %s %s", p->name, p->version,
				    p->arch) ||
		     att_buf_cstr(&label);
		if (!rc)
			rc = pkg_jobs_add(js, p->file, (char *)label.data,
					  PKG_TYPE_DEB, p->sha256, p->size);
		att_buf_release(&label);
	}
	return rc;
}

struct sink_ctx {
	struct pkg_emit_opts eo;
	struct pkg_emit_stats es;
	const struct pkg_links *host;
	const struct pkg_divert *divert;
	struct wldoc *doc;
	size_t failed;
};

/* Each archive as it is done: its error reported, or its files listed. */
static int sink(struct pkg_job *j, void *arg)
{
	struct sink_ctx *c = arg;

	if (j->rc) {
		fprintf(stderr, "attest-whitelist: %s: %s\n", j->label, j->err);
		c->failed++;
		return ATT_OK; /* the others are still reported */
	}
	if (c->failed)
		return ATT_OK; /* nothing will be written */
	/* an initramfs has its own root: no host links there */
	c->eo.host = j->type == PKG_TYPE_DEB ? c->host : NULL;
	c->eo.divert = j->type == PKG_TYPE_DEB ? c->divert : NULL;
	return pkg_emit(j, &c->eo, c->doc, &c->es);
}

int wlcli_create_pkgs(const struct create_pkg_args *a, struct wldoc *doc,
		      int *reported)
{
	struct sink_ctx sc = {.eo = {.all = a->all,
				     .excl = a->excl,
				     .incl = a->incl,
				     .hash = a->hash},
			      .doc = doc};
	struct pkg_run_opts ro = {.hash = a->hash,
				  .threads = a->threads,
				  .progress = a->progress,
				  .cache = a->cache,
				  .sink = sink,
				  .ctx = &sc};
	struct pkg_emit_stats *es = &sc.es;
	struct pkg_run_stats rs;
	struct pkg_links host;
	struct apt_index idx;
	struct dpkg_root dr;
	struct pkg_jobs js;
	int rc;

	pkg_jobs_init(&js);
	pkg_links_init(&host);
	apt_index_init(&idx);
	dpkg_root_init(&dr);
	rc = make_jobs(a, &js, &idx, &dr, reported);
	if (!rc && a->usrmerge)
		rc = pkg_links_add_usrmerge(&host);
	if (rc)
		goto out;
	sc.host = &host;
	sc.divert = &dr.divert;
	rc = pkg_run(&js, &ro, &rs);
	if (!rc && sc.failed)
		rc = ATT_E_FORMAT;
	if (rc)
		goto out;
	fprintf(stderr,
		"attest-whitelist: %zu archives (%zu from the cache, %zu "
		"read: %.1f MiB), %zu files (%.1f MiB), %zu listed, %zu not "
		"measured by policy, %zu hard links, %zu symlinks (targets "
		"measured under their own paths), %zu diverted, %zu excluded; "
		"reported: %zu special, %zu non-UTF-8\n",
		rs.jobs, rs.cached, rs.hashed_archives,
		(double)rs.archive_bytes / 1048576.0, es->files,
		(double)rs.file_bytes / 1048576.0, es->listed,
		es->not_candidate, es->hardlinks, es->symlinks, es->moved,
		es->excluded, es->special, es->not_utf8);
	*reported += (int)es->not_utf8;
out:
	pkg_jobs_release(&js);
	pkg_links_release(&host);
	apt_index_release(&idx);
	dpkg_root_release(&dr);
	return rc;
}
