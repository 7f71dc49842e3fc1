// SPDX-License-Identifier: Apache-2.0
/*
 * routes.c - the route table: every method and path the verifier
 * answers, the role its caller needs and how large its body may be, and
 * its handler. server.c matches a request when its headers are in and
 * checks the role here, before a byte of the body is buffered (an
 * anonymous caller cannot make the verifier hold megabytes for it); the
 * handler runs once the body is in. To add a route: a line in routes[]
 * (and its handler, and schemas/openapi.yaml: tests/integration/
 * test_attacks.c checks that every route there needs its role).
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/err.h"
#include "service.h"
#include "store.h"

#define VER_MAX_SEGS 5

static int healthz(struct ver_req *rq, struct ver_resp *rs)
{
	struct json_object *o;
	int v = 0, rc;

	rc = att_store_schema_version(rq->ctx->store, &v);
	o = json_object_new_object();
	if (!o)
		return ver_error(rs, 500, "internal", "out of memory");
	json_object_object_add(
		o, "status", json_object_new_string(rc ? "unavailable" : "ok"));
	json_object_object_add(
		o, "storage",
		json_object_new_string(att_store_backend(rq->ctx->store)));
	json_object_object_add(o, "schema_version", json_object_new_int(v));
	ver_json_reply(rs, rc ? 503 : 200, o);
	json_object_put(o);
	return 0;
}

/* A path segment: 1-128 of [A-Za-z0-9._-], not "." or "..". */
static int seg_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > VER_ROUTE_SEG_MAX || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.'))
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return 0;
	}
	return 1;
}

static const struct ver_route routes[] = {
	{"GET", "/healthz", VER_ROLE_NONE, VER_BODY_ANON, healthz},
	{"GET", "/metrics", VER_ROLE_ADMIN, VER_BODY_ANON, ver_api_metrics},
	{"GET", "/dashboard", VER_ROLE_ADMIN, VER_BODY_ANON, ver_api_dashboard},
	{"GET", "/dashboard.js", VER_ROLE_ADMIN, VER_BODY_ANON,
	 ver_api_dashboard},
	{"GET", "/dashboard.css", VER_ROLE_ADMIN, VER_BODY_ANON,
	 ver_api_dashboard},
	{"GET", "/v1/whitelists", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_wl_list},
	{"POST", "/v1/whitelists", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_wl_create},
	{"GET", "/v1/whitelists/{name}", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_wl_get},
	{"PUT", "/v1/whitelists/{name}", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_wl_put},
	{"DELETE", "/v1/whitelists/{name}", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_wl_delete},
	{"GET", "/v1/agents", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_agent_list},
	{"GET", "/v1/agents/{id}", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_agent_get},
	{"DELETE", "/v1/agents/{id}", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_agent_delete},
	{"PUT", "/v1/agents/{id}/whitelist", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_agent_assign},
	{"DELETE", "/v1/agents/{id}/clone", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_agent_clone_clear},
	{"POST", "/v1/enrollment/tokens", VER_ROLE_ADMIN, VER_BODY_FULL,
	 ver_api_tokens},
	{"POST", "/v1/enroll", VER_ROLE_NONE, VER_BODY_ANON, ver_api_enroll},
	{"POST", "/v1/enroll/activate", VER_ROLE_NONE, VER_BODY_ANON,
	 ver_api_enroll_activate},
	{"POST", "/v1/attestation/challenge", VER_ROLE_AGENT, VER_BODY_FULL,
	 ver_api_challenge},
	{"POST", "/v1/attestation/evidence", VER_ROLE_AGENT, VER_BODY_FULL,
	 ver_api_evidence},
	{"GET", "/v1/fleet", VER_ROLE_ADMIN, VER_BODY_FULL, ver_api_fleet},
	{"POST", "/v1/check", VER_ROLE_ADMIN, VER_BODY_FULL, ver_api_check},
};

#define NROUTES (sizeof(routes) / sizeof(routes[0]))

/* A path cut into its segments (each checked by seg_ok). */
struct segs {
	const char *p[VER_MAX_SEGS];
	size_t len[VER_MAX_SEGS];
	unsigned int n;
	int ok; /* every segment valid, no empty one, at most VER_MAX_SEGS */
};

static void split(const char *path, struct segs *s)
{
	const char *e;

	memset(s, 0, sizeof(*s));
	if (*path != '/')
		return;
	path++;
	s->ok = 1;
	for (;;) {
		e = strchr(path, '/');
		if (!e)
			e = path + strlen(path);
		if (s->n == VER_MAX_SEGS) {
			s->ok = 0;
			return;
		}
		s->p[s->n] = path;
		s->len[s->n] = (size_t)(e - path);
		s->n++;
		if (!*e)
			return;
		path = e + 1;
	}
}

