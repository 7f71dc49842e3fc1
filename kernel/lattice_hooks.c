// SPDX-License-Identifier: GPL-2.0
/*
 * the SLIM lattice rules, as hook functions with the signatures of
 * the LSM hooks of the same names (the xattr hooks take only the arguments
 * they use, which differ in type between kernels).
 *
 * slim_lattice_file_open() runs in the opener's context and may sleep (it
 * is reached through an fsnotify permission event, attach_fsnotify.c): it
 * reads labels. Every other function here may run in atomic context (an
 * ftrace callback): it decides from the cached labels and levels and
 * returns an error that the attach layer turns into a denial.
 *
 *   read, execute or map a file of lower integrity -> the task is demoted
 *   (low watermark) unless it runs a guard whose guard-read floor allows it;
 *   read a file of higher secrecy -> the task's secrecy rises;
 *   write a file of higher integrity, or of lower secrecy (unless a guard's
 *   guard-write floor allows it) -> denied, at open and at every write, so
 *   that a write opened before a demotion is revoked by it;
 *   IP sockets are UNTRUSTED PUBLIC: receiving demotes, sending with a
 *   secrecy above PUBLIC is denied.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/binfmts.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/sched/coredump.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/xattr.h>
#include <net/sock.h>
#include "slim.h"
#include "measure.h"
#include "lattice.h"
#include "evm.h"
#include "events.h"
#include "hooks.h"
#include "compat.h"

const struct slim_level slim_ip_level = {
	.integ = SLIM_I_UNTRUSTED, .secr = SLIM_S_PUBLIC,
	.gread = SLIM_I_NONE, .gwrite = SLIM_S_NONE,
};

bool slim_lattice_on(void)
{
	return slim_is_active() && READ_ONCE(slim_mode) != SLIM_MODE_OFF;
}

/*
 * Kernel threads and the module's own hashing are outside the lattice.
 * io_uring's workers (and its SQPOLL thread) are threads of the process
 * that submitted the work: they carry its levels and obey its rules.
 */
bool slim_lattice_task(void)
{
	if (current->flags & PF_KTHREAD)
		return false;
	return !slim_guard_active();
}

/*
 * Regular files of real file systems; pseudo file systems are outside, and
 * so are the kernel's private shmem inodes (SysV segments and shared
 * anonymous memory: their levels are kept elsewhere, lattice_ipc.c).
 */
bool slim_lattice_file(const struct file *file)
{
	const struct inode *inode = file ? file_inode(file) : NULL;

	return inode && S_ISREG(inode->i_mode) && !IS_PRIVATE(inode) &&
		slim_sb_labeled(inode->i_sb);
}

int slim_check_write(const struct path *path, const struct slim_level *t,
		     const struct slim_level *obj)
{
	if (obj->integ > t->integ)
		return slim_deny(SLIM_RULE_WRITE_UP, path, NULL, t, obj);
	if (obj->secr < t->secr && t->gwrite > obj->secr)
		return slim_deny(SLIM_RULE_WRITE_DOWN, path, NULL, t, obj);
	return 0;
}

/*
 * The levels of what a task with levels @t writes into a pipe, a socket or
 * a message: its own, except that a declassifier writes at its
 * guard-write floor.
 */
struct slim_level slim_written_level(const struct slim_level *t)
{
	struct slim_level l = *t;

	if (t->gwrite < l.secr)
		l.secr = t->gwrite;
	l.gread = SLIM_I_NONE;
	l.gwrite = SLIM_S_NONE;
	return l;
}

/*
 * Would the process keep a way to write where its new levels may not? A
 * shared writable mapping of a file it could no longer write, or of memory
 * other processes may map (shared anonymous memory, SysV segments, memfd
 * and files outside the lattice), or its whole memory shared with another
 * process (a vfork child before exec, a CLONE_VM child). Write access to
 * a mapping cannot be taken away from a module, so the demotion is refused
 * instead (README.md, "Mappings"). When the memory map's lock cannot be
 * had without sleeping in atomic context, the answer is yes.
 */
