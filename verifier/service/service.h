/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service.h - the verifier's shared state and the request/response types
 * the route handlers work with.
 */
#ifndef ATTEST_VERIFIER_SERVICE_H
#define ATTEST_VERIFIER_SERVICE_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "attest/buf.h"
#include "auth.h"
#include "config.h"
#include "store.h"

struct json_object;
struct ver_metrics;
struct ver_wlcache;
struct ver_akcache;

struct att_ek_ca;
struct ver_ca;
struct ver_webhook;
struct att_pcrs;

struct ver_ctx {
	const struct ver_config *cfg;
	struct att_store *store;
	struct ver_auth *auth;
	struct ver_metrics *metrics;
	struct ver_wlcache *wlc;
	struct ver_akcache *akc;      /* NULL: AKs parsed every round */
	struct att_ek_ca *ek_ca;      /* NULL: enrollment not configured */
	struct ver_ca *agent_ca;      /* NULL: enrollment not configured */
	struct ver_webhook *webhook;  /* NULL: none configured */
	struct att_pcrs *static_pcrs; /* NULL: none configured */
	atomic_int_least64_t nonce_gc_next; /* time of the next nonce GC */
};

struct ver_resp;
struct ver_req;

/*
 * How large a route's body may be: checked, with the caller's role,
 * before the body is read.
 */
enum ver_body_class {
	VER_BODY_ANON, /* max_anon_body: enrollment, unknown paths */
	VER_BODY_FULL, /* max_body */
};

/* A handler: answers rq in rs (ver_error and friends); returns 0. */
typedef int (*ver_handler_fn)(struct ver_req *rq, struct ver_resp *rs);

/*
 * One route of routes.c's table. path: literal segments and "{name}"
 * ones (one segment of [A-Za-z0-9._-], given to the handler in
 * rq->arg[], in order); the spelling of schemas/openapi.yaml. role:
 * VER_ROLE_NONE lets anyone in (the handler checks the rest, such as
 * which agent).
 */
struct ver_route {
	const char *method;
	const char *path;
	enum ver_role role;
	enum ver_body_class body;
	ver_handler_fn handler;
};

#define VER_ROUTE_ARGS	  2
#define VER_ROUTE_SEG_MAX 128
#define VER_QUERY_MAX	  16

/* A query argument: value NULL when the key came without "=". */
struct ver_query_arg {
	const char *key, *value;
};

/*
 * A request as the handlers see it: no HTTP library in it. server.c (or
 * a test) fills ctx, method, url, query, peer and, after
 * ver_route_match, the body.
 */
struct ver_req {
	struct ver_ctx *ctx;
	const char *method;
	const char *url; /* the path, without the query string */
	struct ver_query_arg query[VER_QUERY_MAX]; /* the first ones */
	unsigned int nquery;
	struct att_buf body;
	int too_big;	 /* the body went past its route's cap */
	int over_budget; /* no room for it in max_body_inflight */
	struct ver_peer peer;
	/* set by ver_route_match */
	const struct ver_route *route; /* NULL: 404 or 405 */
	int path_known;		       /* 405 rather than 404 */
	enum ver_role role;	       /* of the route, or of its area */
	enum ver_body_class body_class;
	const char *arg[VER_ROUTE_ARGS]; /* the "{name}" segments */
	char argbuf[VER_ROUTE_ARGS][VER_ROUTE_SEG_MAX + 1];
};

/*
 * Finds rq's route by method and url, with its role and body class (a
 * path of no route gets the role of the routes of its area, "/v1/NAME"
 * or its first segment, so that probing unknown paths of an admin area
 * needs the admin role too). Called once the headers are in.
 */
void ver_route_match(struct ver_req *rq);
/*
 * The role check, before any body is read: 0 when the caller may go on,
 * else the 401/403 in rs.
 */
int ver_route_gate(const struct ver_req *rq, struct ver_resp *rs);
/* After the body: the route's handler, or 404/405. */
int ver_route(struct ver_req *rq, struct ver_resp *rs);

struct ver_resp {
	unsigned int status;
	struct att_buf body;
	const char *ctype; /* default application/json */
	/* more headers: name, value, ..., NULL (static), or NULL */
	const char *const *headers;
};

