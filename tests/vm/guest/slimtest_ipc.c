// SPDX-License-Identifier: GPL-2.0
/*
 * slimtest's operations between processes. In each "-from" operation a
 * child reads LOW (a lower-integrity file: the child is demoted, "-" for
 * none), then sends one byte to this process through the object; this
 * process receives it and prints whether it could:
 *
 *   pipe-from LOW          a pipe this process already waits on     "pipe-from OK|ERRNO"
 *   pipe-queued LOW        a pipe written before this process reads "pipe-queued ..."
 *   fifo-from PATH LOW     a FIFO made at PATH                      "fifo-from ..."
 *   unix-from TYPE LOW     a socketpair (stream, dgram, seqpacket)  "unix-from ..."
 *   unix-named TYPE PATH LOW  a socket bound at PATH (stream: connect/accept,
 *                          dgram: sendto)                           "unix-named ..."
 *   msg-from LOW           a SysV message this process waits for    "msg-from ..."
 *   msg-queued LOW         a SysV message queued before msgrcv      "msg-queued ..."
 *                          (IPC_NOWAIT: ENOMSG if it is refused)
 *   shm-from LOW           a SysV segment the child creates and writes,
 *                          attached read-only here                  "shm-from ..."
 *
 * and, with descriptors and segments kept across operations:
 *
 *   scm-send FILE r|w      a child (with this process's levels now) opens FILE
 *                          for reading or appending and sends the descriptor
 *                          with SCM_RIGHTS; it waits in the socket    "scm-send OK|ERRNO"
 *   scm-take               receive it: it becomes the kept fd         "scm-take ..."
 *   scm-serve PATH FILE r|w   listen at PATH, open FILE for the one client
 *                          that connects and send it the descriptor  "scm-serve ..."
 *   scm-connect PATH       connect to PATH (waiting for it up to 5 s) and
 *                          receive the descriptor: the kept fd        "scm-connect ..."
 *   readfd                 read the kept fd                           "readfd ..."
 *   shm-create             create a SysV segment (kept)               "shm-create ..."
 *   shm-attach rw|ro       attach the kept segment and detach it      "shm-attach ..."
 *
 * ERRNO is the error of the receiving (or attaching) call; EIO means the
 * child could not do its part (it says why on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slimtest.h"

/* a child that has been demoted waits this long before sending */
#define SEND_DELAY_US 200000

static int scm_sock = -1;
static int shm_kept = -1;

static void child_fail(const char *what)
{
	fprintf(stderr, "slimtest child: %s: %s\n", what, strerror(errno));
	_exit(1);
}

static void child_demote(const char *low)
{
	/* a shared writable mapping inherited would refuse the demotion */
	slimtest_unmap_kept();
	if (strcmp(low, "-") && do_read(low))
		child_fail(low);
}

/* the child's exit status: 0 if it did its part */
static int child_wait(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return EIO;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : EIO;
}

/* the receiving side's result, unless the child failed first */
static int result(int recv_err, pid_t pid)
{
	int child = child_wait(pid);

	return recv_err ? recv_err : child;
}

static int op_pipe(const char *low, int queued)
{
	int p[2], e = 0;
	char c;
	pid_t pid;

	if (pipe(p))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		close(p[0]);
		child_demote(low);
		if (!queued)
			usleep(SEND_DELAY_US);
		if (write(p[1], "x", 1) != 1)
			child_fail("pipe write");
		_exit(0);
	}
	close(p[1]);
	if (queued && child_wait(pid)) {
		close(p[0]);
		return EIO;
	}
	if (read(p[0], &c, 1) != 1)
		e = errno ? errno : EIO;
	close(p[0]);
	return queued ? e : result(e, pid);
}

static int op_fifo(const char *path, const char *low)
{
	int fd, e = 0;
	char c;
	pid_t pid;

	if (mkfifo(path, 0600) && errno != EEXIST)
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		child_demote(low);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			child_fail("fifo open");
		usleep(SEND_DELAY_US);
		if (write(fd, "x", 1) != 1)
			child_fail("fifo write");
		_exit(0);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		e = errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return e;
	}
	errno = 0;
	if (read(fd, &c, 1) != 1)
		e = errno ? errno : EIO;
	close(fd);
	return result(e, pid);
}

static int sock_type(const char *name)
{
	if (!strcmp(name, "stream"))
		return SOCK_STREAM;
	if (!strcmp(name, "dgram"))
		return SOCK_DGRAM;
	if (!strcmp(name, "seqpacket"))
		return SOCK_SEQPACKET;
	return -1;
}

