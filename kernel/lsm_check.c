// SPDX-License-Identifier: GPL-2.0
/*
 * not part of slim.ko: compiled only by `make lsm-check` (and `make check`)
 * against the installed headers, to show that the functions the core runs
 * (hooks.h, each concern's list) are LSM hooks: the same functions, in the
 * same order, as the two hook lists a built-in LSM would register, the
 * lattice's before measurement's. The initializers are type-checked
 * against the kernel's own union security_list_options; nothing here is
 * linked or loaded (security_add_hooks() is not exported).
 *
 * What a built-in LSM does not need: the file_open and sb_kern_mount hooks
 * of attach_fsnotify.c (LSM file_open may sleep: it is the lattice's open
 * hook itself), and the functions traced because no LSM hook reaches them
 * (get_pipe_info, do_splice, store_msg, sock_sendpage, netlink_attachskb;
 * the returns of pipe, UNIX and netlink socket, eventfd and tty reads;
 * the system calls swapon, swapoff, fsopen, fspick, fsmount,
 * mount_setattr and delete_module, and debugfs kprobes/enabled, which a
 * built-in LSM meets as lockdown and mount hooks or does not need: it
 * cannot be removed or switched off). key_free is an LSM hook on 6.1, not
 * on 6.12 (which frees the key's blob itself). The hooks that take only
 * the arguments they use get a line of adapter each, as in
 * attach_ftrace.c.
 */
#include <linux/lsm_hooks.h>
#include <linux/binfmts.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/bpf.h>
#include <linux/kernel_read_file.h>
#include <linux/security.h>
#include "measure.h"
#include "lattice.h"
#include "lattice_rules.h"
#include "compat.h"

/* the idmapping argument: a user namespace until 6.3 */
#ifdef SLIM_HAVE_MNT_IDMAP
static int slim_lsm_inode_setxattr(struct mnt_idmap *idmap,
				   struct dentry *dentry, const char *name,
				   const void *value, size_t size, int flags)
{
	return slim_inode_setxattr(dentry, name);
}

static int slim_lsm_inode_removexattr(struct mnt_idmap *idmap,
				      struct dentry *dentry, const char *name)
{
	return slim_inode_setxattr(dentry, name);
}

static int slim_lsm_inode_setattr(struct mnt_idmap *idmap,
				  struct dentry *dentry, struct iattr *attr)
{
	return slim_lattice_inode_setattr(dentry);
}

static int slim_lsm_inode_set_acl(struct mnt_idmap *idmap,
				  struct dentry *dentry, const char *acl_name,
				  struct posix_acl *kacl)
{
	return slim_inode_change(dentry);
}

static int slim_lsm_inode_remove_acl(struct mnt_idmap *idmap,
				     struct dentry *dentry,
				     const char *acl_name)
{
	return slim_inode_change(dentry);
}
#else
static int slim_lsm_inode_setxattr(struct user_namespace *mnt_userns,
				   struct dentry *dentry, const char *name,
				   const void *value, size_t size, int flags)
{
	return slim_inode_setxattr(dentry, name);
}

static int slim_lsm_inode_removexattr(struct user_namespace *mnt_userns,
				      struct dentry *dentry, const char *name)
{
	return slim_inode_setxattr(dentry, name);
}

static int slim_lsm_inode_setattr(struct dentry *dentry, struct iattr *attr)
{
	return slim_lattice_inode_setattr(dentry);
}
#endif

#ifdef SLIM_HAVE_CONST_BPRM_CREDS
#define slim_lsm_bprm_committed_creds slim_bprm_committed_creds
#else
static void slim_lsm_bprm_committed_creds(struct linux_binprm *bprm)
{
	slim_bprm_committed_creds(bprm);
}
#endif

static int slim_lsm_file_send_sigiotask(struct task_struct *tsk,
					struct fown_struct *fown, int sig)
{
	return slim_file_send_sigiotask(tsk, slim_fown_file(fown));
}

static void slim_lsm_shm_free(struct kern_ipc_perm *perm)
{
	slim_ipc_free(perm);
}

