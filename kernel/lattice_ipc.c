// SPDX-License-Identifier: GPL-2.0
/*
 * the lattice beyond files and IP sockets: what one process can pass to,
 * or do to, another.
 *
 *   pipes, FIFOs and UNIX sockets carry the levels of what was written
 *   into them (the lowest integrity, the highest secrecy): a write lowers
 *   the object, a read that returns data applies the object's levels to
 *   the reader as a file read does (attach_kprobe.c sees the data arrive,
 *   also for a reader that was already waiting when it was written);
 *   a SysV message carries its sender's levels to its receiver;
 *   a SysV segment keeps its creator's levels: attaching it is a read,
 *   attaching it writable also a write;
 *   ptrace, /proc/PID/mem and process_vm_{read,write}v (PTRACE_MODE_ATTACH)
 *   into a process of higher integrity or lower secrecy are refused, and
 *   the tracer reads the target; signals (but SIGCHLD) up in integrity are
 *   refused, as in LOMAC;
 *   truncate, chmod, chown, utimes, other xattrs, unlink and rename of a
 *   file of higher integrity are refused; mprotect(PROT_WRITE) of a shared
 *   mapping is a write.
 *
 * Every function here may run in atomic context (ftrace callbacks, return
 * probes): it decides from the cached levels.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/ptrace.h>
#include <linux/shm.h>
#include <uapi/linux/shm.h>
#include <linux/ipc.h>
#include <net/sock.h>
#include <net/af_unix.h>
#include "slim.h"
#include "lattice.h"
#include "events.h"
#include "hooks.h"

/*
 * Reads whose return a kretprobe missed (attach_kprobe.c): a demotion may
 * be missing, reported as a dropped lattice record and in ipc_missed.
 */
static void slim_ipc_missed(unsigned long missed)
{
	atomic_long_add(missed, &slim_counters[SLIM_C_IPC_MISSED]);
	slim_event_missed();
}

/* pipes and FIFOs: keyed by their inode (freed by the inode_free hook) */

int slim_pipe_write(struct file *file)
{
	struct slim_level t = slim_task_level(current);
	struct slim_level w = slim_written_level(&t);

	if (slim_obj_lower(file_inode(file), &w, GFP_ATOMIC))
		return slim_deny(SLIM_RULE_NOMEM, &file->f_path, NULL, &t, &t);
	return 0;
}

int slim_pipe_read_done(struct file *file, gfp_t gfp)
{
	struct slim_level t, obj;

	if (!slim_lattice_on() || !slim_lattice_task())
		return 0;
	slim_poll_missed(slim_ipc_missed);
	t = slim_task_level(current);
	obj = slim_obj_level(file_inode(file));
	return slim_read_from(current, SLIM_CAUSE_PIPE, &file->f_path, &t,
			      &obj, gfp);
}

/* UNIX sockets: the receiving struct sock (freed by the sk_free hook) */

static int slim_unix_mark(struct sock *receiver)
{
	struct slim_level t = slim_task_level(current);
	struct slim_level w = slim_written_level(&t);

	if (slim_obj_lower(receiver, &w, GFP_ATOMIC))
		return slim_deny_named(SLIM_RULE_NOMEM, "object",
				       slim_cause_name(SLIM_CAUSE_UNIX), &t, &t);
	return 0;
}

/*
 * Stream and seqpacket sockets send to their peer, which does not change
 * while the connection lasts (the sender holds its socket, which holds the
 * peer). Datagrams are marked in unix_may_send, which names the receiver.
 */
int slim_unix_sendmsg(struct socket *sock)
{
	struct sock *peer;

	if (sock->type == SOCK_DGRAM)
		return 0;
	peer = READ_ONCE(unix_sk(sock->sk)->peer);
	return peer ? slim_unix_mark(peer) : 0;
}

int slim_unix_may_send(struct socket *sock, struct socket *other)
{
	if (!slim_lattice_on() || !slim_lattice_task() || !other ||
	    !other->sk)
		return 0;
	return slim_unix_mark(other->sk);
}

int slim_unix_recv_done(struct sock *sk)
{
	struct slim_level t, obj;

	if (!slim_lattice_on() || !slim_lattice_task())
		return 0;
	slim_poll_missed(slim_ipc_missed);
	t = slim_task_level(current);
	obj = slim_obj_level(sk);
	return slim_read_from(current, SLIM_CAUSE_UNIX, NULL, &t, &obj,
			      GFP_ATOMIC);
}

