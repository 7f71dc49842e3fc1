// SPDX-License-Identifier: Apache-2.0
/*
 * test_agent_enroll.c - attest-agent's enrollment code against the real
 * attest-verifier and a real swtpm: enrolled once, the key kept 0600, the
 * certificate issued by the agent CA for this id; a restart finds the
 * state and does not enroll again; a used token and another TPM claiming
 * the id are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "attest/err.h"
#include "attest/http.h"
#include "attest/tpm_esys.h"
#include "config.h"
#include "enroll.h"
#include "swtpm.h"
#include "verifier_http.h"
#include "verifier_proc.h"

static struct {
	char dir[64], db[128], url[64], state[128], token[128];
	struct att_vproc *vp;
	struct att_swtpm *sw;
} F;

static int setup(void **state)
{
	const char *extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, NULL};

	(void)state;
	snprintf(F.dir, sizeof(F.dir), "/tmp/att-aenr-XXXXXX");
	if (!mkdtemp(F.dir) || att_pki_init(F.dir)) {
		fprintf(stderr, "FATAL: cannot make the test PKI\n");
		return -1;
	}
	snprintf(F.db, sizeof(F.db), "sqlite:%s/v.db", F.dir);
	snprintf(F.state, sizeof(F.state), "%s/agent-state", F.dir);
	snprintf(F.token, sizeof(F.token), "%s/token", F.dir);
	if (att_swtpm_start(&F.sw)) {
		fprintf(stderr, "FATAL: cannot start swtpm\n");
		return -1;
	}
	if (att_vproc_start(F.dir, F.db, extra, &F.vp)) {
		fprintf(stderr, "FATAL: cannot start attest-verifier\n");
		return -1;
	}
	snprintf(F.url, sizeof(F.url), "https://127.0.0.1:%u",
		 att_vproc_port(F.vp));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	att_vproc_free(F.vp);
	att_swtpm_free(F.sw);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", F.dir);
	return system(cmd) ? -1 : 0;
}

/* A fresh single-use token from the admin API, written to F.token. */
static void new_token(void)
{
	struct att_vh_resp r;
	struct json_object *js, *t;
	FILE *f;

	assert_int_equal(att_vh_request(att_vproc_port(F.vp), F.dir, "admin",
					"POST", "/v1/enrollment/tokens",
					"{\"ttl\": 300}", 12, &r),
			 0);
	assert_int_equal(r.status, 201);
	js = json_tokener_parse(r.body);
	assert_non_null(js);
	assert_true(json_object_object_get_ex(js, "token", &t));
	f = fopen(F.token, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", json_object_get_string(t));
	fclose(f);
	json_object_put(js);
	att_vh_resp_release(&r);
}

static void config(struct agent_config *c, const char *id)
{
	char err[200], ca[128];

	agent_config_init(c);
	snprintf(ca, sizeof(ca), "%s/server-ca.pem", F.dir);
	assert_int_equal(
		agent_config_set(c, "verifier", F.url, err, sizeof(err)),
		ATT_OK);
	agent_config_set(c, "ca", ca, err, sizeof(err));
	agent_config_set(c, "enrollment_token_file", F.token, err, sizeof(err));
	agent_config_set(c, "state_dir", F.state, err, sizeof(err));
	agent_config_set(c, "agent_id", id, err, sizeof(err));
	agent_config_set(c, "log", "ima:/dev/null:10", err, sizeof(err));
	assert_int_equal(agent_config_finish(c, err, sizeof(err)), ATT_OK);
}

static int enroll_with(struct att_swtpm *sw, const char *id,
		       struct agent_identity *ident)
{
	struct agent_config c;
	struct att_esys *tpm;
	struct att_http *http;
	int rc;

	config(&c, id);
	assert_int_equal(agent_identity_paths(&c, ident), ATT_OK);
	assert_int_equal(att_esys_new(att_swtpm_tcti(sw), &tpm), ATT_OK);
	assert_int_equal(att_http_new((const char *const *)c.verifiers,
				      c.nverifiers, c.ca, &http),
			 ATT_OK);
	rc = agent_enroll(&c, tpm, http, ident);
	att_http_free(http);
	att_esys_free(tpm);
	agent_config_release(&c);
	return rc;
}

static void cert_is_for(const char *path, const char *cn)
{
	char ca[128], got[128];
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	FILE *f = fopen(path, "r");
	X509 *cert;

	assert_non_null(f);
	cert = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	assert_non_null(cert);
	snprintf(ca, sizeof(ca), "%s/agent-ca.pem", F.dir);
	assert_int_equal(X509_STORE_load_file(store, ca), 1);
	assert_int_equal(X509_STORE_CTX_init(ctx, store, cert, NULL), 1);
	X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
	assert_int_equal(X509_verify_cert(ctx), 1);
	X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName,
				  got, sizeof(got));
	assert_string_equal(got, cn);
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	X509_free(cert);
}

static void enroll_once_and_resume(void **state)
{
	struct agent_identity id;
	struct agent_config c;
	struct stat st;

	(void)state;
	new_token();
	assert_int_equal(enroll_with(F.sw, "host-a", &id), ATT_OK);
	assert_int_equal(stat(id.key_path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	cert_is_for(id.cert_path, "host-a");
	/* a restart finds the identity: nothing to enroll */
	config(&c, "host-a");
	assert_int_equal(agent_is_enrolled(&c, &id), 1);
	agent_config_release(&c);
	config(&c, "host-b");
	assert_int_equal(agent_is_enrolled(&c, &id), 0);
	agent_config_release(&c);
	/* the token was single use */
	assert_int_equal(enroll_with(F.sw, "host-c", &id), ATT_E_AUTH);
}

static void another_tpm_cannot_take_the_id(void **state)
{
	struct agent_identity id;
	struct att_swtpm *other;

	(void)state;
	assert_int_equal(att_swtpm_start(&other), 0);
	new_token();
	assert_int_equal(enroll_with(other, "host-a", &id), ATT_E_AUTH);
	att_swtpm_free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(enroll_once_and_resume),
		cmocka_unit_test(another_tpm_cannot_take_the_id),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
