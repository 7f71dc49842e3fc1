// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_layers.c - layered whitelists end to end: the real
 * attest-verifier (SQLite; PostgreSQL) over TLS, a host played with a real
 * swtpm (tests/lib/vhost), every exchange checked against its JSON Schema.
 *
 * - The API: a layered whitelist names others ("site", "distro",
 *   "security"); its layers must exist, not be layered, not be listed
 *   twice, and may not come with a whitelist of its own; a layer in use
 *   cannot be deleted or become layered; GET shows the layers resolved.
 * - Attestation: the agent follows the layered whitelist; each log's
 *   result says how many entries each layer accepted; a file the
 *   distribution layer has at another digest is untrusted naming that
 *   layer, and trusted once the security layer is added; a new version of
 *   a layer is followed without touching the layered whitelist; a file no
 *   layer has is untrusted, named.
 * - POST /v1/check with explain: each entry with the layer that accepted
 *   it; attestctl's explain and put-layers are shell-tested elsewhere.
 *
 * The tests run in order on one host and verifier.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "imabuild.h"
#include "swtpm.h"
#include "vhost/vhost.h"

static struct vh_host F;

static const char *const extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, NULL};

/* After each group's set-up: responses checked against their schemas. */
static int after_setup(struct vh_host *h)
{
	h->no_schema = 0;
	return 0;
}

static int req(const char *method, const char *path, const char *body,
	       struct json_object **js)
{
	return vh_req(&F, "admin", method, path, body, js);
}

/* Stores whitelist name with one or two path=content digests. */
static void put_wl(const char *method, const char *name, const char *p1,
		   const char *c1, const char *p2, const char *c2)
{
	char body[1024], h1[65], h2[65], path[200];
	struct json_object *js;
	int st;

	ib_sha256_hex(c1, h1);
	if (p2)
		ib_sha256_hex(c2, h2);
	snprintf(body, sizeof(body),
		 "{%s%s%s\"whitelist\":{\"digests\":{\"%s\":[\"%s\"]%s%s%s%s%s}"
		 "}}",
		 strcmp(method, "POST") ? "" : "\"name\":\"",
		 strcmp(method, "POST") ? "" : name,
		 strcmp(method, "POST") ? "" : "\",", p1, h1, p2 ? ",\"" : "",
		 p2 ? p2 : "", p2 ? "\":[\"" : "", p2 ? h2 : "",
		 p2 ? "\"]" : "");
	snprintf(path, sizeof(path), "/v1/whitelists%s%s",
		 strcmp(method, "POST") ? "/" : "",
		 strcmp(method, "POST") ? name : "");
	st = req(method, path, body, &js);
	if (st != (strcmp(method, "POST") ? 200 : 201))
		fail_msg("%s %s: %d %s", method, name, st,
			 json_object_to_json_string(js));
	json_object_put(js);
}

/* An error answer with this status whose message holds want. */
static void refused(const char *method, const char *path, const char *body,
		    int status, const char *want)
{
	struct json_object *js = NULL;
	int st = req(method, path, body, &js);

	if (st != status || !strstr(json_object_to_json_string(js), want))
		fail_msg("%s %s %s: %d %s (want %d '%s')", method, path, body,
			 st, json_object_to_json_string(js), status, want);
	json_object_put(js);
}

/* layers[i] of o: its name and version. */
static void layer_is(struct json_object *o, size_t i, const char *name,
		     int64_t version)
{
	struct json_object *l =
		json_object_array_get_idx(vh_jget(o, "layers"), i);

	assert_non_null(l);
	assert_string_equal(vh_jstr(l, "name"), name);
	assert_int_equal(vh_jint(l, "version"), version);
}

