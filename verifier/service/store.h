/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store.h - the verifier's storage, behind one interface.
 *
 * Backends: SQLite ("sqlite:PATH" or a plain path; WAL, one connection
 * serialised by a mutex) and PostgreSQL ("postgresql://..." / "postgres://";
 * libpq, a connection pool: store_pg.c). Every statement is prepared with bound
 * parameters; the schema is created and upgraded by numbered migrations
 * recorded in a `schema_version` table.
 *
 * Agents carry a revision number: att_store_agent_update() writes only when
 * the stored revision is still the one that was read (optimistic
 * concurrency, so several verifier processes can share one database), and
 * returns ATT_E_STATE when another writer got there first.
 *
 * All functions return 0 or a negative ATT_E_* (ATT_E_DB when the database
 * failed; the message is logged).
 */
#ifndef ATTEST_VERIFIER_STORE_H
#define ATTEST_VERIFIER_STORE_H

#include <stddef.h>
#include <stdint.h>

#define ATT_STORE_NAME_MAX 128
#define ATT_STORE_ID_MAX   64

struct att_store;

/* The schema version this build creates and expects. */
#define ATT_STORE_SCHEMA_VERSION 6
#define ATT_STORE_CLONE_MAX	 255

int att_store_open(const char *url, struct att_store **out);
void att_store_free(struct att_store *s);
/* "sqlite" or "postgresql". */
const char *att_store_backend(const struct att_store *s);
int att_store_schema_version(struct att_store *s, int *version);
/* A cheap round trip to the database (for /healthz). */
int att_store_ping(struct att_store *s);

/* --- whitelists: every update is a new version; versions start at 1 --- */
struct att_store_wl {
	char name[ATT_STORE_NAME_MAX + 1];
	int64_t version;
	int64_t created; /* unix seconds */
	char *body;	 /* the document as submitted, NUL-terminated */
	size_t body_len;
};

void att_store_wl_release(struct att_store_wl *w);
/*
 * Stores body as the next version of name; *version gets its number.
 * expect: -1 any; 0 the name must be new (else ATT_E_EXISTS); N > 0 the
 * newest version must still be N (else ATT_E_STATE). Atomic.
 */
int att_store_wl_put(struct att_store *s, const char *name, const char *body,
		     size_t len, int64_t expect, int64_t *version);
/* version 0: the newest. ATT_E_NOT_FOUND if there is none. */
int att_store_wl_get(struct att_store *s, const char *name, int64_t version,
		     struct att_store_wl *out);
/* The newest version number of name. ATT_E_NOT_FOUND if none. */
int att_store_wl_latest(struct att_store *s, const char *name,
			int64_t *version);
/* Newest version of every whitelist, by name (body is NULL). */
typedef int (*att_store_wl_fn)(const struct att_store_wl *w, void *arg);
int att_store_wl_list(struct att_store *s, att_store_wl_fn fn, void *arg);
/* Deletes every version. ATT_E_STATE while an agent is assigned to it. */
int att_store_wl_delete(struct att_store *s, const char *name);

/* --- agents --- */

/*
 * An agent's stored state: the one list of them (their names are the
 * database's, the API's, the webhook's and /metrics' labels). Only
 * TRUSTED and UNTRUSTED come from a verdict; STALE from the sweep.
 */
enum att_agent_state {
	ATT_AGENT_NONE = 0,   /* not set: a record being built ("") */
	ATT_AGENT_ENROLLING,  /* enrollment started, credential pending */
	ATT_AGENT_REGISTERED, /* enrolled, not attested yet */
	ATT_AGENT_TRUSTED,
	ATT_AGENT_UNTRUSTED,
	ATT_AGENT_STALE, /* attested, then silent for two intervals */
	ATT_AGENT_STATE_COUNT
};

/* "enrolling", "registered", ...; "" for NONE and out of range. */
const char *att_agent_state_name(enum att_agent_state s);
/* The state named s; ATT_E_FORMAT when s names none. */
int att_agent_state_parse(const char *s, enum att_agent_state *out);

struct att_agent_rec {
	char id[ATT_STORE_ID_MAX + 1];
	int64_t rev; /* bumped by every update */
	enum att_agent_state state;
	uint8_t *ek_pub; /* TPM2B_PUBLIC bytes */
	size_t ek_pub_len;
	uint8_t *ak_pub; /* TPM2B_PUBLIC bytes, set once enrolled */
	size_t ak_pub_len;
	uint8_t *secret; /* pending credential secret (enrolling) */
	size_t secret_len;
	char wl_name[ATT_STORE_NAME_MAX + 1]; /* "" when none */
	int64_t wl_version;		      /* 0: follow the newest */
	int64_t reset_count;		      /* -1: never quoted */
	int64_t restart_count;
	int64_t tpm_clock; /* clockInfo.clock of the last good quote */
	int64_t clock_at;  /* wall time (s) tpm_clock was accepted; 0: none */
	/*
	 * Why this agent's TPM is suspected to be a clone ("": it is not).
	 * Sticky: only an administrator clears it.
	 */
	char clone[ATT_STORE_CLONE_MAX + 1];
	int64_t boot_count;
	int64_t enrolled_at;
	int64_t last_attest; /* 0: never */
	uint8_t *replay;     /* att_replay_state_encode() bytes */
	size_t replay_len;
	char *last_result; /* JSON text, NULL when none */
	char cert_fpr[65]; /* SHA-256 hex of its client certificate */
};