void slim_sk_free(struct sock *sk)
{
	if (slim_is_active() && sk && sk->sk_family == AF_UNIX)
		slim_obj_forget(sk);
}

/* SysV shared memory and messages */

/* a segment keeps the levels of its creator */
int slim_shm_alloc(struct kern_ipc_perm *perm)
{
	struct slim_level t, w;

	if (!slim_lattice_on() || !slim_lattice_task())
		return 0;
	t = slim_task_level(current);
	w = slim_written_level(&t);
	if (slim_obj_lower(perm, &w, GFP_ATOMIC))
		return slim_deny_named(SLIM_RULE_NOMEM, "object",
				       slim_cause_name(SLIM_CAUSE_SHM), &t, &t);
	return 0;
}

/* a segment, a message: gone */
void slim_ipc_free(const void *obj)
{
	if (slim_is_active() && obj)
		slim_obj_forget(obj);
}

int slim_shm_shmat(struct kern_ipc_perm *perm, char __user *shmaddr,
		   int shmflg)
{
	const char *what = slim_cause_name(SLIM_CAUSE_SHM);
	struct slim_level t, obj;
	int rc;

	if (!slim_lattice_on() || !slim_lattice_task())
		return 0;
	t = slim_task_level(current);
	obj = slim_obj_level(perm);
	if (!(shmflg & SHM_RDONLY)) {
		if (obj.integ > t.integ)
			rc = slim_deny_named(SLIM_RULE_WRITE_UP, "object", what,
					     &t, &obj);
		else if (obj.secr < t.secr && t.gwrite > obj.secr)
			rc = slim_deny_named(SLIM_RULE_WRITE_DOWN, "object",
					     what, &t, &obj);
		else
			rc = 0;
		if (rc)
			return rc;
	}
	return slim_read_from(current, SLIM_CAUSE_SHM, NULL, &t, &obj,
			      GFP_ATOMIC);
}

/* under the queue's lock; may be called again for the same message */
int slim_msg_msgsnd(struct kern_ipc_perm *perm, struct msg_msg *msg,
		    int msqflg)
{
	struct slim_level t, w;

	lockdep_assert_held(&perm->lock);
	if (!slim_lattice_on() || !slim_lattice_task())
		return 0;
	t = slim_task_level(current);
	w = slim_written_level(&t);
	if (slim_obj_lower(msg, &w, GFP_ATOMIC))
		return slim_deny_named(SLIM_RULE_NOMEM, "object",
				       slim_cause_name(SLIM_CAUSE_MSG), &t, &t);
	return 0;
}

/*
 * @target receives @msg: current, or (a sender handing the message to a
 * receiver that waits in msgrcv) a task blocked in that system call.
 */
int slim_msg_msgrcv(struct kern_ipc_perm *perm, struct msg_msg *msg,
		    struct task_struct *target, long type, int mode)
{
	struct slim_level t, obj;

	if (!slim_lattice_on() || !target || (target->flags & PF_KTHREAD))
		return 0;
	if (target == current && !slim_lattice_task())
		return 0;
	t = slim_task_level(target);
	obj = slim_obj_level(msg);
	return slim_read_from(target, SLIM_CAUSE_MSG, NULL, &t, &obj,
			      GFP_ATOMIC);
}

/* processes */

static bool slim_other_process(struct task_struct *p)
{
	return p && !(p->flags & PF_KTHREAD) && !same_thread_group(p, current);
}

/*
 * PTRACE_MODE_ATTACH: ptrace attach and seize, /proc/PID/mem and the
 * other files that give a process's memory, process_vm_readv/writev,
 * pidfd_getfd, kcmp. The tracer may write into the target, so not up in
 * integrity nor down in secrecy; it reads the target, so it takes the
 * target's levels. Reading a process's state (PTRACE_MODE_READ: ps, top)
 * is not mediated.
 */
int slim_ptrace_access(struct task_struct *child, unsigned int mode)
{
	struct slim_level t, c;
	char what[24];

	if (!(mode & PTRACE_MODE_ATTACH) || !slim_lattice_on() ||
	    !slim_lattice_task() || !slim_other_process(child))
		return 0;
	t = slim_task_level(current);
	c = slim_task_level(child);
	scnprintf(what, sizeof(what), "%d", task_tgid_nr(child));
	if (c.integ > t.integ)
		return slim_deny_named(SLIM_RULE_PTRACE, "process", what, &t, &c);
	if (c.secr < t.secr && t.gwrite > c.secr)
		return slim_deny_named(SLIM_RULE_PTRACE_DOWN, "process", what,
				       &t, &c);
	return slim_read_from(current, SLIM_CAUSE_PROCESS, NULL, &t, &c,
			      GFP_ATOMIC);
}

