// SPDX-License-Identifier: GPL-2.0
/*
 * slimtest's operations on the lattice's remaining data paths (issue 40).
 * In every "-from LOW" operation this process sets the object up, a child
 * waits 0.2 s (so this process is already waiting when it can), reads LOW
 * ("-": nothing) and writes into the object; this process then takes the
 * data.
 *
 *   zc-recv            a TCP connection to itself on 127.0.0.1: one byte,
 *                      taken with getsockopt(TCP_ZEROCOPY_RECEIVE) and a
 *                      copy buffer                              "zc-recv OK|ERRNO"
 *   sendfile-tcp       ... taken with sendfile() into a pipe, then read
 *   sendfile-unix LOW  a UNIX stream socketpair: the child writes one byte,
 *                      this process sendfile()s it into a pipe and reads it
 *   nl-from LOW        NETLINK_USERSOCK: the child sends this process's
 *                      socket a message                        "nl-from ..."
 *   nl-multicast       send a NETLINK_USERSOCK message to group 1, which
 *                      a socket of this process listens to: OK when it
 *                      arrived
 *   nl-kernel          ask the kernel for its links (NETLINK_ROUTE) and
 *                      read the answer
 *   packet-recv        an AF_PACKET socket on lo sees a UDP datagram this
 *                      process sends to 127.0.0.1
 *   eventfd-from LOW   the child adds to an eventfd this process reads
 *   pty-from LOW       the child writes on a pty's master, this process
 *                      reads the slave (raw mode)
 *   pty-to LOW         the child writes on the slave, this process reads
 *                      the master
 *   pty-self           write on the slave, read the master, write on the
 *                      master, read the slave (one process, a terminal)
 *   key-from LOW       in a new session keyring: the child adds a user key,
 *                      this process finds it and reads its payload
 *   key-update LOW     this process adds the key, the child updates it,
 *                      this process reads it
 *   sem-from LOW       the child adds 3 to a SysV semaphore (semop) this
 *                      process then reads (GETVAL)
 *   sigqueue SIG       sigqueue(CHILD of spawn, SIG, 42): CHLD or USR1
 *   getxattr F NAME    getxattr(F, NAME)                         "getxattr ..."
 *   anonro             map 4 KiB of shared anonymous memory read-only
 *   sysvro             attach a new SysV segment, mprotect it read-only
 *   mprotw-kept        mprotect(PROT_READ|PROT_WRITE) of that mapping
 *   mapfiles-write     write one byte into that mapping through
 *                      /proc/self/map_files/                  "mapfiles-write ..."
 *   secret-map         memfd_secret(), 4 KiB, mapped shared writable
 *   uring-fixbuf       an io_uring with one registered (pinned) buffer
 *   uring-unreg        its buffers unregistered
 *   uffd-child         a child (with this process's levels now) registers
 *                      4 KiB of its memory with a userfaultfd and passes
 *                      the descriptor here
 *   uffd-copy          UFFDIO_COPY into that memory
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/tcp.h>
#include <linux/userfaultfd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <unistd.h>

#include "slimtest.h"

static void *kept_map;
static int ring = -1;
static char ring_buf[4096];

/* fork a child that waits, reads @low and runs @fn(@arg); 0 or an errno */
static pid_t child_writes(const char *low, int (*fn)(long), long arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		slimtest_unmap_kept();
		usleep(200000);
		if (strcmp(low, "-") && do_read(low))
			_exit(1);
		_exit(fn(arg) ? 1 : 0);
	}
	return pid;
}

/* the child's status: 0 when its write succeeded */
static int child_done(pid_t pid)
{
	int st;

	if (pid < 0)
		return errno;
	if (waitpid(pid, &st, 0) != pid)
		return errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : EIO;
}

/* ---- sockets ------------------------------------------------------------ */

/* a TCP connection to itself: *srv receives what *cli sends */
static int tcp_pair(int *cli, int *srv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int l, e = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	*cli = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || *cli < 0 || bind(l, (void *)&a, sizeof(a)) ||
	    listen(l, 1) || getsockname(l, (void *)&a, &len) ||
	    connect(*cli, (void *)&a, sizeof(a)))
		e = errno;
	*srv = e ? -1 : accept(l, NULL, NULL);
	if (!e && *srv < 0)
		e = errno;
	if (l >= 0)
		close(l);
	return e;
}

