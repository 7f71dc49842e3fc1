// SPDX-License-Identifier: GPL-2.0
/*
 * directories: adding a name to a directory or removing one from it is a
 * write to the directory (as in LOMAC). A task may not create, link,
 * symlink, mknod, mkdir or rename into, nor unlink, rmdir or rename out
 * of, a directory of higher integrity: EACCES, counted in denied_write_up,
 * logged, and a `refused` lattice record naming the entry (when the
 * directory's label is known, not when it only counts as SYSTEM).
 *
 * Directories are labeled like files (security.slim, slimctl label). The
 * rules run in atomic context (ftrace callbacks) and decide from the cached
 * label; a directory whose label was never read since the module loaded
 * counts as SYSTEM (slim_inode_level_strict()). Labels are read in the
 * sleepable open hook: of every directory opened, and of the directory of
 * every file opened. A directory that is sticky and writable by all (/tmp,
 * /var/tmp, /dev/shm, /run/lock) is a shared place: any level may add names
 * there (the sticky bit keeps a task from removing another user's names,
 * and each file keeps its own label). A directory created by a task below
 * the default label takes the creator's levels (an fsnotify create event,
 * in the creator's context: attach_fsnotify.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/dcache.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/xattr.h>
#include "lattice.h"
#include "lattice_rules.h"
#include "events.h"
#include "evm.h"
#include "hooks.h"
#include "compat.h"

/* sticky (01000) and writable by others (0002) */
#define SLIM_DIR_SHARED_MODE 01002

static bool slim_dir_shared(const struct inode *dir)
{
	return (dir->i_mode & SLIM_DIR_SHARED_MODE) == SLIM_DIR_SHARED_MODE;
}

static bool slim_dir_labeled(const struct inode *dir)
{
	return dir && S_ISDIR(dir->i_mode) && !IS_PRIVATE(dir) &&
		slim_sb_labeled(dir->i_sb);
}

/* Atomic context: the current task adds or removes the name @dentry in @dir */
int slim_dir_write(struct inode *dir, struct dentry *dentry)
{
	struct slim_level t, obj;
	bool known;
	int rc;

	if (!slim_lattice_on() || !slim_lattice_task() ||
	    !slim_dir_labeled(dir))
		return 0;
	t = slim_task_level(current);
	if (t.integ == SLIM_I_SYSTEM || slim_dir_shared(dir))
		return 0;
	known = slim_inode_level_strict(dir, &obj);
	if (obj.integ <= t.integ)
		return 0;
	rc = slim_deny(SLIM_RULE_DIR, NULL, dentry, &t, &obj);
	/*
	 * a lower task trying to plant or remove a name up: the verifier sees
	 * it. Not when the directory's label was never read (refused only to
	 * fail closed: it may be the task's own directory, on its first
	 * O_CREAT open of a file that exists).
	 */
	if (known)
		slim_event_refused("change a directory up in integrity", NULL,
				   dentry, &t);
	return rc;
}

int slim_dir_create(struct inode *dir, struct dentry *dentry)
{
	return slim_dir_write(dir, dentry);
}

int slim_dir_link(struct dentry *old_dentry, struct inode *dir,
		  struct dentry *new_dentry)
{
	return slim_dir_write(dir, new_dentry);
}

static int slim_dir_rename(struct inode *old_dir, struct dentry *old_dentry,
			   struct inode *new_dir, struct dentry *new_dentry)
{
	int rc = slim_dir_write(old_dir, old_dentry);

	return rc ? rc : slim_dir_write(new_dir, new_dentry);
}

/*
 * Sleepable: the label of directory @dentry, read and cached. A label that
 * cannot be read or fails its HMAC is not a reason to let lower tasks in:
 * such a directory counts as SYSTEM.
 */
static void slim_dir_load(struct dentry *dentry)
{
	struct inode *inode = d_backing_inode(dentry);
	enum slim_label_source src;
	struct slim_level l;

	if (!slim_dir_labeled(inode))
		return;
	src = slim_inode_load(dentry, inode, &l);
	if (src == SLIM_SRC_BAD || src == SLIM_SRC_EVM_FAIL) {
		l = slim_default_level;
		l.integ = SLIM_I_SYSTEM;
		slim_inode_set(inode, &l, src, GFP_KERNEL);
	}
}

/* the sleepable open: the labels of the file's directory (and its own) */
static int slim_dir_open(struct file *file)
{
	struct dentry *parent;

	if (!slim_lattice_on() || !slim_lattice_task() ||
	    !slim_sb_labeled(file_inode(file)->i_sb))
		return 0;
	if (S_ISDIR(file_inode(file)->i_mode))
		slim_dir_load(file->f_path.dentry);
	parent = dget_parent(file->f_path.dentry);
	if (parent != file->f_path.dentry)
		slim_dir_load(parent);
	dput(parent);
	return 0;
}

/*
 * Sleepable, the creator's context (fsnotify's create event, the parent
 * locked): a directory made by a task whose levels are not the default
 * label's takes them, as a new file does.
 */
static int slim_dir_created(struct inode *inode)
{
	struct slim_level l;
	enum slim_label_source src = SLIM_SRC_XATTR;
	char buf[SLIM_LABEL_MAX + 1];
	struct dentry *dentry;
	int n, rc;

	if (!slim_lattice_on() || !slim_lattice_task() ||
	    !slim_dir_labeled(inode))
		return 0;
	l = slim_task_level(current);
	l.gread = SLIM_I_NONE;
	l.gwrite = SLIM_S_NONE;
	if (!memcmp(&l, &slim_default_level, sizeof(l)))
		return 0;
	n = slim_label_format(&l, buf, sizeof(buf));
	dentry = d_find_alias(inode);
	if (!dentry) {
		src = SLIM_SRC_MEMORY;
		goto out;
	}
	inode_lock(inode);
	rc = __vfs_setxattr(slim_nop_idmap(), dentry, inode,
			    SLIM_XATTR, buf, n, 0);
	if (!rc && slim_evm_has_key())
		rc = slim_evm_write(dentry, inode, slim_nop_idmap());
	inode_unlock(inode);
	dput(dentry);
	if (rc) {
		if (rc != -EOPNOTSUPP)
			pr_warn_ratelimited("cannot label new directory (ino %lu): %d, label kept in memory\n",
					    inode->i_ino, rc);
		src = SLIM_SRC_MEMORY;
	}
out:
	slim_inode_set(inode, &l, src, GFP_KERNEL);
	slim_count(SLIM_C_LABEL_NEW);
	return 0;
}

static const struct slim_hook slim_lattice_dir_hooks[] = {
	SLIM_HOOK_INIT(inode_create, slim_dir_create),
	SLIM_HOOK_INIT(inode_link, slim_dir_link),
	SLIM_HOOK_INIT(inode_symlink, slim_dir_create),
	SLIM_HOOK_INIT(inode_mkdir, slim_dir_create),
	SLIM_HOOK_INIT(inode_mknod, slim_dir_create),
	SLIM_HOOK_INIT(inode_rmdir, slim_dir_write),
	SLIM_HOOK_INIT(inode_unlink, slim_dir_write),
	SLIM_HOOK_INIT(inode_rename, slim_dir_rename),
	SLIM_HOOK_INIT(file_open_perm, slim_dir_open),
	SLIM_HOOK_INIT(dir_created, slim_dir_created),
};

int slim_lattice_dir_add_hooks(void)
{
	return slim_add_hooks(slim_lattice_dir_hooks,
			      ARRAY_SIZE(slim_lattice_dir_hooks), "lattice");
}