/*
 * PTRACE_TRACEME: @parent becomes the tracer. It is another process that
 * is running, so it is not demoted from here: the levels must allow the
 * access both ways (parent not below in integrity, not above in secrecy,
 * and nothing to take from the child).
 */
int slim_ptrace_traceme(struct task_struct *parent)
{
	struct slim_level t, p;
	char what[24];

	if (!slim_lattice_on() || !slim_lattice_task() ||
	    !slim_other_process(parent))
		return 0;
	t = slim_task_level(current);
	p = slim_task_level(parent);
	scnprintf(what, sizeof(what), "%d", task_tgid_nr(parent));
	if (p.integ != t.integ)
		return slim_deny_named(SLIM_RULE_PTRACE, "process", what, &t, &p);
	if (p.secr != t.secr)
		return slim_deny_named(SLIM_RULE_PTRACE_DOWN, "process", what,
				       &t, &p);
	return 0;
}

/*
 * A signal from user space (the kernel's own never come here) to a
 * process of higher integrity is refused with EPERM, except SIGCHLD and
 * the null signal. @cred is set only for USB's asynchronous I/O signals,
 * sent on behalf of a process from interrupt context.
 */
int slim_task_kill(struct task_struct *p, struct kernel_siginfo *info,
		   int sig, const struct cred *cred)
{
	struct slim_level t, o;
	char what[24];

	if (cred || !sig || sig == SIGCHLD || !slim_lattice_on() ||
	    !slim_lattice_task() || !slim_other_process(p))
		return 0;
	t = slim_task_level(current);
	o = slim_task_level(p);
	if (o.integ <= t.integ)
		return 0;
	scnprintf(what, sizeof(what), "%d", task_tgid_nr(p));
	return slim_deny_named(SLIM_RULE_SIGNAL, "process", what, &t, &o);
}

/*
 * SIGIO (and the signal F_SETSIG chose) is sent when I/O is possible on a
 * file, on behalf of the task that named the file's owner (F_SETOWN,
 * F_SETOWN_EX, FIOSETOWN, SIOCSPGRP): the kernel checks that task's
 * credentials, recorded then, and so does the lattice with its levels,
 * kept as the file's (the lowest integrity of every task that set the
 * owner; the entry goes with the file). A signal up in integrity is not
 * delivered: the kernel drops a SIGIO that is refused, as it drops one the
 * credentials do not allow. The target may be a process group; each of its
 * processes is checked. This can run in interrupt context: only the
 * target's and the file's levels are looked at, never current's; the log
 * line's pid and comm are those of whoever did the I/O.
 */
void slim_file_set_fowner(struct file *file)
{
	struct slim_level t;

	if (!file || !slim_lattice_on() || !slim_lattice_task())
		return;
	t = slim_task_level(current);
	if (slim_obj_lower(file, &t, GFP_ATOMIC))
		slim_deny_named(SLIM_RULE_NOMEM, "object", "(file owner)", &t,
				&t);
}

int slim_file_send_sigiotask(struct task_struct *p, struct file *file)
{
	struct slim_level s, o;
	char what[24];

	if (!file || !p || (p->flags & PF_KTHREAD) || !slim_lattice_on())
		return 0;
	s = slim_obj_level(file);
	o = slim_task_level(p);
	if (o.integ <= s.integ)
		return 0;
	scnprintf(what, sizeof(what), "%d", task_tgid_nr(p));
	return slim_deny_named(SLIM_RULE_SIGNAL, "process", what, &s, &o);
}

void slim_file_free(struct file *file)
{
	if (slim_is_active())
		slim_obj_forget(file);
}

/* mappings */

/*
 * mprotect() holds the memory map's lock for writing: a demotion from here
 * cannot look at the mappings and is refused in enforce mode (the file was
 * read when it was mapped; only a label changed since would demote).
 */
