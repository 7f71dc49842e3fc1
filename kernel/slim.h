/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal interfaces of the slim module.
 */
#ifndef SLIM_H
#define SLIM_H

#include <linux/types.h>
#include <linux/fs.h>
#include <linux/cred.h>
#include <linux/binfmts.h>
#include <linux/hash_info.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>

/* IMA hook identifiers used by the policy (values are ours). */
enum slim_func {
	SLIM_FUNC_NONE = 0,
	SLIM_BPRM_CHECK,
	SLIM_MMAP_CHECK,
	SLIM_FILE_CHECK,
	SLIM_FUNC_MAX,
};

/* What the atomic-context hook asks the sleepable worker to do. */
#define SLIM_DO_MEASURE		0x01
#define SLIM_DO_OPEN_WRITERS	0x02
#define SLIM_DO_TOMTOU		0x04

/* main.c */
#define SLIM_VERSION "0.2"
extern unsigned int slim_pcr;
bool slim_is_active(void);

/* measure_hooks.c: measurement's hook functions, LSM hook signatures */
int slim_bprm_check_security(struct linux_binprm *bprm);
int slim_mmap_file(struct file *file, unsigned long reqprot,
		   unsigned long prot, unsigned long flags);
int slim_file_open(struct file *file);

/* attach_ftrace.c: how the hooks are reached on a stock kernel */
int slim_attach(void);
void slim_detach(void);

/* measure.c */
int slim_measure_init(void);
void slim_measure_wait(void);
void slim_measure_exit(void);
int slim_queue(struct file *file, enum slim_func func, int mask,
	       unsigned int todo);
bool slim_guard_active(void);
bool slim_cache_must_measure(struct inode *inode);
void slim_cache_mark_dirty(struct inode *inode);

/* policy.c */
int slim_policy_init(void);
void slim_policy_exit(void);
bool slim_policy_match(struct inode *inode, const struct cred *cred,
		       enum slim_func func, int mask);
int slim_policy_parse(const char *text, size_t len, void **out);
void slim_policy_replace(void *newp);
void slim_policy_free(void *p);
struct seq_file;
void slim_policy_show(struct seq_file *m);
const char *slim_policy_default_text(size_t *len);

/* list.c */
#define SLIM_TEMPLATE_NAME "ima-ng"
#define SLIM_DNG_LEN (sizeof("sha256:") + SHA256_DIGEST_SIZE)
int slim_list_init(void);
void slim_list_exit(void);
int slim_list_add_file(const u8 *sha256, const char *name);
int slim_list_add_violation(const char *name);
#define SLIM_EVENT_NAME "slim_event"
#define SLIM_EVENT_MAX 1024
int slim_list_add_event(u8 *buf, u32 len);
struct slim_entry {
	struct list_head list;
	struct hlist_node hnode;
	bool buf_template;	/* ima-buf (an event record), else ima-ng */
	u32 pcr;
	u8 digest[SHA1_DIGEST_SIZE];
	u32 len;
	u8 data[];
};
extern struct list_head slim_entries;
extern atomic_long_t slim_entry_count;
extern atomic_long_t slim_violation_count;

/* fs.c */
int slim_fs_init(void);
struct dentry *slim_fs_dir(void);
void slim_securityfs_remove(struct dentry *d);
void slim_fs_exit(void);

/*
 * the lattice: levels (lattice_label.c), mode (lattice_mode.c), denials and
 * counters (lattice_report.c), task and IPC object levels (lattice_task.c),
 * inode labels (lattice_inode.c)
 */
enum slim_integrity {
	SLIM_I_UNTRUSTED, SLIM_I_USER, SLIM_I_SYSTEM,
	SLIM_I_NONE,		/* no guard floor */
};

enum slim_secrecy {
	SLIM_S_PUBLIC, SLIM_S_USER, SLIM_S_USER_SENSITIVE,
	SLIM_S_SYSTEM_SENSITIVE,
	SLIM_S_NONE,		/* no guard floor */
};

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

enum slim_mode { SLIM_MODE_OFF, SLIM_MODE_PERMISSIVE, SLIM_MODE_ENFORCE };

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
	SLIM_RULE_META, SLIM_RULE_MAPPED,
};

/* what a task read from (the demotion record's cause, docs/lattice-events.md) */
enum slim_cause {
	SLIM_CAUSE_FILE = 1, SLIM_CAUSE_IP, SLIM_CAUSE_PROCESS,
	SLIM_CAUSE_PIPE, SLIM_CAUSE_UNIX, SLIM_CAUSE_SHM, SLIM_CAUSE_MSG,
	SLIM_CAUSE_MQUEUE,
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
	SLIM_C_MAX,
};

#define SLIM_XATTR "security.slim"
#define SLIM_LABEL_MAX 96
#define SLIM_EVM_XATTR "security.slim.evm"
#define SLIM_EVM_TYPE 0x02	/* EVM_XATTR_HMAC */
#define SLIM_EVM_LEN (1 + SHA256_DIGEST_SIZE)
#define SLIM_EVM_KEY_LEN 32

enum slim_evm_status {
	SLIM_EVM_NOKEY, SLIM_EVM_OK, SLIM_EVM_MISSING, SLIM_EVM_FAIL,
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
struct slim_level slim_obj_level(const void *obj);
int slim_obj_lower(const void *obj, const struct slim_level *l, gfp_t gfp);
void slim_obj_forget(const void *obj);

/* lattice_inode.c: inode labels */
void slim_inode_state_exit(void);
void slim_inode_level_strict(const struct inode *inode, struct slim_level *out);
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

/* evm.c: HMAC of the protected xattrs and metadata */
int slim_evm_init(void);
void slim_evm_exit(void);
bool slim_evm_has_key(void);
bool slim_evm_demote(void);
int slim_evm_load_key(const char *desc);
int slim_evm_calc(struct dentry *dentry, struct inode *inode,
		  u8 out[SHA256_DIGEST_SIZE]);
enum slim_evm_status slim_evm_verify(struct dentry *dentry,
				     struct inode *inode);
int slim_evm_write(struct dentry *dentry, struct inode *inode, void *idmap);

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

/* attach_kprobe.c: where received data arrives (return probes) */
int slim_kprobes_init(void);
void slim_kprobes_exit(void);

/* attach_fsnotify.c: the sleepable open hook (fsnotify permission events) */
int slim_watch_init(void);
void slim_watch_exit(void);
int slim_watch_path(const char *path);
struct seq_file;
void slim_watch_show(struct seq_file *m);

/* events.c: the lattice's event records in the list */
int slim_events_init(bool lock);
void slim_events_exit(void);
void slim_event_demotion(struct task_struct *task, enum slim_cause cause,
			 const struct path *path, const struct slim_level *t,
			 unsigned int integ, unsigned int secr, gfp_t gfp);
void slim_event_missed(void);
void slim_event_relabel(const struct path *path, const char *old,
			const char *new);
void slim_event_mode(int old, int mode);
void slim_event_policy(const char *text, size_t len, bool written);
void slim_event_policy_digest(u8 out[SHA256_DIGEST_SIZE]);
void slim_event_evm_key(void);

/* lattice_fs.c: securityfs files of the lattice */
int slim_lattice_fs_init(struct dentry *dir);
void slim_lattice_fs_exit(void);

#endif /* SLIM_H */
