// SPDX-License-Identifier: Apache-2.0
/*
 * test_attacks_evidence.c - attacks with what an enrolled host sends, and
 * on the transport, against the real attest-verifier over TLS (SQLite;
 * PostgreSQL) with a real swtpm through the agent's TPM layer (the
 * front-door attacks are in test_attacks.c).
 *
 * - Every way to doctor the IMA list sent with a genuine quote: an entry
 *   edited, deleted, two swapped, a whitelisted entry inserted, the last
 *   quoted one cut off: untrusted with the reason in the result, and the
 *   next honest round is trusted (nothing doctored was kept); fakes
 *   appended after the quoted entries are reported unverified, never
 *   verified.
 * - A genuine quote over a PCR selection that omits a PCR the challenge
 *   asked for (PCR 10 with the IMA list, PCR 0), or adds nothing but
 *   PCR 10: untrusted, "quoted PCR selection is not the one requested".
 * - An evidence body past max_body: 413 body_too_large, nothing stored,
 *   the next round as usual.
 * - Slow and half-open clients (silent TCP connections, a partial TLS
 *   record, TLS with a request that never ends): others are still
 *   served meanwhile, and the verifier closes every one of them after
 *   its request timeout.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <openssl/ssl.h>

#include "../../verifier/service/store.h"
#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/tpm_esys.h"
#include "imabuild.h"
#include "pg_cluster.h"
#include "swtpm.h"
#include "verifier_http.h"
#include "verifier_proc.h"
#include "vhost/vhost.h"

static struct vh_host F;

static const char *const extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, NULL};

/* ---- doctored IMA lists ---- */

#define MAXREC 8

/* Record boundaries of a chunk of binary ima-ng records. */
static int split(const struct att_buf *c, size_t *off)
{
	size_t p = 0;
	uint32_t n;
	int k = 0;

	while (p < c->len && k < MAXREC) {
		off[k++] = p;
		p += 4 + 20;
		memcpy(&n, c->data + p, 4);
		p += 4 + n;
		memcpy(&n, c->data + p, 4);
		p += 4 + n;
	}
	off[k] = p;
	return k;
}

/* Rebuilds c from its records in the order given (-1: the fake one). */
static void rebuild(struct att_buf *c, const int *order, int n)
{
	size_t off[MAXREC + 1];
	struct att_buf out, td;
	uint8_t d[32];
	int i;

	split(c, off);
	att_buf_init(&out, 0);
	for (i = 0; i < n; i++) {
		if (order[i] >= 0) {
			att_buf_append(&out, c->data + off[order[i]],
				       off[order[i] + 1] - off[order[i]]);
			continue;
		}
		/* A well-formed record of a whitelisted file. */
		att_buf_init(&td, 0);
		ib_hash("sha256", "A", 1, d);
		ib_dng(&td, "sha256", d, 32);
		ib_nng(&td, "/usr/bin/a");
		ib_record(&out, 10, "sha1", "ima-ng", &td, 0);
		att_buf_release(&td);
	}
	c->len = 0;
	att_buf_append(c, out.data, out.len);
	att_buf_release(&out);
}

static void m_delete(struct att_buf *c)
{
	static const int o[] = {0, 2};

	rebuild(c, o, 2);
}

static void m_swap(struct att_buf *c)
{
	static const int o[] = {1, 0, 2};

	rebuild(c, o, 3);
}

static void m_insert(struct att_buf *c)
{
	static const int o[] = {0, -1, 1, 2};

	rebuild(c, o, 4);
}

static void m_cut(struct att_buf *c)
{
	static const int o[] = {0, 1};

	rebuild(c, o, 2);
}

static void m_edit(struct att_buf *c)
{
	size_t off[MAXREC + 1];

	split(c, off);
	/* The last byte of the second record: its file's path. */
	c->data[off[2] - 2] ^= 0x20;
}

static void m_append(struct att_buf *c)
{
	static const int o[] = {0, 1, 2, -1};

	rebuild(c, o, 4);
}

