// SPDX-License-Identifier: GPL-2.0
/*
 * reaching the hooks on a stock kernel.
 *
 * A loadable module cannot register LSM hooks, so an ftrace callback is
 * placed on the entry of each security_*() function whose LSM hook we
 * implement. The callback reads the arguments from the saved registers and
 * calls the hook function with its LSM signature. It never calls kernel
 * text through a looked-up address (CET-IBT, see README.md). When a hook
 * denies, the callback changes the saved instruction pointer to a stub in
 * this module that returns the error: the traced function does not run and
 * its caller sees the error, as if an LSM had refused. The callbacks run
 * with preemption disabled; the hooks decide from cached state and queue
 * sleepable work (measure.c); label reads happen in the sleepable open
 * hook (attach_fsnotify.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/binfmts.h>
#include <linux/key.h>
#include "attach.h"
#include "hooks.h"
#include "compat.h"

/*
 * One traced function: @call reads the arguments from the saved registers
 * and calls the hook function with its LSM signature; a non-zero return
 * is a denial when @can_deny. All functions share two ftrace_ops (one that
 * may deny, one that may not): each ftrace_ops costs its own RCU-tasks
 * grace periods when it is unregistered, so fourteen made rmmod wait
 * fourteen times. @ip, the traced call site ftrace hands the callback, is
 * resolved from the symbol name once, at registration (slim_resolve()).
 */
/* what the traced function returns: which denial stub stands in for it */
enum slim_ret { SLIM_RET_INT, SLIM_RET_LONG, SLIM_RET_PTR };

struct slim_ftrace_hook {
	const char *symbol;
	int (*call)(struct ftrace_regs *fregs);
	bool can_deny;		/* may send the caller to a denial stub */
	enum slim_ret ret;	/* int (default), long, or a pointer (NULL) */
	bool optional;		/* absent from some kernels: then not traced */
	unsigned long ip;	/* the call site; 0: not traced */
};

/*
 * Denial: the traced security_*() function is not run; its caller returns
 * from one of these stubs instead, with the error the hook chose. The stub
 * is reached by the ftrace trampoline's return (the same way a live patch
 * is), not called through a pointer.
 */
static noinline notrace int slim_stub_eacces(void)
{
	return -EACCES;
}

static noinline notrace int slim_stub_eperm(void)
{
	return -EPERM;
}

static noinline notrace int slim_stub_enomem(void)
{
	return -ENOMEM;
}

/*
 * For functions that return a long (an int stub would leave the upper half
 * of the register to chance) and for get_pipe_info(), whose callers take
 * NULL as "not a pipe" and fail the call.
 */
static noinline notrace long slim_stub_eacces_long(void)
{
	return -EACCES;
}

static noinline notrace long slim_stub_eperm_long(void)
{
	return -EPERM;
}

static noinline notrace long slim_stub_enomem_long(void)
{
	return -ENOMEM;
}

static noinline notrace void *slim_stub_null(void)
{
	return NULL;
}

static void notrace slim_ft_deny(struct ftrace_regs *fregs,
				 const struct slim_ftrace_hook *h, int rc)
{
	unsigned long stub;

	if (h->ret == SLIM_RET_PTR)
		stub = (unsigned long)slim_stub_null;
	else if (h->ret == SLIM_RET_LONG)
		stub = rc == -ENOMEM ? (unsigned long)slim_stub_enomem_long :
		       rc == -EPERM ? (unsigned long)slim_stub_eperm_long :
				      (unsigned long)slim_stub_eacces_long;
	else if (rc == -ENOMEM)
		stub = (unsigned long)slim_stub_enomem;
	else if (rc == -EPERM)
		stub = (unsigned long)slim_stub_eperm;
	else
		stub = (unsigned long)slim_stub_eacces;
	slim_ftrace_set_ip(fregs, stub);
}

#define ARG(n) slim_ftrace_arg(fregs, n)

/*
 * The callbacks' half of each hook: the traced function's arguments, read
 * from the saved registers, given to the core (core.c) as the hook's.
 * Nothing here decides: the core runs the hook's rules in order.
 */
static int slim_call_bprm_check(struct ftrace_regs *fregs)
{
	return slim_hook_bprm_check_security((struct linux_binprm *)ARG(0));
}

/* security_mmap_file(file, prot, flags): prot as requested by the caller */
static int slim_call_mmap_file(struct ftrace_regs *fregs)
{
	return slim_hook_mmap_file((struct file *)ARG(0), ARG(1), ARG(1),
				   ARG(2));
}

