// SPDX-License-Identifier: GPL-2.0
/*
 * reaching the hooks on a stock kernel.
 *
 * A loadable module cannot register LSM hooks, so an ftrace callback is
 * placed on the entry of each security_*() function whose LSM hook we
 * implement. The callback reads the arguments from the saved registers and
 * calls the hook function with its LSM signature. It never calls kernel
 * text through a looked-up address (CET-IBT, see README.md). When a hook
 * denies, the callback changes the saved instruction pointer to a stub in
 * this module that returns the error: the traced function does not run and
 * its caller sees the error, as if an LSM had refused. The callbacks run
 * with preemption disabled; the hooks decide from cached state and queue
 * sleepable work (measure.c); label reads happen in the sleepable open
 * hook (attach_fsnotify.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/string.h>
#include <linux/binfmts.h>
#include "slim.h"
#include "compat.h"

struct slim_ftrace_hook {
	const char *symbol;
	ftrace_func_t func;
	bool can_deny;		/* may send the caller to a denial stub */
	struct ftrace_ops ops;
	bool registered;
};

/*
 * Denial: the traced security_*() function is not run; its caller returns
 * from one of these stubs instead, with the error the hook chose. The stub
 * is reached by the ftrace trampoline's return (the same way a live patch
 * is), not called through a pointer.
 */
static noinline notrace int slim_stub_eacces(void)
{
	return -EACCES;
}

static noinline notrace int slim_stub_eperm(void)
{
	return -EPERM;
}

static noinline notrace int slim_stub_enomem(void)
{
	return -ENOMEM;
}

static void notrace slim_ft_deny(struct ftrace_regs *fregs, int rc)
{
	unsigned long stub;

	if (!rc)
		return;
	if (rc == -ENOMEM)
		stub = (unsigned long)slim_stub_enomem;
	else if (rc == -EPERM)
		stub = (unsigned long)slim_stub_eperm;
	else
		stub = (unsigned long)slim_stub_eacces;
	slim_ftrace_set_ip(fregs, stub);
}

static void notrace slim_ft_bprm_check(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	struct linux_binprm *bprm;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	bprm = (struct linux_binprm *)slim_ftrace_arg(fregs, 0);
	slim_bprm_check_security(bprm);
	ftrace_test_recursion_unlock(bit);
}

/* security_mmap_file(file, prot, flags): prot as requested by the caller */
static void notrace slim_ft_mmap_file(unsigned long ip,
				      unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	unsigned long prot, flags;
	struct file *file;
	int bit, rc;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	file = (struct file *)slim_ftrace_arg(fregs, 0);
	prot = slim_ftrace_arg(fregs, 1);
	flags = slim_ftrace_arg(fregs, 2);
	rc = slim_lattice_mmap(file, prot, flags);
	if (!rc)
		slim_mmap_file(file, prot, prot, flags);
	slim_ft_deny(fregs, rc);
	ftrace_test_recursion_unlock(bit);
}

static void notrace slim_ft_file_open(unsigned long ip,
				      unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	struct file *file;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	file = (struct file *)slim_ftrace_arg(fregs, 0);
	slim_file_open(file);
	/* a regular file on a superblock the open hook does not watch yet */
	if (slim_lattice_on() && S_ISREG(file_inode(file)->i_mode) &&
	    !slim_watched(file_inode(file)->i_sb)) {
		slim_count(SLIM_C_UNWATCHED);
		slim_watch_sb_later(file_inode(file)->i_sb);
	}
	ftrace_test_recursion_unlock(bit);
}

static void notrace slim_ft_file_permission(unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct ftrace_regs *fregs)
{
	int bit, rc;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	rc = slim_file_permission((struct file *)slim_ftrace_arg(fregs, 0),
				  (int)slim_ftrace_arg(fregs, 1));
	slim_ft_deny(fregs, rc);
	ftrace_test_recursion_unlock(bit);
}

static void notrace slim_ft_socket_sendmsg(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct ftrace_regs *fregs)
{
	int bit, rc;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	rc = slim_socket_sendmsg((struct socket *)slim_ftrace_arg(fregs, 0),
				 (struct msghdr *)slim_ftrace_arg(fregs, 1),
				 (int)slim_ftrace_arg(fregs, 2));
	slim_ft_deny(fregs, rc);
	ftrace_test_recursion_unlock(bit);
}

static void notrace slim_ft_socket_recvmsg(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct ftrace_regs *fregs)
{
	int bit, rc;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	rc = slim_socket_recvmsg((struct socket *)slim_ftrace_arg(fregs, 0),
				 (struct msghdr *)slim_ftrace_arg(fregs, 1),
				 (int)slim_ftrace_arg(fregs, 2),
				 (int)slim_ftrace_arg(fregs, 3));
	slim_ft_deny(fregs, rc);
	ftrace_test_recursion_unlock(bit);
}

static void notrace slim_ft_task_alloc(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	int bit, rc;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	rc = slim_task_alloc((struct task_struct *)slim_ftrace_arg(fregs, 0),
			     slim_ftrace_arg(fregs, 1));
	slim_ft_deny(fregs, rc);
	ftrace_test_recursion_unlock(bit);
}

