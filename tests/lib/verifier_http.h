/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verifier_http.h - a small HTTPS/1.1 client for tests of attest-verifier
 * (OpenSSL; verifies the server against DIR/server-ca.pem and 127.0.0.1;
 * presents DIR/WHO.pem + DIR/WHO.key as client certificate when WHO is
 * not NULL). One request per connection.
 */
#ifndef ATTEST_TEST_VERIFIER_HTTP_H
#define ATTEST_TEST_VERIFIER_HTTP_H

#include <stddef.h>

struct att_vh_resp {
	int status; /* HTTP status, 0 when none was read */
	char *body; /* NUL-terminated, malloc'd */
	size_t len;
};

void att_vh_resp_release(struct att_vh_resp *r);

/* body may be NULL. Returns 0 when a response was read. */
int att_vh_request(unsigned int port, const char *pki_dir, const char *who,
		   const char *method, const char *path, const char *body,
		   size_t len, struct att_vh_resp *out);
/* Sends raw bytes as the whole request (for malformed HTTP). */
int att_vh_raw(unsigned int port, const char *pki_dir, const char *who,
	       const void *raw, size_t n, struct att_vh_resp *out);

/*
 * The value of one series of the verifier's /metrics (admin), named by
 * a printf format, e.g. "attest_challenges_total{via=\"%s\"}"; -1 when
 * it cannot be read or the series is missing.
 */
long long att_vh_metric(unsigned int port, const char *pki_dir, const char *fmt,
			...) __attribute__((format(printf, 3, 4)));

/*
 * Validates a JSON document against $ATT_SRC/schemas/<schema> (draft
 * 2020-12, with the other schemas there for $ref) with python3-jsonschema.
 * 0 when valid; the errors are printed on stderr.
 */
int att_vh_schema(const char *schema, const char *json);

/*
 * The schemas of a route's request body and of its answer with that
 * status (NULL when there is none, e.g. /metrics).
 */
void att_vh_schemas_for(const char *method, const char *path, int status,
			const char **req_schema, const char **resp_schema);
/*
 * Checks one exchange: the answer always; the request body when the
 * verifier accepted it (2xx: what it accepts, the schema must accept).
 */
int att_vh_check_exchange(const char *method, const char *path,
			  const char *body, int status, const char *answer);

#endif
