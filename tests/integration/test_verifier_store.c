// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_store.c - the verifier's SQLite store on a real database
 * file: migrations (fresh, reopened, newer schema refused), versioned
 * whitelists, agents with optimistic concurrency between two connections
 * (as two verifier processes would have), single-use nonces bound to an
 * agent with an expiry, single-use enrollment tokens, history; SQLite's
 * group commit (which writes are synced, concurrent writers sharing syncs).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "attest/err.h"
#include "../../verifier/service/store.h"
#include "../../verifier/service/store_sqlite.h"
#include "pg_cluster.h"
#include "vhost/vhost.h"

static char dir[64];
static char path[128]; /* the SQLite file */
static char url[160];  /* what the store opens: path or PostgreSQL */
static struct att_pg *pg;

/* SQLite in a scratch directory, or also a private PostgreSQL (use_pg). */
static int setup(int use_pg)
{
	snprintf(dir, sizeof(dir), "/tmp/att-store-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/v.db", dir);
	snprintf(url, sizeof(url), "%s", path);
	if (!use_pg)
		return 0;
	if (att_pg_start(&pg)) {
		fprintf(stderr, "FATAL: cannot start PostgreSQL\n");
		return -1;
	}
	snprintf(url, sizeof(url), "%s", att_pg_url(pg));
	return 0;
}

