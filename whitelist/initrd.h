/* SPDX-License-Identifier: Apache-2.0 */
/*
 * initrd.h - the files of an initramfs image as the kernel unpacks it
 * (init/initramfs.c): cpio "newc" archives (070701, 070702), uncompressed
 * ones first (the early microcode archive) and then a compressed one
 * (gzip, xz, lzma, zstd, lz4, bzip2, decompressed by libarchive), zero
 * padding between them; a later member replaces an earlier one of the
 * same path, hard links (nlink > 1, same inode) share the content.
 */
#ifndef ATTEST_WL_INITRD_H
#define ATTEST_WL_INITRD_H

#include <stddef.h>

struct att_md;
struct pkg_list;
struct pkg_src;

/*
 * Reads the image from s into l (l->replace set). Errors as deb_read();
 * err says what and at which offset.
 */
int initrd_read(struct pkg_src *s, struct pkg_list *l, struct att_md *md,
		char *err, size_t errlen);

#endif