static int wait_in(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 2000) == 1 ? 0 : ETIMEDOUT;
}

static int op_zc_recv(void)
{
	struct tcp_zerocopy_receive zc;
	socklen_t len = sizeof(zc);
	char buf[16];
	int cli, srv, e;

	e = tcp_pair(&cli, &srv);
	if (!e && write(cli, "z", 1) != 1)
		e = errno;
	if (!e)
		e = wait_in(srv);
	if (!e) {
		memset(&zc, 0, sizeof(zc));
		zc.copybuf_address = (uintptr_t)buf;
		zc.copybuf_len = sizeof(buf);
		if (getsockopt(srv, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc, &len))
			e = errno;
		else if (zc.err)
			e = -zc.err;
		else if (zc.copybuf_len != 1 || buf[0] != 'z')
			e = EIO;
	}
	close(cli);
	close(srv);
	return e;
}

/* sendfile() one byte from @sock into a new pipe, then read the pipe */
static int sendfile_sock(int sock)
{
	int p[2], e = 0;
	char c;

	if (pipe(p))
		return errno;
	if (sendfile(p[1], sock, NULL, 1) != 1)
		e = errno ? errno : EIO;
	if (!e && read(p[0], &c, 1) != 1)
		e = errno ? errno : EIO;
	close(p[0]);
	close(p[1]);
	return e;
}

static int op_sendfile_tcp(void)
{
	int cli, srv, e;

	e = tcp_pair(&cli, &srv);
	if (!e && write(cli, "s", 1) != 1)
		e = errno;
	if (!e)
		e = wait_in(srv);
	if (!e)
		e = sendfile_sock(srv);
	close(cli);
	close(srv);
	return e;
}

static int write_byte(long fd)
{
	return write((int)fd, "x", 1) == 1 ? 0 : errno;
}

static int op_sendfile_unix(const char *low)
{
	int sv[2], e;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return errno;
	pid = child_writes(low, write_byte, sv[1]);
	e = child_done(pid);
	if (!e)
		e = sendfile_sock(sv[0]);
	close(sv[0]);
	close(sv[1]);
	return e;
}

static int nl_socket(int proto, uint32_t *portid)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(a);
	int s = socket(AF_NETLINK, SOCK_RAW, proto);

	if (s < 0)
		return -1;
	if (bind(s, (void *)&a, sizeof(a)) ||
	    getsockname(s, (void *)&a, &len)) {
		close(s);
		return -1;
	}
	if (portid)
		*portid = a.nl_pid;
	return s;
}

static int nl_send(int s, uint32_t portid, uint32_t groups)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_pid = portid,
				  .nl_groups = groups };
	struct {
		struct nlmsghdr h;
		char data[4];
	} m = { .h = { .nlmsg_len = sizeof(m), .nlmsg_type = 0x10 } };

	return sendto(s, &m, sizeof(m), 0, (void *)&to, sizeof(to)) < 0 ?
		errno : 0;
}

static int nl_send_to(long portid)
{
	int s = nl_socket(NETLINK_USERSOCK, NULL), e;

	if (s < 0)
		return errno;
	e = nl_send(s, (uint32_t)portid, 0);
	close(s);
	return e;
}

static int op_nl_from(const char *low)
{
	uint32_t portid;
	char buf[256];
	int s, e = 0;
	pid_t pid;

	s = nl_socket(NETLINK_USERSOCK, &portid);
	if (s < 0)
		return errno;
	pid = child_writes(low, nl_send_to, portid);
	if (wait_in(s) || recv(s, buf, sizeof(buf), 0) <= 0)
		e = errno ? errno : EIO;
	if (child_done(pid) && !e)
		e = EIO;
	close(s);
	return e;
}

/*
 * a listener of group 1 in this process: OK when the message reached it
 * (the send also fails with ECONNREFUSED: no kernel socket takes the
 * unicast part)
 */
