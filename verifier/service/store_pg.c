// SPDX-License-Identifier: Apache-2.0
/*
 * store_pg.c - the PostgreSQL storage backend (libpq): a small pool of
 * connections (store_pg.h), each serialised by a mutex and re-established
 * when it breaks, every statement prepared once per connection ($n
 * parameters, bytea sent as binary parameters), migrations under an advisory
 * lock so that replicas starting together migrate once. Several verifier
 * processes share one database: nonces are taken with DELETE ... RETURNING,
 * agents are updated only at the revision that was read.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "attest/err.h"
#include "attest/log.h"
#include "store_pg.h"

#define PG_MIGRATE_LOCK 7355608 /* pg_advisory_xact_lock key */

static const char *const pg_migrations[] = {
	"CREATE TABLE whitelists (name TEXT NOT NULL, version BIGINT NOT "
	"NULL, created BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY "
	"(name, version));"
	"CREATE TABLE agents (id TEXT PRIMARY KEY, rev BIGINT NOT NULL, "
	"state TEXT NOT NULL, ek_pub BYTEA, ak_pub BYTEA, secret BYTEA, "
	"wl_name TEXT NOT NULL DEFAULT '', wl_version BIGINT NOT NULL "
	"DEFAULT 0, reset_count BIGINT NOT NULL, restart_count BIGINT NOT "
	"NULL, boot_count BIGINT NOT NULL, enrolled_at BIGINT NOT NULL, "
	"last_attest BIGINT NOT NULL, replay BYTEA, last_result TEXT, "
	"cert_fpr TEXT NOT NULL DEFAULT '');"
	"CREATE TABLE history (seq BIGSERIAL PRIMARY KEY, agent TEXT NOT "
	"NULL, at BIGINT NOT NULL, state TEXT NOT NULL, result TEXT);"
	"CREATE INDEX history_agent ON history (agent, seq);"
	"CREATE TABLE nonces (nonce TEXT PRIMARY KEY, agent TEXT NOT NULL, "
	"expires BIGINT NOT NULL, request TEXT);"
	"CREATE TABLE tokens (hash TEXT PRIMARY KEY, expires BIGINT NOT "
	"NULL);",
	"ALTER TABLE agents ADD COLUMN tpm_clock BIGINT NOT NULL DEFAULT 0;",
	/* 3: one identity per EK is checked at every enrollment */
	"CREATE INDEX agents_ek ON agents (ek_pub);",
	/*
	 * 4: ... and enforced by the database, so that two enrollments of
	 * one EK under two ids at once (or on two replicas) cannot both
	 * be stored. Refused while two agents share an EK: delete one.
	 */
	("DROP INDEX agents_ek;"
	 "CREATE UNIQUE INDEX agents_ek ON agents (ek_pub);"),
	/*
	 * 5: history keeps the newest 100 rows per agent
	 * (ATT_STORE_HISTORY_KEEP when this migration was written; each
	 * insert prunes from now on).
	 */
	("DELETE FROM history WHERE seq IN (SELECT seq FROM (SELECT seq, "
	 "row_number() OVER (PARTITION BY agent ORDER BY seq DESC) AS n FROM "
	 "history) AS h WHERE n > 100);"),
	/* 6: clone detection: when the clock was accepted, a sticky reason */
	("ALTER TABLE agents ADD COLUMN clock_at BIGINT NOT NULL DEFAULT 0;"
	 "ALTER TABLE agents ADD COLUMN clone TEXT NOT NULL DEFAULT '';"),
};

#define PG_NMIGRATIONS ((int)(sizeof(pg_migrations) / sizeof(pg_migrations[0])))

_Static_assert(PG_NMIGRATIONS == ATT_STORE_SCHEMA_VERSION,
	       "one migration per schema version");

#define PG_AGENT_COLS                                                        \
	"id, rev, state, ek_pub, ak_pub, secret, wl_name, wl_version, "      \
	"reset_count, restart_count, boot_count, enrolled_at, last_attest, " \
	"replay, last_result, cert_fpr, tpm_clock, clock_at, clone"
/* The same columns, the blobs and last_result NULL (read the same way). */
#define PG_AGENT_COLS_BRIEF                                                  \
	"id, rev, state, NULL, NULL, NULL, wl_name, wl_version, "            \
	"reset_count, restart_count, boot_count, enrolled_at, last_attest, " \
	"NULL, NULL, cert_fpr, tpm_clock, clock_at, clone"

