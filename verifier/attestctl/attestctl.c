// SPDX-License-Identifier: Apache-2.0
/*
 * attestctl.c - the admin CLI of attest-verifier, over its REST API with
 * an admin client certificate (libcurl, the verifier's CA pinned).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/http.h"
#include "attest/json.h"
#include "attest/lattice.h"
#include "attest/log.h"

#define CTL_VERSION ATT_VERSION

/* Exit codes a script can rely on. */
enum ctl_exit {
	CTL_OK = 0,	     /* done (fleet --check: every agent trusted) */
	CTL_REFUSED = 1,     /* the verifier answered no: 4xx, or --check */
	CTL_USAGE = 2,	     /* bad usage or local error */
	CTL_UNREACHABLE = 3, /* no verifier answered, or 5xx */
};

static void usage(FILE *f)
{
	fputs("NAME\n"
	      "    attestctl - administer attest-verifier\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    attestctl [connection options] COMMAND [ARGS]\n"
	      "\n"
	      "COMMANDS\n"
	      "    fleet [--json] [--check]   the fleet report: a table, or "
	      "with --json\n"
	      "                               exactly GET /v1/fleet; --check "
	      "exits 1 unless\n"
	      "                               every agent is trusted\n"
	      "    agents                     list the agents\n"
	      "    agent ID                   one agent: state, last result "
	      "with every\n"
	      "                               failure, history (JSON)\n"
	      "    lattice ID                 slim.ko's lattice on agent ID "
	      "as its last\n"
	      "                               result showed it: mode, "
	      "policy, EVM key,\n"
	      "                               relabels, demotions of SYSTEM "
	      "tasks\n"
	      "    delete-agent ID            forget an agent (it must enroll "
	      "again)\n"
	      "    clone-clear ID             clear agent ID's suspected "
	      "cloned TPM\n"
	      "                               (sticky until then; the "
	      "verifier logs it and\n"
	      "                               keeps a history row naming "
	      "your certificate)\n"
	      "    assign ID NAME [VERSION]   judge agent ID by whitelist NAME "
	      "(VERSION 0\n"
	      "                               or none: always the newest)\n"
	      "    whitelists                 list the whitelists\n"
	      "    whitelist NAME [VERSION]   one whitelist (JSON)\n"
	      "    put-whitelist NAME FILE    create or update (a new "
	      "version) from a\n"
	      "                               native/Keylime JSON or legacy "
	      "allowlist FILE\n"
	      "    put-layers NAME LAYER[@VERSION]...\n"
	      "                               a layered whitelist: the agent "
	      "is judged by\n"
	      "                               the union of the named "
	      "whitelists (no\n"
	      "                               VERSION: each layer's newest, "
	      "at every\n"
	      "                               attestation)\n"
	      "    explain NAME[@VERSION] LIST  each entry of a binary IMA "
	      "LIST judged by\n"
	      "                               NAME: index, verdict, the layer "
	      "that\n"
	      "                               accepted it, path (exit 1 "
	      "when it fails)\n"
	      "    delete-whitelist NAME\n"
	      "    token [TTL]                a single-use enrollment token "
	      "(TTL seconds)\n"
	      "    health                     GET /healthz\n"
	      "\n"
	      "CONNECTION OPTIONS (or environment)\n"
	      "    --url URL    ATTEST_URL    the verifier, https:// "
	      "(repeatable: failover)\n"
	      "    --ca FILE    ATTEST_CA     the verifier's CA (pinned)\n"
	      "    --cert FILE  ATTEST_CERT   admin client certificate\n"
	      "    --key FILE   ATTEST_KEY    its key\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 done; 1 the verifier refused (4xx; the message says why) "
	      "or fleet\n"
	      "    --check found an agent not trusted; 2 bad usage or local "
	      "error;\n"
	      "    3 no verifier answered, or it failed (5xx).\n",
	      f);
}

struct ctl {
	const char *urls[8];
	size_t nurls;
	const char *ca, *cert, *key;
	struct att_http *http;
};