/* The area of a path: its first two segments under /v1, else its first. */
static unsigned int area(const struct segs *s)
{
	if (s->n >= 2 && s->len[0] == 2 && !memcmp(s->p[0], "v1", 2))
		return 2;
	return s->n ? 1 : 0;
}

/* Does url (cut into u) have route pattern r's path? The args to rq. */
static int path_match(const struct segs *u, const struct segs *r,
		      struct ver_req *rq)
{
	unsigned int i, k = 0;

	if (!u->ok || u->n != r->n)
		return 0;
	for (i = 0; i < r->n; i++) {
		if (!seg_ok(u->p[i], u->len[i]))
			return 0;
		if (r->p[i][0] == '{') {
			if (rq && k < VER_ROUTE_ARGS) {
				memcpy(rq->argbuf[k], u->p[i], u->len[i]);
				rq->argbuf[k][u->len[i]] = '\0';
				rq->arg[k] = rq->argbuf[k];
			}
			k++;
		} else if (u->len[i] != r->len[i] ||
			   memcmp(u->p[i], r->p[i], r->len[i])) {
			return 0;
		}
	}
	return 1;
}

static int same_area(const struct segs *u, const struct segs *r)
{
	unsigned int n = area(r), i;

	if (!n || area(u) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (u->len[i] != r->len[i] ||
		    memcmp(u->p[i], r->p[i], r->len[i]))
			return 0;
	return 1;
}

void ver_route_match(struct ver_req *rq)
{
	const struct ver_route *by_area = NULL;
	struct segs u, r;
	size_t i;

	rq->route = NULL;
	rq->path_known = 0;
	memset(rq->arg, 0, sizeof(rq->arg));
	split(rq->url, &u);
	for (i = 0; i < NROUTES && !rq->route; i++) {
		split(routes[i].path, &r);
		if (path_match(&u, &r, NULL)) {
			if (!rq->path_known) {
				rq->path_known = 1;
				by_area = &routes[i];
			}
			if (!strcmp(routes[i].method, rq->method)) {
				path_match(&u, &r, rq);
				rq->route = &routes[i];
				by_area = &routes[i];
			}
		} else if (!by_area && same_area(&u, &r)) {
			by_area = &routes[i];
		}
	}
	/* a path of no route: answered 404, with no room for a body */
	rq->role = by_area ? by_area->role : VER_ROLE_NONE;
	rq->body_class = by_area ? by_area->body : VER_BODY_ANON;
}

int ver_route_gate(const struct ver_req *rq, struct ver_resp *rs)
{
	enum ver_role role = rq->role;

	if (role == VER_ROLE_NONE || rq->peer.role == role)
		return 0;
	if (rq->peer.role == VER_ROLE_NONE)
		return ver_error(rs, 401, "unauthenticated",
				 role == VER_ROLE_ADMIN
					 ? "an admin client certificate is "
					   "required"
					 : "an agent client certificate is "
					   "required"),
		       ATT_E_AUTH;
	if (role == VER_ROLE_ADMIN)
		return ver_error(rs, 403, "forbidden",
				 "this endpoint needs the admin role"),
		       ATT_E_AUTH;
	return ver_error(rs, 403, "wrong_agent",
			 "this endpoint needs an agent certificate"),
	       ATT_E_AUTH;
}

/* 405: the methods the path has, "use GET or DELETE on /v1/agents/{id}". */
static int not_allowed(const struct ver_req *rq, struct ver_resp *rs)
{
	struct segs u, r;
	const char *path = NULL;
	char use[64] = "";
	size_t i, n = 0, len;

	split(rq->url, &u);
	for (i = 0; i < NROUTES; i++) {
		split(routes[i].path, &r);
		if (!path_match(&u, &r, NULL))
			continue;
		len = strlen(use);
		snprintf(use + len, sizeof(use) - len, "%s%s", n ? " or " : "",
			 routes[i].method);
		path = routes[i].path;
		n++;
	}
	return ver_error(rs, 405, "method_not_allowed", "use %s on %s", use,
			 path ? path : rq->url);
}

int ver_route(struct ver_req *rq, struct ver_resp *rs)
{
	if (rq->route)
		return rq->route->handler(rq, rs);
	if (rq->path_known)
		return not_allowed(rq, rs);
	return ver_error(rs, 404, "not_found", "no such endpoint");
}
