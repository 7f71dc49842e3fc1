// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_http.c - the verifier's HTTP layer: raw bytes through
 * libmicrohttpd and server.c (request line, headers, Content-Length and
 * chunked bodies, keep-alive with several requests, the route gates, the
 * body caps and the budget of bodies in flight) into ver_route() and the
 * handlers an anonymous caller reaches. fuzz_rest.c covers the handlers
 * behind the roles; this covers what comes before them.
 *
 * The daemon is server.c's, started without TLS, without a listening
 * socket and with poll() for epoll (ver_server_start_plain, fuzzing
 * builds only); each input is
 * written to one end of a socketpair whose other end the daemon owns, the
 * write side is then shut, and every answer is read until the daemon
 * closes the connection. Small caps (max_body 64 KiB, max_anon_body
 * 4 KiB, max_body_inflight 96 KiB) so inputs reach them.
 *
 * Checked (__builtin_trap otherwise): every answer's status line is
 * HTTP/1.x with a status from 100 to 599 and never 500 (an internal
 * error is a handler or server.c failing on input); when a connection
 * gives nothing for 3 s after its input, a fresh GET /healthz must still
 * be answered 200 within 5 s (a stalled connection alone is counted, not
 * a finding: three were seen in about two million inputs, none
 * reproducing from its input alone). ASan, UBSan and LeakSanitizer do the
 * rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sqlite3.h>

#include "attest/err.h"
#include "attest/log.h"
#include "config.h"
#include "metrics.h"
#include "server.h"
#include "service.h"
#include "store.h"
#include "store_impl.h"
#include "wlcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OUT_MAX (1u << 20)

static struct {
	int ready;
	unsigned long stalls; /* connections that stalled, daemon alive */
	struct ver_config cfg;
	struct ver_ctx ctx;
	struct ver_server *srv;
	char out[OUT_MAX + 1];
} F;

static void quiet(enum att_log_level lvl, const char *msg, void *arg)
{
	(void)lvl;
	(void)msg;
	(void)arg;
}

/* The PostgreSQL backend is not linked. */
int att_store_pg_open(const char *url, struct att_store **out)
{
	(void)url;
	*out = NULL;
	return ATT_E_UNSUPPORTED;
}

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_http: %s failed\n", what);
		abort();
	}
}

static void init(void)
{
	char err[200];

	att_log_set_sink(quiet, NULL);
	ver_config_defaults(&F.cfg);
	must(!ver_config_set(&F.cfg, "max_body", "65536", err, sizeof(err)) &&
		     !ver_config_set(&F.cfg, "max_anon_body", "4096", err,
				     sizeof(err)) &&
		     !ver_config_set(&F.cfg, "max_body_inflight", "98304", err,
				     sizeof(err)) &&
		     !ver_config_set(&F.cfg, "request_timeout", "5", err,
				     sizeof(err)),
	     "config");
	F.ctx.cfg = &F.cfg;
	must(!att_store_open("sqlite::memory:", &F.ctx.store), "store");
	must(!ver_wlcache_new(16, &F.ctx.wlc), "whitelist cache");
	must(!ver_metrics_new(&F.ctx.metrics), "metrics");
	must(!ver_server_start_plain(&F.ctx, &F.srv), "daemon");
	F.ready = 1;
}

/* A fresh GET /healthz is answered 200 within 5 s. */
static int daemon_alive(void)
{
	static const char req[] =
		"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	struct pollfd p;
	char buf[64];
	ssize_t r;
	int sv[2], ok = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 1; /* no verdict without a socket */
	if (ver_server_add_fd(F.srv, sv[0])) {
		close(sv[1]);
		return 1; /* connection limit: busy, not hung */
	}
	if (send(sv[1], req, sizeof(req) - 1, MSG_NOSIGNAL) ==
	    (ssize_t)(sizeof(req) - 1)) {
		p.fd = sv[1];
		p.events = POLLIN;
		if (poll(&p, 1, 5000) > 0) {
			r = recv(sv[1], buf, sizeof(buf) - 1, 0);
			ok = r > 12 && !memcmp(buf, "HTTP/1.1 200", 12);
		}
	}
	close(sv[1]);
	return ok;
}

/* Every status line in the answers: HTTP/1.x NNN, never 500. */
static void check(const char *out, size_t n)
{
	const char *p = out, *end = out + n;
	int st;

	while (p < end && (p = memmem(p, (size_t)(end - p), "HTTP/1.", 7))) {
		if ((p == out || p[-1] == '\n') && p + 12 <= end) {
			if (p[8] != ' ' || sscanf(p + 9, "%3d", &st) != 1 ||
			    st < 100 || st > 599) {
				fprintf(stderr, "fuzz_http: bad status line\n");
				__builtin_trap();
			}
			if (st == 500) {
				fprintf(stderr, "fuzz_http: 500: %.*s\n",
					(int)(end - p > 300 ? 300 : end - p),
					p);
				__builtin_trap();
			}
		}
		p += 7;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pollfd pfd;
	size_t off = 0, n = 0;
	ssize_t r;
	int sv[2];

	if (!F.ready)
		init();
	must(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
	     "socketpair");
	if (ver_server_add_fd(F.srv, sv[0])) {
		close(sv[1]);
		return 0; /* connection limit: the daemon closed it */
	}
	must(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0, "O_NONBLOCK");
	if (size == 0)
		shutdown(sv[1], SHUT_WR);
	/* Write all of it (the answers are read as it goes). */
	pfd.fd = sv[1];
	while (off < size || n < OUT_MAX) {
		pfd.events = (short)(POLLIN | (off < size ? POLLOUT : 0));
		if (poll(&pfd, 1, 3000) <= 0) {
			/*
			 * This connection stalls (seen rarely, not reproduced
			 * from the input alone): a finding only if the
			 * daemon serves no one else either.
			 */
			if (!daemon_alive()) {
				fprintf(stderr,
					"fuzz_http: the daemon hangs\n");
				__builtin_trap();
			}
			F.stalls++;
			break;
		}
		if ((pfd.revents & POLLOUT) && off < size) {
			r = send(sv[1], data + off, size - off, MSG_NOSIGNAL);
			if (r < 0 && errno != EAGAIN && errno != EINTR)
				off = size; /* closed on us: read the rest */
			else if (r > 0)
				off += (size_t)r;
			if (off == size)
				shutdown(sv[1], SHUT_WR);
			continue;
		}
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			r = recv(sv[1], F.out + n, OUT_MAX - n, 0);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				if (off < size) {
					off = size; /* it closed first */
					continue;
				}
				break;
			}
			n += (size_t)r;
		}
	}
	close(sv[1]);
	check(F.out, n);
	return 0;
}
