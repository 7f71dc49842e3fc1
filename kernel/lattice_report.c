// SPDX-License-Identifier: GPL-2.0
/*
 * what the lattice reports: its counters, and the verdict of a rule that
 * says no (counted, logged with a rate limit, the error for the caller).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/path.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/pid.h>
#include "lattice.h"

/* ---- counters ------------------------------------------------------------- */

atomic_long_t slim_counters[SLIM_C_MAX];

static const char *const slim_counter_names[SLIM_C_MAX] = {
	[SLIM_C_DEMOTE] = "demotions",
	[SLIM_C_RAISE] = "secrecy_raises",
	[SLIM_C_DEMOTE_RECV] = "demotions_ip_receive",
	[SLIM_C_GUARD_READ] = "guard_reads",
	[SLIM_C_DENY_WRITE_UP] = "denied_write_up",
	[SLIM_C_DENY_WRITE_DOWN] = "denied_write_down",
	[SLIM_C_DENY_SEND] = "denied_ip_send",
	[SLIM_C_DENY_XATTR] = "denied_label_change",
	[SLIM_C_DENY_NOMEM] = "denied_no_memory",
	[SLIM_C_PERMITTED] = "permissive_would_deny",
	[SLIM_C_BAD_LABEL] = "bad_labels",
	[SLIM_C_LABEL_NEW] = "labeled_new_files",
	[SLIM_C_RELABEL] = "relabels",
	[SLIM_C_UNWATCHED] = "unwatched_opens",
	[SLIM_C_EVM_VERIFIED] = "evm_verified",
	[SLIM_C_EVM_FAILED] = "evm_failed",
	[SLIM_C_EVM_MISSING] = "evm_missing",
	[SLIM_C_EVM_UNVERIFIED] = "evm_unverified",
	[SLIM_C_DENY_EVM] = "denied_evm",
	[SLIM_C_EV_WRITTEN] = "events_written",
	[SLIM_C_EV_DROPPED] = "events_dropped",
	[SLIM_C_TASKS] = "task_states",
	[SLIM_C_INODES] = "inode_states",
	[SLIM_C_OBJECTS] = "object_states",
	[SLIM_C_DEMOTE_IPC] = "demotions_ipc",
	[SLIM_C_DENY_PTRACE] = "denied_ptrace",
	[SLIM_C_DENY_SIGNAL] = "denied_signal",
	[SLIM_C_DENY_META] = "denied_metadata",
	[SLIM_C_DENY_MAPPED] = "denied_demotion_mapped",
	[SLIM_C_IPC_MISSED] = "ipc_missed",
	[SLIM_C_DENY_CONFINE] = "denied_below_system",
	[SLIM_C_DENY_SWITCH_OFF] = "denied_switch_off",
	[SLIM_C_STALE] = "stale_states",
};

const char *slim_counter_name(int c)
{
	return slim_counter_names[c];
}

/* ---- verdicts and log lines ---------------------------------------------- */

static const char *const slim_rule_names[] = {
	[SLIM_RULE_WRITE_UP] = "no write up in integrity",
	[SLIM_RULE_WRITE_DOWN] = "no write down in secrecy",
	[SLIM_RULE_SEND] = "no send above PUBLIC on an IP socket",
	[SLIM_RULE_LABEL] = "labels change only through the module",
	[SLIM_RULE_NOMEM] = "no memory to track the task",
	[SLIM_RULE_EVM] = "label without a valid HMAC",
	[SLIM_RULE_PTRACE] = "no access to a process up in integrity",
	[SLIM_RULE_PTRACE_DOWN] = "no access to a process down in secrecy",
	[SLIM_RULE_SIGNAL] = "no signal up in integrity",
	[SLIM_RULE_META] = "no change of a file up in integrity",
	[SLIM_RULE_MAPPED] = "no demotion while sharing writable memory",
	[SLIM_RULE_DIR] = "no change of a directory up in integrity",
	[SLIM_RULE_CONFINE] = "no change to the system below SYSTEM integrity",
	[SLIM_RULE_MULTICAST] = "no broadcast to local sockets below SYSTEM PUBLIC",
	[SLIM_RULE_SIGNAL_DOWN] = "no signal with data down in secrecy",
};

