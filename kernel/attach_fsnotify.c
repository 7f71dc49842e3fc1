// SPDX-License-Identifier: GPL-2.0
/*
 * the sleepable open hook: an in-kernel fsnotify group with one
 * FS_OPEN_PERM mark per watched superblock. The same marks take FS_CREATE:
 * a directory just made, in its creator's context (dir_created: its label,
 * lattice_dir.c).
 *
 * A permission event is delivered synchronously in the context of the task
 * that opens the file, after the LSMs agreed and before the open completes
 * (before O_TRUNC truncates), and the handler may sleep: it reads labels
 * and may refuse the open. The group's priority is that of fanotify's
 * permission groups (6.12 sends no permission events to a superblock
 * without one).
 *
 * Which superblocks: the one of "/" and every tmpfs, ramfs and rootfs at
 * load; the file systems mounted later (sb_kern_mount hook); and any
 * other superblock holding a regular file that is opened (the file_open
 * hook notices it and marks all superblocks of that type before the task
 * returns to user space; that first open is counted in unwatched_opens).
 * File systems without labels (slim_sb_labeled(), pseudo file systems) are
 * never watched. Those two hooks are this file's own, listed at its end:
 * the core runs them after the rules' (core.c); they watch only while the
 * lattice is on, the only user of the sleepable open.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/fsnotify_backend.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include "slim.h"
#include "lattice.h"
#include "attach.h"
#include "hooks.h"
#include "compat.h"

struct slim_sbmark {
	struct fsnotify_mark mark;
	struct list_head list;		/* slim_sbmarks */
	const struct super_block *sb;
	bool listed;			/* on the list: holds a mark reference */
	struct rcu_head rcu;
};

static struct fsnotify_group *slim_group;
static LIST_HEAD(slim_sbmarks);
/* writers take the lock; slim_watched() (every open) reads under RCU */
static DEFINE_SPINLOCK(slim_sbmark_lock);
static DEFINE_MUTEX(slim_watch_mutex);

static bool slim_watched(const struct super_block *sb)
{
	struct slim_sbmark *m;
	bool found = false;

	if (!slim_sb_labeled(sb))
		return true;
	rcu_read_lock();
	list_for_each_entry_rcu(m, &slim_sbmarks, list) {
		if (m->sb == sb) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static int slim_fsn_event(struct fsnotify_group *group, u32 mask,
			  const void *data, int data_type, struct inode *dir,
			  const struct qstr *file_name, u32 cookie,
			  struct fsnotify_iter_info *iter_info)
{
	struct path *path;

	/* a new directory: its label (lattice_dir.c) */
	if ((mask & (FS_CREATE | FS_ISDIR)) == (FS_CREATE | FS_ISDIR)) {
		struct inode *inode = fsnotify_data_inode(data, data_type);

		return inode ? slim_hook_dir_created(inode) : 0;
	}
	if (!(mask & FS_OPEN_PERM) || data_type != FSNOTIFY_EVENT_PATH)
		return 0;
	/*
	 * FS_OPEN_PERM is only ever sent for &file->f_path of the file being
	 * opened (fsnotify_perm() on 6.1, fsnotify_open_perm() on 6.12).
	 */
	path = (struct path *)data;
	return slim_hook_file_open_perm(container_of(path, struct file, f_path));
}

/* the superblock goes away (or the group does): drop the list's reference */
static void slim_fsn_freeing_mark(struct fsnotify_mark *mark,
				  struct fsnotify_group *group)
{
	struct slim_sbmark *m = container_of(mark, struct slim_sbmark, mark);
	unsigned long flags;
	bool put = false;

	spin_lock_irqsave(&slim_sbmark_lock, flags);
	if (m->listed) {
		list_del_rcu(&m->list);
		m->listed = false;
		put = true;
	}
	spin_unlock_irqrestore(&slim_sbmark_lock, flags);
	if (put)
		fsnotify_put_mark(mark);
}

static void slim_fsn_free_mark(struct fsnotify_mark *mark)
{
	struct slim_sbmark *m = container_of(mark, struct slim_sbmark, mark);

	kfree_rcu(m, rcu);
}

static const struct fsnotify_ops slim_fsn_ops = {
	.handle_event = slim_fsn_event,
	.freeing_mark = slim_fsn_freeing_mark,
	.free_mark = slim_fsn_free_mark,
};

/* Sleepable; @sb is alive (the caller holds a path or s_umount). */
static int slim_watch_sb(struct super_block *sb)
{
	struct slim_sbmark *m;
	unsigned long flags;
	int rc = 0;

	might_sleep();
	if (slim_watched(sb))
		return 0;
	mutex_lock(&slim_watch_mutex);
	if (slim_watched(sb))
		goto out;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		rc = -ENOMEM;
		goto out;
	}
	fsnotify_init_mark(&m->mark, slim_group);
	m->mark.mask = FS_OPEN_PERM | FS_CREATE;
	m->sb = sb;
	/* listed first, so that a racing unmount finds and unlists it */
	spin_lock_irqsave(&slim_sbmark_lock, flags);
	list_add_rcu(&m->list, &slim_sbmarks);
	m->listed = true;
	spin_unlock_irqrestore(&slim_sbmark_lock, flags);
	rc = slim_fsnotify_add_sb_mark(&m->mark, sb);
	if (rc) {
		pr_warn("cannot watch %s (dev %s): %d\n", sb->s_type->name,
			sb->s_id, rc);
		slim_fsn_freeing_mark(&m->mark, slim_group);
	}
out:
	mutex_unlock(&slim_watch_mutex);
	return rc;
}

static void slim_watch_sb_cb(struct super_block *sb, void *arg)
{
	if (slim_sb_labeled(sb))
		slim_watch_sb(sb);
}

static void slim_watch_type(struct file_system_type *type)
{
	iterate_supers_type(type, slim_watch_sb_cb, NULL);
}

int slim_watch_path(const char *name)
{
	struct path path;
	int rc;

	rc = kern_path(name, LOOKUP_FOLLOW, &path);
	if (rc)
		return rc;
	rc = slim_sb_labeled(path.dentry->d_sb) ?
		slim_watch_sb(path.dentry->d_sb) : -EINVAL;
	path_put(&path);
	return rc;
}

void slim_watch_show(struct seq_file *m)
{
	struct slim_sbmark *e;
	unsigned long flags;

	spin_lock_irqsave(&slim_sbmark_lock, flags);
	list_for_each_entry(e, &slim_sbmarks, list)
		seq_printf(m, "watched %s %s %u:%u %pU\n",
			   e->sb->s_type->name, e->sb->s_id,
			   MAJOR(e->sb->s_dev), MINOR(e->sb->s_dev),
			   &e->sb->s_uuid);
	spin_unlock_irqrestore(&slim_sbmark_lock, flags);
}

/* ---- superblocks seen from atomic context --------------------------------- */

struct slim_watch_work {
	struct callback_head cb;
	struct file_system_type *type;
};

static atomic_t slim_watch_pending = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(slim_watch_wq);

static void slim_watch_twork(struct callback_head *cb)
{
	struct slim_watch_work *w = container_of(cb, struct slim_watch_work,
						 cb);

	if (slim_is_active())
		slim_watch_type(w->type);
	kfree(w);
	if (atomic_dec_and_test(&slim_watch_pending))
		wake_up(&slim_watch_wq);
}

/*
 * Atomic context: @sb (alive now) is not watched. Before the current task
 * returns to user space, every superblock of its type is marked. The type
 * outlives the work: a file system module cannot go while its superblock
 * is mounted, and the mount that showed us @sb is still in progress or
 * holds it.
 */
static void slim_watch_sb_later(struct super_block *sb)
{
	struct slim_watch_work *w;

	if (current->flags & (PF_KTHREAD | PF_EXITING))
		return;
	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		return;
	w->type = sb->s_type;
	init_task_work(&w->cb, slim_watch_twork);
	atomic_inc(&slim_watch_pending);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		kfree(w);
		if (atomic_dec_and_test(&slim_watch_pending))
			wake_up(&slim_watch_wq);
	}
}

