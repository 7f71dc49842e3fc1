/* SPDX-License-Identifier: Apache-2.0 */
/*
 * logstate.h - an agent's saved replay position for each of its
 * measurement logs (mainline IMA's list on PCR 10, the slim module's on
 * PCR 11, ...), stored as one blob in the agent's row.
 *
 * Encoding: "AVLS", version 2, count (u8), then per log: name length (u8),
 * name, state length (u32 big-endian), att_replay_state_encode() bytes;
 * then flags (u8, VER_LS_*; other bits refused). Version 1 (no flags)
 * is still read. A log whose state has an older encoding than this
 * verifier writes (att_replay_state_decode: ATT_E_UNSUPPORTED) is left
 * out: it is asked for and replayed from entry 0 again.
 * A blob that is one bare att_replay_state encoding (what verifiers wrote
 * before several logs existed) reads as the state of the log "ima".
 */
#ifndef ATTEST_VERIFIER_LOGSTATE_H
#define ATTEST_VERIFIER_LOGSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "attest/replay.h"

#define VER_MAX_LOGS	 4
#define VER_LOG_NAME_MAX 16 /* with the NUL */

/* The boot's UEFI event log was received and replayed to its PCRs. */
#define VER_LS_UEFI_VERIFIED 0x01u
#define VER_LS_FLAGS	     VER_LS_UEFI_VERIFIED

/* Lives as long as the boot: a reboot clears the whole blob. */
struct ver_logstates {
	unsigned int flags; /* VER_LS_* */
	unsigned int n;
	struct {
		char name[VER_LOG_NAME_MAX];
		struct att_replay_state st;
	} log[VER_MAX_LOGS];
};

int ver_logstates_new(struct ver_logstates **out);
void ver_logstates_free(struct ver_logstates *s);

/* Replaces *s with the decoded blob (len 0: no log has a state yet). */
int ver_logstates_decode(const uint8_t *p, size_t len, struct ver_logstates *s);
int ver_logstates_encode(const struct ver_logstates *s, uint8_t **out,
			 size_t *outlen);

/* The saved state of a log, or NULL when it has none. */
const struct att_replay_state *ver_logstates_find(const struct ver_logstates *s,
						  const char *name);
/* Adds or replaces the state of a log (ATT_E_TOO_BIG when full). */
int ver_logstates_set(struct ver_logstates *s, const char *name,
		      const struct att_replay_state *st);

/* A log name: 1-15 of [a-z0-9_-]. */
int ver_log_name_ok(const char *name);

#endif
