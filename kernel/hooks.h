/* SPDX-License-Identifier: GPL-2.0 */
/*
 * the core's hook table (core.c).
 *
 * Each concern (the lattice's files, measurement) declares the hooks it
 * implements in one list at the end of its file, with SLIM_HOOK_INIT()
 * as an LSM uses LSM_HOOK_INIT(), and gives it to slim_add_hooks() from
 * its *_add_hooks() function. slim_hooks_init() adds the concerns in the
 * order their rules run for every hook, as LSM stacking orders them: the
 * lattice (it may deny), then measurement; last, the bookkeeping of the
 * attach layer that reaches the sleepable open hook. The attach layers
 * (attach_ftrace.c, attach_kprobe.c, attach_fsnotify.c) decode a traced
 * call's arguments and call slim_hook_NAME(), which runs the hook's rules
 * in that order and returns the first error.
 */
#ifndef SLIM_HOOKS_H
#define SLIM_HOOKS_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/key.h>

struct linux_binprm;
struct file;
struct vm_area_struct;
struct task_struct;
struct dentry;
struct inode;
struct super_block;
struct kernel_siginfo;
struct cred;
struct socket;
struct msghdr;
struct sock;
struct kern_ipc_perm;
struct msg_msg;
struct path;
struct vfsmount;
struct key;
struct sembuf;
struct qstr;

/*
 * Every hook of the module. The name is the LSM hook's, or the traced
 * function's for the few that are not LSM hooks. The arguments (union
 * slim_hook_fn) are the LSM hook's, except where a hook takes only those
 * it uses ("used args"): the others differ in type between the kernels
 * (an idmap, a user namespace) and are not used.
 */
