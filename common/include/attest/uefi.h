/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uefi.h - the firmware's TPM event log (binary_bios_measurements).
 *
 * Crypto-agile logs (TCG PC Client: a first SHA-1-format event carrying
 * "Spec ID Event03" and the table of algorithms, then TCG_PCR_EVENT2
 * records) and SHA-1-only logs (TPM 1.2 format, every record a
 * TCG_PCR_EVENT). Little-endian throughout. Every length is checked
 * against what is left and capped; unknown algorithms are refused.
 */
#ifndef ATTEST_UEFI_H
#define ATTEST_UEFI_H

#include <stddef.h>
#include <stdint.h>

#include "attest/digest.h"
#include "attest/pcrs.h"

#define ATT_UEFI_MAX_ALGS     8
#define ATT_UEFI_EV_NO_ACTION 0x00000003u

struct att_uefi_event {
	uint64_t index;
	uint64_t offset;
	uint32_t pcr;
	uint32_t type;
	unsigned int ndigests;
	struct {
		enum att_hash alg;
		const uint8_t *d;
	} digests[ATT_UEFI_MAX_ALGS];
	const uint8_t *data;
	uint32_t data_len;
};

struct att_uefi_info {
	int crypto_agile; /* 0: SHA-1-only log */
	unsigned int nalgs;
	enum att_hash algs[ATT_UEFI_MAX_ALGS];
	uint8_t spec_major, spec_minor, spec_errata;
	uint8_t startup_locality; /* from a StartupLocality event, else 0 */
	uint64_t events;
};

struct att_uefi_limits {
	uint32_t max_data;   /* event data bytes, default 1 MiB */
	uint64_t max_events; /* default 1 M */
};

typedef int (*att_uefi_event_fn)(const struct att_uefi_event *ev, void *arg);

/*
 * Parses a whole log, calling fn (may be NULL) for every event after the
 * header. On bad input: ATT_E_TRUNCATED / ATT_E_TOO_BIG / ATT_E_FORMAT /
 * ATT_E_UNSUPPORTED with a message naming the event index and offset.
 */
int att_uefi_parse(const uint8_t *p, size_t len,
		   const struct att_uefi_limits *lim, att_uefi_event_fn fn,
		   void *arg, struct att_uefi_info *info, char *err,
		   size_t errlen);

/*
 * Replays the log into PCR values for every bank it carries and every PCR
 * it touches (PCR 0 starts at the startup locality). out is cleared first;
 * mask[bank] tells which PCRs the log extended.
 */
int att_uefi_replay(const uint8_t *p, size_t len,
		    const struct att_uefi_limits *lim, struct att_pcrs *out,
		    struct att_uefi_info *info, char *err, size_t errlen);

/* "EV_POST_CODE", ... ("EV_UNKNOWN" for others). */
const char *att_uefi_event_name(uint32_t type);

#endif
