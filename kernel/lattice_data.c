// SPDX-License-Identifier: GPL-2.0
/*
 * the lattice's remaining data paths: every channel that carries data
 * carries its writer's levels (issue 40).
 *
 *   Sockets. Every way data leaves a socket is a receive: read(2) and
 *   sendfile(2) (file_permission on the socket file), a mapping of it
 *   (PACKET_RX_RING, TCP's zerocopy area), getsockopt(TCP_ZEROCOPY_RECEIVE).
 *   Every family carries levels or counts as the network: UNIX sockets
 *   (lattice_ipc.c), netlink and AF_ALG sockets carry what was written
 *   into them (a netlink message from a process lowers the receiving
 *   socket when it is queued; an AF_ALG socket is its own reader), IP and
 *   every other family (AF_PACKET sees all network input) are UNTRUSTED
 *   PUBLIC. A netlink multicast cannot name its receivers: one from a
 *   process below SYSTEM PUBLIC is refused, and so is a PF_KEY message
 *   (its answers may be broadcast to every PF_KEY socket).
 *   Objects that carry bytes: an eventfd (its counter), a pseudo-terminal
 *   (what is written on one side is read on the other), a key (its
 *   payload), a SysV semaphore set (its values), an extended attribute in
 *   the user or trusted namespace (the file's levels, as its data): the
 *   object takes the writer's levels, the reader takes the object's.
 *   A signal that carries a value (sigqueue(3), rt_sigqueueinfo(2)) up in
 *   integrity is refused also for SIGCHLD, and down in secrecy.
 *   Shared memory outside the lattice (shared anonymous memory, SysV
 *   segments, memfd_secret, files of unlabeled file systems): a process
 *   below SYSTEM PUBLIC may not make a shared mapping of it writable
 *   (mmap, mprotect) nor write it through a file (/proc/PID/map_files).
 *   userfaultfd: filling another process's memory (UFFDIO_COPY and kin)
 *   follows process_vm_writev's rule.
 *
 * Every function here runs in an ftrace callback or a return probe
 * (atomic context): it decides from the cached levels.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/key.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mman.h>
#include <linux/net.h>
#include <linux/ipc.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sem.h>
#include <linux/string.h>
#include <linux/tty.h>
#include <linux/tty_driver.h>
#include <linux/major.h>
#include <linux/kdev_t.h>
#include <linux/netlink.h>
#include <net/sock.h>
#include <uapi/linux/magic.h>
#include <uapi/linux/tcp.h>
#include <uapi/linux/userfaultfd.h>
#include "slim.h"
#include "lattice.h"
#include "lattice_rules.h"
#include "hooks.h"

static bool slim_data_on(void)
{
	return slim_lattice_on() && slim_lattice_task();
}

/* below the top of the lattice: what it writes lowers what it reaches */
static bool slim_below_top(const struct slim_level *t)
{
	return t->integ < SLIM_I_SYSTEM ||
		(t->secr > SLIM_S_PUBLIC && t->gwrite > SLIM_S_PUBLIC);
}

/* @obj now also carries what current writes */
static int slim_data_write(const void *obj, const char *what)
{
	struct slim_level t = slim_task_level(current);
	struct slim_level w = slim_written_level(&t);

	if (slim_obj_lower(obj, &w, GFP_ATOMIC))
		return slim_deny_named(SLIM_RULE_NOMEM, "object", what, &t, &t);
	return 0;
}

/* current reads what @obj carries */
static int slim_data_read(const void *obj, const char *what)
{
	struct slim_level t = slim_task_level(current);
	struct slim_level o = slim_obj_level(obj);

	return slim_read_object(current, what, &t, &o, GFP_ATOMIC);
}

/* ---- sockets --------------------------------------------------------- */

/*
 * local families: their sockets carry what was written into them (a PF_KEY
 * socket hears the kernel and broadcasts of other PF_KEY sockets)
 */
static bool slim_sock_carries(const struct sock *sk)
{
	return sk->sk_family == AF_NETLINK || sk->sk_family == AF_ALG ||
		sk->sk_family == AF_KEY;
}

static const char *slim_sock_name(const struct sock *sk)
{
	return sk->sk_family == AF_NETLINK ? "(netlink socket)" :
		sk->sk_family == AF_ALG ? "(AF_ALG socket)" :
		sk->sk_family == AF_KEY ? "(PF_KEY socket)" : "(socket)";
}

