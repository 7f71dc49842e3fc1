// SPDX-License-Identifier: Apache-2.0
/*
 * store_sqlite.c - the SQLite storage backend: one connection in WAL mode,
 * serialised by a mutex, a busy timeout for other processes on the same
 * file, every statement prepared with bound parameters. Connection,
 * migrations and whitelists here; agents, history, nonces and tokens in
 * store_sqlite_agents.c.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "attest/err.h"
#include "attest/log.h"
#include "store_sqlite.h"

/* Migration N (1-based) brings the schema from version N-1 to N. */
static const char *const sq_migrations[] = {
	"CREATE TABLE whitelists (name TEXT NOT NULL, version INTEGER NOT "
	"NULL, created INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY "
	"(name, version));"
	"CREATE TABLE agents (id TEXT PRIMARY KEY, rev INTEGER NOT NULL, "
	"state TEXT NOT NULL, ek_pub BLOB, ak_pub BLOB, secret BLOB, "
	"wl_name TEXT NOT NULL DEFAULT '', wl_version INTEGER NOT NULL "
	"DEFAULT 0, reset_count INTEGER NOT NULL, restart_count INTEGER NOT "
	"NULL, boot_count INTEGER NOT NULL, enrolled_at INTEGER NOT NULL, "
	"last_attest INTEGER NOT NULL, replay BLOB, last_result TEXT, "
	"cert_fpr TEXT NOT NULL DEFAULT '');"
	"CREATE TABLE history (seq INTEGER PRIMARY KEY AUTOINCREMENT, agent "
	"TEXT NOT NULL, at INTEGER NOT NULL, state TEXT NOT NULL, result "
	"TEXT);"
	"CREATE INDEX history_agent ON history (agent, seq);"
	"CREATE TABLE nonces (nonce TEXT PRIMARY KEY, agent TEXT NOT NULL, "
	"expires INTEGER NOT NULL, request TEXT);"
	"CREATE TABLE tokens (hash TEXT PRIMARY KEY, expires INTEGER NOT "
	"NULL);",
	/* 2: the TPM clock of the last accepted quote */
	"ALTER TABLE agents ADD COLUMN tpm_clock INTEGER NOT NULL DEFAULT 0;",
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
	 * 5: nonces in one b-tree keyed by the nonce (a round deletes one
	 * and inserts one: one page each instead of two); history keeps
	 * the newest 100 rows per agent (ATT_STORE_HISTORY_KEEP when this
	 * migration was written; each insert prunes from now on).
	 */
	("CREATE TABLE nonces_new (nonce TEXT PRIMARY KEY, agent TEXT NOT "
	 "NULL, expires INTEGER NOT NULL, request TEXT) WITHOUT ROWID;"
	 "INSERT INTO nonces_new SELECT nonce, agent, expires, request FROM "
	 "nonces;"
	 "DROP TABLE nonces;"
	 "ALTER TABLE nonces_new RENAME TO nonces;"
	 "DELETE FROM history WHERE seq IN (SELECT seq FROM (SELECT seq, "
	 "row_number() OVER (PARTITION BY agent ORDER BY seq DESC) AS n FROM "
	 "history) WHERE n > 100);"),
	/* 6: clone detection: when the clock was accepted, a sticky reason */
	("ALTER TABLE agents ADD COLUMN clock_at INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE agents ADD COLUMN clone TEXT NOT NULL DEFAULT '';"),
};

#define SQ_NMIGRATIONS ((int)(sizeof(sq_migrations) / sizeof(sq_migrations[0])))

_Static_assert(SQ_NMIGRATIONS == ATT_STORE_SCHEMA_VERSION,
	       "one migration per schema version");

struct sq_store *sq(struct att_store *s)
{
	return (struct sq_store *)s;
}

int sq_fail(struct sq_store *q, const char *what)
{
	att_err("store: sqlite: %s: %s", what, sqlite3_errmsg(q->db));
	return ATT_E_DB;
}

/*
 * Preparing costs more than running most of these statements, and it
 * happens under the store's lock: statements are kept (the SQL pointer is
 * the key, its text is compared too, in case it is not a literal).
 */