static const char *const pg_sql[PS_COUNT] = {
	[PS_VERSION] = "SELECT version FROM schema_version",
	[PS_WL_PUT] = "INSERT INTO whitelists (name, version, created, body) "
		      "SELECT $1::text, COALESCE(MAX(version), 0) + 1, "
		      "extract(epoch from now())::bigint, $2::text FROM "
		      "whitelists WHERE name = $1::text HAVING $3::bigint < 0 "
		      "OR COALESCE(MAX(version), 0) = $3::bigint RETURNING "
		      "version",
	[PS_WL_GET] = "SELECT name, version, created, body FROM whitelists "
		      "WHERE name = $1 AND ($2::bigint = 0 OR version = "
		      "$2::bigint) ORDER BY version DESC LIMIT 1",
	[PS_WL_LATEST] = "SELECT MAX(version) FROM whitelists WHERE name = $1",
	[PS_WL_LIST] = "SELECT name, MAX(version), MAX(created) FROM "
		       "whitelists GROUP BY name ORDER BY name",
	[PS_WL_IN_USE] = "SELECT COUNT(*) FROM agents WHERE wl_name = $1",
	[PS_WL_DELETE] = "DELETE FROM whitelists WHERE name = $1",
	[PS_AGENT_GET] = "SELECT " PG_AGENT_COLS " FROM agents WHERE id = $1",
	[PS_AGENT_INSERT] = "INSERT INTO agents (" PG_AGENT_COLS
			    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
			    "$10, $11, $12, $13, $14, $15, $16, $17, $18, "
			    "$19) ON "
			    "CONFLICT (id) DO NOTHING",
	[PS_AGENT_UPDATE] = "UPDATE agents SET rev = $2::bigint + 1, state = "
			    "$3, ek_pub = $4, ak_pub = $5, secret = $6, "
			    "wl_name = $7, wl_version = $8, reset_count = $9, "
			    "restart_count = $10, boot_count = $11, "
			    "enrolled_at = $12, last_attest = $13, replay = "
			    "$14, last_result = $15, cert_fpr = $16, "
			    "tpm_clock = $17, clock_at = $18, clone = $19 "
			    "WHERE id = $1 AND rev = "
			    "$2::bigint",
	[PS_AGENT_REV] = "SELECT rev FROM agents WHERE id = $1",
	[PS_AGENT_DELETE] = "DELETE FROM agents WHERE id = $1",
	[PS_AGENT_BY_EK] = "SELECT id FROM agents WHERE ek_pub = $1 AND id <> "
			   "$2 ORDER BY id LIMIT 1",
	[PS_AGENT_LIST] = "SELECT " PG_AGENT_COLS " FROM agents ORDER BY id",
	[PS_AGENT_LIST_BRIEF] =
		"SELECT " PG_AGENT_COLS_BRIEF " FROM agents ORDER BY id",
	[PS_HIST_DELETE] = "DELETE FROM history WHERE agent = $1",
	[PS_NONCE_DELETE_AGENT] = "DELETE FROM nonces WHERE agent = $1",
	/*
	 * The row and the prune to the agent's newest "keep" rows
	 * (att_store_history_keep) in one statement. The DELETE does not see
	 * the row its WITH inserts (one snapshot), so $5 is keep - 2: the
	 * older rows kept besides the new one, minus one.
	 */
	[PS_HIST_ADD] = "WITH ins AS (INSERT INTO history (agent, at, state, "
			"result) VALUES ($1, $2, $3, $4)) DELETE FROM history "
			"WHERE agent = $1 AND seq < (SELECT seq FROM history "
			"WHERE agent = $1 ORDER BY seq DESC LIMIT 1 OFFSET "
			"$5::bigint)",
	[PS_HIST_LIST] = "SELECT at, state, result FROM history WHERE agent "
			 "= $1 ORDER BY seq DESC LIMIT $2",
	[PS_NONCE_PUT] = "INSERT INTO nonces (nonce, agent, expires, "
			 "request) VALUES ($1, $2, $3, $4)",
	/*
	 * Taking a nonce is committed without waiting for the WAL flush
	 * (synchronous_commit off for that transaction only): the verdict's
	 * synchronous commit after it flushes the WAL up to itself, take
	 * included; if the server crashes before, no verdict was given and
	 * the nonce is simply there again. Issuing one stays synchronous: a
	 * crash of the server right after a challenge must not forget it.
	 */
	[PS_NONCE_TAKE] = "WITH nosync AS (SELECT set_config("
			  "'synchronous_commit', 'off', true)) DELETE FROM "
			  "nonces WHERE nonce = $1 AND agent = $2 AND EXISTS "
			  "(SELECT 1 FROM nosync) RETURNING agent, expires, "
			  "request",
	[PS_NONCE_OWNED] = "SELECT 1 FROM nonces WHERE nonce = $1",
	[PS_NONCE_GC] = "DELETE FROM nonces WHERE expires < $1",
	[PS_TOKEN_PUT] = "INSERT INTO tokens (hash, expires) VALUES ($1, $2)",
	[PS_TOKEN_TAKE] = "DELETE FROM tokens WHERE hash = $1 RETURNING "
			  "expires",
};

