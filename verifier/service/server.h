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
/*
 * Stops accepting, waits up to timeout seconds for in-flight requests,
 * then stops and frees the server.
 */
void ver_server_drain_stop(struct ver_server *s, unsigned int timeout);

#endif
