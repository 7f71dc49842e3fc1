/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store_sqlite_sync.c - group commit for the SQLite backend.
 *
 * The connection runs with synchronous=NORMAL: a commit is written to the
 * WAL (so another process and a crash of this one see it) but not synced.
 * A write that must survive a power loss before the caller answers is
 * synced after the store lock is dropped, with one fdatasync of the WAL
 * file for every commit made until then: while one thread syncs, the
 * others keep committing, and their syncs are then usually already done.
 * The WAL is append-only between checkpoints, and SQLite syncs it before
 * every checkpoint, so a sync covers every commit before it, the
 * unsynced ones included. One thread syncs at a time (the leader); the
 * threads waiting meanwhile are woken together when it is done.
 *
 * Which writes need no sync of their own: a challenge's nonce (lost in a
 * power loss, it can only make its evidence refused) and the taking of a
 * nonce (it is made durable by the sync of the verdict stored after it;
 * without a verdict, taking it again after a power loss gives nothing
 * twice). Everything else is synced before the store call returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest/err.h"
#include "attest/log.h"
#include "store_sqlite.h"

void sq_sync_init(struct sq_store *q)
{
	q->wal_fd = -1;
	q->wal_path[0] = '\0';
	atomic_init(&q->wseq, 0);
	q->synced = 0;
	q->syncing = 0;
	pthread_mutex_init(&q->sync_lock, NULL);
	pthread_cond_init(&q->sync_cv, NULL);
}

int sq_sync_open(struct sq_store *q)
{
	const char *db = sqlite3_db_filename(q->db, "main");

	/* An in-memory database has no file: nothing to sync. */
	if (!db || !*db) {
		q->wal_path[0] = '\0';
		return 0;
	}
	if (snprintf(q->wal_path, sizeof(q->wal_path), "%s-wal", db) >=
		    (int)sizeof(q->wal_path) ||
	    snprintf(q->db_path, sizeof(q->db_path), "%s", db) >=
		    (int)sizeof(q->db_path)) {
		q->wal_path[0] = '\0';
		att_err("store: database path too long: %s", db);
		return ATT_E_INVAL;
	}
	return sq_exec(q, "PRAGMA synchronous=NORMAL");
}

void sq_sync_release(struct sq_store *q)
{
	if (q->wal_fd >= 0)
		close(q->wal_fd);
	q->wal_fd = -1;
	pthread_cond_destroy(&q->sync_cv);
	pthread_mutex_destroy(&q->sync_lock);
}

/*
 * The WAL file's descriptor, opened again when the file at its path is not
 * the one open (SQLite removes the WAL when the last connection closes;
 * ours stays open, but another process's may be the last one).
 */
static int sq_wal_fd(struct sq_store *q)
{
	struct stat a, b;

	if (stat(q->wal_path, &a)) {
		if (errno == ENOENT)
			return -1; /* no WAL: everything is in the file */
		att_err("store: %s: %s", q->wal_path, strerror(errno));
		return -2;
	}
	if (q->wal_fd >= 0 && !fstat(q->wal_fd, &b) && a.st_ino == b.st_ino &&
	    a.st_dev == b.st_dev)
		return q->wal_fd;
	if (q->wal_fd >= 0)
		close(q->wal_fd);
	q->wal_fd = open(q->wal_path, O_RDONLY | O_CLOEXEC);
	if (q->wal_fd < 0) {
		att_err("store: %s: %s", q->wal_path, strerror(errno));
		return -2;
	}
	return q->wal_fd;
}

/* One fdatasync of the WAL (or of the file when there is no WAL). */
static int sq_fdatasync(struct sq_store *q)
{
	int fd, rc = 0;

	fd = sq_wal_fd(q);
	if (fd == -1) {
		/* The WAL is gone: sync the database file itself. */
		fd = open(q->db_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fdatasync(fd)) {
			att_err("store: sync: %s", strerror(errno));
			rc = ATT_E_DB;
		}
		if (fd >= 0)
			close(fd);
	} else if (fd < 0 || fdatasync(fd)) {
		if (fd >= 0)
			att_err("store: sync %s: %s", q->wal_path,
				strerror(errno));
		rc = ATT_E_DB;
	}
	return rc;
}

/*
 * Returns once commit seq is synced. One thread at a time (the leader)
 * syncs, outside sync_lock, for every commit counted when it starts; the
 * others wait on sync_cv and are all woken when it is done: those it
 * covered return at once, and one of the rest leads the next sync (no
 * convoy through a mutex held across fdatasync).
 */
static int sq_sync_to(struct sq_store *q, uint64_t seq)
{
	uint64_t target;
	int rc = 0;

	if (!q->wal_path[0])
		return 0;
	pthread_mutex_lock(&q->sync_lock);
	while (q->synced < seq) {
		if (q->syncing) {
			pthread_cond_wait(&q->sync_cv, &q->sync_lock);
			continue;
		}
		q->syncing = 1;
		/* Every commit counted by now is in the file before the sync.
		 */
		target = atomic_load(&q->wseq);
		pthread_mutex_unlock(&q->sync_lock);
		rc = sq_fdatasync(q);
		pthread_mutex_lock(&q->sync_lock);
		q->syncing = 0;
		if (!rc) {
			if (target > q->synced)
				q->synced = target;
			q->nsyncs++;
		}
		pthread_cond_broadcast(&q->sync_cv);
		if (rc)
			break;
	}
	pthread_mutex_unlock(&q->sync_lock);
	return rc;
}

void sq_lock(struct sq_store *q)
{
	pthread_mutex_lock(&q->lock);
	q->changes0 = sqlite3_total_changes64(q->db);
}

int sq_unlock(struct sq_store *q, int rc)
{
	uint64_t seq = 0;
	int src;

	if (sqlite3_total_changes64(q->db) != q->changes0)
		seq = atomic_fetch_add(&q->wseq, 1) + 1;
	pthread_mutex_unlock(&q->lock);
	if (!seq)
		return rc;
	src = sq_sync_to(q, seq);
	return rc ? rc : src;
}

void sq_unlock_unsynced(struct sq_store *q)
{
	pthread_mutex_unlock(&q->lock);
}

uint64_t sq_syncs(struct sq_store *q)
{
	uint64_t n;

	pthread_mutex_lock(&q->sync_lock);
	n = q->nsyncs;
	pthread_mutex_unlock(&q->sync_lock);
	return n;
}