static int op_unix_pair(const char *type, const char *low)
{
	int t = sock_type(type), sv[2], e = 0;
	char c;
	pid_t pid;

	if (t < 0)
		return EINVAL;
	if (socketpair(AF_UNIX, t, 0, sv))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		close(sv[0]);
		child_demote(low);
		usleep(SEND_DELAY_US);
		if (send(sv[1], "x", 1, 0) != 1)
			child_fail("send");
		_exit(0);
	}
	close(sv[1]);
	errno = 0;
	if (recv(sv[0], &c, 1, 0) != 1)
		e = errno ? errno : EIO;
	close(sv[0]);
	return result(e, pid);
}

static int op_unix_named(const char *type, const char *path, const char *low)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int t = sock_type(type), s, c, e = 0;
	char ch;
	pid_t pid;

	if (t != SOCK_STREAM && t != SOCK_DGRAM)
		return EINVAL;
	if (strlen(path) >= sizeof(a.sun_path))
		return ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path) + 1);
	unlink(path);
	s = socket(AF_UNIX, t, 0);
	if (s < 0)
		return errno;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    (t == SOCK_STREAM && listen(s, 1))) {
		e = errno;
		close(s);
		return e;
	}
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		close(s);
		child_demote(low);
		c = socket(AF_UNIX, t, 0);
		if (c < 0)
			child_fail("socket");
		usleep(SEND_DELAY_US);
		if (t == SOCK_STREAM) {
			if (connect(c, (struct sockaddr *)&a, sizeof(a)))
				child_fail("connect");
			if (send(c, "x", 1, 0) != 1)
				child_fail("send");
		} else if (sendto(c, "x", 1, 0, (struct sockaddr *)&a,
				  sizeof(a)) != 1) {
			child_fail("sendto");
		}
		_exit(0);
	}
	c = t == SOCK_STREAM ? accept(s, NULL, NULL) : s;
	errno = 0;
	if (c < 0 || recv(c, &ch, 1, 0) != 1)
		e = errno ? errno : EIO;
	if (c >= 0 && c != s)
		close(c);
	close(s);
	unlink(path);
	return result(e, pid);
}

struct slim_msg {
	long mtype;
	char mtext[8];
};

static int op_msg(const char *low, int queued)
{
	struct slim_msg m = { .mtype = 1 };
	int q, e = 0;
	pid_t pid;

	q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (q < 0)
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		child_demote(low);
		if (!queued)
			usleep(SEND_DELAY_US);
		m.mtext[0] = 'x';
		if (msgsnd(q, &m, 1, 0))
			child_fail("msgsnd");
		_exit(0);
	}
	if (queued && child_wait(pid)) {
		msgctl(q, IPC_RMID, NULL);
		return EIO;
	}
	/*
	 * a queued message the lattice refuses is skipped, as if absent: the
	 * receiver of one known to be queued does not wait (ENOMSG)
	 */
	if (msgrcv(q, &m, sizeof(m.mtext), 0, queued ? IPC_NOWAIT : 0) < 0)
		e = errno;
	msgctl(q, IPC_RMID, NULL);
	return queued ? e : result(e, pid);
}

static int op_shm_from(const char *low)
{
	key_t key = (key_t)(0x51100000 | (getpid() & 0xfffff));
	int id, e = 0;
	pid_t pid;
	char *p;

	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		child_demote(low);
		id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
		if (id < 0)
			child_fail("shmget");
		p = shmat(id, NULL, 0);
		if (p == (void *)-1)
			child_fail("shmat");
		p[0] = 'x';
		shmdt(p);
		_exit(0);
	}
	if (child_wait(pid))
		return EIO;
	id = shmget(key, 0, 0);
	if (id < 0)
		return errno;
	p = shmat(id, NULL, SHM_RDONLY);
	if (p == (void *)-1)
		e = errno;
	else
		shmdt(p);
	shmctl(id, IPC_RMID, NULL);
	return e;
}

static int op_shm_create(void)
{
	shm_kept = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	return shm_kept < 0 ? errno : 0;
}

static int op_shm_attach(const char *how)
{
	void *p = shmat(shm_kept, NULL, strcmp(how, "ro") ? 0 : SHM_RDONLY);

	if (p == (void *)-1)
		return errno;
	shmdt(p);
	return 0;
}

static void shm_cleanup(void)
{
	if (shm_kept >= 0)
		shmctl(shm_kept, IPC_RMID, NULL);
}

