/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ctl.h - attestctl: the admin CLI over the verifier's REST API.
 */
#ifndef ATTEST_CTL_H
#define ATTEST_CTL_H

#include <stddef.h>

#include "attest/buf.h"

/* Exit codes (stable, for scripts). */
enum ctl_exit {
	CTL_OK = 0,
	CTL_FAIL = 1,	   /* a check ran and did not pass */
	CTL_USAGE = 2,	   /* bad command line or local file */
	CTL_CONNECT = 3,   /* no answer: connection, TLS, timeout */
	CTL_NOT_FOUND = 4, /* 404 */
	CTL_REFUSED = 5,   /* other 4xx: auth, conflict, invalid */
	CTL_SERVER = 6,	   /* 5xx */
};

struct ctl {
	const char *url;	/* https://host:port */
	const char *cacert;	/* the verifier's CA (pinned) */
	const char *cert, *key; /* admin client certificate */
	int json;		/* --json: print the raw answer */
};

/*
 * One request; body may be NULL. *status gets the HTTP status, out the
 * answer. Returns CTL_OK or CTL_CONNECT (message printed).
 */
int ctl_request(const struct ctl *c, const char *method, const char *path,
		const char *body, long *status, struct att_buf *out);
/* Maps an HTTP status to an exit code, printing the error body. */
int ctl_status_exit(long status, const struct att_buf *answer);

#endif