struct pg_store *pg(struct att_store *s)
{
	static _Thread_local unsigned int slot = UINT_MAX;
	struct pg_pool *pl = (struct pg_pool *)s;

	if (slot == UINT_MAX)
		slot = atomic_fetch_add(&pl->next, 1);
	return &pl->conn[slot % PG_POOL_SIZE];
}

int pg_exec(struct pg_store *q, const char *sql)
{
	PGresult *r = PQexec(q->conn, sql);
	int rc = 0;

	if (PQresultStatus(r) != PGRES_COMMAND_OK &&
	    PQresultStatus(r) != PGRES_TUPLES_OK) {
		att_err("store: postgresql: %s", PQerrorMessage(q->conn));
		rc = ATT_E_DB;
	}
	PQclear(r);
	return rc;
}

static int pg_get_version(struct pg_store *q, int *v)
{
	PGresult *r = PQexec(q->conn, "SELECT version FROM schema_version");
	int rc = 0;

	*v = 0;
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		rc = ATT_E_DB;
	else if (PQntuples(r) == 1)
		*v = (int)strtol(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return rc;
}

static int pg_migrate(struct pg_store *q)
{
	char sql[96];
	int v, rc, i;

	rc = pg_exec(q, "BEGIN");
	if (rc)
		return rc;
	snprintf(sql, sizeof(sql), "SELECT pg_advisory_xact_lock(%d)",
		 PG_MIGRATE_LOCK);
	rc = pg_exec(q, sql);
	if (!rc)
		rc = pg_exec(q, "CREATE TABLE IF NOT EXISTS schema_version "
				"(version INTEGER NOT NULL)");
	if (!rc)
		rc = pg_get_version(q, &v);
	if (rc)
		goto fail;
	if (v > PG_NMIGRATIONS) {
		att_err("store: database schema %d is newer than this "
			"verifier's (%d)",
			v, PG_NMIGRATIONS);
		rc = ATT_E_UNSUPPORTED;
		goto fail;
	}
	for (i = v; i < PG_NMIGRATIONS; i++) {
		rc = pg_exec(q, pg_migrations[i]);
		if (rc)
			goto fail;
		att_info("store: schema migrated to version %d", i + 1);
	}
	snprintf(sql, sizeof(sql),
		 "DELETE FROM schema_version; INSERT INTO schema_version "
		 "VALUES (%d)",
		 PG_NMIGRATIONS);
	rc = pg_exec(q, sql);
	if (rc)
		goto fail;
	return pg_exec(q, "COMMIT");
fail:
	pg_exec(q, "ROLLBACK");
	return rc;
}

static int pg_prepare_all(struct pg_store *q)
{
	char name[16];
	PGresult *r;
	int i;

	for (i = 0; i < PS_COUNT; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		r = PQprepare(q->conn, name, pg_sql[i], 0, NULL);
		if (PQresultStatus(r) != PGRES_COMMAND_OK) {
			att_err("store: postgresql: prepare %d: %s", i,
				PQerrorMessage(q->conn));
			PQclear(r);
			return ATT_E_DB;
		}
		PQclear(r);
	}
	return 0;
}

static int pg_connect(struct pg_store *q)
{
	if (q->conn)
		PQfinish(q->conn);
	q->conn = PQconnectdb(q->pool->url);
	if (PQstatus(q->conn) != CONNECTION_OK) {
		att_err("store: postgresql: cannot connect: %s",
			PQerrorMessage(q->conn));
		return ATT_E_DB;
	}
	return pg_exec(q, "SET client_min_messages = warning");
}

/* Called with the lock held: a broken connection is re-established. */
int pg_ready(struct pg_store *q)
{
	if (q->conn && PQstatus(q->conn) == CONNECTION_OK)
		return 0;
	if (q->conn) /* else: this pool connection's first use */
		att_warn("store: postgresql: connection lost, reconnecting");
	if (pg_connect(q))
		return ATT_E_DB;
	return pg_prepare_all(q);
}

void pp_text(struct pg_params *p, const char *s)
{
	p->v[p->n] = s;
	p->len[p->n] = 0;
	p->fmt[p->n] = 0;
	p->n++;
}

void pp_int(struct pg_params *p, int64_t x)
{
	snprintf(p->num[p->n], sizeof(p->num[0]), "%lld", (long long)x);
	pp_text(p, p->num[p->n]);
}

void pp_blob(struct pg_params *p, const uint8_t *b, size_t n)
{
	p->v[p->n] = (const char *)b;
	p->len[p->n] = (int)n;
	p->fmt[p->n] = 1;
	p->n++;
}

PGresult *pg_run(struct pg_store *q, enum pg_stmt s, const struct pg_params *p)
{
	char name[16];
	PGresult *r;

	snprintf(name, sizeof(name), "s%d", (int)s);
	r = PQexecPrepared(q->conn, name, p ? p->n : 0, p ? p->v : NULL,
			   p ? p->len : NULL, p ? p->fmt : NULL, 0);
	if (PQresultStatus(r) == PGRES_FATAL_ERROR &&
	    PQstatus(q->conn) != CONNECTION_OK && !pg_ready(q)) {
		PQclear(r);
		r = PQexecPrepared(q->conn, name, p ? p->n : 0, p ? p->v : NULL,
				   p ? p->len : NULL, p ? p->fmt : NULL, 0);
	}
	return r;
}

/* 0 when the result is OK; ATT_E_EXISTS on a unique violation. */
int pg_check(struct pg_store *q, PGresult *r, const char *what)
{
	ExecStatusType st = PQresultStatus(r);
	const char *code;

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return 0;
	code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	if (code && !strcmp(code, "23505"))
		return ATT_E_EXISTS;
	att_err("store: postgresql: %s: %s", what, PQerrorMessage(q->conn));
	return ATT_E_DB;
}

int64_t col_int(PGresult *r, int row, int col)
{
	if (PQgetisnull(r, row, col))
		return 0;
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

int col_blob(PGresult *r, int row, int col, uint8_t **out, size_t *len)
{
	unsigned char *u;
	size_t n;

	*out = NULL;
	*len = 0;
	if (PQgetisnull(r, row, col))
		return 0;
	u = PQunescapeBytea((const unsigned char *)PQgetvalue(r, row, col), &n);
	if (!u)
		return ATT_E_NOMEM;
	if (n) {
		*out = malloc(n);
		if (!*out) {
			PQfreemem(u);
			return ATT_E_NOMEM;
		}
		memcpy(*out, u, n);
		*len = n;
	}
	PQfreemem(u);
	return 0;
}

int col_dup(PGresult *r, int row, int col, char **out)
{
	*out = NULL;
	if (PQgetisnull(r, row, col))
		return 0;
	*out = strdup(PQgetvalue(r, row, col));
	return *out ? 0 : ATT_E_NOMEM;
}

void col_copy(PGresult *r, int row, int col, char *dst, size_t cap)
{
	snprintf(dst, cap, "%s",
		 PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

static void pgs_free(struct att_store *s)
{
	struct pg_pool *pl = (struct pg_pool *)s;
	unsigned int i;

	for (i = 0; i < PG_POOL_SIZE; i++) {
		if (pl->conn[i].conn)
			PQfinish(pl->conn[i].conn);
		pthread_mutex_destroy(&pl->conn[i].lock);
	}
	free(pl->url);
	free(pl);
}

static int pgs_schema_version(struct att_store *s, int *v)
{
	struct pg_store *q = pg(s);
	int rc;

	PG_LOCKED(q, rc = pg_get_version(q, v););
	return rc;
}

static int pgs_ping(struct att_store *s)
{
	int v;

	return pgs_schema_version(s, &v);
}

static int pgs_wl_put(struct att_store *s, const char *name, const char *body,
		      size_t len, int64_t expect, int64_t *version)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	(void)len;
	pp_text(&p, name);
	pp_text(&p, body);
	pp_int(&p, expect);
	PG_LOCKED(q, {
		r = pg_run(q, PS_WL_PUT, &p);
		rc = pg_check(q, r, "whitelist insert");
		if (rc == ATT_E_EXISTS)
			rc = ATT_E_STATE; /* a concurrent put won */
		else if (!rc && PQntuples(r) == 1)
			*version = col_int(r, 0, 0);
		else if (!rc)
			rc = expect == 0 ? ATT_E_EXISTS : ATT_E_STATE;
		PQclear(r);
	});
	return rc;
}

static int pgs_wl_get(struct att_store *s, const char *name, int64_t version,
		      struct att_store_wl *out)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, name);
	pp_int(&p, version);
	PG_LOCKED(q, {
		r = pg_run(q, PS_WL_GET, &p);
		rc = pg_check(q, r, "whitelist get");
		if (!rc && PQntuples(r) == 0)
			rc = ATT_E_NOT_FOUND;
		if (!rc) {
			col_copy(r, 0, 0, out->name, sizeof(out->name));
			out->version = col_int(r, 0, 1);
			out->created = col_int(r, 0, 2);
			rc = col_dup(r, 0, 3, &out->body);
			out->body_len = (size_t)PQgetlength(r, 0, 3);
		}
		PQclear(r);
	});
	return rc;
}

static int pgs_wl_latest(struct att_store *s, const char *name,
			 int64_t *version)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, name);
	PG_LOCKED(q, {
		r = pg_run(q, PS_WL_LATEST, &p);
		rc = pg_check(q, r, "whitelist latest");
		if (!rc && (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)))
			rc = ATT_E_NOT_FOUND;
		if (!rc)
			*version = col_int(r, 0, 0);
		PQclear(r);
	});
	return rc;
}

