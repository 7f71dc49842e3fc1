// SPDX-License-Identifier: Apache-2.0
/*
 * test_attacks_certs.c - client certificates the verifier must refuse or
 * accept, against the real attest-verifier over TLS (SQLite), each made
 * with the openssl CLI from the test PKI (deploy/pki.sh):
 *
 * - expired: an admin certificate and host-1's agent certificate signed
 *   by the right CAs but past their notAfter: 401 (no role), and the
 *   agent's challenge is refused;
 * - chains: an admin certificate issued by an intermediate CA under the
 *   admin CA, presented with the intermediate: the admin role; the leaf
 *   alone: no role; an "intermediate" that is not a CA (CA:FALSE) or one
 *   from the rogue CA: no role; an agent CA's intermediate never makes an
 *   admin.
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

#include "swtpm.h"
#include "vhost/vhost.h"

static struct vh_host F;

static const char client_ext[] =
	"basicConstraints=critical,CA:FALSE\\nkeyUsage=critical,"
	"digitalSignature\\nextendedKeyUsage=clientAuth\\n";
static const char ca_ext[] = "basicConstraints=critical,CA:TRUE\\nkeyUsage="
			     "critical,keyCertSign,cRLSign\\n";

/* The openssl CLI in F.dir; the test fails when it does. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
	char cmd[2048], full[2300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "cd '%s' && ( %s ) >/dev/null 2>&1", F.dir,
		 cmd);
	if (system(full))
		fail_msg("failed: %s", cmd);
}

/* NAME.key/.pem with CN, signed by CA for DAYS (negative: expired). */
static void issue(const char *ca, const char *name, const char *cn,
		  const char *ext, int days)
{
	sh("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 "
	   "-out %s.key && openssl req -new -key %s.key -subj "
	   "'/O=attest test/CN=%s' -out %s.csr && printf '%s' > %s.ext && "
	   "openssl x509 -req -in %s.csr -CA %s.pem -CAkey %s.key "
	   "-CAcreateserial -days %d -sha256 -extfile %s.ext -out %s.pem",
	   name, name, cn, name, ext, name, name, ca, ca, days, name, name);
}

static int setup(void **state)
{
	static const char *const extra[] = {"--ek-ca-dir",
					    ATT_SWTPM_LOCALCA_DIR, NULL};

	(void)state;
	return vh_setup_enrolled(&F, "certs", 0, extra);
}

static int teardown(void **state)
{
	(void)state;
	return vh_teardown(&F) ? -1 : 0;
}

static void status_is(const char *who, const char *method, const char *path,
		      const char *body, int want)
{
	struct json_object *js = NULL;
	int st = vh_req(&F, who, method, path, body, &js);

	if (st != want)
		fail_msg("%s %s as %s: %d, expected %d: %s", method, path, who,
			 st, want, js ? json_object_to_json_string(js) : "");
	json_object_put(js);
}

static void test_expired(void **state)
{
	(void)state;
	/* controls: the same CAs, in date */
	issue("admin-ca", "admin2", "admin", client_ext, 30);
	status_is("admin2", "GET", "/v1/agents", NULL, 200);
	issue("admin-ca", "admin-old", "admin", client_ext, -1);
	status_is("admin-old", "GET", "/v1/agents", NULL, 401);
	status_is("admin-old", "POST", "/v1/whitelists",
		  "{\"name\":\"x\",\"whitelist\":{\"digests\":{}}}", 401);
	/* host-1's name from the agent CA, expired: no agent either */
	issue("agent-ca", "host-1-old", "host-1", client_ext, -1);
	status_is("host-1-old", "POST", "/v1/attestation/challenge",
		  "{\"agent_id\":\"host-1\"}", 401);
	status_is("host-1", "POST", "/v1/attestation/challenge",
		  "{\"agent_id\":\"host-1\"}", 201);
}

static void test_chains(void **state)
{
	(void)state;
	/* admin-ca -> ops-ca (CA) -> ops-admin */
	issue("admin-ca", "ops-ca", "ops CA", ca_ext, 30);
	issue("ops-ca", "ops-admin-leaf", "ops admin", client_ext, 30);
	sh("cp ops-admin-leaf.key ops-admin.key && cat ops-admin-leaf.pem "
	   "ops-ca.pem > ops-admin.pem");
	status_is("ops-admin", "GET", "/v1/agents", NULL, 200);
	/* the leaf without its intermediate: no path to the admin CA */
	status_is("ops-admin-leaf", "GET", "/v1/agents", NULL, 401);
	/* an issuer that is not a CA */
	issue("admin-ca", "not-ca", "not a CA", client_ext, 30);
	issue("not-ca", "fake-leaf", "fake admin", client_ext, 30);
	sh("cp fake-leaf.key fake.key && cat fake-leaf.pem not-ca.pem > "
	   "fake.pem");
	status_is("fake", "GET", "/v1/agents", NULL, 401);
	/* a CA under the rogue CA (same name as the admin CA) */
	issue("rogue-ca", "rogue-int", "ops CA", ca_ext, 30);
	issue("rogue-int", "rogue-leaf", "ops admin", client_ext, 30);
	sh("cp rogue-leaf.key rogue2.key && cat rogue-leaf.pem rogue-int.pem "
	   "> rogue2.pem");
	status_is("rogue2", "GET", "/v1/agents", NULL, 401);
	/* an intermediate under the agent CA makes agents, never admins */
	issue("agent-ca", "agent-int", "agent sub CA", ca_ext, 30);
	issue("agent-int", "sub-leaf", "admin", client_ext, 30);
	sh("cp sub-leaf.key sub.key && cat sub-leaf.pem agent-int.pem > "
	   "sub.pem");
	status_is("sub", "GET", "/v1/agents", NULL, 403);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expired),
		cmocka_unit_test(test_chains),
	};

	return cmocka_run_group_tests_name("sqlite", tests, setup, teardown);
}
