// SPDX-License-Identifier: GPL-2.0
/*
 * slimtest_root.c - what a root process does to the system itself
 * (tests/vm/guest/root.sh: a task below SYSTEM integrity may not):
 *
 *   finit FILE       finit_module(FILE)                      "finit OK|ERRNO"
 *   kexec-unload     kexec_load() with no segments (unload) "kexec-unload OK|ERRNO"
 *   bpf-prog         load a 2-instruction socket filter     "bpf-prog OK|ERRNO"
 *   ioperm           ioperm(0x80, 1, 1)                     "ioperm OK|ERRNO"
 *   iopl             iopl(3)                                "iopl OK|ERRNO"
 *   opendev DEV      open DEV for reading                   "opendev OK|ERRNO"
 *   blkwrite DEV     write one block at offset 0 of DEV     "blkwrite OK|ERRNO"
 *   discard DEV      BLKDISCARD of DEV's first 4096 bytes   "discard OK|ERRNO"
 *   zeroout DEV      BLKZEROOUT of DEV's first 4096 bytes   "zeroout OK|ERRNO"
 *   loopset LOOP F   LOOP_SET_FD of F on LOOP, then clear   "loopset OK|ERRNO"
 *   setflags         FS_IOC_SETFLAGS on the kept fd, with
 *                    the flags it has (changes nothing)     "setflags OK|ERRNO"
 *   moveext DONOR    EXT4_IOC_MOVE_EXT of the kept fd's first
 *                    block from DONOR (created, one block)  "moveext OK|ERRNO"
 *   tiocsti          inject a character into a new pty      "tiocsti OK|ERRNO"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "slimtest.h"

/* ext4's move-extent ioctl (fs/ext4/ext4.h: not in the uapi headers) */
struct slimtest_move_extent {
	uint32_t reserved;
	uint32_t donor_fd;
	uint64_t orig_start;
	uint64_t donor_start;
	uint64_t len;
	uint64_t moved_len;
};

#define SLIMTEST_EXT4_IOC_MOVE_EXT _IOWR('f', 15, struct slimtest_move_extent)

static int do_finit(const char *f)
{
	int fd = open(f, O_RDONLY), e = 0;

	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		e = errno;
	close(fd);
	return e;
}

static int do_bpf_prog(void)
{
	/* r0 = 0; exit */
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uintptr_t)"GPL";
	fd = syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int do_open(const char *f, int flags)
{
	int fd = open(f, flags);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int do_blkwrite(const char *dev)
{
	static char block[4096];
	int fd = open(dev, O_WRONLY), e = 0;

	if (fd < 0)
		return errno;
	memset(block, 'L', sizeof(block));
	if (pwrite(fd, block, sizeof(block), 0) < 0)
		e = errno;
	close(fd);
	return e;
}

static int do_blkrange(const char *dev, unsigned long cmd)
{
	uint64_t range[2] = { 0, 4096 };
	int fd = open(dev, O_WRONLY), e = 0;

	if (fd < 0)
		return errno;
	if (ioctl(fd, cmd, range))
		e = errno;
	close(fd);
	return e;
}

static int do_loopset(const char *loop, const char *f)
{
	int lfd = open(loop, O_RDWR), ffd, e = 0;

	if (lfd < 0)
		return errno;
	ffd = open(f, O_RDWR);
	if (ffd < 0) {
		e = errno;
		close(lfd);
		return e;
	}
	if (ioctl(lfd, LOOP_SET_FD, ffd))
		e = errno;
	else
		ioctl(lfd, LOOP_CLR_FD, 0);
	close(ffd);
	close(lfd);
	return e;
}

static int do_setflags(void)
{
	long flags;

	if (ioctl(kept, FS_IOC_GETFLAGS, &flags))
		return errno;
	return ioctl(kept, FS_IOC_SETFLAGS, &flags) ? errno : 0;
}

static int do_moveext(const char *donor)
{
	static char block[4096];
	struct slimtest_move_extent me;
	int fd, e = 0;

	fd = open(donor, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return errno;
	memset(block, 'D', sizeof(block));
	if (pwrite(fd, block, sizeof(block), 0) < 0 || fsync(fd)) {
		e = errno;
		close(fd);
		return e;
	}
	memset(&me, 0, sizeof(me));
	me.donor_fd = fd;
	me.len = 1;
	if (ioctl(kept, SLIMTEST_EXT4_IOC_MOVE_EXT, &me))
		e = errno;
	close(fd);
	return e;
}

static int do_tiocsti(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s, e = 0;
	char c = 'x';

	if (m < 0)
		return errno;
	if (grantpt(m) || unlockpt(m)) {
		e = errno;
		close(m);
		return e;
	}
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0) {
		e = errno;
		close(m);
		return e;
	}
	if (ioctl(s, TIOCSTI, &c))
		e = errno;
	close(s);
	close(m);
	return e;
}

int slimtest_root_op(const char *op, int argc, char **argv, int i)
{
	const char *a = i < argc ? argv[i] : NULL;

	if (!strcmp(op, "kexec-unload")) {
		report(op, syscall(SYS_kexec_load, 0UL, 0UL, NULL, 0UL) ?
				   errno : 0);
		return 0;
	}
	if (!strcmp(op, "bpf-prog")) {
		report(op, do_bpf_prog());
		return 0;
	}
	if (!strcmp(op, "ioperm")) {
		report(op, ioperm(0x80, 1, 1) ? errno : 0);
		return 0;
	}
	if (!strcmp(op, "iopl")) {
		report(op, iopl(3) ? errno : 0);
		return 0;
	}
	if (!strcmp(op, "setflags")) {
		report(op, do_setflags());
		return 0;
	}
	if (!strcmp(op, "tiocsti")) {
		report(op, do_tiocsti());
		return 0;
	}
	/* TCGETS on the kept file (what Python does to every file it opens) */
	if (!strcmp(op, "isatty")) {
		report(op, isatty(kept) ? 0 : errno);
		return 0;
	}
	if (strcmp(op, "finit") && strcmp(op, "opendev") &&
	    strcmp(op, "blkwrite") && strcmp(op, "discard") &&
	    strcmp(op, "zeroout") && strcmp(op, "loopset") &&
	    strcmp(op, "moveext"))
		return -1;
	if (!a)
		return -2;
	if (!strcmp(op, "finit"))
		report(op, do_finit(a));
	else if (!strcmp(op, "opendev"))
		report(op, do_open(a, O_RDONLY));
	else if (!strcmp(op, "blkwrite"))
		report(op, do_blkwrite(a));
	else if (!strcmp(op, "discard"))
		report(op, do_blkrange(a, BLKDISCARD));
	else if (!strcmp(op, "zeroout"))
		report(op, do_blkrange(a, BLKZEROOUT));
	else if (!strcmp(op, "moveext"))
		report(op, do_moveext(a));
	else if (i + 1 >= argc)
		return -2;
	else {
		report(op, do_loopset(a, argv[i + 1]));
		return 2;
	}
	return 1;
}
