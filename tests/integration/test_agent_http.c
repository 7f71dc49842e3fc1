// SPDX-License-Identifier: Apache-2.0
/*
 * test_agent_http.c - the agent's HTTPS client against the real
 * attest-verifier: the pinned CA is the only trust anchor, plaintext is
 * refused, a dead verifier URL fails over to the next, client
 * certificates are presented, and the backoff stays within its bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "attest/err.h"
#include "attest/http.h"
#include "verifier_proc.h"

struct fx {
	char dir[64];
	struct att_vproc *v;
	char url[64], db[128];
	char ca[128], rogue[128], cert[128], key[128];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	*state = f;
	snprintf(f->dir, sizeof(f->dir), "/tmp/att-agent-http-XXXXXX");
	if (!mkdtemp(f->dir) || att_pki_init(f->dir)) {
		fprintf(stderr, "cannot make the test PKI\n");
		return 1;
	}
	snprintf(f->db, sizeof(f->db), "sqlite:%s/v.db", f->dir);
	if (att_vproc_start(f->dir, f->db, NULL, &f->v)) {
		fprintf(stderr, "cannot start attest-verifier\n");
		return 1;
	}
	snprintf(f->url, sizeof(f->url), "https://127.0.0.1:%u",
		 att_vproc_port(f->v));
	snprintf(f->ca, sizeof(f->ca), "%s/server-ca.pem", f->dir);
	snprintf(f->rogue, sizeof(f->rogue), "%s/rogue-ca.pem", f->dir);
	snprintf(f->cert, sizeof(f->cert), "%s/admin.pem", f->dir);
	snprintf(f->key, sizeof(f->key), "%s/admin.key", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	if (!f)
		return 1;
	att_vproc_free(f->v);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	if (system(cmd))
		return 1;
	free(f);
	return 0;
}

static void pinned_ca(void **state)
{
	struct fx *f = *state;
	struct att_http_resp r = {0};
	const char *u[] = {f->url};
	struct att_http *h;

	assert_int_equal(att_http_new(u, 1, f->ca, &h), ATT_OK);
	assert_int_equal(att_http_request(h, "GET", "/healthz", NULL, 0, &r),
			 ATT_OK);
	assert_int_equal(r.status, 200);
	att_http_resp_release(&r);
	att_http_free(h);
	/* any other CA: no connection at all */
	assert_int_equal(att_http_new(u, 1, f->rogue, &h), ATT_OK);
	assert_int_equal(att_http_request(h, "GET", "/healthz", NULL, 0, &r),
			 ATT_E_NET);
	assert_int_equal(r.status, 0);
	att_http_resp_release(&r);
	att_http_free(h);
}

static void no_plaintext(void **state)
{
	const char *u[] = {"http://127.0.0.1:1"};
	struct att_http *h = NULL;

	(void)state;
	assert_int_equal(att_http_new(u, 1, "/dev/null", &h), ATT_E_INVAL);
	assert_null(h);
}

static void failover(void **state)
{
	struct fx *f = *state;
	struct att_http_resp r = {0};
	const char *u[] = {"https://127.0.0.1:1", f->url};
	struct att_http *h;

	assert_int_equal(att_http_new(u, 2, f->ca, &h), ATT_OK);
	att_http_set_timeout(h, 5);
	assert_int_equal(att_http_request(h, "GET", "/healthz", NULL, 0, &r),
			 ATT_OK);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.url, f->url);
	att_http_resp_release(&r);
	/* the next request starts with the verifier that answered */
	assert_int_equal(att_http_request(h, "GET", "/healthz", NULL, 0, &r),
			 ATT_OK);
	assert_string_equal(r.url, f->url);
	att_http_resp_release(&r);
	att_http_free(h);
}

static void client_certificate(void **state)
{
	struct fx *f = *state;
	struct att_http_resp r = {0};
	const char *u[] = {f->url};
	struct att_http *h;

	assert_int_equal(att_http_new(u, 1, f->ca, &h), ATT_OK);
	assert_int_equal(att_http_request(h, "GET", "/v1/agents", NULL, 0, &r),
			 ATT_OK);
	assert_true(r.status == 401 || r.status == 403);
	att_http_resp_release(&r);
	assert_int_equal(att_http_set_client_cert(h, f->cert, f->key), ATT_OK);
	assert_int_equal(att_http_request(h, "GET", "/v1/agents", NULL, 0, &r),
			 ATT_OK);
	assert_int_equal(r.status, 200);
	att_http_resp_release(&r);
	att_http_free(h);
}

static void backoff_bounds(void **state)
{
	struct att_backoff b;
	unsigned int i, max_seen = 0;

	(void)state;
	att_backoff_init(&b, 100, 5000);
	for (i = 0; i < 200; i++) {
		unsigned int cap = i < 6 ? 100u << i : 5000, d;

		if (cap > 5000)
			cap = 5000;
		d = att_backoff_next(&b);
		assert_true(d <= cap);
		if (d > max_seen)
			max_seen = d;
	}
	/* jitter reaches well into the range (not stuck at 0 or a constant) */
	assert_true(max_seen > 2500);
	att_backoff_reset(&b);
	assert_true(att_backoff_next(&b) <= 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pinned_ca),
		cmocka_unit_test(no_plaintext),
		cmocka_unit_test(failover),
		cmocka_unit_test(client_certificate),
		cmocka_unit_test(backoff_bounds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
