/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */
/*
 * the module's wire formats, in one place: what user space reads and
 * writes (labels in security.slim, the EVM xattr, the lattice's event
 * records in the measurement list, docs/lattice-events.md, docs/evm.md).
 * Plain enums and macros, no kernel header: libattest's record parser
 * (common/include/attest/lattice.h) and slimctl (slimctl/slimctl.h)
 * include this file as it is (hence its second license).
 */
#ifndef SLIM_WIRE_H
#define SLIM_WIRE_H

/* levels: integrity UNTRUSTED < USER < SYSTEM, secrecy PUBLIC < ... */
enum slim_integrity {
	SLIM_I_UNTRUSTED, SLIM_I_USER, SLIM_I_SYSTEM,
	SLIM_I_NONE,		/* no guard floor */
};

enum slim_secrecy {
	SLIM_S_PUBLIC, SLIM_S_USER, SLIM_S_USER_SENSITIVE,
	SLIM_S_SYSTEM_SENSITIVE,
	SLIM_S_NONE,		/* no guard floor */
};

#define SLIM_INTEG_NAMES {				\
	[SLIM_I_UNTRUSTED] = "UNTRUSTED",		\
	[SLIM_I_USER] = "USER",				\
	[SLIM_I_SYSTEM] = "SYSTEM",			\
}

#define SLIM_SECR_NAMES {				\
	[SLIM_S_PUBLIC] = "PUBLIC",			\
	[SLIM_S_USER] = "USER",				\
	[SLIM_S_USER_SENSITIVE] = "USER_SENSITIVE",	\
	[SLIM_S_SYSTEM_SENSITIVE] = "SYSTEM_SENSITIVE",	\
}

/*
 * A label: "<integrity> <secrecy> [guard-read=<integrity>]
 * [guard-write=<secrecy>]", at most SLIM_LABEL_MAX bytes, in SLIM_XATTR.
 */
#define SLIM_XATTR "security.slim"
#define SLIM_LABEL_MAX 96
#define SLIM_GUARD_READ "guard-read="
#define SLIM_GUARD_WRITE "guard-write="

/* the mode (the mode file, event records) */
enum slim_mode { SLIM_MODE_OFF, SLIM_MODE_PERMISSIVE, SLIM_MODE_ENFORCE };

#define SLIM_MODE_NAMES {				\
	[SLIM_MODE_OFF] = "off",			\
	[SLIM_MODE_PERMISSIVE] = "permissive",		\
	[SLIM_MODE_ENFORCE] = "enforce",		\
}

/* the labels' HMAC: SLIM_EVM_XATTR holds SLIM_EVM_TYPE || HMAC */
#define SLIM_EVM_XATTR "security.slim.evm"
#define SLIM_EVM_TYPE 0x02	/* EVM_XATTR_HMAC */
#define SLIM_EVM_LEN (1 + 32)	/* type, HMAC-SHA256 */
#define SLIM_EVM_KEY_LEN 32

/*
 * Event records: ima-buf entries named SLIM_EVENT_NAME of at most
 * SLIM_EVENT_MAX bytes; a SLIM_EV_HDR-byte header (version SLIM_EV_VERSION,
 * type) and tagged fields, strings cut at SLIM_EV_STR_MAX bytes.
 */
#define SLIM_EVENT_NAME "slim_event"
#define SLIM_EVENT_MAX 1024
#define SLIM_EV_VERSION 1
#define SLIM_EV_HDR 24
#define SLIM_EV_STR_MAX 255

enum slim_ev_type {
	SLIM_EV_LOAD = 1, SLIM_EV_MODE, SLIM_EV_POLICY, SLIM_EV_EVM_KEY,
	SLIM_EV_RELABEL, SLIM_EV_DEMOTION, SLIM_EV_DROPPED, SLIM_EV_REFUSED,
};

enum slim_ev_tag {
	SLIM_T_VERSION = 1, SLIM_T_MODE, SLIM_T_OLD_MODE, SLIM_T_PCR,
	SLIM_T_LOCK, SLIM_T_EVM_DEMOTE, SLIM_T_DEFAULT_LABEL, SLIM_T_DIGEST,
	SLIM_T_PID, SLIM_T_COMM, SLIM_T_EXE, SLIM_T_OLD_LABEL,
	SLIM_T_NEW_LABEL, SLIM_T_PATH, SLIM_T_CAUSE, SLIM_T_COUNT,
	SLIM_T_SOURCE, SLIM_T_FINAL, SLIM_T_ACTION, SLIM_T_LABEL,
};

/* what a task read from (the demotion record's cause, docs/lattice-events.md) */
enum slim_cause {
	SLIM_CAUSE_FILE = 1, SLIM_CAUSE_IP, SLIM_CAUSE_PROCESS,
	SLIM_CAUSE_PIPE, SLIM_CAUSE_UNIX, SLIM_CAUSE_SHM, SLIM_CAUSE_MSG,
	SLIM_CAUSE_MQUEUE,
	SLIM_CAUSE_OBJECT,	/* netlink, eventfd, pty, key, semaphore, xattr */
};

#endif /* SLIM_WIRE_H */