/*
 * A receive on @sk by current, whatever the way: a UNIX socket, a netlink
 * or AF_ALG socket gives what was written into it; IP and every other
 * family give the network's UNTRUSTED PUBLIC.
 */
static int slim_sock_receive(struct sock *sk)
{
	struct slim_level t;

	if (!sk)
		return 0;
	if (sk->sk_family == AF_UNIX)
		return slim_unix_recv_done(sk);
	if (slim_sock_carries(sk))
		return slim_data_read(sk, slim_sock_name(sk));
	t = slim_task_level(current);
	return slim_read_from(current, SLIM_CAUSE_IP, NULL, &t, &slim_ip_level,
			      GFP_ATOMIC);
}

static struct sock *slim_file_sock(struct file *file)
{
	struct socket *sock;

	if (!file || !S_ISSOCK(file_inode(file)->i_mode))
		return NULL;
	sock = sock_from_file(file);
	return sock ? sock->sk : NULL;
}

/*
 * recvmsg on the families lattice_hooks.c does not know (UNIX and IP are
 * its own); sendmsg: an AF_ALG socket takes its writer's levels, the
 * network families are IP's (no secrecy out), a netlink message lowers
 * its receiver when it is queued (slim_netlink_attach) and a multicast
 * from below the top is refused.
 */
static bool slim_sock_other(const struct socket *sock)
{
	const struct sock *sk = sock ? sock->sk : NULL;

	return sk && sk->sk_family != AF_UNIX && sk->sk_family != AF_INET &&
		sk->sk_family != AF_INET6;
}

static int slim_data_recvmsg(struct socket *sock, struct msghdr *msg,
			     int size, int flags)
{
	if (!slim_sock_other(sock) || !slim_data_on())
		return 0;
	return slim_sock_receive(sock->sk);
}

static int slim_netlink_sendmsg(struct sock *sk, struct msghdr *msg)
{
	struct sockaddr_nl *nl = msg ? msg->msg_name : NULL;
	struct slim_level t = slim_task_level(current);
	bool group;

	if (!slim_below_top(&t))
		return 0;
	if (nl && msg->msg_namelen >= (int)sizeof(*nl))
		group = nl->nl_groups != 0;
	else	/* connect(2) may have set a group: it cannot be seen here */
		group = READ_ONCE(sk->sk_state) != 0;
	if (!group)
		return 0;
	return slim_deny_named(SLIM_RULE_MULTICAST, "object",
			       "(netlink socket)", &t, &slim_initial_level);
}

static int slim_data_sendmsg(struct socket *sock, struct msghdr *msg, int size)
{
	struct slim_level t;
	struct sock *sk;

	if (!slim_sock_other(sock) || !slim_data_on())
		return 0;
	sk = sock->sk;
	if (sk->sk_family == AF_NETLINK)
		return slim_netlink_sendmsg(sk, msg);
	if (sk->sk_family == AF_KEY) {
		/* its answers may be broadcast to every PF_KEY socket */
		t = slim_task_level(current);
		if (!slim_below_top(&t))
			return 0;
		return slim_deny_named(SLIM_RULE_MULTICAST, "object",
				       slim_sock_name(sk), &t,
				       &slim_initial_level);
	}
	if (sk->sk_family == AF_ALG)
		return slim_data_write(sk, slim_sock_name(sk));
	t = slim_task_level(current);
	if (t.secr > SLIM_S_PUBLIC && t.gwrite > SLIM_S_PUBLIC)
		return slim_deny(SLIM_RULE_SEND, NULL, NULL, &t,
				 &slim_ip_level);
	return 0;
}

/*
 * netlink_attachskb(sk, skb, timeo, ssk): a unicast message from @ssk is
 * queued on @sk, in the sender's context. A process's message lowers the
 * receiving socket; the kernel's own (@ssk without a file) carry nothing.
 * It cannot be refused here (the function owns the message on failure).
 */
static int slim_netlink_attach(struct sock *sk, struct sock *ssk)
{
	if (!sk || !ssk || !ssk->sk_socket || !ssk->sk_socket->file ||
	    !slim_data_on())
		return 0;
	return slim_data_write(sk, "(netlink socket)");
}

