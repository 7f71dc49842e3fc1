// SPDX-License-Identifier: GPL-2.0
/*
 * slimtest's operations on data that moves without read(2) or write(2):
 *
 *   splice-out LOW FILE  a child reads LOW and writes into a pipe; this
 *                        process splices the pipe into FILE     "splice-out OK|ERRNO"
 *   splice-sock          a TCP connection to itself on 127.0.0.1: one byte
 *                        sent, spliced from the socket into a pipe "splice-sock ..."
 *   tee-from LOW         a child reads LOW and writes into a pipe; this
 *                        process tees it into a second pipe     "tee-from ..."
 *   vmsplice-from LOW    ... and vmsplices it into its memory   "vmsplice-from ..."
 *   pipe-reader          fork a child (with this process's levels now) that
 *                        waits for one byte on a new pipe, then prints
 *                        "pipe-reader LEVEL" (its levels after the read)
 *   vmsplice-to          vmsplice one byte into that pipe and wait for the
 *                        child                                  "vmsplice-to ..."
 *   splice-to FILE       splice one byte of FILE into that pipe, wait  "splice-to ..."
 *   splice-unix LOW      a child reads LOW, writes into a pipe and splices
 *                        it into a UNIX stream socket; this process
 *                        receives the byte                      "splice-unix ..."
 *   sendfile-udp FILE    sendfile() one byte of FILE to a UDP socket on
 *                        127.0.0.1                              "sendfile-udp ..."
 *   mq-from LOW          a child reads LOW and sends a POSIX message this
 *                        process waits for                      "mq-from ..."
 *   mq-queued LOW        the message queued before mq_receive   "mq-queued ..."
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slimtest.h"

static int reader_pipe = -1;
static pid_t reader = -1;

/* a child reads @low, then writes one byte into a new pipe: its read end */
static int pipe_from_child(const char *low, pid_t *pid)
{
	int p[2];

	if (pipe(p))
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		close(p[0]);
		slimtest_unmap_kept();
		if (strcmp(low, "-") && do_read(low))
			_exit(1);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	close(p[1]);
	waitpid(*pid, NULL, 0);
	return p[0];
}

/* (splice refuses a file open with O_APPEND: it writes at the end) */
static int op_splice_out(const char *low, const char *file)
{
	int in, out, e = 0;
	loff_t end;
	pid_t pid;

	out = open(file, O_WRONLY);
	if (out < 0)
		return errno;
	end = lseek(out, 0, SEEK_END);
	in = pipe_from_child(low, &pid);
	if (in < 0) {
		e = errno;
	} else {
		if (splice(in, NULL, out, &end, 1, 0) != 1)
			e = errno ? errno : EIO;
		close(in);
	}
	close(out);
	return e;
}

static int op_splice_sock(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int l, c = -1, s = -1, p[2] = { -1, -1 }, e = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		return errno;
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al) ||
	    (c = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)) ||
	    (s = accept(l, NULL, NULL)) < 0 || send(c, "x", 1, 0) != 1 ||
	    pipe(p))
		e = errno ? errno : EIO;
	else if (splice(s, NULL, p[1], NULL, 1, 0) != 1)
		e = errno ? errno : EIO;
	close(p[0]);
	close(p[1]);
	if (s >= 0)
		close(s);
	if (c >= 0)
		close(c);
	close(l);
	return e;
}

static int op_tee_from(const char *low)
{
	int in, p[2], e = 0;
	pid_t pid;

	in = pipe_from_child(low, &pid);
	if (in < 0)
		return errno;
	if (pipe(p)) {
		e = errno;
	} else {
		if (tee(in, p[1], 1, 0) != 1)
			e = errno ? errno : EIO;
		close(p[0]);
		close(p[1]);
	}
	close(in);
	return e;
}

static int op_vmsplice_from(const char *low)
{
	char c;
	struct iovec v = { .iov_base = &c, .iov_len = 1 };
	int in, e = 0;
	pid_t pid;

	in = pipe_from_child(low, &pid);
	if (in < 0)
		return errno;
	if (vmsplice(in, &v, 1, 0) != 1)
		e = errno ? errno : EIO;
	close(in);
	return e;
}

static int op_pipe_reader(void)
{
	int p[2];
	char c;

	if (pipe(p))
		return errno;
	reader = fork();
	if (reader < 0)
		return errno;
	if (reader == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		print_level("pipe-reader", getpid());
		_exit(0);
	}
	close(p[0]);
	reader_pipe = p[1];
	return 0;
}

