/* SPDX-License-Identifier: Apache-2.0 */
/*
 * boot.h - measured boot: the event data of a firmware log that matters
 * (UEFI variables and their signature lists, boot applications, grub's
 * measurements, separators), the facts a log shows, and the whitelist's
 * "boot" policy that judges them (docs/whitelist.md, "Measured boot").
 *
 * Every reader is bounded: sizes are checked against what is left and
 * capped, and a structure cut short or with bytes left over is an error
 * naming the event. The policy applies to a log that has already replayed
 * to the quoted PCRs, so event digests are trusted; event data is trusted
 * only where the digest covers it, and that is checked here (docs).
 */
#ifndef ATTEST_BOOT_H
#define ATTEST_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "attest/digest.h"
#include "attest/uefi.h"

#define ATT_GUID_LEN	   16
#define ATT_GUID_TEXT	   37	/* "8be4df61-93ca-11d2-aa0d-00e098032b8c" */
#define ATT_BOOT_ID_LEN	   32	/* SHA-256 */
#define ATT_UEFI_NAME_MAX  256	/* CHAR16 units of a variable name */
#define ATT_BOOT_MAX_SIGS  8192 /* signatures in one variable */
#define ATT_BOOT_MAX_ITEMS 1024 /* apps, files, command lines */
#define ATT_BOOT_TEXT_MAX  4096 /* a grub string, a file path */

/* Event types the policy reads. */
#define ATT_EV_SEPARATOR		  0x00000004u
#define ATT_EV_EVENT_TAG		  0x00000006u
#define ATT_EV_IPL			  0x0000000du
#define ATT_EV_EFI_VARIABLE_DRIVER_CONFIG 0x80000001u
#define ATT_EV_EFI_BOOT_SERVICES_APP	  0x80000003u
#define ATT_EV_EFI_ACTION		  0x80000007u
#define ATT_EV_EFI_VARIABLE_AUTHORITY	  0x800000e0u

/* GUIDs in text form, lower case. */
#define ATT_GUID_EFI_GLOBAL   "8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define ATT_GUID_IMAGE_SEC_DB "d719b2cb-3d3a-4596-a3bc-dad00e67656f"
#define ATT_GUID_CERT_X509    "a5c059a1-94e4-4aa7-87b5-ab155c2bf072"
#define ATT_GUID_CERT_SHA256  "c1c41626-504c-4092-aca9-41f936934328"

/* EFI_GUID bytes (first three fields little-endian) to text and back. */
void att_guid_format(const uint8_t g[ATT_GUID_LEN], char out[ATT_GUID_TEXT]);
int att_guid_parse(const char *s, uint8_t g[ATT_GUID_LEN]);

/* UEFI_VARIABLE_DATA; name is UTF-8 (from UTF-16, NUL-free). */
struct att_uefi_var {
	const uint8_t *guid; /* ATT_GUID_LEN bytes */
	char name[ATT_UEFI_NAME_MAX * 3 + 1];
	const uint8_t *data;
	size_t data_len;
};

/*
 * Parses the whole event data as UEFI_VARIABLE_DATA. ATT_E_TRUNCATED,
 * ATT_E_TOO_BIG, ATT_E_TRAILING or ATT_E_FORMAT (a bad UTF-16 name) with
 * what is wrong in why.
 */
int att_uefi_var_parse(const uint8_t *p, size_t n, struct att_uefi_var *v,
		       char *why, size_t whylen);

enum att_sig_kind {
	ATT_SIG_X509 = 1,   /* id: SHA-256 of the certificate's DER */
	ATT_SIG_SHA256 = 2, /* id: the hash itself */
	ATT_SIG_OTHER = 3,  /* id: SHA-256 of the signature data */
};

struct att_boot_sig {
	uint8_t id[ATT_BOOT_ID_LEN];
	uint8_t owner[ATT_GUID_LEN];
	uint8_t kind; /* att_sig_kind */
};

/*
 * Walks a sequence of EFI_SIGNATURE_LIST (a PK, KEK, db or dbx value),
 * calling fn for every EFI_SIGNATURE_DATA. Errors as att_uefi_var_parse;
 * fn's non-zero return stops the walk and is returned.
 */
typedef int (*att_sig_fn)(const struct att_boot_sig *s, void *arg);
int att_efi_siglists_parse(const uint8_t *p, size_t n, att_sig_fn fn, void *arg,
			   char *why, size_t whylen);

/*
 * UEFI_IMAGE_LOAD_EVENT (EV_EFI_BOOT_SERVICES_APPLICATION): the device
 * path is walked node by node; the last media file path node, when there
 * is one, is returned as UTF-8 in path (empty otherwise).
 */
int att_uefi_image_parse(const uint8_t *p, size_t n, char *path, size_t pathlen,
			 char *why, size_t whylen);

/* Which Secure Boot variable. */
enum att_boot_var {
	ATT_BV_PK = 0,
	ATT_BV_KEK,
	ATT_BV_DB,
	ATT_BV_DBX,
	ATT_BV_COUNT
};

