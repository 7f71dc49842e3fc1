// SPDX-License-Identifier: GPL-2.0
/*
 * what a task below SYSTEM integrity may not do to the system, whatever
 * its uid and capabilities, and switching the module off.
 *
 * A demoted root would otherwise have its way back: load kernel code,
 * kexec, write a disk under a SYSTEM file system, mount media it made,
 * poke hardware, change kernel settings. So, for a task below SYSTEM:
 *   - the kernel's lockdown points (security_locked_down(): /dev/mem,
 *     /dev/port, ioperm, iopl, MSRs, PCI BARs, debugfs, tracefs, kprobes,
 *     unsigned modules, ...) answer as under lockdown=confidentiality;
 *   - loading kernel code or policy (init_module, finit_module,
 *     kexec_load, kexec_file_load, the IMA policy, certificates) and
 *     every bpf(2) command are refused; firmware is the kernel's own read;
 *   - no mount-table change: mount (bind, remount and propagation
 *     included), move_mount, umount, pivot_root, fsopen, fsmount,
 *     fspick, mount_setattr;
 *     no swapon or swapoff, no module removal;
 *   - no write to a block device: write(2) and what goes through
 *     rw_verify_area(), shared writable mappings, and every ioctl but
 *     those that only read (discard, zero-out, loop set-up, partitions);
 *   - no write into pseudo file systems: /proc (except the files of a
 *     process at or below the writer's integrity: its own), sysfs,
 *     cgroupfs, debugfs, tracefs, securityfs (this module's files
 *     included), binfmt_misc, configfs, efivarfs, pstore, selinuxfs,
 *     smackfs, bpffs;
 *   - an ioctl that is not known to only read, on a regular file of
 *     higher integrity, is a write up (FS_IOC_SETFLAGS, ext4's move
 *     extent and swap boot, ...), whatever the descriptor's open mode;
 *     TIOCSTI and TIOCLINUX (input injected into a terminal) are refused.
 * Each refusal is counted (denied_below_system), logged, and recorded in
 * the list (a "refused" event record); permissive mode counts and records
 * what it would refuse, off does nothing.
 *
 * Switching the module off, for everyone while lock=1 (SYSTEM root
 * included): the ftrace_ops are FTRACE_OPS_FL_PERMANENT (attach_ftrace.c:
 * kernel.ftrace_enabled=0 fails with EBUSY); a forced removal (rmmod -f)
 * of this module and a write that disables kprobes (debugfs
 * kprobes/enabled, which would silence the IPC return probes) are refused
 * (denied_switch_off, a "refused" record).
 *
 * Every function here runs in an ftrace callback (atomic context).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkzoned.h>
#include <linux/fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/hdreg.h>
#include <linux/kernel_read_file.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/ioctls.h>
#include <asm/sockios.h>
#include "slim.h"
#include "lattice.h"
#include "lattice_rules.h"
#include "events.h"
#include "hooks.h"

/* not in the uapi headers */
#define SLIM_CONFIGFS_MAGIC	0x62656570
#define SLIM_FUSECTL_MAGIC	0x65735543

static const struct slim_level slim_system_level = {
	.integ = SLIM_I_SYSTEM, .secr = SLIM_S_PUBLIC,
	.gread = SLIM_I_NONE, .gwrite = SLIM_S_NONE,
};

/*
 * The current task's levels when it is below SYSTEM integrity and the
 * lattice applies to it; else false (nothing to refuse).
 */
static bool slim_below_system(struct slim_level *t)
{
	if (!slim_lattice_on() || !in_task() || !slim_lattice_task())
		return false;
	*t = slim_task_level(current);
	return t->integ < SLIM_I_SYSTEM;
}

/* the verdict on @action (on @path) by a task with levels @t */
static int slim_confine_deny(const char *action, const struct path *path,
			     const struct slim_level *t,
			     const struct slim_level *obj)
{
	char name[SLIM_NAME_MAX];
	const char *what = action, *p;
	size_t n, len;
	int rc;

	if (path) {
		/* "ACTION PATH" in one buffer: d_path() fills from its end */
		n = scnprintf(name, sizeof(name), "%s ", action);
		p = slim_objname(path, NULL, name + n, sizeof(name) - n);
		len = strnlen(p, sizeof(name) - n - 1);
		memmove(name + n, p, len);
		name[n + len] = '\0';
		what = name;
	}
	rc = slim_deny_named(SLIM_RULE_CONFINE, "action", what, t,
			     obj ? obj : &slim_system_level);
	slim_event_refused(action, path, NULL, t);
	return rc;
}

