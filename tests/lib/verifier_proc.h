/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verifier_proc.h - runs the real attest-verifier for a test: a
 * throwaway PKI (deploy/pki.sh) in a scratch directory, the release
 * binary from $ATT_BUILD/bin, a free port chosen by the verifier itself
 * (--listen 127.0.0.1:0 --port-file), ready once /healthz answers over
 * TLS; stopped with SIGTERM and its exit status checked.
 */
#ifndef ATTEST_TEST_VERIFIER_PROC_H
#define ATTEST_TEST_VERIFIER_PROC_H

/* Runs deploy/pki.sh init DIR (DIR from mkdtemp is fine). */
int att_pki_init(const char *dir);
/* deploy/pki.sh client DIR CA NAME. */
int att_pki_client(const char *dir, const char *ca, const char *name);

struct att_vproc;

/*
 * Starts attest-verifier with the PKI in dir, the database URL db, and
 * extra flags (NULL-terminated, may be NULL). Its stderr goes to
 * dir/verifier-N.log. Fails loudly (message on stderr) when it cannot.
 */
int att_vproc_start(const char *dir, const char *db, const char *const *extra,
		    struct att_vproc **out);
/*
 * The same, run through the command prefix wrap (NULL-terminated, e.g.
 * {"unshare", "-m", ..., NULL}): the prefix must end by exec'ing the
 * verifier command line that follows it, so that the pid is the
 * verifier's.
 */
int att_vproc_start_wrapped(const char *dir, const char *db,
			    const char *const *extra, const char *const *wrap,
			    struct att_vproc **out);
unsigned int att_vproc_port(const struct att_vproc *p);
int att_vproc_pid(const struct att_vproc *p);
/* SIGTERM and wait; *status gets the exit status (-1: killed). */
int att_vproc_stop(struct att_vproc *p, int *status);
/* Stops (SIGKILL if still running) and frees. NULL is fine. */
void att_vproc_free(struct att_vproc *p);

/* Path of a binary in $ATT_BUILD/bin (static buffer per call site). */
int att_vproc_bin(const char *name, char *out, size_t cap);

#endif
