// SPDX-License-Identifier: Apache-2.0
/*
 * store_sqlite_agents.c - the SQLite backend's agents (optimistic
 * concurrency on a revision), history, single-use nonces and tokens.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "attest/err.h"
#include "attest/log.h"
#include "store_sqlite.h"

#define SQ_AGENT_COLS                                                        \
	"id, rev, state, ek_pub, ak_pub, secret, wl_name, wl_version, "      \
	"reset_count, restart_count, boot_count, enrolled_at, last_attest, " \
	"replay, last_result, cert_fpr, tpm_clock, clock_at, clone"
/* The same columns, the blobs and last_result NULL (read the same way). */
#define SQ_AGENT_COLS_BRIEF                                                  \
	"id, rev, state, NULL, NULL, NULL, wl_name, wl_version, "            \
	"reset_count, restart_count, boot_count, enrolled_at, last_attest, " \
	"NULL, NULL, cert_fpr, tpm_clock, clock_at, clone"

static int sq_read_agent(sqlite3_stmt *st, struct att_agent_rec *a)
{
	char state[24];
	int rc;

	att_agent_rec_init(a);
	sq_copy_text(st, 0, a->id, sizeof(a->id));
	a->rev = sqlite3_column_int64(st, 1);
	sq_copy_text(st, 2, state, sizeof(state));
	rc = att_store_state_read(a->id, state, &a->state);
	if (!rc)
		rc = sq_dup_blob(st, 3, &a->ek_pub, &a->ek_pub_len);
	if (!rc)
		rc = sq_dup_blob(st, 4, &a->ak_pub, &a->ak_pub_len);
	if (!rc)
		rc = sq_dup_blob(st, 5, &a->secret, &a->secret_len);
	sq_copy_text(st, 6, a->wl_name, sizeof(a->wl_name));
	a->wl_version = sqlite3_column_int64(st, 7);
	a->reset_count = sqlite3_column_int64(st, 8);
	a->restart_count = sqlite3_column_int64(st, 9);
	a->boot_count = sqlite3_column_int64(st, 10);
	a->enrolled_at = sqlite3_column_int64(st, 11);
	a->last_attest = sqlite3_column_int64(st, 12);
	if (!rc)
		rc = sq_dup_blob(st, 13, &a->replay, &a->replay_len);
	if (!rc)
		rc = sq_dup_text(st, 14, &a->last_result);
	sq_copy_text(st, 15, a->cert_fpr, sizeof(a->cert_fpr));
	a->tpm_clock = sqlite3_column_int64(st, 16);
	a->clock_at = sqlite3_column_int64(st, 17);
	sq_copy_text(st, 18, a->clone, sizeof(a->clone));
	if (rc)
		att_agent_rec_release(a);
	return rc;
}

/* Binds ?1, ?3.. ?19 in SQ_AGENT_COLS order after id (rev bound by callers). */
static void sq_bind_agent(sqlite3_stmt *st, const struct att_agent_rec *a)
{
	sq_text(st, 1, a->id);
	sq_text(st, 3, att_agent_state_name(a->state));
	sq_blob(st, 4, a->ek_pub, a->ek_pub_len);
	sq_blob(st, 5, a->ak_pub, a->ak_pub_len);
	sq_blob(st, 6, a->secret, a->secret_len);
	sq_text(st, 7, a->wl_name);
	sqlite3_bind_int64(st, 8, a->wl_version);
	sqlite3_bind_int64(st, 9, a->reset_count);
	sqlite3_bind_int64(st, 10, a->restart_count);
	sqlite3_bind_int64(st, 11, a->boot_count);
	sqlite3_bind_int64(st, 12, a->enrolled_at);
	sqlite3_bind_int64(st, 13, a->last_attest);
	sq_blob(st, 14, a->replay, a->replay_len);
	sq_text(st, 15, a->last_result);
	sq_text(st, 16, a->cert_fpr);
	sqlite3_bind_int64(st, 17, a->tpm_clock);
	sqlite3_bind_int64(st, 18, a->clock_at);
	sq_text(st, 19, a->clone);
}

int sq_agent_get(struct att_store *s, const char *id, struct att_agent_rec *out)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(q, "SELECT " SQ_AGENT_COLS " FROM agents WHERE id = ?1",
			&st);
	if (rc)
		goto out;
	sq_text(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		rc = sq_read_agent(st, out);
	else if (rc == SQLITE_DONE)
		rc = ATT_E_NOT_FOUND;
	else
		rc = sq_fail(q, "agent get");
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}

