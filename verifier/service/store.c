// SPDX-License-Identifier: Apache-2.0
/*
 * store.c - backend selection and the parts every backend shares.
 */
#include <stdlib.h>
#include <string.h>

#include "attest/err.h"
#include "attest/log.h"
#include "store_impl.h"

int att_store_open(const char *url, struct att_store **out)
{
	*out = NULL;
	if (!url || !*url)
		return ATT_E_INVAL;
	if (!strncmp(url, "postgresql://", 13) ||
	    !strncmp(url, "postgres://", 11))
		return att_store_pg_open(url, out);
	if (!strncmp(url, "sqlite:", 7))
		url += 7;
	if (!*url)
		return ATT_E_INVAL;
	return att_store_sqlite_open(url, out);
}

void att_store_free(struct att_store *s)
{
	if (s)
		s->ops->free(s);
}

const char *att_store_backend(const struct att_store *s)
{
	return s->ops->name;
}

int att_store_set_history_keep(struct att_store *s, unsigned int keep)
{
	/*
	 * PostgreSQL prunes in the statement that inserts, whose snapshot
	 * does not see the new row: it keeps keep - 2 older ones, so 2 is
	 * the least that means "the new row and the one before it".
	 */
	if (keep < 2 || keep > ATT_STORE_HISTORY_KEEP_MAX)
		return ATT_E_INVAL;
	s->history_keep = keep;
	return 0;
}

unsigned int att_store_history_keep(const struct att_store *s)
{
	return s->history_keep ? s->history_keep : ATT_STORE_HISTORY_KEEP;
}

int att_store_schema_version(struct att_store *s, int *v)
{
	return s->ops->schema_version(s, v);
}

int att_store_ping(struct att_store *s)
{
	return s->ops->ping(s);
}

void att_store_wl_release(struct att_store_wl *w)
{
	if (!w)
		return;
	free(w->body);
	w->body = NULL;
	w->body_len = 0;
}

static int name_ok(const char *n, size_t max)
{
	size_t l;

	if (!n)
		return 0;
	l = strlen(n);
	return l > 0 && l <= max;
}

int att_store_wl_put(struct att_store *s, const char *name, const char *body,
		     size_t len, int64_t expect, int64_t *version)
{
	if (!name_ok(name, ATT_STORE_NAME_MAX) || !body || expect < -1)
		return ATT_E_INVAL;
	return s->ops->wl_put(s, name, body, len, expect, version);
}

int att_store_wl_get(struct att_store *s, const char *name, int64_t version,
		     struct att_store_wl *out)
{
	memset(out, 0, sizeof(*out));
	if (!name_ok(name, ATT_STORE_NAME_MAX) || version < 0)
		return ATT_E_INVAL;
	return s->ops->wl_get(s, name, version, out);
}

int att_store_wl_latest(struct att_store *s, const char *name, int64_t *version)
{
	if (!name_ok(name, ATT_STORE_NAME_MAX))
		return ATT_E_INVAL;
	return s->ops->wl_latest(s, name, version);
}

int att_store_wl_list(struct att_store *s, att_store_wl_fn fn, void *arg)
{
	return s->ops->wl_list(s, fn, arg);
}

int att_store_wl_delete(struct att_store *s, const char *name)
{
	if (!name_ok(name, ATT_STORE_NAME_MAX))
		return ATT_E_INVAL;
	return s->ops->wl_delete(s, name);
}

int att_store_state_read(const char *id, const char *name,
			 enum att_agent_state *out)
{
	if (!att_agent_state_parse(name, out))
		return 0;
	att_err("store: agent %s: stored state '%.24s' is not a state", id,
		name);
	return ATT_E_DB;
}

void att_agent_rec_init(struct att_agent_rec *a)
{
	memset(a, 0, sizeof(*a));
	a->reset_count = -1;
	a->restart_count = -1;
}

void att_agent_rec_release(struct att_agent_rec *a)
{
	if (!a)
		return;
	free(a->ek_pub);
	free(a->ak_pub);
	if (a->secret) {
		memset(a->secret, 0, a->secret_len);
		free(a->secret);
	}
	free(a->replay);
	free(a->last_result);
	att_agent_rec_init(a);
}

int att_store_agent_get(struct att_store *s, const char *id,
			struct att_agent_rec *out)
{
	att_agent_rec_init(out);
	if (!name_ok(id, ATT_STORE_ID_MAX))
		return ATT_E_INVAL;
	return s->ops->agent_get(s, id, out);
}

