/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pkg_cache.h - what a package (or initramfs) holds, kept under a cache
 * directory by the SHA-256 of the archive file, so that an unchanged
 * archive is never read twice: DIR/<hash>/<type>-<sha256 hex>.json, written
 * atomically. The cache is as trusted as the whitelist it feeds: keep it
 * where only the whitelist's maker can write.
 */
#ifndef ATTEST_WL_PKG_CACHE_H
#define ATTEST_WL_PKG_CACHE_H

#include <stdint.h>

#include "attest/digest.h"
#include "pkg_run.h"

/* ATT_E_NOT_FOUND when absent or unusable (then the archive is read). */
int pkg_cache_load(const char *dir, enum att_hash h, enum pkg_type type,
		   const uint8_t *sha256, struct pkg_list *l);
int pkg_cache_store(const char *dir, enum att_hash h, enum pkg_type type,
		    const uint8_t *sha256, const struct pkg_list *l);

#endif
