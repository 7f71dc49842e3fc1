// SPDX-License-Identifier: GPL-2.0
/*
 * the sleepable half of the hooks: hashing files, the per-inode
 * "already measured" cache and violation records.
 *
 * A hook running in atomic context takes a reference to the file and queues
 * a task_work on the current task (TWA_RESUME). The work runs in that task's
 * context before it returns to user space (or from do_exit()), so no user
 * instruction of the task runs before the file it opened, mapped or
 * executed is in the list, and the hashing itself may sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/task_work.h>
#include <linux/hashtable.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/iversion.h>
#include <linux/string.h>
#include <crypto/hash.h>
#include "slim.h"
#include "measure.h"
#include "compat.h"

#define SLIM_READ_CHUNK (32 * 1024)

struct slim_work {
	struct callback_head cb;
	struct file *file;
	enum slim_func func;
	int mask;
	unsigned int todo;
};

/* works queued and not yet finished; module exit waits for zero */
static atomic_t slim_pending = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(slim_pending_wq);
/* hooks that could not queue their work: reported as violations */
static atomic_t slim_missed = ATOMIC_INIT(0);

static struct crypto_shash *slim_file_tfm;

/* ---- per-task recursion guard ---------------------------------------- */

/*
 * While a task hashes a file it may open or read files itself; those
 * accesses must not re-enter the hooks. A task running its work is in this
 * table; the entry lives on the work's stack, so there is no limit and
 * nothing to allocate.
 */
struct slim_guard {
	struct hlist_node node;
	const struct task_struct *task;
};

#define SLIM_GUARD_BITS 6
static DEFINE_HASHTABLE(slim_guard_ht, SLIM_GUARD_BITS);
static DEFINE_SPINLOCK(slim_guard_lock);
static atomic_t slim_guard_used = ATOMIC_INIT(0);

static void slim_guard_enter(struct slim_guard *g)
{
	unsigned long flags;

	g->task = current;
	spin_lock_irqsave(&slim_guard_lock, flags);
	hash_add(slim_guard_ht, &g->node, (unsigned long)current);
	atomic_inc(&slim_guard_used);
	spin_unlock_irqrestore(&slim_guard_lock, flags);
}

static void slim_guard_exit(struct slim_guard *g)
{
	unsigned long flags;

	spin_lock_irqsave(&slim_guard_lock, flags);
	hash_del(&g->node);
	atomic_dec(&slim_guard_used);
	spin_unlock_irqrestore(&slim_guard_lock, flags);
}

bool slim_guard_active(void)
{
	struct slim_guard *g;
	unsigned long flags;
	bool found = false;

	if (!atomic_read(&slim_guard_used))
		return false;
	spin_lock_irqsave(&slim_guard_lock, flags);
	hash_for_each_possible(slim_guard_ht, g, node, (unsigned long)current) {
		if (g->task == current) {
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&slim_guard_lock, flags);
	return found;
}

/* ---- measured-inode cache ---------------------------------------------- */

struct slim_version {
	u64 iversion;
	struct timespec64 mtime;
	struct timespec64 ctime;
	loff_t size;
};

struct slim_cached {
	struct hlist_node node;
	const struct super_block *sb;
	unsigned long ino;
	u32 generation;
	struct slim_version ver;
	bool valid;		/* ver is the measured version */
	bool dirty;		/* opened for write since */
	bool must_measure;	/* a measured reader saw it (ToMToU) */
};

#define SLIM_CACHE_BITS 12
#define SLIM_CACHE_MAX (64 * 1024)
static DEFINE_HASHTABLE(slim_cache, SLIM_CACHE_BITS);
static DEFINE_SPINLOCK(slim_cache_lock);
static unsigned int slim_cache_size;

/*
 * Dropping the whole cache when it is full costs re-hashing, never a
 * missed measurement (the list skips identical entries). Lock held.
 */
static void slim_cache_drop_all(struct hlist_head *freelist)
{
	struct slim_cached *c;
	struct hlist_node *tmp;
	int bkt;

	lockdep_assert_held(&slim_cache_lock);
	hash_for_each_safe(slim_cache, bkt, tmp, c, node) {
		hash_del(&c->node);
		hlist_add_head(&c->node, freelist);
	}
	slim_cache_size = 0;
}

static unsigned long slim_cache_key(const struct inode *inode)
{
	return (unsigned long)inode->i_sb ^ inode->i_ino;
}

static struct slim_cached *slim_cache_find(const struct inode *inode)
{
	struct slim_cached *c;

	hash_for_each_possible(slim_cache, c, node, slim_cache_key(inode)) {
		if (c->sb == inode->i_sb && c->ino == inode->i_ino &&
		    c->generation == inode->i_generation)
			return c;
	}
	return NULL;
}

static void slim_version_get(struct inode *inode, struct slim_version *v)
{
	memset(v, 0, sizeof(*v));
	if (IS_I_VERSION(inode))
		v->iversion = inode_query_iversion(inode);
	v->mtime = slim_inode_mtime(inode);
	v->ctime = slim_inode_ctime(inode);
	v->size = i_size_read(inode);
}

static bool slim_version_eq(const struct slim_version *a,
			    const struct slim_version *b)
{
	return a->iversion == b->iversion && a->size == b->size &&
	       timespec64_equal(&a->mtime, &b->mtime) &&
	       timespec64_equal(&a->ctime, &b->ctime);
}

bool slim_cache_must_measure(struct inode *inode)
{
	struct slim_cached *c;
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&slim_cache_lock, flags);
	c = slim_cache_find(inode);
	ret = c && c->must_measure;
	spin_unlock_irqrestore(&slim_cache_lock, flags);
	return ret;
}