/* the return of netlink_recvmsg() with data: a reader that waited */
static int slim_data_sock_recv_done(struct sock *sk)
{
	if (!sk || !slim_sock_carries(sk) || !slim_data_on())
		return 0;
	return slim_sock_receive(sk);
}

static void slim_data_sk_free(struct sock *sk)
{
	if (slim_is_active() && sk && slim_sock_carries(sk))
		slim_obj_forget(sk);
}

/* getsockopt(TCP_ZEROCOPY_RECEIVE) hands queued data out */
int slim_data_getsockopt(struct socket *sock, int level, int optname)
{
	if (level != SOL_TCP || optname != TCP_ZEROCOPY_RECEIVE || !sock ||
	    !slim_data_on())
		return 0;
	return slim_sock_receive(sock->sk);
}

/* ---- eventfd and pseudo-terminals -------------------------------------- */

static bool slim_is_eventfd(struct file *file)
{
	struct inode *inode = file_inode(file);

	return inode->i_sb->s_magic == ANON_INODE_FS_MAGIC &&
		!strcmp((const char *)file->f_path.dentry->d_name.name,
			"[eventfd]");
}

static bool slim_pty_slave_dev(const struct inode *inode)
{
	unsigned int major = imajor(inode);

	return S_ISCHR(inode->i_mode) && major >= UNIX98_PTY_SLAVE_MAJOR &&
		major < UNIX98_PTY_SLAVE_MAJOR + UNIX98_PTY_MAJOR_COUNT;
}

/*
 * A pseudo-terminal's two directions, keyed by its slave's devpts inode:
 * the inode for what the slave reads (written on the master), the inode's
 * address plus one for what the master reads. The devpts inode lives as
 * long as either side is open; its inode_free forgets both.
 */
static const void *slim_pty_key(struct file *file, bool input)
{
	struct inode *inode = file_inode(file);
	struct tty_file_private *priv;
	struct tty_struct *tty, *slave;
	struct dentry *dentry;
	bool master;

	if (!S_ISCHR(inode->i_mode))
		return NULL;
	if (imajor(inode) != TTYAUX_MAJOR && !slim_pty_slave_dev(inode))
		return NULL;
	priv = READ_ONCE(file->private_data);
	tty = priv ? READ_ONCE(priv->tty) : NULL;
	if (!tty || !tty->driver || tty->driver->type != TTY_DRIVER_TYPE_PTY ||
	    !(tty->driver->flags & TTY_DRIVER_DEVPTS_MEM))
		return NULL;
	master = tty->driver->subtype == PTY_TYPE_MASTER;
	slave = master ? tty->link : tty;
	dentry = slave ? READ_ONCE(slave->driver_data) : NULL;
	inode = dentry ? d_inode(dentry) : NULL;
	if (!inode)
		return NULL;
	/* a write on one side is input of the other; a read takes its own */
	if (master == input)
		return (const char *)inode + 1;
	return inode;
}

/* a write or a read through an eventfd or a pseudo-terminal */
static int slim_data_permission(struct file *file, int mask)
{
	const void *key;
	bool write;
	struct sock *sk;

	if (!file || !(mask & (MAY_READ | MAY_WRITE | MAY_APPEND)))
		return 0;
	if (S_ISREG(file_inode(file)->i_mode)) {
		/* shmem behind /proc/PID/map_files: memory outside the lattice */
		if (!(mask & (MAY_WRITE | MAY_APPEND)) ||
		    !IS_PRIVATE(file_inode(file)) || !slim_data_on())
			return 0;
		return slim_shared_write(file);
	}
	if (!slim_data_on())
		return 0;
	write = mask & (MAY_WRITE | MAY_APPEND);
	sk = slim_file_sock(file);
	if (sk)		/* read(2), sendfile(2) out of a socket */
		return write ? 0 : slim_sock_receive(sk);
	if (slim_is_eventfd(file))
		return write ? slim_data_write(file, "(eventfd)") :
			slim_data_read(file, "(eventfd)");
	key = slim_pty_key(file, !write);
	if (!key)
		return 0;
	return write ? slim_data_write(key, "(pseudo-terminal)") :
		slim_data_read(key, "(pseudo-terminal)");
}

