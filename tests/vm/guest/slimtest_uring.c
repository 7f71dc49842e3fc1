// SPDX-License-Identifier: GPL-2.0
/*
 * slimtest's io_uring operations: one request at a time, each forced to
 * an io_uring worker thread (IOSQE_ASYNC), so it is the worker that opens,
 * reads or writes:
 *
 *   uring-read F       IORING_OP_OPENAT F, then IORING_OP_READ    "uring-read OK|ERRNO"
 *   uring-writefd      IORING_OP_WRITE of a line on the kept fd   "uring-writefd ..."
 *   uring-readfd       IORING_OP_READ of the kept fd              "uring-readfd ..."
 *
 * ERRNO is the completion's error. The ring is made by hand with the raw
 * system calls (the probe is static and needs no liburing).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "slimtest.h"

struct ring {
	int fd;
	void *sq, *cq;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
	struct io_uring_params p;
};

static struct ring ring = { .fd = -1 };

static int ring_open(void)
{
	struct io_uring_params *p = &ring.p;

	if (ring.fd >= 0)
		return 0;
	memset(p, 0, sizeof(*p));
	ring.fd = (int)syscall(__NR_io_uring_setup, 4, p);
	if (ring.fd < 0)
		return errno;
	ring.sq_len = p->sq_off.array + p->sq_entries * sizeof(uint32_t);
	ring.cq_len = p->cq_off.cqes +
		      p->cq_entries * sizeof(struct io_uring_cqe);
	ring.sq = mmap(NULL, ring.sq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       ring.fd, IORING_OFF_SQ_RING);
	ring.cq = mmap(NULL, ring.cq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       ring.fd, IORING_OFF_CQ_RING);
	ring.sqes = mmap(NULL, p->sq_entries * sizeof(struct io_uring_sqe),
			 PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd,
			 IORING_OFF_SQES);
	if (ring.sq == MAP_FAILED || ring.cq == MAP_FAILED ||
	    ring.sqes == MAP_FAILED)
		return errno;
	return 0;
}

#define RING_U32(base, off) ((_Atomic uint32_t *)((char *)(base) + (off)))

/* submits @sqe and waits for its completion: its result (or -errno) */
static int ring_do(const struct io_uring_sqe *sqe, int *res)
{
	struct io_uring_params *p = &ring.p;
	uint32_t tail, head, mask, idx;
	struct io_uring_cqe *cqe;
	int rc = ring_open();

	if (rc)
		return rc;
	mask = *RING_U32(ring.sq, p->sq_off.ring_mask);
	tail = atomic_load_explicit(RING_U32(ring.sq, p->sq_off.tail),
				    memory_order_relaxed);
	idx = tail & mask;
	ring.sqes[idx] = *sqe;
	RING_U32(ring.sq, p->sq_off.array)[idx] = idx;
	atomic_store_explicit(RING_U32(ring.sq, p->sq_off.tail), tail + 1,
			      memory_order_release);
	if (syscall(__NR_io_uring_enter, ring.fd, 1, 1,
		    IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return errno;
	head = atomic_load_explicit(RING_U32(ring.cq, p->cq_off.head),
				    memory_order_acquire);
	if (head == atomic_load_explicit(RING_U32(ring.cq, p->cq_off.tail),
					 memory_order_acquire))
		return EIO;
	mask = *RING_U32(ring.cq, p->cq_off.ring_mask);
	cqe = (struct io_uring_cqe *)((char *)ring.cq + p->cq_off.cqes) +
	      (head & mask);
	*res = cqe->res;
	atomic_store_explicit(RING_U32(ring.cq, p->cq_off.head), head + 1,
			      memory_order_release);
	return 0;
}

static int uring_rw(int op, int fd, void *buf, unsigned int len)
{
	struct io_uring_sqe sqe = {
		.opcode = (uint8_t)op,
		.flags = IOSQE_ASYNC,
		.fd = fd,
		.addr = (uint64_t)(uintptr_t)buf,
		.len = len,
		.off = op == IORING_OP_WRITE ? (uint64_t)-1 : 0,
	};
	int res = 0, rc = ring_do(&sqe, &res);

	if (rc)
		return rc;
	return res < 0 ? -res : 0;
}

static int uring_read_file(const char *path)
{
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_OPENAT,
		.flags = IOSQE_ASYNC,
		.fd = AT_FDCWD,
		.addr = (uint64_t)(uintptr_t)path,
		.open_flags = O_RDONLY,
	};
	char buf[512];
	int res = 0, rc = ring_do(&sqe, &res);

	if (rc)
		return rc;
	if (res < 0)
		return -res;
	rc = uring_rw(IORING_OP_READ, res, buf, sizeof(buf));
	close(res);
	return rc;
}

int slimtest_uring_op(const char *op, int argc, char **argv, int i)
{
	char buf[512];

	if (!strcmp(op, "uring-read")) {
		if (i >= argc)
			return -2;
		report(op, uring_read_file(argv[i]));
		return 1;
	}
	if (!strcmp(op, "uring-writefd")) {
		report(op, uring_rw(IORING_OP_WRITE, kept, "uring\n", 6));
		return 0;
	}
	if (!strcmp(op, "uring-readfd")) {
		report(op, uring_rw(IORING_OP_READ, kept, buf, sizeof(buf)));
		return 0;
	}
	return -1;
}
