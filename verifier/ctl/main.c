// SPDX-License-Identifier: Apache-2.0
/*
 * main.c - attestctl: agents, whitelists, enrollment tokens and the fleet
 * report over the verifier's REST API with an admin certificate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/log.h"
#include "ctl.h"

#define CTL_VERSION  "0.1.0"
#define CTL_FILE_MAX (256u << 20)

static void usage(FILE *f)
{
	fputs("NAME\n"
	      "    attestctl - administer attest-verifier over its REST "
	      "API\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    attestctl [CONNECTION] fleet [--json]\n"
	      "    attestctl [CONNECTION] agents list [--json]\n"
	      "    attestctl [CONNECTION] agents get|delete ID\n"
	      "    attestctl [CONNECTION] agents assign ID WHITELIST "
	      "[VERSION]\n"
	      "    attestctl [CONNECTION] whitelists list [--json]\n"
	      "    attestctl [CONNECTION] whitelists get NAME [VERSION]\n"
	      "    attestctl [CONNECTION] whitelists create|update NAME "
	      "FILE [--legacy]\n"
	      "    attestctl [CONNECTION] whitelists delete NAME\n"
	      "    attestctl [CONNECTION] token [TTL-SECONDS]\n"
	      "    attestctl --help | --version\n"
	      "\n"
	      "CONNECTION\n"
	      "    --url URL        the verifier (https://HOST:PORT; "
	      "$ATTESTCTL_URL)\n"
	      "    --cacert FILE    its CA, pinned ($ATTESTCTL_CACERT)\n"
	      "    --cert FILE      admin client certificate "
	      "($ATTESTCTL_CERT)\n"
	      "    --key FILE       its key ($ATTESTCTL_KEY)\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    fleet prints a table of every agent (id, state, last "
	      "attestation,\n"
	      "    whitelist, boot count, failure reasons); with --json it "
	      "prints the\n"
	      "    fleet report exactly as the verifier sent it "
	      "(schemas/fleet.schema.json).\n"
	      "    'get' commands print the verifier's JSON. A whitelist "
	      "FILE is JSON\n"
	      "    (native or a Keylime runtime policy) or, with --legacy, "
	      "a Keylime\n"
	      "    allowlist ('hash  path' lines); 'update' stores a new "
	      "version.\n"
	      "    'token' prints a single-use enrollment token.\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 done; 2 bad usage or unreadable file; 3 no answer "
	      "(connection,\n"
	      "    TLS, timeout); 4 not found (404); 5 refused (401, 403, "
	      "409, 413,\n"
	      "    422 ...); 6 verifier error (5xx).\n",
	      f);
}

static int print_answer(const struct att_buf *a)
{
	fwrite(a->data, 1, a->len, stdout);
	return CTL_OK;
}

static int simple(const struct ctl *c, const char *method, const char *path,
		  const char *body)
{
	struct att_buf a;
	long st;
	int rc;

	att_buf_init(&a, 0);
	rc = ctl_request(c, method, path, body, &st, &a);
	if (!rc)
		rc = ctl_status_exit(st, &a);
	if (!rc)
		print_answer(&a);
	att_buf_release(&a);
	return rc;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !v)
		return "-";
	return json_object_get_string(v);
}

static void fmt_time(struct json_object *o, const char *k, char *out,
		     size_t cap)
{
	struct json_object *v;
	time_t t;
	struct tm tm;

	if (!json_object_object_get_ex(o, k, &v) || !v) {
		snprintf(out, cap, "never");
		return;
	}
	t = (time_t)json_object_get_int64(v);
	gmtime_r(&t, &tm);
	strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int fleet(const struct ctl *c)
{
	struct json_object *o, *agents, *row, *w, *r;
	struct att_buf a;
	char perr[128], when[32], wl[160];
	size_t i, j;
	long st;
	int rc;

	att_buf_init(&a, 0);
	rc = ctl_request(c, "GET", "/v1/fleet", NULL, &st, &a);
	if (!rc)
		rc = ctl_status_exit(st, &a);
	if (rc || c->json) {
		if (!rc)
			print_answer(&a);
		att_buf_release(&a);
		return rc;
	}
	if (att_json_parse((const char *)a.data, a.len, 32, &o, perr,
			   sizeof(perr))) {
		fprintf(stderr, "attestctl: bad fleet report: %s\n", perr);
		att_buf_release(&a);
		return CTL_SERVER;
	}
	printf("%-24s %-10s %-20s %-24s %5s  %s\n", "AGENT", "STATE",
	       "LAST ATTESTATION", "WHITELIST", "BOOTS", "REASONS");
	agents = json_object_object_get(o, "agents");
	for (i = 0; i < json_object_array_length(agents); i++) {
		row = json_object_array_get_idx(agents, i);
		fmt_time(row, "last_attestation", when, sizeof(when));
		w = json_object_object_get(row, "whitelist");
		if (w)
			snprintf(wl, sizeof(wl), "%s@%s", jstr(w, "name"),
				 strcmp(jstr(w, "version"), "0")
					 ? jstr(w, "version")
					 : "newest");
		else
			snprintf(wl, sizeof(wl), "-");
		printf("%-24s %-10s %-20s %-24s %5s  ", jstr(row, "id"),
		       jstr(row, "state"), when, wl, jstr(row, "boot_count"));
		r = json_object_object_get(row, "failure_reasons");
		for (j = 0; j < json_object_array_length(r); j++)
			printf("%s%s", j ? "; " : "",
			       json_object_get_string(
				       json_object_array_get_idx(r, j)));
		printf("\n");
	}
	r = json_object_object_get(o, "counts");
	printf("\n%s agents: %s trusted, %s untrusted, %s stale, %s "
	       "registered, %s enrolling\n",
	       jstr(r, "total"), jstr(r, "trusted"), jstr(r, "untrusted"),
	       jstr(r, "stale"), jstr(r, "registered"), jstr(r, "enrolling"));
	json_object_put(o);
	att_buf_release(&a);
	return CTL_OK;
}

static int read_text(const char *path, struct att_buf *b)
{
	att_buf_init(b, CTL_FILE_MAX);
	if (att_buf_read_file(b, path, CTL_FILE_MAX) || att_buf_cstr(b)) {
		fprintf(stderr, "attestctl: cannot read %s\n", path);
		return CTL_USAGE;
	}
	return CTL_OK;
}

static int wl_store(const struct ctl *c, int create, const char *name,
		    const char *file, int legacy)
{
	struct json_object *req, *doc = NULL;
	struct att_buf t;
	char path[300], perr[256];
	int rc;

	rc = read_text(file, &t);
	if (rc)
		return rc;
	req = json_object_new_object();
	if (create)
		json_object_object_add(req, "name",
				       json_object_new_string(name));
	if (legacy) {
		json_object_object_add(
			req, "legacy",
			json_object_new_string_len((const char *)t.data,
						   (int)t.len));
	} else {
		if (att_json_parse((const char *)t.data, t.len, 20, &doc, perr,
				   sizeof(perr))) {
			fprintf(stderr, "attestctl: %s: %s\n", file, perr);
			json_object_put(req);
			att_buf_release(&t);
			return CTL_USAGE;
		}
		json_object_object_add(req, "whitelist", doc);
	}
	att_buf_release(&t);
	snprintf(path, sizeof(path), "/v1/whitelists%s%s", create ? "" : "/",
		 create ? "" : name);
	rc = simple(
		c, create ? "POST" : "PUT", path,
		json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN));
	json_object_put(req);
	return rc;
}

static int cmd_agents(const struct ctl *c, int argc, char **argv)
{
	char path[300], body[400];

	if (argc < 1)
		return CTL_USAGE;
	if (!strcmp(argv[0], "list") && argc == 1)
		return simple(c, "GET", "/v1/agents", NULL);
	if (argc < 2 || strlen(argv[1]) > 128)
		return CTL_USAGE;
	snprintf(path, sizeof(path), "/v1/agents/%s", argv[1]);
	if (!strcmp(argv[0], "get") && argc == 2)
		return simple(c, "GET", path, NULL);
	if (!strcmp(argv[0], "delete") && argc == 2)
		return simple(c, "DELETE", path, NULL);
	if (!strcmp(argv[0], "assign") && (argc == 3 || argc == 4)) {
		struct json_object *o = json_object_new_object();
		char *end;
		long long v = 0;
		int rc;

		if (argc == 4) {
			v = strtoll(argv[3], &end, 10);
			if (*end || v < 0) {
				json_object_put(o);
				return CTL_USAGE;
			}
		}
		json_object_object_add(o, "name",
				       json_object_new_string(argv[2]));
		json_object_object_add(o, "version", json_object_new_int64(v));
		snprintf(body, sizeof(body), "%s",
			 json_object_to_json_string_ext(
				 o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		strncat(path, "/whitelist", sizeof(path) - strlen(path) - 1);
		rc = simple(c, "PUT", path, body);
		return rc;
	}
	return CTL_USAGE;
}

static int cmd_whitelists(const struct ctl *c, int argc, char **argv)
{
	char path[300];
	int legacy = 0;

	if (argc >= 1 && !strcmp(argv[argc - 1], "--legacy")) {
		legacy = 1;
		argc--;
	}
	if (argc < 1)
		return CTL_USAGE;
	if (!strcmp(argv[0], "list") && argc == 1)
		return simple(c, "GET", "/v1/whitelists", NULL);
	if (argc < 2 || strlen(argv[1]) > 128)
		return CTL_USAGE;
	if (!strcmp(argv[0], "get") && (argc == 2 || argc == 3)) {
		snprintf(path, sizeof(path), "/v1/whitelists/%s%s%s", argv[1],
			 argc == 3 ? "?version=" : "",
			 argc == 3 ? argv[2] : "");
		return simple(c, "GET", path, NULL);
	}
	if (!strcmp(argv[0], "delete") && argc == 2) {
		snprintf(path, sizeof(path), "/v1/whitelists/%s", argv[1]);
		return simple(c, "DELETE", path, NULL);
	}
	if ((!strcmp(argv[0], "create") || !strcmp(argv[0], "update")) &&
	    argc == 3)
		return wl_store(c, !strcmp(argv[0], "create"), argv[1], argv[2],
				legacy);
	return CTL_USAGE;
}

static int cmd_token(const struct ctl *c, int argc, char **argv)
{
	char body[64];
	char *end;
	long long ttl;

	if (argc == 0)
		return simple(c, "POST", "/v1/enrollment/tokens", "{}");
	ttl = strtoll(argv[0], &end, 10);
	if (argc != 1 || *end || ttl <= 0)
		return CTL_USAGE;
	snprintf(body, sizeof(body), "{\"ttl\":%lld}", ttl);
	return simple(c, "POST", "/v1/enrollment/tokens", body);
}

/* An environment setting; empty counts as unset. */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int main(int argc, char **argv)
{
	struct ctl c = {
		.url = env("ATTESTCTL_URL"),
		.cacert = env("ATTESTCTL_CACERT"),
		.cert = env("ATTESTCTL_CERT"),
		.key = env("ATTESTCTL_KEY"),
	};
	int i, rc;

	att_log_set_ident("attestctl");
	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--help")) {
			usage(stdout);
			return CTL_OK;
		}
		if (!strcmp(o, "--version")) {
			printf("attestctl %s\n", CTL_VERSION);
			return CTL_OK;
		}
		if (!strcmp(o, "--json")) {
			c.json = 1;
			continue;
		}
		if (i + 1 >= argc)
			goto bad;
		if (!strcmp(o, "--url"))
			c.url = argv[++i];
		else if (!strcmp(o, "--cacert"))
			c.cacert = argv[++i];
		else if (!strcmp(o, "--cert"))
			c.cert = argv[++i];
		else if (!strcmp(o, "--key"))
			c.key = argv[++i];
		else
			goto bad;
	}
	if (i >= argc)
		goto bad;
	/* --json may also follow the command. */
	if (argc - i >= 2 && !strcmp(argv[argc - 1], "--json")) {
		c.json = 1;
		argc--;
	}
	if (!c.url || strncmp(c.url, "https://", 8)) {
		fprintf(stderr, "attestctl: --url https://HOST:PORT is "
				"required (no plain HTTP)\n");
		return CTL_USAGE;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return CTL_CONNECT;
	if (!strcmp(argv[i], "fleet") && argc - i == 1)
		rc = fleet(&c);
	else if (!strcmp(argv[i], "agents"))
		rc = cmd_agents(&c, argc - i - 1, argv + i + 1);
	else if (!strcmp(argv[i], "whitelists"))
		rc = cmd_whitelists(&c, argc - i - 1, argv + i + 1);
	else if (!strcmp(argv[i], "token"))
		rc = cmd_token(&c, argc - i - 1, argv + i + 1);
	else
		rc = CTL_USAGE;
	curl_global_cleanup();
	if (rc == CTL_USAGE)
		fprintf(stderr, "attestctl: bad usage (try --help)\n");
	return rc;
bad:
	fprintf(stderr, "attestctl: bad usage (try --help)\n");
	return CTL_USAGE;
}