static int pgs_wl_list(struct att_store *s, att_store_wl_fn fn, void *arg)
{
	struct pg_store *q = pg(s);
	struct att_store_wl w;
	PGresult *r;
	int rc, i;

	PG_LOCKED(q, {
		r = pg_run(q, PS_WL_LIST, NULL);
		rc = pg_check(q, r, "whitelist list");
		for (i = 0; !rc && i < PQntuples(r); i++) {
			memset(&w, 0, sizeof(w));
			col_copy(r, i, 0, w.name, sizeof(w.name));
			w.version = col_int(r, i, 1);
			w.created = col_int(r, i, 2);
			rc = fn(&w, arg);
		}
		PQclear(r);
	});
	return rc;
}

static int pgs_wl_delete(struct att_store *s, const char *name)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, name);
	PG_LOCKED(q, {
		rc = pg_exec(q, "BEGIN");
		if (!rc) {
			r = pg_run(q, PS_WL_IN_USE, &p);
			rc = pg_check(q, r, "whitelist delete");
			if (!rc && col_int(r, 0, 0) > 0)
				rc = ATT_E_STATE;
			PQclear(r);
		}
		if (!rc) {
			r = pg_run(q, PS_WL_DELETE, &p);
			rc = pg_check(q, r, "whitelist delete");
			if (!rc && !strcmp(PQcmdTuples(r), "0"))
				rc = ATT_E_NOT_FOUND;
			PQclear(r);
		}
		if (pg_exec(q, rc ? "ROLLBACK" : "COMMIT") && !rc)
			rc = ATT_E_DB;
	});
	return rc;
}