enum slim_hook_id {
	/* files */
	SLIM_HOOK_bprm_check_security,
	SLIM_HOOK_bprm_committed_creds,
	SLIM_HOOK_mmap_file,
	SLIM_HOOK_file_open,
	SLIM_HOOK_file_permission,
	SLIM_HOOK_file_mprotect,
	SLIM_HOOK_file_set_fowner,
	/* used args: the task and the file whose owner is @fown */
	SLIM_HOOK_file_send_sigiotask,
	SLIM_HOOK_file_free_security,
	/* used args, the next five: the dentry (and the xattr's name) */
	SLIM_HOOK_inode_setxattr,
	SLIM_HOOK_inode_removexattr,
	SLIM_HOOK_inode_setattr,
	SLIM_HOOK_inode_set_acl,
	SLIM_HOOK_inode_remove_acl,
	SLIM_HOOK_inode_unlink,
	SLIM_HOOK_inode_rename,
	SLIM_HOOK_inode_free_security,
	SLIM_HOOK_sb_kern_mount,
	/* tasks */
	SLIM_HOOK_task_alloc,
	SLIM_HOOK_task_free,
	SLIM_HOOK_task_kill,
	SLIM_HOOK_ptrace_access_check,
	SLIM_HOOK_ptrace_traceme,
	/* sockets and IPC */
	SLIM_HOOK_socket_sendmsg,
	SLIM_HOOK_socket_recvmsg,
	SLIM_HOOK_unix_may_send,
	SLIM_HOOK_sk_free_security,
	SLIM_HOOK_shm_alloc_security,
	SLIM_HOOK_shm_free_security,
	SLIM_HOOK_shm_shmat,
	SLIM_HOOK_msg_msg_alloc_security,
	SLIM_HOOK_msg_msg_free_security,
	SLIM_HOOK_msg_queue_msgsnd,
	SLIM_HOOK_msg_queue_msgrcv,
	/*
	 * Not LSM hooks. file_open_perm: the sleepable open (an fsnotify
	 * permission event, after the LSMs); get_pipe_info, do_splice,
	 * store_msg, sock_sendpage (6.1 only): traced functions that reach
	 * no LSM hook (used args); pipe_read_done, unix_recv_done: the
	 * return of a read that took data from a pipe or a UNIX socket.
	 */
	SLIM_HOOK_file_open_perm,
	SLIM_HOOK_get_pipe_info,
	SLIM_HOOK_do_splice,
	SLIM_HOOK_store_msg,
	SLIM_HOOK_sock_sendpage,
	SLIM_HOOK_pipe_read_done,
	SLIM_HOOK_unix_recv_done,
	/*
	 * directories (lattice_dir.c). dir_created: not an LSM hook, a
	 * directory just made (fsnotify's create event, sleepable)
	 */
	SLIM_HOOK_inode_create,
	SLIM_HOOK_inode_link,
	SLIM_HOOK_inode_symlink,
	SLIM_HOOK_inode_mkdir,
	SLIM_HOOK_inode_mknod,
	SLIM_HOOK_inode_rmdir,
	SLIM_HOOK_dir_created,
	/*
	 * What a task below SYSTEM integrity may not do to the system, and
	 * switching the module off (lattice_confine.c). LSM hooks (used args:
	 * bpf's command, sb_mount's first four), then traced functions that
	 * reach no LSM hook: sys_confined, the entry of a system call that
	 * has none (swapon, swapoff, fsopen, fsmount, fspick, mount_setattr);
	 * delete_module, its system call; kprobes_enabled_write, the write
	 * handler of debugfs kprobes/enabled.
	 */
	SLIM_HOOK_locked_down,
	SLIM_HOOK_kernel_read_file,
	SLIM_HOOK_kernel_load_data,
	SLIM_HOOK_bpf,
	SLIM_HOOK_sb_mount,
	SLIM_HOOK_sb_umount,
	SLIM_HOOK_sb_pivotroot,
	SLIM_HOOK_move_mount,
	SLIM_HOOK_file_ioctl,
	SLIM_HOOK_file_ioctl_compat,
	SLIM_HOOK_sys_confined,
	SLIM_HOOK_delete_module,
	SLIM_HOOK_kprobes_enabled_write,
	/*
	 * the remaining data paths (lattice_data.c). netlink_attachskb: a
	 * traced function (used args: the receiving and the sending sock);
	 * sock_recv_done, file_read_done: the return of a netlink_recvmsg(),
	 * eventfd_read() or tty_read() that returned data.
	 */
	SLIM_HOOK_socket_getsockopt,
	SLIM_HOOK_key_alloc,
	SLIM_HOOK_key_free,
	SLIM_HOOK_key_permission,
	SLIM_HOOK_sem_alloc_security,
	SLIM_HOOK_sem_free_security,
	SLIM_HOOK_sem_semop,
	SLIM_HOOK_sem_semctl,
	SLIM_HOOK_inode_getxattr,
	SLIM_HOOK_inode_init_security_anon,
	SLIM_HOOK_netlink_attachskb,
	SLIM_HOOK_sock_recv_done,
	SLIM_HOOK_file_read_done,
	SLIM_NHOOKS,
};