static bool slim_mm_blocks(struct mm_struct *mm, const struct slim_level *t,
			   unsigned int integ, unsigned int secr, bool sleep)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;
	struct slim_level obj;
	bool block = false;

	if (!mmap_read_trylock(mm)) {
		if (!sleep || mmap_read_lock_killable(mm))
			return true;
	}
	for_each_vma(vmi, vma) {
		struct file *f = vma->vm_file;

		if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) !=
		    (VM_SHARED | VM_WRITE) ||
		    (vma->vm_flags & (VM_IO | VM_PFNMAP)) || !f ||
		    (!S_ISREG(file_inode(f)->i_mode) &&
		     !S_ISBLK(file_inode(f)->i_mode)))
			continue;
		if (!slim_lattice_file(f)) {
			block = true;
			break;
		}
		slim_inode_level(file_inode(f), &obj);
		if (obj.integ > integ ||
		    (obj.secr < secr && t->gwrite > obj.secr)) {
			block = true;
			break;
		}
	}
	mmap_read_unlock(mm);
	return block;
}

static bool slim_demotion_blocked(struct task_struct *task,
				  const struct slim_level *t,
				  unsigned int integ, unsigned int secr,
				  gfp_t gfp)
{
	struct mm_struct *mm = READ_ONCE(task->mm);

	if (!mm)
		return false;
	if (READ_ONCE(task->vfork_done) ||
	    test_bit(MMF_MULTIPROCESS, &mm->flags))
		return true;
	/*
	 * long-term pins (io_uring's fixed buffers, RDMA): the pages stay
	 * writable through the pin after munmap, whoever else maps them
	 */
	if (atomic64_read(&mm->pinned_vm))
		return true;
	return slim_mm_blocks(mm, t, integ, secr,
			      task == current && gfpflags_allow_blocking(gfp));
}

static const char *const slim_read_verb[] = {
	[SLIM_CAUSE_FILE] = "read",
	[SLIM_CAUSE_IP] = "received on",
	[SLIM_CAUSE_PROCESS] = "accessed a",
	[SLIM_CAUSE_PIPE] = "read from a",
	[SLIM_CAUSE_UNIX] = "received on a",
	[SLIM_CAUSE_SHM] = "attached",
	[SLIM_CAUSE_MSG] = "received a",
	[SLIM_CAUSE_MQUEUE] = "received a",
	[SLIM_CAUSE_OBJECT] = "read from a",
};

/*
 * @task (current, or a task blocked in a system call) with levels @t reads
 * data of levels @obj from @cause: the file at @path, an IP or UNIX
 * socket, a pipe, a SysV segment or message, another process's memory.
 * Returns the error that refuses the read in enforce mode, else 0.
 */
static int slim_read_named(struct task_struct *task, enum slim_cause cause,
			   const struct path *path, const char *what,
			   const struct slim_level *t,
			   const struct slim_level *obj, gfp_t gfp)
{
	unsigned int integ = t->integ, secr = t->secr;
	char name[SLIM_NAME_MAX];
	int rc;

	if (obj->integ < t->integ) {
		if (t->gread <= obj->integ)
			slim_count(SLIM_C_GUARD_READ);
		else
			integ = obj->integ;
	}
	if (obj->secr > t->secr)
		secr = obj->secr;
	if (integ == t->integ && secr == t->secr)
		return 0;
	if (slim_demotion_blocked(task, t, integ, secr, gfp)) {
		rc = cause == SLIM_CAUSE_FILE || cause == SLIM_CAUSE_PIPE ?
			slim_deny(SLIM_RULE_MAPPED, path, NULL, t, obj) :
			slim_deny_named(SLIM_RULE_MAPPED, "object",
					what ? what : slim_cause_name(cause),
					t, obj);
		if (rc)
			return rc;
	}
	if (slim_group_lower(task, integ, secr, gfp))
		return slim_deny(SLIM_RULE_NOMEM, path, NULL, t, obj);
	if (integ != t->integ)
		slim_count(cause == SLIM_CAUSE_FILE ? SLIM_C_DEMOTE :
			   cause == SLIM_CAUSE_IP ? SLIM_C_DEMOTE_RECV :
			   SLIM_C_DEMOTE_IPC);
	if (secr != t->secr)
		slim_count(SLIM_C_RAISE);
	slim_event_demotion(task, cause, path, t, integ, secr, gfp);
	if (slim_log_ok())
		pr_notice("demoted: pid=%d comm=%s %s/%s -> %s/%s: %s %s\n",
			  task_pid_nr(task), task->comm,
			  slim_integ_name(t->integ), slim_secr_name(t->secr),
			  slim_integ_name(integ), slim_secr_name(secr),
			  slim_read_verb[cause],
			  cause == SLIM_CAUSE_FILE ?
			  slim_objname(path, NULL, name, sizeof(name)) :
			  what ? what : slim_cause_name(cause));
	return 0;
}

