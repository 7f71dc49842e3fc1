/* SPDX-License-Identifier: Apache-2.0 */
/*
 * slimctl.h - the pieces of slimctl, the administration tool of the
 * slim kernel module's lattice.
 */
#ifndef ATTEST_SLIMCTL_H
#define ATTEST_SLIMCTL_H

#include <stddef.h>

/* The module's wire formats: one definition, the kernel's. */
#include "../kernel/slim_wire.h"

/* Levels: the module's values and names. */
enum slc_integrity {
	SLC_I_UNTRUSTED = SLIM_I_UNTRUSTED,
	SLC_I_USER = SLIM_I_USER,
	SLC_I_SYSTEM = SLIM_I_SYSTEM,
	SLC_I_NONE = SLIM_I_NONE
};
enum slc_secrecy {
	SLC_S_PUBLIC = SLIM_S_PUBLIC,
	SLC_S_USER = SLIM_S_USER,
	SLC_S_USER_SENSITIVE = SLIM_S_USER_SENSITIVE,
	SLC_S_SYSTEM_SENSITIVE = SLIM_S_SYSTEM_SENSITIVE,
	SLC_S_NONE = SLIM_S_NONE
};

struct slc_level {
	int integ;  /* enum slc_integrity */
	int secr;   /* enum slc_secrecy */
	int gread;  /* guard-read floor, SLC_I_NONE: none */
	int gwrite; /* guard-write floor, SLC_S_NONE: none */
};

#define SLC_XATTR	SLIM_XATTR
#define SLC_LABEL_MAX	SLIM_LABEL_MAX
#define SLC_SECFS	"/sys/kernel/security/slim"
#define SLC_EVM_XATTR	SLIM_EVM_XATTR
#define SLC_EVM_TYPE	SLIM_EVM_TYPE
#define SLC_EVM_KEY_LEN SLIM_EVM_KEY_LEN
#define SLC_EVM_NXATTR	4

/* label.c: the text form of security.slim, parsed as the module parses it */
int slc_label_parse(const char *s, size_t len, struct slc_level *out);
/* writes the canonical text (no newline) into buf; ATT_E_TOO_BIG if short */
int slc_label_format(const struct slc_level *l, char *buf, size_t size);

/* labelpol.c: labeling policies ("PATH LABEL" lines, longest prefix wins) */
struct slc_policy;
int slc_policy_load(const char *file, struct slc_policy **out);
void slc_policy_free(struct slc_policy *p);
/* the rule for an absolute path, NULL if none covers it */
const struct slc_level *slc_policy_lookup(const struct slc_policy *p,
					  const char *path, size_t *rule);
int slc_cmd_label(int argc, char **argv);

/* sys.c: the module's securityfs files */
int slc_cmd_status(int argc, char **argv);
int slc_cmd_mode(int argc, char **argv);
int slc_cmd_show(int argc, char **argv);
int slc_cmd_ps(int argc, char **argv);
int slc_cmd_relabel(int argc, char **argv);
/* sets one file's label through the module (online) or the xattr (offline) */
int slc_set_label(const char *path, const struct slc_level *l, int offline);
/* the securityfs directory: SLIMCTL_SECFS from the environment (tests) */
const char *slc_secfs(void);

/* evmhmac.c: the label HMAC (kernel/evm.c, docs/evm.md) */
#include <stdint.h>
#include <sys/types.h>
struct slc_evm_input {
	int present[SLC_EVM_NXATTR]; /* security.slim, .ima, .capability,
					.selinux */
	uint8_t *value[SLC_EVM_NXATTR];
	size_t len[SLC_EVM_NXATTR];
	uint64_t ino;
	uint32_t generation, uid, gid;
	uint16_t mode;
	uint8_t uuid[16];
	dev_t dev;
};
int slc_evm_calc(const uint8_t key[SLC_EVM_KEY_LEN],
		 const struct slc_evm_input *in, uint8_t out[32]);
int slc_evm_input_from_file(const char *path, struct slc_evm_input *in);
void slc_evm_input_free(struct slc_evm_input *in);
int slc_parse_uuid(const char *s, uint8_t uuid[16]);
int slc_read_key_file(const char *file, uint8_t key[SLC_EVM_KEY_LEN]);
int slc_cmd_evm_hmac(int argc, char **argv);
/* sys.c */
int slc_read_secfs(const char *name, char **out);
int slc_write_secfs(const char *name, const char *data, size_t len);

/* evmseal.c: the key sealed in the TPM */
int slc_cmd_evm_seal(int argc, char **argv);
int slc_cmd_evm_load(int argc, char **argv);

#endif