union slim_hook_fn {
	int (*bprm_check_security)(struct linux_binprm *bprm);
	void (*bprm_committed_creds)(const struct linux_binprm *bprm);
	int (*mmap_file)(struct file *file, unsigned long reqprot,
		unsigned long prot, unsigned long flags);
	int (*file_open)(struct file *file);
	int (*file_permission)(struct file *file, int mask);
	int (*file_mprotect)(struct vm_area_struct *vma, unsigned long reqprot,
		unsigned long prot);
	void (*file_set_fowner)(struct file *file);
	int (*file_send_sigiotask)(struct task_struct *tsk, struct file *file);
	void (*file_free_security)(struct file *file);
	int (*inode_setxattr)(struct dentry *dentry, const char *name);
	int (*inode_removexattr)(struct dentry *dentry, const char *name);
	int (*inode_setattr)(struct dentry *dentry);
	int (*inode_set_acl)(struct dentry *dentry);
	int (*inode_remove_acl)(struct dentry *dentry);
	int (*inode_unlink)(struct inode *dir, struct dentry *dentry);
	int (*inode_rename)(struct inode *old_dir, struct dentry *old_dentry,
		struct inode *new_dir, struct dentry *new_dentry);
	void (*inode_free_security)(struct inode *inode);
	int (*sb_kern_mount)(struct super_block *sb);
	int (*task_alloc)(struct task_struct *task, unsigned long clone_flags);
	void (*task_free)(struct task_struct *task);
	int (*task_kill)(struct task_struct *p, struct kernel_siginfo *info,
		int sig, const struct cred *cred);
	int (*ptrace_access_check)(struct task_struct *child,
		unsigned int mode);
	int (*ptrace_traceme)(struct task_struct *parent);
	int (*socket_sendmsg)(struct socket *sock, struct msghdr *msg,
		int size);
	int (*socket_recvmsg)(struct socket *sock, struct msghdr *msg, int size,
		int flags);
	int (*unix_may_send)(struct socket *sock, struct socket *other);
	void (*sk_free_security)(struct sock *sk);
	int (*shm_alloc_security)(struct kern_ipc_perm *perm);
	void (*shm_free_security)(struct kern_ipc_perm *perm);
	int (*shm_shmat)(struct kern_ipc_perm *perm, char __user *shmaddr,
		int shmflg);
	int (*msg_msg_alloc_security)(struct msg_msg *msg);
	void (*msg_msg_free_security)(struct msg_msg *msg);
	int (*msg_queue_msgsnd)(struct kern_ipc_perm *perm, struct msg_msg *msg,
		int msqflg);
	int (*msg_queue_msgrcv)(struct kern_ipc_perm *perm, struct msg_msg *msg,
		struct task_struct *target, long type, int mode);
	int (*file_open_perm)(struct file *file);
	int (*get_pipe_info)(struct file *file, bool for_splice);
	int (*do_splice)(struct file *in, struct file *out);
	int (*store_msg)(struct msg_msg *msg);
	int (*sock_sendpage)(struct file *file);
	int (*pipe_read_done)(struct file *file, gfp_t gfp);
	int (*unix_recv_done)(struct sock *sk);
	/* directories: used args (the mode, the target, the device unused) */
	int (*inode_create)(struct inode *dir, struct dentry *dentry);
	int (*inode_link)(struct dentry *old_dentry, struct inode *dir,
		struct dentry *new_dentry);
	int (*inode_symlink)(struct inode *dir, struct dentry *dentry);
	int (*inode_mkdir)(struct inode *dir, struct dentry *dentry);
	int (*inode_mknod)(struct inode *dir, struct dentry *dentry);
	int (*inode_rmdir)(struct inode *dir, struct dentry *dentry);
	int (*dir_created)(struct inode *inode);
	int (*locked_down)(int what);
	int (*kernel_read_file)(struct file *file, int id, bool contents);
	int (*kernel_load_data)(int id, bool contents);
	int (*bpf)(int cmd);
	int (*sb_mount)(const char *dev_name, const struct path *path,
		const char *type, unsigned long flags);
	int (*sb_umount)(struct vfsmount *mnt, int flags);
	int (*sb_pivotroot)(const struct path *old_path,
		const struct path *new_path);
	int (*move_mount)(const struct path *from_path,
		const struct path *to_path);
	int (*file_ioctl)(struct file *file, unsigned int cmd,
		unsigned long arg);
	int (*file_ioctl_compat)(struct file *file, unsigned int cmd,
		unsigned long arg);
	int (*sys_confined)(const char *what);
	int (*delete_module)(const char __user *name, unsigned int flags);
	int (*kprobes_enabled_write)(const char __user *buf, size_t count);
	int (*socket_getsockopt)(struct socket *sock, int level, int optname);
	int (*key_alloc)(struct key *key, const struct cred *cred,
			 unsigned long flags);
	void (*key_free)(struct key *key);
	int (*key_permission)(key_ref_t key_ref, const struct cred *cred,
			      enum key_need_perm need_perm);
	int (*sem_alloc_security)(struct kern_ipc_perm *perm);
	void (*sem_free_security)(struct kern_ipc_perm *perm);
	int (*sem_semop)(struct kern_ipc_perm *perm, struct sembuf *sops,
			 unsigned int nsops, int alter);
	int (*sem_semctl)(struct kern_ipc_perm *perm, int cmd);
	int (*inode_getxattr)(struct dentry *dentry, const char *name);
	int (*inode_init_security_anon)(struct inode *inode,
					const struct qstr *name,
					const struct inode *context_inode);
	int (*netlink_attachskb)(struct sock *sk, struct sock *ssk);
	int (*sock_recv_done)(struct sock *sk);
	int (*file_read_done)(struct file *file);
};

