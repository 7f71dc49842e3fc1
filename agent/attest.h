/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest.h - one attestation round (docs/agent.md, docs/architecture.md):
 *
 *   POST /v1/attestation/challenge {"agent_id"}
 *     -> {"nonce", "expires", "pcr_selection": {"sha256": [0, ...]},
 *         "logs": [{"name", "pcr", "next_entry"}]}
 *   quote over the selection with the nonce; read the PCRs; read each log
 *   AFTER quoting, from the entry asked for;
 *   POST /v1/attestation/evidence {"agent_id", "nonce", "quote",
 *     "signature", "pcrs", "logs": [{"name", "start", "entries"}],
 *     "uefi_log" (base64, once per boot: when the challenge says
 *     "uefi_log": true, or when the quote shows a new boot),
 *     "next_challenge": true}
 *     -> the verdict, with the next round's challenge: the next round
 *        uses it (no challenge request) while it is valid, and asks for
 *        a new one when the verifier refuses it.
 */
#ifndef ATTEST_AGENT_ATTEST_H
#define ATTEST_AGENT_ATTEST_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "attest/http.h"
#include "attest/tpm_esys.h"
#include "config.h"
#include "logsrc.h"
#include "uefilog.h"

/* Bytes of one log sent in one round at most (the rest waits). */
#define AGENT_LOG_ROUND_MAX (8u << 20)

struct agent_round {
	char state[32]; /* the verifier's verdict: trusted, ... */
	uint64_t entries_sent;
	long http_status;     /* of the evidence post */
	uint32_t reset_count; /* from this round\'s quote */
	int reboot;	      /* the lists were sent from entry 0 */
	int more;	      /* entries were left for the next round */
	size_t uefi_bytes;    /* firmware log bytes sent, 0: not sent */
	int held;	      /* the challenge came with the last verdict */
};

struct agent_attest_ctx {
	const struct agent_config *conf;
	struct att_esys *tpm;
	struct att_http *http;
	struct agent_log **logs; /* one per configured log */
	size_t nlogs;
	struct agent_uefi_log *uefi; /* NULL: none on this host */
	/*
	 * The TPM's resetCount at the last round the verifier took, -1 when
	 * unknown; kept in STATE/reset_count across restarts. A quote with
	 * another resetCount means the host rebooted: the lists started
	 * over, so they are sent from entry 0 whatever the challenge says
	 * (the verifier only learns of the reboot from this quote).
	 */
	int64_t last_reset_count;
	/*
	 * The challenge the last verdict carried ("next_challenge"), used
	 * by the next round while it is valid; NULL: ask for one.
	 */
	struct json_object *next_challenge;
};

/*
 * Runs one round. ATT_OK when the verifier took the evidence (whatever
 * its verdict, in r->state); ATT_E_NET when no verifier answered;
 * ATT_E_AUTH when it refused us; ATT_E_TPM / ATT_E_IO on local failures.
 */
int agent_attest_round(struct agent_attest_ctx *ctx, struct agent_round *r);

/* Frees what the rounds kept (the held challenge). */
void agent_attest_ctx_release(struct agent_attest_ctx *ctx);

/* Loads / saves last_reset_count in the state directory. */
void agent_attest_load_boot(struct agent_attest_ctx *ctx);
void agent_attest_save_boot(const struct agent_attest_ctx *ctx);

#endif
