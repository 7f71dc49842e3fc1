// SPDX-License-Identifier: GPL-2.0
/*
 * the SLIM lattice: levels, labels, the mode, and the state kept per task
 * and per inode.
 *
 * Integrity UNTRUSTED < USER < SYSTEM, secrecy PUBLIC < USER <
 * USER_SENSITIVE < SYSTEM_SENSITIVE. A label is text in the security.slim
 * xattr: "<integrity> <secrecy> [guard-read=<integrity>]
 * [guard-write=<secrecy>]" (see README.md, "SLIM lattice").
 *
 * Tasks, inodes and IPC objects have no security blob in a loadable module,
 * so their levels live in hash tables keyed by the object's address, read
 * under RCU (the hooks may run in atomic context) and written under a
 * spinlock.
 * An entry is removed when the task or inode is freed (task_free and
 * inode_free hooks). A task without an entry has the initial levels
 * (SYSTEM PUBLIC, no guard): only tasks that differ from them, and their
 * children, have entries. An inode without an entry has the default label.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/hashtable.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/moduleparam.h>
#include <linux/xattr.h>
#include <linux/sysfs.h>
#include <linux/ratelimit.h>
#include <linux/dcache.h>
#include "slim.h"

static const char *const slim_integ_names[] = {
	[SLIM_I_UNTRUSTED] = "UNTRUSTED",
	[SLIM_I_USER] = "USER",
	[SLIM_I_SYSTEM] = "SYSTEM",
};

static const char *const slim_secr_names[] = {
	[SLIM_S_PUBLIC] = "PUBLIC",
	[SLIM_S_USER] = "USER",
	[SLIM_S_USER_SENSITIVE] = "USER_SENSITIVE",
	[SLIM_S_SYSTEM_SENSITIVE] = "SYSTEM_SENSITIVE",
};

const struct slim_level slim_initial_level = {
	.integ = SLIM_I_SYSTEM, .secr = SLIM_S_PUBLIC,
	.gread = SLIM_I_NONE, .gwrite = SLIM_S_NONE,
};

/* ---- mode --------------------------------------------------------------- */

static const char *const slim_mode_names[] = {
	[SLIM_MODE_OFF] = "off",
	[SLIM_MODE_PERMISSIVE] = "permissive",
	[SLIM_MODE_ENFORCE] = "enforce",
};

int slim_mode = SLIM_MODE_PERMISSIVE;

int slim_mode_parse(const char *s)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(slim_mode_names); i++)
		if (sysfs_streq(s, slim_mode_names[i]))
			return i;
	return -EINVAL;
}

const char *slim_mode_name(int mode)
{
	return slim_mode_names[mode];
}

static int slim_mode_param_set(const char *val, const struct kernel_param *kp)
{
	int mode = slim_mode_parse(val);

	if (mode < 0)
		return mode;
	WRITE_ONCE(slim_mode, mode);
	return 0;
}

static int slim_mode_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", slim_mode_name(READ_ONCE(slim_mode)));
}

static const struct kernel_param_ops slim_mode_param_ops = {
	.set = slim_mode_param_set,
	.get = slim_mode_param_get,
};
module_param_cb(mode, &slim_mode_param_ops, NULL, 0444);
MODULE_PARM_DESC(mode, "SLIM lattice: enforce, permissive (default) or off");

static char *slim_default_param = "SYSTEM PUBLIC";
module_param_named(default_label, slim_default_param, charp, 0444);
MODULE_PARM_DESC(default_label, "Label of files without security.slim (default \"SYSTEM PUBLIC\")");

struct slim_level slim_default_level;

/* ---- labels --------------------------------------------------------------- */

static int slim_name_index(const char *s, size_t len,
			   const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(s, names[i], len))
			return i;
	return -1;
}

/*
 * Parses a label of at most SLIM_LABEL_MAX bytes; a trailing NUL or
 * newline is allowed (setfattr and echo add them). Words are separated by
 * single or repeated spaces; unknown or repeated words are an error.
 */
