/* SPDX-License-Identifier: Apache-2.0 */
/*
 * enroll.h - enrollment with the verifier (docs/verifier.md, Enrollment) and
 * the state it leaves in the agent's state directory:
 *
 *   STATE/agent.key   the agent's TLS key (EC P-256, PEM, mode 0600)
 *   STATE/agent.pem   the client certificate the verifier issued
 *   STATE/agent.id    the agent id it was issued for
 *
 * The AK lives in the TPM at the configured persistent handle, so a
 * restarted agent finds everything again and does not enroll twice.
 */
#ifndef ATTEST_AGENT_ENROLL_H
#define ATTEST_AGENT_ENROLL_H

#include "attest/http.h"
#include "attest/tpm_esys.h"
#include "config.h"

struct agent_identity {
	char key_path[512];
	char cert_path[512];
	char id_path[512];
};

/* Paths of the state files (no I/O). */
int agent_identity_paths(const struct agent_config *c,
			 struct agent_identity *id);
/* 1 when the state directory holds a certificate for c->agent_id. */
int agent_is_enrolled(const struct agent_config *c,
		      const struct agent_identity *id);

/*
 * Enrolls: token from c->token_file, EK (+ certificate when the TPM has
 * one), AK ensured at c->ak_handle, credential activation, CSR, and the
 * issued certificate saved. ATT_E_AUTH when the verifier refuses (the
 * message names why), ATT_E_NET when no verifier answers.
 */
int agent_enroll(const struct agent_config *c, struct att_esys *tpm,
		 struct att_http *http, const struct agent_identity *id);

#endif