static int slim_call_file_open(struct ftrace_regs *fregs)
{
	return slim_hook_file_open((struct file *)ARG(0));
}

static int slim_call_file_permission(struct ftrace_regs *fregs)
{
	return slim_hook_file_permission((struct file *)ARG(0), (int)ARG(1));
}

static int slim_call_socket_sendmsg(struct ftrace_regs *fregs)
{
	return slim_hook_socket_sendmsg((struct socket *)ARG(0),
					(struct msghdr *)ARG(1), (int)ARG(2));
}

static int slim_call_socket_recvmsg(struct ftrace_regs *fregs)
{
	return slim_hook_socket_recvmsg((struct socket *)ARG(0),
					(struct msghdr *)ARG(1), (int)ARG(2),
					(int)ARG(3));
}

static int slim_call_task_alloc(struct ftrace_regs *fregs)
{
	return slim_hook_task_alloc((struct task_struct *)ARG(0), ARG(1));
}

static int slim_call_task_free(struct ftrace_regs *fregs)
{
	slim_hook_task_free((struct task_struct *)ARG(0));
	return 0;
}

static int slim_call_bprm_committed(struct ftrace_regs *fregs)
{
	slim_hook_bprm_committed_creds((const struct linux_binprm *)ARG(0));
	return 0;
}

/*
 * inode_setxattr(idmap, dentry, name, ...), inode_removexattr(idmap,
 * dentry, name), inode_setattr(idmap, dentry, attr): the idmap's type
 * differs between kernels and is not used here.
 */
static int slim_call_inode_setxattr(struct ftrace_regs *fregs)
{
	return slim_hook_inode_setxattr((struct dentry *)ARG(1),
					(const char *)ARG(2));
}

static int slim_call_inode_removexattr(struct ftrace_regs *fregs)
{
	return slim_hook_inode_removexattr((struct dentry *)ARG(1),
					   (const char *)ARG(2));
}

static int slim_call_inode_setattr(struct ftrace_regs *fregs)
{
	return slim_hook_inode_setattr((struct dentry *)ARG(1));
}

/*
 * inode_set_acl(idmap, dentry, name, acl), inode_remove_acl(idmap, dentry,
 * name): 6.2 and later (6.1 sets an ACL through setxattr)
 */
static int slim_call_inode_set_acl(struct ftrace_regs *fregs)
{
	return slim_hook_inode_set_acl((struct dentry *)ARG(1));
}

static int slim_call_inode_remove_acl(struct ftrace_regs *fregs)
{
	return slim_hook_inode_remove_acl((struct dentry *)ARG(1));
}

static int slim_call_inode_unlink(struct ftrace_regs *fregs)
{
	return slim_hook_inode_unlink((struct inode *)ARG(0),
				      (struct dentry *)ARG(1));
}

/* inode_rename(old_dir, old_dentry, new_dir, new_dentry, flags) */
static int slim_call_inode_rename(struct ftrace_regs *fregs)
{
	return slim_hook_inode_rename((struct inode *)ARG(0),
				      (struct dentry *)ARG(1),
				      (struct inode *)ARG(2),
				      (struct dentry *)ARG(3));
}

static int slim_call_unix_may_send(struct ftrace_regs *fregs)
{
	return slim_hook_unix_may_send((struct socket *)ARG(0),
				       (struct socket *)ARG(1));
}

static int slim_call_sk_free(struct ftrace_regs *fregs)
{
	slim_hook_sk_free_security((struct sock *)ARG(0));
	return 0;
}

static int slim_call_shm_alloc(struct ftrace_regs *fregs)
{
	return slim_hook_shm_alloc_security((struct kern_ipc_perm *)ARG(0));
}

static int slim_call_shm_free(struct ftrace_regs *fregs)
{
	slim_hook_shm_free_security((struct kern_ipc_perm *)ARG(0));
	return 0;
}

static int slim_call_msg_free(struct ftrace_regs *fregs)
{
	slim_hook_msg_msg_free_security((struct msg_msg *)ARG(0));
	return 0;
}

/* shm_shmat(perm, shmaddr, shmflg) */
static int slim_call_shm_shmat(struct ftrace_regs *fregs)
{
	return slim_hook_shm_shmat((struct kern_ipc_perm *)ARG(0),
				   (char __user *)ARG(1), (int)ARG(2));
}

/* msg_queue_msgsnd(perm, msg, msqflg) */
static int slim_call_msg_msgsnd(struct ftrace_regs *fregs)
{
	return slim_hook_msg_queue_msgsnd((struct kern_ipc_perm *)ARG(0),
					  (struct msg_msg *)ARG(1),
					  (int)ARG(2));
}