/* the return of eventfd_read() or tty_read() with data: a reader that waited */
static int slim_data_file_read_done(struct file *file)
{
	const void *key;

	if (!file || !slim_data_on())
		return 0;
	if (slim_is_eventfd(file))
		return slim_data_read(file, "(eventfd)");
	key = slim_pty_key(file, true);
	return key ? slim_data_read(key, "(pseudo-terminal)") : 0;
}

static void slim_data_inode_free(struct inode *inode)
{
	if (!slim_is_active() || !slim_pty_slave_dev(inode))
		return;
	slim_obj_forget(inode);
	slim_obj_forget((const char *)inode + 1);
}

/* ---- keys, semaphores, extended attributes, signals -------------------- */

int slim_data_key_alloc(struct key *key, const struct cred *cred,
			unsigned long flags)
{
	if (!key || !slim_data_on())
		return 0;
	return slim_data_write(key, "(key)");
}

void slim_data_key_free(struct key *key)
{
	if (slim_is_active() && key)
		slim_obj_forget(key);
}

/* keyctl read of a payload is a read; an update a write */
int slim_data_key_permission(key_ref_t key_ref, const struct cred *cred,
			     enum key_need_perm need)
{
	struct key *key = key_ref_to_ptr(key_ref);

	if (!key || (need != KEY_NEED_READ && need != KEY_NEED_WRITE) ||
	    !slim_data_on())
		return 0;
	if (need == KEY_NEED_WRITE)
		return slim_data_write(key, "(key)");
	return slim_data_read(key, "(key)");
}

int slim_data_sem_alloc(struct kern_ipc_perm *perm)
{
	if (!perm || !slim_data_on())
		return 0;
	return slim_data_write(perm, "(SysV semaphore)");
}

void slim_data_sem_free(struct kern_ipc_perm *perm)
{
	if (slim_is_active() && perm)
		slim_obj_forget(perm);
}

/*
 * semop: a change (alter) is a write; every semop reads the values (its
 * outcome depends on them), and so do semctl's GET commands
 */
int slim_data_semop(struct kern_ipc_perm *perm, struct sembuf *sops,
		    unsigned int nsops, int alter)
{
	int rc;

	if (!perm || !slim_data_on())
		return 0;
	if (alter) {
		rc = slim_data_write(perm, "(SysV semaphore)");
		if (rc)
			return rc;
	}
	return slim_data_read(perm, "(SysV semaphore)");
}

int slim_data_semctl(struct kern_ipc_perm *perm, int cmd)
{
	if (!perm || !slim_data_on())
		return 0;
	switch (cmd) {
	case SETVAL:
	case SETALL:
		return slim_data_write(perm, "(SysV semaphore)");
	case GETVAL:
	case GETALL:
	case GETNCNT:
	case GETZCNT:
	case GETPID:
		return slim_data_read(perm, "(SysV semaphore)");
	}
	return 0;
}

/*
 * getxattr of a user or trusted xattr (data its writer chose) is a read
 * of the file: its cached levels. The kernel's own (security.*, system.*:
 * labels, capabilities, ACLs) are metadata, not mediated.
 */
int slim_data_getxattr(struct dentry *dentry, const char *name)
{
	struct inode *inode = dentry ? d_backing_inode(dentry) : NULL;
	struct slim_level t, obj;

	if (!inode || !name || !S_ISREG(inode->i_mode) || IS_PRIVATE(inode) ||
	    (strncmp(name, "user.", 5) && strncmp(name, "trusted.", 8)) ||
	    !slim_data_on() || !slim_sb_labeled(inode->i_sb))
		return 0;
	t = slim_task_level(current);
	slim_inode_level(inode, &obj);
	return slim_read_object(current, "(extended attribute)", &t, &obj,
				GFP_ATOMIC);
}

/*
 * A signal with a value chosen by its sender (sigqueue, rt_sigqueueinfo,
 * pidfd_send_signal with a siginfo) carries data: refused up in integrity
 * (SIGCHLD included, which the signal rule lets through without data) and
 * down in secrecy.
 */
