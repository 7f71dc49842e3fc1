/* SPDX-License-Identifier: Apache-2.0 */
/*
 * create_pkg.h - attest-whitelist create from packages and images:
 * --deb, --apt-repo, --dpkg-root, --initrd.
 */
#ifndef ATTEST_WL_CREATE_PKG_H
#define ATTEST_WL_CREATE_PKG_H

#include <regex.h>
#include <stddef.h>

#include "attest/digest.h"

struct wldoc;

struct create_pkg_args {
	const char **debs;
	size_t ndebs;
	const char **initrds;
	size_t ninitrds;
	const char *apt_repo, *keyring, *cache, *dpkg_root;
	int all;      /* --policy tcb (every regular file) */
	int usrmerge; /* list /bin, /sbin, /lib* under /usr */
	int progress;
	enum att_hash hash;
	unsigned int threads;
	regex_t *excl, *incl;
};

/*
 * Lists the packages' and images' files in doc. *reported counts what was
 * left out and reported (non-UTF-8 names, installed packages without a
 * .deb); any malformed input is an error (nothing is to be written).
 */
int wlcli_create_pkgs(const struct create_pkg_args *a, struct wldoc *doc,
		      int *reported);

#endif