static void test_layers_api(void **state)
{
	struct json_object *js;
	char body[2048];
	int i, n;

	(void)state;
	put_wl("POST", "site", "/etc/conf", "A", NULL, NULL);
	put_wl("POST", "distro", "/usr/bin/a", "A", "/usr/bin/b", "B");
	put_wl("POST", "security", "/usr/bin/a", "A2", NULL, NULL);
	assert_int_equal(req("POST", "/v1/whitelists",
			     "{\"name\":\"fleet\",\"layers\":[\"site\","
			     "{\"name\":\"distro\",\"version\":0}]}",
			     &js),
			 201);
	assert_int_equal(vh_jint(js, "version"), 1);
	assert_int_equal(vh_jint(js, "paths"), 3); /* the layers' sums */
	layer_is(js, 0, "site", 1);
	layer_is(js, 1, "distro", 1);
	json_object_put(js);
	assert_int_equal(req("GET", "/v1/whitelists/fleet", NULL, &js), 200);
	assert_string_equal(vh_jstr(js, "format"), "layers");
	layer_is(js, 1, "distro", 1);
	json_object_put(js);
	/* what a layered whitelist may not be */
	refused("POST", "/v1/whitelists",
		"{\"name\":\"x\",\"layers\":[\"site\",\"nope\"]}", 422,
		"layer nope: no such whitelist");
	refused("POST", "/v1/whitelists",
		"{\"name\":\"x\",\"layers\":[\"site\",{\"name\":\"distro\","
		"\"version\":7}]}",
		422, "layer distro");
	refused("POST", "/v1/whitelists",
		"{\"name\":\"x\",\"layers\":[\"fleet\"]}", 422,
		"a layered whitelist is not a layer");
	refused("POST", "/v1/whitelists",
		"{\"name\":\"x\",\"layers\":[\"site\",\"site\"]}", 422,
		"listed twice");
	refused("POST", "/v1/whitelists",
		"{\"name\":\"x\",\"layers\":[\"site\"],\"whitelist\":{}}", 422,
		"'layers' names other whitelists");
	refused("POST", "/v1/whitelists", "{\"name\":\"x\",\"layers\":[]}", 422,
		"1 to 16");
	refused("POST", "/v1/whitelists",
		"{\"name\":\"x\",\"layers\":[{\"name\":\"site\",\"v\":1}]}",
		422, "unknown field");
	n = snprintf(body, sizeof(body), "{\"name\":\"x\",\"layers\":[");
	for (i = 0; i < 17; i++)
		n += snprintf(body + n, sizeof(body) - (size_t)n, "%s\"l%d\"",
			      i ? "," : "", i);
	snprintf(body + n, sizeof(body) - (size_t)n, "]}");
	refused("POST", "/v1/whitelists", body, 422, "1 to 16");
	assert_int_equal(req("GET", "/v1/whitelists/x", NULL, &js), 404);
	json_object_put(js);
	/* a layer in use stays a plain whitelist and stays */
	refused("DELETE", "/v1/whitelists/distro", NULL, 409,
		"is a layer of 'fleet'");
	refused("PUT", "/v1/whitelists/distro", "{\"layers\":[\"site\"]}", 409,
		"is a layer of 'fleet'");
	/* control: a whitelist no one lists is deleted */
	put_wl("POST", "spare", "/x", "X", NULL, NULL);
	assert_int_equal(req("DELETE", "/v1/whitelists/spare", NULL, &js), 200);
	json_object_put(js);
	assert_int_equal(req("PUT", "/v1/agents/host-1/whitelist",
			     "{\"name\":\"fleet\"}", &js),
			 200);
	json_object_put(js);
}

/* log 0's entry counts per layer: layers[i].allowed */
static int64_t allowed(struct json_object *res, size_t i)
{
	struct json_object *log =
		json_object_array_get_idx(vh_jget(res, "logs"), 0);

	return vh_jint(json_object_array_get_idx(vh_jget(log, "layers"), i),
		       "allowed");
}