static int slim_data_task_kill(struct task_struct *p,
			       struct kernel_siginfo *info, int sig,
			       const struct cred *cred)
{
	struct slim_level t, o;
	char what[24];

	if (cred || !sig || info == SEND_SIG_NOINFO || info == SEND_SIG_PRIV ||
	    info->si_code >= 0 || info->si_code == SI_TKILL ||
	    !p || (p->flags & PF_KTHREAD) || same_thread_group(p, current) ||
	    !slim_data_on())
		return 0;
	t = slim_task_level(current);
	o = slim_task_level(p);
	scnprintf(what, sizeof(what), "%d", task_tgid_nr(p));
	if (sig == SIGCHLD && o.integ > t.integ)
		return slim_deny_named(SLIM_RULE_SIGNAL, "process", what, &t,
				       &o);
	if (o.secr < t.secr && t.gwrite > o.secr)
		return slim_deny_named(SLIM_RULE_SIGNAL_DOWN, "process", what,
				       &t, &o);
	return 0;
}

/* ---- shared memory outside the lattice --------------------------------- */

/*
 * Memory other processes may map that the lattice does not label: shared
 * anonymous memory and SysV segments (private shmem inodes), memfd_secret
 * and files of unlabeled file systems. A process below the top may not
 * gain a way to write it: whoever shares it may be above it. (A demotion
 * is refused while the process can write it: lattice_hooks.c.)
 */
static bool slim_outside(struct file *file)
{
	return file && S_ISREG(file_inode(file)->i_mode) &&
		!slim_lattice_file(file);
}

int slim_shared_write(struct file *file)
{
	struct slim_level t = slim_task_level(current);

	if (!slim_below_top(&t))
		return 0;
	return slim_deny(SLIM_RULE_WRITE_UP, &file->f_path, NULL, &t,
			 &slim_initial_level);
}

/* a mapping of a socket (PACKET_RX_RING, TCP zerocopy) is a receive */
static int slim_data_mmap(struct file *file, unsigned long reqprot,
			  unsigned long prot, unsigned long flags)
{
	struct sock *sk;

	if (!file || !slim_data_on())
		return 0;
	sk = slim_file_sock(file);
	if (sk)
		return slim_sock_receive(sk);
	/*
	 * shmat() maps a segment through its own file (private_data: the
	 * attach): lattice_ipc.c judges it by the segment's levels
	 */
	if (IS_PRIVATE(file_inode(file)) && file->private_data)
		return 0;
	if ((prot & PROT_WRITE) && ((flags & MAP_TYPE) == MAP_SHARED ||
				    (flags & MAP_TYPE) == MAP_SHARED_VALIDATE) &&
	    slim_outside(file))
		return slim_shared_write(file);
	return 0;
}

static int slim_data_mprotect(struct vm_area_struct *vma,
			      unsigned long reqprot, unsigned long prot)
{
	if (!(prot & PROT_WRITE) || !(vma->vm_flags & VM_SHARED) ||
	    (vma->vm_flags & (VM_IO | VM_PFNMAP)) || !slim_outside(vma->vm_file) ||
	    !slim_data_on())
		return 0;
	return slim_shared_write(vma->vm_file);
}

/* ---- userfaultfd -------------------------------------------------------- */

/*
 * A userfaultfd's file has its own anonymous inode (anon_inode_getfd_secure)
 * made in the context of the process whose memory it serves: the inode
 * keeps that process's levels. Its ioctls that fill that memory (UFFDIO_COPY,
 * _ZEROPAGE, _CONTINUE, _POISON, _MOVE) are writes into that process, as
 * process_vm_writev: refused up in integrity and down in secrecy, unless
 * the memory is current's own (a range of its own is registered with it).
 */
int slim_data_anon_inode(struct inode *inode, const struct qstr *name,
			 const struct inode *context)
{
	struct slim_level t, w;

	if (!inode || !name ||
	    strcmp((const char *)name->name, "[userfaultfd]") ||
	    !slim_data_on())
		return 0;
	t = slim_task_level(current);
	w = t;
	w.gread = SLIM_I_NONE;
	w.gwrite = SLIM_S_NONE;
	/* the top needs no entry: slim_obj_level() gives it */
	if (slim_obj_lower(inode, &w, GFP_ATOMIC))
		return slim_deny_named(SLIM_RULE_NOMEM, "object",
				       "(userfaultfd)", &t, &t);
	return 0;
}

