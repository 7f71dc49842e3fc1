// SPDX-License-Identifier: GPL-2.0
/*
 * the hook table: which rules run for each hook, in which order (hooks.h).
 *
 * slim_hooks_init() asks each concern for its hook list, in the order their
 * rules run for every hook, as LSM stacking would order them: the
 * lattice's lists first (it may deny), then measurement's. A hook's rules
 * then run in that order and the first error is the hook's answer.
 * The table is filled before the attach layers register and only read
 * after (the callbacks may run in atomic context: no lock).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "hooks.h"

/*
 * the most rules any hook has (file_open: two; mmap_file: three, with
 * lattice_data.c's)
 */
#define SLIM_HOOK_SLOTS 4

static const struct slim_hook *slim_heads[SLIM_NHOOKS][SLIM_HOOK_SLOTS];

int slim_add_hooks(const struct slim_hook *hooks, unsigned int n,
		   const char *concern)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		const struct slim_hook **head = slim_heads[hooks[i].id];

		for (k = 0; k < SLIM_HOOK_SLOTS && head[k]; k++)
			;
		if (WARN_ON(hooks[i].id >= SLIM_NHOOKS ||
			    k == SLIM_HOOK_SLOTS)) {
			pr_err("%s: no room for hook %d\n", concern,
			       hooks[i].id);
			return -ENOSPC;
		}
		head[k] = &hooks[i];
	}
	return 0;
}

int slim_hooks_init(void)
{
	int rc;

	memset(slim_heads, 0, sizeof(slim_heads));
	rc = slim_lattice_file_add_hooks();
	if (!rc)
		rc = slim_lattice_ipc_add_hooks();
	if (!rc)
		rc = slim_lattice_splice_add_hooks();
	if (!rc)
		rc = slim_lattice_dir_add_hooks();
	if (!rc)
		rc = slim_lattice_confine_add_hooks();
	if (!rc)
		rc = slim_lattice_data_add_hooks();
	if (!rc)
		rc = slim_measure_add_hooks();
	if (!rc)
		rc = slim_watch_add_hooks();
	return rc;
}

#define call_int_hook(NAME, ...) ({					\
	const struct slim_hook *const *h__ = slim_heads[SLIM_HOOK_##NAME]; \
	unsigned int k__;						\
	int rc__ = 0;							\
									\
	for (k__ = 0; k__ < SLIM_HOOK_SLOTS && h__[k__]; k__++) {	\
		rc__ = h__[k__]->fn.NAME(__VA_ARGS__);			\
		if (rc__)						\
			break;						\
	}								\
	rc__;								\
})

#define call_void_hook(NAME, ...) do {					\
	const struct slim_hook *const *h__ = slim_heads[SLIM_HOOK_##NAME]; \
	unsigned int k__;						\
									\
	for (k__ = 0; k__ < SLIM_HOOK_SLOTS && h__[k__]; k__++)	\
		h__[k__]->fn.NAME(__VA_ARGS__);				\
} while (0)

int slim_hook_bprm_check_security(struct linux_binprm *bprm)
{
	return call_int_hook(bprm_check_security, bprm);
}

void slim_hook_bprm_committed_creds(const struct linux_binprm *bprm)
{
	call_void_hook(bprm_committed_creds, bprm);
}

int slim_hook_mmap_file(struct file *file, unsigned long reqprot,
			unsigned long prot, unsigned long flags)
{
	return call_int_hook(mmap_file, file, reqprot, prot, flags);
}

int slim_hook_file_open(struct file *file)
{
	return call_int_hook(file_open, file);
}

int slim_hook_file_permission(struct file *file, int mask)
{
	return call_int_hook(file_permission, file, mask);
}

int slim_hook_file_mprotect(struct vm_area_struct *vma, unsigned long reqprot,
			    unsigned long prot)
{
	return call_int_hook(file_mprotect, vma, reqprot, prot);
}

void slim_hook_file_set_fowner(struct file *file)
{
	call_void_hook(file_set_fowner, file);
}

int slim_hook_file_send_sigiotask(struct task_struct *tsk, struct file *file)
{
	return call_int_hook(file_send_sigiotask, tsk, file);
}

void slim_hook_file_free_security(struct file *file)
{
	call_void_hook(file_free_security, file);
}

int slim_hook_inode_setxattr(struct dentry *dentry, const char *name)
{
	return call_int_hook(inode_setxattr, dentry, name);
}

int slim_hook_inode_removexattr(struct dentry *dentry, const char *name)
{
	return call_int_hook(inode_removexattr, dentry, name);
}

int slim_hook_inode_setattr(struct dentry *dentry)
{
	return call_int_hook(inode_setattr, dentry);
}

int slim_hook_inode_set_acl(struct dentry *dentry)
{
	return call_int_hook(inode_set_acl, dentry);
}

