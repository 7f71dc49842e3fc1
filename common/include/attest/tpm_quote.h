/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tpm_quote.h - verifying a TPM2_Quote: TPMS_ATTEST and TPMT_SIGNATURE are
 * unmarshaled with libtss2-mu and checked with OpenSSL 3.
 *
 * att_quote_verify() returns ATT_OK, ATT_E_VERIFY with a reason when the
 * evidence is wrong, or another ATT_E_* when it could not be processed
 * (unparsable input: ATT_E_FORMAT/TRUNCATED/TRAILING/UNSUPPORTED; internal:
 * ATT_E_CRYPTO/NOMEM/INVAL). Only ATT_OK means the quote is good.
 */
#ifndef ATTEST_TPM_QUOTE_H
#define ATTEST_TPM_QUOTE_H

#include <stddef.h>
#include <stdint.h>

#include "attest/digest.h"
#include "attest/pcrs.h"
#include "attest/tpm_key.h"

/* Cap on attest and signature sizes accepted from the wire. */
#define ATT_QUOTE_ATTEST_MAX  1024
#define ATT_QUOTE_SIG_MAX     1024
#define ATT_PCR_SEL_MAX_BANKS 8

/*
 * A PCR selection in TPML_PCR_SELECTION order: banks in order, PCRs of a
 * bank ascending. Bit i of mask is PCR i (0..23).
 */
struct att_pcr_sel {
	unsigned int count;
	struct {
		enum att_hash bank;
		uint32_t mask;
	} b[ATT_PCR_SEL_MAX_BANKS];
};

/* Adds PCRs (mask) of a bank, appending the bank when new. */
int att_pcr_sel_add(struct att_pcr_sel *sel, enum att_hash bank, uint32_t mask);
/* Semantic equality (same banks, same order, same PCRs). */
int att_pcr_sel_equal(const struct att_pcr_sel *a, const struct att_pcr_sel *b);
/* To and from TPML_PCR_SELECTION (from: rejects unknown banks, PCR >= 24,
 * repeated banks: ATT_E_UNSUPPORTED/ATT_E_FORMAT). */
int att_pcr_sel_to_tpml(const struct att_pcr_sel *sel, TPML_PCR_SELECTION *out);
int att_pcr_sel_from_tpml(const TPML_PCR_SELECTION *in,
			  struct att_pcr_sel *out);

/*
 * H(PCR values in selection order). ATT_E_NOT_FOUND when pcrs lacks a
 * selected value. out holds att_hash_size(h) bytes.
 */
int att_pcr_digest(enum att_hash h, const struct att_pcr_sel *sel,
		   const struct att_pcrs *pcrs, uint8_t *out);

enum att_quote_reason {
	ATT_QR_OK = 0,
	ATT_QR_MALFORMED,	/* attest or signature does not parse */
	ATT_QR_SIG_SCHEME,	/* signature scheme is not the AK's */
	ATT_QR_SIG_HASH,	/* signature hash is not the AK's, or SHA-1 */
	ATT_QR_SIG_SIZE,	/* RSA signature length != modulus */
	ATT_QR_SIG_RANGE,	/* ECDSA r or s not in [1, n-1] */
	ATT_QR_SIGNATURE,	/* signature does not verify */
	ATT_QR_MAGIC,		/* magic is not TPM_GENERATED_VALUE */
	ATT_QR_TYPE,		/* not a quote attestation */
	ATT_QR_NONCE,		/* extraData is not the nonce */
	ATT_QR_SELECTION,	/* quoted selection is not the requested one */
	ATT_QR_PCR_MISSING,	/* a selected PCR value was not supplied */
	ATT_QR_PCR_DIGEST,	/* supplied PCR values do not match pcrDigest */
	ATT_QR_CLOCK_UNSAFE,	/* clockInfo.safe is clear */
	ATT_QR_CLOCK_BACKWARDS, /* clock did not advance (same counts) */
	ATT_QR_RESET_BACKWARDS, /* resetCount went back */
	ATT_QR_RESTART_BACKWARDS, /* restartCount went back (same reset) */
};

const char *att_quote_reason_str(enum att_quote_reason r);

/* What a good quote tells the caller. */
struct att_quote_info {
	uint64_t clock;
	uint32_t reset_count;
	uint32_t restart_count;
	uint8_t safe;
	uint64_t firmware_version;
	struct att_pcr_sel sel;
	enum att_hash sig_hash; /* the hash of the signature and pcrDigest */
};

/*
 * Verifies a quote made by ak: attest is the TPMS_ATTEST as signed (the
 * TPM2B_ATTEST's contents), sig a marshaled TPMT_SIGNATURE. Checks, in
 * order: signature scheme/hash equal the AK's, signature, magic, type,
 * nonce, selection equals sel, PCR digest over pcrs. info (may be NULL)
 * is filled once the attest has parsed; reason (may be NULL) gets the
 * verdict.
 */
int att_quote_verify(const struct att_tpm_key *ak, const uint8_t *attest,
		     size_t attest_len, const uint8_t *sig, size_t sig_len,
		     const uint8_t *nonce, size_t nonce_len,
		     const struct att_pcr_sel *sel, const struct att_pcrs *pcrs,
		     struct att_quote_info *info,
		     enum att_quote_reason *reason);

/*
 * Clock checks of a new quote against the last accepted one (prev NULL:
 * first quote). *reboot is set when resetCount moved on (the logs start
 * over). Within one resetCount and restartCount the clock must advance:
 * a quote whose clock equals or precedes the last one is refused. A
 * backward step names what went backwards (ATT_QR_RESET_BACKWARDS,
 * ATT_QR_RESTART_BACKWARDS, ATT_QR_CLOCK_BACKWARDS): each is a sign of a
 * cloned (or rolled back) TPM. ATT_E_VERIFY with the reason.
 */
int att_quote_check_clock(const struct att_quote_info *prev,
			  const struct att_quote_info *cur, int *reboot,
			  enum att_quote_reason *reason);

/*
 * The values a verified quote covers: out gets the PCRs of sel taken from
 * in, and nothing else (a value the quote does not cover is never read by
 * a check). ATT_E_NOT_FOUND when in lacks a selected value.
 */
int att_pcrs_quoted(const struct att_pcrs *in, const struct att_pcr_sel *sel,
		    struct att_pcrs *out);

/*
 * Within one resetCount and restartCount, the TPM clock runs with the
 * wall clock. The last accepted quote was made no later than prev_at
 * (unix seconds, when its evidence arrived), this one no earlier than
 * cur_from (when its challenge was issued): the clock must have advanced
 * at least (cur_from - prev_at) seconds, less drift_pct percent of it and
 * slack_ms (the seconds' rounding is part of the slack). Returns 1 when
 * it fell behind (a clone started later than the TPM it copies, or one
 * that ran while the other did not), with *min_ms the least advance
 * expected; 0 otherwise.
 */
int att_quote_clock_behind(uint64_t prev_clock, int64_t prev_at,
			   uint64_t cur_clock, int64_t cur_from,
			   unsigned int drift_pct, uint64_t slack_ms,
			   uint64_t *min_ms);

/* Lower level, for tools and fuzzers: unmarshal exactly len bytes. */
int att_tpm_attest_parse(const uint8_t *p, size_t len, TPMS_ATTEST *out);
int att_tpm_sig_parse(const uint8_t *p, size_t len, TPMT_SIGNATURE *out);

#endif