static void slim_lsm_msg_free(struct msg_msg *msg)
{
	slim_ipc_free(msg);
}

/* lattice_confine.c: the rules take the arguments they use */
static int slim_lsm_locked_down(enum lockdown_reason what)
{
	return slim_confine_locked_down(what);
}

static int slim_lsm_kernel_read_file(struct file *file,
				     enum kernel_read_file_id id,
				     bool contents)
{
	return slim_confine_read_file(file, id, contents);
}

static int slim_lsm_kernel_load_data(enum kernel_load_data_id id,
				     bool contents)
{
	return slim_confine_load_data(id, contents);
}

static int slim_lsm_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return slim_confine_bpf(cmd);
}

static int slim_lsm_sb_mount(const char *dev_name, const struct path *path,
			     const char *type, unsigned long flags,
			     void *data)
{
	return slim_confine_sb_mount(dev_name, path, type, flags);
}

/* lattice_dir.c */
static int slim_lsm_inode_create(struct inode *dir, struct dentry *dentry,
				 umode_t mode)
{
	return slim_dir_create(dir, dentry);
}

static int slim_lsm_inode_symlink(struct inode *dir, struct dentry *dentry,
				  const char *old_name)
{
	return slim_dir_create(dir, dentry);
}

static int slim_lsm_inode_mknod(struct inode *dir, struct dentry *dentry,
				umode_t mode, dev_t dev)
{
	return slim_dir_create(dir, dentry);
}

/*
 * lattice_hooks.c, lattice_ipc.c, lattice_splice.c, lattice_dir.c,
 * lattice_confine.c, lattice_data.c (a hook with two rules, file_ioctl,
 * is two entries, in the core's order)
 */
static struct security_hook_list slim_lattice_lsm_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(file_open, slim_lattice_file_open),
	LSM_HOOK_INIT(file_permission, slim_file_permission),
	LSM_HOOK_INIT(mmap_file, slim_lattice_mmap),
	LSM_HOOK_INIT(socket_sendmsg, slim_socket_sendmsg),
	LSM_HOOK_INIT(socket_recvmsg, slim_socket_recvmsg),
	LSM_HOOK_INIT(task_alloc, slim_task_alloc),
	LSM_HOOK_INIT(task_free, slim_task_free),
	LSM_HOOK_INIT(bprm_committed_creds, slim_lsm_bprm_committed_creds),
	LSM_HOOK_INIT(inode_setxattr, slim_lsm_inode_setxattr),
	LSM_HOOK_INIT(inode_removexattr, slim_lsm_inode_removexattr),
	LSM_HOOK_INIT(inode_setattr, slim_lsm_inode_setattr),
	LSM_HOOK_INIT(inode_free_security, slim_inode_free_security),
	LSM_HOOK_INIT(unix_may_send, slim_unix_may_send),
	LSM_HOOK_INIT(sk_free_security, slim_sk_free),
	LSM_HOOK_INIT(shm_alloc_security, slim_shm_alloc),
	LSM_HOOK_INIT(shm_free_security, slim_lsm_shm_free),
	LSM_HOOK_INIT(shm_shmat, slim_shm_shmat),
	LSM_HOOK_INIT(msg_msg_alloc_security, slim_msg_alloc),
	LSM_HOOK_INIT(msg_msg_free_security, slim_lsm_msg_free),
	LSM_HOOK_INIT(msg_queue_msgsnd, slim_msg_msgsnd),
	LSM_HOOK_INIT(msg_queue_msgrcv, slim_msg_msgrcv),
	LSM_HOOK_INIT(ptrace_access_check, slim_ptrace_access),
	LSM_HOOK_INIT(ptrace_traceme, slim_ptrace_traceme),
	LSM_HOOK_INIT(task_kill, slim_task_kill),
	LSM_HOOK_INIT(file_set_fowner, slim_file_set_fowner),
	LSM_HOOK_INIT(file_send_sigiotask, slim_lsm_file_send_sigiotask),
	LSM_HOOK_INIT(file_free_security, slim_file_free),
	LSM_HOOK_INIT(file_mprotect, slim_file_mprotect),