static void test_doctored_lists(void **state)
{
	static const struct {
		const char *what;
		void (*mangle)(struct att_buf *);
	} bad[] = {
		{"edited", m_edit},  {"deleted", m_delete},
		{"swapped", m_swap}, {"inserted", m_insert},
		{"cut off", m_cut},
	};
	struct json_object *res, *log;
	char body[512], ha[65], hb[65], hc[65];
	size_t i;

	(void)state;
	ib_sha256_hex("A", ha);
	ib_sha256_hex("B", hb);
	ib_sha256_hex("C", hc);
	snprintf(body, sizeof(body),
		 "{\"whitelist\":{\"digests\":{\"/usr/bin/a\":[\"%s\"],"
		 "\"/usr/bin/b\":[\"%s\"],\"/usr/bin/c\":[\"%s\"]}}}",
		 ha, hb, hc);
	assert_int_equal(
		vh_req(&F, "admin", "PUT", "/v1/whitelists/base", body, &res),
		200);
	json_object_put(res);
	vh_boot(&F);
	for (i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};
		const char *want = "untrusted";

		vh_measure(&F, "/usr/bin/a", "A");
		vh_measure(&F, "/usr/bin/b", "B");
		vh_measure(&F, "/usr/bin/c", "C");
		if (i < sizeof(bad) / sizeof(bad[0]))
			rd.mangle = bad[i].mangle;
		else
			rd.mangle = m_append, want = "trusted";
		assert_int_equal(vh_attest(&F, &rd, &res), 200);
		free(rd.body_out);
		if (strcmp(vh_jstr(res, "state"), want))
			fail_msg("%s: %s",
				 i < sizeof(bad) / sizeof(bad[0]) ? bad[i].what
								  : "appended",
				 json_object_to_json_string(res));
		log = json_object_array_get_idx(vh_jget(res, "logs"), 0);
		if (rd.mangle != m_append) {
			/* The reason is in the agent's result. */
			assert_non_null(strstr(json_object_to_json_string(
						       vh_jget(res, "reasons")),
					       "log ima:"));
			assert_false(json_object_get_boolean(
				vh_jget(log, "replay_matched")));
		} else {
			/* 3 quoted entries verified; the fake is not. */
			assert_int_equal(vh_jint(log, "verified"), 3);
			assert_int_equal(vh_jint(log, "unverified"), 1);
		}
		json_object_put(res);
		/* The honest list next: trusted, nothing doctored kept. */
		{
			struct vh_round ok = {
				.id = "host-1", .start = -1, .upto = -1};

			assert_int_equal(vh_attest(&F, &ok, &res), 200);
			free(ok.body_out);
			if (strcmp(vh_jstr(res, "state"), "trusted"))
				fail_msg("after %zu: %s", i,
					 json_object_to_json_string(res));
			json_object_put(res);
		}
	}
}

/* ---- a quote over another PCR selection ---- */

static void test_pcr_selection(void **state)
{
	static const uint32_t masks[] = {0x3ff, 0x7fe, 0x400, 0xfff};
	struct json_object *res;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		struct vh_round rd = {.id = "host-1",
				      .start = -1,
				      .upto = -1,
				      .sel_mask = masks[i]};

		vh_measure(&F, "/usr/bin/a", "A");
		assert_int_equal(vh_attest(&F, &rd, &res), 200);
		free(rd.body_out);
		if (strcmp(vh_jstr(res, "state"), "untrusted") ||
		    !strstr(json_object_to_json_string(res),
			    "quote: quoted PCR selection is not the one "
			    "requested"))
			fail_msg("selection 0x%x: %s", masks[i],
				 json_object_to_json_string(res));
		json_object_put(res);
	}
	/* The selection asked for: trusted again. */
	{
		struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};

		assert_int_equal(vh_attest(&F, &rd, &res), 200);
		free(rd.body_out);
		assert_string_equal(vh_jstr(res, "state"), "trusted");
		json_object_put(res);
	}
}

/* ---- an evidence body past the cap ---- */

static void test_huge_evidence(void **state)
{
	const size_t n = (16u << 20) + 4096; /* the default max_body + 4 KiB */
	struct json_object *js;
	char *before, *after, *body;
	size_t i;

	(void)state;
	before = vh_snapshot(&F);
	body = malloc(n + 1);
	assert_non_null(body);
	i = (size_t)snprintf(body, 128,
			     "{\"agent_id\":\"host-1\",\"logs\":[{\"name\":"
			     "\"ima\",\"start\":0,\"entries\":\"");
	memset(body + i, 'A', n - i - 4);
	memcpy(body + n - 4, "\"}]}", 5);
	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/evidence", body, &js),
			 413);
	assert_string_equal(vh_jstr(js, "code"), "body_too_large");
	json_object_put(js);
	free(body);
	after = vh_snapshot(&F);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* And the agent attests as before. */
	{
		struct vh_round rd = {.id = "host-1", .start = -1, .upto = -1};

		vh_measure(&F, "/usr/bin/a", "A");
		assert_int_equal(vh_attest(&F, &rd, &js), 200);
		free(rd.body_out);
		assert_string_equal(vh_jstr(js, "state"), "trusted");
		json_object_put(js);
	}
}