static int op_nl_multicast(void)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int l = socket(AF_NETLINK, SOCK_RAW, NETLINK_USERSOCK);
	int s = nl_socket(NETLINK_USERSOCK, NULL), e;
	char buf[256];

	if (l < 0 || s < 0 || bind(l, (void *)&a, sizeof(a)))
		e = errno;
	else
		e = nl_send(s, 0, 1);
	if (e == ECONNREFUSED)
		e = wait_in(l) ? EAGAIN :
			recv(l, buf, sizeof(buf), MSG_DONTWAIT) > 0 ? 0 : errno;
	if (l >= 0)
		close(l);
	if (s >= 0)
		close(s);
	return e;
}

static int op_nl_kernel(void)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = { .h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP } };
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	char buf[8192];
	int s = nl_socket(NETLINK_ROUTE, NULL), e = 0;

	if (s < 0)
		return errno;
	if (sendto(s, &req, sizeof(req), 0, (void *)&k, sizeof(k)) < 0 ||
	    recv(s, buf, sizeof(buf), 0) <= 0)
		e = errno ? errno : EIO;
	close(s);
	return e;
}

static int op_packet_recv(void)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ALL) };
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(9) };
	char buf[256];
	int p, u, e = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ll.sll_ifindex = if_nametoindex("lo");
	p = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	u = socket(AF_INET, SOCK_DGRAM, 0);
	if (p < 0 || u < 0 || !ll.sll_ifindex ||
	    bind(p, (void *)&ll, sizeof(ll)) ||
	    sendto(u, "p", 1, 0, (void *)&a, sizeof(a)) != 1)
		e = errno ? errno : EIO;
	if (!e)
		e = wait_in(p);
	if (!e && recv(p, buf, sizeof(buf), 0) <= 0)
		e = errno ? errno : EIO;
	if (p >= 0)
		close(p);
	if (u >= 0)
		close(u);
	return e;
}

/* ---- eventfd, pseudo-terminals ------------------------------------------- */

static int add_one(long fd)
{
	uint64_t v = 1;

	return write((int)fd, &v, sizeof(v)) == sizeof(v) ? 0 : errno;
}

static int op_eventfd_from(const char *low)
{
	int fd = eventfd(0, 0), e = 0;
	uint64_t v;
	pid_t pid;

	if (fd < 0)
		return errno;
	pid = child_writes(low, add_one, fd);
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		e = errno;
	if (child_done(pid) && !e)
		e = EIO;
	close(fd);
	return e;
}

static int pty_open(int *master, int *slave)
{
	struct termios t;

	*master = posix_openpt(O_RDWR | O_NOCTTY);
	if (*master < 0 || grantpt(*master) || unlockpt(*master))
		return errno;
	*slave = open(ptsname(*master), O_RDWR | O_NOCTTY);
	if (*slave < 0 || tcgetattr(*slave, &t))
		return errno;
	cfmakeraw(&t);
	return tcsetattr(*slave, TCSANOW, &t) ? errno : 0;
}

static int op_pty(const char *low, int to_master)
{
	int m = -1, s = -1, e;
	pid_t pid;
	char c;

	e = pty_open(&m, &s);
	if (e)
		return e;
	pid = child_writes(low, write_byte, to_master ? s : m);
	if (read(to_master ? m : s, &c, 1) != 1)
		e = errno ? errno : EIO;
	if (child_done(pid) && !e)
		e = EIO;
	close(m);
	close(s);
	return e;
}

static int op_pty_self(void)
{
	int m = -1, s = -1, e;
	char c;

	e = pty_open(&m, &s);
	if (!e && (write(s, "a", 1) != 1 || read(m, &c, 1) != 1 ||
		   write(m, "b", 1) != 1 || read(s, &c, 1) != 1))
		e = errno ? errno : EIO;
	close(m);
	close(s);
	return e;
}

/* ---- keys, semaphores, signals, xattrs ------------------------------------ */

static long key_add(const char *payload)
{
	return syscall(SYS_add_key, "user", "slimtest", payload,
		       strlen(payload), KEY_SPEC_SESSION_KEYRING);
}

static int key_add_child(long unused)
{
	(void)unused;
	return key_add("low") < 0 ? errno : 0;
}

static int key_update_child(long id)
{
	return syscall(SYS_keyctl, KEYCTL_UPDATE, id, "low", 3) ? errno : 0;
}

