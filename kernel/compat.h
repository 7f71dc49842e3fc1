/* SPDX-License-Identifier: GPL-2.0 */
/*
 * every difference between the supported kernels (Debian 12's
 * 6.1 and 6.12) lives here. Feature-test macros, not version numbers,
 * where the kernel offers one.
 */
#ifndef SLIM_COMPAT_H
#define SLIM_COMPAT_H

#include <linux/ftrace.h>
#include <linux/fs.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/mm_types.h>

/* <asm/unaligned.h> moved to <linux/unaligned.h> in 6.12 (Kbuild tests) */
#ifdef SLIM_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * Argument n of the traced function, from the registers ftrace saved.
 * 6.12 has ftrace_regs_get_argument(); 6.1's x86 struct ftrace_regs is a
 * plain struct pt_regs filled in for the argument registers
 * (DYNAMIC_FTRACE_WITH_ARGS).
 */
#ifdef ftrace_regs_get_argument
#define slim_ftrace_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#else
#define slim_ftrace_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * Inode timestamps became accessor functions (ctime in 6.6, mtime in 6.7).
 * They are inline functions, not macros: Kbuild feature-tests the headers
 * and defines SLIM_HAVE_INODE_GET_[CM]TIME.
 */
static inline struct timespec64 slim_inode_mtime(const struct inode *inode)
{
#ifdef SLIM_HAVE_INODE_GET_MTIME
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

static inline struct timespec64 slim_inode_ctime(const struct inode *inode)
{
#ifdef SLIM_HAVE_INODE_GET_CTIME
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

/*
 * The file whose SIGIO owner @fown is: 6.12 allocates the owner apart and
 * points back (SLIM_HAVE_FILE_F_OWNER, Kbuild tests), 6.1 embeds it.
 */
static inline struct file *slim_fown_file(struct fown_struct *fown)
{
#ifdef SLIM_HAVE_FILE_F_OWNER
	return fown->file;
#else
	return container_of(fown, struct file, f_owner);
#endif
}

/*
 * Sending the traced function's caller to a module stub instead (the
 * ftrace_ops has FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY).
 */
#ifdef ftrace_regs_set_instruction_pointer
#define slim_ftrace_set_ip(fregs, ip) ftrace_regs_set_instruction_pointer(fregs, ip)
#else
#define slim_ftrace_set_ip(fregs, ip) ftrace_instruction_pointer_set(fregs, ip)
#endif

/*
 * The executable of @mm with a reference taken, or NULL; safe in atomic
 * context. 6.1's get_file_rcu() is a macro taking the file (files are
 * freed after an RCU grace period); since 6.7 it is a function taking the
 * RCU pointer (files are SLAB_TYPESAFE_BY_RCU) and rechecks it.
 */
static inline struct file *slim_mm_exe_file(struct mm_struct *mm)
{
	struct file *f;

	rcu_read_lock();
#ifdef get_file_rcu
	f = rcu_dereference(mm->exe_file);
	if (f && !get_file_rcu(f))
		f = NULL;
#else
	f = get_file_rcu(&mm->exe_file);
#endif
	rcu_read_unlock();
	return f;
}

/*
 * fsnotify: a superblock mark is added on the superblock itself since 6.9
 * (on its s_fsnotify_marks before); the permission-event priority was a
 * macro FS_PRIO_1 and is FSNOTIFY_PRIO_CONTENT since 6.9.
 */
struct fsnotify_mark;
struct fsnotify_group;
#include <linux/fsnotify_backend.h>

static inline int slim_fsnotify_add_sb_mark(struct fsnotify_mark *mark,
					    struct super_block *sb)
{
#ifdef SLIM_HAVE_FSNOTIFY_ADD_MARK_OBJ
	return fsnotify_add_mark(mark, sb, FSNOTIFY_OBJ_TYPE_SB, 0);
#else
	return fsnotify_add_mark(mark, &sb->s_fsnotify_marks,
				 FSNOTIFY_OBJ_TYPE_SB, 0, NULL);
#endif
}

static inline void slim_fsnotify_set_priority(struct fsnotify_group *group)
{
#ifdef FS_PRIO_1
	group->priority = FS_PRIO_1;
#else
	group->priority = FSNOTIFY_PRIO_CONTENT;
#endif
}

/* the idmapping argument of __vfs_setxattr(): a user namespace until 6.3 */
#include <linux/mount.h>
#ifdef SLIM_HAVE_MNT_IDMAP
#define slim_mnt_idmap(mnt) mnt_idmap(mnt)
#else
#define slim_mnt_idmap(mnt) mnt_user_ns(mnt)
#endif

/*
 * the same argument where no mount is known (a directory's create event):
 * the identity mapping; security.* xattr handlers do not use it
 */
#ifdef SLIM_HAVE_MNT_IDMAP
#define slim_nop_idmap() (&nop_mnt_idmap)
#else
#define slim_nop_idmap() (&init_user_ns)
#endif

#endif /* SLIM_COMPAT_H */
