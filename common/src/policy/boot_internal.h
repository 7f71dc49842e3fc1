/* SPDX-License-Identifier: Apache-2.0 */
/*
 * boot_internal.h - the compiled "boot" section (boot_policy_json.c
 * builds it, boot_policy.c judges with it).
 */
#ifndef ATTEST_BOOT_INTERNAL_H
#define ATTEST_BOOT_INTERNAL_H

#include <regex.h>

#include "attest/boot.h"

struct boot_digest {
	enum att_hash alg;
	uint8_t d[ATT_DIGEST_MAX];
};

struct boot_digests {
	int present; /* the key was given */
	struct boot_digest *v;
	size_t n;
};

struct boot_id {
	uint8_t id[ATT_BOOT_ID_LEN];
	int has_owner;
	uint8_t owner[ATT_GUID_LEN];
};

struct boot_ids {
	int present;
	struct boot_id *v;
	size_t n;
};

struct att_boot_policy {
	int secure_boot;		   /* -1: any, 0: off, 1: on */
	struct boot_ids var[ATT_BV_COUNT]; /* dbx: the required entries */
	struct boot_ids authorities;
	struct boot_digests *stages; /* boot_apps */
	size_t nstages;
	int have_apps;
	struct boot_digests kernels, initrds;
	int have_cmdline;
	regex_t cmdline;
	char *cmdline_text;
	int separators;
};

#endif