static const char *text(struct json_object *o)
{
	return json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static struct json_object *round_state(const char *state)
{
	return vh_round_ok(&F, state);
}

static void test_layers_attest(void **state)
{
	struct json_object *res, *js, *f;
	const char *txt;

	(void)state;
	vh_boot(&F);
	vh_measure(&F, "/usr/bin/a", "A");
	vh_measure(&F, "/etc/conf", "A");
	vh_measure(&F, "/usr/bin/b", "B");
	res = round_state("trusted");
	assert_string_equal(vh_jstr(vh_jget(res, "whitelist"), "name"),
			    "fleet");
	layer_is(vh_jget(res, "whitelist"), 0, "site", 1);
	layer_is(vh_jget(res, "whitelist"), 1, "distro", 1);
	assert_int_equal(allowed(res, 0), 1);
	assert_int_equal(allowed(res, 1), 2);
	json_object_put(res);
	/* the upgrade's binary: distro has /usr/bin/a at another digest */
	vh_measure(&F, "/usr/bin/a", "A2");
	res = round_state("untrusted");
	txt = text(res);
	if (!strstr(txt, "hash-mismatch: /usr/bin/a"))
		fail_msg("%s", txt);
	f = json_object_array_get_idx(
		vh_jget(json_object_array_get_idx(vh_jget(res, "logs"), 0),
			"failures"),
		0);
	assert_string_equal(vh_jstr(f, "layer"), "distro");
	json_object_put(res);
	/* the security layer added (a new version of fleet): trusted */
	assert_int_equal(req("PUT", "/v1/whitelists/fleet",
			     "{\"layers\":[\"site\",\"distro\",\"security\"]}",
			     &js),
			 200);
	assert_int_equal(vh_jint(js, "version"), 2);
	json_object_put(js);
	res = round_state("trusted");
	layer_is(vh_jget(res, "whitelist"), 2, "security", 1);
	assert_int_equal(vh_jint(vh_jget(res, "whitelist"), "version"), 2);
	assert_int_equal(allowed(res, 2), 1);
	json_object_put(res);
	/* a new version of one layer is followed: fleet is not touched */
	put_wl("PUT", "security", "/usr/bin/a", "A2", "/usr/bin/c", "C3");
	vh_measure(&F, "/usr/bin/c", "C3");
	res = round_state("trusted");
	layer_is(vh_jget(res, "whitelist"), 2, "security", 2);
	assert_int_equal(vh_jint(vh_jget(res, "whitelist"), "version"), 2);
	assert_int_equal(allowed(res, 2), 1);
	json_object_put(res);
	/* a file no layer has */
	vh_measure(&F, "/usr/bin/evil", "EVIL");
	res = round_state("untrusted");
	txt = text(res);
	if (!strstr(txt, "unknown-path: /usr/bin/evil"))
		fail_msg("%s", txt);
	json_object_put(res);
}

static void test_check_explain(void **state)
{
	struct json_object *js, *ex, *e;
	char *b64, *body;
	size_t n, i, by_security = 0, by_site = 0, none = 0;

	(void)state;
	b64 = vh_b64(F.log.data, F.log.len);
	n = strlen(b64) + 200;
	body = malloc(n);
	assert_non_null(body);
	snprintf(body, n,
		 "{\"whitelist\":{\"name\":\"fleet\"},\"log\":\"%s\","
		 "\"explain\":true}",
		 b64);
	assert_int_equal(req("POST", "/v1/check", body, &js), 200);
	assert_string_equal(vh_jstr(js, "verdict"), "fail");
	ex = vh_jget(js, "explained");
	assert_int_equal(json_object_array_length(ex), F.nentries);
	for (i = 0; i < json_object_array_length(ex); i++) {
		e = json_object_array_get_idx(ex, i);
		if (!strcmp(vh_jstr(e, "path"), "/usr/bin/c")) {
			assert_string_equal(vh_jstr(e, "layer"), "security");
			by_security++;
		} else if (!strcmp(vh_jstr(e, "path"), "/etc/conf")) {
			assert_string_equal(vh_jstr(e, "layer"), "site");
			by_site++;
		} else if (!strcmp(vh_jstr(e, "path"), "/usr/bin/evil")) {
			assert_string_equal(vh_jstr(e, "verdict"),
					    "unknown-path");
			assert_false(
				json_object_object_get_ex(e, "layer", NULL));
			none++;
		}
	}
	assert_int_equal(by_security, 1);
	assert_int_equal(by_site, 1);
	assert_int_equal(none, 1);
	layer_is(js, 2, "security", 2);
	json_object_put(js);
	/* without explain: the counts, no entries */
	snprintf(body, n, "{\"whitelist\":{\"name\":\"fleet\"},\"log\":\"%s\"}",
		 b64);
	assert_int_equal(req("POST", "/v1/check", body, &js), 200);
	assert_false(json_object_object_get_ex(js, "explained", NULL));
	assert_int_equal(
		vh_jint(json_object_array_get_idx(vh_jget(js, "layers"), 0),
			"allowed"),
		1);
	json_object_put(js);
	free(body);
	free(b64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layers_api),
		cmocka_unit_test(test_layers_attest),
		cmocka_unit_test(test_check_explain),
	};
	return vh_run_groups(&F, "vlayers", extra, after_setup, tests,
			     sizeof(tests) / sizeof(tests[0]));
}