int slim_label_parse(const char *s, size_t len, struct slim_level *out)
{
	struct slim_level l = {
		.gread = SLIM_I_NONE, .gwrite = SLIM_S_NONE,
	};
	size_t i = 0, w, wl;
	int field = 0, v;

	if (len > SLIM_LABEL_MAX)
		return -E2BIG;
	while (len && (s[len - 1] == '\0' || s[len - 1] == '\n'))
		len--;
	while (i < len) {
		if (s[i] == ' ') {
			i++;
			continue;
		}
		for (w = i; i < len && s[i] != ' '; i++)
			if (s[i] < 0x21 || s[i] > 0x7e)
				return -EINVAL;
		wl = i - w;
		if (field == 0) {
			v = slim_name_index(s + w, wl, slim_integ_names,
					    ARRAY_SIZE(slim_integ_names));
			if (v < 0)
				return -EINVAL;
			l.integ = v;
		} else if (field == 1) {
			v = slim_name_index(s + w, wl, slim_secr_names,
					    ARRAY_SIZE(slim_secr_names));
			if (v < 0)
				return -EINVAL;
			l.secr = v;
		} else if (wl > 11 && !memcmp(s + w, "guard-read=", 11) &&
			   l.gread == SLIM_I_NONE) {
			v = slim_name_index(s + w + 11, wl - 11,
					    slim_integ_names,
					    ARRAY_SIZE(slim_integ_names));
			if (v < 0)
				return -EINVAL;
			l.gread = v;
		} else if (wl > 12 && !memcmp(s + w, "guard-write=", 12) &&
			   l.gwrite == SLIM_S_NONE) {
			v = slim_name_index(s + w + 12, wl - 12,
					    slim_secr_names,
					    ARRAY_SIZE(slim_secr_names));
			if (v < 0)
				return -EINVAL;
			l.gwrite = v;
		} else {
			return -EINVAL;
		}
		field++;
	}
	if (field < 2)
		return -EINVAL;
	*out = l;
	return 0;
}

/* "SYSTEM PUBLIC guard-read=UNTRUSTED"; returns the length */
int slim_label_format(const struct slim_level *l, char *buf, size_t size)
{
	int n;

	n = scnprintf(buf, size, "%s %s", slim_integ_names[l->integ],
		      slim_secr_names[l->secr]);
	if (l->gread != SLIM_I_NONE)
		n += scnprintf(buf + n, size - n, " guard-read=%s",
			       slim_integ_names[l->gread]);
	if (l->gwrite != SLIM_S_NONE)
		n += scnprintf(buf + n, size - n, " guard-write=%s",
			       slim_secr_names[l->gwrite]);
	return n;
}

const char *slim_integ_name(unsigned int integ)
{
	return integ < ARRAY_SIZE(slim_integ_names) ?
		slim_integ_names[integ] : "-";
}

const char *slim_secr_name(unsigned int secr)
{
	return secr < ARRAY_SIZE(slim_secr_names) ?
		slim_secr_names[secr] : "-";
}

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
		rule == SLIM_RULE_SIGNAL ? -EPERM : -EACCES;
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

/* ---- the two state tables ------------------------------------------------ */

/*
 * What the task and inode tables share: entries keyed by the address of
 * their object, found under RCU, added and removed under the table's lock,
 * freed after a grace period. Each entry type starts with a slim_key.
 */
struct slim_key {
	struct hlist_node node;
	struct rcu_head rcu;
	const void *obj;
};

struct slim_table {
	struct hlist_head *ht;
	unsigned int bits;
	spinlock_t lock;
	enum slim_counter count;	/* live entries */
};

static struct hlist_head *slim_bucket(struct slim_table *t, const void *obj)
{
	return &t->ht[hash_min((unsigned long)obj, t->bits)];
}

/* caller holds rcu_read_lock() or t->lock */
static struct slim_key *slim_table_find(struct slim_table *t, const void *obj)
{
	struct slim_key *k;

	hlist_for_each_entry_rcu(k, slim_bucket(t, obj), node,
				 lockdep_is_held(&t->lock))
		if (k->obj == obj)
			return k;
	return NULL;
}

/* a look without holding anything (the answer may be stale at once) */
static bool slim_table_find_unlocked(struct slim_table *t, const void *obj)
{
	bool found;

	rcu_read_lock();
	found = slim_table_find(t, obj);
	rcu_read_unlock();
	return found;
}

/* caller holds t->lock and found no entry for n->obj */
static void slim_table_add(struct slim_table *t, struct slim_key *n)
{
	hlist_add_head_rcu(&n->node, slim_bucket(t, n->obj));
	slim_count(t->count);
}

/*
 * The object is being freed. Every task exit and every inode freed in the
 * system comes here and most have no entry: look before locking (nothing
 * adds an entry for an object that is being freed).
 */
