/* SPDX-License-Identifier: GPL-2.0 */
/*
 * every difference between the supported kernels (Debian 12's
 * 6.1 and 6.12) lives here. Feature-test macros, not version numbers,
 * where the kernel offers one.
 */
#ifndef SLIM_COMPAT_H
#define SLIM_COMPAT_H

#include <linux/ftrace.h>
#include <linux/fs.h>
#include <linux/ptrace.h>

/*
 * Argument n of the traced function, from the registers ftrace saved.
 * 6.12 has ftrace_regs_get_argument(); 6.1's x86 struct ftrace_regs is a
 * plain struct pt_regs filled in for the argument registers
 * (DYNAMIC_FTRACE_WITH_ARGS).
 */
#ifdef ftrace_regs_get_argument
#define slim_ftrace_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#else
#define slim_ftrace_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * Inode timestamps became accessor functions (ctime in 6.6, mtime in 6.7).
 * They are inline functions, not macros: Kbuild feature-tests the headers
 * and defines SLIM_HAVE_INODE_GET_[CM]TIME.
 */
static inline struct timespec64 slim_inode_mtime(const struct inode *inode)
{
#ifdef SLIM_HAVE_INODE_GET_MTIME
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

static inline struct timespec64 slim_inode_ctime(const struct inode *inode)
{
#ifdef SLIM_HAVE_INODE_GET_CTIME
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

#endif /* SLIM_COMPAT_H */
