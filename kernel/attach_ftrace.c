// SPDX-License-Identifier: GPL-2.0
/*
 * reaching the hooks on a stock kernel.
 *
 * A loadable module cannot register LSM hooks, so an ftrace callback is
 * placed on the entry of each security_*() function whose LSM hook we
 * implement. The callback reads the arguments from the saved registers and
 * calls the hook function with its LSM signature. It never changes the
 * instruction pointer and never calls kernel text through a looked-up
 * address: the traced function simply continues (safe with CET-IBT, see
 * README.md). The callback runs with preemption disabled; the hooks only
 * decide and queue sleepable work (measure.c).
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
	struct ftrace_ops ops;
	bool registered;
};

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
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	file = (struct file *)slim_ftrace_arg(fregs, 0);
	prot = slim_ftrace_arg(fregs, 1);
	flags = slim_ftrace_arg(fregs, 2);
	slim_mmap_file(file, prot, prot, flags);
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
	ftrace_test_recursion_unlock(bit);
}

static struct slim_ftrace_hook slim_hooks[] = {
	{ .symbol = "security_bprm_check", .func = slim_ft_bprm_check },
	{ .symbol = "security_mmap_file", .func = slim_ft_mmap_file },
	{ .symbol = "security_file_open", .func = slim_ft_file_open },
};

static int slim_hook_register(struct slim_ftrace_hook *h)
{
	unsigned char name[KSYM_NAME_LEN];
	int rc;

	strscpy((char *)name, h->symbol, sizeof(name));
	memset(&h->ops, 0, sizeof(h->ops));
	h->ops.func = h->func;
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
