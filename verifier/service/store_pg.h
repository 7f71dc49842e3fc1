/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store_pg.h - what the PostgreSQL backend's two files share.
 */
#ifndef ATTEST_VERIFIER_STORE_PG_H
#define ATTEST_VERIFIER_STORE_PG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "store_impl.h"

/*
 * A few connections, each serialised by its own mutex; a thread keeps the
 * one it was given at its first store call (round robin), so the service's
 * worker threads mostly have one each and their commits overlap (the
 * server then flushes several with one WAL write).
 */
#define PG_POOL_SIZE 4

struct pg_pool;

/* One connection (a "session") and its prepared statements. */
struct pg_store {
	struct pg_pool *pool;
	PGconn *conn;
	pthread_mutex_t lock;
};

struct pg_pool {
	struct att_store base;
	char *url;
	atomic_uint next; /* the next thread's connection */
	struct pg_store conn[PG_POOL_SIZE];
};

enum pg_stmt {
	PS_VERSION,
	PS_WL_PUT,
	PS_WL_GET,
	PS_WL_LATEST,
	PS_WL_LIST,
	PS_WL_IN_USE,
	PS_WL_DELETE,
	PS_AGENT_GET,
	PS_AGENT_INSERT,
	PS_AGENT_UPDATE,
	PS_AGENT_REV,
	PS_AGENT_DELETE,
	PS_AGENT_BY_EK,
	PS_AGENT_LIST,
	PS_AGENT_LIST_BRIEF,
	PS_HIST_DELETE,
	PS_NONCE_DELETE_AGENT,
	PS_HIST_ADD,
	PS_HIST_LIST,
	PS_NONCE_PUT,
	PS_NONCE_TAKE,
	PS_NONCE_OWNED,
	PS_NONCE_GC,
	PS_TOKEN_PUT,
	PS_TOKEN_TAKE,
	PS_COUNT
};

/* Parameters: text, or binary when len[i] >= 0 (bytea). */
#define PG_MAX_PARAMS 19

struct pg_params {
	const char *v[PG_MAX_PARAMS];
	int len[PG_MAX_PARAMS];
	int fmt[PG_MAX_PARAMS];
	char num[PG_MAX_PARAMS][24];
	int n;
};

#define PG_LOCKED(q, body)                        \
	do {                                      \
		pthread_mutex_lock(&(q)->lock);   \
		rc = pg_ready(q);                 \
		if (!rc) {                        \
			body                      \
		}                                 \
		pthread_mutex_unlock(&(q)->lock); \
	} while (0)

/* This thread's connection of the pool s (not locked: PG_LOCKED). */
struct pg_store *pg(struct att_store *s);
int pg_exec(struct pg_store *q, const char *sql);
int pg_ready(struct pg_store *q);
void pp_text(struct pg_params *p, const char *s);
void pp_int(struct pg_params *p, int64_t x);
void pp_blob(struct pg_params *p, const uint8_t *b, size_t n);
PGresult *pg_run(struct pg_store *q, enum pg_stmt s, const struct pg_params *p);
int pg_check(struct pg_store *q, PGresult *r, const char *what);
int64_t col_int(PGresult *r, int row, int col);
int col_blob(PGresult *r, int row, int col, uint8_t **out, size_t *len);
int col_dup(PGresult *r, int row, int col, char **out);
void col_copy(PGresult *r, int row, int col, char *dst, size_t cap);

/* store_pg_agents.c: agents, history, nonces, tokens. */
int pgs_agent_get(struct att_store *s, const char *id,
		  struct att_agent_rec *out);
int pgs_agent_insert(struct att_store *s, struct att_agent_rec *a);
int pgs_agent_update(struct att_store *s, struct att_agent_rec *a);
int pgs_agent_delete(struct att_store *s, const char *id);
int pgs_agent_by_ek(struct att_store *s, const uint8_t *ek_pub, size_t len,
		    const char *except, char *id, size_t idlen);
int pgs_agent_list(struct att_store *s, int brief, att_store_agent_fn fn,
		   void *arg);
int pgs_agent_update_hist(struct att_store *s, struct att_agent_rec *a,
			  int64_t at, int history,
			  const struct att_store_nonce *next, int *hist_rc,
			  int *next_rc);
int pgs_history_add(struct att_store *s, const char *id, int64_t at,
		    const char *state, const char *result_json);
int pgs_history_list(struct att_store *s, const char *id, int limit,
		     att_store_hist_fn fn, void *arg);
int pgs_nonce_put(struct att_store *s, const char *nonce_hex,
		  const char *agent_id, int64_t expires,
		  const char *request_json);
int pgs_nonce_take(struct att_store *s, const char *nonce_hex,
		   const char *agent_id, int64_t now, char **req);
int pgs_nonce_gc(struct att_store *s, int64_t now);
int pgs_token_put(struct att_store *s, const char *hash_hex, int64_t expires);
int pgs_token_take(struct att_store *s, const char *hash_hex, int64_t now);

#endif
