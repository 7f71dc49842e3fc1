/* SPDX-License-Identifier: Apache-2.0 */
/*
 * privdrop.h - the agent opens what needs privilege (the TPM device, the
 * securityfs lists) as root, then becomes an unprivileged user for good.
 */
#ifndef ATTEST_AGENT_PRIVDROP_H
#define ATTEST_AGENT_PRIVDROP_H

/*
 * Becomes `user` (its uid, primary gid, no supplementary groups) and sets
 * no_new_privs; fails unless root can no longer be regained. NULL or "":
 * nothing to drop (but no_new_privs is still set). Not root: only allowed
 * when already running as that user.
 */
int agent_drop_privileges(const char *user);

#endif