/* msg_queue_msgrcv(perm, msg, target, type, mode) */
static int slim_call_msg_msgrcv(struct ftrace_regs *fregs)
{
	return slim_hook_msg_queue_msgrcv((struct kern_ipc_perm *)ARG(0),
					  (struct msg_msg *)ARG(1),
					  (struct task_struct *)ARG(2),
					  (long)ARG(3), (int)ARG(4));
}

static int slim_call_ptrace_access(struct ftrace_regs *fregs)
{
	return slim_hook_ptrace_access_check((struct task_struct *)ARG(0),
					     (unsigned int)ARG(1));
}

static int slim_call_ptrace_traceme(struct ftrace_regs *fregs)
{
	return slim_hook_ptrace_traceme((struct task_struct *)ARG(0));
}

static int slim_call_task_kill(struct ftrace_regs *fregs)
{
	return slim_hook_task_kill((struct task_struct *)ARG(0),
				   (struct kernel_siginfo *)ARG(1),
				   (int)ARG(2), (const struct cred *)ARG(3));
}

/* file_mprotect(vma, reqprot, prot) */
static int slim_call_file_mprotect(struct ftrace_regs *fregs)
{
	return slim_hook_file_mprotect((struct vm_area_struct *)ARG(0),
				       ARG(1), ARG(2));
}

static int slim_call_inode_free(struct ftrace_regs *fregs)
{
	slim_hook_inode_free_security((struct inode *)ARG(0));
	return 0;
}

static int slim_call_sb_kern_mount(struct ftrace_regs *fregs)
{
	return slim_hook_sb_kern_mount((struct super_block *)ARG(0));
}

/* get_pipe_info(file, for_splice): splice, tee and vmsplice reach a pipe */
static int slim_call_get_pipe_info(struct ftrace_regs *fregs)
{
	return slim_hook_get_pipe_info((struct file *)ARG(0), (bool)ARG(1));
}

/* do_splice(in, off_in, out, off_out, len, flags) */
static int slim_call_do_splice(struct ftrace_regs *fregs)
{
	return slim_hook_do_splice((struct file *)ARG(0),
				   (struct file *)ARG(2));
}

static int slim_call_msg_alloc(struct ftrace_regs *fregs)
{
	return slim_hook_msg_msg_alloc_security((struct msg_msg *)ARG(0));
}

/* store_msg(dest, msg, len) */
static int slim_call_store_msg(struct ftrace_regs *fregs)
{
	return slim_hook_store_msg((struct msg_msg *)ARG(1));
}

/* sock_sendpage(file, page, offset, size, ppos, more): 6.1 only */
static int slim_call_sock_sendpage(struct ftrace_regs *fregs)
{
	return slim_hook_sock_sendpage((struct file *)ARG(0));
}

static int slim_call_file_set_fowner(struct ftrace_regs *fregs)
{
	slim_hook_file_set_fowner((struct file *)ARG(0));
	return 0;
}

/* security_file_send_sigiotask(tsk, fown, sig) */
static int slim_call_file_send_sigiotask(struct ftrace_regs *fregs)
{
	struct fown_struct *fown = (struct fown_struct *)ARG(1);

	return slim_hook_file_send_sigiotask((struct task_struct *)ARG(0),
					     fown ? slim_fown_file(fown) : NULL);
}

static int slim_call_file_free(struct ftrace_regs *fregs)
{
	slim_hook_file_free_security((struct file *)ARG(0));
	return 0;
}

/*
 * directories: inode_create(dir, dentry, mode), inode_link(old_dentry,
 * dir, new_dentry), inode_symlink(dir, dentry, old_name),
 * inode_mkdir(dir, dentry, mode), inode_mknod(dir, dentry, mode, dev),
 * inode_rmdir(dir, dentry)
 */
static int slim_call_inode_create(struct ftrace_regs *fregs)
{
	return slim_hook_inode_create((struct inode *)ARG(0),
				      (struct dentry *)ARG(1));
}

static int slim_call_inode_link(struct ftrace_regs *fregs)
{
	return slim_hook_inode_link((struct dentry *)ARG(0),
				    (struct inode *)ARG(1),
				    (struct dentry *)ARG(2));
}

static int slim_call_inode_symlink(struct ftrace_regs *fregs)
{
	return slim_hook_inode_symlink((struct inode *)ARG(0),
				       (struct dentry *)ARG(1));
}

static int slim_call_inode_mkdir(struct ftrace_regs *fregs)
{
	return slim_hook_inode_mkdir((struct inode *)ARG(0),
				     (struct dentry *)ARG(1));
}

