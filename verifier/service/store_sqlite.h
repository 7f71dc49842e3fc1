/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store_sqlite.h - what the SQLite backend's two files share.
 */
#ifndef ATTEST_VERIFIER_STORE_SQLITE_H
#define ATTEST_VERIFIER_STORE_SQLITE_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store_impl.h"

/* Prepared statements kept for reuse, keyed by their SQL text. */
#define SQ_STMT_CACHE 32

struct sq_store {
	struct att_store base;
	sqlite3 *db;
	pthread_mutex_t lock;
	struct {
		const char *sql;
		sqlite3_stmt *st;
		int busy;
	} cache[SQ_STMT_CACHE];
	/* Group commit (store_sqlite_sync.c). */
	sqlite3_int64 changes0;	    /* total changes when locked */
	atomic_uint_least64_t wseq; /* commits to sync, counted */
	pthread_mutex_t sync_lock;  /* the fields below */
	pthread_cond_t sync_cv;	    /* a sync ended */
	int syncing;		    /* a thread is syncing (the leader) */
	uint64_t synced;	    /* commits known synced */
	uint64_t nsyncs;	    /* fdatasync calls made */
	int wal_fd;
	char wal_path[PATH_MAX]; /* "": nothing to sync (in memory) */
	char db_path[PATH_MAX];
};

struct sq_store *sq(struct att_store *s);
int sq_fail(struct sq_store *q, const char *what);
/*
 * A prepared statement for sql, from the cache when it is there; give it
 * back with sq_finish (reset and kept, or finalized), never
 * sqlite3_finalize.
 */
int sq_prepare(struct sq_store *q, const char *sql, sqlite3_stmt **st);
void sq_finish(struct sq_store *q, sqlite3_stmt *st);
int sq_exec(struct sq_store *q, const char *sql);
int sq_step_done(struct sq_store *q, sqlite3_stmt *st);
int sq_text(sqlite3_stmt *st, int i, const char *s);
int sq_blob(sqlite3_stmt *st, int i, const void *p, size_t n);
int sq_dup_blob(sqlite3_stmt *st, int i, uint8_t **out, size_t *len);
int sq_dup_text(sqlite3_stmt *st, int i, char **out);
void sq_copy_text(sqlite3_stmt *st, int i, char *dst, size_t cap);

/*
 * store_sqlite_sync.c: every store call holds the lock with sq_lock and
 * drops it with sq_unlock, which returns once whatever the call changed
 * is synced (rc passed through, or ATT_E_DB when the sync failed), or
 * sq_unlock_unsynced for a write that may be lost in a power loss.
 */
void sq_sync_init(struct sq_store *q);
/* After the database is open in WAL mode: synchronous=NORMAL from now. */
int sq_sync_open(struct sq_store *q);
void sq_sync_release(struct sq_store *q);
void sq_lock(struct sq_store *q);
int sq_unlock(struct sq_store *q, int rc);
void sq_unlock_unsynced(struct sq_store *q);
/* fdatasync calls so far (tests). */
uint64_t sq_syncs(struct sq_store *q);

/* store_sqlite_agents.c: agents, history, nonces, tokens. */
int sq_agent_get(struct att_store *s, const char *id,
		 struct att_agent_rec *out);
int sq_agent_insert(struct att_store *s, struct att_agent_rec *a);
int sq_agent_update(struct att_store *s, struct att_agent_rec *a);
int sq_agent_delete(struct att_store *s, const char *id);
int sq_agent_by_ek(struct att_store *s, const uint8_t *ek_pub, size_t len,
		   const char *except, char *id, size_t idlen);
int sq_agent_list(struct att_store *s, int brief, att_store_agent_fn fn,
		  void *arg);
int sq_history_add(struct att_store *s, const char *id, int64_t at,
		   const char *state, const char *result_json);
int sq_agent_update_hist(struct att_store *s, struct att_agent_rec *a,
			 int64_t at, int history,
			 const struct att_store_nonce *next, int *hist_rc,
			 int *next_rc);
int sq_history_list(struct att_store *s, const char *id, int limit,
		    att_store_hist_fn fn, void *arg);
int sq_nonce_put(struct att_store *s, const char *nonce_hex,
		 const char *agent_id, int64_t expires,
		 const char *request_json);
int sq_nonce_take(struct att_store *s, const char *nonce_hex,
		  const char *agent_id, int64_t now, char **req);
int sq_nonce_gc(struct att_store *s, int64_t now);
int sq_token_put(struct att_store *s, const char *hash_hex, int64_t expires);
int sq_token_take(struct att_store *s, const char *hash_hex, int64_t now);

#endif