static const int slim_rule_counter[] = {
	[SLIM_RULE_WRITE_UP] = SLIM_C_DENY_WRITE_UP,
	[SLIM_RULE_WRITE_DOWN] = SLIM_C_DENY_WRITE_DOWN,
	[SLIM_RULE_SEND] = SLIM_C_DENY_SEND,
	[SLIM_RULE_LABEL] = SLIM_C_DENY_XATTR,
	[SLIM_RULE_NOMEM] = SLIM_C_DENY_NOMEM,
	[SLIM_RULE_EVM] = SLIM_C_DENY_EVM,
	[SLIM_RULE_PTRACE] = SLIM_C_DENY_PTRACE,
	[SLIM_RULE_PTRACE_DOWN] = SLIM_C_DENY_PTRACE,
	[SLIM_RULE_SIGNAL] = SLIM_C_DENY_SIGNAL,
	[SLIM_RULE_META] = SLIM_C_DENY_META,
	[SLIM_RULE_MAPPED] = SLIM_C_DENY_MAPPED,
	[SLIM_RULE_DIR] = SLIM_C_DENY_WRITE_UP,
	[SLIM_RULE_CONFINE] = SLIM_C_DENY_CONFINE,
	[SLIM_RULE_MULTICAST] = SLIM_C_DENY_WRITE_UP,
	[SLIM_RULE_SIGNAL_DOWN] = SLIM_C_DENY_SIGNAL,
};

static DEFINE_RATELIMIT_STATE(slim_log_rs, 5 * HZ, 20);

/* one kernel log line of the lattice may go out now (rate limited) */
bool slim_log_ok(void)
{
	return __ratelimit(&slim_log_rs);
}

/*
 * The name of an object for a log line: the full path when the caller has
 * a struct path, else the last components of the dentry. Safe in atomic
 * context (d_path() and %pd do not sleep).
 */
const char *slim_objname(const struct path *path, const struct dentry *dentry,
			 char *buf, int size)
{
	char *p;

	if (path) {
		p = d_path(path, buf, size);
		return IS_ERR(p) ? "(unnamed)" : p;
	}
	if (dentry) {
		/* no mount here: the path inside its file system */
		scnprintf(buf, size, "%s:%pd4", dentry->d_sb->s_id, dentry);
		return buf;
	}
	return "(IP socket)";
}

static const char *const slim_cause_names[] = {
	[SLIM_CAUSE_FILE] = "file",
	[SLIM_CAUSE_IP] = "(IP socket)",
	[SLIM_CAUSE_PROCESS] = "(process)",
	[SLIM_CAUSE_PIPE] = "(pipe)",
	[SLIM_CAUSE_UNIX] = "(UNIX socket)",
	[SLIM_CAUSE_SHM] = "(SysV shared memory)",
	[SLIM_CAUSE_MSG] = "(SysV message)",
	[SLIM_CAUSE_MQUEUE] = "(POSIX message)",
	[SLIM_CAUSE_OBJECT] = "(kernel object)",
};

/* an object that is not a file, for a log line */
const char *slim_cause_name(enum slim_cause cause)
{
	return cause < ARRAY_SIZE(slim_cause_names) &&
	       slim_cause_names[cause] ? slim_cause_names[cause] : "?";
}

/*
 * A rule says no to something on @what (a file's name, "process 12", a
 * cause's name): counted and logged (rate limited); the error to return in
 * enforce mode, 0 in permissive mode.
 */
int slim_deny_named(enum slim_denial rule, const char *kind, const char *what,
		    const struct slim_level *task, const struct slim_level *obj)
{
	bool enforce = READ_ONCE(slim_mode) == SLIM_MODE_ENFORCE;

	slim_count(enforce ? slim_rule_counter[rule] : SLIM_C_PERMITTED);
	if (slim_log_ok())
		pr_notice("%s: pid=%d comm=%s %s=%s task=%s/%s object=%s/%s rule=\"%s\"\n",
			  enforce ? "denied" : "permissive",
			  task_pid_nr(current), current->comm, kind, what,
			  slim_integ_name(task->integ),
			  slim_secr_name(task->secr),
			  slim_integ_name(obj->integ),
			  slim_secr_name(obj->secr), slim_rule_names[rule]);
	if (!enforce)
		return 0;
	return rule == SLIM_RULE_NOMEM ? -ENOMEM :
		rule == SLIM_RULE_LABEL || rule == SLIM_RULE_EVM ||
		rule == SLIM_RULE_SIGNAL || rule == SLIM_RULE_SIGNAL_DOWN ||
		rule == SLIM_RULE_CONFINE ?
		-EPERM : -EACCES;
}

int slim_deny(enum slim_denial rule, const struct path *path,
	      const struct dentry *dentry, const struct slim_level *task,
	      const struct slim_level *obj)
{
	char name[SLIM_NAME_MAX];

	return slim_deny_named(rule, "file",
			       slim_objname(path, dentry, name, sizeof(name)),
			       task, obj);
}