static int slim_call_inode_mknod(struct ftrace_regs *fregs)
{
	return slim_hook_inode_mknod((struct inode *)ARG(0),
				     (struct dentry *)ARG(1));
}

static int slim_call_inode_rmdir(struct ftrace_regs *fregs)
{
	return slim_hook_inode_rmdir((struct inode *)ARG(0),
				     (struct dentry *)ARG(1));
}

/* security_locked_down(what) */
static int slim_call_locked_down(struct ftrace_regs *fregs)
{
	return slim_hook_locked_down((int)ARG(0));
}

/* security_kernel_read_file(file, id, contents) */
static int slim_call_kernel_read_file(struct ftrace_regs *fregs)
{
	return slim_hook_kernel_read_file((struct file *)ARG(0), (int)ARG(1),
					  (bool)ARG(2));
}

/* security_kernel_load_data(id, contents) */
static int slim_call_kernel_load_data(struct ftrace_regs *fregs)
{
	return slim_hook_kernel_load_data((int)ARG(0), (bool)ARG(1));
}

/* security_bpf(cmd, attr, size[, kernel]) */
static int slim_call_bpf(struct ftrace_regs *fregs)
{
	return slim_hook_bpf((int)ARG(0));
}

/* security_sb_mount(dev_name, path, type, flags, data) */
static int slim_call_sb_mount(struct ftrace_regs *fregs)
{
	return slim_hook_sb_mount((const char *)ARG(0),
				  (const struct path *)ARG(1),
				  (const char *)ARG(2), ARG(3));
}

static int slim_call_sb_umount(struct ftrace_regs *fregs)
{
	return slim_hook_sb_umount((struct vfsmount *)ARG(0), (int)ARG(1));
}

static int slim_call_sb_pivotroot(struct ftrace_regs *fregs)
{
	return slim_hook_sb_pivotroot((const struct path *)ARG(0),
				      (const struct path *)ARG(1));
}

static int slim_call_move_mount(struct ftrace_regs *fregs)
{
	return slim_hook_move_mount((const struct path *)ARG(0),
				    (const struct path *)ARG(1));
}

/* the remaining data paths (lattice_data.c) */
static int slim_call_socket_getsockopt(struct ftrace_regs *fregs)
{
	return slim_hook_socket_getsockopt((struct socket *)ARG(0), (int)ARG(1),
					   (int)ARG(2));
}

static int slim_call_key_alloc(struct ftrace_regs *fregs)
{
	return slim_hook_key_alloc((struct key *)ARG(0),
				   (const struct cred *)ARG(1), ARG(2));
}

static int slim_call_key_free(struct ftrace_regs *fregs)
{
	slim_hook_key_free((struct key *)ARG(0));
	return 0;
}

static int slim_call_key_permission(struct ftrace_regs *fregs)
{
	return slim_hook_key_permission((key_ref_t)ARG(0),
					(const struct cred *)ARG(1),
					(enum key_need_perm)ARG(2));
}

static int slim_call_sem_alloc(struct ftrace_regs *fregs)
{
	return slim_hook_sem_alloc_security((struct kern_ipc_perm *)ARG(0));
}

static int slim_call_sem_free(struct ftrace_regs *fregs)
{
	slim_hook_sem_free_security((struct kern_ipc_perm *)ARG(0));
	return 0;
}

static int slim_call_sem_semop(struct ftrace_regs *fregs)
{
	return slim_hook_sem_semop((struct kern_ipc_perm *)ARG(0),
				   (struct sembuf *)ARG(1),
				   (unsigned int)ARG(2), (int)ARG(3));
}

static int slim_call_sem_semctl(struct ftrace_regs *fregs)
{
	return slim_hook_sem_semctl((struct kern_ipc_perm *)ARG(0),
				    (int)ARG(1));
}

static int slim_call_inode_getxattr(struct ftrace_regs *fregs)
{
	return slim_hook_inode_getxattr((struct dentry *)ARG(0),
					(const char *)ARG(1));
}

static int slim_call_init_security_anon(struct ftrace_regs *fregs)
{
	return slim_hook_inode_init_security_anon((struct inode *)ARG(0),
						  (const struct qstr *)ARG(1),
						  (const struct inode *)ARG(2));
}

static int slim_call_file_ioctl(struct ftrace_regs *fregs)
{
	return slim_hook_file_ioctl((struct file *)ARG(0),
				    (unsigned int)ARG(1), ARG(2));
}

static int slim_call_file_ioctl_compat(struct ftrace_regs *fregs)
{
	return slim_hook_file_ioctl_compat((struct file *)ARG(0),
					   (unsigned int)ARG(1), ARG(2));
}