int att_store_agent_insert(struct att_store *s, struct att_agent_rec *a)
{
	if (!name_ok(a->id, ATT_STORE_ID_MAX))
		return ATT_E_INVAL;
	return s->ops->agent_insert(s, a);
}

int att_store_agent_update(struct att_store *s, struct att_agent_rec *a)
{
	if (!name_ok(a->id, ATT_STORE_ID_MAX))
		return ATT_E_INVAL;
	return s->ops->agent_update(s, a);
}

int att_store_agent_by_ek(struct att_store *s, const uint8_t *ek_pub,
			  size_t len, const char *except, char *id,
			  size_t idlen)
{
	if (!s || !ek_pub || !len || !except || !id || !idlen)
		return ATT_E_INVAL;
	return s->ops->agent_by_ek(s, ek_pub, len, except, id, idlen);
}

int att_store_agent_delete(struct att_store *s, const char *id)
{
	if (!name_ok(id, ATT_STORE_ID_MAX))
		return ATT_E_INVAL;
	return s->ops->agent_delete(s, id);
}

int att_store_agent_list(struct att_store *s, att_store_agent_fn fn, void *arg)
{
	return s->ops->agent_list(s, 0, fn, arg);
}

int att_store_agent_list_brief(struct att_store *s, att_store_agent_fn fn,
			       void *arg)
{
	return s->ops->agent_list(s, 1, fn, arg);
}

int att_store_history_add(struct att_store *s, const char *id, int64_t at,
			  const char *state, const char *result_json)
{
	if (!name_ok(id, ATT_STORE_ID_MAX) || !state)
		return ATT_E_INVAL;
	return s->ops->history_add(s, id, at, state, result_json);
}

int att_store_agent_update_hist(struct att_store *s, struct att_agent_rec *a,
				int64_t at, int history,
				const struct att_store_nonce *next,
				int *hist_rc, int *next_rc)
{
	int rc;

	*hist_rc = ATT_E_STATE;
	*next_rc = ATT_E_STATE;
	if (!name_ok(a->id, ATT_STORE_ID_MAX) || a->state == ATT_AGENT_NONE ||
	    (next && !name_ok(next->nonce_hex, 256)))
		return ATT_E_INVAL;
	if (s->ops->agent_update_hist)
		return s->ops->agent_update_hist(s, a, at, history, next,
						 hist_rc, next_rc);
	rc = s->ops->agent_update(s, a);
	if (!rc && history)
		*hist_rc = s->ops->history_add(s, a->id, at,
					       att_agent_state_name(a->state),
					       a->last_result);
	if (!rc && next)
		*next_rc = s->ops->nonce_put(s, next->nonce_hex, a->id,
					     next->expires, next->request_json);
	return rc;
}

int att_store_history_list(struct att_store *s, const char *id, int limit,
			   att_store_hist_fn fn, void *arg)
{
	if (!name_ok(id, ATT_STORE_ID_MAX) || limit <= 0)
		return ATT_E_INVAL;
	return s->ops->history_list(s, id, limit, fn, arg);
}

int att_store_nonce_put(struct att_store *s, const char *nonce_hex,
			const char *agent_id, int64_t expires,
			const char *request_json)
{
	if (!name_ok(nonce_hex, 256) || !name_ok(agent_id, ATT_STORE_ID_MAX))
		return ATT_E_INVAL;
	return s->ops->nonce_put(s, nonce_hex, agent_id, expires, request_json);
}

int att_store_nonce_take(struct att_store *s, const char *nonce_hex,
			 const char *agent_id, int64_t now, char **request_json)
{
	if (request_json)
		*request_json = NULL;
	if (!name_ok(nonce_hex, 256) || !name_ok(agent_id, ATT_STORE_ID_MAX))
		return ATT_E_INVAL;
	return s->ops->nonce_take(s, nonce_hex, agent_id, now, request_json);
}

int att_store_nonce_gc(struct att_store *s, int64_t now)
{
	return s->ops->nonce_gc(s, now);
}

int att_store_token_put(struct att_store *s, const char *hash_hex,
			int64_t expires)
{
	if (!name_ok(hash_hex, 128))
		return ATT_E_INVAL;
	return s->ops->token_put(s, hash_hex, expires);
}

int att_store_token_take(struct att_store *s, const char *hash_hex, int64_t now)
{
	if (!name_ok(hash_hex, 128))
		return ATT_E_INVAL;
	return s->ops->token_take(s, hash_hex, now);
}
