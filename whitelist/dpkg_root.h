/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dpkg_root.h - what dpkg says is installed on a host or image
 * (ROOT/var/lib/dpkg/status), its diversions (ROOT/var/lib/dpkg/diversions)
 * and where the .deb of an installed package is in ROOT/var/cache/apt/archives.
 */
#ifndef ATTEST_WL_DPKG_ROOT_H
#define ATTEST_WL_DPKG_ROOT_H

#include <stddef.h>

#include "pkg.h"

#define DPKG_MAX_STATUS (256u << 20)

struct att_buf;

struct dpkg_pkg {
	char *name, *version, *arch;
};

struct dpkg_root {
	struct dpkg_pkg *p;
	size_t n, cap;
	struct pkg_divert divert;
};

void dpkg_root_init(struct dpkg_root *d);
void dpkg_root_release(struct dpkg_root *d);
/* The installed packages ("install ok installed") and the diversions. */
int dpkg_root_load(struct dpkg_root *d, const char *root, char *err,
		   size_t errlen);
/* Parsers, exposed for the tests. */
int dpkg_status_parse(struct dpkg_root *d, const char *text, size_t len,
		      char *err, size_t errlen);
int dpkg_diversions_parse(struct dpkg_root *d, const char *text, size_t len,
			  char *err, size_t errlen);
/* ROOT/var/cache/apt/archives/NAME_VERSION_ARCH.deb (':' as %3a) when there. */
int dpkg_root_archive(const char *root, const struct dpkg_pkg *p,
		      struct att_buf *out);

#endif
