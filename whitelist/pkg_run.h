/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pkg_run.h - reading many packages (or initramfs images) in parallel,
 * through a cache, and listing their files in a whitelist.
 */
#ifndef ATTEST_WL_PKG_RUN_H
#define ATTEST_WL_PKG_RUN_H

#include <regex.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "attest/digest.h"
#include "pkg.h"

struct wldoc;

enum pkg_type { PKG_TYPE_DEB = 0, PKG_TYPE_INITRD };

struct pkg_job {
	char *file;  /* where it is */
	char *label; /* for messages: "bash 5.2.15-2+b7 amd64" or file */
	char *pkg;   /* package name when known (diversions), or NULL */
	enum pkg_type type;
	int want_sha256; /* the index's SHA-256 must match */
	uint8_t sha256[32];
	uint64_t size; /* the index's size, when want_sha256 */
	/* results */
	struct pkg_list list;
	int rc;
	int cached; /* taken from the cache */
	char err[320];
	atomic_int finished; /* set by the worker when rc, list are final */
};

struct pkg_jobs {
	struct pkg_job *j;
	size_t n, cap;
};

void pkg_jobs_init(struct pkg_jobs *js);
void pkg_jobs_release(struct pkg_jobs *js);
/* Adds a job; sha256 NULL when no index vouches for the file. */
int pkg_jobs_add(struct pkg_jobs *js, const char *file, const char *label,
		 enum pkg_type type, const uint8_t *sha256, uint64_t size);

struct pkg_run_opts {
	enum att_hash hash;
	unsigned int threads;
	int progress;
	const char *cache; /* directory or NULL */
	/*
	 * Called in the calling thread for each job in order, as soon as it
	 * and those before it are done; the job's list is released after
	 * it returns, so memory holds only the jobs in flight. A non-zero
	 * return stops the run (the jobs not started are skipped).
	 */
	int (*sink)(struct pkg_job *j, void *ctx);
	void *ctx;
};

struct pkg_run_stats {
	size_t jobs, cached, hashed_archives;
	uint64_t archive_bytes, file_bytes;
};

/*
 * Reads every job (in threads) and hands each to o->sink; a job's failure
 * is in its rc and err. Returns the first non-zero sink return, or an
 * error of the run itself (no memory, no thread), or ATT_OK.
 */
int pkg_run(struct pkg_jobs *js, const struct pkg_run_opts *o,
	    struct pkg_run_stats *st);

struct pkg_emit_opts {
	int all;			 /* every regular file */
	const struct pkg_links *host;	 /* the host's symlinks (usr-merge) */
	const struct pkg_divert *divert; /* dpkg diversions */
	regex_t *excl, *incl;
	enum att_hash hash;
};

struct pkg_emit_stats {
	size_t files, listed, not_candidate, hardlinks, symlinks, dirs, special,
		excluded, not_utf8, moved;
};

/* Lists a job's regular files in doc under the paths IMA reports. */
int pkg_emit(const struct pkg_job *j, const struct pkg_emit_opts *o,
	     struct wldoc *doc, struct pkg_emit_stats *st);

#endif
