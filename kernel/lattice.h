/* SPDX-License-Identifier: GPL-2.0 */
/*
 * the SLIM lattice: levels and labels, mode, counters and denials, the
 * state of tasks, IPC objects and inodes, the rules (lattice_hooks.c,
 * lattice_ipc.c, lattice_splice.c) and their securityfs files.
 */
#ifndef SLIM_LATTICE_H
#define SLIM_LATTICE_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <crypto/sha2.h>
#include "slim_wire.h"

struct task_struct;
struct inode;
struct dentry;
struct path;
struct file;
struct super_block;
struct linux_binprm;
struct cred;

/*
 * the lattice: levels (lattice_label.c), mode (lattice_mode.c), denials and
 * counters (lattice_report.c), task and IPC object levels (lattice_task.c),
 * inode labels (lattice_inode.c)
 */
/*
 * Levels of a task or a file. gread: a guard (sanitizer) reads objects
 * down to this integrity without demotion; gwrite: a guard (declassifier)
 * writes objects down to this secrecy. Only programs carry guards; a task
 * takes them from the label of the program it executes.
 */
struct slim_level {
	u8 integ;
	u8 secr;
	u8 gread;
	u8 gwrite;
};

enum slim_label_source {
	SLIM_SRC_DEFAULT,	/* no security.slim: the default label */
	SLIM_SRC_XATTR,		/* read from security.slim */
	SLIM_SRC_MEMORY,	/* set by the module on a fs without xattrs */
	SLIM_SRC_BAD,		/* unreadable label: UNTRUSTED */
	SLIM_SRC_EVM_FAIL,	/* label with a missing or wrong HMAC */
};

enum slim_denial {
	SLIM_RULE_WRITE_UP, SLIM_RULE_WRITE_DOWN, SLIM_RULE_SEND,
	SLIM_RULE_LABEL, SLIM_RULE_NOMEM, SLIM_RULE_EVM,
	SLIM_RULE_PTRACE, SLIM_RULE_PTRACE_DOWN, SLIM_RULE_SIGNAL,
	SLIM_RULE_META, SLIM_RULE_MAPPED, SLIM_RULE_DIR, SLIM_RULE_CONFINE,
	SLIM_RULE_MULTICAST, SLIM_RULE_SIGNAL_DOWN,
};

enum slim_counter {
	SLIM_C_DEMOTE, SLIM_C_RAISE, SLIM_C_DEMOTE_RECV, SLIM_C_GUARD_READ,
	SLIM_C_DENY_WRITE_UP, SLIM_C_DENY_WRITE_DOWN, SLIM_C_DENY_SEND,
	SLIM_C_DENY_XATTR, SLIM_C_DENY_NOMEM, SLIM_C_PERMITTED,
	SLIM_C_BAD_LABEL, SLIM_C_LABEL_NEW, SLIM_C_RELABEL, SLIM_C_UNWATCHED,
	SLIM_C_EVM_VERIFIED, SLIM_C_EVM_FAILED, SLIM_C_EVM_MISSING,
	SLIM_C_EVM_UNVERIFIED, SLIM_C_DENY_EVM,
	SLIM_C_EV_WRITTEN, SLIM_C_EV_DROPPED,
	SLIM_C_TASKS, SLIM_C_INODES, SLIM_C_OBJECTS,
	SLIM_C_DEMOTE_IPC, SLIM_C_DENY_PTRACE, SLIM_C_DENY_SIGNAL,
	SLIM_C_DENY_META, SLIM_C_DENY_MAPPED, SLIM_C_IPC_MISSED,
	SLIM_C_DENY_CONFINE, SLIM_C_DENY_SWITCH_OFF, SLIM_C_STALE,
	SLIM_C_MAX,
};


extern int slim_mode;
extern struct slim_level slim_default_level;
extern const struct slim_level slim_initial_level;
extern atomic_long_t slim_counters[SLIM_C_MAX];

static inline void slim_count(enum slim_counter c)
{
	atomic_long_inc(&slim_counters[c]);
}

/* lattice_mode.c: mode and default label */
int slim_lattice_init(void);
int slim_mode_parse(const char *s);
const char *slim_mode_name(int mode);

/* lattice_label.c: level names, label grammar */
const char *slim_integ_name(unsigned int integ);
const char *slim_secr_name(unsigned int secr);
int slim_label_parse(const char *s, size_t len, struct slim_level *out);
int slim_label_format(const struct slim_level *l, char *buf, size_t size);

/* lattice_report.c: counters, denials and log lines */
const char *slim_counter_name(int c);
#define SLIM_NAME_MAX 256
bool slim_log_ok(void);
const char *slim_objname(const struct path *path, const struct dentry *dentry,
			 char *buf, int size);
const char *slim_cause_name(enum slim_cause cause);
int slim_deny_named(enum slim_denial rule, const char *kind, const char *what,
		    const struct slim_level *task, const struct slim_level *obj);
int slim_deny(enum slim_denial rule, const struct path *path,
	      const struct dentry *dentry, const struct slim_level *task,
	      const struct slim_level *obj);

/* lattice_task.c: levels of tasks and IPC objects */
void slim_task_state_exit(void);
struct slim_level slim_task_level(const struct task_struct *t);
int slim_task_inherit(const struct task_struct *child,
		      const struct task_struct *parent, gfp_t gfp);