static void slim_table_forget(struct slim_table *t, const void *obj)
{
	struct slim_key *k;
	unsigned long flags;

	rcu_read_lock();
	k = slim_table_find(t, obj);
	rcu_read_unlock();
	if (!k)
		return;
	spin_lock_irqsave(&t->lock, flags);
	k = slim_table_find(t, obj);
	if (k) {
		hlist_del_rcu(&k->node);
		atomic_long_dec(&slim_counters[t->count]);
	}
	spin_unlock_irqrestore(&t->lock, flags);
	if (k)
		kfree_rcu(k, rcu);
}

/* empties the table (after the hooks are detached) */
static void slim_table_drop(struct slim_table *t)
{
	struct hlist_node *tmp;
	struct slim_key *k;
	unsigned long flags;
	HLIST_HEAD(dead);
	unsigned int b;

	spin_lock_irqsave(&t->lock, flags);
	for (b = 0; b < (1u << t->bits); b++) {
		hlist_for_each_entry_safe(k, tmp, &t->ht[b], node) {
			hlist_del_rcu(&k->node);
			hlist_add_head(&k->node, &dead);
		}
	}
	atomic_long_set(&slim_counters[t->count], 0);
	spin_unlock_irqrestore(&t->lock, flags);
	synchronize_rcu();
	hlist_for_each_entry_safe(k, tmp, &dead, node)
		kfree(k);
}

/* ---- per-task levels ------------------------------------------------------ */

struct slim_task {
	struct slim_key key;	/* first: the allocation */
	atomic_t lv;		/* struct slim_level, packed */
};

#define SLIM_TASK_BITS 10
static DEFINE_HASHTABLE(slim_task_ht, SLIM_TASK_BITS);
static struct slim_table slim_tasks = {
	.ht = slim_task_ht, .bits = SLIM_TASK_BITS,
	.lock = __SPIN_LOCK_UNLOCKED(slim_tasks.lock), .count = SLIM_C_TASKS,
};

static u32 slim_pack(const struct slim_level *l)
{
	return l->integ | l->secr << 8 | l->gread << 16 | (u32)l->gwrite << 24;
}

static struct slim_level slim_unpack(u32 v)
{
	struct slim_level l = {
		.integ = v & 0xff, .secr = (v >> 8) & 0xff,
		.gread = (v >> 16) & 0xff, .gwrite = v >> 24,
	};
	return l;
}

static bool slim_level_eq(const struct slim_level *a,
			  const struct slim_level *b)
{
	return slim_pack(a) == slim_pack(b);
}

/* caller holds rcu_read_lock() or the table's lock */
static struct slim_task *slim_task_find(const struct task_struct *t)
{
	struct slim_key *k = slim_table_find(&slim_tasks, t);

	return k ? container_of(k, struct slim_task, key) : NULL;
}

struct slim_level slim_task_level(const struct task_struct *t)
{
	struct slim_level l = slim_initial_level;
	struct slim_task *e;

	rcu_read_lock();
	e = slim_task_find(t);
	if (e)
		l = slim_unpack(atomic_read(&e->lv));
	rcu_read_unlock();
	return l;
}

/*
 * The entry of @t, created with @init if there is none. Returns NULL when
 * memory runs out. Caller holds rcu_read_lock(); the entry stays valid
 * until rcu_read_unlock().
 */
static struct slim_task *slim_task_get(const struct task_struct *t,
				       const struct slim_level *init, gfp_t gfp)
{
	struct slim_task *e, *n;
	unsigned long flags;

	e = slim_task_find(t);
	if (e)
		return e;
	n = kmalloc(sizeof(*n), gfp);
	if (!n)
		return NULL;
	n->key.obj = t;
	atomic_set(&n->lv, slim_pack(init));
	spin_lock_irqsave(&slim_tasks.lock, flags);
	e = slim_task_find(t);
	if (!e) {
		slim_table_add(&slim_tasks, &n->key);
		e = n;
		n = NULL;
	}
	spin_unlock_irqrestore(&slim_tasks.lock, flags);
	kfree(n);
	return e;
}

/* a child inherits its parent's levels and guards */
int slim_task_inherit(const struct task_struct *child,
		      const struct task_struct *parent, gfp_t gfp)
{
	struct slim_level l = slim_task_level(parent);
	int rc = 0;

	if (slim_level_eq(&l, &slim_initial_level))
		return 0;
	rcu_read_lock();
	if (!slim_task_get(child, &l, gfp))
		rc = -ENOMEM;
	rcu_read_unlock();
	return rc;
}