int sq_agent_insert(struct att_store *s, struct att_agent_rec *a)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(q,
			"INSERT INTO agents (" SQ_AGENT_COLS ") VALUES (?1, "
			"?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
			"?14, ?15, ?16, ?17, ?18, ?19)",
			&st);
	if (rc)
		goto out;
	sq_bind_agent(st, a);
	sqlite3_bind_int64(st, 2, 1);
	rc = sq_step_done(q, st);
	if (!rc)
		a->rev = 1;
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}

/* The store's lock is held. */
static int sq_agent_update_locked(struct sq_store *q, struct att_agent_rec *a)
{
	sqlite3_stmt *st;
	int rc;

	rc = sq_prepare(q,
			"UPDATE agents SET rev = ?2 + 1, state = ?3, ek_pub = "
			"?4, ak_pub = ?5, secret = ?6, wl_name = ?7, "
			"wl_version = ?8, reset_count = ?9, restart_count = "
			"?10, boot_count = ?11, enrolled_at = ?12, "
			"last_attest = ?13, replay = ?14, last_result = ?15, "
			"cert_fpr = ?16, tpm_clock = ?17, clock_at = ?18, "
			"clone = ?19 "
			"WHERE id = ?1 AND rev = ?2",
			&st);
	if (rc)
		goto out;
	sq_bind_agent(st, a);
	sqlite3_bind_int64(st, 2, a->rev);
	rc = sq_step_done(q, st);
	sq_finish(q, st);
	if (rc)
		goto out;
	if (sqlite3_changes(q->db) == 1) {
		a->rev++;
		goto out;
	}
	/* Nothing written: deleted, or another writer moved rev on. */
	rc = sq_prepare(q, "SELECT rev FROM agents WHERE id = ?1", &st);
	if (rc)
		goto out;
	sq_text(st, 1, a->id);
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW	 ? ATT_E_STATE
	     : rc == SQLITE_DONE ? ATT_E_NOT_FOUND
				 : sq_fail(q, "agent update");
	sq_finish(q, st);
out:
	return rc;
}

int sq_agent_update(struct att_store *s, struct att_agent_rec *a)
{
	struct sq_store *q = sq(s);
	int rc;

	sq_lock(q);
	rc = sq_agent_update_locked(q, a);
	return sq_unlock(q, rc);
}

int sq_agent_by_ek(struct att_store *s, const uint8_t *ek_pub, size_t len,
		   const char *except, char *id, size_t idlen)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(q,
			"SELECT id FROM agents WHERE ek_pub = ?1 AND id <> ?2 "
			"ORDER BY id LIMIT 1",
			&st);
	if (rc)
		goto out;
	sq_blob(st, 1, ek_pub, len);
	sq_text(st, 2, except);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(id, idlen, "%s",
			 (const char *)sqlite3_column_text(st, 0));
		rc = ATT_OK;
	} else {
		rc = rc == SQLITE_DONE ? ATT_E_NOT_FOUND
				       : sq_fail(q, "agent by EK");
	}
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}

int sq_agent_delete(struct att_store *s, const char *id)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_exec(q, "BEGIN IMMEDIATE");
	if (rc)
		goto out;
	rc = sq_prepare(q, "DELETE FROM agents WHERE id = ?1", &st);
	if (rc)
		goto fail;
	sq_text(st, 1, id);
	rc = sq_step_done(q, st);
	sq_finish(q, st);
	if (!rc && sqlite3_changes(q->db) == 0)
		rc = ATT_E_NOT_FOUND;
	if (rc)
		goto fail;
	rc = sq_prepare(q, "DELETE FROM history WHERE agent = ?1", &st);
	if (rc)
		goto fail;
	sq_text(st, 1, id);
	rc = sq_step_done(q, st);
	sq_finish(q, st);
	if (!rc) {
		rc = sq_prepare(q, "DELETE FROM nonces WHERE agent = ?1", &st);
		if (!rc) {
			sq_text(st, 1, id);
			rc = sq_step_done(q, st);
			sq_finish(q, st);
		}
	}
	if (rc)
		goto fail;
	rc = sq_exec(q, "COMMIT");
	goto out;
fail:
	sq_exec(q, "ROLLBACK");
out:
	return sq_unlock(q, rc);
}