static void notrace slim_ft_task_free(unsigned long ip,
				      unsigned long parent_ip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	slim_task_free((struct task_struct *)slim_ftrace_arg(fregs, 0));
	ftrace_test_recursion_unlock(bit);
}

static void notrace slim_ft_bprm_committed(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct ftrace_regs *fregs)
{
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	slim_bprm_committed_creds((const struct linux_binprm *)
				  slim_ftrace_arg(fregs, 0));
	ftrace_test_recursion_unlock(bit);
}

/* inode_setxattr(idmap, dentry, name, ...) and inode_removexattr(idmap,
 * dentry, name): the idmap's type differs between kernels, unused here
 */
static void notrace slim_ft_inode_xattr(unsigned long ip,
					unsigned long parent_ip,
					struct ftrace_ops *op,
					struct ftrace_regs *fregs)
{
	int bit, rc;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	rc = slim_inode_setxattr((struct dentry *)slim_ftrace_arg(fregs, 1),
				 (const char *)slim_ftrace_arg(fregs, 2));
	slim_ft_deny(fregs, rc);
	ftrace_test_recursion_unlock(bit);
}

/* inode_setattr(idmap, dentry, attr) */
static void notrace slim_ft_inode_setattr(unsigned long ip,
					  unsigned long parent_ip,
					  struct ftrace_ops *op,
					  struct ftrace_regs *fregs)
{
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	slim_inode_setattr((struct dentry *)slim_ftrace_arg(fregs, 1));
	ftrace_test_recursion_unlock(bit);
}

static void notrace slim_ft_inode_free(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	slim_inode_free_security((struct inode *)slim_ftrace_arg(fregs, 0));
	ftrace_test_recursion_unlock(bit);
}

/* a new mount: its superblock is watched before mount(2) returns */
static void notrace slim_ft_sb_kern_mount(unsigned long ip,
					  unsigned long parent_ip,
					  struct ftrace_ops *op,
					  struct ftrace_regs *fregs)
{
	struct super_block *sb;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	sb = (struct super_block *)slim_ftrace_arg(fregs, 0);
	if (slim_lattice_on() && !slim_watched(sb))
		slim_watch_sb_later(sb);
	ftrace_test_recursion_unlock(bit);
}

static struct slim_ftrace_hook slim_hooks[] = {
	{ .symbol = "security_task_free", .func = slim_ft_task_free },
	{ .symbol = "security_inode_free", .func = slim_ft_inode_free },
	{ .symbol = "security_task_alloc", .func = slim_ft_task_alloc,
	  .can_deny = true },
	{ .symbol = "security_bprm_committed_creds",
	  .func = slim_ft_bprm_committed },
	{ .symbol = "security_sb_kern_mount", .func = slim_ft_sb_kern_mount },
	{ .symbol = "security_inode_setxattr", .func = slim_ft_inode_xattr,
	  .can_deny = true },
	{ .symbol = "security_inode_removexattr", .func = slim_ft_inode_xattr,
	  .can_deny = true },
	{ .symbol = "security_inode_setattr", .func = slim_ft_inode_setattr },
	{ .symbol = "security_file_permission",
	  .func = slim_ft_file_permission, .can_deny = true },
	{ .symbol = "security_socket_sendmsg", .func = slim_ft_socket_sendmsg,
	  .can_deny = true },
	{ .symbol = "security_socket_recvmsg", .func = slim_ft_socket_recvmsg,
	  .can_deny = true },
	{ .symbol = "security_bprm_check", .func = slim_ft_bprm_check },
	{ .symbol = "security_mmap_file", .func = slim_ft_mmap_file,
	  .can_deny = true },
	{ .symbol = "security_file_open", .func = slim_ft_file_open },
};

static int slim_hook_register(struct slim_ftrace_hook *h)
{
	unsigned char name[KSYM_NAME_LEN];
	int rc;

	strscpy((char *)name, h->symbol, sizeof(name));
	memset(&h->ops, 0, sizeof(h->ops));
	h->ops.func = h->func;
	if (h->can_deny)
		h->ops.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY;
	rc = ftrace_set_filter(&h->ops, name, strlen(h->symbol), 1);
	if (rc) {
		pr_err("cannot trace %s: %d\n", h->symbol, rc);
		return rc;
	}
	rc = register_ftrace_function(&h->ops);
	if (rc) {
		pr_err("cannot attach to %s: %d\n", h->symbol, rc);
		ftrace_free_filter(&h->ops);
		return rc;
	}
	h->registered = true;
	return 0;
}

int slim_attach(void)
{
	unsigned int i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(slim_hooks); i++) {
		rc = slim_hook_register(&slim_hooks[i]);
		if (rc) {
			slim_detach();
			return rc;
		}
	}
	return 0;
}

/*
 * unregister_ftrace_function() returns only when no CPU can still be inside
 * the callback, so after this no hook function runs.
 */
void slim_detach(void)
{
	int i;

	for (i = ARRAY_SIZE(slim_hooks) - 1; i >= 0; i--) {
		struct slim_ftrace_hook *h = &slim_hooks[i];

		if (!h->registered)
			continue;
		unregister_ftrace_function(&h->ops);
		ftrace_free_filter(&h->ops);
		h->registered = false;
	}
}
