// SPDX-License-Identifier: GPL-2.0
/*
 * slimtest OP... - runs operations in order in one process and prints one
 * line per operation, so that a VM scenario can check what the SLIM
 * lattice allowed and what it did to this process:
 *
 *   read FILE        open for reading and read it          "read OK|ERRNO"
 *   write FILE       open for appending, write a line      "write OK|ERRNO"
 *   create FILE      create (O_EXCL) and write a line      "create OK|ERRNO"
 *   openw FILE       open for appending, keep the fd       "openw OK|ERRNO"
 *   writefd          write a line on the kept fd           "writefd OK|ERRNO"
 *   openrw FILE      open for reading and writing, keep it "openrw OK|ERRNO"
 *   mmapfd           map the kept fd shared and writable   "mmapfd OK|ERRNO"
 *   setlabel FILE L  setxattr(security.slim, L)            "setlabel OK|ERRNO"
 *   put FILE TEXT    write TEXT to FILE (securityfs)       "put OK|ERRNO"
 *   dropcap          drop CAP_MAC_ADMIN (stays uid 0)      "dropcap OK|ERRNO"
 *   setxattr F N HEX setxattr(F, N, bytes in hex)          "setxattr OK|ERRNO"
 *   udp-send         send a datagram to 127.0.0.1          "udp-send OK|ERRNO"
 *   udp-recv         send one to itself and receive it     "udp-recv OK|ERRNO"
 *   level            this process's label (from tasks)     "level SYSTEM PUBLIC"
 *   fork-level       a child's label                       "fork-level ..."
 *   exec PROG ARG... replace this process (ends the list)
 *
 * and the operations between processes, on processes and through io_uring
 * listed in slimtest_ipc.c, slimtest_proc.c, slimtest_uring.c,
 * slimtest_splice.c and slimtest_data.c; and what root does to the
 * system itself, in slimtest_root.c.
 *
 * ERRNO is the symbolic name (EACCES, EPERM, ...). Exit status 0 unless
 * an operation could not even be attempted.
 */
#include <arpa/inet.h>
#include <linux/capability.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "slimtest.h"

#define TASKS "/sys/kernel/security/slim/tasks"

int kept = -1;

const char *ename(int e)
{
	switch (e) {
	case 0: return "OK";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOMEM: return "ENOMEM";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case EINVAL: return "EINVAL";
	case ESRCH: return "ESRCH";
	case ENOMSG: return "ENOMSG";
	case EFAULT: return "EFAULT";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOTSUP: return "ENOTSUP";
	case EBUSY: return "EBUSY";
	case ENOSYS: return "ENOSYS";
	case ENOTTY: return "ENOTTY";
	default: return strerror(e);
	}
}

void report(const char *op, int e)
{
	printf("%s %s\n", op, ename(e));
	fflush(stdout);
}

int do_read(const char *f)
{
	char buf[4096];
	int fd = open(f, O_RDONLY);

	if (fd < 0)
		return errno;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

static int do_write(const char *f, int flags)
{
	static const char line[] = "slimtest\n";
	int fd = open(f, flags, 0644), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, line, sizeof(line) - 1) < 0)
		e = errno;
	close(fd);
	return e;
}

static int do_mmapfd(void)
{
	void *p;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, kept, 0);
	if (p == MAP_FAILED)
		return errno;
	munmap(p, 4096);
	return 0;
}

static int do_put(const char *f, const char *text)
{
	int fd = open(f, O_WRONLY), e = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		e = errno;
	close(fd);
	return e;
}

/* Drops CAP_MAC_ADMIN from this process (root stays root). */
static int do_dropcap(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return errno;
	d[CAP_MAC_ADMIN / 32].effective &= ~(1u << (CAP_MAC_ADMIN % 32));
	d[CAP_MAC_ADMIN / 32].permitted &= ~(1u << (CAP_MAC_ADMIN % 32));
	return syscall(SYS_capset, &h, d) ? errno : 0;
}

/* setxattr(path, name, bytes given in hex) */
static int do_setxattr_hex(const char *f, const char *name, const char *hex)
{
	unsigned char v[512];
	size_t n = 0;
	unsigned int b;

	while (hex[0] && hex[1] && n < sizeof(v) &&
	       sscanf(hex, "%2x", &b) == 1) {
		v[n++] = (unsigned char)b;
		hex += 2;
	}
	return setxattr(f, name, v, n, 0) ? errno : 0;
}

