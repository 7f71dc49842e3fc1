/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the supported kernels (Debian 12's
 * 6.1 and 6.12) lives here. Feature-test macros, not version numbers,
 * where the kernel offers one.
 */
#ifndef SLIM_COMPAT_H
#define SLIM_COMPAT_H

#include <linux/version.h>
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

/* ftrace_set_filter() takes a non-const buffer on 6.1. */
typedef unsigned char slim_filter_char;

/* Inode timestamps became accessor functions in 6.6/6.7. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
static inline struct timespec64 slim_inode_mtime(const struct inode *inode)
{
	return inode_get_mtime(inode);
}

static inline struct timespec64 slim_inode_ctime(const struct inode *inode)
{
	return inode_get_ctime(inode);
}
#else
static inline struct timespec64 slim_inode_mtime(const struct inode *inode)
{
	return inode->i_mtime;
}

static inline struct timespec64 slim_inode_ctime(const struct inode *inode)
{
	return inode->i_ctime;
}
#endif

#endif /* SLIM_COMPAT_H */
