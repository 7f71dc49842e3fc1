/* SPDX-License-Identifier: Apache-2.0 */
/*
 * walk.h - collecting and hashing the files of a root filesystem.
 */
#ifndef ATTEST_WL_WALK_H
#define ATTEST_WL_WALK_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "attest/digest.h"

enum walk_status {
	WALK_PENDING = 0,
	WALK_HASHED,	    /* digest valid */
	WALK_NOT_CANDIDATE, /* not something a policy measures */
	WALK_UNREADABLE,    /* open/read failed (errno in err) */
	WALK_CHANGED,	    /* changed while being walked or hashed */
	WALK_DUPLICATE,	    /* a hard link: result copied */
};

struct walk_file {
	char *path;    /* as it will appear in the whitelist */
	char *fs_path; /* where it is on this machine */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	int exec;      /* any execute bit */
	size_t dup_of; /* for WALK_DUPLICATE */
	enum walk_status status;
	int err;
	uint8_t digest[ATT_DIGEST_MAX];
};

struct walk_opts {
	const char *root;	 /* directory to walk */
	const char *prefix;	 /* mapped onto the root: "" means "/" */
	int all;		 /* every regular file, not just candidates */
	regex_t *excl;		 /* NULL: none */
	regex_t *incl;		 /* NULL: everything not excluded */
	const char *const *skip; /* paths (mapped) not to descend into */
	size_t nskip;
};

/* Problems found, reported as they happen and counted. */
struct walk_stats {
	size_t files, special, symlinks, unreadable, loops, changed, not_utf8,
		excluded, hardlinks, not_candidate;
	uint64_t bytes_total, bytes_done;
	size_t files_done;
};

struct walk {
	struct walk_file *f;
	size_t n, cap;
	struct walk_stats st;
};

void walk_init(struct walk *w);
void walk_release(struct walk *w);
/* Collects regular files; reports special files, loops, unreadable dirs. */
int walk_collect(struct walk *w, const struct walk_opts *o);
/*
 * Hashes the collected files with `threads` workers; a progress line goes
 * to stderr every 200 ms when `progress` is set.
 */
int walk_hash(struct walk *w, enum att_hash h, int all, unsigned int threads,
	      int progress);

#endif
