/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deb.h - the files of a Debian binary package (.deb), hashed without
 * installing it: the ar container is read here, its data.tar member (none,
 * gzip, xz, zstd, bzip2, lzma) by libarchive.
 */
#ifndef ATTEST_WL_DEB_H
#define ATTEST_WL_DEB_H

#include <stddef.h>

struct att_md;
struct pkg_list;
struct pkg_src;

/*
 * Reads the package from s into l (normalised archive paths; regular
 * files hashed with md). Errors: ATT_E_FORMAT (not a .deb, a member name
 * that is absolute or has "..", a hard link to no earlier file, a path
 * listed twice, a corrupt data member), ATT_E_TRUNCATED, ATT_E_TOO_BIG
 * (a member over PKG_MAX_MEMBER, more than PKG_MAX_UNPACKED unpacked),
 * ATT_E_IO; err says which member and why.
 */
int deb_read(struct pkg_src *s, struct pkg_list *l, struct att_md *md,
	     char *err, size_t errlen);

#endif