/* opens @file (r: reading, w: appending) and sends it on @sock */
static int scm_send_file(int sock, const char *file, const char *how)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd, e = 0;

	fd = open(file, strcmp(how, "w") ? O_RDONLY : O_WRONLY | O_APPEND);
	if (fd < 0)
		return errno;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &mh, 0) != 1)
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

static int op_scm_send(const char *file, const char *how)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		close(sv[0]);
		errno = scm_send_file(sv[1], file, how);
		if (errno)
			child_fail(file);
		_exit(0);
	}
	close(sv[1]);
	scm_sock = sv[0];
	return child_wait(pid);
}

static int unix_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return ENAMETOOLONG;
	memcpy(a->sun_path, path, strlen(path) + 1);
	return 0;
}

static int op_scm_serve(const char *path, const char *file, const char *how)
{
	struct sockaddr_un a;
	int s, c, e = unix_addr(&a, path);

	if (e)
		return e;
	unlink(path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0)
		return errno;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1)) {
		e = errno;
	} else {
		c = accept(s, NULL, NULL);
		if (c < 0) {
			e = errno;
		} else {
			e = scm_send_file(c, file, how);
			close(c);
		}
	}
	close(s);
	return e;
}

static int op_scm_connect(const char *path)
{
	struct sockaddr_un a;
	int tries, e = unix_addr(&a, path);

	if (e)
		return e;
	scm_sock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (scm_sock < 0)
		return errno;
	for (tries = 0; tries < 100; tries++) {
		if (!connect(scm_sock, (struct sockaddr *)&a, sizeof(a)))
			return 0;
		if (errno != ENOENT && errno != ECONNREFUSED)
			return errno;
		usleep(50000);
	}
	return ETIMEDOUT;
}

static int op_scm_take(void)
{
	char cbuf[CMSG_SPACE(sizeof(int))], c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	if (recvmsg(scm_sock, &mh, 0) != 1)
		return errno ? errno : EIO;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return EBADF;
	memcpy(&kept, CMSG_DATA(cm), sizeof(int));
	return 0;
}

static int op_readfd(void)
{
	char buf[512];

	if (lseek(kept, 0, SEEK_SET) < 0 && errno != ESPIPE)
		return errno;
	return read(kept, buf, sizeof(buf)) < 0 ? errno : 0;
}

int slimtest_ipc_op(const char *op, int argc, char **argv, int i)
{
	int left = argc - i;

	if (!strcmp(op, "pipe-from") || !strcmp(op, "pipe-queued")) {
		if (left < 1)
			return -2;
		report(op, op_pipe(argv[i], op[5] == 'q'));
		return 1;
	}
	if (!strcmp(op, "fifo-from")) {
		if (left < 2)
			return -2;
		report(op, op_fifo(argv[i], argv[i + 1]));
		return 2;
	}
	if (!strcmp(op, "unix-from")) {
		if (left < 2)
			return -2;
		report(op, op_unix_pair(argv[i], argv[i + 1]));
		return 2;
	}
	if (!strcmp(op, "unix-named")) {
		if (left < 3)
			return -2;
		report(op, op_unix_named(argv[i], argv[i + 1], argv[i + 2]));
		return 3;
	}
	if (!strcmp(op, "msg-from") || !strcmp(op, "msg-queued")) {
		if (left < 1)
			return -2;
		report(op, op_msg(argv[i], op[4] == 'q'));
		return 1;
	}
	if (!strcmp(op, "shm-from")) {
		if (left < 1)
			return -2;
		report(op, op_shm_from(argv[i]));
		return 1;
	}
	if (!strcmp(op, "shm-create")) {
		if (shm_kept < 0)
			atexit(shm_cleanup);
		report(op, op_shm_create());
		return 0;
	}
	if (!strcmp(op, "shm-attach")) {
		if (left < 1)
			return -2;
		report(op, op_shm_attach(argv[i]));
		return 1;
	}
	if (!strcmp(op, "scm-send")) {
		if (left < 2)
			return -2;
		report(op, op_scm_send(argv[i], argv[i + 1]));
		return 2;
	}
	if (!strcmp(op, "scm-serve")) {
		if (left < 3)
			return -2;
		report(op, op_scm_serve(argv[i], argv[i + 1], argv[i + 2]));
		return 3;
	}
	if (!strcmp(op, "scm-connect")) {
		int e;

		if (left < 1)
			return -2;
		e = op_scm_connect(argv[i]);
		report(op, e ? e : op_scm_take());
		return 1;
	}
	if (!strcmp(op, "scm-take")) {
		report(op, op_scm_take());
		return 0;
	}
	if (!strcmp(op, "readfd")) {
		report(op, op_readfd());
		return 0;
	}
	return -1;
}