static int teardown(void)
{
	char cmd[160];

	att_pg_free(pg);
	pg = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The single integer a query on db returns, -1 on error. */
static int sq_count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int n = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void test_migrations(void **state)
{
	struct att_store *s;
	sqlite3 *db;
	char *req = NULL;
	int v;

	(void)state;
	assert_int_equal(att_store_open(url, &s), 0);
	assert_string_equal(att_store_backend(s), pg ? "postgresql" : "sqlite");
	assert_int_equal(att_store_schema_version(s, &v), 0);
	assert_int_equal(v, ATT_STORE_SCHEMA_VERSION);
	att_store_free(s);
	/* Reopening migrates nothing and keeps the version. */
	assert_int_equal(att_store_open(url, &s), 0);
	assert_int_equal(att_store_schema_version(s, &v), 0);
	assert_int_equal(v, ATT_STORE_SCHEMA_VERSION);
	att_store_free(s);
	if (pg)
		return; /* the rest is about the SQLite file */
	/* A schema from a newer verifier is refused, not used. */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "UPDATE schema_version SET version = "
				      "version + 1",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(att_store_open(url, &s), ATT_E_UNSUPPORTED);
	assert_int_equal(sqlite3_exec(db,
				      "UPDATE schema_version SET version = "
				      "version - 1",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	/*
	 * Migrations 5 and 6 on a database at schema 4 (nonces in a rowid
	 * table, history unbounded, no clock_at/clone columns): the nonces
	 * are kept, in a WITHOUT ROWID table; history keeps each agent's
	 * newest 100 rows; an agent of before gets clock_at 0, clone ''.
	 */
	assert_int_equal(
		sqlite3_exec(
			db,
			"DROP TABLE nonces;"
			"CREATE TABLE nonces (nonce TEXT PRIMARY KEY, "
			"agent TEXT NOT NULL, expires INTEGER NOT NULL, "
			"request TEXT);"
			"INSERT INTO nonces VALUES ('aa01', 'm', 100, "
			"'{\"x\":1}');"
			"WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT "
			"n + 1 FROM i WHERE n < 130) INSERT INTO history "
			"(agent, at, state, result) SELECT 'm', n, "
			"'trusted', '{}' FROM i;"
			"INSERT INTO history (agent, at, state, result) "
			"VALUES ('m2', 1, 'trusted', '{}');"
			"ALTER TABLE agents DROP COLUMN clock_at;"
			"ALTER TABLE agents DROP COLUMN clone;"
			"INSERT INTO agents (id, rev, state, reset_count, "
			"restart_count, boot_count, enrolled_at, last_attest) "
			"VALUES ('m3', 1, 'trusted', 1, 0, 1, 1, 1);"
			"UPDATE schema_version SET version = 4",
			NULL, NULL, NULL),
		SQLITE_OK);
	assert_int_equal(att_store_open(url, &s), 0);
	assert_int_equal(att_store_schema_version(s, &v), 0);
	assert_int_equal(v, 6);
	{
		struct att_agent_rec m3;

		assert_int_equal(att_store_agent_get(s, "m3", &m3), 0);
		assert_int_equal(m3.clock_at, 0);
		assert_string_equal(m3.clone, "");
		att_agent_rec_release(&m3);
	}
	assert_int_equal(sq_count(db,
				  "SELECT count(*) FROM sqlite_master WHERE "
				  "name = 'nonces' AND sql LIKE '%WITHOUT "
				  "ROWID'"),
			 1);
	assert_int_equal(sq_count(db, "SELECT count(*) FROM history WHERE "
				      "agent = 'm'"),
			 100);
	assert_int_equal(sq_count(db, "SELECT min(at) FROM history WHERE "
				      "agent = 'm'"),
			 31);
	assert_int_equal(sq_count(db, "SELECT count(*) FROM history WHERE "
				      "agent = 'm2'"),
			 1);
	assert_int_equal(att_store_nonce_take(s, "aa01", "m", 50, &req), 0);
	assert_string_equal(req, "{\"x\":1}");
	free(req);
	att_store_free(s);
	sqlite3_close(db);
	/* WAL is on. */
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(att_store_open("sqlite:", &s), ATT_E_INVAL);
	assert_int_equal(att_store_open("/nonexistent-dir/x.db", &s), ATT_E_DB);
}

static int count_wl(const struct att_store_wl *w, void *arg)
{
	int *n = arg;

	assert_null(w->body);
	if (!strcmp(w->name, "base"))
		assert_int_equal(w->version, 2);
	(*n)++;
	return 0;
}

static void test_whitelists(void **state)
{
	struct att_store *s;
	struct att_store_wl w;
	struct att_agent_rec a;
	int64_t v;
	int n = 0;

	(void)state;
	assert_int_equal(att_store_open(url, &s), 0);
	assert_int_equal(att_store_wl_get(s, "base", 0, &w), ATT_E_NOT_FOUND);
	assert_int_equal(att_store_wl_put(s, "base", "{\"a\":1}", 7, 0, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(att_store_wl_put(s, "base", "{\"a\":2}", 7, 0, &v),
			 ATT_E_EXISTS);
	assert_int_equal(att_store_wl_put(s, "base", "{\"a\":2}", 7, 2, &v),
			 ATT_E_STATE);
	assert_int_equal(att_store_wl_put(s, "base", "{\"a\":2}", 7, 1, &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(att_store_wl_put(s, "base", "{\"a\":2}", 7, 1, &v),
			 ATT_E_STATE);
	assert_int_equal(att_store_wl_put(s, "other", "{}", 2, -1, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(att_store_wl_get(s, "base", 0, &w), 0);
	assert_int_equal(w.version, 2);
	assert_string_equal(w.body, "{\"a\":2}");
	att_store_wl_release(&w);
	assert_int_equal(att_store_wl_get(s, "base", 1, &w), 0);
	assert_string_equal(w.body, "{\"a\":1}");
	assert_int_equal(w.body_len, 7);
	att_store_wl_release(&w);
	assert_int_equal(att_store_wl_get(s, "base", 3, &w), ATT_E_NOT_FOUND);
	assert_int_equal(att_store_wl_list(s, count_wl, &n), 0);
	assert_int_equal(n, 2);
	/* Not deletable while assigned. */
	att_agent_rec_init(&a);
	snprintf(a.id, sizeof(a.id), "wl-user");
	a.state = ATT_AGENT_REGISTERED;
	snprintf(a.wl_name, sizeof(a.wl_name), "other");
	assert_int_equal(att_store_agent_insert(s, &a), 0);
	assert_int_equal(att_store_wl_delete(s, "other"), ATT_E_STATE);
	assert_int_equal(att_store_wl_get(s, "other", 0, &w), 0);
	att_store_wl_release(&w);
	assert_int_equal(att_store_agent_delete(s, "wl-user"), 0);
	assert_int_equal(att_store_wl_delete(s, "other"), 0);
	assert_int_equal(att_store_wl_delete(s, "other"), ATT_E_NOT_FOUND);
	assert_int_equal(att_store_wl_get(s, "other", 0, &w), ATT_E_NOT_FOUND);
	att_store_free(s);
}

static void test_agents_concurrency(void **state)
{
	struct att_store *s1, *s2;
	struct att_agent_rec a, b, c;
	static const uint8_t ek[] = {1, 2, 3, 0, 4};
	static const uint8_t rp[] = {9, 8, 7};

	(void)state;
	/* Two connections to one file, as two verifier processes. */
	assert_int_equal(att_store_open(url, &s1), 0);
	assert_int_equal(att_store_open(url, &s2), 0);
	att_agent_rec_init(&a);
	snprintf(a.id, sizeof(a.id), "host-1");
	a.state = ATT_AGENT_ENROLLING;
	a.ek_pub = malloc(sizeof(ek));
	memcpy(a.ek_pub, ek, sizeof(ek));
	a.ek_pub_len = sizeof(ek);
	a.enrolled_at = 1000;
	assert_int_equal(att_store_agent_insert(s1, &a), 0);
	assert_int_equal(a.rev, 1);
	assert_int_equal(att_store_agent_insert(s2, &a), ATT_E_EXISTS);
	/* Its EK, looked up from the other connection (bytes compared). */
	{
		static const uint8_t other[] = {1, 2, 3, 0, 5};
		char who[ATT_STORE_ID_MAX + 1];

		assert_int_equal(att_store_agent_by_ek(s2, ek, sizeof(ek),
						       "host-2", who,
						       sizeof(who)),
				 0);
		assert_string_equal(who, "host-1");
		assert_int_equal(att_store_agent_by_ek(s2, ek, sizeof(ek),
						       "host-1", who,
						       sizeof(who)),
				 ATT_E_NOT_FOUND);
		assert_int_equal(att_store_agent_by_ek(s2, other, sizeof(other),
						       "host-2", who,
						       sizeof(who)),
				 ATT_E_NOT_FOUND);
		assert_int_equal(att_store_agent_by_ek(s2, ek, sizeof(ek) - 1,
						       "host-2", who,
						       sizeof(who)),
				 ATT_E_NOT_FOUND);
		/*
		 * One EK, one identity, enforced by the database: the same
		 * EK under another id cannot be stored even by a writer that
		 * looked it up before the first was stored.
		 */
		att_agent_rec_init(&c);
		snprintf(c.id, sizeof(c.id), "host-2");
		c.state = ATT_AGENT_ENROLLING;
		c.ek_pub = malloc(sizeof(ek));
		memcpy(c.ek_pub, ek, sizeof(ek));
		c.ek_pub_len = sizeof(ek);
		assert_int_equal(att_store_agent_insert(s2, &c), ATT_E_EXISTS);
		assert_int_equal(att_store_agent_get(s1, "host-2", &b),
				 ATT_E_NOT_FOUND);
		/* Another EK is fine, and agents without one too. */
		c.ek_pub[4] = 5;
		assert_int_equal(att_store_agent_insert(s2, &c), 0);
		assert_int_equal(att_store_agent_delete(s1, "host-2"), 0);
		free(c.ek_pub);
		c.ek_pub = NULL;
		c.ek_pub_len = 0;
		assert_int_equal(att_store_agent_insert(s2, &c), 0);
		snprintf(c.id, sizeof(c.id), "host-3");
		assert_int_equal(att_store_agent_insert(s1, &c), 0);
		assert_int_equal(att_store_agent_delete(s1, "host-2"), 0);
		assert_int_equal(att_store_agent_delete(s1, "host-3"), 0);
		att_agent_rec_release(&c);
	}

	assert_int_equal(att_store_agent_get(s2, "host-1", &b), 0);
	assert_int_equal(b.rev, 1);
	assert_memory_equal(b.ek_pub, ek, sizeof(ek));
	assert_int_equal(b.ek_pub_len, sizeof(ek));
	assert_null(b.ak_pub);
	assert_int_equal(b.reset_count, -1);
	assert_null(b.last_result);

	/* s1 writes first; s2's write from the same revision is refused. */
	a.state = ATT_AGENT_TRUSTED;
	a.replay = malloc(sizeof(rp));
	memcpy(a.replay, rp, sizeof(rp));
	a.replay_len = sizeof(rp);
	a.last_result = strdup("{\"state\":\"trusted\"}");
	a.reset_count = 5;
	assert_int_equal(att_store_agent_update(s1, &a), 0);
	assert_int_equal(a.rev, 2);
	b.state = ATT_AGENT_UNTRUSTED;
	assert_int_equal(att_store_agent_update(s2, &b), ATT_E_STATE);
	assert_int_equal(b.rev, 1);
	/* Re-read, then the write goes through. */
	att_agent_rec_release(&b);
	assert_int_equal(att_store_agent_get(s2, "host-1", &b), 0);
	assert_int_equal(b.state, ATT_AGENT_TRUSTED);
	assert_int_equal(b.reset_count, 5);
	assert_memory_equal(b.replay, rp, sizeof(rp));
	assert_string_equal(b.last_result, "{\"state\":\"trusted\"}");
	b.state = ATT_AGENT_UNTRUSTED;
	assert_int_equal(att_store_agent_update(s2, &b), 0);
	assert_int_equal(b.rev, 3);
	assert_int_equal(att_store_agent_get(s1, "host-1", &c), 0);
	assert_int_equal(c.state, ATT_AGENT_UNTRUSTED);
	att_agent_rec_release(&c);

	assert_int_equal(
		att_store_history_add(s1, "host-1", 10, "trusted", "{}"), 0);
	assert_int_equal(att_store_agent_delete(s2, "host-1"), 0);
	assert_int_equal(att_store_agent_update(s1, &a), ATT_E_NOT_FOUND);
	assert_int_equal(att_store_agent_get(s1, "host-1", &c),
			 ATT_E_NOT_FOUND);
	assert_int_equal(att_store_agent_delete(s1, "host-1"), ATT_E_NOT_FOUND);
	att_agent_rec_release(&a);
	att_agent_rec_release(&b);
	att_store_free(s1);
	att_store_free(s2);
}

static void test_nonces_tokens(void **state)
{
	struct att_store *s1, *s2;
	char *req = NULL;

	(void)state;
	assert_int_equal(att_store_open(url, &s1), 0);
	assert_int_equal(att_store_open(url, &s2), 0);
	assert_int_equal(att_store_nonce_put(s1, "aa01", "host-a", 100,
					     "{\"pcrs\":[10]}"),
			 0);
	assert_int_equal(att_store_nonce_put(s1, "aa01", "host-a", 100, NULL),
			 ATT_E_EXISTS);
	/* Used on one connection, refused on the other. */
	assert_int_equal(att_store_nonce_take(s1, "aa01", "host-a", 50, &req),
			 0);
	assert_string_equal(req, "{\"pcrs\":[10]}");
	free(req);
	assert_int_equal(att_store_nonce_take(s2, "aa01", "host-a", 50, NULL),
			 ATT_E_NOT_FOUND);
	/*
	 * Bound to its agent: another agent's try is refused and spends
	 * nothing; its own agent takes it once.
	 */
	assert_int_equal(att_store_nonce_put(s1, "bb02", "host-a", 100, NULL),
			 0);
	assert_int_equal(att_store_nonce_take(s2, "bb02", "host-b", 50, NULL),
			 ATT_E_AUTH);
	assert_int_equal(att_store_nonce_take(s1, "bb02", "host-b", 101, NULL),
			 ATT_E_AUTH);
	assert_int_equal(att_store_nonce_take(s1, "bb02", "host-a", 50, NULL),
			 0);
	assert_int_equal(att_store_nonce_take(s2, "bb02", "host-a", 50, NULL),
			 ATT_E_NOT_FOUND);
	/* Expired. */
	assert_int_equal(att_store_nonce_put(s1, "cc03", "host-a", 100, NULL),
			 0);
	assert_int_equal(att_store_nonce_take(s1, "cc03", "host-a", 101, NULL),
			 ATT_E_TIMEOUT);
	assert_int_equal(att_store_nonce_put(s1, "dd04", "host-a", 100, NULL),
			 0);
	assert_int_equal(att_store_nonce_gc(s2, 101), 0);
	assert_int_equal(att_store_nonce_take(s1, "dd04", "host-a", 99, NULL),
			 ATT_E_NOT_FOUND);

	assert_int_equal(att_store_token_put(s1, "t1", 100), 0);
	assert_int_equal(att_store_token_take(s2, "t1", 50), 0);
	assert_int_equal(att_store_token_take(s1, "t1", 50), ATT_E_NOT_FOUND);
	assert_int_equal(att_store_token_put(s1, "t2", 100), 0);
	assert_int_equal(att_store_token_take(s1, "t2", 101), ATT_E_TIMEOUT);
	att_store_free(s1);
	att_store_free(s2);
}

static int hist_cb(int64_t at, const char *st, const char *res, void *arg)
{
	int *n = arg;

	assert_int_equal(at, 3 - *n);
	assert_string_equal(st, *n == 0 ? "untrusted" : "trusted");
	assert_non_null(res);
	(*n)++;
	return 0;
}

static void test_history(void **state)
{
	struct att_store *s;
	int n = 0;

	(void)state;
	assert_int_equal(att_store_open(url, &s), 0);
	assert_int_equal(att_store_history_add(s, "h", 1, "trusted", "{}"), 0);
	assert_int_equal(att_store_history_add(s, "h", 2, "trusted", "{}"), 0);
	assert_int_equal(att_store_history_add(s, "h", 3, "untrusted", "{}"),
			 0);
	assert_int_equal(att_store_history_list(s, "h", 2, hist_cb, &n), 0);
	assert_int_equal(n, 2);
	att_store_free(s);
}

struct keep_arg {
	int n;
	int64_t oldest;
};

static int keep_cb(int64_t at, const char *st, const char *res, void *arg)
{
	struct keep_arg *k = arg;

	(void)st;
	(void)res;
	k->n++;
	k->oldest = at;
	return 0;
}

/*
 * Each insert keeps the agent's newest ATT_STORE_HISTORY_KEEP rows,
 * through either write path, and leaves other agents' rows alone.
 */
static void test_history_keep(void **state)
{
	const int extra = 7;
	struct att_store *s;
	struct att_agent_rec a;
	struct keep_arg k = {0, -1};
	int i, hrc, nrc;

	(void)state;
	assert_int_equal(att_store_open(url, &s), 0);
	assert_int_equal(att_store_history_add(s, "other", 1, "trusted", "{}"),
			 0);
	for (i = 1; i <= ATT_STORE_HISTORY_KEEP + extra; i++)
		assert_int_equal(
			att_store_history_add(s, "hk", i, "untrusted", "{}"),
			0);
	assert_int_equal(att_store_history_list(s, "hk", 1000, keep_cb, &k), 0);
	assert_int_equal(k.n, ATT_STORE_HISTORY_KEEP);
	assert_int_equal(k.oldest, extra + 1);
	/* The verdict's path prunes too. */
	att_agent_rec_init(&a);
	snprintf(a.id, sizeof(a.id), "hk");
	a.state = ATT_AGENT_REGISTERED;
	assert_int_equal(att_store_agent_insert(s, &a), 0);
	a.state = ATT_AGENT_TRUSTED;
	assert_int_equal(
		att_store_agent_update_hist(s, &a, 1000, 1, NULL, &hrc, &nrc),
		0);
	assert_int_equal(hrc, 0);
	k.n = 0;
	assert_int_equal(att_store_history_list(s, "hk", 1000, keep_cb, &k), 0);
	assert_int_equal(k.n, ATT_STORE_HISTORY_KEEP);
	assert_int_equal(k.oldest, extra + 2);
	k.n = 0;
	assert_int_equal(att_store_history_list(s, "other", 10, keep_cb, &k),
			 0);
	assert_int_equal(k.n, 1);
	assert_int_equal(att_store_agent_delete(s, "hk"), 0);
	att_agent_rec_release(&a);
	att_store_free(s);
}

/* What a list callback saw, the agents in order. */
struct list_seen {
	int n;
	char id[2][ATT_STORE_ID_MAX + 1];
	int64_t last_attest[2], boot_count[2];
	enum att_agent_state state[2];
	int blobs[2]; /* ek, ak, replay and last_result all there */
	int none[2];  /* all four NULL */
};

static int list_cb(const struct att_agent_rec *a, void *arg)
{
	struct list_seen *l = arg;

	if (strncmp(a->id, "ls-", 3))
		return 0; /* another test's agent */
	assert_in_range(l->n, 0, 1);
	snprintf(l->id[l->n], sizeof(l->id[0]), "%s", a->id);
	l->state[l->n] = a->state;
	l->last_attest[l->n] = a->last_attest;
	l->boot_count[l->n] = a->boot_count;
	l->blobs[l->n] = a->ek_pub_len == 2 && a->ak_pub_len == 3 &&
			 a->replay_len == 4 && a->last_result &&
			 !strcmp(a->last_result, "{\"state\":\"trusted\"}");
	l->none[l->n] = !a->ek_pub && !a->ak_pub && !a->secret && !a->replay &&
			!a->last_result;
	l->n++;
	return 0;
}

static void set_blob(uint8_t **p, size_t *len, size_t n)
{
	*p = calloc(1, n);
	assert_non_null(*p);
	memset(*p, (int)n, n);
	*len = n;
}

/*
 * The full list and the brief one: the same agents in id order with the
 * same state, boot count and last attestation; only the full one carries
 * the keys, the replay state and the last result.
 */
static void test_agent_lists(void **state)
{
	static const char *const ids[] = {"ls-b", "ls-a"};
	struct list_seen full = {0}, brief = {0};
	struct att_store *s;
	struct att_agent_rec a;
	int i;

	(void)state;
	assert_int_equal(att_store_open(url, &s), 0);
	for (i = 0; i < 2; i++) {
		att_agent_rec_init(&a);
		snprintf(a.id, sizeof(a.id), "%s", ids[i]);
		a.state = i ? ATT_AGENT_UNTRUSTED : ATT_AGENT_TRUSTED;
		set_blob(&a.ek_pub, &a.ek_pub_len, 2);
		set_blob(&a.ak_pub, &a.ak_pub_len, 3);
		set_blob(&a.replay, &a.replay_len, 4);
		a.ek_pub[0] = (uint8_t)(0x40 + i); /* EKs are unique */
		a.last_result = strdup("{\"state\":\"trusted\"}");
		a.boot_count = 7 + i;
		a.last_attest = 5000 + i;
		assert_int_equal(att_store_agent_insert(s, &a), 0);
		att_agent_rec_release(&a);
	}
	assert_int_equal(att_store_agent_list(s, list_cb, &full), 0);
	assert_int_equal(att_store_agent_list_brief(s, list_cb, &brief), 0);
	assert_int_equal(full.n, 2);
	assert_int_equal(brief.n, 2);
	for (i = 0; i < 2; i++) {
		/* ls-a (inserted second) first. */
		assert_string_equal(full.id[i], ids[1 - i]);
		assert_string_equal(brief.id[i], ids[1 - i]);
		assert_int_equal(brief.state[i], full.state[i]);
		assert_int_equal(brief.state[i],
				 i ? ATT_AGENT_TRUSTED : ATT_AGENT_UNTRUSTED);
		assert_int_equal(brief.boot_count[i], 8 - i);
		assert_int_equal(brief.last_attest[i], 5001 - i);
		assert_int_equal(full.last_attest[i], brief.last_attest[i]);
		assert_true(full.blobs[i]);
		assert_true(brief.none[i]);
	}
	for (i = 0; i < 2; i++)
		assert_int_equal(att_store_agent_delete(s, ids[i]), 0);
	att_store_free(s);
}

/*
 * A configured keep: 2 and 5 rows (2 is the least PostgreSQL's one
 * statement can express), through both write paths; a larger keep set
 * later lets the agent's rows grow again; out of range is refused and
 * changes nothing.
 */
static void test_history_keep_set(void **state)
{
	static const unsigned int keeps[] = {2, 5};
	struct att_store *s;
	struct att_agent_rec a;
	struct keep_arg k;
	unsigned int j;
	int i, hrc, nrc;

	(void)state;
	assert_int_equal(att_store_open(url, &s), 0);
	assert_int_equal(att_store_history_keep(s), ATT_STORE_HISTORY_KEEP);
	assert_int_equal(att_store_set_history_keep(s, 1), ATT_E_INVAL);
	assert_int_equal(
		att_store_set_history_keep(s, ATT_STORE_HISTORY_KEEP_MAX + 1),
		ATT_E_INVAL);
	assert_int_equal(att_store_history_keep(s), ATT_STORE_HISTORY_KEEP);
	att_agent_rec_init(&a);
	snprintf(a.id, sizeof(a.id), "hks");
	a.state = ATT_AGENT_REGISTERED;
	assert_int_equal(att_store_agent_insert(s, &a), 0);
	for (j = 0; j < 2; j++) {
		assert_int_equal(att_store_set_history_keep(s, keeps[j]), 0);
		assert_int_equal(att_store_history_keep(s), keeps[j]);
		for (i = 1; i <= 9; i++)
			assert_int_equal(
				att_store_history_add(s, "hks", 100 * j + i,
						      "untrusted", "{}"),
				0);
		k = (struct keep_arg){0, -1};
		assert_int_equal(
			att_store_history_list(s, "hks", 1000, keep_cb, &k), 0);
		assert_int_equal(k.n, (int)keeps[j]);
		assert_int_equal(k.oldest, 100 * j + 10 - (int)keeps[j]);
		a.state = j ? ATT_AGENT_TRUSTED : ATT_AGENT_UNTRUSTED;
		assert_int_equal(att_store_agent_update_hist(s, &a,
							     100 * j + 10, 1,
							     NULL, &hrc, &nrc),
				 0);
		assert_int_equal(hrc, 0);
		k = (struct keep_arg){0, -1};
		assert_int_equal(
			att_store_history_list(s, "hks", 1000, keep_cb, &k), 0);
		assert_int_equal(k.n, (int)keeps[j]);
		assert_int_equal(k.oldest, 100 * j + 11 - (int)keeps[j]);
	}
	assert_int_equal(att_store_agent_delete(s, "hks"), 0);
	att_agent_rec_release(&a);
	att_store_free(s);
}

/* Newest first: 23 trusted, 22 untrusted, 20 trusted (not 21). */
static int hist_uh_cb(int64_t at, const char *st, const char *res, void *arg)
{
	static const int64_t ats[] = {23, 22, 20};
	int *n = arg;

	assert_in_range(*n, 0, 2);
	assert_int_equal(at, ats[*n]);
	assert_string_equal(st, *n == 1 ? "untrusted" : "trusted");
	assert_string_equal(res, "{\"state\":\"trusted\"}");
	(*n)++;
	return 0;
}

/*
 * The agent's new state, its history row and the next challenge's nonce
 * together; a stale revision writes none of them; a nonce that cannot be
 * inserted (already there) does not undo the new state; a verdict asked
 * without history writes the agent alone.
 */
static void test_update_hist(void **state)
{
	const struct att_store_nonce next = {"ee05", 100, "{\"sha256\":1}"};
	const struct att_store_nonce stale = {"ff06", 100, "{}"};
	const struct att_store_nonce dup = {"ee07", 100, "{}"};
	struct att_store *s1, *s2;
	struct att_agent_rec a, b;
	int n = 0, hrc = 0, nrc = 0;
	char *req = NULL;

	(void)state;
	assert_int_equal(att_store_open(url, &s1), 0);
	assert_int_equal(att_store_open(url, &s2), 0);
	att_agent_rec_init(&a);
	snprintf(a.id, sizeof(a.id), "uh");
	a.state = ATT_AGENT_REGISTERED;
	assert_int_equal(att_store_agent_insert(s1, &a), 0);
	assert_int_equal(att_store_agent_get(s2, "uh", &b), 0);
	a.state = ATT_AGENT_TRUSTED;
	a.last_result = strdup("{\"state\":\"trusted\"}");
	assert_int_equal(
		att_store_agent_update_hist(s1, &a, 20, 1, &next, &hrc, &nrc),
		0);
	assert_int_equal(hrc, 0);
	assert_int_equal(nrc, 0);
	assert_int_equal(a.rev, 2);
	/* the nonce is there, for this agent, with what was stored */
	assert_int_equal(att_store_nonce_take(s2, "ee05", "uh", 50, &req), 0);
	assert_string_equal(req, "{\"sha256\":1}");
	free(req);
	b.state = ATT_AGENT_UNTRUSTED;
	assert_int_equal(
		att_store_agent_update_hist(s2, &b, 21, 1, &stale, &hrc, &nrc),
		ATT_E_STATE);
	assert_int_equal(hrc, ATT_E_STATE);
	assert_int_equal(nrc, ATT_E_STATE);
	assert_int_equal(b.rev, 1);
	assert_int_equal(att_store_nonce_take(s1, "ff06", "uh", 50, NULL),
			 ATT_E_NOT_FOUND);
	/* a nonce insert that fails leaves the verdict written */
	assert_int_equal(att_store_nonce_put(s1, "ee07", "uh", 100, "{}"), 0);
	a.state = ATT_AGENT_UNTRUSTED;
	assert_int_equal(
		att_store_agent_update_hist(s1, &a, 22, 1, &dup, &hrc, &nrc),
		0);
	assert_int_equal(hrc, 0);
	assert_int_not_equal(nrc, 0);
	assert_int_equal(a.rev, 3);
	assert_int_equal(att_store_nonce_take(s1, "ee07", "uh", 50, NULL), 0);
	a.state = ATT_AGENT_TRUSTED;
	assert_int_equal(
		att_store_agent_update_hist(s1, &a, 23, 1, NULL, &hrc, &nrc),
		0);
	assert_int_equal(nrc, ATT_E_STATE);
	assert_int_equal(a.rev, 4);
	/* a verdict without a history row: the agent alone */
	assert_int_equal(
		att_store_agent_update_hist(s1, &a, 24, 0, NULL, &hrc, &nrc),
		0);
	assert_int_equal(hrc, ATT_E_STATE);
	assert_int_equal(nrc, ATT_E_STATE);
	assert_int_equal(a.rev, 5);
	assert_int_equal(att_store_history_list(s2, "uh", 10, hist_uh_cb, &n),
			 0);
	assert_int_equal(n, 3);
	att_agent_rec_release(&b);
	assert_int_equal(att_store_agent_get(s2, "uh", &b), 0);
	assert_int_equal(b.state, ATT_AGENT_TRUSTED);
	assert_int_equal(b.rev, 5);
	assert_int_equal(att_store_agent_delete(s1, "uh"), 0);
	att_agent_rec_release(&a);
	att_agent_rec_release(&b);
	att_store_free(s1);
	att_store_free(s2);
}

struct gc_arg {
	struct att_store *s;
	int t, rc;
};

static void *gc_writer(void *p)
{
	struct gc_arg *g = p;
	char id[16];
	int i;

	snprintf(id, sizeof(id), "gc%d", g->t);
	for (i = 0; i < 50 && !g->rc; i++)
		g->rc = att_store_history_add(g->s, id, i, "trusted", "{}");
	return NULL;
}

static int gc_count(int64_t at, const char *st, const char *res, void *arg)
{
	(void)at;
	(void)st;
	(void)res;
	(*(int *)arg)++;
	return 0;
}

/*
 * SQLite group commit: a durable write returns after a sync of the WAL; a
 * challenge's nonce and its taking are not synced on their own (the
 * verdict's sync covers them); a read syncs nothing; writers in parallel
 * share syncs and lose nothing.
 */
static void test_group_commit(void **state)
{
	struct att_store *s, *s2;
	struct att_agent_rec a;
	struct gc_arg g[4];
	pthread_t th[4];
	uint64_t n0;
	int i, n;
	char *req = NULL;

	(void)state;
	assert_int_equal(att_store_open(url, &s), 0);
	n0 = sq_syncs(sq(s));
	assert_int_equal(att_store_nonce_put(s, "00ff", "gc", 100, "{}"), 0);
	assert_int_equal(sq_syncs(sq(s)), n0);
	assert_int_equal(att_store_nonce_take(s, "00ff", "gc", 50, &req), 0);
	free(req);
	assert_int_equal(sq_syncs(sq(s)), n0);
	att_agent_rec_init(&a);
	snprintf(a.id, sizeof(a.id), "gc");
	a.state = ATT_AGENT_REGISTERED;
	assert_int_equal(att_store_agent_insert(s, &a), 0);
	assert_int_equal(sq_syncs(sq(s)), n0 + 1);
	att_agent_rec_release(&a);
	assert_int_equal(att_store_agent_get(s, "gc", &a), 0);
	att_agent_rec_release(&a);
	assert_int_equal(sq_syncs(sq(s)), n0 + 1);
	assert_int_equal(att_store_token_put(s, "aa", 100), 0);
	assert_int_equal(sq_syncs(sq(s)), n0 + 2);
	assert_int_equal(att_store_token_take(s, "aa", 50), 0);
	assert_int_equal(sq_syncs(sq(s)), n0 + 3);
	/* A failed take changes nothing and syncs nothing. */
	assert_int_equal(att_store_token_take(s, "aa", 50), ATT_E_NOT_FOUND);
	assert_int_equal(sq_syncs(sq(s)), n0 + 3);

	n0 = sq_syncs(sq(s));
	for (i = 0; i < 4; i++) {
		g[i].s = s;
		g[i].t = i;
		g[i].rc = 0;
		assert_int_equal(pthread_create(&th[i], NULL, gc_writer, &g[i]),
				 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(g[i].rc, 0);
	}
	assert_true(sq_syncs(sq(s)) - n0 >= 1);
	assert_true(sq_syncs(sq(s)) - n0 <= 200);
	fprintf(stderr, "group commit: 200 writes, %llu syncs\n",
		(unsigned long long)(sq_syncs(sq(s)) - n0));
	/* Every row is there for another connection. */
	assert_int_equal(att_store_open(url, &s2), 0);
	for (i = 0; i < 4; i++) {
		char id[16];

		n = 0;
		snprintf(id, sizeof(id), "gc%d", i);
		assert_int_equal(
			att_store_history_list(s2, id, 100, gc_count, &n), 0);
		assert_int_equal(n, 50);
	}
	att_store_free(s2);
	att_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrations),
		cmocka_unit_test(test_whitelists),
		cmocka_unit_test(test_agents_concurrency),
		cmocka_unit_test(test_agent_lists),
		cmocka_unit_test(test_nonces_tokens),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_history_keep),
		cmocka_unit_test(test_history_keep_set),
		cmocka_unit_test(test_update_hist),
	};

	const struct CMUnitTest sqlite_only[] = {
		cmocka_unit_test(test_group_commit),
	};
	size_t n = sizeof(tests) / sizeof(tests[0]);
	int fails;

	fails = vh_run_backend("sqlite", 0, tests, n, setup, teardown);
	fails += vh_run_backend("sqlite-sync", 0, sqlite_only,
				sizeof(sqlite_only) / sizeof(sqlite_only[0]),
				setup, teardown);
	fails += vh_run_backend("postgresql", 1, tests, n, setup, teardown);
	return fails;
}