/* Sends a request; prints the error body on failure; returns an exit. */
static int call(struct ctl *c, const char *method, const char *path,
		const char *body, struct json_object **reply)
{
	struct att_http_resp r = {0};
	char err[200];
	int rc;

	*reply = NULL;
	rc = att_http_request(c->http, method, path, body,
			      body ? strlen(body) : 0, &r);
	if (rc) {
		fprintf(stderr, "attestctl: no verifier answered\n");
		att_http_resp_release(&r);
		return CTL_UNREACHABLE;
	}
	if (r.body.len && att_json_parse((const char *)r.body.data, r.body.len,
					 64, reply, err, sizeof(err))) {
		fprintf(stderr,
			"attestctl: HTTP %ld with a body that is not "
			"JSON: %s\n",
			r.status, err);
		att_http_resp_release(&r);
		return CTL_UNREACHABLE;
	}
	rc = r.status >= 200 && r.status < 300 ? CTL_OK
	     : r.status >= 500		       ? CTL_UNREACHABLE
					       : CTL_REFUSED;
	if (rc != CTL_OK) {
		struct json_object *m = NULL;

		if (*reply)
			json_object_object_get_ex(*reply, "message", &m);
		fprintf(stderr, "attestctl: HTTP %ld: %s\n", r.status,
			m ? json_object_get_string(m) : "(no message)");
	}
	att_http_resp_release(&r);
	return rc;
}

static void print_json(struct json_object *o)
{
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			   JSON_C_TO_STRING_NOSLASHESCAPE));
}

static const char *str_or(struct json_object *o, const char *k,
			  const char *dflt)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, k, &v) ||
	    json_object_is_type(v, json_type_null))
		return dflt;
	return json_object_get_string(v);
}

static void print_fleet(struct json_object *f)
{
	struct json_object *counts = NULL, *agents = NULL;
	size_t i, n;

	json_object_object_get_ex(f, "counts", &counts);
	json_object_object_get_ex(f, "agents", &agents);
	printf("fleet: %s total, %s trusted, %s untrusted, %s stale, %s "
	       "registered, %s enrolling\n",
	       str_or(counts, "total", "?"), str_or(counts, "trusted", "?"),
	       str_or(counts, "untrusted", "?"), str_or(counts, "stale", "?"),
	       str_or(counts, "registered", "?"),
	       str_or(counts, "enrolling", "?"));
	printf("%-24s %-10s %-20s %-16s %5s %-18s %s\n", "AGENT", "STATE",
	       "LAST ATTESTATION", "WHITELIST", "BOOTS", "LATTICE", "REASONS");
	n = agents ? json_object_array_length(agents) : 0;
	for (i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(agents, i);
		struct json_object *wl = NULL, *reasons = NULL, *last = NULL;
		struct json_object *lat = NULL;
		char when[32] = "-", wls[64] = "-", lats[40] = "-";
		size_t k, nr;

		if (json_object_object_get_ex(a, "last_attestation", &last) &&
		    json_object_is_type(last, json_type_int)) {
			time_t t = (time_t)json_object_get_int64(last);
			struct tm tm;

			gmtime_r(&t, &tm);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%SZ", &tm);
		}
		if (json_object_object_get_ex(a, "whitelist", &wl) &&
		    json_object_is_type(wl, json_type_object))
			snprintf(wls, sizeof(wls), "%s@%s",
				 str_or(wl, "name", "?"),
				 /* 0: the agent follows the newest version */
				 strcmp(str_or(wl, "version", "?"), "0")
					 ? str_or(wl, "version", "?")
					 : "newest");
		if (json_object_object_get_ex(a, "lattice", &lat) &&
		    json_object_is_type(lat, json_type_object))
			snprintf(lats, sizeof(lats), "%s/%s dem.",
				 str_or(lat, "mode", "?"),
				 str_or(lat, "demotions", "?"));
		printf("%-24s %-10s %-20s %-16s %5s %-18s ",
		       str_or(a, "id", "?"), str_or(a, "state", "?"), when, wls,
		       str_or(a, "boot_count", "?"), lats);
		json_object_object_get_ex(a, "failure_reasons", &reasons);
		nr = reasons ? json_object_array_length(reasons) : 0;
		for (k = 0; k < nr; k++)
			printf("%s%s", k ? "; " : "",
			       json_object_get_string(
				       json_object_array_get_idx(reasons, k)));
		printf("\n");
	}
}