/*
 * System calls without an LSM hook: the entry of the x86 wrapper, whose
 * one argument is the user's registers (64-bit: di, si; 32-bit: bx, cx).
 */
static int slim_call_swapon(struct ftrace_regs *fregs)
{
	return slim_hook_sys_confined("swapon");
}

static int slim_call_swapoff(struct ftrace_regs *fregs)
{
	return slim_hook_sys_confined("swapoff");
}

static int slim_call_fspick(struct ftrace_regs *fregs)
{
	return slim_hook_sys_confined("reconfigure a mount (fspick)");
}

static int slim_call_fsopen(struct ftrace_regs *fregs)
{
	return slim_hook_sys_confined("make a file system (fsopen)");
}

static int slim_call_fsmount(struct ftrace_regs *fregs)
{
	return slim_hook_sys_confined("mount a file system (fsmount)");
}

static int slim_call_mount_setattr(struct ftrace_regs *fregs)
{
	return slim_hook_sys_confined("change a mount (mount_setattr)");
}

static int slim_call_delete_module(struct ftrace_regs *fregs)
{
	const struct pt_regs *regs = (const struct pt_regs *)ARG(0);

	return slim_hook_delete_module((const char __user *)regs->di,
				       (unsigned int)regs->si);
}

static int slim_call_delete_module32(struct ftrace_regs *fregs)
{
	const struct pt_regs *regs = (const struct pt_regs *)ARG(0);

	return slim_hook_delete_module((const char __user *)regs->bx,
				       (unsigned int)regs->cx);
}

/* write_enabled_file_bool(file, user_buf, count, ppos) */
static int slim_call_kprobes_enabled(struct ftrace_regs *fregs)
{
	return slim_hook_kprobes_enabled_write((const char __user *)ARG(1),
					       (size_t)ARG(2));
}

/* netlink_attachskb(sk, skb, timeo, ssk) */
static int slim_call_netlink_attachskb(struct ftrace_regs *fregs)
{
	return slim_hook_netlink_attachskb((struct sock *)ARG(0),
					   (struct sock *)ARG(3));
}

#undef ARG