int sq_agent_list(struct att_store *s, int brief, att_store_agent_fn fn,
		  void *arg)
{
	struct sq_store *q = sq(s);
	struct att_agent_rec a;
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(
		q,
		brief ? "SELECT " SQ_AGENT_COLS_BRIEF " FROM agents ORDER BY id"
		      : "SELECT " SQ_AGENT_COLS " FROM agents ORDER BY id",
		&st);
	if (rc)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = sq_read_agent(st, &a);
		if (rc)
			break;
		rc = fn(&a, arg);
		att_agent_rec_release(&a);
		if (rc)
			break;
	}
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = sq_fail(q, "agent list");
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}

/*
 * The store's lock is held. The row, then the agent's rows older than its
 * newest att_store_history_keep() (found through history_agent, so a few
 * index pages; a failed prune leaves the row and is returned).
 */
static int sq_history_add_locked(struct sq_store *q, const char *id, int64_t at,
				 const char *state, const char *result_json)
{
	sqlite3_stmt *st;
	int rc;

	rc = sq_prepare(q,
			"INSERT INTO history (agent, at, state, result) "
			"VALUES (?1, ?2, ?3, ?4)",
			&st);
	if (rc)
		return rc;
	sq_text(st, 1, id);
	sqlite3_bind_int64(st, 2, at);
	sq_text(st, 3, state);
	sq_text(st, 4, result_json);
	rc = sq_step_done(q, st);
	sq_finish(q, st);
	if (rc)
		return rc;
	rc = sq_prepare(q,
			"DELETE FROM history WHERE agent = ?1 AND seq < "
			"(SELECT seq FROM history WHERE agent = ?1 ORDER BY "
			"seq DESC LIMIT 1 OFFSET ?2)",
			&st);
	if (rc)
		return rc;
	sq_text(st, 1, id);
	sqlite3_bind_int64(st, 2,
			   (int64_t)att_store_history_keep(&q->base) - 1);
	rc = sq_step_done(q, st);
	sq_finish(q, st);
	return rc;
}

int sq_history_add(struct att_store *s, const char *id, int64_t at,
		   const char *state, const char *result_json)
{
	struct sq_store *q = sq(s);
	int rc;

	sq_lock(q);
	rc = sq_exec(q, "BEGIN IMMEDIATE");
	if (rc)
		return sq_unlock(q, rc);
	rc = sq_history_add_locked(q, id, at, state, result_json);
	if (sq_exec(q, rc ? "ROLLBACK" : "COMMIT") && !rc) {
		sq_exec(q, "ROLLBACK");
		rc = ATT_E_DB;
	}
	return sq_unlock(q, rc);
}

static int sq_nonce_put_locked(struct sq_store *q, const char *nonce_hex,
			       const char *agent_id, int64_t expires,
			       const char *request_json)
{
	sqlite3_stmt *st;
	int rc;

	rc = sq_prepare(q,
			"INSERT INTO nonces (nonce, agent, expires, request) "
			"VALUES (?1, ?2, ?3, ?4)",
			&st);
	if (!rc) {
		sq_text(st, 1, nonce_hex);
		sq_text(st, 2, agent_id);
		sqlite3_bind_int64(st, 3, expires);
		sq_text(st, 4, request_json);
		rc = sq_step_done(q, st);
		sq_finish(q, st);
	}
	return rc;
}

/*
 * After an attestation: the agent row, its history row and the next
 * challenge's nonce in one transaction, so one commit and one WAL sync.
 * A failed history insert or prune or nonce insert (each one statement,
 * rolled back alone) does not undo the agent's new state.
 */
int sq_agent_update_hist(struct att_store *s, struct att_agent_rec *a,
			 int64_t at, int history,
			 const struct att_store_nonce *next, int *hist_rc,
			 int *next_rc)
{
	struct sq_store *q = sq(s);
	int rc;

	*hist_rc = ATT_E_STATE;
	*next_rc = ATT_E_STATE;
	sq_lock(q);
	rc = sq_exec(q, "BEGIN IMMEDIATE");
	if (rc)
		goto out;
	rc = sq_agent_update_locked(q, a);
	if (rc) {
		sq_exec(q, "ROLLBACK");
		goto out;
	}
	if (history)
		*hist_rc = sq_history_add_locked(q, a->id, at,
						 att_agent_state_name(a->state),
						 a->last_result);
	if (next)
		*next_rc =
			sq_nonce_put_locked(q, next->nonce_hex, a->id,
					    next->expires, next->request_json);
	if (sq_exec(q, "COMMIT")) {
		sq_exec(q, "ROLLBACK");
		a->rev--; /* nothing was written */
		*hist_rc = ATT_E_STATE;
		*next_rc = ATT_E_STATE;
		rc = ATT_E_DB;
	}
out:
	return sq_unlock(q, rc);
}

