/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uefilog.h - the firmware's TCG event log (UEFI / TCG PC Client, as the
 * kernel exposes it in /sys/kernel/security/tpm0/binary_bios_measurements),
 * sent to the verifier once per boot: when the challenge asks for it
 * ("uefi_log": true) or when this round's quote shows a new boot.
 *
 * The file is opened before privileges are dropped (securityfs keeps it
 * root-only) and read again from its start each time it is wanted.
 */
#ifndef ATTEST_AGENT_UEFILOG_H
#define ATTEST_AGENT_UEFILOG_H

#include <stddef.h>

#include "attest/buf.h"

/* A firmware log larger than this is refused, not truncated. */
#define AGENT_UEFI_LOG_MAX (4u << 20)
#define AGENT_UEFI_LOG_DEFAULT "/sys/kernel/security/tpm0/binary_bios_measurements"

struct agent_uefi_log;

/*
 * Opens PATH; NULL means the default path, which may be absent (a host
 * without a firmware log: *out is NULL and ATT_OK). "none" disables it.
 * An explicitly configured path that cannot be opened is ATT_E_IO.
 */
int agent_uefi_log_open(const char *path, struct agent_uefi_log **out);
void agent_uefi_log_free(struct agent_uefi_log *u);

/* The whole log, read again from its start into b (cleared first). */
int agent_uefi_log_read(struct agent_uefi_log *u, struct att_buf *b);

const char *agent_uefi_log_path(const struct agent_uefi_log *u);

#endif