static int cmd_fleet(struct ctl *c, int argc, char **argv)
{
	struct json_object *f;
	int json = 0, check = 0, i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--check"))
			check = 1;
		else
			return CTL_USAGE;
	}
	rc = call(c, "GET", "/v1/fleet", NULL, &f);
	if (rc == CTL_OK) {
		struct json_object *counts, *t, *tot;

		if (json)
			print_json(f);
		else
			print_fleet(f);
		if (check &&
		    (!json_object_object_get_ex(f, "counts", &counts) ||
		     !json_object_object_get_ex(counts, "trusted", &t) ||
		     !json_object_object_get_ex(counts, "total", &tot) ||
		     json_object_get_int64(t) != json_object_get_int64(tot)))
			rc = CTL_REFUSED;
	}
	json_object_put(f);
	return rc;
}

static void print_lattice(struct json_object *lat)
{
	struct json_object *arr = NULL;
	size_t i, n;

	printf("module:          %s (slim.ko %s)%s\n",
	       json_object_get_boolean(json_object_object_get(lat, "loaded"))
		       ? "loaded"
		       : "no load record",
	       str_or(lat, "version", "?"),
	       json_object_get_boolean(json_object_object_get(lat, "reloaded"))
		       ? ", RELOADED in this boot"
		       : "");
	printf("mode:            %s\n", str_or(lat, "mode", "-"));
	printf("policy digest:   %s\n", str_or(lat, "policy_digest", "-"));
	printf("evm key:         %s\n",
	       json_object_get_boolean(json_object_object_get(lat, "evm_key"))
		       ? "loaded"
		       : "not loaded");
	printf("relabels:        %s\n", str_or(lat, "relabels", "?"));
	printf("dropped events:  %s%s\n", str_or(lat, "dropped_events", "?"),
	       json_object_get_boolean(
		       json_object_object_get(lat, "events_capped"))
		       ? " (cap reached)"
		       : "");
	printf("demotions:       %s of SYSTEM tasks\n",
	       str_or(lat, "demotions", "?"));
	json_object_object_get_ex(lat, "recent_demotions", &arr);
	n = arr ? json_object_array_length(arr) : 0;
	if (n)
		printf("%-8s %-16s %-28s %-18s %s\n", "PID", "COMM", "EXE",
		       "TO", "CAUSE");
	for (i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(arr, i);
		const struct att_sev_cause_info *c =
			att_sev_cause_by_name(str_or(d, "cause", "?"));
		int file = c && c->value == ATT_SEV_CAUSE_FILE;

		/* the file read, or what else the task took input from */
		printf("%-8s %-16s %-28s %-18s %s%s%s\n", str_or(d, "pid", "?"),
		       str_or(d, "comm", "?"), str_or(d, "exe", "?"),
		       str_or(d, "to", "?"), c ? c->label : "?",
		       file ? " " : "", file ? str_or(d, "path", "?") : "");
	}
}

/* The lattice of one agent's last result, for people. */
static int cmd_lattice(struct ctl *c, const char *id)
{
	struct json_object *o, *res, *lat;
	char path[300];
	int rc;

	snprintf(path, sizeof(path), "/v1/agents/%s", id);
	rc = call(c, "GET", path, NULL, &o);
	if (rc != CTL_OK) {
		json_object_put(o);
		return rc;
	}
	if (json_object_object_get_ex(o, "last_result", &res) &&
	    json_object_object_get_ex(res, "lattice", &lat) &&
	    json_object_is_type(lat, json_type_object)) {
		print_lattice(lat);
	} else {
		printf("no slim.ko state in the last result of %s\n", id);
		rc = CTL_REFUSED;
	}
	json_object_put(o);
	return rc;
}