static int reader_wait(int e)
{
	int st;

	close(reader_pipe);
	reader_pipe = -1;
	if (waitpid(reader, &st, 0) != reader || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return e ? e : EIO;
	return e;
}

static int op_vmsplice_to(void)
{
	static char x = 'x';
	struct iovec v = { .iov_base = &x, .iov_len = 1 };
	int e = 0;

	if (vmsplice(reader_pipe, &v, 1, 0) != 1)
		e = errno ? errno : EIO;
	return reader_wait(e);
}

static int op_splice_to(const char *file)
{
	int fd = open(file, O_RDONLY), e = 0;

	if (fd < 0) {
		e = errno;
	} else {
		if (splice(fd, NULL, reader_pipe, NULL, 1, 0) != 1)
			e = errno ? errno : EIO;
		close(fd);
	}
	return reader_wait(e);
}

static int op_splice_unix(const char *low)
{
	int sv[2], e = 0, st;
	char c;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		int p[2];

		close(sv[0]);
		slimtest_unmap_kept();
		if (strcmp(low, "-") && do_read(low))
			_exit(1);
		if (pipe(p) || write(p[1], "x", 1) != 1)
			_exit(2);
		_exit(splice(p[0], NULL, sv[1], NULL, 1, 0) == 1 ? 0 : 3);
	}
	close(sv[1]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		e = EIO;
	else if (recv(sv[0], &c, 1, 0) != 1)
		e = errno ? errno : EIO;
	close(sv[0]);
	return e;
}

static int op_sendfile_udp(const char *file)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int r, s = -1, fd, e = 0;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		return errno;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	r = socket(AF_INET, SOCK_DGRAM, 0);
	if (r < 0 || bind(r, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(r, (struct sockaddr *)&a, &al) ||
	    (s = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    connect(s, (struct sockaddr *)&a, sizeof(a)))
		e = errno ? errno : EIO;
	else if (sendfile(s, fd, NULL, 1) != 1)
		e = errno ? errno : EIO;
	if (s >= 0)
		close(s);
	if (r >= 0)
		close(r);
	close(fd);
	return e;
}

static int op_mq(const char *low, int queued)
{
	struct mq_attr at = { .mq_maxmsg = 4, .mq_msgsize = 8 };
	char name[40], buf[8];
	int e = 0, st;
	mqd_t q;
	pid_t pid;

	snprintf(name, sizeof(name), "/slimtest-%d", (int)getpid());
	mq_unlink(name);
	q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &at);
	if (q == (mqd_t)-1)
		return errno;
	mq_unlink(name);
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		slimtest_unmap_kept();
		if (strcmp(low, "-") && do_read(low))
			_exit(1);
		if (!queued)
			usleep(200000);
		_exit(mq_send(q, "x", 1, 0) ? 1 : 0);
	}
	if (queued)
		waitpid(pid, &st, 0);
	if (mq_receive(q, buf, sizeof(buf), NULL) != 1)
		e = errno ? errno : EIO;
	if (!queued)
		waitpid(pid, &st, 0);
	mq_close(q);
	if (!e && (!WIFEXITED(st) || WEXITSTATUS(st)))
		e = EIO;
	return e;
}

int slimtest_splice_op(const char *op, int argc, char **argv, int i)
{
	const char *a = i < argc ? argv[i] : NULL;

	if (!strcmp(op, "splice-out")) {
		if (i + 1 >= argc)
			return -2;
		report(op, op_splice_out(a, argv[i + 1]));
		return 2;
	}
	if (!strcmp(op, "splice-sock")) {
		report(op, op_splice_sock());
		return 0;
	}
	if (!strcmp(op, "pipe-reader")) {
		report(op, op_pipe_reader());
		return 0;
	}
	if (!strcmp(op, "vmsplice-to")) {
		report(op, op_vmsplice_to());
		return 0;
	}
	if (!a)
		return -1;
	if (!strcmp(op, "tee-from"))
		report(op, op_tee_from(a));
	else if (!strcmp(op, "vmsplice-from"))
		report(op, op_vmsplice_from(a));
	else if (!strcmp(op, "splice-unix"))
		report(op, op_splice_unix(a));
	else if (!strcmp(op, "sendfile-udp"))
		report(op, op_sendfile_udp(a));
	else if (!strcmp(op, "splice-to"))
		report(op, op_splice_to(a));
	else if (!strcmp(op, "mq-from") || !strcmp(op, "mq-queued"))
		report(op, op_mq(a, op[3] == 'q'));
	else
		return -1;
	return 1;
}