void slim_task_forget(const struct task_struct *t);
int slim_group_lower(struct task_struct *task, unsigned int integ,
		     unsigned int secr, gfp_t gfp);
int slim_task_set_guards(const struct task_struct *t, unsigned int gread,
			 unsigned int gwrite, gfp_t gfp);
void slim_guards_at_load(void);
struct slim_level slim_obj_level(const void *obj);
int slim_obj_lower(const void *obj, const struct slim_level *l, gfp_t gfp);
void slim_obj_forget(const void *obj);

/* lattice_inode.c: inode labels */
void slim_inode_state_exit(void);
bool slim_inode_level_strict(const struct inode *inode, struct slim_level *out);
enum slim_label_source slim_inode_level(const struct inode *inode,
					struct slim_level *out);
enum slim_label_source slim_inode_load(struct dentry *dentry,
				       struct inode *inode,
				       struct slim_level *out);
void slim_inode_set(const struct inode *inode, const struct slim_level *l,
		    enum slim_label_source src, gfp_t gfp);
void slim_inode_stale(const struct inode *inode);
void slim_inode_stale_all(void);
void slim_inode_forget(const struct inode *inode);
bool slim_sb_labeled(const struct super_block *sb);

/* lattice_hooks.c: the lattice rules, with LSM hook signatures */
struct socket;
struct msghdr;
bool slim_lattice_on(void);
int slim_lattice_file_open(struct file *file);
int slim_file_permission(struct file *file, int mask);
int slim_lattice_mmap(struct file *file, unsigned long reqprot,
		      unsigned long prot, unsigned long flags);
int slim_socket_sendmsg(struct socket *sock, struct msghdr *msg, int size);
int slim_socket_recvmsg(struct socket *sock, struct msghdr *msg, int size,
			int flags);
int slim_task_alloc(struct task_struct *task, unsigned long clone_flags);
void slim_task_free(struct task_struct *task);
void slim_bprm_committed_creds(const struct linux_binprm *bprm);
int slim_inode_setxattr(struct dentry *dentry, const char *name);
int slim_lattice_inode_setattr(struct dentry *dentry);
void slim_inode_free_security(struct inode *inode);
int slim_relabel(const char *path, const struct slim_level *l);
bool slim_lattice_task(void);
bool slim_lattice_file(const struct file *file);
int slim_check_write(const struct path *path, const struct slim_level *t,
		     const struct slim_level *obj);
int slim_read_from(struct task_struct *task, enum slim_cause cause,
		   const struct path *path, const struct slim_level *t,
		   const struct slim_level *obj, gfp_t gfp);
int slim_read_object(struct task_struct *task, const char *what,
		     const struct slim_level *t, const struct slim_level *obj,
		     gfp_t gfp);
struct slim_level slim_written_level(const struct slim_level *t);

/* lattice_ipc.c: pipes, UNIX sockets, SysV IPC, processes, metadata */
struct vm_area_struct;
struct kern_ipc_perm;
struct msg_msg;
struct kernel_siginfo;
struct sock;
int slim_pipe_write(struct file *file);
int slim_pipe_read_done(struct file *file, gfp_t gfp);
int slim_unix_sendmsg(struct socket *sock);
int slim_unix_may_send(struct socket *sock, struct socket *other);
int slim_unix_recv_done(struct sock *sk);
void slim_sk_free(struct sock *sk);
int slim_shm_alloc(struct kern_ipc_perm *perm);
void slim_ipc_free(const void *obj);
int slim_shm_shmat(struct kern_ipc_perm *perm, char __user *shmaddr,
		   int shmflg);
int slim_msg_msgsnd(struct kern_ipc_perm *perm, struct msg_msg *msg,
		    int msqflg);
int slim_msg_msgrcv(struct kern_ipc_perm *perm, struct msg_msg *msg,
		    struct task_struct *target, long type, int mode);
int slim_ptrace_access(struct task_struct *child, unsigned int mode);
int slim_ptrace_traceme(struct task_struct *parent);
int slim_task_kill(struct task_struct *p, struct kernel_siginfo *info,
		   int sig, const struct cred *cred);
void slim_file_set_fowner(struct file *file);
int slim_file_send_sigiotask(struct task_struct *p, struct file *file);
void slim_file_free(struct file *file);
int slim_file_mprotect(struct vm_area_struct *vma, unsigned long reqprot,
		       unsigned long prot);
int slim_inode_change(struct dentry *dentry);
int slim_inode_unlink(struct inode *dir, struct dentry *dentry);
int slim_inode_rename(struct inode *old_dir, struct dentry *old,
		      struct inode *new_dir, struct dentry *new);

/* lattice_splice.c: splice, tee, vmsplice; POSIX messages */
extern const struct slim_level slim_ip_level;
int slim_pipe_info(struct file *file, bool for_splice);
int slim_splice(struct file *in, struct file *out);
int slim_msg_alloc(struct msg_msg *msg);
int slim_msg_store(struct msg_msg *msg);
int slim_sock_sendpage(struct file *file);

/* lattice_data.c: the remaining data paths (issue 40) */
int slim_shared_write(struct file *file);

/* lattice_fs.c: securityfs files of the lattice */
int slim_lattice_fs_init(struct dentry *dir);
void slim_lattice_fs_exit(void);

#endif /* SLIM_LATTICE_H */