int sq_prepare(struct sq_store *q, const char *sql, sqlite3_stmt **st)
{
	int i, slot = -1;

	for (i = 0; i < SQ_STMT_CACHE; i++) {
		if (!q->cache[i].st) {
			if (slot < 0)
				slot = i;
			continue;
		}
		if (q->cache[i].sql == sql && !q->cache[i].busy &&
		    !strcmp(sqlite3_sql(q->cache[i].st), sql)) {
			q->cache[i].busy = 1;
			*st = q->cache[i].st;
			return 0;
		}
	}
	if (sqlite3_prepare_v3(q->db, sql, -1,
			       slot >= 0 ? SQLITE_PREPARE_PERSISTENT : 0, st,
			       NULL) != SQLITE_OK) {
		*st = NULL;
		return sq_fail(q, "prepare");
	}
	if (slot >= 0) {
		q->cache[slot].sql = sql;
		q->cache[slot].st = *st;
		q->cache[slot].busy = 1;
	}
	return 0;
}

void sq_finish(struct sq_store *q, sqlite3_stmt *st)
{
	int i;

	for (i = 0; st && i < SQ_STMT_CACHE; i++) {
		if (q->cache[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			q->cache[i].busy = 0;
			return;
		}
	}
	/* Not cached (the cache was full when it was prepared). */
	sqlite3_finalize(st);
}

int sq_exec(struct sq_store *q, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		att_err("store: sqlite: %s", msg ? msg : "exec failed");
		sqlite3_free(msg);
		return ATT_E_DB;
	}
	return 0;
}

/* Runs a statement that returns no rows. */
int sq_step_done(struct sq_store *q, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc == SQLITE_CONSTRAINT)
		return ATT_E_EXISTS;
	return sq_fail(q, "step");
}

int sq_text(sqlite3_stmt *st, int i, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

int sq_blob(sqlite3_stmt *st, int i, const void *p, size_t n)
{
	if (!p)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_blob64(st, i, p, n, SQLITE_TRANSIENT);
}

int sq_dup_blob(sqlite3_stmt *st, int i, uint8_t **out, size_t *len)
{
	const void *p = sqlite3_column_blob(st, i);
	int n = sqlite3_column_bytes(st, i);

	*out = NULL;
	*len = 0;
	if (!p || n <= 0)
		return 0;
	*out = malloc((size_t)n);
	if (!*out)
		return ATT_E_NOMEM;
	memcpy(*out, p, (size_t)n);
	*len = (size_t)n;
	return 0;
}

int sq_dup_text(sqlite3_stmt *st, int i, char **out)
{
	const unsigned char *p = sqlite3_column_text(st, i);

	*out = NULL;
	if (!p)
		return 0;
	*out = strdup((const char *)p);
	return *out ? 0 : ATT_E_NOMEM;
}

void sq_copy_text(sqlite3_stmt *st, int i, char *dst, size_t cap)
{
	const unsigned char *p = sqlite3_column_text(st, i);
	size_t n = p ? strlen((const char *)p) : 0;

	if (n >= cap)
		n = cap - 1;
	if (n)
		memcpy(dst, p, n);
	dst[n] = '\0';
}

static int sq_get_version(struct sq_store *q, int *v)
{
	sqlite3_stmt *st;
	int rc;

	*v = 0;
	rc = sq_prepare(q, "SELECT version FROM schema_version", &st);
	if (rc)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int(st, 0);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = sq_fail(q, "schema_version");
	}
	sq_finish(q, st);
	return rc;
}

static int sq_migrate(struct sq_store *q)
{
	sqlite3_stmt *st;
	int v, rc, i;

	rc = sq_exec(q, "BEGIN IMMEDIATE");
	if (rc)
		return rc;
	rc = sq_exec(q, "CREATE TABLE IF NOT EXISTS schema_version "
			"(version INTEGER NOT NULL)");
	if (!rc)
		rc = sq_get_version(q, &v);
	if (rc)
		goto fail;
	if (v > SQ_NMIGRATIONS) {
		att_err("store: database schema %d is newer than this "
			"verifier's (%d)",
			v, SQ_NMIGRATIONS);
		rc = ATT_E_UNSUPPORTED;
		goto fail;
	}
	for (i = v; i < SQ_NMIGRATIONS; i++) {
		rc = sq_exec(q, sq_migrations[i]);
		if (rc)
			goto fail;
		att_info("store: schema migrated to version %d", i + 1);
	}
	rc = sq_exec(q, "DELETE FROM schema_version");
	if (rc)
		goto fail;
	rc = sq_prepare(q, "INSERT INTO schema_version (version) VALUES (?1)",
			&st);
	if (rc)
		goto fail;
	sqlite3_bind_int(st, 1, SQ_NMIGRATIONS);
	rc = sq_step_done(q, st);
	sq_finish(q, st);
	if (rc)
		goto fail;
	return sq_exec(q, "COMMIT");
fail:
	sq_exec(q, "ROLLBACK");
	return rc;
}