static int op_key(const char *low, int update)
{
	long id = -1;
	char buf[16];
	pid_t pid;
	int e;

	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		return errno;
	if (update && (id = key_add("high")) < 0)
		return errno;
	pid = child_writes(low, update ? key_update_child : key_add_child, id);
	e = child_done(pid);
	if (e)
		return e;
	id = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING,
		     "user", "slimtest", 0);
	if (id < 0)
		return errno;
	if (syscall(SYS_keyctl, KEYCTL_READ, id, buf, sizeof(buf)) != 3)
		return errno ? errno : EIO;
	return memcmp(buf, "low", 3) ? EIO : 0;
}

static int sem_add3(long id)
{
	struct sembuf op = { .sem_num = 0, .sem_op = 3 };

	return semop((int)id, &op, 1) ? errno : 0;
}

static int op_sem_from(const char *low)
{
	int id = semget(IPC_PRIVATE, 1, 0600), e, v;
	pid_t pid;

	if (id < 0)
		return errno;
	pid = child_writes(low, sem_add3, id);
	e = child_done(pid);
	if (!e) {
		v = semctl(id, 0, GETVAL);
		e = v < 0 ? errno : v == 3 ? 0 : EIO;
	}
	semctl(id, 0, IPC_RMID);
	return e;
}

static int op_sigqueue(const char *sig)
{
	union sigval v = { .sival_int = 42 };
	int s;

	if (!strcmp(sig, "CHLD"))
		s = SIGCHLD;
	else if (!strcmp(sig, "USR1"))
		s = SIGUSR1;
	else
		return EINVAL;
	return sigqueue(slimtest_spawned(), s, v) ? errno : 0;
}

static int op_getxattr(const char *f, const char *name)
{
	char buf[128];

	return getxattr(f, name, buf, sizeof(buf)) < 0 ? errno : 0;
}

/* ---- shared memory --------------------------------------------------------- */

static int op_anonro(void)
{
	kept_map = mmap(NULL, 4096, PROT_READ, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (kept_map == MAP_FAILED) {
		kept_map = NULL;
		return errno;
	}
	return 0;
}

static int op_sysvro(void)
{
	int id = shmget(IPC_PRIVATE, 4096, 0600);
	void *p;

	if (id < 0)
		return errno;
	/* attached writable, then made read-only (SHM_RDONLY could not
	 * be made writable again: the kernel refuses)
	 */
	p = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	if (p == (void *)-1)
		return errno;
	kept_map = p;
	return mprotect(p, 4096, PROT_READ) ? errno : 0;
}

static int op_mapfiles_write(void)
{
	char path[96];
	int fd, e = 0;

	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
		 (unsigned long)kept_map, (unsigned long)kept_map + 4096);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return errno;
	if (pwrite(fd, "w", 1, 0) != 1)
		e = errno;
	close(fd);
	return e;
}

static int op_secret_map(void)
{
	int fd = syscall(SYS_memfd_secret, 0), e = 0;
	void *p;

	if (fd < 0)
		return errno;
	if (ftruncate(fd, 4096)) {
		e = errno;
	} else {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			e = errno;
		else
			munmap(p, 4096);
	}
	close(fd);
	return e;
}

static int op_uring_fixbuf(void)
{
	struct io_uring_params p;
	struct iovec iov = { .iov_base = ring_buf, .iov_len = sizeof(ring_buf) };

	memset(&p, 0, sizeof(p));
	ring = syscall(SYS_io_uring_setup, 4, &p);
	if (ring < 0)
		return errno;
	return syscall(SYS_io_uring_register, ring, IORING_REGISTER_BUFFERS,
		       &iov, 1) ? errno : 0;
}

static int op_uring_unreg(void)
{
	int e = syscall(SYS_io_uring_register, ring,
			IORING_UNREGISTER_BUFFERS, NULL, 0) ? errno : 0;

	close(ring);
	ring = -1;
	return e;
}

/* ---- userfaultfd ------------------------------------------------------------ */

static int send_fd(int sock, int fd, unsigned long addr)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &addr, .iov_len = sizeof(addr) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) < 0 ? -1 : 0;
}

