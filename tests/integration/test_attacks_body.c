// SPDX-License-Identifier: Apache-2.0
/*
 * test_attacks_body.c - request bodies before authentication, against the
 * real attest-verifier over TLS (SQLite; PostgreSQL):
 *
 * - 20 anonymous connections start 15 MB uploads to an admin route and
 *   stop after 4 MiB each: every one is answered 401 before its body
 *   ends, and the verifier's peak memory grows by less than 16 MiB (it
 *   grew by the bodies, 80 MiB here and 280 MiB for 20 x 15 MB, when
 *   bodies were read before the role was known).
 * - Anonymous routes (enrollment) take small bodies only: a declared
 *   1 MiB is answered 413 before its body.
 * - A budget of body bytes in flight (max_body_inflight): with two agent
 *   uploads holding it, a third is answered 503 with Retry-After before
 *   its body, and a chunked one (no declared length) at its end; once
 *   they are gone the agent attests as before.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <openssl/ssl.h>

#include "swtpm.h"
#include "verifier_proc.h"
#include "vhost/vhost.h"

#define MIB	       (1024 * 1024)
#define ANON_CONNS     20
#define ANON_SENT      (4 * MIB)
#define BUDGET	       (8 * MIB)
#define AGENT_DECLARED (3 * MIB + MIB / 2)

static struct vh_host F;

/* kB of /proc/PID/status's field (VmRSS, VmHWM). */
static long proc_kb(int pid, const char *field)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)) &&
		    line[strlen(field)] == ':')
			v = strtol(line + strlen(field) + 1, NULL, 10);
	fclose(f);
	assert_true(v >= 0);
	return v;
}

struct conn {
	int fd;
	SSL *ssl;
};

static SSL_CTX *client_ctx(const char *who)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	char path[256];

	assert_non_null(ctx);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	if (who) {
		snprintf(path, sizeof(path), "%s/%s.pem", F.dir, who);
		assert_int_equal(SSL_CTX_use_certificate_chain_file(ctx, path),
				 1);
		snprintf(path, sizeof(path), "%s/%s.key", F.dir, who);
		assert_int_equal(SSL_CTX_use_PrivateKey_file(ctx, path,
							     SSL_FILETYPE_PEM),
				 1);
	}
	return ctx;
}

static void conn_open(struct conn *c, SSL_CTX *ctx)
{
	struct sockaddr_in sa;

	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(c->fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)att_vproc_port(F.vp));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	c->ssl = SSL_new(ctx);
	assert_non_null(c->ssl);
	SSL_set_fd(c->ssl, c->fd);
	assert_int_equal(SSL_connect(c->ssl), 1);
}

static void conn_close(struct conn *c)
{
	SSL_free(c->ssl);
	close(c->fd);
	c->ssl = NULL;
	c->fd = -1;
}

/* Sends n bytes of filler; returns how many went out before an error. */
static size_t send_fill(struct conn *c, size_t n)
{
	static char chunk[16384];
	size_t sent = 0;
	int w;

	memset(chunk, 'A', sizeof(chunk));
	while (sent < n) {
		size_t k = n - sent < sizeof(chunk) ? n - sent : sizeof(chunk);

		w = SSL_write(c->ssl, chunk, (int)k);
		if (w <= 0)
			break;
		sent += (size_t)w;
	}
	return sent;
}

static void send_str(struct conn *c, const char *s)
{
	assert_int_equal(SSL_write(c->ssl, s, (int)strlen(s)), (int)strlen(s));
}

/*
 * The answer's status line and headers (up to 4 KiB), waiting at most
 * `seconds`; 0 when none came. The response head is kept in head.
 */
