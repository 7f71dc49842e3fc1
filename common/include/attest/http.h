/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http.h - the HTTPS client of attest-agent and attestctl: libcurl, the
 * verifier's CA pinned (no system trust store, no plaintext), an optional
 * client certificate, and failover across the configured verifier URLs.
 * A binary that uses it links libcurl.
 */
#ifndef ATTEST_HTTP_H
#define ATTEST_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "attest/buf.h"

#define ATT_HTTP_MAX_BODY (64u << 20)

struct att_http;

struct att_http_resp {
	long status;	     /* HTTP status; 0 when no response */
	struct att_buf body; /* capped at ATT_HTTP_MAX_BODY */
	const char *url;     /* the verifier that answered */
};

/*
 * urls: https:// base URLs in failover order; ca: the PEM file of the
 * verifier's CA (the only trust anchor), read now.
 */
int att_http_new(const char *const *urls, size_t nurls, const char *ca,
		 struct att_http **out);
void att_http_free(struct att_http *h);

/*
 * Reads (or clears with NULLs) the client certificate and key files: they
 * are kept in memory, so privileges can be dropped afterwards.
 */
int att_http_set_client_cert(struct att_http *h, const char *cert,
			     const char *key);
/* Per-request timeout in seconds (default 30). */
void att_http_set_timeout(struct att_http *h, long seconds);

/*
 * Sends method path (e.g. "POST", "/v1/attest/challenge") with an optional
 * JSON body to the current verifier; on a transport failure (connection,
 * TLS, timeout) or a 502/503/504 it tries the next URL, starting next time
 * from the one that answered. ATT_E_NET when none answered (resp->status
 * 0); ATT_OK with resp->status set otherwise, whatever the status.
 */
int att_http_request(struct att_http *h, const char *method, const char *path,
		     const void *body, size_t body_len,
		     struct att_http_resp *resp);
void att_http_resp_release(struct att_http_resp *r);

/* Exponential backoff with full jitter: base * 2^attempt, capped. */
struct att_backoff {
	unsigned int attempt;
	unsigned int base_ms, max_ms;
};

void att_backoff_init(struct att_backoff *b, unsigned int base_ms,
		      unsigned int max_ms);
/* The next delay in milliseconds, uniformly in [0, min(max, base*2^n)]. */
unsigned int att_backoff_next(struct att_backoff *b);
void att_backoff_reset(struct att_backoff *b);

#endif