void slim_task_forget(const struct task_struct *t)
{
	slim_table_forget(&slim_tasks, t);
}

/*
 * Lowers the integrity of @t to at most @integ and raises its secrecy to
 * at least @secr (nothing is ever promoted). -ENOMEM if @t has no entry and
 * none can be made.
 */
static int slim_task_lower(const struct task_struct *t, unsigned int integ,
			   unsigned int secr, gfp_t gfp)
{
	struct slim_level l;
	struct slim_task *e;
	u32 old, new;
	int rc = 0;

	rcu_read_lock();
	e = slim_task_get(t, &slim_initial_level, gfp);
	if (!e) {
		rc = -ENOMEM;
		goto out;
	}
	old = atomic_read(&e->lv);
	do {
		l = slim_unpack(old);
		l.integ = min_t(unsigned int, l.integ, integ);
		l.secr = max_t(unsigned int, l.secr, secr);
		new = slim_pack(&l);
	} while (!atomic_try_cmpxchg(&e->lv, &old, new));
out:
	rcu_read_unlock();
	return rc;
}

/*
 * Levels belong to the process: every thread of @task's thread group
 * is lowered (@task is current, or a task blocked in a system call). A thread being created at this instant may still copy the
 * old levels from its creator (README.md, "Known limits").
 */
int slim_group_lower(struct task_struct *task, unsigned int integ,
		     unsigned int secr, gfp_t gfp)
{
	struct task_struct *t;
	int rc = 0;

	rcu_read_lock();
	for_each_thread(task, t) {
		if (slim_task_lower(t, integ, secr, gfp))
			rc = -ENOMEM;
	}
	rcu_read_unlock();
	return rc;
}

/* the guards of the program @t now runs (from its label; none: NONE) */
int slim_task_set_guards(const struct task_struct *t, unsigned int gread,
			 unsigned int gwrite, gfp_t gfp)
{
	struct slim_level l = slim_task_level(t);
	struct slim_task *e;
	u32 old, new;
	int rc = 0;

	if (l.gread == gread && l.gwrite == gwrite)
		return 0;
	rcu_read_lock();
	e = slim_task_get(t, &slim_initial_level, gfp);
	if (!e) {
		rc = -ENOMEM;
		goto out;
	}
	old = atomic_read(&e->lv);
	do {
		l = slim_unpack(old);
		l.gread = gread;
		l.gwrite = gwrite;
		new = slim_pack(&l);
	} while (!atomic_try_cmpxchg(&e->lv, &old, new));
out:
	rcu_read_unlock();
	return rc;
}

/* ---- per-inode labels ----------------------------------------------------- */

struct slim_inode {
	struct slim_key key;	/* first: the allocation */
	struct slim_level lv;
	u8 source;		/* enum slim_label_source */
	bool stale;		/* security.slim changed: read it again */
	unsigned int epoch;	/* slim_label_epoch when it was read */
};

/* bumped when the EVM key arrives: every cached label is checked again */
static atomic_t slim_label_epoch = ATOMIC_INIT(0);

void slim_inode_stale_all(void)
{
	atomic_inc(&slim_label_epoch);
}

#define SLIM_INODE_BITS 12
static DEFINE_HASHTABLE(slim_inode_ht, SLIM_INODE_BITS);
static struct slim_table slim_inodes = {
	.ht = slim_inode_ht, .bits = SLIM_INODE_BITS,
	.lock = __SPIN_LOCK_UNLOCKED(slim_inodes.lock), .count = SLIM_C_INODES,
};

static struct slim_inode *slim_inode_find(const struct inode *inode)
{
	struct slim_key *k = slim_table_find(&slim_inodes, inode);

	return k ? container_of(k, struct slim_inode, key) : NULL;
}

/* Atomic context: the cached label, else the default label. */
enum slim_label_source slim_inode_level(const struct inode *inode,
					struct slim_level *out)
{
	enum slim_label_source src = SLIM_SRC_DEFAULT;
	struct slim_inode *e;

	*out = slim_default_level;
	rcu_read_lock();
	e = slim_inode_find(inode);
	if (e) {
		*out = e->lv;
		src = e->source;
	}
	rcu_read_unlock();
	return src;
}

/*
 * Atomic context, for a change of the file (metadata, unlink, rename): the
 * cached label; a label not seen since the module loaded may be in an
 * xattr that cannot be read here, so it counts as SYSTEM integrity.
 */
