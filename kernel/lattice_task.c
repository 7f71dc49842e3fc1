// SPDX-License-Identifier: GPL-2.0
/*
 * the levels of tasks and of IPC objects (pipes, UNIX sockets, SysV and
 * POSIX IPC), kept in object tables (objtable.h) keyed by their address:
 * a module has no security blobs. Read under RCU (the hooks may run in
 * atomic context), written under the table's spinlock; levels are packed
 * into an atomic_t and only go down in integrity and up in secrecy.
 *
 * An entry is removed when its object is freed (task_free, sk_free,
 * shm_free, msg_msg_free hooks). A task without an entry has the initial
 * levels (SYSTEM PUBLIC, no guard): only tasks that differ from them, and
 * their children, have entries.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/hashtable.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include "lattice.h"
#include "objtable.h"

/* ---- per-task levels ------------------------------------------------------ */

struct slim_task {
	struct slim_key key;	/* first: the allocation */
	atomic_t lv;		/* struct slim_level, packed */
};

#define SLIM_TASK_BITS 10
static DEFINE_HASHTABLE(slim_task_ht, SLIM_TASK_BITS);
static struct slim_table slim_tasks =
	SLIM_TABLE_INIT(slim_tasks, slim_task_ht, SLIM_TASK_BITS,
			&slim_counters[SLIM_C_TASKS]);

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

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "task level entry outside RCU");
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

/*
 * A child inherits its parent's levels and guards, and nothing else: its
 * task_struct is new, so an entry already keyed by its address belongs to
 * a task that was freed without the task_free hook seeing it (a bug; the
 * main.c comment on slim_active tells the one found). Such an entry is
 * counted in stale_states, reported once, and replaced.
 */
int slim_task_inherit(const struct task_struct *child,
		      const struct task_struct *parent, gfp_t gfp)
{
	struct slim_level l = slim_task_level(parent);
	struct slim_task *e;
	int rc = 0;

	if (unlikely(slim_table_find_unlocked(&slim_tasks, child))) {
		slim_count(SLIM_C_STALE);
		pr_warn_once("a new task had the levels of a freed one: replaced (stale_states)\n");
		if (slim_level_eq(&l, &slim_initial_level)) {
			slim_task_forget(child);
			return 0;
		}
	}
	if (slim_level_eq(&l, &slim_initial_level))
		return 0;
	rcu_read_lock();
	e = slim_task_get(child, &l, gfp);
	if (e)
		atomic_set(&e->lv, slim_pack(&l));
	else
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
static struct slim_table slim_objs =
	SLIM_TABLE_INIT(slim_objs, slim_obj_ht, SLIM_OBJ_BITS,
			&slim_counters[SLIM_C_OBJECTS]);

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

/* after the hooks are detached: nothing adds entries any more */
void slim_task_state_exit(void)
{
	BUILD_BUG_ON(offsetof(struct slim_task, key) != 0);
	BUILD_BUG_ON(offsetof(struct slim_obj, key) != 0);
	slim_table_drop(&slim_tasks);
	slim_table_drop(&slim_objs);
}

/* ---- the programs running when the module loads (issue 37) ---------------- */

#define SLIM_LOAD_SCAN_MAX 65536

/*
 * A program executed before the module loaded has no guards (they come
 * from the label of the executable at exec). Loaded from
 * /etc/modules-load.d, the module finds PID 1 and the early daemons already
 * running: each running process takes the guards of its executable's label
 * now, as if it had been executed after the load. Sleepable (module init).
 * The executable is found through /proc/PID/exe (the kernel's own link to
 * it); a process that cannot be resolved keeps no guards. A thread forked
 * during the scan may miss its process's guards until its next exec.
 */
void slim_guards_at_load(void)
{
	struct task_struct *p, *t;
	unsigned int n = 0, i, set = 0;
	char name[32];
	pid_t *pids;

	if (!slim_lattice_on())
		return;
	pids = kvcalloc(SLIM_LOAD_SCAN_MAX, sizeof(*pids), GFP_KERNEL);
	if (!pids)
		return;
	rcu_read_lock();
	for_each_process(p) {
		if (n == SLIM_LOAD_SCAN_MAX)
			break;
		if (!(p->flags & PF_KTHREAD) && p->mm)
			pids[n++] = task_tgid_vnr(p);
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		struct slim_level l;
		struct path path;

		snprintf(name, sizeof(name), "/proc/%d/exe", pids[i]);
		if (kern_path(name, LOOKUP_FOLLOW, &path))
			continue;
		if (S_ISREG(d_backing_inode(path.dentry)->i_mode) &&
		    slim_sb_labeled(path.dentry->d_sb)) {
			slim_inode_load(path.dentry, d_backing_inode(path.dentry),
					&l);
			if (l.gread != SLIM_I_NONE || l.gwrite != SLIM_S_NONE) {
				rcu_read_lock();
				p = pid_task(find_vpid(pids[i]), PIDTYPE_PID);
				if (p) {
					for_each_thread(p, t)
						slim_task_set_guards(t, l.gread,
								     l.gwrite,
								     GFP_ATOMIC);
					set++;
				}
				rcu_read_unlock();
			}
		}
		path_put(&path);
	}
	kvfree(pids);
	if (set)
		pr_info("%u running processes took the guards of their executables\n",
			set);
}