static void sq_free(struct att_store *s)
{
	struct sq_store *q = sq(s);
	int i;

	for (i = 0; i < SQ_STMT_CACHE; i++)
		sqlite3_finalize(q->cache[i].st);
	sqlite3_close(q->db);
	sq_sync_release(q);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

static int sq_schema_version(struct att_store *s, int *v)
{
	struct sq_store *q = sq(s);
	int rc;

	sq_lock(q);
	rc = sq_get_version(q, v);
	return sq_unlock(q, rc);
}

static int sq_ping(struct att_store *s)
{
	int v;

	return sq_schema_version(s, &v);
}

static int sq_wl_put(struct att_store *s, const char *name, const char *body,
		     size_t len, int64_t expect, int64_t *version)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	/* One statement: the check and the insert cannot be separated. */
	rc = sq_prepare(q,
			"INSERT INTO whitelists (name, version, created, body) "
			"SELECT ?1, COALESCE(MAX(version), 0) + 1, "
			"strftime('%s','now'), ?2 FROM whitelists WHERE "
			"name = ?1 HAVING ?3 < 0 OR COALESCE(MAX(version), 0) "
			"= ?3 RETURNING version",
			&st);
	if (rc)
		goto out;
	sq_text(st, 1, name);
	sqlite3_bind_text64(st, 2, body, len, SQLITE_TRANSIENT, SQLITE_UTF8);
	sqlite3_bind_int64(st, 3, expect);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*version = sqlite3_column_int64(st, 0);
		rc = sqlite3_step(st) == SQLITE_DONE
			     ? 0
			     : sq_fail(q, "whitelist insert");
	} else if (rc == SQLITE_DONE) {
		rc = expect == 0 ? ATT_E_EXISTS : ATT_E_STATE;
	} else if (rc == SQLITE_CONSTRAINT) {
		rc = ATT_E_STATE;
	} else {
		rc = sq_fail(q, "whitelist insert");
	}
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}

static int sq_wl_get(struct att_store *s, const char *name, int64_t version,
		     struct att_store_wl *out)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(q,
			"SELECT name, version, created, body FROM whitelists "
			"WHERE name = ?1 AND (?2 = 0 OR version = ?2) ORDER "
			"BY version DESC LIMIT 1",
			&st);
	if (rc)
		goto out;
	sq_text(st, 1, name);
	sqlite3_bind_int64(st, 2, version);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		sq_copy_text(st, 0, out->name, sizeof(out->name));
		out->version = sqlite3_column_int64(st, 1);
		out->created = sqlite3_column_int64(st, 2);
		rc = sq_dup_text(st, 3, &out->body);
		if (!rc)
			out->body_len = (size_t)sqlite3_column_bytes(st, 3);
	} else if (rc == SQLITE_DONE) {
		rc = ATT_E_NOT_FOUND;
	} else {
		rc = sq_fail(q, "whitelist get");
	}
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}

static int sq_wl_latest(struct att_store *s, const char *name, int64_t *version)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(
		q, "SELECT MAX(version) FROM whitelists WHERE name = ?1", &st);
	if (rc)
		goto out;
	sq_text(st, 1, name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*version = sqlite3_column_int64(st, 0);
		rc = 0;
	} else if (rc == SQLITE_ROW) {
		rc = ATT_E_NOT_FOUND;
	} else {
		rc = sq_fail(q, "whitelist latest");
	}
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}

