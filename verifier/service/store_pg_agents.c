// SPDX-License-Identifier: Apache-2.0
/*
 * store_pg_agents.c - the PostgreSQL backend's agents (updated only at the
 * revision read), history, single-use nonces and tokens.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "attest/err.h"
#include "attest/log.h"
#include "store_pg.h"

static int read_agent(PGresult *r, int i, struct att_agent_rec *a)
{
	char state[24];
	int rc;

	att_agent_rec_init(a);
	col_copy(r, i, 0, a->id, sizeof(a->id));
	a->rev = col_int(r, i, 1);
	col_copy(r, i, 2, state, sizeof(state));
	rc = att_store_state_read(a->id, state, &a->state);
	if (!rc)
		rc = col_blob(r, i, 3, &a->ek_pub, &a->ek_pub_len);
	if (!rc)
		rc = col_blob(r, i, 4, &a->ak_pub, &a->ak_pub_len);
	if (!rc)
		rc = col_blob(r, i, 5, &a->secret, &a->secret_len);
	col_copy(r, i, 6, a->wl_name, sizeof(a->wl_name));
	a->wl_version = col_int(r, i, 7);
	a->reset_count = col_int(r, i, 8);
	a->restart_count = col_int(r, i, 9);
	a->boot_count = col_int(r, i, 10);
	a->enrolled_at = col_int(r, i, 11);
	a->last_attest = col_int(r, i, 12);
	if (!rc)
		rc = col_blob(r, i, 13, &a->replay, &a->replay_len);
	if (!rc)
		rc = col_dup(r, i, 14, &a->last_result);
	col_copy(r, i, 15, a->cert_fpr, sizeof(a->cert_fpr));
	a->tpm_clock = col_int(r, i, 16);
	a->clock_at = col_int(r, i, 17);
	col_copy(r, i, 18, a->clone, sizeof(a->clone));
	if (rc)
		att_agent_rec_release(a);
	return rc;
}

static void agent_params(struct pg_params *p, const struct att_agent_rec *a)
{
	pp_text(p, a->id);
	pp_int(p, a->rev);
	pp_text(p, att_agent_state_name(a->state));
	if (a->ek_pub)
		pp_blob(p, a->ek_pub, a->ek_pub_len);
	else
		pp_text(p, NULL);
	if (a->ak_pub)
		pp_blob(p, a->ak_pub, a->ak_pub_len);
	else
		pp_text(p, NULL);
	if (a->secret)
		pp_blob(p, a->secret, a->secret_len);
	else
		pp_text(p, NULL);
	pp_text(p, a->wl_name);
	pp_int(p, a->wl_version);
	pp_int(p, a->reset_count);
	pp_int(p, a->restart_count);
	pp_int(p, a->boot_count);
	pp_int(p, a->enrolled_at);
	pp_int(p, a->last_attest);
	if (a->replay)
		pp_blob(p, a->replay, a->replay_len);
	else
		pp_text(p, NULL);
	pp_text(p, a->last_result);
	pp_text(p, a->cert_fpr);
	pp_int(p, a->tpm_clock);
	pp_int(p, a->clock_at);
	pp_text(p, a->clone);
}

int pgs_agent_get(struct att_store *s, const char *id,
		  struct att_agent_rec *out)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, id);
	PG_LOCKED(q, {
		r = pg_run(q, PS_AGENT_GET, &p);
		rc = pg_check(q, r, "agent get");
		if (!rc && PQntuples(r) == 0)
			rc = ATT_E_NOT_FOUND;
		if (!rc)
			rc = read_agent(r, 0, out);
		PQclear(r);
	});
	return rc;
}

int pgs_agent_insert(struct att_store *s, struct att_agent_rec *a)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	agent_params(&p, a);
	p.v[1] = "1"; /* rev */
	PG_LOCKED(q, {
		r = pg_run(q, PS_AGENT_INSERT, &p);
		rc = pg_check(q, r, "agent insert");
		if (!rc && !strcmp(PQcmdTuples(r), "0"))
			rc = ATT_E_EXISTS;
		if (!rc)
			a->rev = 1;
		PQclear(r);
	});
	return rc;
}

int pgs_agent_update(struct att_store *s, struct att_agent_rec *a)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0}, p2 = {0};
	PGresult *r;
	int rc;

	agent_params(&p, a);
	pp_text(&p2, a->id);
	PG_LOCKED(q, {
		r = pg_run(q, PS_AGENT_UPDATE, &p);
		rc = pg_check(q, r, "agent update");
		if (!rc && !strcmp(PQcmdTuples(r), "1")) {
			a->rev++;
			PQclear(r);
		} else if (!rc) {
			PQclear(r);
			r = pg_run(q, PS_AGENT_REV, &p2);
			rc = pg_check(q, r, "agent update");
			if (!rc)
				rc = PQntuples(r) ? ATT_E_STATE
						  : ATT_E_NOT_FOUND;
			PQclear(r);
		} else {
			PQclear(r);
		}
	});
	return rc;
}