struct slim_hook {
	enum slim_hook_id id;
	union slim_hook_fn fn;
};

#define SLIM_HOOK_INIT(NAME, FUNC) \
	{ .id = SLIM_HOOK_##NAME, .fn = { .NAME = FUNC } }

int slim_add_hooks(const struct slim_hook *hooks, unsigned int n,
		   const char *concern);
int slim_hooks_init(void);

/*
 * each concern's list: the lattice (lattice_hooks.c, lattice_ipc.c,
 * lattice_splice.c, lattice_data.c), measurement (measure_hooks.c), and the sleepable
 * open's own bookkeeping (attach_fsnotify.c: which superblocks it watches)
 */
int slim_lattice_file_add_hooks(void);
int slim_lattice_ipc_add_hooks(void);
int slim_lattice_splice_add_hooks(void);
int slim_lattice_dir_add_hooks(void);
int slim_lattice_data_add_hooks(void);
int slim_measure_add_hooks(void);
int slim_watch_add_hooks(void);
int slim_lattice_confine_add_hooks(void);

/* what the attach layers call: the hook's rules, in order (core.c) */
int slim_hook_bprm_check_security(struct linux_binprm *bprm);
void slim_hook_bprm_committed_creds(const struct linux_binprm *bprm);
int slim_hook_mmap_file(struct file *file, unsigned long reqprot,
			unsigned long prot, unsigned long flags);
int slim_hook_file_open(struct file *file);
int slim_hook_file_permission(struct file *file, int mask);
int slim_hook_file_mprotect(struct vm_area_struct *vma, unsigned long reqprot,
			    unsigned long prot);
void slim_hook_file_set_fowner(struct file *file);
int slim_hook_file_send_sigiotask(struct task_struct *tsk, struct file *file);
void slim_hook_file_free_security(struct file *file);
int slim_hook_inode_setxattr(struct dentry *dentry, const char *name);
int slim_hook_inode_removexattr(struct dentry *dentry, const char *name);
int slim_hook_inode_setattr(struct dentry *dentry);
int slim_hook_inode_set_acl(struct dentry *dentry);
int slim_hook_inode_remove_acl(struct dentry *dentry);
int slim_hook_inode_unlink(struct inode *dir, struct dentry *dentry);
int slim_hook_inode_rename(struct inode *old_dir, struct dentry *old_dentry,
			   struct inode *new_dir, struct dentry *new_dentry);
void slim_hook_inode_free_security(struct inode *inode);
int slim_hook_sb_kern_mount(struct super_block *sb);
int slim_hook_task_alloc(struct task_struct *task, unsigned long clone_flags);
void slim_hook_task_free(struct task_struct *task);
int slim_hook_task_kill(struct task_struct *p, struct kernel_siginfo *info,
			int sig, const struct cred *cred);
int slim_hook_ptrace_access_check(struct task_struct *child, unsigned int mode);
int slim_hook_ptrace_traceme(struct task_struct *parent);
int slim_hook_socket_sendmsg(struct socket *sock, struct msghdr *msg, int size);
int slim_hook_socket_recvmsg(struct socket *sock, struct msghdr *msg, int size,
			     int flags);
int slim_hook_unix_may_send(struct socket *sock, struct socket *other);
void slim_hook_sk_free_security(struct sock *sk);
int slim_hook_shm_alloc_security(struct kern_ipc_perm *perm);
void slim_hook_shm_free_security(struct kern_ipc_perm *perm);
int slim_hook_shm_shmat(struct kern_ipc_perm *perm, char __user *shmaddr,
			int shmflg);
int slim_hook_msg_msg_alloc_security(struct msg_msg *msg);
void slim_hook_msg_msg_free_security(struct msg_msg *msg);
int slim_hook_msg_queue_msgsnd(struct kern_ipc_perm *perm, struct msg_msg *msg,
			       int msqflg);
int slim_hook_msg_queue_msgrcv(struct kern_ipc_perm *perm, struct msg_msg *msg,
			       struct task_struct *target, long type, int mode);
int slim_hook_file_open_perm(struct file *file);
int slim_hook_get_pipe_info(struct file *file, bool for_splice);
int slim_hook_do_splice(struct file *in, struct file *out);
int slim_hook_store_msg(struct msg_msg *msg);
int slim_hook_sock_sendpage(struct file *file);
int slim_hook_pipe_read_done(struct file *file, gfp_t gfp);
int slim_hook_unix_recv_done(struct sock *sk);
int slim_hook_inode_create(struct inode *dir, struct dentry *dentry);
int slim_hook_inode_link(struct dentry *old_dentry, struct inode *dir,
			 struct dentry *new_dentry);
int slim_hook_inode_symlink(struct inode *dir, struct dentry *dentry);
int slim_hook_inode_mkdir(struct inode *dir, struct dentry *dentry);
int slim_hook_inode_mknod(struct inode *dir, struct dentry *dentry);
int slim_hook_inode_rmdir(struct inode *dir, struct dentry *dentry);
int slim_hook_dir_created(struct inode *inode);
int slim_hook_locked_down(int what);
int slim_hook_kernel_read_file(struct file *file, int id, bool contents);
int slim_hook_kernel_load_data(int id, bool contents);
int slim_hook_bpf(int cmd);
int slim_hook_sb_mount(const char *dev_name, const struct path *path,
		       const char *type, unsigned long flags);
int slim_hook_sb_umount(struct vfsmount *mnt, int flags);
int slim_hook_sb_pivotroot(const struct path *old_path,
			   const struct path *new_path);
int slim_hook_move_mount(const struct path *from_path,
			 const struct path *to_path);
int slim_hook_file_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg);
int slim_hook_file_ioctl_compat(struct file *file, unsigned int cmd,
				unsigned long arg);
