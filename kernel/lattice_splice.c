// SPDX-License-Identifier: GPL-2.0
/*
 * data that moves without read(2) or write(2): splice, tee and vmsplice
 * through a pipe, and POSIX message queues.
 *
 *   get_pipe_info(file, true) is how splice(2), tee(2) and vmsplice(2)
 *   (and io_uring's splice and tee) reach a pipe: through an end open for
 *   writing the pipe takes the caller's levels, as from a write; through an
 *   end open for reading the caller takes the pipe's levels, as from a
 *   read. (A FIFO open for both is both.)
 *   do_splice() from something that is not a pipe into a pipe: the pipe
 *   also takes the levels of the source (a file, whose read itself demotes
 *   the caller later; a socket, whose receive does it here).
 *   sock_sendpage() (6.1): splice and sendfile into a socket, checked as
 *   a sendmsg().
 *   A POSIX message (and a SysV one) carries its sender's levels from its
 *   allocation in load_msg(); store_msg(), which copies a message to its
 *   receiver, applies them to the receiver. SysV messages were applied
 *   already in msgrcv (lattice_ipc.c): for them this finds nothing new.
 *
 * Every function here runs in an ftrace callback (atomic context).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/net.h>
#include <net/sock.h>
#include "lattice.h"
#include "hooks.h"

static bool slim_is_pipe(const struct file *file)
{
	return file && S_ISFIFO(file_inode(file)->i_mode);
}

int slim_pipe_info(struct file *file, bool for_splice)
{
	int rc;

	if (!for_splice || !slim_is_pipe(file) || !slim_lattice_on() ||
	    !slim_lattice_task())
		return 0;
	if (file->f_mode & FMODE_WRITE) {
		rc = slim_pipe_write(file);
		if (rc)
			return rc;
	}
	if (file->f_mode & FMODE_READ)
		return slim_pipe_read_done(file, GFP_ATOMIC);
	return 0;
}

/*
 * What a socket gives its reader: an IP socket UNTRUSTED PUBLIC, a UNIX
 * socket what was written into it. False for other families.
 */
static bool slim_sock_source(struct file *in, struct slim_level *lvl,
			     enum slim_cause *cause)
{
	struct socket *sock = sock_from_file(in);
	struct sock *sk = sock ? sock->sk : NULL;

	if (!sk)
		return false;
	if (sk->sk_family == AF_INET || sk->sk_family == AF_INET6) {
		*lvl = slim_ip_level;
		*cause = SLIM_CAUSE_IP;
		return true;
	}
	if (sk->sk_family == AF_UNIX) {
		*lvl = slim_obj_level(sk);
		*cause = SLIM_CAUSE_UNIX;
		return true;
	}
	return false;
}

/* splice(2) from @in, which is not a pipe, into the pipe @out */
int slim_splice(struct file *in, struct file *out)
{
	struct slim_level t, src, w;
	enum slim_cause cause = SLIM_CAUSE_FILE;
	bool sock;

	if (!in || !slim_is_pipe(out) || slim_is_pipe(in) ||
	    !slim_lattice_on() || !slim_lattice_task())
		return 0;
	sock = S_ISSOCK(file_inode(in)->i_mode);
	if (sock) {
		if (!slim_sock_source(in, &src, &cause))
			return 0;
	} else if (slim_lattice_file(in)) {
		slim_inode_level(file_inode(in), &src);
	} else {
		return 0;
	}
	t = slim_task_level(current);
	w = slim_written_level(&t);
	w.integ = min(w.integ, src.integ);
	w.secr = max(w.secr, src.secr);
	if (slim_obj_lower(file_inode(out), &w, GFP_ATOMIC))
		return slim_deny(SLIM_RULE_NOMEM, &out->f_path, NULL, &t, &t);
	/* a file's read demotes in rw_verify_area(); a socket's here */
	if (!sock)
		return 0;
	return slim_read_from(current, cause, NULL, &t, &src, GFP_ATOMIC);
}

/* POSIX and SysV messages: load_msg() in the sender's context */
int slim_msg_alloc(struct msg_msg *msg)
{
	struct slim_level t, w;

	if (!msg || !slim_lattice_on() || !slim_lattice_task())
		return 0;
	t = slim_task_level(current);
	w = slim_written_level(&t);
	if (slim_obj_lower(msg, &w, GFP_ATOMIC))
		return slim_deny_named(SLIM_RULE_NOMEM, "object",
				       slim_cause_name(SLIM_CAUSE_MQUEUE), &t,
				       &t);
	return 0;
}

/*
 * store_msg(): the receiver (current) copies @msg out. A refusal makes
 * store_msg() fail: mq_timedreceive() returns EFAULT and the message is
 * gone, as the data of a refused pipe read is.
 */
int slim_msg_store(struct msg_msg *msg)
{
	struct slim_level t, obj;

	if (!msg || !slim_lattice_on() || !slim_lattice_task())
		return 0;
	t = slim_task_level(current);
	obj = slim_obj_level(msg);
	return slim_read_from(current, SLIM_CAUSE_MQUEUE, NULL, &t, &obj,
			      GFP_ATOMIC);
}

/*
 * 6.1: splice(2) and sendfile(2) into a socket reach it through the
 * socket file's sendpage (sock_sendpage()), which calls no LSM hook: it is
 * checked here as a sendmsg() is (secrecy for an IP socket, the sender's
 * levels into a UNIX stream peer). 6.12 sends spliced pages with
 * sendmsg(), and has no sock_sendpage().
 */
int slim_sock_sendpage(struct file *file)
{
	struct socket *sock = file ? sock_from_file(file) : NULL;

	return sock ? slim_socket_sendmsg(sock, NULL, 0) : 0;
}

static const struct slim_hook slim_lattice_splice_hooks[] = {
	SLIM_HOOK_INIT(get_pipe_info, slim_pipe_info),
	SLIM_HOOK_INIT(do_splice, slim_splice),
	SLIM_HOOK_INIT(msg_msg_alloc_security, slim_msg_alloc),
	SLIM_HOOK_INIT(store_msg, slim_msg_store),
	SLIM_HOOK_INIT(sock_sendpage, slim_sock_sendpage),
};

int slim_lattice_splice_add_hooks(void)
{
	return slim_add_hooks(slim_lattice_splice_hooks,
			      ARRAY_SIZE(slim_lattice_splice_hooks), "lattice");
}