/* ---- slow and half-open clients ---- */

#define SLOW_TCP 30
#define SLOW_TLS 10
#define SLOW_ALL (SLOW_TCP + 2 * SLOW_TLS)

static int tcp_to(unsigned int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Waits (bounded) until the server has closed every fd; returns how many. */
static int wait_closed(int *fds, int n, int seconds)
{
	struct timespec t0, t;
	char buf[4096];
	int closed = 0, i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < n; i++) {
			struct pollfd p = {.fd = fds[i], .events = POLLIN};
			ssize_t r;

			if (fds[i] < 0 || poll(&p, 1, 0) != 1)
				continue;
			r = recv(fds[i], buf, sizeof(buf), MSG_DONTWAIT);
			if (r == 0 || (r < 0 && errno != EAGAIN)) {
				close(fds[i]);
				fds[i] = -1;
				closed++;
			}
		}
		if (closed < n)
			usleep(50000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (closed < n && t.tv_sec - t0.tv_sec < seconds);
	return closed;
}

static void test_slow_clients(void **state)
{
	static const char *const slow[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR,
					   "--request-timeout", "2", NULL};
	static const uint8_t partial_record[] = {0x16, 0x03, 0x01,
						 0x02, 0x00, 0x01};
	static const char partial_http[] =
		"GET /healthz HTTP/1.1\r\nHost: x\r\n";
	struct att_vproc *keep = F.vp, *v;
	SSL_CTX *ctx;
	SSL *ssl[SLOW_TLS];
	struct json_object *js;
	int fds[SLOW_ALL], i, n = 0, closed;

	(void)state;
	assert_int_equal(att_vproc_start(F.dir, F.db, slow, &v), 0);
	ctx = SSL_CTX_new(TLS_client_method());
	assert_non_null(ctx);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	/* Silent TCP: no ClientHello ever. */
	for (i = 0; i < SLOW_TCP; i++)
		fds[n++] = tcp_to(att_vproc_port(v));
	/* A TLS record header and one byte of its 512. */
	for (i = 0; i < SLOW_TLS; i++) {
		fds[n] = tcp_to(att_vproc_port(v));
		assert_int_equal(
			send(fds[n], partial_record, sizeof(partial_record), 0),
			(ssize_t)sizeof(partial_record));
		n++;
	}
	/* TLS done, then a request whose headers never end. */
	for (i = 0; i < SLOW_TLS; i++) {
		fds[n] = tcp_to(att_vproc_port(v));
		ssl[i] = SSL_new(ctx);
		assert_non_null(ssl[i]);
		SSL_set_fd(ssl[i], fds[n]);
		assert_int_equal(SSL_connect(ssl[i]), 1);
		assert_int_equal(SSL_write(ssl[i], partial_http,
					   (int)strlen(partial_http)),
				 (int)strlen(partial_http));
		n++;
	}
	/* Meanwhile everyone else is served. */
	F.vp = v;
	assert_int_equal(vh_req(&F, NULL, "GET", "/healthz", NULL, &js), 200);
	json_object_put(js);
	assert_int_equal(vh_req(&F, "admin", "GET", "/v1/agents", NULL, &js),
			 200);
	json_object_put(js);
	assert_int_equal(vh_req(&F, "host-1", "POST",
				"/v1/attestation/challenge",
				"{\"agent_id\":\"host-1\"}", &js),
			 201);
	json_object_put(js);
	/* And every slow one is dropped after its 2 s. */
	closed = wait_closed(fds, n, 20);
	fprintf(stderr, "slow clients: %d of %d closed by the verifier\n",
		closed, n);
	assert_int_equal(closed, n);
	assert_int_equal(vh_req(&F, NULL, "GET", "/healthz", NULL, &js), 200);
	json_object_put(js);
	F.vp = keep;
	for (i = 0; i < SLOW_TLS; i++)
		SSL_free(ssl[i]);
	SSL_CTX_free(ctx);
	assert_int_equal(att_vproc_stop(v, &i), 0);
	assert_int_equal(i, 0);
	att_vproc_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doctored_lists),
		cmocka_unit_test(test_pcr_selection),
		cmocka_unit_test(test_huge_evidence),
		cmocka_unit_test(test_slow_clients),
	};
	return vh_run_groups(&F, "attackev", extra, NULL, tests,
			     sizeof(tests) / sizeof(tests[0]));
}