/* @file is a userfaultfd of current's own memory (a range registered) */
static bool slim_uffd_self(struct file *file)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool self = false;

	if (!mm || !mmap_read_trylock(mm))
		return false;
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			if (vma->vm_userfaultfd_ctx.ctx &&
			    (void *)vma->vm_userfaultfd_ctx.ctx ==
			    file->private_data) {
				self = true;
				break;
			}
		}
	}
	mmap_read_unlock(mm);
	return self;
}

int slim_data_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct slim_level t, o;
	struct inode *inode;

	if (_IOC_TYPE(cmd) != UFFDIO || !file)
		return 0;
	switch (_IOC_NR(cmd)) {
	case _UFFDIO_COPY:
	case _UFFDIO_ZEROPAGE:
	case _UFFDIO_CONTINUE:
	case 0x08:	/* _UFFDIO_POISON (6.6) */
	case 0x05:	/* _UFFDIO_MOVE (6.8) */
		break;
	default:
		return 0;
	}
	inode = file_inode(file);
	if (inode->i_sb->s_magic != ANON_INODE_FS_MAGIC ||
	    strcmp((const char *)file->f_path.dentry->d_name.name,
		   "[userfaultfd]") ||
	    !slim_data_on())
		return 0;
	t = slim_task_level(current);
	o = slim_obj_level(inode);
	if ((o.integ > t.integ || (o.secr < t.secr && t.gwrite > o.secr)) &&
	    slim_uffd_self(file))
		return 0;
	if (o.integ > t.integ)
		return slim_deny_named(SLIM_RULE_PTRACE, "object",
				       "(userfaultfd)", &t, &o);
	if (o.secr < t.secr && t.gwrite > o.secr)
		return slim_deny_named(SLIM_RULE_PTRACE_DOWN, "object",
				       "(userfaultfd)", &t, &o);
	return 0;
}

static void slim_data_inode_free_anon(struct inode *inode)
{
	if (slim_is_active() && inode && !(inode->i_mode & S_IFMT))
		slim_obj_forget(inode);
}

static void slim_data_inode_gone(struct inode *inode)
{
	slim_data_inode_free(inode);
	slim_data_inode_free_anon(inode);
}

static const struct slim_hook slim_lattice_data_hooks[] = {
	SLIM_HOOK_INIT(socket_recvmsg, slim_data_recvmsg),
	SLIM_HOOK_INIT(socket_sendmsg, slim_data_sendmsg),
	SLIM_HOOK_INIT(socket_getsockopt, slim_data_getsockopt),
	SLIM_HOOK_INIT(netlink_attachskb, slim_netlink_attach),
	SLIM_HOOK_INIT(sock_recv_done, slim_data_sock_recv_done),
	SLIM_HOOK_INIT(sk_free_security, slim_data_sk_free),
	SLIM_HOOK_INIT(file_permission, slim_data_permission),
	SLIM_HOOK_INIT(file_read_done, slim_data_file_read_done),
	SLIM_HOOK_INIT(inode_free_security, slim_data_inode_gone),
	SLIM_HOOK_INIT(key_alloc, slim_data_key_alloc),
	SLIM_HOOK_INIT(key_free, slim_data_key_free),
	SLIM_HOOK_INIT(key_permission, slim_data_key_permission),
	SLIM_HOOK_INIT(sem_alloc_security, slim_data_sem_alloc),
	SLIM_HOOK_INIT(sem_free_security, slim_data_sem_free),
	SLIM_HOOK_INIT(sem_semop, slim_data_semop),
	SLIM_HOOK_INIT(sem_semctl, slim_data_semctl),
	SLIM_HOOK_INIT(inode_getxattr, slim_data_getxattr),
	SLIM_HOOK_INIT(task_kill, slim_data_task_kill),
	SLIM_HOOK_INIT(mmap_file, slim_data_mmap),
	SLIM_HOOK_INIT(file_mprotect, slim_data_mprotect),
	SLIM_HOOK_INIT(inode_init_security_anon, slim_data_anon_inode),
	SLIM_HOOK_INIT(file_ioctl, slim_data_ioctl),
};

int slim_lattice_data_add_hooks(void)
{
	return slim_add_hooks(slim_lattice_data_hooks,
			      ARRAY_SIZE(slim_lattice_data_hooks), "lattice");
}