void slim_cache_mark_dirty(struct inode *inode)
{
	struct slim_cached *c;
	unsigned long flags;

	spin_lock_irqsave(&slim_cache_lock, flags);
	c = slim_cache_find(inode);
	if (c)
		c->dirty = true;
	spin_unlock_irqrestore(&slim_cache_lock, flags);
}

/* true when this version of the inode is already in the list */
static bool slim_cache_measured(struct inode *inode,
				const struct slim_version *now)
{
	struct slim_cached *c;
	unsigned long flags;
	bool ret = false;

	spin_lock_irqsave(&slim_cache_lock, flags);
	c = slim_cache_find(inode);
	if (c) {
		c->must_measure = true;
		ret = c->valid && !c->dirty && slim_version_eq(&c->ver, now);
	}
	spin_unlock_irqrestore(&slim_cache_lock, flags);
	return ret;
}

static void slim_cache_store(struct inode *inode,
			     const struct slim_version *ver, bool valid)
{
	HLIST_HEAD(freelist);
	struct slim_cached *c, *n;
	struct hlist_node *tmp;
	unsigned long flags;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	spin_lock_irqsave(&slim_cache_lock, flags);
	c = slim_cache_find(inode);
	if (!c && n && slim_cache_size >= SLIM_CACHE_MAX)
		slim_cache_drop_all(&freelist);
	if (!c && n) {
		slim_cache_size++;
		c = n;
		n = NULL;
		c->sb = inode->i_sb;
		c->ino = inode->i_ino;
		c->generation = inode->i_generation;
		hash_add(slim_cache, &c->node, slim_cache_key(inode));
	}
	if (c) {
		c->ver = *ver;
		c->valid = valid;
		c->dirty = false;
		c->must_measure = true;
	}
	spin_unlock_irqrestore(&slim_cache_lock, flags);
	kfree(n);
	hlist_for_each_entry_safe(c, tmp, &freelist, node)
		kfree(c);
}

/* ---- the sleepable work ------------------------------------------------- */

static int slim_hash_file(struct file *file, u8 *digest)
{
	SHASH_DESC_ON_STACK(desc, slim_file_tfm);
	struct file *rfile = file;
	loff_t pos = 0;
	ssize_t n;
	void *buf;
	int rc;

	if (!(file->f_mode & FMODE_READ) || !(file->f_mode & FMODE_CAN_READ)) {
		rfile = dentry_open(&file->f_path, O_RDONLY | O_LARGEFILE,
				    current_cred());
		if (IS_ERR(rfile))
			return PTR_ERR(rfile);
	}
	buf = kmalloc(SLIM_READ_CHUNK, GFP_KERNEL);
	if (!buf) {
		rc = -ENOMEM;
		goto out_file;
	}
	desc->tfm = slim_file_tfm;
	rc = crypto_shash_init(desc);
	if (rc)
		goto out_buf;
	for (;;) {
		n = kernel_read(rfile, buf, SLIM_READ_CHUNK, &pos);
		if (n < 0) {
			rc = n;
			goto out_buf;
		}
		if (n == 0)
			break;
		rc = crypto_shash_update(desc, buf, n);
		if (rc)
			goto out_buf;
		cond_resched();
	}
	rc = crypto_shash_final(desc, digest);
out_buf:
	kfree(buf);
out_file:
	if (rfile != file)
		fput(rfile);
	return rc;
}

static const char *slim_name(struct file *file, char *pathbuf)
{
	const char *name;

	if (pathbuf) {
		name = d_path(&file->f_path, pathbuf, PATH_MAX);
		if (!IS_ERR(name))
			return name;
	}
	return file->f_path.dentry->d_name.name;
}