static struct slim_ftrace_hook slim_hooks[] = {
	{ .symbol = "security_socket_getsockopt",
	  .call = slim_call_socket_getsockopt, .can_deny = true },
	{ .symbol = "security_key_alloc", .call = slim_call_key_alloc,
	  .can_deny = true },
	{ .symbol = "security_key_free", .call = slim_call_key_free },
	{ .symbol = "security_key_permission",
	  .call = slim_call_key_permission, .can_deny = true },
	{ .symbol = "security_sem_alloc", .call = slim_call_sem_alloc,
	  .can_deny = true },
	{ .symbol = "security_sem_free", .call = slim_call_sem_free },
	{ .symbol = "security_sem_semop", .call = slim_call_sem_semop,
	  .can_deny = true },
	{ .symbol = "security_sem_semctl", .call = slim_call_sem_semctl,
	  .can_deny = true },
	{ .symbol = "security_inode_getxattr",
	  .call = slim_call_inode_getxattr, .can_deny = true },
	{ .symbol = "security_inode_init_security_anon",
	  .call = slim_call_init_security_anon, .can_deny = true },
	{ .symbol = "netlink_attachskb", .call = slim_call_netlink_attachskb,
	  .optional = true },
	{ .symbol = "security_task_free", .call = slim_call_task_free },
	{ .symbol = "security_inode_free", .call = slim_call_inode_free },
	{ .symbol = "security_task_alloc", .call = slim_call_task_alloc,
	  .can_deny = true },
	{ .symbol = "security_bprm_committed_creds",
	  .call = slim_call_bprm_committed },
	{ .symbol = "security_sb_kern_mount",
	  .call = slim_call_sb_kern_mount },
	{ .symbol = "security_inode_setxattr",
	  .call = slim_call_inode_setxattr, .can_deny = true },
	{ .symbol = "security_inode_removexattr",
	  .call = slim_call_inode_removexattr, .can_deny = true },
	{ .symbol = "security_inode_setattr",
	  .call = slim_call_inode_setattr, .can_deny = true },
	{ .symbol = "security_inode_set_acl",
	  .call = slim_call_inode_set_acl, .can_deny = true,
	  .optional = true },
	{ .symbol = "security_inode_remove_acl",
	  .call = slim_call_inode_remove_acl, .can_deny = true,
	  .optional = true },
	{ .symbol = "security_inode_unlink", .call = slim_call_inode_unlink,
	  .can_deny = true },
	{ .symbol = "security_inode_rename", .call = slim_call_inode_rename,
	  .can_deny = true },
	{ .symbol = "security_unix_may_send", .call = slim_call_unix_may_send,
	  .can_deny = true },
	{ .symbol = "security_sk_free", .call = slim_call_sk_free },
	{ .symbol = "security_shm_alloc", .call = slim_call_shm_alloc,
	  .can_deny = true },
	{ .symbol = "security_shm_free", .call = slim_call_shm_free },
	{ .symbol = "security_msg_msg_free", .call = slim_call_msg_free },
	{ .symbol = "security_shm_shmat", .call = slim_call_shm_shmat,
	  .can_deny = true },
	{ .symbol = "security_msg_msg_alloc", .call = slim_call_msg_alloc,
	  .can_deny = true },
	{ .symbol = "store_msg", .call = slim_call_store_msg, .can_deny = true },
	{ .symbol = "get_pipe_info", .call = slim_call_get_pipe_info,
	  .can_deny = true, .ret = SLIM_RET_PTR },
	{ .symbol = "do_splice", .call = slim_call_do_splice, .can_deny = true,
	  .ret = SLIM_RET_LONG },
	{ .symbol = "security_msg_queue_msgsnd",
	  .call = slim_call_msg_msgsnd, .can_deny = true },
	{ .symbol = "security_msg_queue_msgrcv",
	  .call = slim_call_msg_msgrcv, .can_deny = true },
	{ .symbol = "security_ptrace_access_check",
	  .call = slim_call_ptrace_access, .can_deny = true },
	{ .symbol = "security_ptrace_traceme",
	  .call = slim_call_ptrace_traceme, .can_deny = true },
	{ .symbol = "security_task_kill", .call = slim_call_task_kill,
	  .can_deny = true },
	{ .symbol = "security_file_set_fowner",
	  .call = slim_call_file_set_fowner },
	{ .symbol = "security_file_send_sigiotask",
	  .call = slim_call_file_send_sigiotask, .can_deny = true },
	{ .symbol = "security_file_free", .call = slim_call_file_free },
	{ .symbol = "sock_sendpage", .call = slim_call_sock_sendpage,
	  .can_deny = true, .ret = SLIM_RET_LONG, .optional = true },
	{ .symbol = "security_file_mprotect", .call = slim_call_file_mprotect,
	  .can_deny = true },
	{ .symbol = "security_file_permission",
	  .call = slim_call_file_permission, .can_deny = true },
	{ .symbol = "security_socket_sendmsg",
	  .call = slim_call_socket_sendmsg, .can_deny = true },
	{ .symbol = "security_socket_recvmsg",
	  .call = slim_call_socket_recvmsg, .can_deny = true },
	{ .symbol = "security_bprm_check", .call = slim_call_bprm_check },
	{ .symbol = "security_mmap_file", .call = slim_call_mmap_file,
	  .can_deny = true },
	{ .symbol = "security_file_open", .call = slim_call_file_open },
	/* directories */
	{ .symbol = "security_inode_create", .call = slim_call_inode_create,
	  .can_deny = true },
	{ .symbol = "security_inode_link", .call = slim_call_inode_link,
	  .can_deny = true },
	{ .symbol = "security_inode_symlink", .call = slim_call_inode_symlink,
	  .can_deny = true },
	{ .symbol = "security_inode_mkdir", .call = slim_call_inode_mkdir,
	  .can_deny = true },
	{ .symbol = "security_inode_mknod", .call = slim_call_inode_mknod,
	  .can_deny = true },
	{ .symbol = "security_inode_rmdir", .call = slim_call_inode_rmdir,
	  .can_deny = true },
	/* lattice_confine.c */
	{ .symbol = "security_locked_down", .call = slim_call_locked_down,
	  .can_deny = true },
	{ .symbol = "security_kernel_read_file",
	  .call = slim_call_kernel_read_file, .can_deny = true },
	{ .symbol = "security_kernel_load_data",
	  .call = slim_call_kernel_load_data, .can_deny = true },
	{ .symbol = "security_bpf", .call = slim_call_bpf, .can_deny = true },
	{ .symbol = "security_sb_mount", .call = slim_call_sb_mount,
	  .can_deny = true },
	{ .symbol = "security_sb_umount", .call = slim_call_sb_umount,
	  .can_deny = true },
	{ .symbol = "security_sb_pivotroot", .call = slim_call_sb_pivotroot,
	  .can_deny = true },
	{ .symbol = "security_move_mount", .call = slim_call_move_mount,
	  .can_deny = true },
	{ .symbol = "security_file_ioctl", .call = slim_call_file_ioctl,
	  .can_deny = true },
	{ .symbol = "security_file_ioctl_compat",
	  .call = slim_call_file_ioctl_compat, .can_deny = true,
	  .optional = true },
	{ .symbol = "__x64_sys_swapon", .call = slim_call_swapon,
	  .can_deny = true, .ret = SLIM_RET_LONG },
	{ .symbol = "__ia32_sys_swapon", .call = slim_call_swapon,
	  .can_deny = true, .ret = SLIM_RET_LONG, .optional = true },
	{ .symbol = "__x64_sys_swapoff", .call = slim_call_swapoff,
	  .can_deny = true, .ret = SLIM_RET_LONG },
	{ .symbol = "__ia32_sys_swapoff", .call = slim_call_swapoff,
	  .can_deny = true, .ret = SLIM_RET_LONG, .optional = true },
	{ .symbol = "__x64_sys_fspick", .call = slim_call_fspick,
	  .can_deny = true, .ret = SLIM_RET_LONG },
	{ .symbol = "__ia32_sys_fspick", .call = slim_call_fspick,
	  .can_deny = true, .ret = SLIM_RET_LONG, .optional = true },
	{ .symbol = "__x64_sys_fsopen", .call = slim_call_fsopen,
	  .can_deny = true, .ret = SLIM_RET_LONG },
	{ .symbol = "__ia32_sys_fsopen", .call = slim_call_fsopen,
	  .can_deny = true, .ret = SLIM_RET_LONG, .optional = true },
	{ .symbol = "__x64_sys_fsmount", .call = slim_call_fsmount,
	  .can_deny = true, .ret = SLIM_RET_LONG },
	{ .symbol = "__ia32_sys_fsmount", .call = slim_call_fsmount,
	  .can_deny = true, .ret = SLIM_RET_LONG, .optional = true },
	{ .symbol = "__x64_sys_mount_setattr", .call = slim_call_mount_setattr,
	  .can_deny = true, .ret = SLIM_RET_LONG },
	{ .symbol = "__ia32_sys_mount_setattr",
	  .call = slim_call_mount_setattr, .can_deny = true,
	  .ret = SLIM_RET_LONG, .optional = true },
	{ .symbol = "__x64_sys_delete_module", .call = slim_call_delete_module,
	  .can_deny = true, .ret = SLIM_RET_LONG },
	{ .symbol = "__ia32_sys_delete_module",
	  .call = slim_call_delete_module32, .can_deny = true,
	  .ret = SLIM_RET_LONG, .optional = true },
	{ .symbol = "write_enabled_file_bool",
	  .call = slim_call_kprobes_enabled, .can_deny = true,
	  .ret = SLIM_RET_LONG },
};

