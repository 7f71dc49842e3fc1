// SPDX-License-Identifier: Apache-2.0
/*
 * test_ima.c - the IMA list reader: templates, formats, caps, truncation,
 * streaming and resuming.
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
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "imabuild.h"

static int read_one(const struct att_buf *b, enum att_ima_format fmt,
		    enum att_hash talg, struct att_ima_entry *e,
		    struct att_ima_reader **rp)
{
	int rc = att_ima_reader_new_mem(b->data, b->len, fmt, talg, NULL, rp);

	assert_int_equal(rc, ATT_OK);
	return att_ima_reader_next(*rp, e);
}

static void ima_ng_fields(void **state)
{
	struct att_ima_reader *r;
	struct att_ima_entry e;
	struct att_buf b;
	uint8_t d[32];

	(void)state;
	att_buf_init(&b, 0);
	ib_ima_ng(&b, "/usr/bin/with space", "content");
	assert_int_equal(
		read_one(&b, ATT_IMA_FMT_BINARY, ATT_HASH_SHA1, &e, &r),
		ATT_OK);
	ib_hash("sha256", "content", 7, d);
	assert_int_equal(e.pcr, 10);
	assert_string_equal(e.template_name, "ima-ng");
	assert_int_equal(e.file_alg, ATT_HASH_SHA256);
	assert_int_equal(e.file_digest_len, 32);
	assert_memory_equal(e.file_digest, d, 32);
	assert_int_equal(e.path_len, strlen("/usr/bin/with space"));
	assert_memory_equal(e.path, "/usr/bin/with space", e.path_len);
	assert_false(e.violation);
	assert_int_equal(e.index, 0);
	assert_int_equal(e.next_offset, b.len);
	/* the hashed bytes are the template data as stored */
	assert_int_equal(e.hash_input_len, b.len - (4 + 20 + 4 + 6 + 4));
	assert_int_equal(att_ima_reader_next(r, &e), ATT_E_EOF);
	att_ima_reader_free(r);
	att_buf_release(&b);
}

static void every_template(void **state)
{
	static const char *const names[] = {
		"ima-sig",   "ima-buf",		  "ima-modsig",
		"d-ng|n-ng", "d-ng|n-ng|sig|buf", "evm-sig",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct att_ima_template t;
		struct att_ima_reader *r;
		struct att_ima_entry e;
		struct att_buf td, b;
		uint8_t d[32] = {1};
		unsigned int f;
		uint16_t mode = 0644;
		uint32_t id = 0;

		assert_int_equal(
			att_ima_template_parse(names[i], strlen(names[i]), &t),
			ATT_OK);
		att_buf_init(&td, 0);
		att_buf_init(&b, 0);
		for (f = 0; f < t.nfields; f++) {
			switch (t.fields[f]) {
			case ATT_IMA_F_D_NG:
				ib_dng(&td, "sha256", d, 32);
				break;
			case ATT_IMA_F_D_MODSIG:
				ib_field(&td, "", 0);
				break;
			case ATT_IMA_F_N_NG:
				ib_nng(&td, "/bin/x");
				break;
			case ATT_IMA_F_IUID:
			case ATT_IMA_F_IGID:
				ib_field(&td, &id, 4);
				break;
			case ATT_IMA_F_IMODE:
				ib_field(&td, &mode, 2);
				break;
			default:
				ib_field(&td, "\x03\x02", 2);
			}
		}
		ib_record(&b, 10, "sha1", names[i], &td, 0);
		assert_int_equal(
			read_one(&b, ATT_IMA_FMT_AUTO, ATT_HASH_SHA1, &e, &r),
			ATT_OK);
		assert_int_equal(e.tmpl.nfields, t.nfields);
		assert_int_equal(e.path_len, 6);
		assert_non_null(e.file_digest);
		if (!strcmp(names[i], "ima-buf")) {
			assert_int_equal(e.buf_len, 2);
		}
		if (!strcmp(names[i], "ima-sig"))
			assert_int_equal(e.sig_len, 2);
		att_ima_reader_free(r);
		att_buf_release(&td);
		att_buf_release(&b);
	}
}

static void legacy_template(void **state)
{
	struct att_ima_reader *r;
	struct att_ima_entry e;
	struct att_buf b;
	uint8_t d[20] = {9, 8, 7}, in[276] = {0}, t[20];

	(void)state;
	att_buf_init(&b, 0);
	ib_legacy(&b, 10, d, "/sbin/init");
	assert_int_equal(
		read_one(&b, ATT_IMA_FMT_BINARY, ATT_HASH_SHA1, &e, &r),
		ATT_OK);
	assert_true(e.tmpl.legacy);
	assert_int_equal(e.file_alg, ATT_HASH_SHA1);
	assert_memory_equal(e.file_digest, d, 20);
	assert_int_equal(e.hash_input_len, 276);
	memcpy(in, d, 20);
	memcpy(in + 20, "/sbin/init", 10);
	assert_memory_equal(e.hash_input, in, 276);
	ib_hash("sha1", in, 276, t);
	assert_memory_equal(e.tdigest, t, 20);
	att_ima_reader_free(r);
	att_buf_release(&b);
}

