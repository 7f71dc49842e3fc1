// SPDX-License-Identifier: Apache-2.0
/*
 * test_agent_logsrc.c - the agent reads a growing list incrementally, from
 * any entry, whole records only, within its byte budget.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "imabuild.h"
#include "logsrc.h"

struct fixture {
	char path[64];
	int fd;
	struct att_buf all; /* every record written, for comparison */
	size_t *starts;	    /* offset of each entry */
	size_t n;
};

static void append(struct fixture *f, size_t count)
{
	size_t i;

	f->starts = realloc(f->starts, (f->n + count + 1) * sizeof(*f->starts));
	for (i = 0; i < count; i++) {
		char name[64];
		size_t before = f->all.len;

		snprintf(name, sizeof(name), "/usr/bin/f%zu", f->n);
		ib_ima_ng(&f->all, name, name);
		assert_int_equal(
			write(f->fd, f->all.data + before, f->all.len - before),
			(ssize_t)(f->all.len - before));
		f->starts[f->n++] = before;
	}
	f->starts[f->n] = f->all.len;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->path, sizeof(f->path), "/tmp/att-logsrc-XXXXXX");
	f->fd = mkstemp(f->path);
	att_buf_init(&f->all, 0);
	*state = f;
	return f->fd < 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->fd);
	unlink(f->path);
	att_buf_release(&f->all);
	free(f->starts);
	free(f);
	return 0;
}

static void read_check(struct agent_log *l, struct fixture *f, uint64_t from,
		       size_t max, uint64_t want_count, int want_more)
{
	struct att_buf out;
	uint64_t count;
	int more;

	att_buf_init(&out, 0);
	assert_int_equal(agent_log_read(l, from, max, &out, &count, &more),
			 ATT_OK);
	assert_int_equal(count, want_count);
	assert_int_equal(more, want_more);
	if (count) {
		size_t a = f->starts[from], b = f->starts[from + count];

		assert_int_equal(out.len, b - a);
		assert_memory_equal(out.data, f->all.data + a, b - a);
	} else {
		assert_int_equal(out.len, 0);
	}
	att_buf_release(&out);
}

static void incremental(void **state)
{
	struct fixture *f = *state;
	struct agent_log *l;
	size_t rec;

	append(f, 5000);
	rec = f->starts[1] - f->starts[0];
	assert_int_equal(agent_log_open("ima", f->path, 10, ATT_HASH_SHA1, &l),
			 ATT_OK);
	/* all of it */
	read_check(l, f, 0, SIZE_MAX, 5000, 0);
	assert_true(l->nckpt >= 4);
	/* from the middle, via a checkpoint */
	read_check(l, f, 3333, SIZE_MAX, 1667, 0);
	/* a byte budget: whole records only, and "more" */
	read_check(l, f, 10, rec * 3 + rec / 2, 3, 1);
	/* one record even when it alone exceeds the budget */
	read_check(l, f, 10, 1, 1, 1);
	assert_false(l->shorter);
	/* at the end: nothing new, the list is not shorter */
	read_check(l, f, 5000, SIZE_MAX, 0, 0);
	assert_false(l->shorter);
	/* past the end: nothing, no error, and the list is shorter than
	 * asked (a new list: the agent sends it from entry 0) */
	read_check(l, f, 9000, SIZE_MAX, 0, 0);
	assert_true(l->shorter);
	/* the list grows: new entries from the furthest known offset */
	append(f, 700);
	read_check(l, f, 5000, SIZE_MAX, 700, 0);
	assert_false(l->shorter);
	assert_int_equal(l->seen_index, 5700);
	/* after a reset (new boot) it still reads right */
	agent_log_reset(l);
	read_check(l, f, 4999, SIZE_MAX, 701, 0);
	agent_log_free(l);
}

/*
 * The list's identity (the verifier's first_entry): entry 0's written
 * template digest, here read straight from the record (be32 pcr, then
 * the 20-byte SHA-1 template digest). A list replaced by a longer one
 * with another entry 0 is told apart, which its length cannot do.
 */
static void first_identity(void **state)
{
	struct fixture *f = *state;
	struct agent_log *l;
	uint8_t other[20];
	int same = -1;

	assert_int_equal(agent_log_open("slim", f->path, 11, ATT_HASH_SHA1, &l),
			 ATT_OK);
	/* empty: not the list named */
	assert_int_equal(agent_log_first_is(l, ATT_HASH_SHA1, other, &same),
			 ATT_OK);
	assert_false(same);
	append(f, 20);
	assert_int_equal(
		agent_log_first_is(l, ATT_HASH_SHA1, f->all.data + 4, &same),
		ATT_OK);
	assert_true(same);
	memcpy(other, f->all.data + 4, 20);
	other[19] ^= 1;
	assert_int_equal(agent_log_first_is(l, ATT_HASH_SHA1, other, &same),
			 ATT_OK);
	assert_false(same);
	/* the right bytes under another bank are not the same identity */
	assert_int_equal(
		agent_log_first_is(l, ATT_HASH_SHA256, f->all.data + 4, &same),
		ATT_OK);
	assert_false(same);
	/* after an incremental read, still entry 0 (not the read position) */
	read_check(l, f, 15, SIZE_MAX, 5, 0);
	assert_int_equal(
		agent_log_first_is(l, ATT_HASH_SHA1, f->all.data + 4, &same),
		ATT_OK);
	assert_true(same);
	memcpy(other, f->all.data + 4, 20);
	/* the list is replaced by a longer one (slim.ko loaded again): its
	 * entry 0 names another file */
	assert_int_equal(ftruncate(f->fd, 0), 0);
	assert_int_equal(lseek(f->fd, 0, SEEK_SET), 0);
	att_buf_release(&f->all);
	att_buf_init(&f->all, 0);
	f->n = 0;
	{
		char name[] = "/other/first";

		ib_ima_ng(&f->all, name, name);
		assert_int_equal(write(f->fd, f->all.data, f->all.len),
				 (ssize_t)f->all.len);
		f->starts[0] = 0;
		f->n = 1;
	}
	append(f, 40);
	assert_int_equal(agent_log_first_is(l, ATT_HASH_SHA1, other, &same),
			 ATT_OK);
	assert_false(same);
	/* a malformed entry 0 is an error, not "another list" */
	assert_int_equal(ftruncate(f->fd, 0), 0);
	assert_int_equal(pwrite(f->fd, "\x0a\x00\x00\x00garbage", 11, 0), 11);
	assert_int_not_equal(agent_log_first_is(l, ATT_HASH_SHA1, other, &same),
			     ATT_OK);
	agent_log_free(l);
}

static void malformed_tail(void **state)
{
	struct fixture *f = *state;
	struct agent_log *l;
	struct att_buf out;
	uint64_t count;
	int more;

	append(f, 10);
	assert_int_equal(write(f->fd, "\x0a\x00\x00\x00garbage", 11), 11);
	assert_int_equal(agent_log_open("ima", f->path, 10, ATT_HASH_SHA1, &l),
			 ATT_OK);
	att_buf_init(&out, 0);
	assert_int_not_equal(
		agent_log_read(l, 0, SIZE_MAX, &out, &count, &more), ATT_OK);
	att_buf_release(&out);
	agent_log_free(l);
	assert_int_equal(agent_log_open("ima", "/nonexistent/list", 10,
					ATT_HASH_SHA1, &l),
			 ATT_E_IO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(incremental, setup, teardown),
		cmocka_unit_test_setup_teardown(first_identity, setup,
						teardown),
		cmocka_unit_test_setup_teardown(malformed_tail, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