/* Simple GET/DELETE/POST commands that print the reply. */
static int simple(struct ctl *c, const char *method, const char *path,
		  const char *body)
{
	struct json_object *o;
	int rc = call(c, method, path, body, &o);

	if (rc == CTL_OK && o)
		print_json(o);
	json_object_put(o);
	return rc;
}

static int id_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n < 129 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._-") == n;
}

/*
 * Stores req (owned, freed here) as whitelist NAME: PUT when it exists,
 * else POST with the name added.
 */
static int store_wl(struct ctl *c, const char *name, struct json_object *req)
{
	struct json_object *o = NULL;
	char path[300];
	int rc, exists;

	snprintf(path, sizeof(path), "/v1/whitelists/%s", name);
	exists = call(c, "GET", path, NULL, &o) == CTL_OK;
	json_object_put(o);
	if (!exists)
		json_object_object_add(req, "name",
				       json_object_new_string(name));
	rc = simple(c, exists ? "PUT" : "POST",
		    exists ? path : "/v1/whitelists",
		    json_object_to_json_string_ext(
			    req, JSON_C_TO_STRING_PLAIN |
					 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(req);
	return rc;
}

static int cmd_put_whitelist(struct ctl *c, const char *name, const char *file)
{
	struct json_object *req = json_object_new_object(), *wl = NULL;
	struct att_buf b;
	char err[300];

	att_buf_init(&b, 0);
	if (att_buf_read_file(&b, file, 256u << 20)) {
		fprintf(stderr, "attestctl: cannot read %s\n", file);
		json_object_put(req);
		return CTL_USAGE;
	}
	if (b.len && b.data[0] == '{') {
		if (att_json_parse((const char *)b.data, b.len, 64, &wl, err,
				   sizeof(err))) {
			fprintf(stderr, "attestctl: %s: %s\n", file, err);
			att_buf_release(&b);
			json_object_put(req);
			return CTL_USAGE;
		}
		json_object_object_add(req, "whitelist", wl);
	} else {
		json_object_object_add(
			req, "legacy",
			json_object_new_string_len((const char *)b.data,
						   (int)b.len));
	}
	att_buf_release(&b);
	return store_wl(c, name, req);
}

/* LAYER or LAYER@VERSION into name (len) and *version (0: the newest). */
static int layer_arg(const char *a, char *name, size_t len, long *version)
{
	const char *at = strchr(a, '@');
	size_t n = at ? (size_t)(at - a) : strlen(a);
	char *end;

	*version = 0;
	if (n == 0 || n >= len)
		return -1;
	memcpy(name, a, n);
	name[n] = '\0';
	if (at) {
		*version = strtol(at + 1, &end, 10);
		if (!at[1] || *end || *version < 0)
			return -1;
	}
	return id_ok(name) ? 0 : -1;
}

/* put-layers NAME LAYER[@VERSION]...: a layered whitelist. */
static int cmd_put_layers(struct ctl *c, const char *name, int n, char **layers)
{
	struct json_object *req = json_object_new_object(), *arr, *l;
	char lname[130];
	long v;
	int i;

	arr = json_object_new_array();
	json_object_object_add(req, "layers", arr);
	for (i = 0; i < n; i++) {
		if (layer_arg(layers[i], lname, sizeof(lname), &v)) {
			fprintf(stderr,
				"attestctl: '%s' is not NAME or NAME@VERSION\n",
				layers[i]);
			json_object_put(req);
			return CTL_USAGE;
		}
		l = json_object_new_object();
		json_object_object_add(l, "name",
				       json_object_new_string(lname));
		json_object_object_add(l, "version",
				       json_object_new_int64((int64_t)v));
		json_object_array_add(arr, l);
	}
	return store_wl(c, name, req);
}

/*
 * explain NAME[@VERSION] LIST: POST /v1/check with explain; one line per
 * entry: index, verdict, the layer that accepted it ("-": none), path.
 * Exits 0 when the list passes, 1 when it fails.
 */
static int cmd_explain(struct ctl *c, const char *wl, const char *file)
{
	struct json_object *req, *w, *o = NULL, *arr = NULL, *e;
	struct att_buf b;
	char lname[130], *b64;
	size_t i, n;
	long v;
	int rc;

	if (layer_arg(wl, lname, sizeof(lname), &v))
		return CTL_USAGE;
	att_buf_init(&b, 0);
	if (att_buf_read_file(&b, file, 256u << 20)) {
		fprintf(stderr, "attestctl: cannot read %s\n", file);
		return CTL_USAGE;
	}
	b64 = malloc(att_b64_enclen(b.len) + 1);
	if (!b64) {
		att_buf_release(&b);
		return CTL_USAGE;
	}
	att_b64_encode(b.data, b.len, b64);
	att_buf_release(&b);
	req = json_object_new_object();
	w = json_object_new_object();
	json_object_object_add(w, "name", json_object_new_string(lname));
	json_object_object_add(w, "version", json_object_new_int64(v));
	json_object_object_add(req, "whitelist", w);
	json_object_object_add(req, "log", json_object_new_string(b64));
	json_object_object_add(req, "explain", json_object_new_boolean(1));
	free(b64);
	rc = call(c, "POST", "/v1/check",
		  json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN),
		  &o);
	json_object_put(req);
	if (rc != CTL_OK) {
		json_object_put(o);
		return rc;
	}
	json_object_object_get_ex(o, "explained", &arr);
	n = arr ? json_object_array_length(arr) : 0;
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(arr, i);
		printf("%s %s %s %s\n", str_or(e, "index", "?"),
		       str_or(e, "verdict", "?"), str_or(e, "layer", "-"),
		       str_or(e, "path", ""));
	}
	json_object_object_get_ex(o, "layers", &arr);
	n = arr ? json_object_array_length(arr) : 0;
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(arr, i);
		printf("layer %s@%s: %s entries\n", str_or(e, "name", "?"),
		       str_or(e, "version", "?"), str_or(e, "allowed", "?"));
	}
	printf("verdict: %s\n", str_or(o, "verdict", "?"));
	rc = strcmp(str_or(o, "verdict", ""), "pass") ? CTL_REFUSED : CTL_OK;
	json_object_put(o);
	return rc;
}