/* Every proper prefix of a valid record is a clean truncation error. */
static void truncated_everywhere(void **state)
{
	struct att_buf b;
	size_t cut;

	(void)state;
	att_buf_init(&b, 0);
	ib_ima_ng(&b, "/a", "x");
	ib_ima_ng(&b, "/b", "y");
	for (cut = 0; cut < b.len; cut++) {
		struct att_ima_reader *r;
		struct att_ima_entry e;
		int rc, n = 0;

		assert_int_equal(
			att_ima_reader_new_mem(b.data, cut, ATT_IMA_FMT_BINARY,
					       ATT_HASH_SHA1, NULL, &r),
			ATT_OK);
		while ((rc = att_ima_reader_next(r, &e)) == ATT_OK)
			n++;
		if (cut == 0 || cut == b.len / 2)
			assert_int_equal(rc, ATT_E_EOF);
		else
			assert_int_equal(rc, ATT_E_TRUNCATED);
		assert_string_not_equal(att_ima_reader_error(r), "");
		/* the position stays at the start of the bad record */
		assert_int_equal(n, cut >= b.len / 2 ? 1 : 0);
		att_ima_reader_free(r);
	}
	att_buf_release(&b);
}

static int read_err(const struct att_buf *b)
{
	struct att_ima_reader *r;
	struct att_ima_entry e;
	int rc;

	assert_int_equal(att_ima_reader_new_mem(b->data, b->len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	rc = att_ima_reader_next(r, &e);
	att_ima_reader_free(r);
	return rc;
}

static void hostile_lengths(void **state)
{
	struct att_buf b, td;
	uint8_t z[20] = {0}, d[32] = {0};

	(void)state;
	/* template name length 0, over the cap, and 0xffffffff */
	const uint32_t names[] = {0, 256, 0xffffffffu};
	size_t i;

	for (i = 0; i < 3; i++) {
		att_buf_init(&b, 0);
		att_buf_append_u32le(&b, 10);
		att_buf_append(&b, z, 20);
		att_buf_append_u32le(&b, names[i]);
		att_buf_append(&b, "ima-ng", 6);
		assert_int_equal(read_err(&b),
				 names[i] ? ATT_E_TOO_BIG : ATT_E_FORMAT);
		att_buf_release(&b);
	}
	/* data length over the cap */
	att_buf_init(&b, 0);
	att_buf_append_u32le(&b, 10);
	att_buf_append(&b, z, 20);
	att_buf_append_u32le(&b, 6);
	att_buf_append(&b, "ima-ng", 6);
	att_buf_append_u32le(&b, 0x7fffffff);
	assert_int_equal(read_err(&b), ATT_E_TOO_BIG);
	att_buf_release(&b);
	/* a field longer than the template data */
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	att_buf_append_u32le(&td, 1000);
	att_buf_append(&td, "sha256", 6);
	ib_record(&b, 10, "sha1", "ima-ng", &td, 0);
	assert_int_equal(read_err(&b), ATT_E_TRUNCATED);
	att_buf_release(&b);
	att_buf_release(&td);
	/* bytes after the last field */
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, "/x");
	att_buf_append(&td, "junk", 4);
	ib_record(&b, 10, "sha1", "ima-ng", &td, 0);
	assert_int_equal(read_err(&b), ATT_E_TRAILING);
	att_buf_release(&b);
	att_buf_release(&td);
	/* PCR index out of range */
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, "/x");
	ib_record(&b, 24, "sha1", "ima-ng", &td, 0);
	assert_int_equal(read_err(&b), ATT_E_FORMAT);
	att_buf_release(&b);
	att_buf_release(&td);
}