static const struct att_store_ops pg_ops = {
	.name = "postgresql",
	.free = pgs_free,
	.schema_version = pgs_schema_version,
	.ping = pgs_ping,
	.wl_put = pgs_wl_put,
	.wl_get = pgs_wl_get,
	.wl_latest = pgs_wl_latest,
	.wl_list = pgs_wl_list,
	.wl_delete = pgs_wl_delete,
	.agent_get = pgs_agent_get,
	.agent_insert = pgs_agent_insert,
	.agent_update = pgs_agent_update,
	.agent_delete = pgs_agent_delete,
	.agent_by_ek = pgs_agent_by_ek,
	.agent_list = pgs_agent_list,
	.history_add = pgs_history_add,
	.agent_update_hist = pgs_agent_update_hist,
	.history_list = pgs_history_list,
	.nonce_put = pgs_nonce_put,
	.nonce_take = pgs_nonce_take,
	.nonce_gc = pgs_nonce_gc,
	.token_put = pgs_token_put,
	.token_take = pgs_token_take,
};

int att_store_pg_open(const char *url, struct att_store **out)
{
	struct pg_pool *pl;
	struct pg_store *q;
	unsigned int i;
	int rc;

	*out = NULL;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return ATT_E_NOMEM;
	pl->base.ops = &pg_ops;
	atomic_init(&pl->next, 0);
	for (i = 0; i < PG_POOL_SIZE; i++) {
		pl->conn[i].pool = pl;
		pthread_mutex_init(&pl->conn[i].lock, NULL);
	}
	pl->url = strdup(url);
	if (!pl->url) {
		pgs_free(&pl->base);
		return ATT_E_NOMEM;
	}
	/* The first connection migrates; the others connect when used. */
	q = &pl->conn[0];
	rc = pg_connect(q);
	if (!rc)
		rc = pg_migrate(q);
	if (!rc)
		rc = pg_prepare_all(q);
	if (rc) {
		pgs_free(&pl->base);
		return rc;
	}
	*out = &pl->base;
	return 0;
}