int pgs_agent_by_ek(struct att_store *s, const uint8_t *ek_pub, size_t len,
		    const char *except, char *id, size_t idlen)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_blob(&p, ek_pub, len);
	pp_text(&p, except);
	PG_LOCKED(q, {
		r = pg_run(q, PS_AGENT_BY_EK, &p);
		rc = pg_check(q, r, "agent by EK");
		if (!rc && !PQntuples(r))
			rc = ATT_E_NOT_FOUND;
		if (!rc)
			snprintf(id, idlen, "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
	});
	return rc;
}

int pgs_agent_delete(struct att_store *s, const char *id)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, id);
	PG_LOCKED(q, {
		rc = pg_exec(q, "BEGIN");
		if (!rc) {
			r = pg_run(q, PS_AGENT_DELETE, &p);
			rc = pg_check(q, r, "agent delete");
			if (!rc && !strcmp(PQcmdTuples(r), "0"))
				rc = ATT_E_NOT_FOUND;
			PQclear(r);
		}
		if (!rc) {
			r = pg_run(q, PS_HIST_DELETE, &p);
			rc = pg_check(q, r, "agent delete");
			PQclear(r);
		}
		if (!rc) {
			r = pg_run(q, PS_NONCE_DELETE_AGENT, &p);
			rc = pg_check(q, r, "agent delete");
			PQclear(r);
		}
		if (pg_exec(q, rc ? "ROLLBACK" : "COMMIT") && !rc)
			rc = ATT_E_DB;
	});
	return rc;
}

int pgs_agent_list(struct att_store *s, int brief, att_store_agent_fn fn,
		   void *arg)
{
	struct pg_store *q = pg(s);
	struct att_agent_rec a;
	PGresult *r;
	int rc, i;

	PG_LOCKED(q, {
		r = pg_run(q, brief ? PS_AGENT_LIST_BRIEF : PS_AGENT_LIST,
			   NULL);
		rc = pg_check(q, r, "agent list");
		for (i = 0; !rc && i < PQntuples(r); i++) {
			rc = read_agent(r, i, &a);
			if (!rc) {
				rc = fn(&a, arg);
				att_agent_rec_release(&a);
			}
		}
		PQclear(r);
	});
	return rc;
}

int pgs_history_add(struct att_store *s, const char *id, int64_t at,
		    const char *state, const char *result_json)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, id);
	pp_int(&p, at);
	pp_text(&p, state);
	pp_text(&p, result_json);
	pp_int(&p, (int64_t)att_store_history_keep(s) - 2);
	PG_LOCKED(q, {
		r = pg_run(q, PS_HIST_ADD, &p);
		rc = pg_check(q, r, "history add");
		PQclear(r);
	});
	return rc;
}

/*
 * One insert of the transaction, under a savepoint: its failure is
 * rolled back alone.
 */
static int pg_insert_saved(struct pg_store *q, const char *savepoint,
			   enum pg_stmt ps, const struct pg_params *p,
			   const char *what, int *insert_rc)
{
	char sql[64];
	PGresult *r;

	snprintf(sql, sizeof(sql), "SAVEPOINT %s", savepoint);
	if (pg_exec(q, sql))
		return ATT_E_DB;
	r = pg_run(q, ps, p);
	*insert_rc = pg_check(q, r, what);
	PQclear(r);
	if (!*insert_rc)
		return 0;
	snprintf(sql, sizeof(sql), "ROLLBACK TO SAVEPOINT %s", savepoint);
	return pg_exec(q, sql);
}

/*
 * After an attestation: the agent row, its history row and the next
 * challenge's nonce in one transaction, one commit (one WAL flush)
 * instead of three. A failed history or nonce insert is rolled back to
 * its savepoint and does not undo the agent's new state.
 */
