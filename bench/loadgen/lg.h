/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lg.h - att-bench-loadgen's simulated agents: the hosts' files and IMA
 * records, and one agent's protocol (enrollment, challenge/evidence
 * rounds) over libcurl with its own client certificate.
 */
#ifndef BENCH_LG_H
#define BENCH_LG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "attest/buf.h"
#include "attest/digest.h"

/*
 * The simulated hosts' files (read-only once built): file i is
 * /usr/lib/bench/fNNNNNNN with content "bench file i"; its ima-ng record
 * (template digest SHA-1) and the SHA-256 of its template data (what the
 * kernel extends into the sha256 bank) are precomputed.
 */
struct lg_files {
	uint32_t n;
	struct att_buf rec;   /* n ima-ng binary records */
	uint32_t *off;	      /* n + 1 offsets into rec */
	uint8_t *t256;	      /* n x 32 */
	uint8_t *fdig;	      /* n x 32: file content digests */
	uint8_t pcr[10][32];  /* every host's PCRs 0-9 (sha256) */
	uint8_t agg_rec[160]; /* boot_aggregate record */
	size_t agg_len;
	uint8_t agg_t256[32];
};

int lg_files_new(uint32_t n, struct lg_files **out);
void lg_files_free(struct lg_files *f);
/* {"name": name, "whitelist": {"digests": {path: [hex], ...}}} */
int lg_files_whitelist(const struct lg_files *f, const char *name,
		       struct att_buf *out);
/* An ima-ng record of (path, content) and the SHA-256 of its data. */
int lg_record(const char *path, const void *content, size_t clen,
	      struct att_buf *out, uint8_t *t256);

/* Run-wide settings shared by every agent. */
struct lg_conf {
	char *const *urls; /* https://127.0.0.1:PORT, one per verifier */
	unsigned int nurls;
	struct curl_blob ca;	     /* server CA (PEM) */
	struct curl_blob admin_cert; /* admin client certificate (PEM) */
	struct curl_blob admin_key;  /* its key (PEM) */
	struct curl_slist *headers;  /* Content-Type, no Expect */
	EVP_PKEY *ekca_key;	     /* the TPM vendor CA */
	X509 *ekca_cert;
	const struct lg_files *files;
	unsigned int entries; /* new entries per round */
	int ecc_ek;	      /* P-256 EKs (else RSA-2048) */
	int reconnect;	      /* a new TLS connection every round */
	int ask_always; /* never ask for the next challenge with a verdict */
	const char *wl_name;
	const char *prefix; /* agent ids: PREFIX-NNNNN */
	/* LG_UNKNOWN agents' file; NULL: /usr/bin/not-whitelisted-ID */
	const char *unknown_path;
	long timeout; /* seconds per request */
};

enum lg_kind {
	LG_HONEST,
	LG_BAD_SIG, /* the quote's signature is broken */
	LG_UNKNOWN, /* one entry per round is a file not in the whitelist */
};

/* Per-thread scratch buffers and the admin/anonymous handles. */
struct lg_scratch {
	struct att_buf body, resp, log, b64;
	CURL *admin, *anon;
	struct att_md *sha256; /* the simulated kernel's PCR extends */
};

int lg_scratch_init(struct lg_scratch *s, const struct lg_conf *c);
void lg_scratch_release(struct lg_scratch *s);

/* One HTTPS request; *status is the HTTP status (0: none). */
int lg_http(CURL *h, const char *url, const char *method, const char *body,
	    size_t len, struct att_buf *resp, long *status);
CURL *lg_curl_new(const struct lg_conf *c, const struct curl_blob *cert,
		  const struct curl_blob *key);

struct lg_agent;

/* An agent (index idx) with a fresh EK and AK; nothing sent yet. */
int lg_agent_new(const struct lg_conf *c, unsigned int idx, enum lg_kind kind,
		 struct lg_agent **out);