int slim_file_mprotect(struct vm_area_struct *vma, unsigned long reqprot,
		       unsigned long prot)
{
	struct file *file = vma->vm_file;
	struct slim_level t, obj;
	int rc;

	if (!file || !slim_lattice_on() || !slim_lattice_task() ||
	    !slim_lattice_file(file))
		return 0;
	t = slim_task_level(current);
	slim_inode_level(file_inode(file), &obj);
	if ((prot & PROT_WRITE) && (vma->vm_flags & VM_SHARED)) {
		rc = slim_check_write(&file->f_path, &t, &obj);
		if (rc)
			return rc;
	}
	if (prot & (PROT_READ | PROT_EXEC))
		return slim_read_from(current, SLIM_CAUSE_FILE, &file->f_path,
				      &t, &obj, GFP_ATOMIC);
	return 0;
}

/* metadata, unlink, rename */

/*
 * A change of the regular file behind @dentry other than writing its data:
 * attributes (truncate, chmod, chown, utimes), xattrs other than the
 * module's own, unlink, being renamed or replaced by a rename. Refused up
 * in integrity. A label the module has not seen since it loaded counts as
 * SYSTEM (slim_inode_level_strict).
 */
int slim_inode_change(struct dentry *dentry)
{
	struct inode *inode = dentry ? d_backing_inode(dentry) : NULL;
	struct slim_level t, obj;

	if (!inode || !S_ISREG(inode->i_mode) || IS_PRIVATE(inode) ||
	    !slim_lattice_on() || !slim_lattice_task() ||
	    !slim_sb_labeled(inode->i_sb))
		return 0;
	t = slim_task_level(current);
	if (t.integ == SLIM_I_SYSTEM)
		return 0;
	slim_inode_level_strict(inode, &obj);
	if (obj.integ > t.integ)
		return slim_deny(SLIM_RULE_META, NULL, dentry, &t, &obj);
	return 0;
}

int slim_inode_rename(struct inode *old_dir, struct dentry *old,
		      struct inode *new_dir, struct dentry *new)
{
	int rc = slim_inode_change(old);

	return rc ? rc : slim_inode_change(new);
}

int slim_inode_unlink(struct inode *dir, struct dentry *dentry)
{
	return slim_inode_change(dentry);
}

static void slim_shm_free(struct kern_ipc_perm *perm)
{
	slim_ipc_free(perm);
}

static void slim_msg_free(struct msg_msg *msg)
{
	slim_ipc_free(msg);
}

static const struct slim_hook slim_lattice_ipc_hooks[] = {
	SLIM_HOOK_INIT(pipe_read_done, slim_pipe_read_done),
	SLIM_HOOK_INIT(unix_may_send, slim_unix_may_send),
	SLIM_HOOK_INIT(unix_recv_done, slim_unix_recv_done),
	SLIM_HOOK_INIT(sk_free_security, slim_sk_free),
	SLIM_HOOK_INIT(shm_alloc_security, slim_shm_alloc),
	SLIM_HOOK_INIT(shm_free_security, slim_shm_free),
	SLIM_HOOK_INIT(shm_shmat, slim_shm_shmat),
	SLIM_HOOK_INIT(msg_msg_free_security, slim_msg_free),
	SLIM_HOOK_INIT(msg_queue_msgsnd, slim_msg_msgsnd),
	SLIM_HOOK_INIT(msg_queue_msgrcv, slim_msg_msgrcv),
	SLIM_HOOK_INIT(ptrace_access_check, slim_ptrace_access),
	SLIM_HOOK_INIT(ptrace_traceme, slim_ptrace_traceme),
	SLIM_HOOK_INIT(task_kill, slim_task_kill),
	SLIM_HOOK_INIT(file_set_fowner, slim_file_set_fowner),
	SLIM_HOOK_INIT(file_send_sigiotask, slim_file_send_sigiotask),
	SLIM_HOOK_INIT(file_free_security, slim_file_free),
	SLIM_HOOK_INIT(file_mprotect, slim_file_mprotect),
	SLIM_HOOK_INIT(inode_set_acl, slim_inode_change),
	SLIM_HOOK_INIT(inode_remove_acl, slim_inode_change),
	SLIM_HOOK_INIT(inode_unlink, slim_inode_unlink),
	SLIM_HOOK_INIT(inode_rename, slim_inode_rename),
};

int slim_lattice_ipc_add_hooks(void)
{
	return slim_add_hooks(slim_lattice_ipc_hooks,
			      ARRAY_SIZE(slim_lattice_ipc_hooks), "lattice");
}
