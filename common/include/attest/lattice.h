/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lattice.h - slim.ko's lattice event records (docs/lattice-events.md):
 * the record parser, the host's lattice state folded from them, and the
 * whitelist's lattice policy that judges them.
 *
 * A record is the buffer of an ima-buf entry named "slim_event". The
 * parser reads it with a bounded reader, caps every size, and never
 * points outside the buffer it was given.
 */
#ifndef ATTEST_LATTICE_H
#define ATTEST_LATTICE_H

#include <stddef.h>
#include <stdint.h>

#include "attest/buf.h"
#include "attest/digest.h"
#include "attest/ima.h"
#include "attest/rd.h"

/* The module's wire formats: one definition, the kernel's. */
#include "../../../kernel/slim_wire.h"

#define ATT_SEV_MAX_LEN	   SLIM_EVENT_MAX  /* the module's record size cap */
#define ATT_SEV_STR_MAX	   SLIM_EV_STR_MAX /* the module's string cap */
#define ATT_SEV_DIGEST_LEN 32

enum att_sev_type {
	ATT_SEV_LOAD = SLIM_EV_LOAD,
	ATT_SEV_MODE = SLIM_EV_MODE,
	ATT_SEV_POLICY = SLIM_EV_POLICY,
	ATT_SEV_EVM_KEY = SLIM_EV_EVM_KEY,
	ATT_SEV_RELABEL = SLIM_EV_RELABEL,
	ATT_SEV_DEMOTION = SLIM_EV_DEMOTION,
	ATT_SEV_DROPPED = SLIM_EV_DROPPED,
	ATT_SEV_REFUSED = SLIM_EV_REFUSED,
};

enum att_sev_mode {
	ATT_SEV_MODE_OFF = SLIM_MODE_OFF,
	ATT_SEV_MODE_PERMISSIVE = SLIM_MODE_PERMISSIVE,
	ATT_SEV_MODE_ENFORCE = SLIM_MODE_ENFORCE,
};

/* What demoted a task (the demotion record's cause); only FILE has a path. */
enum att_sev_cause {
	ATT_SEV_CAUSE_FILE =
		SLIM_CAUSE_FILE,	  /* a file read, executed, mapped */
	ATT_SEV_CAUSE_IP = SLIM_CAUSE_IP, /* a receive on an IP socket */
	/* ptrace, /proc/PID/mem, process_vm_* */
	ATT_SEV_CAUSE_PROCESS = SLIM_CAUSE_PROCESS,
	ATT_SEV_CAUSE_PIPE = SLIM_CAUSE_PIPE, /* a read from a pipe or FIFO */
	ATT_SEV_CAUSE_UNIX = SLIM_CAUSE_UNIX, /* a receive on a UNIX socket */
	ATT_SEV_CAUSE_SHM = SLIM_CAUSE_SHM,   /* a SysV shared memory attach */
	ATT_SEV_CAUSE_MSG = SLIM_CAUSE_MSG,   /* a SysV message received */
	ATT_SEV_CAUSE_MQUEUE = SLIM_CAUSE_MQUEUE, /* a POSIX message received */
	/* a netlink socket, an eventfd, a pty, a key, a semaphore, an xattr */
	ATT_SEV_CAUSE_OBJECT = SLIM_CAUSE_OBJECT,
	ATT_SEV_CAUSE_LAST = ATT_SEV_CAUSE_OBJECT,
};

/*
 * One cause: its value; its name in JSON and whitelists ("file", "ip",
 * "process", ...); a label for tables ("read", then the path; "pipe");
 * the words of a reason after "after" ("reading from a pipe").
 */
struct att_sev_cause_info {
	uint8_t value;
	const char *name, *label, *reason;
};

/* A string field: bytes of the record, not NUL-terminated, no NUL. */
struct att_sev_str {
	const uint8_t *p;
	size_t len;
};

struct att_slim_event {
	uint8_t type;
	uint64_t seq;
	uint64_t time;
	uint32_t have; /* bit (1 << tag) for every field present */
	struct att_sev_str version, default_label, comm, exe, old_label,
		new_label, path, action, label;
	uint8_t mode, old_mode, pcr, lock, evm_demote, cause, source, final;
	uint32_t pid;
	uint64_t count;
	const uint8_t *digest; /* ATT_SEV_DIGEST_LEN bytes */
};

/*
 * Parses one record. ATT_OK, or ATT_E_FORMAT / ATT_E_TRUNCATED /
 * ATT_E_TOO_BIG / ATT_E_UNSUPPORTED with a reason in why.
 */
int att_slim_event_parse(const uint8_t *buf, size_t len,
			 struct att_slim_event *ev, char *why, size_t whylen);