static const unsigned int slim_nhooks = ARRAY_SIZE(slim_hooks);

/* [0]: hooks that only observe; [1]: hooks that may deny (IPMODIFY) */
static struct ftrace_ops slim_ops[2];
static bool slim_ops_filtered[2], slim_ops_registered[2];

/*
 * The callback's index from call site to hook: open addressing, written
 * before the ftrace_ops are registered and only read after.
 */
#define SLIM_INDEX_BITS 7
static struct slim_ftrace_hook *slim_index[1 << SLIM_INDEX_BITS];

static void slim_index_add(struct slim_ftrace_hook *h)
{
	unsigned int i = hash_long(h->ip, SLIM_INDEX_BITS);

	while (slim_index[i])
		i = (i + 1) & (ARRAY_SIZE(slim_index) - 1);
	slim_index[i] = h;
}

static struct slim_ftrace_hook *slim_hook_of(unsigned long ip)
{
	unsigned int i = hash_long(ip, SLIM_INDEX_BITS);
	struct slim_ftrace_hook *h;

	while ((h = slim_index[i])) {
		if (h->ip == ip)
			return h;
		i = (i + 1) & (ARRAY_SIZE(slim_index) - 1);
	}
	return NULL;
}

/* the ftrace callback of every hook; @op tells whether it may deny */
static void notrace slim_ft_dispatch(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	bool deny = op == &slim_ops[1];
	struct slim_ftrace_hook *h;
	int bit, rc;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	h = slim_hook_of(ip);
	if (h) {
		rc = h->call(fregs);
		if (rc && deny)
			slim_ft_deny(fregs, h, rc);
	} else {
		pr_err_once("no hook for %pS\n", (void *)ip);
	}
	ftrace_test_recursion_unlock(bit);
}