static int dispatch(struct ctl *c, int argc, char **argv)
{
	const char *cmd = argv[0];
	char path[400], body[300];

	if (!strcmp(cmd, "fleet"))
		return cmd_fleet(c, argc, argv);
	if (!strcmp(cmd, "health") && argc == 1)
		return simple(c, "GET", "/healthz", NULL);
	if (!strcmp(cmd, "agents") && argc == 1)
		return simple(c, "GET", "/v1/agents", NULL);
	if (!strcmp(cmd, "whitelists") && argc == 1)
		return simple(c, "GET", "/v1/whitelists", NULL);
	if (!strcmp(cmd, "token") && argc <= 2) {
		char *end = NULL;
		long ttl = argc == 2 ? strtol(argv[1], &end, 10) : 3600;

		if ((end && *end) || ttl <= 0)
			return CTL_USAGE;
		snprintf(body, sizeof(body), "{\"ttl\": %ld}", ttl);
		return simple(c, "POST", "/v1/enrollment/tokens", body);
	}
	if (!strcmp(cmd, "explain") && argc == 3)
		return cmd_explain(c, argv[1], argv[2]);
	if (argc >= 2 && !id_ok(argv[1])) {
		fprintf(stderr, "attestctl: '%s' is not a valid name\n",
			argv[1]);
		return CTL_USAGE;
	}
	if (!strcmp(cmd, "agent") && argc == 2) {
		snprintf(path, sizeof(path), "/v1/agents/%s", argv[1]);
		return simple(c, "GET", path, NULL);
	}
	if (!strcmp(cmd, "lattice") && argc == 2)
		return cmd_lattice(c, argv[1]);
	if (!strcmp(cmd, "delete-agent") && argc == 2) {
		snprintf(path, sizeof(path), "/v1/agents/%s", argv[1]);
		return simple(c, "DELETE", path, NULL);
	}
	if (!strcmp(cmd, "clone-clear") && argc == 2) {
		snprintf(path, sizeof(path), "/v1/agents/%s/clone", argv[1]);
		return simple(c, "DELETE", path, NULL);
	}
	if (!strcmp(cmd, "assign") && (argc == 3 || argc == 4)) {
		char *end;
		long v = argc == 4 ? strtol(argv[3], &end, 10) : 0;

		if ((argc == 4 && *end) || v < 0 || !id_ok(argv[2]))
			return CTL_USAGE;
		snprintf(path, sizeof(path), "/v1/agents/%s/whitelist",
			 argv[1]);
		snprintf(body, sizeof(body),
			 "{\"name\": \"%s\", \"version\": %ld}", argv[2], v);
		return simple(c, "PUT", path, body);
	}
	if (!strcmp(cmd, "whitelist") && (argc == 2 || argc == 3)) {
		char *end;
		long v = argc == 3 ? strtol(argv[2], &end, 10) : 0;

		if ((argc == 3 && *end) || v < 0)
			return CTL_USAGE;
		if (argc == 3)
			snprintf(path, sizeof(path),
				 "/v1/whitelists/%s?version=%ld", argv[1], v);
		else
			snprintf(path, sizeof(path), "/v1/whitelists/%s",
				 argv[1]);
		return simple(c, "GET", path, NULL);
	}
	if (!strcmp(cmd, "put-whitelist") && argc == 3)
		return cmd_put_whitelist(c, argv[1], argv[2]);
	if (!strcmp(cmd, "put-layers") && argc >= 3)
		return cmd_put_layers(c, argv[1], argc - 2, argv + 2);
	if (!strcmp(cmd, "delete-whitelist") && argc == 2) {
		snprintf(path, sizeof(path), "/v1/whitelists/%s", argv[1]);
		return simple(c, "DELETE", path, NULL);
	}
	return CTL_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"url", required_argument, NULL, 'u'},
		{"ca", required_argument, NULL, 'c'},
		{"cert", required_argument, NULL, 'C'},
		{"key", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct ctl c = {0};
	int ch, rc;

	att_log_set_ident("attestctl");
	c.ca = getenv("ATTEST_CA");
	c.cert = getenv("ATTEST_CERT");
	c.key = getenv("ATTEST_KEY");
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (ch) {
		case 'u':
			if (c.nurls == 8)
				return CTL_USAGE;
			c.urls[c.nurls++] = optarg;
			break;
		case 'c':
			c.ca = optarg;
			break;
		case 'C':
			c.cert = optarg;
			break;
		case 'k':
			c.key = optarg;
			break;
		case 'h':
			usage(stdout);
			return CTL_OK;
		case 'V':
			printf("attestctl %s\n", CTL_VERSION);
			return CTL_OK;
		default:
			usage(stderr);
			return CTL_USAGE;
		}
	}
	if (!c.nurls && getenv("ATTEST_URL"))
		c.urls[c.nurls++] = getenv("ATTEST_URL");
	if (optind >= argc || !c.nurls || !c.ca) {
		fprintf(stderr, "attestctl: need a COMMAND, --url and --ca "
				"(see --help)\n");
		return CTL_USAGE;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = att_http_new(c.urls, c.nurls, c.ca, &c.http);
	if (!rc && c.cert)
		rc = att_http_set_client_cert(c.http, c.cert,
					      c.key ? c.key : c.cert);
	if (rc) {
		fprintf(stderr, "attestctl: %s\n", att_strerror(rc));
		att_http_free(c.http);
		curl_global_cleanup();
		return CTL_USAGE;
	}
	rc = dispatch(&c, argc - optind, argv + optind);
	if (rc == CTL_USAGE)
		fprintf(stderr, "attestctl: bad usage of '%s' (see --help)\n",
			argv[optind]);
	att_http_free(c.http);
	curl_global_cleanup();
	return rc;
}