static void slim_process(struct slim_work *w)
{
	struct inode *inode = file_inode(w->file);
	u8 digest[SHA256_DIGEST_SIZE];
	struct slim_version ver;
	const char *name;
	char *pathbuf;
	bool writers;
	int rc;

	if ((w->todo & SLIM_DO_MEASURE) &&
	    !(w->todo & (SLIM_DO_OPEN_WRITERS | SLIM_DO_TOMTOU))) {
		slim_version_get(inode, &ver);
		if (slim_cache_measured(inode, &ver))
			return;
	}
	pathbuf = kmalloc(PATH_MAX, GFP_KERNEL);
	name = slim_name(w->file, pathbuf);

	if (w->todo & SLIM_DO_OPEN_WRITERS)
		slim_list_add_violation(name);
	if (w->todo & SLIM_DO_TOMTOU)
		slim_list_add_violation(name);

	if (!(w->todo & SLIM_DO_MEASURE))
		goto out;

	slim_version_get(inode, &ver);
	if (slim_cache_measured(inode, &ver))
		goto out;
	/* a version with writers open is measured but never trusted later */
	writers = atomic_read(&inode->i_writecount) > 0;
	rc = slim_hash_file(w->file, digest);
	if (rc) {
		pr_warn_ratelimited("cannot hash %s: %d\n", name, rc);
		slim_list_add_violation(name);
		goto out;
	}
	rc = slim_list_add_file(digest, name);
	if (!rc)
		slim_cache_store(inode, &ver, !writers);
out:
	kfree(pathbuf);
}

static void slim_work_done(void)
{
	/*
	 * Module exit waits for slim_pending to reach zero and then for an
	 * RCU grace period; keeping preemption off from the decrement to the
	 * end of the caller's code (a return) lets that grace period cover
	 * the last instructions run from module text.
	 */
	if (atomic_dec_and_test(&slim_pending))
		wake_up(&slim_pending_wq);
}

static void slim_twork(struct callback_head *cb)
{
	struct slim_work *w = container_of(cb, struct slim_work, cb);
	struct slim_guard guard;
	int missed;

	/*
	 * The hook ran at the start of security_file_open(); if another LSM
	 * or the filesystem then failed the open, the file was torn down
	 * (no path, no inode) and nothing was read through it.
	 */
	if (!(w->file->f_mode & FMODE_OPENED) || !w->file->f_inode)
		goto out;
	if (slim_is_active()) {
		slim_guard_enter(&guard);
		missed = atomic_xchg(&slim_missed, 0);
		while (missed-- > 0)
			slim_list_add_violation("slim_missed");
		slim_process(w);
		slim_guard_exit(&guard);
	}
out:
	fput(w->file);
	kfree(w);
	preempt_disable();
	slim_work_done();
	preempt_enable();
}

/* May be called in atomic context. */
int slim_queue(struct file *file, enum slim_func func, int mask,
	       unsigned int todo)
{
	struct inode *inode = file_inode(file);
	struct slim_version ver;
	struct slim_work *w;

	/* the common case: this version is in the list already */
	if (todo == SLIM_DO_MEASURE) {
		slim_version_get(inode, &ver);
		if (slim_cache_measured(inode, &ver))
			return 0;
	}

	w = kmalloc(sizeof(*w), GFP_ATOMIC | __GFP_NOWARN);
	if (!w) {
		atomic_inc(&slim_missed);
		return 0;
	}
	w->file = get_file(file);
	w->func = func;
	w->mask = mask;
	w->todo = todo;
	init_task_work(&w->cb, slim_twork);
	atomic_inc(&slim_pending);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		/* the task is exiting: nothing it does can be hidden now */
		atomic_dec(&slim_pending);
		fput(file);
		kfree(w);
		return 0;
	}
	return 0;
}

int slim_measure_init(void)
{
	slim_file_tfm = crypto_alloc_shash("sha256", 0, 0);
	if (IS_ERR(slim_file_tfm)) {
		int rc = PTR_ERR(slim_file_tfm);

		slim_file_tfm = NULL;
		return rc;
	}
	return 0;
}

/*
 * Called after the hooks are detached: waits for every queued work, then for
 * a grace period that covers the last instructions those works run.
 */
void slim_measure_wait(void)
{
	wait_event(slim_pending_wq, atomic_read(&slim_pending) == 0);
	synchronize_rcu();
}

void slim_measure_exit(void)
{
	struct slim_cached *c;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(slim_cache, bkt, tmp, c, node) {
		hash_del(&c->node);
		kfree(c);
	}
	slim_cache_size = 0;
	crypto_free_shash(slim_file_tfm);
	slim_file_tfm = NULL;
}