int slim_hook_sys_confined(const char *what);
int slim_hook_delete_module(const char __user *name, unsigned int flags);
int slim_hook_kprobes_enabled_write(const char __user *buf, size_t count);
int slim_hook_socket_getsockopt(struct socket *sock, int level, int optname);
int slim_hook_key_alloc(struct key *key, const struct cred *cred,
			unsigned long flags);
void slim_hook_key_free(struct key *key);
int slim_hook_key_permission(key_ref_t key_ref, const struct cred *cred,
			     enum key_need_perm need_perm);
int slim_hook_sem_alloc_security(struct kern_ipc_perm *perm);
void slim_hook_sem_free_security(struct kern_ipc_perm *perm);
int slim_hook_sem_semop(struct kern_ipc_perm *perm, struct sembuf *sops,
			unsigned int nsops, int alter);
int slim_hook_sem_semctl(struct kern_ipc_perm *perm, int cmd);
int slim_hook_inode_getxattr(struct dentry *dentry, const char *name);
int slim_hook_inode_init_security_anon(struct inode *inode,
				       const struct qstr *name,
				       const struct inode *context_inode);
int slim_hook_netlink_attachskb(struct sock *sk, struct sock *ssk);
int slim_hook_sock_recv_done(struct sock *sk);
int slim_hook_file_read_done(struct file *file);

/*
 * What an attach layer offers the rules, through the core (the rules do
 * not call the attach layers): a look at the reads whose return a probe
 * missed (attach_kprobe.c), each function's count since the last look
 * handed to @report.
 */
typedef void (*slim_missed_fn)(unsigned long missed);
typedef void (*slim_poll_fn)(slim_missed_fn report);
void slim_set_missed_poll(slim_poll_fn poll);
void slim_poll_missed(slim_missed_fn report);

#endif /* SLIM_HOOKS_H */