/* ---- hooks: every superblock a file is opened on, every new mount ---------- */

static int slim_watch_file_open(struct file *file)
{
	struct super_block *sb = file_inode(file)->i_sb;

	/* a regular file on a superblock the open hook does not watch yet */
	if (slim_lattice_on() && S_ISREG(file_inode(file)->i_mode) &&
	    !slim_watched(sb)) {
		slim_count(SLIM_C_UNWATCHED);
		slim_watch_sb_later(sb);
	}
	return 0;
}

/* a new mount: its superblock is watched before mount(2) returns */
static int slim_watch_sb_kern_mount(struct super_block *sb)
{
	if (slim_lattice_on() && !slim_watched(sb))
		slim_watch_sb_later(sb);
	return 0;
}

static const struct slim_hook slim_watch_hooks[] = {
	SLIM_HOOK_INIT(file_open, slim_watch_file_open),
	SLIM_HOOK_INIT(sb_kern_mount, slim_watch_sb_kern_mount),
};

int slim_watch_add_hooks(void)
{
	return slim_add_hooks(slim_watch_hooks, ARRAY_SIZE(slim_watch_hooks),
			      "watch");
}

/* ---- setup ---------------------------------------------------------------- */

static void slim_unwatch_all(void)
{
	struct slim_sbmark *m;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&slim_sbmark_lock, flags);
		m = list_first_entry_or_null(&slim_sbmarks, struct slim_sbmark,
					     list);
		if (m) {
			list_del_rcu(&m->list);
			m->listed = false;
		}
		spin_unlock_irqrestore(&slim_sbmark_lock, flags);
		if (!m)
			break;
		fsnotify_destroy_mark(&m->mark, slim_group);
		fsnotify_put_mark(&m->mark);
	}
}

int slim_watch_init(void)
{
	static const char *const types[] = { "rootfs", "ramfs", "tmpfs" };
	struct file_system_type *type;
	unsigned int i;
	int rc;

	slim_group = fsnotify_alloc_group(&slim_fsn_ops, 0);
	if (IS_ERR(slim_group)) {
		rc = PTR_ERR(slim_group);
		slim_group = NULL;
		return rc;
	}
	slim_fsnotify_set_priority(slim_group);
	rc = slim_watch_path("/");
	if (rc) {
		pr_err("cannot watch the root file system: %d\n", rc);
		slim_watch_exit();
		return rc;
	}
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		type = get_fs_type(types[i]);
		if (!type)
			continue;
		slim_watch_type(type);
		module_put(type->owner);
	}
	return 0;
}

/* after the hooks are detached */
void slim_watch_exit(void)
{
	wait_event(slim_watch_wq, !atomic_read(&slim_watch_pending));
	if (!slim_group)
		return;
	slim_unwatch_all();
	fsnotify_put_group(slim_group);
	/* no handler runs and no mark is left once this returns */
	fsnotify_wait_marks_destroyed();
	slim_group = NULL;
}
