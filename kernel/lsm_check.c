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
 * (get_pipe_info, do_splice, store_msg, sock_sendpage; the returns of
 * pipe and UNIX socket reads). The hooks that take only the arguments they
 * use get a line of adapter each, as in attach_ftrace.c.
 */
#include <linux/lsm_hooks.h>
#include <linux/binfmts.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include "measure.h"
#include "lattice.h"
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

/* lattice_hooks.c, lattice_ipc.c, lattice_splice.c */
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