static void bad_templates_and_digests(void **state)
{
	struct att_buf b, td;
	uint8_t d[32] = {0};

	(void)state;
	/* unknown template */
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, "/x");
	ib_record(&b, 10, "sha1", "ima-foo", &td, 0);
	assert_int_equal(read_err(&b), ATT_E_UNSUPPORTED);
	att_buf_release(&b);
	/* unknown field in a custom format */
	att_buf_init(&b, 0);
	ib_record(&b, 10, "sha1", "d-ng|n-xx", &td, 0);
	assert_int_equal(read_err(&b), ATT_E_UNSUPPORTED);
	att_buf_release(&b);
	att_buf_release(&td);
	/* unknown digest algorithm */
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	ib_dng(&td, "blake9", d, 32);
	ib_nng(&td, "/x");
	ib_record(&b, 10, "sha1", "ima-ng", &td, 0);
	assert_int_equal(read_err(&b), ATT_E_UNSUPPORTED);
	att_buf_release(&b);
	att_buf_release(&td);
	/* digest length that does not match its algorithm */
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	ib_dng(&td, "sha256", d, 20);
	ib_nng(&td, "/x");
	ib_record(&b, 10, "sha1", "ima-ng", &td, 0);
	assert_int_equal(read_err(&b), ATT_E_FORMAT);
	att_buf_release(&b);
	att_buf_release(&td);
	/* n-ng without its NUL, and with a NUL inside */
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_field(&td, "/x", 2);
	ib_record(&b, 10, "sha1", "ima-ng", &td, 0);
	assert_int_equal(read_err(&b), ATT_E_FORMAT);
	att_buf_release(&b);
	att_buf_release(&td);
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_field(&td, "/x\0y", 5);
	ib_record(&b, 10, "sha1", "ima-ng", &td, 0);
	assert_int_equal(read_err(&b), ATT_E_FORMAT);
	att_buf_release(&b);
	att_buf_release(&td);
}

static void violations_both_sizes(void **state)
{
	size_t sizes[] = {20, 32};
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct att_ima_reader *r;
		struct att_ima_entry e;
		struct att_buf b, td;
		uint8_t z[32] = {0};

		att_buf_init(&td, 0);
		att_buf_init(&b, 0);
		ib_dng(&td, "sha256", z, sizes[i]);
		ib_nng(&td, "/tmp/open-writer");
		ib_record(&b, 10, "sha1", "ima-ng", &td, 1);
		assert_int_equal(
			read_one(&b, ATT_IMA_FMT_BINARY, ATT_HASH_SHA1, &e, &r),
			ATT_OK);
		assert_true(e.violation);
		assert_int_equal(e.file_digest_len, sizes[i]);
		att_ima_reader_free(r);
		att_buf_release(&b);
		att_buf_release(&td);
	}
}

