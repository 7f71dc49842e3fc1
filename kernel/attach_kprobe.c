// SPDX-License-Identifier: GPL-2.0
/*
 * where received data arrives: return probes on the functions that hand a
 * pipe's or a UNIX socket's data to the reader.
 *
 * The LSM hooks of a read (file_permission, socket_recvmsg) run before the
 * reader waits for data: a reader that waits in an empty pipe passed them
 * before the writer wrote. So the reader takes the object's levels when
 * the read returns with data, before it is back in user space: a kretprobe
 * on pipe_read(), unix_stream_recvmsg(), unix_dgram_recvmsg() and
 * unix_seqpacket_recvmsg() (which ends in unix_dgram_recvmsg(), but
 * through a call the compiler may inline). The entry handler keeps the file or
 * the socket; the return handler applies the levels and, when the lattice
 * refuses the read in enforce mode, replaces the return value with the
 * error (the data was taken from the object but the reader does not get
 * it).
 *
 * A kretprobe has a fixed number of instances, one per call in flight (a
 * blocked reader holds one). When none is free the return is missed: the
 * kprobe counts it, and the next check reports it as a dropped lattice
 * record (the verifier then knows a demotion may be missing) and in
 * ipc_missed. Kprobes call the handlers through kernel text of their own,
 * like ftrace: nothing here calls through a looked-up address.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/fs.h>
#include <linux/net.h>
#include <linux/uio.h>
#include <net/sock.h>
#include "attach.h"
#include "hooks.h"

static unsigned int slim_inflight = 4096;
module_param_named(ipc_inflight, slim_inflight, uint, 0444);
MODULE_PARM_DESC(ipc_inflight, "Pipe and UNIX socket reads in flight that are followed to their return, per function (default 4096)");

struct slim_rprobe {
	struct kretprobe rp;
	bool registered;
	unsigned long missed;	/* nmissed already reported */
};

static int slim_pipe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kiocb *iocb = (struct kiocb *)regs_get_kernel_argument(regs, 0);

	*(struct file **)ri->data = iocb ? iocb->ki_filp : NULL;
	return 0;
}

static int slim_pipe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct file *file = *(struct file **)ri->data;
	int rc;

	if (!file || (long)regs_return_value(regs) <= 0)
		return 0;
	rc = slim_hook_pipe_read_done(file, GFP_ATOMIC);
	if (rc)
		regs_set_return_value(regs, rc);
	return 0;
}

static int slim_unix_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct socket *sock = (struct socket *)regs_get_kernel_argument(regs, 0);

	*(struct sock **)ri->data = sock ? sock->sk : NULL;
	return 0;
}

static int slim_unix_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sock *sk = *(struct sock **)ri->data;
	int rc;

	if (!sk || (long)regs_return_value(regs) <= 0)
		return 0;
	rc = slim_hook_unix_recv_done(sk);
	if (rc)
		regs_set_return_value(regs, rc);
	return 0;
}

/* netlink_recvmsg(), eventfd_read(), tty_read(): lattice_data.c */
static int slim_sock_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sock *sk = *(struct sock **)ri->data;
	int rc;

	if (!sk || (long)regs_return_value(regs) <= 0)
		return 0;
	rc = slim_hook_sock_recv_done(sk);
	if (rc)
		regs_set_return_value(regs, rc);
	return 0;
}

static int slim_file_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct file *file = *(struct file **)ri->data;
	int rc;

	if (!file || (long)regs_return_value(regs) <= 0)
		return 0;
	rc = slim_hook_file_read_done(file);
	if (rc)
		regs_set_return_value(regs, rc);
	return 0;
}

#define SLIM_RPROBE(sym, entry, ret, type) {				\
	.rp = {								\
		.kp.symbol_name = sym,					\
		.entry_handler = entry,					\
		.handler = ret,						\
		.data_size = sizeof(type),				\
	},								\
}

static struct slim_rprobe slim_rprobes[] = {
	SLIM_RPROBE("pipe_read", slim_pipe_entry, slim_pipe_ret,
		    struct file *),
	SLIM_RPROBE("unix_stream_recvmsg", slim_unix_entry, slim_unix_ret,
		    struct sock *),
	SLIM_RPROBE("unix_dgram_recvmsg", slim_unix_entry, slim_unix_ret,
		    struct sock *),
	/* its call of unix_dgram_recvmsg() is inlined in Debian's kernels */
	SLIM_RPROBE("unix_seqpacket_recvmsg", slim_unix_entry, slim_unix_ret,
		    struct sock *),
	SLIM_RPROBE("netlink_recvmsg", slim_unix_entry, slim_sock_ret,
		    struct sock *),
	SLIM_RPROBE("eventfd_read", slim_pipe_entry, slim_file_ret,
		    struct file *),
	SLIM_RPROBE("tty_read", slim_pipe_entry, slim_file_ret,
		    struct file *),
};

/*
 * Atomic context: hands each function's returns missed since the last look
 * to @report. The lattice looks through the core (slim_poll_missed())
 * when a read returns, and counts and reports them.
 */
static void slim_kprobes_check_missed(slim_missed_fn report)
{
	unsigned long now, seen;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(slim_rprobes); i++) {
		struct slim_rprobe *r = &slim_rprobes[i];

		if (!READ_ONCE(r->registered))
			continue;
		now = READ_ONCE(r->rp.nmissed);
		seen = READ_ONCE(r->missed);
		if (now == seen || cmpxchg(&r->missed, seen, now) != seen)
			continue;
		report(now - seen);
		pr_warn_ratelimited("%lu returns of %s missed (ipc_inflight=%u): reported as dropped lattice events\n",
				    now - seen, r->rp.kp.symbol_name,
				    slim_inflight);
	}
}

int slim_kprobes_init(void)
{
	unsigned int i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(slim_rprobes); i++) {
		struct slim_rprobe *r = &slim_rprobes[i];

		r->rp.maxactive = max(slim_inflight, 16u);
		r->rp.nmissed = 0;
		r->rp.kp.addr = NULL;
		r->rp.kp.flags = 0;
		r->missed = 0;
		rc = register_kretprobe(&r->rp);
		if (rc) {
			pr_err("cannot probe the return of %s: %d\n",
			       r->rp.kp.symbol_name, rc);
			slim_kprobes_exit();
			return rc;
		}
		WRITE_ONCE(r->registered, true);
	}
	slim_set_missed_poll(slim_kprobes_check_missed);
	return 0;
}

/*
 * unregister_kretprobe() returns when no handler runs; a reader still
 * blocked returns through the kprobes' own trampoline, which no longer
 * calls this module.
 */
void slim_kprobes_exit(void)
{
	int i;

	slim_set_missed_poll(NULL);
	for (i = ARRAY_SIZE(slim_rprobes) - 1; i >= 0; i--) {
		struct slim_rprobe *r = &slim_rprobes[i];

		if (!r->registered)
			continue;
		WRITE_ONCE(r->registered, false);
		unregister_kretprobe(&r->rp);
	}
}
