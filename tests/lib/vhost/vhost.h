/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vhost.h - one simulated attested host driving a real attest-verifier
 * in integration tests: a real swtpm through the agent's TPM layer, an
 * IMA list built the way the kernel writes it and extended into the
 * swtpm's PCR 10 (sha1 and sha256 banks), enrollment through the real
 * protocol, and challenge/evidence rounds that can be bent (another
 * agent's id, a foreign nonce, a tampered or truncated list, another
 * replica). The helpers fail the running cmocka test on any surprise.
 */
#ifndef ATTEST_TEST_VHOST_H
#define ATTEST_TEST_VHOST_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "attest/buf.h"

struct att_vproc;
struct att_swtpm;
struct att_esys;
struct att_pg;

#define VH_AK_HANDLE 0x81010010u

struct vh_host {
	char dir[64];	      /* scratch directory with the test PKI */
	char db[128];	      /* the verifier's --database */
	struct att_vproc *vp; /* the verifier requests go to */
	struct att_swtpm *sw; /* this host's TPM */
	struct att_esys *tpm; /* open on sw */
	struct att_pg *pg;    /* the PostgreSQL run; NULL: SQLite */
	struct att_buf log;   /* the host's IMA list, as the kernel has it */
	uint64_t nentries;
	int no_schema; /* skip the schema checks (a python run each) */
};

/*
 * The fixture: a scratch directory /tmp/att-PREFIX-XXXXXX with the test
 * PKI (deploy/pki.sh), the database (SQLite in it, or a private
 * PostgreSQL when use_pg), an empty list, and a swtpm with an RSA AK at
 * VH_AK_HANDLE. 0, or -1 with the reason on stderr.
 */
int vh_setup(struct vh_host *h, const char *prefix, int use_pg);
/*
 * The TPM power-cycled (swtpm restarted on its state): with orderly, an
 * OS's TPM2_Shutdown first (the clock stays safe). The AK at
 * VH_AK_HANDLE is loaded again. PCRs are reset; the list is the test's.
 */
void vh_tpm_power_cycle(struct vh_host *h, int orderly);
/* Starts h->vp on h->db with extra flags (NULL-terminated). */
int vh_start_verifier(struct vh_host *h, const char *const *extra);
/*
 * vh_setup, vh_start_verifier without response schema checks (hundreds
 * of requests), host-1 enrolled with h->tpm and following an empty
 * whitelist "base": the attack tests' starting point. 0 or -1.
 */
int vh_setup_enrolled(struct vh_host *h, const char *prefix, int use_pg,
		      const char *const *extra);
struct CMUnitTest;
/*
 * The one fixture runner for the two store back-ends, shared by the
 * verifier tests: tests as the cmocka group "sqlite", set up by
 * setup(0), then as "postgresql", set up by setup(1); each group torn
 * down by teardown() (NULL: nothing). setup and teardown return 0 or
 * nonzero (the group fails). Returns the failures of both.
 */
int vh_run_backends(const struct CMUnitTest *tests, size_t n,
		    int (*setup)(int use_pg), int (*teardown)(void));
/* One such group named name on one back-end (use_pg). */
int vh_run_backend(const char *name, int use_pg, const struct CMUnitTest *tests,
		   size_t n, int (*setup)(int use_pg), int (*teardown)(void));
/*
 * The usual main() of a test that plays a host: vh_run_backends with
 * vh_setup_enrolled(h, prefix, ..., extra) and then `after` (NULL:
 * nothing; nonzero fails the setup) as the setup, vh_teardown as the
 * teardown.
 */
int vh_run_groups(struct vh_host *h, const char *prefix,
		  const char *const *extra, int (*after)(struct vh_host *h),
		  const struct CMUnitTest *tests, size_t n);

/*
 * What the admin sees of the whitelists and of host-1, as one string
 * (malloc'd): two equal snapshots mean nothing stored changed.
 */