/*
 * The call site of every traced function, from its name, all at once:
 * ftrace_set_filter() would scan every ftrace record by name for each
 * function (about 0.4 s each in a TCG guest). A kprobe registered disabled
 * resolves its symbol (kallsyms, a binary search on both kernels) and the
 * probe address on the function's entry (past an ENDBR on IBT kernels:
 * the __fentry__ call site ftrace hands the callback), and is never armed.
 * Nothing is called through the address (see the top of this file).
 */
static int slim_resolve(void)
{
	struct kprobe *kps, **reg;
	unsigned int i, n = 0;
	int rc = 0;

	kps = kcalloc(ARRAY_SIZE(slim_hooks), sizeof(*kps), GFP_KERNEL);
	reg = kcalloc(ARRAY_SIZE(slim_hooks), sizeof(*reg), GFP_KERNEL);
	if (!kps || !reg) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < slim_nhooks; i++) {
		struct slim_ftrace_hook *h = &slim_hooks[i];
		struct kprobe *kp = &kps[i];

		h->ip = 0;
		kp->symbol_name = h->symbol;
		kp->flags = KPROBE_FLAG_DISABLED;
		rc = register_kprobe(kp);
		if (rc) {
			if (h->optional) {
				pr_info("%s is not in this kernel: not traced\n",
					h->symbol);
				rc = 0;
				continue;
			}
			pr_err("cannot find %s: %d\n", h->symbol, rc);
			break;
		}
		reg[n++] = kp;
		h->ip = (unsigned long)kp->addr;
	}
	/* one RCU grace period for all of them */
	if (n)
		unregister_kprobes(reg, n);
out:
	kfree(reg);
	kfree(kps);
	return rc;
}

/* one filter update per ftrace_ops, by address: no name scan */
static int slim_filter_set(unsigned int k)
{
	unsigned long *ips;
	unsigned int i, n = 0;
	int rc;

	ips = kcalloc(ARRAY_SIZE(slim_hooks), sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < slim_nhooks; i++)
		if (slim_hooks[i].ip && slim_hooks[i].can_deny == k)
			ips[n++] = slim_hooks[i].ip;
	rc = n ? ftrace_set_filter_ips(&slim_ops[k], ips, n, 0, 1) : 0;
	if (rc)
		pr_err("cannot trace the %s hooks: %d\n",
		       k ? "denying" : "observing", rc);
	else if (n)
		slim_ops_filtered[k] = true;
	kfree(ips);
	return rc;
}

int slim_attach(void)
{
	unsigned int i, k;
	int rc;

	memset(slim_index, 0, sizeof(slim_index));
	rc = slim_resolve();
	if (rc)
		return rc;
	for (i = 0; i < slim_nhooks; i++)
		if (slim_hooks[i].ip)
			slim_index_add(&slim_hooks[i]);
	for (k = 0; k < ARRAY_SIZE(slim_ops); k++) {
		memset(&slim_ops[k], 0, sizeof(slim_ops[k]));
		slim_ops[k].func = slim_ft_dispatch;
	}
	/*
	 * PERMANENT: kernel.ftrace_enabled=0 fails with EBUSY while they are
	 * registered, instead of silently switching every hook off (and
	 * registering fails while ftrace is disabled: the load fails)
	 */
	slim_ops[0].flags = FTRACE_OPS_FL_PERMANENT;
	slim_ops[1].flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
			    FTRACE_OPS_FL_PERMANENT;
	for (k = 0; k < ARRAY_SIZE(slim_ops); k++) {
		rc = slim_filter_set(k);
		if (rc)
			goto err;
	}
	for (k = 0; k < ARRAY_SIZE(slim_ops); k++) {
		rc = register_ftrace_function(&slim_ops[k]);
		if (rc) {
			pr_err("cannot attach the %s hooks: %d\n",
			       k ? "denying" : "observing", rc);
			goto err;
		}
		slim_ops_registered[k] = true;
	}
	rc = slim_kprobes_init();
	if (rc)
		goto err;
	return 0;
err:
	slim_detach();
	return rc;
}

/*
 * unregister_ftrace_function() returns only when no CPU can still be inside
 * the callback, so after this no hook function runs.
 */
void slim_detach(void)
{
	int k;

	slim_kprobes_exit();
	for (k = ARRAY_SIZE(slim_ops) - 1; k >= 0; k--) {
		if (slim_ops_registered[k])
			unregister_ftrace_function(&slim_ops[k]);
		if (slim_ops_filtered[k])
			ftrace_free_filter(&slim_ops[k]);
		slim_ops_registered[k] = false;
		slim_ops_filtered[k] = false;
	}
}