int slim_read_from(struct task_struct *task, enum slim_cause cause,
		   const struct path *path, const struct slim_level *t,
		   const struct slim_level *obj, gfp_t gfp)
{
	return slim_read_named(task, cause, path, NULL, t, obj, gfp);
}

/*
 * @task reads data of levels @obj from a kernel object that is neither a
 * file nor one of the objects above (lattice_data.c): @what names it in
 * the log line ("(eventfd)"); its record's cause is SLIM_CAUSE_OBJECT.
 */
int slim_read_object(struct task_struct *task, const char *what,
		     const struct slim_level *t, const struct slim_level *obj,
		     gfp_t gfp)
{
	return slim_read_named(task, SLIM_CAUSE_OBJECT, NULL, what, t, obj,
			       gfp);
}

static int slim_apply_read(const struct path *path,
			   const struct slim_level *t,
			   const struct slim_level *obj, gfp_t gfp)
{
	return slim_read_from(current, path ? SLIM_CAUSE_FILE : SLIM_CAUSE_IP,
			      path, t, obj, gfp);
}

/*
 * A file created by this open takes the levels of its creator (without
 * guards). Kept in security.slim when the file system has xattrs, else in
 * memory for the inode's life.
 */
static void slim_label_new(struct file *file, const struct slim_level *t)
{
	struct inode *inode = file_inode(file);
	struct slim_level l = *t;
	enum slim_label_source src = SLIM_SRC_XATTR;
	char buf[SLIM_LABEL_MAX + 1];
	int n, rc;

	l.gread = SLIM_I_NONE;
	l.gwrite = SLIM_S_NONE;
	if (!memcmp(&l, &slim_default_level, sizeof(l)))
		return;
	n = slim_label_format(&l, buf, sizeof(buf));
	inode_lock(inode);
	rc = __vfs_setxattr(slim_mnt_idmap(file->f_path.mnt),
			    file->f_path.dentry, inode, SLIM_XATTR, buf, n, 0);
	if (!rc && slim_evm_has_key())
		rc = slim_evm_write(file->f_path.dentry, inode,
				    slim_mnt_idmap(file->f_path.mnt));
	inode_unlock(inode);
	if (rc) {
		if (rc != -EOPNOTSUPP)
			pr_warn_ratelimited("cannot label new file %pD4: %d, label kept in memory\n",
					    file, rc);
		src = SLIM_SRC_MEMORY;
	}
	slim_inode_set(inode, &l, src, GFP_KERNEL);
	slim_count(SLIM_C_LABEL_NEW);
}

int slim_lattice_file_open(struct file *file)
{
	struct slim_level t, obj;
	int rc = 0;

	might_sleep();
	if (!slim_lattice_on() || !slim_lattice_task() ||
	    !slim_lattice_file(file))
		return 0;
	t = slim_task_level(current);
	if (file->f_mode & FMODE_CREATED)
		slim_label_new(file, &t);
	if (slim_inode_load(file->f_path.dentry, file_inode(file), &obj) ==
	    SLIM_SRC_EVM_FAIL) {
		rc = slim_deny(SLIM_RULE_EVM, &file->f_path, NULL, &t, &obj);
		if (rc)
			return rc;
	}
	if (file->f_mode & FMODE_WRITE) {
		rc = slim_check_write(&file->f_path, &t, &obj);
		if (rc)
			return rc;
	}
	if (file->f_mode & FMODE_READ)
		rc = slim_apply_read(&file->f_path, &t, &obj, GFP_KERNEL);
	return rc;
}

int slim_file_permission(struct file *file, int mask)
{
	struct slim_level t, obj;

	if (!(mask & (MAY_READ | MAY_WRITE | MAY_APPEND)))
		return 0;
	if (!slim_lattice_on() || !slim_lattice_task() || !file)
		return 0;
	if (S_ISFIFO(file_inode(file)->i_mode)) {
		if (mask & (MAY_WRITE | MAY_APPEND))
			return slim_pipe_write(file);
		return slim_pipe_read_done(file, GFP_ATOMIC);
	}
	if (!slim_lattice_file(file))
		return 0;
	t = slim_task_level(current);
	slim_inode_level(file_inode(file), &obj);
	if (mask & (MAY_WRITE | MAY_APPEND))
		return slim_check_write(&file->f_path, &t, &obj);
	return slim_apply_read(&file->f_path, &t, &obj, GFP_ATOMIC);
}

