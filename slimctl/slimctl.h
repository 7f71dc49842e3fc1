/* SPDX-License-Identifier: Apache-2.0 */
/*
 * slimctl.h - the pieces of slimctl, the administration tool of the
 * slim kernel module's lattice.
 */
#ifndef ATTEST_SLIMCTL_H
#define ATTEST_SLIMCTL_H

#include <stddef.h>

/* Levels, with the same values and names as the module (kernel/slim.h). */
enum slc_integrity { SLC_I_UNTRUSTED, SLC_I_USER, SLC_I_SYSTEM, SLC_I_NONE };
enum slc_secrecy {
	SLC_S_PUBLIC,
	SLC_S_USER,
	SLC_S_USER_SENSITIVE,
	SLC_S_SYSTEM_SENSITIVE,
	SLC_S_NONE
};

struct slc_level {
	int integ;  /* enum slc_integrity */
	int secr;   /* enum slc_secrecy */
	int gread;  /* guard-read floor, SLC_I_NONE: none */
	int gwrite; /* guard-write floor, SLC_S_NONE: none */
};

#define SLC_XATTR     "security.slim"
#define SLC_LABEL_MAX 96
#define SLC_SECFS     "/sys/kernel/security/slim"

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

#endif