void lg_agent_free(struct lg_agent *a);
const char *lg_agent_id(const struct lg_agent *a);
enum lg_kind lg_agent_kind(const struct lg_agent *a);
/* The first round sends n new entries instead of c->entries. */
void lg_agent_set_first(struct lg_agent *a, uint32_t n);
/* Claims the agent for one round (0: someone else has it). */
int lg_agent_claim(struct lg_agent *a);
void lg_agent_release(struct lg_agent *a);

/*
 * Token (admin), POST /v1/enroll, ActivateCredential, /v1/enroll/activate
 * with a CSR, whitelist assignment (admin); then the agent's own handle
 * with its client certificate.
 */
int lg_agent_enroll(struct lg_agent *a, struct lg_scratch *s);
/*
 * challenge -> quote -> evidence over the agent's keep-alive connection
 * (closed after the evidence when close is set). 0 when a verdict came
 * back: *as_expected says whether it is the one for this agent's kind
 * (honest: trusted, misbehaving: untrusted).
 */
int lg_agent_round(struct lg_agent *a, struct lg_scratch *s, int close,
		   int *as_expected);

/* --selftest: software TPM against libattest (RSA and ECC EKs, quotes). */
int lg_selftest(long n);

/* ---- run.c: phases over worker threads and processes ---- */

#define LG_LAT_CAP     (4u << 20) /* latencies kept per phase */
#define LG_MAX_THREADS 1024
#define LG_MAX_PROCS   16

enum lg_phase_kind {
	LG_PH_ENROLL,	/* every agent enrolls */
	LG_PH_WARMUP,	/* a round each, connection closed after it */
	LG_PH_MEASURED, /* closed loop, or open loop at st->rate */
	LG_PH_CONNECT,	/* a round each, connection left open */
	LG_PH_PRIME,	/* agents 0..primed-1: first round, one at a time */
};

/* A phase's settings and counters, shared by every process of the run. */
struct lg_stats {
	atomic_ulong done, errors, mismatches, nlat;
	atomic_ulong ticket;  /* open loop: next scheduled round */
	double t0, end, rate; /* rate 0: closed loop */
	int phase;
	unsigned int primed; /* agents 0..primed-1: first round done */
};

struct lg_run {
	struct lg_conf *c;
	enum lg_kind (*kind)(unsigned int idx);
	struct lg_stats *st; /* shared memory */
	double *lat;	     /* shared: LG_LAT_CAP latencies, seconds */
	/* This process's agents: run-wide index i * nproc + proc. */
	struct lg_agent **agents;
	unsigned int n, conc;
	atomic_uint cursor;
	unsigned int total, conc_total; /* the whole run */
	unsigned int nproc, proc;
	int is_child, child_rc;
	pid_t pids[LG_MAX_PROCS];
	int cmd[LG_MAX_PROCS], ack[LG_MAX_PROCS];
	double busy; /* machine CPU busy during the last phase, in cores */
};

/*
 * Sets up the shared counters and, with nproc > 1, forks the processes
 * (before any agent exists). In a child it returns only when the parent
 * has stopped the run, with r->is_child set: the caller then returns
 * lg_run_stop(r) at once.
 */
int lg_run_start(struct lg_run *r, unsigned int nagents, unsigned int conc,
		 unsigned int nproc);
/* One phase in every process; r->busy is the machine's load meanwhile. */
int lg_phase(struct lg_run *r, int phase, double duration, double rate);
/* CPU seconds of the load generator, all its processes. */
double lg_gen_cpu(const struct lg_run *r);
void lg_run_free_agents(struct lg_run *r);
/* Stops the processes and frees everything; 0 when all ended well. */
int lg_run_stop(struct lg_run *r);
double lg_now(void);

/* Processes' CPU and memory from /proc, summed over pids. */
struct lg_proc {
	double cpu;	     /* utime + stime, seconds */
	long rss_kb, hwm_kb; /* summed */
};

int lg_proc_read(const int *pids, unsigned int n, struct lg_proc *p);

/* Prints at most a few error lines for the whole run. */
void lg_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