void slim_inode_level_strict(const struct inode *inode, struct slim_level *out)
{
	struct slim_inode *e;

	*out = slim_default_level;
	rcu_read_lock();
	e = slim_inode_find(inode);
	if (e)
		*out = e->lv;
	else
		out->integ = SLIM_I_SYSTEM;
	rcu_read_unlock();
}

void slim_inode_set(const struct inode *inode, const struct slim_level *l,
		    enum slim_label_source src, gfp_t gfp)
{
	struct slim_inode *e, *n;
	unsigned long flags;

	n = kmalloc(sizeof(*n), gfp);
	spin_lock_irqsave(&slim_inodes.lock, flags);
	e = slim_inode_find(inode);
	if (e) {
		/* readers see either the old or the new label */
		e->lv = *l;
		e->source = src;
		e->epoch = atomic_read(&slim_label_epoch);
		WRITE_ONCE(e->stale, false);
	} else if (n) {
		n->key.obj = inode;
		n->lv = *l;
		n->source = src;
		n->stale = false;
		n->epoch = atomic_read(&slim_label_epoch);
		slim_table_add(&slim_inodes, &n->key);
		n = NULL;
	}
	spin_unlock_irqrestore(&slim_inodes.lock, flags);
	kfree(n);
}

/*
 * Sleepable: the label of @inode, read from security.slim unless cached.
 * A file system without xattrs keeps labels in memory only (they last as
 * long as the inode, which for ramfs and tmpfs is the file's life).
 */
enum slim_label_source slim_inode_load(struct dentry *dentry,
				       struct inode *inode,
				       struct slim_level *out)
{
	enum slim_label_source src;
	struct slim_inode *e;
	char buf[SLIM_LABEL_MAX + 1];
	ssize_t n;
	bool fresh = false;

	rcu_read_lock();
	e = slim_inode_find(inode);
	if (e && e->source == SLIM_SRC_MEMORY) {
		fresh = true;
	} else if (e && !READ_ONCE(e->stale) &&
		   e->epoch == atomic_read(&slim_label_epoch)) {
		fresh = true;
	}
	if (fresh) {
		*out = e->lv;
		src = e->source;
	}
	rcu_read_unlock();
	if (fresh)
		return src;

	n = __vfs_getxattr(dentry, inode, SLIM_XATTR, buf, SLIM_LABEL_MAX);
	if (n >= 0) {
		buf[n] = '\0';
		if (slim_label_parse(buf, n, out)) {
			/* an unreadable label is the lowest integrity */
			slim_count(SLIM_C_BAD_LABEL);
			pr_warn_ratelimited("bad label on %pd4 (ino %lu): treated as UNTRUSTED PUBLIC\n",
					    dentry, inode->i_ino);
			*out = slim_initial_level;
			out->integ = SLIM_I_UNTRUSTED;
			src = SLIM_SRC_BAD;
		} else {
			src = SLIM_SRC_XATTR;
			switch (slim_evm_verify(dentry, inode)) {
			case SLIM_EVM_MISSING:
			case SLIM_EVM_FAIL:
				pr_warn_ratelimited("%pd4 (ino %lu): label \"%.*s\" without a valid HMAC: %s\n",
						    dentry, inode->i_ino,
						    (int)strcspn(buf, "\n"), buf,
						    slim_evm_demote() ?
						    "treated as UNTRUSTED PUBLIC" :
						    "refused");
				*out = slim_initial_level;
				out->integ = SLIM_I_UNTRUSTED;
				if (!slim_evm_demote())
					src = SLIM_SRC_EVM_FAIL;
				break;
			default:
				break;
			}
		}
	} else if (n == -ENODATA || n == -EOPNOTSUPP) {
		*out = slim_default_level;
		src = SLIM_SRC_DEFAULT;
	} else {
		slim_count(SLIM_C_BAD_LABEL);
		pr_warn_ratelimited("cannot read the label of %pd4: %zd, treated as UNTRUSTED PUBLIC\n",
				    dentry, n);
		*out = slim_initial_level;
		out->integ = SLIM_I_UNTRUSTED;
		return SLIM_SRC_BAD;	/* not cached: try again next time */
	}
	slim_inode_set(inode, out, src, GFP_KERNEL);
	return src;
}

void slim_inode_stale(const struct inode *inode)
{
	struct slim_inode *e;

	rcu_read_lock();
	e = slim_inode_find(inode);
	if (e)
		WRITE_ONCE(e->stale, true);
	rcu_read_unlock();
}