int slim_hook_inode_remove_acl(struct dentry *dentry)
{
	return call_int_hook(inode_remove_acl, dentry);
}

int slim_hook_inode_unlink(struct inode *dir, struct dentry *dentry)
{
	return call_int_hook(inode_unlink, dir, dentry);
}

int slim_hook_inode_rename(struct inode *old_dir, struct dentry *old_dentry,
			   struct inode *new_dir, struct dentry *new_dentry)
{
	return call_int_hook(inode_rename, old_dir, old_dentry, new_dir,
			     new_dentry);
}

void slim_hook_inode_free_security(struct inode *inode)
{
	call_void_hook(inode_free_security, inode);
}

int slim_hook_sb_kern_mount(struct super_block *sb)
{
	return call_int_hook(sb_kern_mount, sb);
}

int slim_hook_task_alloc(struct task_struct *task, unsigned long clone_flags)
{
	return call_int_hook(task_alloc, task, clone_flags);
}

void slim_hook_task_free(struct task_struct *task)
{
	call_void_hook(task_free, task);
}

int slim_hook_task_kill(struct task_struct *p, struct kernel_siginfo *info,
			int sig, const struct cred *cred)
{
	return call_int_hook(task_kill, p, info, sig, cred);
}

int slim_hook_ptrace_access_check(struct task_struct *child,
				  unsigned int mode)
{
	return call_int_hook(ptrace_access_check, child, mode);
}

int slim_hook_ptrace_traceme(struct task_struct *parent)
{
	return call_int_hook(ptrace_traceme, parent);
}

int slim_hook_socket_sendmsg(struct socket *sock, struct msghdr *msg, int size)
{
	return call_int_hook(socket_sendmsg, sock, msg, size);
}

int slim_hook_socket_recvmsg(struct socket *sock, struct msghdr *msg, int size,
			     int flags)
{
	return call_int_hook(socket_recvmsg, sock, msg, size, flags);
}

int slim_hook_unix_may_send(struct socket *sock, struct socket *other)
{
	return call_int_hook(unix_may_send, sock, other);
}

void slim_hook_sk_free_security(struct sock *sk)
{
	call_void_hook(sk_free_security, sk);
}

int slim_hook_shm_alloc_security(struct kern_ipc_perm *perm)
{
	return call_int_hook(shm_alloc_security, perm);
}

void slim_hook_shm_free_security(struct kern_ipc_perm *perm)
{
	call_void_hook(shm_free_security, perm);
}

int slim_hook_shm_shmat(struct kern_ipc_perm *perm, char __user *shmaddr,
			int shmflg)
{
	return call_int_hook(shm_shmat, perm, shmaddr, shmflg);
}

int slim_hook_msg_msg_alloc_security(struct msg_msg *msg)
{
	return call_int_hook(msg_msg_alloc_security, msg);
}

void slim_hook_msg_msg_free_security(struct msg_msg *msg)
{
	call_void_hook(msg_msg_free_security, msg);
}

int slim_hook_msg_queue_msgsnd(struct kern_ipc_perm *perm, struct msg_msg *msg,
			       int msqflg)
{
	return call_int_hook(msg_queue_msgsnd, perm, msg, msqflg);
}

int slim_hook_msg_queue_msgrcv(struct kern_ipc_perm *perm, struct msg_msg *msg,
			       struct task_struct *target, long type, int mode)
{
	return call_int_hook(msg_queue_msgrcv, perm, msg, target, type, mode);
}

int slim_hook_file_open_perm(struct file *file)
{
	return call_int_hook(file_open_perm, file);
}

int slim_hook_get_pipe_info(struct file *file, bool for_splice)
{
	return call_int_hook(get_pipe_info, file, for_splice);
}

int slim_hook_do_splice(struct file *in, struct file *out)
{
	return call_int_hook(do_splice, in, out);
}

int slim_hook_store_msg(struct msg_msg *msg)
{
	return call_int_hook(store_msg, msg);
}

int slim_hook_sock_sendpage(struct file *file)
{
	return call_int_hook(sock_sendpage, file);
}

int slim_hook_pipe_read_done(struct file *file, gfp_t gfp)
{
	return call_int_hook(pipe_read_done, file, gfp);
}

int slim_hook_unix_recv_done(struct sock *sk)
{
	return call_int_hook(unix_recv_done, sk);
}

int slim_hook_inode_create(struct inode *dir, struct dentry *dentry)
{
	return call_int_hook(inode_create, dir, dentry);
}

int slim_hook_inode_link(struct dentry *old_dentry, struct inode *dir,
			 struct dentry *new_dentry)
{
	return call_int_hook(inode_link, old_dentry, dir, new_dentry);
}

int slim_hook_inode_symlink(struct inode *dir, struct dentry *dentry)
{
	return call_int_hook(inode_symlink, dir, dentry);
}

