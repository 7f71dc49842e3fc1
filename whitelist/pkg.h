/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pkg.h - the files of a package or an initramfs, read without unpacking
 * them: their normalised paths, kinds and digests, and the paths IMA
 * reports for them on the host they are installed on.
 *
 * Every path is normalised before it is kept (pkg_path_norm): absolute
 * member names, ".." components and over-long names are errors, so no
 * member can name a file outside the package's tree. Nothing is ever
 * written to the file system.
 */
#ifndef ATTEST_WL_PKG_H
#define ATTEST_WL_PKG_H

#include <stddef.h>
#include <stdint.h>

#include "attest/digest.h"

#define PKG_MAX_PATH	  4096		/* bytes of a normalised path */
#define PKG_MAX_ENTRIES	  (1u << 20)	/* members of one archive */
#define PKG_MAX_MEMBER	  (8ull << 30)	/* an ar member (data.tar.xz) */
#define PKG_MAX_UNPACKED  (64ull << 30) /* bytes unpacked from an archive */
#define PKG_MAX_LINK_HOPS 40		/* symlinks followed for a path */

enum pkg_kind {
	PKG_REG = 0,  /* a regular file: digest valid */
	PKG_HARDLINK, /* another name of an earlier regular file */
	PKG_SYMLINK,  /* never measured itself: its target is */
	PKG_DIR,
	PKG_SPECIAL, /* fifo, socket, device: IMA measures regular files */
};

struct pkg_entry {
	char *path;   /* normalised: "/usr/bin/ls" */
	char *target; /* symlink: as stored; NULL otherwise */
	enum pkg_kind kind;
	int candidate; /* execute bit, ELF, "#!", kernel module */
	uint8_t digest[ATT_DIGEST_MAX];
};

/* The entries of one archive, in archive order, with a path index. */
struct pkg_list {
	struct pkg_entry *e;
	size_t n, cap;
	size_t *slot; /* open addressing: index + 1, 0 empty */
	size_t nslot;
	uint64_t bytes; /* regular file bytes hashed */
	int replace;	/* a later member replaces an earlier one (cpio) */
};

void pkg_list_init(struct pkg_list *l, int replace);
void pkg_list_release(struct pkg_list *l);
/*
 * Adds an entry (path already normalised). A second entry for a path is
 * ATT_E_EXISTS unless l->replace, when it takes the earlier one's place.
 */
int pkg_list_add(struct pkg_list *l, enum pkg_kind kind, const char *path,
		 const char *target, int candidate, const uint8_t *digest);
/* The entry for a normalised path, or NULL. */
struct pkg_entry *pkg_list_find(const struct pkg_list *l, const char *path);

/*
 * Normalises a member name ("./usr/bin/ls", "usr//bin/./ls") into "/usr/bin/ls"
 * in out (PKG_MAX_PATH + 1 bytes). ATT_E_FORMAT for an absolute name, a ".."
 * component or an embedded NUL (len counts the bytes to look at),
 * ATT_E_TOO_BIG past PKG_MAX_PATH. The archive's root ("./") is "/".
 */
int pkg_path_norm(const char *name, size_t len, char *out);

/* Whether a policy that measures only what runs takes the file. */
int pkg_is_candidate(const char *path, int exec, const uint8_t *head, size_t n);

/*
 * Symlinks through which paths are resolved, as the kernel's d_path gives
 * them: IMA records the path of the file it opened after every symlink on
 * the way was followed.
 */
struct pkg_links {
	char **from, **to; /* normalised link path, raw target */
	size_t n, cap;
};

void pkg_links_init(struct pkg_links *k);
void pkg_links_release(struct pkg_links *k);
int pkg_links_add(struct pkg_links *k, const char *from, const char *to);
/* Debian 12's merged /usr: /bin, /sbin, /lib, /lib32, /lib64, /libx32. */
int pkg_links_add_usrmerge(struct pkg_links *k);
/*
 * Resolves the directories of a normalised path through a and then b
 * (either may be NULL) into out (PKG_MAX_PATH + 1 bytes); the last
 * component is kept. ".." in targets is taken lexically and stops at "/".
 * ATT_E_FORMAT after PKG_MAX_LINK_HOPS links (a loop).
 */
int pkg_path_resolve(const struct pkg_links *a, const struct pkg_links *b,
		     const char *path, char *out);

/* dpkg diversions: a package's file at from is installed at to, unless
 * the package is by (the diverting package; NULL: a local diversion). */
struct pkg_divert {
	char **from, **to, **by;
	size_t n, cap;
};

void pkg_divert_init(struct pkg_divert *d);
void pkg_divert_release(struct pkg_divert *d);
int pkg_divert_add(struct pkg_divert *d, const char *from, const char *to,
		   const char *by);
/* Where package pkg's file path goes, or NULL when not diverted. */
const char *pkg_divert_find(const struct pkg_divert *d, const char *pkg,
			    const char *path);

#endif