void att_agent_rec_init(struct att_agent_rec *a);
void att_agent_rec_release(struct att_agent_rec *a);

int att_store_agent_get(struct att_store *s, const char *id,
			struct att_agent_rec *out);
/* ATT_E_EXISTS when the id is taken. Sets a->rev to 1. */
int att_store_agent_insert(struct att_store *s, struct att_agent_rec *a);
/*
 * Writes a if the stored revision equals a->rev, then a->rev += 1.
 * ATT_E_STATE: changed by someone else since it was read;
 * ATT_E_NOT_FOUND: deleted meanwhile.
 */
int att_store_agent_update(struct att_store *s, struct att_agent_rec *a);
int att_store_agent_delete(struct att_store *s, const char *id);
/*
 * The id of an agent other than `except` enrolled with this EK (the
 * TPM2B_PUBLIC bytes) into id; ATT_E_NOT_FOUND when there is none.
 */
int att_store_agent_by_ek(struct att_store *s, const uint8_t *ek_pub,
			  size_t len, const char *except, char *id,
			  size_t idlen);
typedef int (*att_store_agent_fn)(const struct att_agent_rec *a, void *arg);
/* Every agent, ordered by id (blobs and last_result included). */
int att_store_agent_list(struct att_store *s, att_store_agent_fn fn, void *arg);
/*
 * Every agent, ordered by id, without its blobs (keys, secret, replay
 * state) and last_result, which are NULL: for passes over the whole fleet
 * that need neither (the stale sweep, /metrics, the agent list): no
 * copies of them, made and freed for every agent while the store is held.
 */
int att_store_agent_list_brief(struct att_store *s, att_store_agent_fn fn,
			       void *arg);

/*
 * --- attestation history ---
 * Each insert also deletes the agent's rows older than its newest "keep"
 * (ATT_STORE_HISTORY_KEEP unless set).
 */
#define ATT_STORE_HISTORY_KEEP	   100
#define ATT_STORE_HISTORY_KEEP_MAX 1000000
/* Rows kept per agent, 2..ATT_STORE_HISTORY_KEEP_MAX; ATT_E_INVAL else. */
int att_store_set_history_keep(struct att_store *s, unsigned int keep);
unsigned int att_store_history_keep(const struct att_store *s);
int att_store_history_add(struct att_store *s, const char *id, int64_t at,
			  const char *state, const char *result_json);
/* A nonce to store for an agent (att_store_nonce_put's arguments). */
struct att_store_nonce {
	const char *nonce_hex;
	int64_t expires;
	const char *request_json;
};

/*
 * After an attestation: att_store_agent_update(a) and, when it wrote, a
 * history row (at, a->state, a->last_result) if history is not 0 and the
 * nonce next for a->id (the challenge going with the verdict) if next is
 * not NULL, in one transaction where the backend can (one commit, one
 * sync instead of three). Returns the update's result; *hist_rc and *next_rc
 * get the history and nonce inserts' (ATT_E_STATE when not tried). A failed
 * insert does not undo the agent's new state.
 */
int att_store_agent_update_hist(struct att_store *s, struct att_agent_rec *a,
				int64_t at, int history,
				const struct att_store_nonce *next,
				int *hist_rc, int *next_rc);
typedef int (*att_store_hist_fn)(int64_t at, const char *state,
				 const char *result_json, void *arg);
/* Newest first, at most limit rows. */
int att_store_history_list(struct att_store *s, const char *id, int limit,
			   att_store_hist_fn fn, void *arg);

/* --- nonces: single use, bound to an agent, with an expiry --- */
int att_store_nonce_put(struct att_store *s, const char *nonce_hex,
			const char *agent_id, int64_t expires,
			const char *request_json);
/*
 * Consumes a nonce atomically: only agent_id, the agent it was issued to,
 * can take it (it is gone afterwards, expired or not). ATT_E_NOT_FOUND:
 * unknown or already used; ATT_E_AUTH: issued to another agent, and left
 * for that agent; ATT_E_TIMEOUT: expired. request_json (optional) gets a
 * malloc'd copy of what was stored with it.
 */
int att_store_nonce_take(struct att_store *s, const char *nonce_hex,
			 const char *agent_id, int64_t now,
			 char **request_json);
/* Drops expired nonces. */
int att_store_nonce_gc(struct att_store *s, int64_t now);

/* --- enrollment tokens: single use --- */
int att_store_token_put(struct att_store *s, const char *token_hash_hex,
			int64_t expires);
/* ATT_E_NOT_FOUND / ATT_E_TIMEOUT; consumed on success. */
int att_store_token_take(struct att_store *s, const char *token_hash_hex,
			 int64_t now);

#endif
