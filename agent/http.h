/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http.h - the agent's HTTPS client: libcurl, the verifier's CA pinned (no
 * system trust store, no plaintext), an optional client certificate, and
 * failover across the configured verifier URLs.
 */
#ifndef ATTEST_AGENT_HTTP_H
#define ATTEST_AGENT_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "attest/buf.h"

#define AGENT_HTTP_MAX_BODY (64u << 20)

struct agent_http;

struct agent_http_resp {
	long status;	     /* HTTP status; 0 when no response */
	struct att_buf body; /* capped at AGENT_HTTP_MAX_BODY */
	const char *url;     /* the verifier that answered */
};

/*
 * urls: https:// base URLs in failover order; ca: the PEM file of the
 * verifier's CA (the only trust anchor), read now.
 */
int agent_http_new(const char *const *urls, size_t nurls, const char *ca,
		   struct agent_http **out);
void agent_http_free(struct agent_http *h);

/*
 * Reads (or clears with NULLs) the client certificate and key files: they
 * are kept in memory, so privileges can be dropped afterwards.
 */
int agent_http_set_client_cert(struct agent_http *h, const char *cert,
			       const char *key);
/* Per-request timeout in seconds (default 30). */
void agent_http_set_timeout(struct agent_http *h, long seconds);

/*
 * Sends method path (e.g. "POST", "/v1/attest/challenge") with an optional
 * JSON body to the current verifier; on a transport failure (connection,
 * TLS, timeout) or a 502/503/504 it tries the next URL, starting next time
 * from the one that answered. ATT_E_NET when none answered (resp->status
 * 0); ATT_OK with resp->status set otherwise, whatever the status.
 */
int agent_http_request(struct agent_http *h, const char *method,
		       const char *path, const void *body, size_t body_len,
		       struct agent_http_resp *resp);
void agent_http_resp_release(struct agent_http_resp *r);

/* Exponential backoff with full jitter: base * 2^attempt, capped. */
struct agent_backoff {
	unsigned int attempt;
	unsigned int base_ms, max_ms;
};

void agent_backoff_init(struct agent_backoff *b, unsigned int base_ms,
			unsigned int max_ms);
/* The next delay in milliseconds, uniformly in [0, min(max, base*2^n)]. */
unsigned int agent_backoff_next(struct agent_backoff *b);
void agent_backoff_reset(struct agent_backoff *b);

#endif
