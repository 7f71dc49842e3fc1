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
#include <linux/file.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/xattr.h>
#include <net/sock.h>
#include "slim.h"
#include "compat.h"

static const struct slim_level slim_ip_level = {
	.integ = SLIM_I_UNTRUSTED, .secr = SLIM_S_PUBLIC,
	.gread = SLIM_I_NONE, .gwrite = SLIM_S_NONE,
};

bool slim_lattice_on(void)
{
	return slim_is_active() && READ_ONCE(slim_mode) != SLIM_MODE_OFF;
}

/* kernel threads and the module's own hashing are outside the lattice */
static bool slim_lattice_task(void)
{
	if (current->flags & (PF_KTHREAD | PF_IO_WORKER))
		return false;
	return !slim_guard_active();
}

/* regular files of real file systems; pseudo file systems are outside */
static bool slim_lattice_file(const struct file *file)
{
	const struct inode *inode = file ? file_inode(file) : NULL;

	return inode && S_ISREG(inode->i_mode) && slim_watchable(inode->i_sb);
}

static int slim_check_write(const struct path *path,
			    const struct slim_level *t,
			    const struct slim_level *obj)
{
	if (obj->integ > t->integ)
		return slim_deny(SLIM_RULE_WRITE_UP, path, NULL, t, obj);
	if (obj->secr < t->secr && t->gwrite > obj->secr)
		return slim_deny(SLIM_RULE_WRITE_DOWN, path, NULL, t, obj);
	return 0;
}

/*
 * The task with levels @t reads an object with levels @obj: the file at
 * @path, or with @path NULL an IP socket.
 */
static int slim_apply_read(const struct path *path,
			   const struct slim_level *t,
			   const struct slim_level *obj, gfp_t gfp)
{
	unsigned int integ = t->integ, secr = t->secr;
	char name[SLIM_NAME_MAX];

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
	if (slim_group_lower(integ, secr, gfp))
		return slim_deny(SLIM_RULE_NOMEM, path, NULL, t, obj);
	if (integ != t->integ)
		slim_count(path ? SLIM_C_DEMOTE : SLIM_C_DEMOTE_RECV);
	if (secr != t->secr)
		slim_count(SLIM_C_RAISE);
	slim_event_demotion(path, t, integ, secr, gfp);
	if (slim_log_ok())
		pr_notice("demoted: pid=%d comm=%s %s/%s -> %s/%s: %s %s\n",
			  task_pid_nr(current), current->comm,
			  slim_integ_name(t->integ), slim_secr_name(t->secr),
			  slim_integ_name(integ), slim_secr_name(secr),
			  path ? "read" : "received on",
			  slim_objname(path, NULL, name, sizeof(name)));
	return 0;
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
	if (!slim_lattice_on() || !slim_lattice_task() ||
	    !slim_lattice_file(file))
		return 0;
	t = slim_task_level(current);
	slim_inode_level(file_inode(file), &obj);
	if (mask & (MAY_WRITE | MAY_APPEND))
		return slim_check_write(&file->f_path, &t, &obj);
	return slim_apply_read(&file->f_path, &t, &obj, GFP_ATOMIC);
}

int slim_lattice_mmap(struct file *file, unsigned long prot,
		      unsigned long flags)
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

	if (!slim_lattice_on() || !slim_lattice_task() || !slim_sock_ip(sock))
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

	if (!slim_lattice_on() || !slim_lattice_task() || !slim_sock_ip(sock))
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
	if (!ours && !slim_evm_protected_name(name))
		return 0;
	inode = d_backing_inode(dentry);
	if (inode)
		slim_inode_stale(inode);
	if (!ours || READ_ONCE(slim_mode) == SLIM_MODE_OFF)
		return 0;
	t = slim_task_level(current);
	obj = slim_default_level;
	if (inode)
		slim_inode_level(inode, &obj);
	return slim_deny(SLIM_RULE_LABEL, NULL, dentry, &t, &obj);
}

/* uid, gid and mode are in the HMAC: check the label again next time */
void slim_inode_setattr(struct dentry *dentry)
{
	struct inode *inode = dentry ? d_backing_inode(dentry) : NULL;

	if (slim_is_active() && inode)
		slim_inode_stale(inode);
}

void slim_inode_free_security(struct inode *inode)
{
	if (slim_is_active())
		slim_inode_forget(inode);
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

	rc = kern_path(name, LOOKUP_FOLLOW, &path);
	if (rc)
		return rc;
	inode = d_backing_inode(path.dentry);
	if (!S_ISREG(inode->i_mode)) {
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
