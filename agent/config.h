/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.h - attest-agent's configuration: a file of "key = value" lines
 * ('#' comments), then command-line flags on top.
 *
 *   verifier = https://verifier.example:8443     (repeatable: failover order)
 *   ca = /etc/attest/verifier-ca.pem             (the verifier CA, pinned)
 *   enrollment_token_file = /etc/attest/token
 *   agent_id = web-01                            (default: the host name)
 *   tcti = device:/dev/tpmrm0
 *   ak_handle = 0x81010010
 *   ek = rsa | ecc
 *   log = ima:/sys/kernel/security/ima/binary_runtime_measurements:10
 *   log = slim:/sys/kernel/security/slim/binary_runtime_measurements:11:sha1
 *   uefi_log = /sys/kernel/security/tpm0/binary_bios_measurements
 *   interval = 30                                 (seconds)
 *   state_dir = /var/lib/attest-agent
 *   user = attest-agent                           (privileges dropped to)
 */
#ifndef ATTEST_AGENT_CONFIG_H
#define ATTEST_AGENT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "attest/digest.h"

#define AGENT_MAX_VERIFIERS 8
#define AGENT_MAX_LOGS	    8

struct agent_log_conf {
	char *name;
	char *path;
	uint32_t pcr;
	enum att_hash bank; /* template digest bank of the file */
};

struct agent_config {
	char *verifiers[AGENT_MAX_VERIFIERS];
	size_t nverifiers;
	char *ca;
	char *token_file;
	char *agent_id;
	char *tcti;
	uint32_t ak_handle;
	int ek_ecc;
	struct agent_log_conf logs[AGENT_MAX_LOGS];
	size_t nlogs;
	char *uefi_log;
	unsigned int interval;
	char *state_dir;
	char *user;
};

void agent_config_init(struct agent_config *c);
void agent_config_release(struct agent_config *c);

/* Applies one "key = value" (also used for flags). */
int agent_config_set(struct agent_config *c, const char *key, const char *value,
		     char *err, size_t errlen);
/* Parses a whole file's text; err names the line. */
int agent_config_parse(struct agent_config *c, const char *text, size_t len,
		       char *err, size_t errlen);
int agent_config_load(struct agent_config *c, const char *path, char *err,
		      size_t errlen);
/* Fills defaults and checks that the result is usable. */
int agent_config_finish(struct agent_config *c, char *err, size_t errlen);

#endif