static int recv_fd(int sock, unsigned long *addr)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = addr, .iov_len = sizeof(*addr) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &m, 0) != sizeof(*addr))
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* the child: its memory, registered with a userfaultfd, offered to the parent */
static void uffd_child(int sock)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	void *area;
	int fd;
	char c;

	fd = syscall(SYS_userfaultfd, O_CLOEXEC);
	area = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || area == MAP_FAILED || ioctl(fd, UFFDIO_API, &api))
		_exit(1);
	reg.range.start = (unsigned long)area;
	reg.range.len = 4096;
	if (ioctl(fd, UFFDIO_REGISTER, &reg) ||
	    send_fd(sock, fd, (unsigned long)area))
		_exit(1);
	/* until the parent is gone */
	while (read(sock, &c, 1) > 0)
		;
	_exit(0);
}

static int uffd_fd = -1;
static unsigned long uffd_addr;

/* the child ends when this process does (its socket closes) */
static int op_uffd_child(void)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return errno;
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		close(sv[0]);
		slimtest_unmap_kept();
		uffd_child(sv[1]);
	}
	close(sv[1]);
	uffd_fd = recv_fd(sv[0], &uffd_addr);
	return uffd_fd < 0 ? EIO : 0;
}

static int op_uffd_copy(void)
{
	static char page[4096] __attribute__((aligned(4096)));
	struct uffdio_copy cp = { .len = 4096, .src = (unsigned long)page };

	memset(page, 'u', sizeof(page));
	cp.dst = uffd_addr;
	return ioctl(uffd_fd, UFFDIO_COPY, &cp) ? errno : 0;
}

int slimtest_data_op(const char *op, int argc, char **argv, int i)
{
	const char *a = i < argc ? argv[i] : NULL;
	int e;

	if (!strcmp(op, "zc-recv"))
		e = op_zc_recv();
	else if (!strcmp(op, "sendfile-tcp"))
		e = op_sendfile_tcp();
	else if (!strcmp(op, "nl-multicast"))
		e = op_nl_multicast();
	else if (!strcmp(op, "nl-kernel"))
		e = op_nl_kernel();
	else if (!strcmp(op, "packet-recv"))
		e = op_packet_recv();
	else if (!strcmp(op, "pty-self"))
		e = op_pty_self();
	else if (!strcmp(op, "anonro"))
		e = op_anonro();
	else if (!strcmp(op, "sysvro"))
		e = op_sysvro();
	else if (!strcmp(op, "mprotw-kept"))
		e = mprotect(kept_map, 4096, PROT_READ | PROT_WRITE) ? errno : 0;
	else if (!strcmp(op, "mapfiles-write"))
		e = op_mapfiles_write();
	else if (!strcmp(op, "secret-map"))
		e = op_secret_map();
	else if (!strcmp(op, "uring-fixbuf"))
		e = op_uring_fixbuf();
	else if (!strcmp(op, "uring-unreg"))
		e = op_uring_unreg();
	else if (!strcmp(op, "uffd-child"))
		e = op_uffd_child();
	else if (!strcmp(op, "uffd-copy"))
		e = op_uffd_copy();
	else
		e = -1;
	if (e >= 0) {
		report(op, e);
		return 0;
	}
	if (!a)
		return -1;
	if (!strcmp(op, "sendfile-unix"))
		e = op_sendfile_unix(a);
	else if (!strcmp(op, "nl-from"))
		e = op_nl_from(a);
	else if (!strcmp(op, "eventfd-from"))
		e = op_eventfd_from(a);
	else if (!strcmp(op, "pty-from") || !strcmp(op, "pty-to"))
		e = op_pty(a, op[4] == 't');
	else if (!strcmp(op, "key-from") || !strcmp(op, "key-update"))
		e = op_key(a, op[4] == 'u');
	else if (!strcmp(op, "sem-from"))
		e = op_sem_from(a);
	else if (!strcmp(op, "sigqueue"))
		e = op_sigqueue(a);
	else if (!strcmp(op, "getxattr")) {
		if (i + 1 >= argc)
			return -2;
		report(op, op_getxattr(a, argv[i + 1]));
		return 2;
	} else
		return -1;
	report(op, e);
	return 1;
}
