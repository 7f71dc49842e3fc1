/* SPDX-License-Identifier: Apache-2.0 */
/*
 * swtpm.h - starts a private swtpm for a test: a fresh state directory
 * (manufactured by swtpm_setup with EK certificates from swtpm's local CA),
 * a free TCP port pair on 127.0.0.1, stop by pid, restart on the same state
 * (a reboot: PCRs reset, resetCount moves on).
 */
#ifndef ATTEST_TEST_SWTPM_H
#define ATTEST_TEST_SWTPM_H

#include <tss2/tss2_esys.h>

/* swtpm's local CA: the CA a test trusts for EK certificates. */
#define ATT_SWTPM_LOCALCA_DIR "/var/lib/swtpm-localca"

struct att_swtpm;

/*
 * Manufactures a new TPM (swtpm_setup --tpm2 --create-ek-cert --lock-nvram
 * --pcr-banks sha1,sha256) in a new mkdtemp directory and starts it.
 * Returns ATT_OK or a negative ATT_E_*; the reason is printed on stderr.
 */
int att_swtpm_start(struct att_swtpm **out);

/* "swtpm:host=127.0.0.1,port=N", valid until att_swtpm_free(). */
const char *att_swtpm_tcti(const struct att_swtpm *s);
/* The state directory (a scratch place for the test's files too). */
const char *att_swtpm_dir(const struct att_swtpm *s);
int att_swtpm_port(const struct att_swtpm *s);

/*
 * A clone: the state of src (stopped, after an orderly TPM2_Shutdown so
 * that the clock was saved) copied into a new directory, not started:
 * att_swtpm_restart starts it, on ports of its own. It is the same TPM
 * (EK, AK, NV, clock) from then on, as a copied vTPM state file is.
 */
int att_swtpm_copy(const struct att_swtpm *src, struct att_swtpm **out);

/* Stops swtpm (SIGTERM, then SIGKILL) and waits until its ports are free. */
int att_swtpm_stop(struct att_swtpm *s);
/* SIGKILL: the TPM loses power (no TPM2_Shutdown); restart to power on. */
int att_swtpm_kill(struct att_swtpm *s);
/* Stops and starts again on the same state: a TPM reboot. */
int att_swtpm_restart(struct att_swtpm *s);

/*
 * After a power loss (no TPM2_Shutdown) a TPM reports its clock as not
 * safe until it next writes the clock to NV, every 2^22 ms of TPM time;
 * this moves the clock on past that boundary (TPM2_ClockSet, owner auth
 * empty as swtpm_setup leaves it) so that it is safe again. 0 or the TSS
 * return code.
 */
unsigned int att_tpm_clock_safe_again(ESYS_CONTEXT *esys);

/* Stops swtpm if running and removes the state directory. NULL is fine. */
void att_swtpm_free(struct att_swtpm *s);

#endif