static int slim_confine(const char *action, const struct path *path)
{
	struct slim_level t;

	if (!slim_below_system(&t))
		return 0;
	return slim_confine_deny(action, path, &t, NULL);
}

/* ---- lockdown, kernel code, bpf ------------------------------------------ */

int slim_confine_locked_down(int what)
{
	struct slim_level t;
	char action[48];

	if (!slim_below_system(&t))
		return 0;
	scnprintf(action, sizeof(action), "pass kernel lockdown point %d",
		  what);
	return slim_confine_deny(action, NULL, &t, NULL);
}

/* firmware is read by the kernel for a driver: not the task's choice */
int slim_confine_read_file(struct file *file, int id, bool contents)
{
	if (id == READING_FIRMWARE)
		return 0;
	return slim_confine(id == READING_MODULE ? "load a kernel module" :
			    id == READING_KEXEC_IMAGE ||
			    id == READING_KEXEC_INITRAMFS ?
			    "load a kernel to kexec" :
			    "load a file into the kernel",
			    file ? &file->f_path : NULL);
}

int slim_confine_load_data(int id, bool contents)
{
	if (id == LOADING_FIRMWARE)
		return 0;
	return slim_confine(id == LOADING_MODULE ? "load a kernel module" :
			    id == LOADING_KEXEC_IMAGE ||
			    id == LOADING_KEXEC_INITRAMFS ?
			    "load a kernel to kexec" :
			    "load data into the kernel", NULL);
}

int slim_confine_bpf(int cmd)
{
	return slim_confine("use bpf(2)", NULL);
}

/* ---- mounts, swap, modules ----------------------------------------------- */

int slim_confine_sb_mount(const char *dev_name, const struct path *path,
			  const char *type, unsigned long flags)
{
	return slim_confine("mount", path);
}

int slim_confine_sb_umount(struct vfsmount *mnt, int flags)
{
	struct path p;

	if (!mnt)
		return slim_confine("unmount", NULL);
	p.mnt = mnt;
	p.dentry = mnt->mnt_root;
	return slim_confine("unmount", &p);
}

int slim_confine_pivotroot(const struct path *old_path,
			   const struct path *new_path)
{
	return slim_confine("pivot_root", new_path);
}

int slim_confine_move_mount(const struct path *from_path,
			    const struct path *to_path)
{
	return slim_confine("move a mount", to_path);
}

static int slim_confine_syscall(const char *what)
{
	return slim_confine(what, NULL);
}

/* ---- block devices, pseudo file systems ----------------------------------- */

/* file systems that are the kernel's settings and state, not data */
static bool slim_pseudo_fs(const struct super_block *sb)
{
	switch (sb->s_magic) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case BINFMTFS_MAGIC:
	case SLIM_CONFIGFS_MAGIC:
	case EFIVARFS_MAGIC:
	case PSTOREFS_MAGIC:
	case SELINUX_MAGIC:
	case SMACK_MAGIC:
	case BPF_FS_MAGIC:
	case SLIM_FUSECTL_MAGIC:
		return true;
	}
	return false;
}

/*
 * A /proc/PID/... file of a process at or below the integrity of the
 * writer (its own process included): the ptrace-style checks at open
 * have judged it. Anything else in /proc (sys, sysrq-trigger, ...) is
 * the kernel's.
 */
static bool slim_proc_lower_process(const struct file *file,
				    const struct slim_level *t)
{
	const struct dentry *d = file->f_path.dentry;
	const struct dentry *root = d->d_sb->s_root;
	struct task_struct *task;
	unsigned long nr;
	bool ok = false;

	while (d->d_parent != root) {
		if (d->d_parent == d)
			return false;
		d = d->d_parent;
	}
	if (kstrtoul(d->d_name.name, 10, &nr) || !nr || nr > INT_MAX)
		return false;
	if (nr == (unsigned long)task_tgid_vnr(current))
		return true;
	rcu_read_lock();
	task = pid_task(find_vpid((int)nr), PIDTYPE_PID);
	if (task)
		ok = slim_task_level(task).integ <= t->integ;
	rcu_read_unlock();
	return ok;
}