static void per_bank_digest_file(void **state)
{
	struct att_ima_reader *r;
	struct att_ima_entry e;
	struct att_buf b, td;
	uint8_t d[32] = {5}, t[32];

	(void)state;
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, "/x");
	ib_record(&b, 10, "sha256", "ima-ng", &td, 0);
	assert_int_equal(
		read_one(&b, ATT_IMA_FMT_BINARY, ATT_HASH_SHA256, &e, &r),
		ATT_OK);
	ib_hash("sha256", td.data, td.len, t);
	assert_memory_equal(e.tdigest, t, 32);
	att_ima_reader_free(r);
	/* read as a sha1 file it is garbage, and must say so */
	assert_int_equal(att_ima_reader_new_mem(b.data, b.len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	assert_int_not_equal(att_ima_reader_next(r, &e), ATT_OK);
	att_ima_reader_free(r);
	att_buf_release(&b);
	att_buf_release(&td);
}

/* The ascii line rebuilds exactly the template data of the binary one. */
static void ascii_matches_binary(void **state)
{
	const uint8_t path[] = "/opt/a dir/n\xc3\xa9w";
	struct att_ima_reader *rb, *ra;
	struct att_ima_entry eb, ea;
	struct att_buf b, td, a;
	uint8_t d[32], t1[20];
	char hd[65], ht[41], line[512];

	(void)state;
	ib_hash("sha256", "c", 1, d);
	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	att_buf_init(&a, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, (const char *)path);
	ib_field(&td, "\x03\x02\x04", 3);
	ib_record(&b, 10, "sha1", "ima-sig", &td, 0);
	ib_hash("sha1", td.data, td.len, t1);
	att_hex_encode(d, 32, hd);
	att_hex_encode(t1, 20, ht);
	snprintf(line, sizeof(line), "10 %s ima-sig sha256:%s %s 030204\n", ht,
		 hd, (const char *)path);
	att_buf_append_str(&a, line);
	assert_int_equal(att_ima_detect(a.data, a.len), ATT_IMA_FMT_ASCII);
	assert_int_equal(att_ima_detect(b.data, b.len), ATT_IMA_FMT_BINARY);
	assert_int_equal(
		read_one(&b, ATT_IMA_FMT_AUTO, ATT_HASH_SHA1, &eb, &rb),
		ATT_OK);
	assert_int_equal(
		read_one(&a, ATT_IMA_FMT_AUTO, ATT_HASH_SHA1, &ea, &ra),
		ATT_OK);
	assert_int_equal(ea.hash_input_len, eb.hash_input_len);
	assert_memory_equal(ea.hash_input, eb.hash_input, eb.hash_input_len);
	assert_memory_equal(ea.tdigest, eb.tdigest, 20);
	assert_int_equal(ea.path_len, strlen((const char *)path));
	assert_memory_equal(ea.path, path, ea.path_len);
	att_ima_reader_free(rb);
	att_ima_reader_free(ra);
	att_buf_release(&td);
	att_buf_release(&b);
	att_buf_release(&a);
}

static int ascii_err(const char *line)
{
	struct att_ima_reader *r;
	struct att_ima_entry e;
	int rc;

	assert_int_equal(att_ima_reader_new_mem(line, strlen(line),
						ATT_IMA_FMT_ASCII,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	rc = att_ima_reader_next(r, &e);
	att_ima_reader_free(r);
	return rc;
}

static void ascii_hostile(void **state)
{
	const char *h40 = "0123456789012345678901234567890123456789";
	char line[400];

	(void)state;
	/* odd-length, non-hex digests; bad PCR; unknown template; no LF */
	snprintf(line, sizeof(line), "10 %s ima-ng sha256:abc /x\n", h40);
	assert_int_equal(ascii_err(line), ATT_E_FORMAT);
	snprintf(line, sizeof(line), "10 %s ima-ng sha256:zz /x\n", h40);
	assert_int_equal(ascii_err(line), ATT_E_FORMAT);
	snprintf(line, sizeof(line), "10 %.39sg ima-ng sha256:00 /x\n", h40);
	assert_int_equal(ascii_err(line), ATT_E_FORMAT);
	snprintf(line, sizeof(line), "99 %s ima-ng sha256:00 /x\n", h40);
	assert_int_equal(ascii_err(line), ATT_E_FORMAT);
	snprintf(line, sizeof(line), "10 %s ima-zz sha256:00 /x\n", h40);
	assert_int_equal(ascii_err(line), ATT_E_UNSUPPORTED);
	snprintf(line, sizeof(line), "10 %s ima-ng sha256:%s%s%s /x", h40, h40,
		 h40, "0123456789012345678901234");
	assert_int_equal(ascii_err(line), ATT_E_TRUNCATED);
	snprintf(line, sizeof(line), "10 %s ima-sig sha256:00\n", h40);
	assert_int_equal(ascii_err(line), ATT_E_FORMAT);
	assert_int_equal(ascii_err(""), ATT_E_EOF);
}

/* A list streamed from a descriptor, read in part, then resumed. */
static void stream_and_resume(void **state)
{
	char path[] = "/tmp/att-test-imaXXXXXX";
	struct att_ima_reader *r;
	struct att_ima_entry e;
	struct att_buf b;
	uint64_t off_at_700 = 0;
	char name[64];
	int fd, i, rc;

	(void)state;
	att_buf_init(&b, 0);
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "/usr/lib/file-%d", i);
		ib_ima_ng(&b, name, name);
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(att_ima_reader_new_fd(fd, ATT_IMA_FMT_AUTO,
					       ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	for (i = 0; (rc = att_ima_reader_next(r, &e)) == ATT_OK; i++) {
		assert_int_equal(e.index, (uint64_t)i);
		if (i == 699)
			off_at_700 = e.next_offset;
	}
	assert_int_equal(rc, ATT_E_EOF);
	assert_int_equal(i, 2000);
	/* resume at entry 700 by offset */
	assert_int_equal(att_ima_reader_seek(r, 700, off_at_700), ATT_OK);
	assert_int_equal(att_ima_reader_next(r, &e), ATT_OK);
	assert_int_equal(e.index, 700);
	assert_memory_equal(e.path, "/usr/lib/file-700", e.path_len);
	/* and by skipping from the start */
	assert_int_equal(att_ima_reader_seek(r, 0, 0), ATT_OK);
	assert_int_equal(att_ima_reader_skip_to(r, 1500), ATT_OK);
	assert_int_equal(att_ima_reader_next(r, &e), ATT_OK);
	assert_memory_equal(e.path, "/usr/lib/file-1500", e.path_len);
	att_ima_reader_free(r);
	close(fd);
	unlink(path);
	att_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ima_ng_fields),
		cmocka_unit_test(every_template),
		cmocka_unit_test(legacy_template),
		cmocka_unit_test(truncated_everywhere),
		cmocka_unit_test(hostile_lengths),
		cmocka_unit_test(bad_templates_and_digests),
		cmocka_unit_test(violations_both_sizes),
		cmocka_unit_test(per_bank_digest_file),
		cmocka_unit_test(ascii_matches_binary),
		cmocka_unit_test(ascii_hostile),
		cmocka_unit_test(stream_and_resume),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