static int sq_wl_list(struct att_store *s, att_store_wl_fn fn, void *arg)
{
	struct sq_store *q = sq(s);
	struct att_store_wl w;
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(q,
			"SELECT name, MAX(version), MAX(created) FROM "
			"whitelists GROUP BY name ORDER BY name",
			&st);
	if (rc)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&w, 0, sizeof(w));
		sq_copy_text(st, 0, w.name, sizeof(w.name));
		w.version = sqlite3_column_int64(st, 1);
		w.created = sqlite3_column_int64(st, 2);
		rc = fn(&w, arg);
		if (rc)
			break;
	}
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = sq_fail(q, "whitelist list");
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}

static int sq_wl_delete(struct att_store *s, const char *name)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st = NULL;
	int rc;

	sq_lock(q);
	rc = sq_exec(q, "BEGIN IMMEDIATE");
	if (rc)
		goto out;
	rc = sq_prepare(q, "SELECT COUNT(*) FROM agents WHERE wl_name = ?1",
			&st);
	if (rc)
		goto fail;
	sq_text(st, 1, name);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = sq_fail(q, "whitelist delete");
		goto fail;
	}
	if (sqlite3_column_int64(st, 0) > 0) {
		rc = ATT_E_STATE;
		goto fail;
	}
	sq_finish(q, st);
	rc = sq_prepare(q, "DELETE FROM whitelists WHERE name = ?1", &st);
	if (rc)
		goto fail;
	sq_text(st, 1, name);
	rc = sq_step_done(q, st);
	if (rc)
		goto fail;
	if (sqlite3_changes(q->db) == 0) {
		rc = ATT_E_NOT_FOUND;
		goto fail;
	}
	sq_finish(q, st);
	rc = sq_exec(q, "COMMIT");
	goto out;
fail:
	sq_finish(q, st);
	sq_exec(q, "ROLLBACK");
out:
	return sq_unlock(q, rc);
}

static const struct att_store_ops sq_ops = {
	.name = "sqlite",
	.free = sq_free,
	.schema_version = sq_schema_version,
	.ping = sq_ping,
	.wl_put = sq_wl_put,
	.wl_get = sq_wl_get,
	.wl_latest = sq_wl_latest,
	.wl_list = sq_wl_list,
	.wl_delete = sq_wl_delete,
	.agent_get = sq_agent_get,
	.agent_insert = sq_agent_insert,
	.agent_update = sq_agent_update,
	.agent_delete = sq_agent_delete,
	.agent_by_ek = sq_agent_by_ek,
	.agent_list = sq_agent_list,
	.history_add = sq_history_add,
	.agent_update_hist = sq_agent_update_hist,
	.history_list = sq_history_list,
	.nonce_put = sq_nonce_put,
	.nonce_take = sq_nonce_take,
	.nonce_gc = sq_nonce_gc,
	.token_put = sq_token_put,
	.token_take = sq_token_take,
};

int att_store_sqlite_open(const char *path, struct att_store **out)
{
	struct sq_store *q;
	int rc;

	*out = NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return ATT_E_NOMEM;
	q->base.ops = &sq_ops;
	pthread_mutex_init(&q->lock, NULL);
	sq_sync_init(q);
	if (sqlite3_open_v2(path, &q->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				    SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		att_err("store: cannot open %s: %s", path,
			q->db ? sqlite3_errmsg(q->db) : "out of memory");
		sq_free(&q->base);
		return ATT_E_DB;
	}
	sqlite3_extended_result_codes(q->db, 0);
	sqlite3_busy_timeout(q->db, 10000);
	rc = sq_exec(q, "PRAGMA journal_mode=WAL");
	if (!rc)
		rc = sq_exec(
			q,
			"PRAGMA synchronous=FULL"); /* NORMAL after migrating */
	if (!rc)
		rc = sq_exec(q, "PRAGMA foreign_keys=ON");
	/*
	 * 32 MiB of page cache (SQLite's default is 2 MiB): the agents'
	 * rows and their outstanding nonces stay in memory with 10,000
	 * agents instead of being read again from the OS at every round.
	 */
	if (!rc)
		rc = sq_exec(q, "PRAGMA cache_size=-32768");
	if (!rc)
		rc = sq_migrate(q);
	if (!rc)
		rc = sq_sync_open(q);
	if (rc) {
		sq_free(&q->base);
		return rc;
	}
	*out = &q->base;
	return 0;
}
