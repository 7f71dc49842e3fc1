/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest.h - the evidence pipeline, apart from HTTP: given an agent's
 * record, the challenge it answered and its evidence, decide trusted or
 * untrusted, and compute the record's next state.
 *
 * Order (docs/verifier.md, Attestation): quote signature with the bound AK,
 * nonce, selection and PCR digest (att_quote_verify); clock
 * (resetCount/restartCount never back, a new resetCount is a reboot and
 * the logs start over at entry 0); each log's new entries replayed from
 * its saved state with prefix matching against its quoted PCR and judged
 * by the whitelist (att_check_list, boot_aggregate against quoted PCRs
 * 0-9). A log asked for and not sent is a failure.
 * The saved replay state moves only over a trusted prefix, so a failure
 * is judged again every round until the whitelist allows it or the host
 * reboots; entries after the quoted value wait for the next round.
 */
#ifndef ATTEST_VERIFIER_ATTEST_H
#define ATTEST_VERIFIER_ATTEST_H

#include <stddef.h>
#include <stdint.h>

#include "attest/tpm_quote.h"
#include "logstate.h"
#include "store.h"

struct att_wl;
struct ver_verdict;
struct ver_akcache;
struct json_object;

#define VER_IMA_PCR 10

/* One log the verifier asked for, as the agent sent it (or did not). */
struct ver_log_in {
	const char *name;
	unsigned int pcr;
	int present;	     /* the agent sent it */
	uint64_t start;	     /* index of the first entry sent */
	const uint8_t *data; /* binary_runtime_measurements bytes */
	size_t len;
};

struct ver_evidence {
	const uint8_t *quote, *sig;
	size_t quote_len, sig_len;
	const uint8_t *nonce;
	size_t nonce_len;
	const struct att_pcr_sel *sel;
	const struct att_pcrs *pcrs;
	const struct att_pcrs *static_pcrs; /* expected values, or NULL */
	const uint8_t *uefi_log; /* binary_bios_measurements, or NULL */
	size_t uefi_log_len;
	int require_uefi_log; /* once per boot, or the boot is untrusted */
	int64_t challenge_at; /* when the nonce was issued (0: unknown) */
	unsigned int clock_drift_pct; /* TPM clock vs wall time (config) */
	uint64_t clock_slack_ms;
	struct ver_log_in logs[VER_MAX_LOGS]; /* the logs asked for */
	unsigned int nlogs;
	/*
	 * When wl is a layered whitelist: its layers' names and versions,
	 * in order (the result says which layer accepted how many entries
	 * and which one knows a failing entry's path); nlayers 0 otherwise.
	 */
	const char *layer_names[ATT_WL_LAYERS_MAX];
	int64_t layer_versions[ATT_WL_LAYERS_MAX];
	size_t nlayers;
};

/*
 * Verifies ev for agent a (its AK bound), judging with wl (NULL: no
 * whitelist assigned, which is a failure). On return *v is the verdict
 * (trusted or untrusted, the typed reasons, whether a new boot began, and
 * the result document; ver_verdict_release() it) and a holds the state
 * to store (state, clock, boot count, replay, last_result: v->doc's
 * text). ATT_E_* only for internal failures (then *v is empty).
 * The AK is taken from akc (NULL: parsed here).
 */
int ver_attest_run(struct ver_akcache *akc, struct att_agent_rec *a,
		   const struct att_wl *wl, const char *wl_name,
		   int64_t wl_version, const struct ver_evidence *ev,
		   int64_t now, struct ver_verdict *v);

#endif