#ifdef SLIM_HAVE_MNT_IDMAP
	LSM_HOOK_INIT(inode_set_acl, slim_lsm_inode_set_acl),
	LSM_HOOK_INIT(inode_remove_acl, slim_lsm_inode_remove_acl),
#endif
	LSM_HOOK_INIT(inode_unlink, slim_inode_unlink),
	LSM_HOOK_INIT(inode_rename, slim_inode_rename),
	/* lattice_dir.c */
	LSM_HOOK_INIT(inode_create, slim_lsm_inode_create),
	LSM_HOOK_INIT(inode_link, slim_dir_link),
	LSM_HOOK_INIT(inode_symlink, slim_lsm_inode_symlink),
	LSM_HOOK_INIT(inode_mkdir, slim_lsm_inode_create),
	LSM_HOOK_INIT(inode_mknod, slim_lsm_inode_mknod),
	LSM_HOOK_INIT(inode_rmdir, slim_dir_write),
	/* lattice_confine.c */
	LSM_HOOK_INIT(locked_down, slim_lsm_locked_down),
	LSM_HOOK_INIT(kernel_read_file, slim_lsm_kernel_read_file),
	LSM_HOOK_INIT(kernel_load_data, slim_lsm_kernel_load_data),
	LSM_HOOK_INIT(bpf, slim_lsm_bpf),
	LSM_HOOK_INIT(sb_mount, slim_lsm_sb_mount),
	LSM_HOOK_INIT(sb_umount, slim_confine_sb_umount),
	LSM_HOOK_INIT(sb_pivotroot, slim_confine_pivotroot),
	LSM_HOOK_INIT(move_mount, slim_confine_move_mount),
	LSM_HOOK_INIT(file_ioctl, slim_confine_ioctl),
#ifdef SLIM_HAVE_LSM_IOCTL_COMPAT
	LSM_HOOK_INIT(file_ioctl_compat, slim_confine_ioctl),
#endif
	/* lattice_data.c */
	LSM_HOOK_INIT(file_ioctl, slim_data_ioctl),
	LSM_HOOK_INIT(socket_getsockopt, slim_data_getsockopt),
	LSM_HOOK_INIT(key_alloc, slim_data_key_alloc),
#ifdef SLIM_HAVE_LSM_KEY_FREE
	LSM_HOOK_INIT(key_free, slim_data_key_free),
#endif
	LSM_HOOK_INIT(key_permission, slim_data_key_permission),
	LSM_HOOK_INIT(sem_alloc_security, slim_data_sem_alloc),
	LSM_HOOK_INIT(sem_free_security, slim_data_sem_free),
	LSM_HOOK_INIT(sem_semop, slim_data_semop),
	LSM_HOOK_INIT(sem_semctl, slim_data_semctl),
	LSM_HOOK_INIT(inode_getxattr, slim_data_getxattr),
	LSM_HOOK_INIT(inode_init_security_anon, slim_data_anon_inode),
};

/* measure_hooks.c */
static struct security_hook_list slim_measure_lsm_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(bprm_check_security, slim_bprm_check_security),
	LSM_HOOK_INIT(mmap_file, slim_mmap_file),
	LSM_HOOK_INIT(file_open, slim_file_open),
};

#ifdef SLIM_HAVE_LSM_ID
static const struct lsm_id slim_lsmid = {
	.name = "slim",
	.id = LSM_ID_UNDEF,
};
#define SLIM_LSM_ID (&slim_lsmid)
#else
#define SLIM_LSM_ID "slim"
#endif

static int __init slim_lsm_init(void)
{
	security_add_hooks(slim_lattice_lsm_hooks,
			   ARRAY_SIZE(slim_lattice_lsm_hooks), SLIM_LSM_ID);
	security_add_hooks(slim_measure_lsm_hooks,
			   ARRAY_SIZE(slim_measure_lsm_hooks), SLIM_LSM_ID);
	return 0;
}

DEFINE_LSM(slim) = {
	.name = "slim",
	.init = slim_lsm_init,
};