/* "load", "mode", ... ("unknown" otherwise). */
const char *att_sev_type_name(unsigned int type);
/* "off", "permissive", "enforce" ("unknown" otherwise). */
const char *att_sev_mode_name(unsigned int mode);
/* The cause of this value / name; NULL when there is none. */
const struct att_sev_cause_info *att_sev_cause(unsigned int cause);
const struct att_sev_cause_info *att_sev_cause_by_name(const char *name);
/* An ima-buf entry named slim_event. */
int att_is_slim_event(const struct att_ima_entry *e);

/*
 * slim.ko's gap record (kernel/README.md, "The gap entry"): an ima-ng
 * entry at index 0 named "slim_gap <bank>:<hex> ...", the PCR's value in
 * each bank when the module started. Banks this verifier has no hash
 * for are skipped; the d-ng digest must be the value of its bank.
 */
#define ATT_GAP_MAX_BANKS 8

struct att_slim_gap {
	unsigned int n;
	enum att_hash alg[ATT_GAP_MAX_BANKS];
	uint8_t val[ATT_GAP_MAX_BANKS][ATT_DIGEST_MAX];
};

int att_is_slim_gap(const struct att_ima_entry *e);
/* ATT_OK, or ATT_E_FORMAT with what is wrong in why. */
int att_slim_gap_parse(const struct att_ima_entry *e, struct att_slim_gap *g,
		       char *why, size_t whylen);

/* What the verifier remembers of one host's lattice. */
#define ATT_LAT_RECENT 8
#define ATT_LAT_TEXT   128

struct att_lat_demotion {
	uint64_t time;
	uint32_t pid;
	uint8_t cause;
	char comm[17];
	char exe[ATT_LAT_TEXT + 1];
	char path[ATT_LAT_TEXT + 1];
	char old_label[48];
	char new_label[48];
};

struct att_lat_state {
	int loaded;	   /* a load record was seen */
	uint64_t next_seq; /* the seq the next record must have */
	uint8_t mode;
	char version[33];
	int have_policy;
	uint8_t policy_digest[ATT_SEV_DIGEST_LEN];
	int evm_key;
	uint64_t relabels;
	uint64_t demotions;   /* of SYSTEM tasks */
	uint64_t dropped;     /* events the module did not record */
	int capped;	      /* a final dropped record */
	int gap;	      /* the list starts with slim_gap */
	unsigned int nrecent; /* newest last */
	struct att_lat_demotion recent[ATT_LAT_RECENT];
};

void att_lat_state_init(struct att_lat_state *st);
/* Appends a versioned encoding / reads one back (bounded). */
int att_lat_state_encode(const struct att_lat_state *st, struct att_buf *b);
int att_lat_state_decode(struct att_rd *r, struct att_lat_state *st);

/* The whitelist's "lattice" section. */
enum att_lat_demotions { ATT_LAT_DEMOTIONS_ALLOW = 0, ATT_LAT_DEMOTIONS_DENY };

struct att_lat_match {
	char *exe, *comm, *path; /* NULL: any; a trailing '*' is a prefix */
	int cause;		 /* 0: any */
};

struct att_lat_policy {
	int mode; /* -1: not checked */
	uint8_t (*digests)[ATT_SEV_DIGEST_LEN];
	size_t ndigests;
	int check_digests;
	int evm_key;	     /* required */
	int relabels;	     /* allowed */
	int dropped_allowed; /* dropped records acceptable */
	int refusals;	     /* refused records acceptable */
	enum att_lat_demotions demotions;
	struct att_lat_match *acceptable;
	size_t nacceptable;
};

struct json_object;
/* From the section's JSON object; err names the offending key. */
int att_lat_policy_from_json(struct json_object *o, struct att_lat_policy **out,
			     char *err, size_t errlen);
void att_lat_policy_free(struct att_lat_policy *p);

/*
 * The state as JSON (schemas/lattice.schema.json): log (the list it came
 * from, omitted when NULL), loaded, reloaded, version, mode,
 * policy_digest, evm_key, relabels, demotions, dropped_events,
 * events_capped, recent_demotions (newest first). NULL: out of memory.
 */
struct json_object *att_lat_state_json(const struct att_lat_state *st,
				       const char *log);

enum att_lat_outcome {
	ATT_LAT_OK = 0,	       /* acceptable record, folded */
	ATT_LAT_MALFORMED = 1, /* not a valid record (not folded) */
	ATT_LAT_REFUSED = 2,   /* valid, folded, the policy refuses it */
};

/*
 * One slim_event entry: parsed, checked against the state (seq) and the
 * policy (NULL: none), folded into the state. Returns an outcome (why
 * says what is wrong) or a negative ATT_E_* on an internal error.
 */
int att_lat_step(struct att_lat_state *st, const struct att_lat_policy *pol,
		 const struct att_ima_entry *e, char *why, size_t whylen);

/*
 * The checks on the state at the end of a trusted prefix: the required
 * mode now, the EVM key. 1 (why set) when the policy refuses the state.
 */
int att_lat_final(const struct att_lat_state *st,
		  const struct att_lat_policy *pol, char *why, size_t whylen);

#endif