static int read_status(struct conn *c, int seconds, char *head, size_t cap)
{
	struct pollfd p = {.fd = c->fd, .events = POLLIN};
	size_t n = 0;
	int r, st = 0;

	head[0] = '\0';
	while (n + 1 < cap) {
		if (!SSL_pending(c->ssl) && poll(&p, 1, seconds * 1000) <= 0)
			break;
		r = SSL_read(c->ssl, head + n, (int)(cap - 1 - n));
		if (r <= 0)
			break;
		n += (size_t)r;
		head[n] = '\0';
		if (strstr(head, "\r\n\r\n"))
			break;
	}
	if (sscanf(head, "HTTP/1.1 %d", &st) != 1)
		return 0;
	return st;
}

static void request_head(struct conn *c, const char *path, size_t len)
{
	char h[256];

	snprintf(h, sizeof(h),
		 "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
		 "application/json\r\nContent-Length: %zu\r\n\r\n",
		 path, len);
	send_str(c, h);
}

static void test_anonymous_uploads(void **state)
{
	struct conn c[ANON_CONNS];
	SSL_CTX *ctx = client_ctx(NULL);
	char head[4096];
	long hwm0, hwm1;
	int i, pid = att_vproc_pid(F.vp);

	(void)state;
	hwm0 = proc_kb(pid, "VmHWM");
	for (i = 0; i < ANON_CONNS; i++) {
		conn_open(&c[i], ctx);
		request_head(&c[i], "/v1/whitelists", 15000000);
		send_fill(&c[i], ANON_SENT);
	}
	usleep(500 * 1000); /* what was sent is read meanwhile */
	hwm1 = proc_kb(pid, "VmHWM");
	fprintf(stderr,
		"anonymous uploads: %d x %d MiB sent, peak RSS %ld -> %ld kB "
		"(+%ld kB)\n",
		ANON_CONNS, ANON_SENT / MIB, hwm0, hwm1, hwm1 - hwm0);
	for (i = 0; i < ANON_CONNS; i++) {
		int st = read_status(&c[i], 20, head, sizeof(head));

		if (st != 401)
			fail_msg("connection %d: %d before its body ended: %s",
				 i, st, head);
	}
	assert_true(hwm1 - hwm0 < 16 * 1024);
	for (i = 0; i < ANON_CONNS; i++)
		conn_close(&c[i]);
	SSL_CTX_free(ctx);
	/* The admin is served as before. */
	{
		struct json_object *js;

		assert_int_equal(
			vh_req(&F, "admin", "GET", "/v1/agents", NULL, &js),
			200);
		json_object_put(js);
	}
}

static void test_anonymous_route_cap(void **state)
{
	struct conn c;
	SSL_CTX *ctx = client_ctx(NULL);
	char head[4096];

	(void)state;
	/* Enrollment is anonymous: its bodies are small. */
	conn_open(&c, ctx);
	request_head(&c, "/v1/enroll", MIB);
	assert_int_equal(read_status(&c, 20, head, sizeof(head)), 413);
	conn_close(&c);
	/* An agent's certificate does not open admin routes either. */
	SSL_CTX_free(ctx);
	ctx = client_ctx("host-1");
	conn_open(&c, ctx);
	request_head(&c, "/v1/whitelists", 2 * MIB);
	assert_int_equal(read_status(&c, 20, head, sizeof(head)), 403);
	conn_close(&c);
	SSL_CTX_free(ctx);
}