static int slim_confine_file_permission(struct file *file, int mask)
{
	struct inode *inode;
	struct slim_level t;

	if (!(mask & (MAY_WRITE | MAY_APPEND)) || !file)
		return 0;
	inode = file_inode(file);
	if (S_ISBLK(inode->i_mode)) {
		if (!slim_below_system(&t))
			return 0;
		return slim_confine_deny("write a block device",
					 &file->f_path, &t, NULL);
	}
	if (!slim_pseudo_fs(inode->i_sb) || !slim_below_system(&t))
		return 0;
	if (inode->i_sb->s_magic == PROC_SUPER_MAGIC &&
	    slim_proc_lower_process(file, &t))
		return 0;
	return slim_confine_deny("write a kernel setting", &file->f_path, &t,
				 NULL);
}

static int slim_confine_mmap(struct file *file, unsigned long reqprot,
			     unsigned long prot, unsigned long flags)
{
	if (!file || !S_ISBLK(file_inode(file)->i_mode) ||
	    !(prot & PROT_WRITE) || ((flags & MAP_TYPE) != MAP_SHARED &&
				     (flags & MAP_TYPE) != MAP_SHARED_VALIDATE))
		return 0;
	return slim_confine("map a block device for writing", &file->f_path);
}

static int slim_confine_mprotect(struct vm_area_struct *vma,
				 unsigned long reqprot, unsigned long prot)
{
	struct file *file = vma->vm_file;

	if (!file || !S_ISBLK(file_inode(file)->i_mode) ||
	    !(prot & PROT_WRITE) || !(vma->vm_flags & VM_SHARED))
		return 0;
	return slim_confine("map a block device for writing", &file->f_path);
}

/* ---- ioctls ------------------------------------------------------------------ */

/*
 * ioctls of any file that change nothing but the open file (flags, owner:
 * as fcntl(2) does), or only read
 */
static bool slim_ioctl_reads(unsigned int cmd)
{
	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
	case FIONBIO:
	case FIOASYNC:
	case FIOQSIZE:
	case FIOSETOWN:
	case FIOGETOWN:
	case SIOCSPGRP:
	case SIOCGPGRP:
	case FIONREAD:
	/*
	 * terminal queries: isatty() is TCGETS, which Python calls on every
	 * file it opens, a .pyc included (ENOTTY on a file that is not a
	 * terminal)
	 */
	case TCGETS:
	case TIOCGWINSZ:
	case TIOCGPGRP:
	case TIOCGSID:
	case TIOCOUTQ:
	case TIOCGETD:
	case TIOCGPTN:
	case TIOCMGET:
	case FIGETBSZ:
	case FIBMAP:
	case FS_IOC_FIEMAP:
	case FS_IOC_GETFLAGS:
	case FS_IOC32_GETFLAGS:
	case FS_IOC_GETVERSION:
	case FS_IOC32_GETVERSION:
	case FS_IOC_FSGETXATTR:
	case FS_IOC_GETFSLABEL:
		return true;
	}
	return false;
}

/* block device ioctls that only read the device's properties */
static bool slim_blk_ioctl_reads(unsigned int cmd)
{
	switch (cmd) {
	case BLKGETSIZE:
	case BLKGETSIZE64:
	case BLKSSZGET:
	case BLKBSZGET:
	case BLKPBSZGET:
	case BLKIOMIN:
	case BLKIOOPT:
	case BLKALIGNOFF:
	case BLKROGET:
	case BLKRAGET:
	case BLKFRAGET:
	case BLKSECTGET:
	case BLKROTATIONAL:
	case BLKDISCARDZEROES:
	case BLKGETZONESZ:
	case BLKGETNRZONES:
	case HDIO_GETGEO:
		return true;
	}
	return slim_ioctl_reads(cmd);
}

int slim_confine_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct slim_level t, obj;
	struct inode *inode;
	char action[48];

	if (!file)
		return 0;
	inode = file_inode(file);
	if (cmd == TIOCSTI || cmd == TIOCLINUX) {
		if (!slim_below_system(&t))
			return 0;
		return slim_confine_deny("inject input into a terminal",
					 &file->f_path, &t, NULL);
	}
	if (S_ISBLK(inode->i_mode)) {
		if (slim_blk_ioctl_reads(cmd) || !slim_below_system(&t))
			return 0;
		scnprintf(action, sizeof(action),
			  "ioctl 0x%x on a block device", cmd);
		return slim_confine_deny(action, &file->f_path, &t, NULL);
	}
	if (!slim_lattice_file(file) || slim_ioctl_reads(cmd) ||
	    !slim_lattice_on() || !in_task() || !slim_lattice_task())
		return 0;
	t = slim_task_level(current);
	slim_inode_level(inode, &obj);
	if (obj.integ <= t.integ)
		return 0;
	scnprintf(action, sizeof(action),
		  "ioctl 0x%x on a file up in integrity", cmd);
	return slim_confine_deny(action, &file->f_path, &t, &obj);
}