int pgs_agent_update_hist(struct att_store *s, struct att_agent_rec *a,
			  int64_t at, int history,
			  const struct att_store_nonce *next, int *hist_rc,
			  int *next_rc)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0}, p2 = {0}, p3 = {0}, p4 = {0};
	PGresult *r;
	int rc;

	*hist_rc = ATT_E_STATE;
	*next_rc = ATT_E_STATE;
	agent_params(&p, a);
	pp_text(&p2, a->id);
	pp_text(&p3, a->id);
	pp_int(&p3, at);
	pp_text(&p3, att_agent_state_name(a->state));
	pp_text(&p3, a->last_result);
	pp_int(&p3, (int64_t)att_store_history_keep(s) - 2);
	if (next) {
		pp_text(&p4, next->nonce_hex);
		pp_text(&p4, a->id);
		pp_int(&p4, next->expires);
		pp_text(&p4, next->request_json);
	}
	PG_LOCKED(q, {
		rc = pg_exec(q, "BEGIN");
		if (!rc) {
			r = pg_run(q, PS_AGENT_UPDATE, &p);
			rc = pg_check(q, r, "agent update");
			if (!rc && strcmp(PQcmdTuples(r), "1")) {
				PQclear(r);
				r = pg_run(q, PS_AGENT_REV, &p2);
				rc = pg_check(q, r, "agent update");
				if (!rc)
					rc = PQntuples(r) ? ATT_E_STATE
							  : ATT_E_NOT_FOUND;
			}
			PQclear(r);
		}
		if (!rc && history)
			rc = pg_insert_saved(q, "hist", PS_HIST_ADD, &p3,
					     "history add", hist_rc);
		if (!rc && next)
			rc = pg_insert_saved(q, "next", PS_NONCE_PUT, &p4,
					     "nonce put", next_rc);
		if (pg_exec(q, rc ? "ROLLBACK" : "COMMIT") && !rc)
			rc = ATT_E_DB;
		if (!rc) {
			a->rev++;
		} else {
			if (!*hist_rc)
				*hist_rc = ATT_E_STATE;
			if (!*next_rc)
				*next_rc = ATT_E_STATE;
		}
	});
	return rc;
}

int pgs_history_list(struct att_store *s, const char *id, int limit,
		     att_store_hist_fn fn, void *arg)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc, i;

	pp_text(&p, id);
	pp_int(&p, limit);
	PG_LOCKED(q, {
		r = pg_run(q, PS_HIST_LIST, &p);
		rc = pg_check(q, r, "history list");
		for (i = 0; !rc && i < PQntuples(r); i++)
			rc = fn(col_int(r, i, 0), PQgetvalue(r, i, 1),
				PQgetisnull(r, i, 2) ? NULL
						     : PQgetvalue(r, i, 2),
				arg);
		PQclear(r);
	});
	return rc;
}

int pgs_nonce_put(struct att_store *s, const char *nonce_hex,
		  const char *agent_id, int64_t expires,
		  const char *request_json)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, nonce_hex);
	pp_text(&p, agent_id);
	pp_int(&p, expires);
	pp_text(&p, request_json);
	PG_LOCKED(q, {
		r = pg_run(q, PS_NONCE_PUT, &p);
		rc = pg_check(q, r, "nonce put");
		PQclear(r);
	});
	return rc;
}

int pgs_nonce_take(struct att_store *s, const char *nonce_hex,
		   const char *agent_id, int64_t now, char **req)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, nonce_hex);
	pp_text(&p, agent_id);
	PG_LOCKED(q, {
		/* Only the agent it was issued to may spend it. */
		r = pg_run(q, PS_NONCE_TAKE, &p);
		rc = pg_check(q, r, "nonce take");
		if (!rc && PQntuples(r) == 0) {
			PQclear(r);
			p.n = 1;
			r = pg_run(q, PS_NONCE_OWNED, &p);
			rc = pg_check(q, r, "nonce owner");
			if (!rc)
				rc = PQntuples(r) ? ATT_E_AUTH
						  : ATT_E_NOT_FOUND;
		} else if (!rc && col_int(r, 0, 1) < now) {
			rc = ATT_E_TIMEOUT;
		} else if (!rc && req) {
			rc = col_dup(r, 0, 2, req);
		}
		PQclear(r);
	});
	return rc;
}

int pgs_nonce_gc(struct att_store *s, int64_t now)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_int(&p, now);
	PG_LOCKED(q, {
		r = pg_run(q, PS_NONCE_GC, &p);
		rc = pg_check(q, r, "nonce gc");
		PQclear(r);
	});
	return rc;
}

int pgs_token_put(struct att_store *s, const char *hash_hex, int64_t expires)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, hash_hex);
	pp_int(&p, expires);
	PG_LOCKED(q, {
		r = pg_run(q, PS_TOKEN_PUT, &p);
		rc = pg_check(q, r, "token put");
		PQclear(r);
	});
	return rc;
}

int pgs_token_take(struct att_store *s, const char *hash_hex, int64_t now)
{
	struct pg_store *q = pg(s);
	struct pg_params p = {0};
	PGresult *r;
	int rc;

	pp_text(&p, hash_hex);
	PG_LOCKED(q, {
		r = pg_run(q, PS_TOKEN_TAKE, &p);
		rc = pg_check(q, r, "token take");
		if (!rc && PQntuples(r) == 0)
			rc = ATT_E_NOT_FOUND;
		else if (!rc && col_int(r, 0, 0) < now)
			rc = ATT_E_TIMEOUT;
		PQclear(r);
	});
	return rc;
}