char *vh_snapshot(struct vh_host *h);
/*
 * Stops the verifier (-1 unless it exited 0), swtpm and PostgreSQL, and
 * removes the directory unless ATT_KEEP is set.
 */
int vh_teardown(struct vh_host *h);

/*
 * One request to h->vp as `who` (a certificate name in h->dir, NULL:
 * none); the answer (and an accepted body) must match its schema (unless
 * h->no_schema) and be JSON, returned in *js. Returns the HTTP status.
 */
int vh_req(struct vh_host *h, const char *who, const char *method,
	   const char *path, const char *body, struct json_object **js);

struct json_object *vh_jget(struct json_object *o, const char *k);
const char *vh_jstr(struct json_object *o, const char *k);
int64_t vh_jint(struct json_object *o, const char *k);
/* malloc'd base64 of p[0..n). */
char *vh_b64(const void *p, size_t n);

/* Measures a file: appends its ima-ng record and extends PCR 10. */
void vh_measure(struct vh_host *h, const char *path, const char *content);
/* A new boot: the list restarts with boot_aggregate over PCRs 0-9. */
void vh_boot(struct vh_host *h);
/* Byte offset of entry idx in h->log. */
size_t vh_entry_offset(const struct vh_host *h, uint64_t idx);

/* Enrolls id with the EK (RSA) and AK of tpm; writes DIR/ID.pem/.key. */
void vh_enroll(struct vh_host *h, struct att_esys *tpm, const char *id);
/* Its steps: the POST /v1/enroll body with a new token (malloc'd)... */
char *vh_enroll_body(struct vh_host *h, struct att_esys *tpm, const char *id);
/* ... TPM2_ActivateCredential of the answer (0 or the TPM layer's error) */
int vh_activate_cred(struct att_esys *tpm, struct json_object *challenge,
		     uint8_t *secret, size_t cap, size_t *slen);
/* ... the activate body with a new key DIR/ID.key and its CSR ... */
char *vh_activate_body(struct vh_host *h, const char *id, const uint8_t *secret,
		       size_t slen);
/* ... and the certificate saved as DIR/ID.pem. */
void vh_save_cert(struct vh_host *h, const char *id, const char *pem);

struct vh_round {
	const char *who;   /* certificate used (default the agent) */
	const char *id;	   /* agent_id in the bodies */
	const char *ev_id; /* agent_id in the evidence (default id) */
	const char *nonce; /* use this nonce instead of the challenge's */
	/* use this challenge (a verdict's next_challenge): none asked for */
	struct json_object *challenge;
	int want_next; /* the evidence asks for the next challenge */
	void (*after_quote)(void); /* the host measures more meanwhile */
	int64_t start;		   /* -1: the challenge's next_entry */
	int64_t upto;		   /* entries to send, -1: all */
	size_t tamper_at;	   /* flip a byte at this offset of the chunk */
	/* rewrites the chunk of binary records sent (after tamper_at) */
	void (*mangle)(struct att_buf *chunk);
	/* sha256 PCRs quoted (0: the challenge's pcr_selection) */
	uint32_t sel_mask;
	/* edits the evidence object before it is sent (extra "pcrs") */
	void (*edit)(struct json_object *evidence);
	struct att_vproc *vp;	    /* another verifier for the evidence */
	const struct att_buf *uefi; /* a UEFI event log to send */
	int no_send;		    /* build the evidence body only */
	char *body_out;		    /* receives the evidence body (malloc) */
	char nonce_out[80];
};

/*
 * Challenge (rd->challenge, or asked for), quote, evidence. Returns the
 * evidence's HTTP status with the answer in *result (with no_send: 0, *result
 * NULL, body_out set).
 */
int vh_attest(struct vh_host *h, struct vh_round *rd,
	      struct json_object **result);
/*
 * A round as host-1 from the challenge's next entry that must answer 200
 * with state (the test fails otherwise, showing the answer); the answer.
 */
struct json_object *vh_round_ok(struct vh_host *h, const char *state);

#endif
