// SPDX-License-Identifier: Apache-2.0
/*
 * pkg_emit.c - lists an archive's regular files in a whitelist, each
 * under the path IMA reports on the host: dpkg diversions first, then
 * the directories resolved through the host's symlinks (usr-merge) and
 * the archive's own.
 */
#include "pkg_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "wldoc.h"

static int archive_links(const struct pkg_list *l, struct pkg_links *k)
{
	size_t i;
	int rc = ATT_OK;

	for (i = 0; !rc && i < l->n; i++)
		if (l->e[i].kind == PKG_SYMLINK)
			rc = pkg_links_add(k, l->e[i].path, l->e[i].target);
	return rc;
}

static void report_name(const char *label, const char *path)
{
	struct att_buf b;

	att_buf_init(&b, 0);
	att_escape_bytes((const uint8_t *)path, strlen(path), &b);
	att_buf_cstr(&b);
	fprintf(stderr,
		"attest-whitelist: %s: name is not UTF-8, a JSON whitelist "
		"cannot hold it (not included): %s\n",
		label, b.data ? (char *)b.data : "");
	att_buf_release(&b);
}

int pkg_emit(const struct pkg_job *j, const struct pkg_emit_opts *o,
	     struct wldoc *doc, struct pkg_emit_stats *st)
{
	const struct pkg_list *l = &j->list;
	struct pkg_links own;
	char path[PKG_MAX_PATH + 1];
	size_t i;
	int rc;

	pkg_links_init(&own);
	rc = archive_links(l, &own);
	for (i = 0; !rc && i < l->n; i++) {
		const struct pkg_entry *e = &l->e[i];
		char hex[2 * ATT_DIGEST_MAX + 1];
		const char *p = e->path, *dv;

		switch (e->kind) {
		case PKG_SYMLINK:
			st->symlinks++;
			continue;
		case PKG_DIR:
			st->dirs++;
			continue;
		case PKG_SPECIAL:
			st->special++;
			continue;
		case PKG_HARDLINK:
			st->hardlinks++;
			break;
		case PKG_REG:
			break;
		}
		st->files++;
		if (!o->all && !e->candidate) {
			st->not_candidate++;
			continue;
		}
		dv = o->divert ? pkg_divert_find(o->divert, j->pkg, p) : NULL;
		if (dv) {
			p = dv;
			st->moved++;
		}
		rc = pkg_path_resolve(o->host, &own, p, path);
		if (rc) {
			fprintf(stderr,
				"attest-whitelist: %s: %s: symlink loop on "
				"the way\n",
				j->label, e->path);
			break;
		}
		if ((o->excl && !regexec(o->excl, path, 0, NULL, 0)) ||
		    (o->incl && regexec(o->incl, path, 0, NULL, 0))) {
			st->excluded++;
			continue;
		}
		if (!wldoc_utf8_ok((const uint8_t *)path, strlen(path))) {
			report_name(j->label, path);
			st->not_utf8++;
			continue;
		}
		att_hex_encode(e->digest, att_hash_size(o->hash), hex);
		if (o->hash == ATT_HASH_SM3) {
			char d[2 * ATT_DIGEST_MAX + 8];

			snprintf(d, sizeof(d), "sm3:%s", hex);
			rc = wldoc_add_digest(doc, path, d);
		} else {
			rc = wldoc_add_digest(doc, path, hex);
		}
		st->listed++;
	}
	pkg_links_release(&own);
	return rc;
}