/* Nesting cap for request bodies (whitelists have their own). */
#define VER_JSON_DEPTH 16

/* {"code": code, "message": ...} with the given status; returns 0. */
int ver_error(struct ver_resp *rs, unsigned int status, const char *code,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Serialises obj (not consumed) as the body. */
int ver_json_reply(struct ver_resp *rs, unsigned int status,
		   struct json_object *obj);
/*
 * Parses the request body strictly (att_json_parse) and checks that it is
 * an object; on failure answers 400 and returns nonzero.
 */
int ver_parse_body(struct ver_req *rq, struct ver_resp *rs,
		   struct json_object **out);
/* ATT_E_* from the store to an HTTP answer (404, 409, 503, ...). */
int ver_store_error(struct ver_resp *rs, int err, const char *what);

/* Object field helpers: answer 400 naming the field when wrong. */
int ver_field_str(struct ver_resp *rs, struct json_object *o, const char *name,
		  int required, const char **out);
int ver_field_int(struct ver_resp *rs, struct json_object *o, const char *name,
		  int required, int64_t min, int64_t max, int64_t *out);
/* A base64 string field decoded into a malloc'd buffer of at most max. */
int ver_field_b64(struct ver_resp *rs, struct json_object *o, const char *name,
		  int required, size_t max, uint8_t **out, size_t *len);
/* Adds name: base64(p, n) to o. */
int ver_add_b64(struct json_object *o, const char *name, const uint8_t *p,
		size_t n);
/* Refuses fields not in the NULL-terminated list. */
int ver_fields_only(struct ver_resp *rs, struct json_object *o,
		    const char *const *allowed);

/* A query argument of the request, NULL when absent. */
const char *ver_query(struct ver_req *rq, const char *key);
/* 200 {"deleted": what}. */
int ver_deleted(struct ver_resp *rs, const char *what);

/*
 * Handlers, by file; routes.c's table says which method and path each
 * answers, and the role its caller has by the time it runs.
 */
int ver_api_wl_list(struct ver_req *rq, struct ver_resp *rs);
int ver_api_wl_create(struct ver_req *rq, struct ver_resp *rs);
int ver_api_wl_get(struct ver_req *rq, struct ver_resp *rs);
int ver_api_wl_put(struct ver_req *rq, struct ver_resp *rs);
int ver_api_wl_delete(struct ver_req *rq, struct ver_resp *rs);
int ver_api_agent_list(struct ver_req *rq, struct ver_resp *rs);
int ver_api_agent_get(struct ver_req *rq, struct ver_resp *rs);
int ver_api_agent_delete(struct ver_req *rq, struct ver_resp *rs);
int ver_api_agent_assign(struct ver_req *rq, struct ver_resp *rs);
int ver_api_agent_clone_clear(struct ver_req *rq, struct ver_resp *rs);
int ver_api_metrics(struct ver_req *rq, struct ver_resp *rs);
int ver_api_enroll(struct ver_req *rq, struct ver_resp *rs);
int ver_api_enroll_activate(struct ver_req *rq, struct ver_resp *rs);
int ver_api_tokens(struct ver_req *rq, struct ver_resp *rs);
int ver_api_challenge(struct ver_req *rq, struct ver_resp *rs);
int ver_api_evidence(struct ver_req *rq, struct ver_resp *rs);
int ver_api_fleet(struct ver_req *rq, struct ver_resp *rs);
int ver_api_check(struct ver_req *rq, struct ver_resp *rs);
/* /dashboard, /dashboard.js, /dashboard.css: the asset of rq->url. */
int ver_api_dashboard(struct ver_req *rq, struct ver_resp *rs);
/*
 * Requires agent id's own current certificate; loads its record into a
 * (released by the caller). Answers 401/403 and returns nonzero if not.
 */
int ver_require_agent(struct ver_req *rq, struct ver_resp *rs, const char *id,
		      struct att_agent_rec *a);
/* The state to report: stale when an attested agent missed 2 intervals. */
enum att_agent_state ver_effective_state(const struct ver_ctx *c,
					 const struct att_agent_rec *a,
					 int64_t now);

#endif
