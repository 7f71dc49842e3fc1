/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store_impl.h - what a storage backend implements (see store.h).
 */
#ifndef ATTEST_VERIFIER_STORE_IMPL_H
#define ATTEST_VERIFIER_STORE_IMPL_H

#include "store.h"

struct att_store_ops {
	const char *name;
	void (*free)(struct att_store *s);
	int (*schema_version)(struct att_store *s, int *v);
	int (*ping)(struct att_store *s);
	int (*wl_put)(struct att_store *s, const char *name, const char *body,
		      size_t len, int64_t expect, int64_t *version);
	int (*wl_get)(struct att_store *s, const char *name, int64_t version,
		      struct att_store_wl *out);
	int (*wl_latest)(struct att_store *s, const char *name,
			 int64_t *version);
	int (*wl_list)(struct att_store *s, att_store_wl_fn fn, void *arg);
	int (*wl_delete)(struct att_store *s, const char *name);
	int (*agent_get)(struct att_store *s, const char *id,
			 struct att_agent_rec *out);
	int (*agent_insert)(struct att_store *s, struct att_agent_rec *a);
	int (*agent_update)(struct att_store *s, struct att_agent_rec *a);
	int (*agent_delete)(struct att_store *s, const char *id);
	int (*agent_by_ek)(struct att_store *s, const uint8_t *ek_pub,
			   size_t len, const char *except, char *id,
			   size_t idlen);
	/* brief: the blobs and last_result left out (NULL). */
	int (*agent_list)(struct att_store *s, int brief, att_store_agent_fn fn,
			  void *arg);
	int (*history_add)(struct att_store *s, const char *id, int64_t at,
			   const char *state, const char *result_json);
	/* Optional: agent_update + history_add (+ nonce_put) in one
	 * transaction. */
	int (*agent_update_hist)(struct att_store *s, struct att_agent_rec *a,
				 int64_t at, int history,
				 const struct att_store_nonce *next,
				 int *hist_rc, int *next_rc);
	int (*history_list)(struct att_store *s, const char *id, int limit,
			    att_store_hist_fn fn, void *arg);
	int (*nonce_put)(struct att_store *s, const char *nonce_hex,
			 const char *agent_id, int64_t expires,
			 const char *request_json);
	int (*nonce_take)(struct att_store *s, const char *nonce_hex,
			  const char *agent_id, int64_t now, char **req);
	int (*nonce_gc)(struct att_store *s, int64_t now);
	int (*token_put)(struct att_store *s, const char *hash_hex,
			 int64_t expires);
	int (*token_take)(struct att_store *s, const char *hash_hex,
			  int64_t now);
};

struct att_store {
	const struct att_store_ops *ops;
	unsigned int history_keep; /* 0: ATT_STORE_HISTORY_KEEP */
};

/*
 * The state column of agent id as read from a backend; a name that is no
 * state is logged and answered ATT_E_DB (the row was written by something
 * else than this code).
 */
int att_store_state_read(const char *id, const char *name,
			 enum att_agent_state *out);

int att_store_sqlite_open(const char *path, struct att_store **out);
int att_store_pg_open(const char *url, struct att_store **out);

#endif