/* "pk", "kek", "db", "dbx" as the policy names them. */
const char *att_boot_var_key(enum att_boot_var v);

/* Where a fact came from. */
struct att_boot_ev {
	uint64_t index; /* from 0, after the Spec ID header */
	uint32_t pcr, type;
};

struct att_boot_digest {
	struct att_boot_ev ev;
	unsigned int n;
	enum att_hash alg[ATT_UEFI_MAX_ALGS];
	uint8_t d[ATT_UEFI_MAX_ALGS][ATT_DIGEST_MAX];
	char *path; /* what the event data says (not covered), or NULL */
};

struct att_boot_text {
	struct att_boot_ev ev;
	char *text;
};

/* A finding: an event (or none, has_ev 0), the rule, what is wrong. */
#define ATT_BOOT_DETAIL 320

struct att_boot_failure {
	int has_ev;
	struct att_boot_ev ev;
	const char *rule; /* "secure_boot", "db", "boot_apps", ... */
	char detail[ATT_BOOT_DETAIL];
};

struct att_boot_facts {
	int secure_boot; /* -1: no SecureBoot event */
	struct att_boot_ev secure_boot_ev;
	struct {
		int seen;
		struct att_boot_ev ev; /* the last event of the variable */
		struct att_boot_sig *sig;
		size_t n, cap;
	} var[ATT_BV_COUNT];
	struct att_boot_digest *apps, *kernels, *initrds;
	size_t napps, nkernels, ninitrds;
	struct att_boot_text *cmdlines; /* grub's kernel_cmdline, verified */
	size_t ncmdlines;
	struct att_boot_sig *authorities; /* EV_EFI_VARIABLE_AUTHORITY */
	size_t nauth, authcap;
	uint8_t separators;	/* PCRs 0-7 with a good EV_SEPARATOR */
	uint8_t bad_separators; /* PCRs 0-7 with an error separator */
	/* events whose data is covered and is not what the digest says */
	struct att_boot_failure *bad;
	size_t nbad;
};

/*
 * Reads the facts of a whole log (att_uefi_parse's limits). Malformed
 * event data: ATT_E_FORMAT / ATT_E_TRUNCATED / ATT_E_TOO_BIG /
 * ATT_E_TRAILING with err naming the event; ATT_E_NOMEM.
 */
int att_boot_facts_read(const uint8_t *log, size_t len,
			const struct att_uefi_limits *lim,
			struct att_boot_facts **out, char *err, size_t errlen);
void att_boot_facts_free(struct att_boot_facts *f);

/* The whitelist's "boot" section. */
struct att_boot_policy;
struct json_object;

/* From the section's JSON object; err names the offending key. */
int att_boot_policy_from_json(struct json_object *o,
			      struct att_boot_policy **out, char *err,
			      size_t errlen);
void att_boot_policy_free(struct att_boot_policy *p);

/*
 * A "boot" section that a golden machine's facts pass (attest-whitelist
 * create --uefi-log): digests in the bank `bank` (the log must carry it).
 * NULL: out of memory.
 */
struct json_object *
att_boot_policy_json_from_facts(const struct att_boot_facts *f,
				enum att_hash bank);

enum att_boot_status {
	ATT_BOOT_PASS = 0,	/* the policy accepts the boot */
	ATT_BOOT_FAIL = 1,	/* a rule refuses it: failures say which */
	ATT_BOOT_MALFORMED = 2, /* event data does not parse: errmsg */
};

struct att_boot_result {
	enum att_boot_status status;
	struct att_boot_failure *failures; /* the first max kept */
	size_t nfailures;
	size_t total;
	char errmsg[300];
};

void att_boot_result_init(struct att_boot_result *r);
void att_boot_result_release(struct att_boot_result *r);

/*
 * Judges facts by the policy, appending every failure (at most 64 kept,
 * all counted). ATT_OK with r->status set, or ATT_E_NOMEM.
 */
int att_boot_judge_facts(const struct att_boot_policy *p,
			 const struct att_boot_facts *f,
			 struct att_boot_result *r);

/*
 * Reads the log's facts and judges them: malformed data gives status
 * MALFORMED (never PASS); only internal errors (ATT_E_NOMEM) are returned.
 */
int att_boot_judge(const struct att_boot_policy *p, const uint8_t *log,
		   size_t len, const struct att_uefi_limits *lim,
		   struct att_boot_result *r);

/*
 * "event 17 (PCR 4, EV_EFI_BOOT_SERVICES_APPLICATION): <detail>" or the
 * detail alone.
 */
void att_boot_failure_text(const struct att_boot_failure *f, char *out,
			   size_t outlen);

struct json_object;
/*
 * One failure as the verifier's result and `check --json` give it:
 * {"index", "pcr", "type" (when it names an event), "rule", "detail"},
 * the detail made valid UTF-8 (it holds the host's bytes). 0, or
 * ATT_E_NOMEM.
 */
int att_boot_failure_json(const struct att_boot_failure *f,
			  struct json_object **out);

#endif