int slim_hook_inode_mkdir(struct inode *dir, struct dentry *dentry)
{
	return call_int_hook(inode_mkdir, dir, dentry);
}

int slim_hook_inode_mknod(struct inode *dir, struct dentry *dentry)
{
	return call_int_hook(inode_mknod, dir, dentry);
}

int slim_hook_inode_rmdir(struct inode *dir, struct dentry *dentry)
{
	return call_int_hook(inode_rmdir, dir, dentry);
}

int slim_hook_dir_created(struct inode *inode)
{
	return call_int_hook(dir_created, inode);
}

int slim_hook_locked_down(int what)
{
	return call_int_hook(locked_down, what);
}

int slim_hook_kernel_read_file(struct file *file, int id, bool contents)
{
	return call_int_hook(kernel_read_file, file, id, contents);
}

int slim_hook_kernel_load_data(int id, bool contents)
{
	return call_int_hook(kernel_load_data, id, contents);
}

int slim_hook_bpf(int cmd)
{
	return call_int_hook(bpf, cmd);
}

int slim_hook_sb_mount(const char *dev_name, const struct path *path,
		       const char *type, unsigned long flags)
{
	return call_int_hook(sb_mount, dev_name, path, type, flags);
}

int slim_hook_sb_umount(struct vfsmount *mnt, int flags)
{
	return call_int_hook(sb_umount, mnt, flags);
}

int slim_hook_sb_pivotroot(const struct path *old_path,
			   const struct path *new_path)
{
	return call_int_hook(sb_pivotroot, old_path, new_path);
}

int slim_hook_move_mount(const struct path *from_path,
			 const struct path *to_path)
{
	return call_int_hook(move_mount, from_path, to_path);
}

int slim_hook_socket_getsockopt(struct socket *sock, int level, int optname)
{
	return call_int_hook(socket_getsockopt, sock, level, optname);
}

int slim_hook_key_alloc(struct key *key, const struct cred *cred,
			unsigned long flags)
{
	return call_int_hook(key_alloc, key, cred, flags);
}

void slim_hook_key_free(struct key *key)
{
	call_void_hook(key_free, key);
}

int slim_hook_key_permission(key_ref_t key_ref, const struct cred *cred,
			     enum key_need_perm need_perm)
{
	return call_int_hook(key_permission, key_ref, cred, need_perm);
}

int slim_hook_sem_alloc_security(struct kern_ipc_perm *perm)
{
	return call_int_hook(sem_alloc_security, perm);
}

void slim_hook_sem_free_security(struct kern_ipc_perm *perm)
{
	call_void_hook(sem_free_security, perm);
}

int slim_hook_sem_semop(struct kern_ipc_perm *perm, struct sembuf *sops,
			unsigned int nsops, int alter)
{
	return call_int_hook(sem_semop, perm, sops, nsops, alter);
}

int slim_hook_sem_semctl(struct kern_ipc_perm *perm, int cmd)
{
	return call_int_hook(sem_semctl, perm, cmd);
}

int slim_hook_inode_getxattr(struct dentry *dentry, const char *name)
{
	return call_int_hook(inode_getxattr, dentry, name);
}

int slim_hook_inode_init_security_anon(struct inode *inode,
				       const struct qstr *name,
				       const struct inode *context_inode)
{
	return call_int_hook(inode_init_security_anon, inode, name,
			     context_inode);
}

int slim_hook_file_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	return call_int_hook(file_ioctl, file, cmd, arg);
}

int slim_hook_file_ioctl_compat(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	return call_int_hook(file_ioctl_compat, file, cmd, arg);
}

int slim_hook_sys_confined(const char *what)
{
	return call_int_hook(sys_confined, what);
}

int slim_hook_delete_module(const char __user *name, unsigned int flags)
{
	return call_int_hook(delete_module, name, flags);
}

int slim_hook_kprobes_enabled_write(const char __user *buf, size_t count)
{
	return call_int_hook(kprobes_enabled_write, buf, count);
}

int slim_hook_netlink_attachskb(struct sock *sk, struct sock *ssk)
{
	return call_int_hook(netlink_attachskb, sk, ssk);
}

int slim_hook_sock_recv_done(struct sock *sk)
{
	return call_int_hook(sock_recv_done, sk);
}

int slim_hook_file_read_done(struct file *file)
{
	return call_int_hook(file_read_done, file);
}

/* ---- what the attach layers offer the rules ----------------------------- */

static slim_poll_fn slim_missed_poll;

/* set before the hooks are attached, cleared after they are gone */
void slim_set_missed_poll(slim_poll_fn poll)
{
	WRITE_ONCE(slim_missed_poll, poll);
}

/* atomic context: @report the reads whose return a probe missed */
void slim_poll_missed(slim_missed_fn report)
{
	slim_poll_fn poll = READ_ONCE(slim_missed_poll);

	if (poll)
		poll(report);
}