int sq_history_list(struct att_store *s, const char *id, int limit,
		    att_store_hist_fn fn, void *arg)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(q,
			"SELECT at, state, result FROM history WHERE agent = "
			"?1 ORDER BY seq DESC LIMIT ?2",
			&st);
	if (rc)
		goto out;
	sq_text(st, 1, id);
	sqlite3_bind_int(st, 2, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = fn(sqlite3_column_int64(st, 0),
			(const char *)sqlite3_column_text(st, 1),
			(const char *)sqlite3_column_text(st, 2), arg);
		if (rc)
			break;
	}
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = sq_fail(q, "history list");
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}

int sq_nonce_put(struct att_store *s, const char *nonce_hex,
		 const char *agent_id, int64_t expires,
		 const char *request_json)
{
	struct sq_store *q = sq(s);
	int rc;

	sq_lock(q);
	rc = sq_nonce_put_locked(q, nonce_hex, agent_id, expires, request_json);
	sq_unlock_unsynced(q);
	return rc;
}

int sq_nonce_take(struct att_store *s, const char *nonce_hex,
		  const char *agent_id, int64_t now, char **req)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	/*
	 * One statement: deleting is what makes the nonce single use, and
	 * only the agent it was issued to may spend it.
	 */
	rc = sq_prepare(q,
			"DELETE FROM nonces WHERE nonce = ?1 AND agent = ?2 "
			"RETURNING expires, request",
			&st);
	if (rc)
		goto out;
	sq_text(st, 1, nonce_hex);
	sq_text(st, 2, agent_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 0) < now)
			rc = ATT_E_TIMEOUT;
		else
			rc = req ? sq_dup_text(st, 1, req) : 0;
		if (sqlite3_step(st) != SQLITE_DONE && !rc)
			rc = sq_fail(q, "nonce take");
	} else if (rc == SQLITE_DONE) {
		rc = ATT_E_NOT_FOUND;
	} else {
		rc = sq_fail(q, "nonce take");
	}
	sq_finish(q, st);
	if (rc != ATT_E_NOT_FOUND)
		goto out;
	/* Someone else's nonce: refused, and left for its agent. */
	rc = sq_prepare(q, "SELECT 1 FROM nonces WHERE nonce = ?1", &st);
	if (rc)
		goto out;
	sq_text(st, 1, nonce_hex);
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW	 ? ATT_E_AUTH
	     : rc == SQLITE_DONE ? ATT_E_NOT_FOUND
				 : sq_fail(q, "nonce owner");
	sq_finish(q, st);
out:
	sq_unlock_unsynced(q);
	return rc;
}

static int sq_delete_before(struct att_store *s, const char *sql, int64_t now)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(q, sql, &st);
	if (!rc) {
		sqlite3_bind_int64(st, 1, now);
		rc = sq_step_done(q, st);
		sq_finish(q, st);
	}
	return sq_unlock(q, rc);
}

int sq_nonce_gc(struct att_store *s, int64_t now)
{
	return sq_delete_before(s, "DELETE FROM nonces WHERE expires < ?1",
				now);
}

int sq_token_put(struct att_store *s, const char *hash_hex, int64_t expires)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(q, "INSERT INTO tokens (hash, expires) VALUES (?1, ?2)",
			&st);
	if (!rc) {
		sq_text(st, 1, hash_hex);
		sqlite3_bind_int64(st, 2, expires);
		rc = sq_step_done(q, st);
		sq_finish(q, st);
	}
	return sq_unlock(q, rc);
}

int sq_token_take(struct att_store *s, const char *hash_hex, int64_t now)
{
	struct sq_store *q = sq(s);
	sqlite3_stmt *st;
	int rc;

	sq_lock(q);
	rc = sq_prepare(q,
			"DELETE FROM tokens WHERE hash = ?1 RETURNING "
			"expires",
			&st);
	if (rc)
		goto out;
	sq_text(st, 1, hash_hex);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		rc = sqlite3_column_int64(st, 0) < now ? ATT_E_TIMEOUT : 0;
		if (sqlite3_step(st) != SQLITE_DONE && !rc)
			rc = sq_fail(q, "token take");
	} else if (rc == SQLITE_DONE) {
		rc = ATT_E_NOT_FOUND;
	} else {
		rc = sq_fail(q, "token take");
	}
	sq_finish(q, st);
out:
	return sq_unlock(q, rc);
}
