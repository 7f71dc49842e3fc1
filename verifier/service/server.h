/* SPDX-License-Identifier: Apache-2.0 */
/*
 * server.h - the HTTPS front end (libmicrohttpd over GnuTLS): TLS only,
 * client certificates requested and classified on every request, bodies
 * kept in a capped buffer, connection and time limits, and a drain on
 * shutdown that lets in-flight requests finish.
 */
#ifndef ATTEST_VERIFIER_SERVER_H
#define ATTEST_VERIFIER_SERVER_H

#include "service.h"

struct ver_server;

int ver_server_start(struct ver_ctx *ctx, struct ver_server **out);
/* The bound TCP port. */
unsigned int ver_server_port(const struct ver_server *s);

#ifdef ATT_FUZZING
/*
 * Fuzzing builds only (tests/fuzz/fuzz_http.c): the same daemon and
 * callbacks without TLS and without a listening socket; every caller is
 * anonymous. ver_server_add_fd hands it one end of a connected stream
 * socket (owned by the daemon from then on).
 */
int ver_server_start_plain(struct ver_ctx *ctx, struct ver_server **out);
int ver_server_add_fd(struct ver_server *s, int fd);
#endif
/*
 * Stops accepting, waits up to timeout seconds for in-flight requests,
 * then stops and frees the server.
 */
void ver_server_drain_stop(struct ver_server *s, unsigned int timeout);

#endif