void slim_inode_forget(const struct inode *inode)
{
	slim_table_forget(&slim_inodes, inode);
}

/* ---- IPC objects: the levels of the data they carry ------------------------ */

/*
 * Pipes and FIFOs (keyed by their inode), UNIX sockets (struct sock), SysV
 * shared memory segments (kern_ipc_perm) and SysV messages (msg_msg). An
 * object without an entry carries SYSTEM PUBLIC data. Pipes, sockets and
 * messages only go down (the lowest integrity and highest secrecy written
 * into them); a segment keeps the levels of its creator.
 */
struct slim_obj {
	struct slim_key key;	/* first: the allocation */
	atomic_t lv;		/* struct slim_level, packed */
};

#define SLIM_OBJ_BITS 10
static DEFINE_HASHTABLE(slim_obj_ht, SLIM_OBJ_BITS);
static struct slim_table slim_objs = {
	.ht = slim_obj_ht, .bits = SLIM_OBJ_BITS,
	.lock = __SPIN_LOCK_UNLOCKED(slim_objs.lock), .count = SLIM_C_OBJECTS,
};

/* Atomic context: the levels of the data @obj carries. */
struct slim_level slim_obj_level(const void *obj)
{
	struct slim_level l = slim_initial_level;
	struct slim_key *k;

	rcu_read_lock();
	k = slim_table_find(&slim_objs, obj);
	if (k)
		l = slim_unpack(atomic_read(&container_of(k, struct slim_obj,
							   key)->lv));
	rcu_read_unlock();
	return l;
}

/*
 * @obj now carries data of levels @l too: its integrity falls to at most
 * @l's and its secrecy rises to at least @l's. -ENOMEM when it has no
 * entry and none can be made.
 */
int slim_obj_lower(const void *obj, const struct slim_level *l, gfp_t gfp)
{
	struct slim_obj *e, *n = NULL;
	struct slim_level cur;
	struct slim_key *k;
	unsigned long flags;
	u32 old, new;

	if (l->integ >= slim_initial_level.integ &&
	    l->secr <= slim_initial_level.secr &&
	    !slim_table_find_unlocked(&slim_objs, obj))
		return 0;
	rcu_read_lock();
	k = slim_table_find(&slim_objs, obj);
	if (!k) {
		n = kmalloc(sizeof(*n), gfp);
		if (!n) {
			rcu_read_unlock();
			return -ENOMEM;
		}
		n->key.obj = obj;
		atomic_set(&n->lv, slim_pack(&slim_initial_level));
		spin_lock_irqsave(&slim_objs.lock, flags);
		k = slim_table_find(&slim_objs, obj);
		if (!k) {
			slim_table_add(&slim_objs, &n->key);
			k = &n->key;
			n = NULL;
		}
		spin_unlock_irqrestore(&slim_objs.lock, flags);
		kfree(n);
	}
	e = container_of(k, struct slim_obj, key);
	old = atomic_read(&e->lv);
	do {
		cur = slim_unpack(old);
		cur.integ = min_t(unsigned int, cur.integ, l->integ);
		cur.secr = max_t(unsigned int, cur.secr, l->secr);
		cur.gread = SLIM_I_NONE;
		cur.gwrite = SLIM_S_NONE;
		new = slim_pack(&cur);
	} while (!atomic_try_cmpxchg(&e->lv, &old, new));
	rcu_read_unlock();
	return 0;
}

void slim_obj_forget(const void *obj)
{
	slim_table_forget(&slim_objs, obj);
}

/* ---- setup ---------------------------------------------------------------- */

int slim_lattice_init(void)
{
	int rc;

	rc = slim_label_parse(slim_default_param, strlen(slim_default_param),
			      &slim_default_level);
	if (rc) {
		pr_err("default_label=\"%s\": not a label\n",
		       slim_default_param);
		return rc;
	}
	return 0;
}

/* after the hooks are detached: nothing adds entries any more */
void slim_lattice_exit(void)
{
	BUILD_BUG_ON(offsetof(struct slim_task, key) != 0);
	BUILD_BUG_ON(offsetof(struct slim_inode, key) != 0);
	BUILD_BUG_ON(offsetof(struct slim_obj, key) != 0);
	slim_table_drop(&slim_tasks);
	slim_table_drop(&slim_inodes);
	slim_table_drop(&slim_objs);
}
