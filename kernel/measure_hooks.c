// SPDX-License-Identifier: GPL-2.0
/*
 * measurement's hook functions, with the signatures of the LSM hooks of
 * the same names, listed at the end of the file for the core (core.c),
 * which the attach layers of a stock kernel reach (attach_ftrace.c); built
 * into a kernel the same functions could be given to security_add_hooks()
 * (lsm_check.c shows they build as an LSM_HOOK_INIT list).
 *
 * These functions may run in atomic context (an ftrace callback runs with
 * preemption disabled): they only look at cached state, decide, and hand
 * the file to the sleepable worker in measure.c. They never hash, never
 * sleep and never deny (this part of the module only measures).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/binfmts.h>
#include <linux/mman.h>
#include <linux/sched.h>
#include <linux/cred.h>
#include "slim.h"
#include "measure.h"
#include "hooks.h"

static bool slim_task_hookable(void)
{
	/*
	 * The worker runs when the task returns to user space: kernel
	 * threads and io_uring workers never do, an exiting task runs it
	 * from do_exit() but has nothing left to protect.
	 */
	if (current->flags & (PF_KTHREAD | PF_IO_WORKER | PF_EXITING))
		return false;
	return !slim_guard_active();
}

static bool slim_file_hookable(struct file *file)
{
	return file && S_ISREG(file_inode(file)->i_mode);
}

/* measurement never denies: the hooks return 0 whatever slim_queue() says */
static void slim_check(struct file *file, enum slim_func func, int mask,
		       unsigned int todo)
{
	struct inode *inode = file_inode(file);

	if (slim_policy_match(inode, current_cred(), func, mask))
		todo |= SLIM_DO_MEASURE;
	if (todo)
		slim_queue(file, func, mask, todo);
}

int slim_bprm_check_security(struct linux_binprm *bprm)
{
	if (!slim_is_active() || !slim_task_hookable() ||
	    !slim_file_hookable(bprm->file))
		return 0;
	slim_check(bprm->file, SLIM_BPRM_CHECK, MAY_EXEC, 0);
	return 0;
}

int slim_mmap_file(struct file *file, unsigned long reqprot,
		   unsigned long prot, unsigned long flags)
{
	if (!(prot & PROT_EXEC))
		return 0;
	if (!slim_is_active() || !slim_task_hookable() ||
	    !slim_file_hookable(file))
		return 0;
	slim_check(file, SLIM_MMAP_CHECK, MAY_EXEC, 0);
	return 0;
}

int slim_file_open(struct file *file)
{
	struct inode *inode;
	unsigned int todo = 0;
	int mask = 0;

	if (!slim_is_active() || !slim_task_hookable() ||
	    !slim_file_hookable(file))
		return 0;
	/* the open of an executable is the bprm check's business */
	if (file->f_flags & __FMODE_EXEC)
		return 0;
	/*
	 * an anonymous temporary file (O_TMPFILE) is being made by this open:
	 * empty, nameless ("/tmp/#INO (deleted)", which no whitelist can
	 * name), holding only what its maker will write. apt makes two at
	 * every update. Executing it or opening it again is measured.
	 */
	if (file->f_flags & __O_TMPFILE)
		return 0;

	inode = file_inode(file);
	if (file->f_mode & FMODE_READ)
		mask |= MAY_READ;
	if (file->f_mode & FMODE_WRITE)
		mask |= MAY_WRITE;
	if (file->f_flags & O_APPEND)
		mask |= MAY_APPEND;

	if (slim_policy_match(inode, current_cred(), SLIM_FILE_CHECK, mask))
		todo |= SLIM_DO_MEASURE;

	if (file->f_mode & FMODE_WRITE) {
		/* Time of Measure, Time of Use: a measured reader has it open */
		slim_cache_mark_dirty(inode);
		if (atomic_read(&inode->i_readcount) > 0 &&
		    slim_cache_must_measure(inode))
			todo |= SLIM_DO_TOMTOU;
	} else if ((todo & SLIM_DO_MEASURE) &&
		   atomic_read(&inode->i_writecount) > 0) {
		/* measuring what someone else may be changing right now */
		todo |= SLIM_DO_OPEN_WRITERS;
	}
	if (todo)
		slim_queue(file, SLIM_FILE_CHECK, mask, todo);
	return 0;
}

static const struct slim_hook slim_measure_hooks[] = {
	SLIM_HOOK_INIT(bprm_check_security, slim_bprm_check_security),
	SLIM_HOOK_INIT(mmap_file, slim_mmap_file),
	SLIM_HOOK_INIT(file_open, slim_file_open),
};

int slim_measure_add_hooks(void)
{
	return slim_add_hooks(slim_measure_hooks,
			      ARRAY_SIZE(slim_measure_hooks), "measure");
}