/* ---- switching the module off: everyone, while lock=1 ---------------------- */

static int slim_switch_off_refused(const char *action)
{
	struct slim_level t = slim_task_level(current);

	slim_count(SLIM_C_DENY_SWITCH_OFF);
	pr_notice_ratelimited("denied: pid=%d comm=%s action=%s rule=\"the module is locked\"\n",
			      task_pid_nr(current), current->comm, action);
	slim_event_refused(action, NULL, NULL, &t);
	return -EPERM;
}

/* is the user string @u @want? An unreadable one might be: true */
static bool slim_user_str_is(const char __user *u, const char *want)
{
	size_t i;
	char c;

	for (i = 0; i <= MODULE_NAME_LEN; i++) {
		if (copy_from_user_nofault(&c, u + i, 1))
			return true;
		if (c != want[i])
			return false;
		if (!c)
			return true;
	}
	return false;
}

/*
 * delete_module(2): below SYSTEM no module goes; a forced removal of
 * this module is refused to everyone while it is locked (Debian builds
 * with MODULE_FORCE_UNLOAD, which ignores the reference lock=1 holds).
 */
static int slim_confine_delete_module(const char __user *name,
				      unsigned int flags)
{
	int rc = slim_confine("remove a kernel module", NULL);

	if (rc)
		return rc;
	if ((flags & O_TRUNC) && slim_is_locked() &&
	    slim_user_str_is(name, KBUILD_MODNAME))
		return slim_switch_off_refused("force the removal of slim");
	return 0;
}

/*
 * debugfs kprobes/enabled: "0" disarms every kprobe, the IPC return
 * probes included. Only a write that enables ("1", "y", "on", ...) goes
 * through; one that cannot be read is refused.
 */
static int slim_confine_kprobes_write(const char __user *buf, size_t count)
{
	char c[2] = { 0, 0 };

	if (!slim_is_locked())
		return 0;
	if (count && !copy_from_user_nofault(c, buf, min_t(size_t, count, 2)) &&
	    (c[0] == '1' || c[0] == 'y' || c[0] == 'Y' || c[0] == 't' ||
	     c[0] == 'T' || ((c[0] == 'o' || c[0] == 'O') &&
			     (c[1] == 'n' || c[1] == 'N'))))
		return 0;
	return slim_switch_off_refused("disable kprobes");
}

static const struct slim_hook slim_lattice_confine_hooks[] = {
	SLIM_HOOK_INIT(locked_down, slim_confine_locked_down),
	SLIM_HOOK_INIT(kernel_read_file, slim_confine_read_file),
	SLIM_HOOK_INIT(kernel_load_data, slim_confine_load_data),
	SLIM_HOOK_INIT(bpf, slim_confine_bpf),
	SLIM_HOOK_INIT(sb_mount, slim_confine_sb_mount),
	SLIM_HOOK_INIT(sb_umount, slim_confine_sb_umount),
	SLIM_HOOK_INIT(sb_pivotroot, slim_confine_pivotroot),
	SLIM_HOOK_INIT(move_mount, slim_confine_move_mount),
	SLIM_HOOK_INIT(sys_confined, slim_confine_syscall),
	SLIM_HOOK_INIT(file_permission, slim_confine_file_permission),
	SLIM_HOOK_INIT(mmap_file, slim_confine_mmap),
	SLIM_HOOK_INIT(file_mprotect, slim_confine_mprotect),
	SLIM_HOOK_INIT(file_ioctl, slim_confine_ioctl),
	SLIM_HOOK_INIT(file_ioctl_compat, slim_confine_ioctl),
	SLIM_HOOK_INIT(delete_module, slim_confine_delete_module),
	SLIM_HOOK_INIT(kprobes_enabled_write, slim_confine_kprobes_write),
};

int slim_lattice_confine_add_hooks(void)
{
	return slim_add_hooks(slim_lattice_confine_hooks,
			      ARRAY_SIZE(slim_lattice_confine_hooks),
			      "lattice");
}