/* mmap_file: @prot as the caller asked (security_mmap_file()'s) */
int slim_lattice_mmap(struct file *file, unsigned long reqprot,
		      unsigned long prot, unsigned long flags)
{
	struct slim_level t, obj;
	int rc;

	if (!slim_lattice_on() || !slim_lattice_task() ||
	    !slim_lattice_file(file))
		return 0;
	t = slim_task_level(current);
	slim_inode_level(file_inode(file), &obj);
	if ((prot & PROT_WRITE) && ((flags & MAP_TYPE) == MAP_SHARED ||
				    (flags & MAP_TYPE) == MAP_SHARED_VALIDATE)) {
		rc = slim_check_write(&file->f_path, &t, &obj);
		if (rc)
			return rc;
	}
	if (prot & (PROT_READ | PROT_EXEC))
		return slim_apply_read(&file->f_path, &t, &obj, GFP_ATOMIC);
	return 0;
}

static bool slim_sock_ip(const struct socket *sock)
{
	const struct sock *sk = sock ? sock->sk : NULL;

	return sk && (sk->sk_family == AF_INET || sk->sk_family == AF_INET6);
}

int slim_socket_sendmsg(struct socket *sock, struct msghdr *msg, int size)
{
	struct slim_level t;

	if (!slim_lattice_on() || !slim_lattice_task())
		return 0;
	if (sock && sock->sk && sock->sk->sk_family == AF_UNIX)
		return slim_unix_sendmsg(sock);
	if (!slim_sock_ip(sock))
		return 0;
	t = slim_task_level(current);
	if (t.secr > SLIM_S_PUBLIC && t.gwrite > SLIM_S_PUBLIC)
		return slim_deny(SLIM_RULE_SEND, NULL, NULL, &t,
				 &slim_ip_level);
	return 0;
}

int slim_socket_recvmsg(struct socket *sock, struct msghdr *msg, int size,
			int flags)
{
	struct slim_level t;

	if (!slim_lattice_on() || !slim_lattice_task())
		return 0;
	if (sock && sock->sk && sock->sk->sk_family == AF_UNIX)
		return slim_unix_recv_done(sock->sk);
	if (!slim_sock_ip(sock))
		return 0;
	t = slim_task_level(current);
	return slim_apply_read(NULL, &t, &slim_ip_level, GFP_ATOMIC);
}

int slim_task_alloc(struct task_struct *task, unsigned long clone_flags)
{
	struct slim_level t;

	if (!slim_lattice_on())
		return 0;
	if (!slim_task_inherit(task, current, GFP_ATOMIC))
		return 0;
	t = slim_task_level(current);
	return slim_deny(SLIM_RULE_NOMEM, NULL, NULL, &t, &t);
}

void slim_task_free(struct task_struct *task)
{
	if (slim_is_active())
		slim_task_forget(task);
}

/* the new program's guards replace the old ones; levels carry over */
void slim_bprm_committed_creds(const struct linux_binprm *bprm)
{
	struct slim_level obj;

	if (!slim_lattice_on() || !slim_lattice_task() || !bprm->file)
		return;
	slim_inode_level(file_inode(bprm->file), &obj);
	slim_task_set_guards(current, obj.gread, obj.gwrite, GFP_ATOMIC);
}

static bool slim_evm_protected_name(const char *name)
{
	return !strcmp(name, "security.ima") ||
		!strcmp(name, "security.capability") ||
		!strcmp(name, "security.selinux");
}

/*
 * security.slim and its HMAC change only through the module
 * (slim_relabel); a change of another protected xattr is allowed but
 * invalidates the HMAC (the label is checked again at the next open).
 */
int slim_inode_setxattr(struct dentry *dentry, const char *name)
{
	struct slim_level t, obj;
	struct inode *inode;
	bool ours;

	if (!slim_is_active() || !dentry || !name)
		return 0;
	ours = !strcmp(name, SLIM_XATTR) || !strcmp(name, SLIM_EVM_XATTR);
	inode = d_backing_inode(dentry);
	if (inode && (ours || slim_evm_protected_name(name)))
		slim_inode_stale(inode);
	/* any other xattr is the file's metadata (lattice_ipc.c) */
	if (!ours)
		return slim_inode_change(dentry);
	if (READ_ONCE(slim_mode) == SLIM_MODE_OFF)
		return 0;
	t = slim_task_level(current);
	obj = slim_default_level;
	if (inode)
		slim_inode_level(inode, &obj);
	return slim_deny(SLIM_RULE_LABEL, NULL, dentry, &t, &obj);
}