static int do_udp(int recv_too)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	char buf[8];
	int s, e = 0;

	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return errno;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &al)) {
		e = errno;
		close(s);
		return e;
	}
	if (sendto(s, "x", 1, 0, (struct sockaddr *)&a, sizeof(a)) < 0)
		e = errno;
	else if (recv_too && recv(s, buf, sizeof(buf), 0) < 0)
		e = errno;
	close(s);
	return e;
}

/* the label of pid in the module's tasks file */
void print_level(const char *op, pid_t pid)
{
	char line[512];
	FILE *f = fopen(TASKS, "r");

	if (!f) {
		printf("%s ?%s\n", op, strerror(errno));
		fflush(stdout);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t'), *tab2;

		if (!tab || strtol(line, NULL, 10) != pid)
			continue;
		tab2 = strchr(tab + 1, '\t');
		if (tab2)
			*tab2 = '\0';
		printf("%s %s\n", op, tab + 1);
		fclose(f);
		fflush(stdout);
		return;
	}
	fclose(f);
	printf("%s ?not-listed\n", op);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int i = 1;

	while (i < argc) {
		const char *op = argv[i++];
		const char *a = i < argc ? argv[i] : NULL;

		if (!strcmp(op, "read") && a) {
			report(op, do_read(a));
			i++;
		} else if (!strcmp(op, "write") && a) {
			report(op, do_write(a, O_WRONLY | O_APPEND));
			i++;
		} else if (!strcmp(op, "create") && a) {
			report(op, do_write(a, O_WRONLY | O_CREAT | O_EXCL));
			i++;
		} else if (!strcmp(op, "openw") && a) {
			kept = open(a, O_WRONLY | O_APPEND);
			report(op, kept < 0 ? errno : 0);
			i++;
		} else if (!strcmp(op, "writefd")) {
			report(op, write(kept, "fd\n", 3) < 0 ? errno : 0);
		} else if (!strcmp(op, "openrw") && a) {
			kept = open(a, O_RDWR);
			report(op, kept < 0 ? errno : 0);
			i++;
		} else if (!strcmp(op, "mmapfd")) {
			report(op, do_mmapfd());
		} else if (!strcmp(op, "setlabel") && a && i + 1 < argc) {
			report(op, setxattr(a, "security.slim", argv[i + 1],
					    strlen(argv[i + 1]), 0) ?
					   errno : 0);
			i += 2;
		} else if (!strcmp(op, "dropcap")) {
			report(op, do_dropcap());
		} else if (!strcmp(op, "setxattr") && a && i + 2 < argc) {
			report(op, do_setxattr_hex(a, argv[i + 1], argv[i + 2]));
			i += 3;
		} else if (!strcmp(op, "put") && a && i + 1 < argc) {
			report(op, do_put(a, argv[i + 1]));
			i += 2;
		} else if (!strcmp(op, "udp-send")) {
			report(op, do_udp(0));
		} else if (!strcmp(op, "udp-recv")) {
			report(op, do_udp(1));
		} else if (!strcmp(op, "level")) {
			print_level(op, getpid());
		} else if (!strcmp(op, "fork-level")) {
			pid_t c = fork();

			if (c == 0) {
				print_level(op, getpid());
				_exit(0);
			}
			if (c > 0)
				waitpid(c, NULL, 0);
			else
				report(op, errno);
		} else if (!strcmp(op, "exec") && a) {
			execv(a, argv + i);
			report(op, errno);
			return 1;
		} else {
			int n = slimtest_ipc_op(op, argc, argv, i);

			if (n == -1)
				n = slimtest_proc_op(op, argc, argv, i);
			if (n == -1)
				n = slimtest_uring_op(op, argc, argv, i);
			if (n == -1)
				n = slimtest_splice_op(op, argc, argv, i);
			if (n == -1)
				n = slimtest_root_op(op, argc, argv, i);
			if (n == -1)
				n = slimtest_data_op(op, argc, argv, i);
			if (n < 0) {
				fprintf(stderr, "slimtest: bad operation '%s'\n",
					op);
				return 2;
			}
			i += n;
		}
	}
	return 0;
}