static void test_body_budget(void **state)
{
	struct conn hold[2], c;
	SSL_CTX *ctx = client_ctx("host-1");
	struct json_object *res;
	char head[4096];
	int i, st;

	(void)state;
	/* Two agent uploads hold 7 MiB of the 8 MiB budget. */
	for (i = 0; i < 2; i++) {
		conn_open(&hold[i], ctx);
		request_head(&hold[i], "/v1/attestation/evidence",
			     AGENT_DECLARED);
		send_fill(&hold[i], MIB);
	}
	/* A third: no room, answered at once. */
	conn_open(&c, ctx);
	request_head(&c, "/v1/attestation/evidence", AGENT_DECLARED);
	st = read_status(&c, 20, head, sizeof(head));
	if (st != 503 || !strstr(head, "Retry-After: "))
		fail_msg("third upload: %d %s", st, head);
	conn_close(&c);
	/* A chunked one, of no declared length: at its end. */
	conn_open(&c, ctx);
	send_str(&c, "POST /v1/attestation/evidence HTTP/1.1\r\nHost: "
		     "127.0.0.1\r\nContent-Type: application/json\r\n"
		     "Transfer-Encoding: chunked\r\n\r\n");
	for (i = 0; i < 2 * 64; i++) {
		send_str(&c, "4000\r\n");
		send_fill(&c, 0x4000);
		send_str(&c, "\r\n");
	}
	send_str(&c, "0\r\n\r\n");
	st = read_status(&c, 20, head, sizeof(head));
	if (st != 503 || !strstr(head, "Retry-After: "))
		fail_msg("chunked upload: %d %s", st, head);
	conn_close(&c);
	/* The held ones go away; their budget comes back. */
	for (i = 0; i < 2; i++)
		conn_close(&hold[i]);
	SSL_CTX_free(ctx);
	for (i = 0; i < 50; i++) {
		struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};

		st = vh_attest(&F, &rd, &res);
		free(rd.body_out);
		if (st == 200)
			break;
		json_object_put(res);
		usleep(100 * 1000); /* the verifier notices the close */
	}
	assert_int_equal(st, 200);
	assert_string_equal(vh_jstr(res, "state"), "trusted");
	json_object_put(res);
}

/* Strict UTF-8 in every body, raw or escaped: 400, nothing stored. */
static void test_json_not_utf8(void **state)
{
	static const char *const forms[] = {
		"\\ud800",	    /* a lone high surrogate escape */
		"\\udfff",	    /* a lone low one */
		"\\ud800\\u0041",   /* a high one and no low one */
		"\\u0000",	    /* NUL */
		"\xc0\xaf",	    /* overlong '/' */
		"\xe0\x80\xaf",	    /* overlong, three bytes */
		"\xed\xa0\x80",	    /* a surrogate, encoded */
		"\xf4\x90\x80\x80", /* past U+10FFFF */
	};
	struct json_object *js;
	char body[256];
	char *before, *after;
	size_t i;

	(void)state;
	before = vh_snapshot(&F);
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(body, sizeof(body),
			 "{\"name\":\"u8\",\"whitelist\":{\"digests\":"
			 "{\"/usr/bin/x%s\":[\"sha256:%064d\"]}}}",
			 forms[i], 0);
		if (vh_req(&F, "admin", "POST", "/v1/whitelists", body, &js) !=
		    400)
			fail_msg("form %zu accepted: %s", i,
				 json_object_to_json_string(js));
		json_object_put(js);
		snprintf(body, sizeof(body), "{\"agent_id\":\"host-1%s\"}",
			 forms[i]);
		assert_int_equal(vh_req(&F, "host-1", "POST",
					"/v1/attestation/challenge", body, &js),
				 400);
		json_object_put(js);
	}
	after = vh_snapshot(&F);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* A valid pair is a character like any other. */
	snprintf(body, sizeof(body),
		 "{\"name\":\"u8\",\"whitelist\":{\"digests\":"
		 "{\"/usr/bin/\\ud83d\\udd12\":[\"sha256:%064d\"]}}}",
		 0);
	assert_int_equal(
		vh_req(&F, "admin", "POST", "/v1/whitelists", body, &js), 201);
	json_object_put(js);
}

int main(void)
{
	static const char *const extra[] = {"--ek-ca-dir",
					    ATT_SWTPM_LOCALCA_DIR,
					    "--max_body",
					    "4194304",
					    "--max_body_inflight",
					    "8388608",
					    "--max_connections",
					    "64",
					    NULL};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anonymous_uploads),
		cmocka_unit_test(test_anonymous_route_cap),
		cmocka_unit_test(test_body_budget),
		cmocka_unit_test(test_json_not_utf8),
	};

	signal(SIGPIPE, SIG_IGN);
	return vh_run_groups(&F, "bodies", extra, NULL, tests,
			     sizeof(tests) / sizeof(tests[0]));
}