/*
 * A change of attributes: refused up in integrity (slim_inode_change());
 * else uid, gid and mode are in the HMAC: check the label again next time.
 */
int slim_lattice_inode_setattr(struct dentry *dentry)
{
	struct inode *inode = dentry ? d_backing_inode(dentry) : NULL;
	int rc = slim_inode_change(dentry);

	if (!rc && slim_is_active() && inode)
		slim_inode_stale(inode);
	return rc;
}

void slim_inode_free_security(struct inode *inode)
{
	if (!slim_is_active())
		return;
	slim_inode_forget(inode);
	if (S_ISFIFO(inode->i_mode))
		slim_obj_forget(inode);	/* a pipe's or a FIFO's levels */
}

/* Sleepable; the caller checked that the writer may relabel. */
int slim_relabel(const char *name, const struct slim_level *l)
{
	enum slim_label_source src = SLIM_SRC_XATTR;
	char buf[SLIM_LABEL_MAX + 1], old[SLIM_LABEL_MAX + 1];
	struct slim_level oldl;
	struct inode *inode;
	struct path path;
	int n, rc;

	might_sleep();
	rc = kern_path(name, LOOKUP_FOLLOW, &path);
	if (rc)
		return rc;
	inode = d_backing_inode(path.dentry);
	if (!S_ISREG(inode->i_mode) && !S_ISDIR(inode->i_mode)) {
		rc = -EINVAL;
		goto out;
	}
	slim_inode_load(path.dentry, inode, &oldl);
	slim_label_format(&oldl, old, sizeof(old));
	n = slim_label_format(l, buf, sizeof(buf));
	rc = mnt_want_write(path.mnt);
	if (rc)
		goto out;
	inode_lock(inode);
	rc = __vfs_setxattr(slim_mnt_idmap(path.mnt), path.dentry, inode,
			    SLIM_XATTR, buf, n, 0);
	if (!rc && slim_evm_has_key()) {
		rc = slim_evm_write(path.dentry, inode,
				    slim_mnt_idmap(path.mnt));
		if (rc)
			pr_warn("relabel %pd4: label set, HMAC not written: %d\n",
				path.dentry, rc);
	}
	inode_unlock(inode);
	mnt_drop_write(path.mnt);
	if (rc == -EOPNOTSUPP) {
		src = SLIM_SRC_MEMORY;
		rc = 0;
	}
	if (!rc) {
		slim_inode_set(inode, l, src, GFP_KERNEL);
		slim_count(SLIM_C_RELABEL);
		pr_info("relabeled %pd4 (ino %lu) \"%s\"%s by pid %d\n",
			path.dentry, inode->i_ino, buf,
			src == SLIM_SRC_MEMORY ? " in memory" :
			slim_evm_has_key() ? " with its HMAC" :
			" (no EVM key: no HMAC)", task_pid_nr(current));
		slim_event_relabel(&path, old, buf);
	}
out:
	path_put(&path);
	return rc;
}

static const struct slim_hook slim_lattice_file_hooks[] = {
	SLIM_HOOK_INIT(file_open_perm, slim_lattice_file_open),
	SLIM_HOOK_INIT(file_permission, slim_file_permission),
	SLIM_HOOK_INIT(mmap_file, slim_lattice_mmap),
	SLIM_HOOK_INIT(socket_sendmsg, slim_socket_sendmsg),
	SLIM_HOOK_INIT(socket_recvmsg, slim_socket_recvmsg),
	SLIM_HOOK_INIT(task_alloc, slim_task_alloc),
	SLIM_HOOK_INIT(task_free, slim_task_free),
	SLIM_HOOK_INIT(bprm_committed_creds, slim_bprm_committed_creds),
	SLIM_HOOK_INIT(inode_setxattr, slim_inode_setxattr),
	SLIM_HOOK_INIT(inode_removexattr, slim_inode_setxattr),
	SLIM_HOOK_INIT(inode_setattr, slim_lattice_inode_setattr),
	SLIM_HOOK_INIT(inode_free_security, slim_inode_free_security),
};

int slim_lattice_file_add_hooks(void)
{
	return slim_add_hooks(slim_lattice_file_hooks,
			      ARRAY_SIZE(slim_lattice_file_hooks), "lattice");
}
