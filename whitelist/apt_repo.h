/* SPDX-License-Identifier: Apache-2.0 */
/*
 * apt_repo.h - the packages of a local APT repository (a mirror or a
 * file: repository), from signed indices only: InRelease (or Release and
 * Release.gpg) verified by gpgv with the given keyring, the Packages
 * indices checked against the SHA-256 sums the verified Release lists,
 * every .deb to be checked against the SHA-256 its index gives.
 */
#ifndef ATTEST_WL_APT_REPO_H
#define ATTEST_WL_APT_REPO_H

#include <stddef.h>
#include <stdint.h>

#define APT_MAX_RELEASE	 (64u << 20)
#define APT_MAX_PACKAGES (1024u << 20) /* an index, decompressed */

struct apt_pkg {
	char *name, *version, *arch;
	char *file; /* DIR/Filename */
	uint8_t sha256[32];
	uint64_t size;
	int dup; /* the same .deb as an earlier entry (another suite) */
};

struct apt_index {
	struct apt_pkg *p;
	size_t n, cap;
	size_t nindices, nfiles;
};

void apt_index_init(struct apt_index *x);
void apt_index_release(struct apt_index *x);
/*
 * Loads the repository at dir: DIR/InRelease or DIR/Release (a flat
 * repository) or DIR/dists/SUITE/ for each suite. ATT_E_VERIFY when a
 * signature or an index's hash does not check; ATT_E_FORMAT when an index
 * is malformed; err says which file.
 */
int apt_index_load(struct apt_index *x, const char *dir, const char *keyring,
		   char *err, size_t errlen);
const struct apt_pkg *apt_index_find(const struct apt_index *x,
				     const char *name, const char *version,
				     const char *arch);

/*
 * Parses a Packages index (deb822 stanzas) into x; base is the
 * repository's root, prefixed to each Filename. Exposed for the tests.
 */
int apt_packages_parse(struct apt_index *x, const char *base, const char *text,
		       size_t len, char *err, size_t errlen);

#endif
