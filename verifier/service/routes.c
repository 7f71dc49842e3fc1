// SPDX-License-Identifier: Apache-2.0
/*
 * routes.c - URL dispatch: /healthz, /metrics, the dashboard and
 * /v1/<collection>/...
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/err.h"
#include "service.h"
#include "store.h"

#define VER_MAX_SEGS 3
#define VER_SEG_MAX  128

static int healthz(struct ver_req *rq, struct ver_resp *rs)
{
	struct json_object *o;
	int v = 0, rc;

	if (strcmp(rq->method, "GET"))
		return ver_error(rs, 405, "method_not_allowed",
				 "use GET on /healthz");
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

	if (n == 0 || n > VER_SEG_MAX || (n == 1 && s[0] == '.') ||
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

/*
 * The gate of each path: checked in server.c when the request's headers
 * are in, before a byte of its body is buffered, so that an anonymous
 * caller cannot make the verifier hold megabytes for it.
 */
static const struct {
	const char *path; /* this path, or below it ("/" follows) */
	struct ver_gate gate;
} gates[] = {
	{"/healthz", {VER_ROLE_NONE, VER_BODY_ANON}},
	{"/metrics", {VER_ROLE_ADMIN, VER_BODY_ANON}},
	{"/dashboard", {VER_ROLE_ADMIN, VER_BODY_ANON}},
	{"/dashboard.js", {VER_ROLE_ADMIN, VER_BODY_ANON}},
	{"/dashboard.css", {VER_ROLE_ADMIN, VER_BODY_ANON}},
	{"/v1/enroll", {VER_ROLE_NONE, VER_BODY_ANON}},
	{"/v1/attestation", {VER_ROLE_AGENT, VER_BODY_FULL}},
	{"/v1/whitelists", {VER_ROLE_ADMIN, VER_BODY_FULL}},
	{"/v1/agents", {VER_ROLE_ADMIN, VER_BODY_FULL}},
	{"/v1/enrollment", {VER_ROLE_ADMIN, VER_BODY_FULL}},
	{"/v1/check", {VER_ROLE_ADMIN, VER_BODY_FULL}},
	{"/v1/fleet", {VER_ROLE_ADMIN, VER_BODY_FULL}},
};

void ver_route_gate(const char *url, struct ver_gate *g)
{
	size_t i, n;

	for (i = 0; i < sizeof(gates) / sizeof(gates[0]); i++) {
		n = strlen(gates[i].path);
		if (!strncmp(url, gates[i].path, n) &&
		    (url[n] == '\0' || url[n] == '/' || url[n] == '?')) {
			*g = gates[i].gate;
			return;
		}
	}
	/* unknown: answered 404 by ver_route, with no room for a body */
	g->role = VER_ROLE_NONE;
	g->body = VER_BODY_ANON;
}

int ver_gate_check(const struct ver_gate *g, const struct ver_peer *p,
		   struct ver_resp *rs)
{
	if (g->role == VER_ROLE_NONE || p->role == g->role)
		return 0;
	if (p->role == VER_ROLE_NONE)
		return ver_error(rs, 401, "unauthenticated",
				 g->role == VER_ROLE_ADMIN
					 ? "an admin client certificate is "
					   "required"
					 : "an agent client certificate is "
					   "required"),
		       ATT_E_AUTH;
	if (g->role == VER_ROLE_ADMIN)
		return ver_error(rs, 403, "forbidden",
				 "this endpoint needs the admin role"),
		       ATT_E_AUTH;
	return ver_error(rs, 403, "wrong_agent",
			 "this endpoint needs an agent certificate"),
	       ATT_E_AUTH;
}

int ver_route(struct ver_req *rq, struct ver_resp *rs)
{
	char segs[VER_MAX_SEGS][VER_SEG_MAX + 1];
	const char *p, *e;
	unsigned int n = 0;

	if (!strcmp(rq->url, "/healthz"))
		return healthz(rq, rs);
	if (!strcmp(rq->url, "/metrics"))
		return ver_api_metrics(rq, rs);
	if (!strcmp(rq->url, "/dashboard"))
		return ver_api_dashboard(rq, rs, "");
	if (!strcmp(rq->url, "/dashboard.js"))
		return ver_api_dashboard(rq, rs, "js");
	if (!strcmp(rq->url, "/dashboard.css"))
		return ver_api_dashboard(rq, rs, "css");
	if (strncmp(rq->url, "/v1/", 4))
		return ver_error(rs, 404, "not_found", "no such endpoint");
	p = rq->url + 4;
	while (*p) {
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if (n == VER_MAX_SEGS || !seg_ok(p, (size_t)(e - p)))
			return ver_error(rs, 404, "not_found",
					 "no such endpoint");
		memcpy(segs[n], p, (size_t)(e - p));
		segs[n][e - p] = '\0';
		n++;
		p = *e ? e + 1 : e;
		if (*e && !*p) /* trailing slash */
			return ver_error(rs, 404, "not_found",
					 "no such endpoint");
	}
	if (n == 0)
		return ver_error(rs, 404, "not_found", "no such endpoint");
	if (!strcmp(segs[0], "whitelists"))
		return ver_api_whitelists(rq, rs, n > 1 ? segs[1] : NULL,
					  n > 2 ? segs[2] : NULL);
	if (!strcmp(segs[0], "enroll") && n <= 2)
		return ver_api_enroll(rq, rs, n > 1 ? segs[1] : NULL);
	if (!strcmp(segs[0], "enrollment") && n == 2 &&
	    !strcmp(segs[1], "tokens"))
		return ver_api_tokens(rq, rs);
	if (!strcmp(segs[0], "attestation") && n == 2)
		return ver_api_attestation(rq, rs, segs[1]);
	if (!strcmp(segs[0], "check") && n == 1)
		return ver_api_check(rq, rs);
	if (!strcmp(segs[0], "fleet") && n == 1)
		return ver_api_fleet(rq, rs);
	if (!strcmp(segs[0], "agents"))
		return ver_api_agents(rq, rs, n > 1 ? segs[1] : NULL,
				      n > 2 ? segs[2] : NULL);
	return ver_error(rs, 404, "not_found", "no such endpoint");
}
