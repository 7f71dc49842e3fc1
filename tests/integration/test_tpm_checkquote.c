// SPDX-License-Identifier: Apache-2.0
/*
 * test_tpm_checkquote.c - cross-check with tpm2-tools: libattest's quote
 * verification and tpm2_checkquote agree on the same quotes, good and bad,
 * whether the quote was made by the agent or by tpm2_quote.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include <cmocka.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/pcrs.h"
#include "attest/tpm_esys.h"
#include "attest/tpm_key.h"
#include "attest/tpm_quote.h"
#include "swtpm.h"

#define AK_HANDLE 0x81010020u
#define SEL_TEXT  "sha256:0,10,16+sha1:16"

struct fx {
	struct att_swtpm *sw;
	struct att_esys *tpm;
	struct att_tpm_key *ak[2]; /* RSASSA, ECDSA */
	struct att_buf blob[2];
	char akpem[2][300];
};

static struct fx F;

static void path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", att_swtpm_dir(F.sw), name);
}

static int write_file(const char *name, const void *p, size_t n)
{
	char pth[300];
	FILE *f;
	int ok;

	path(pth, sizeof(pth), name);
	f = fopen(pth, "wb");
	if (!f)
		return -1;
	ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* Runs a tool, its output into the state dir's tools.log; exit code. */
static int run(char *const argv[])
{
	char log[300];
	pid_t pid;
	int st;

	path(log, sizeof(log), "tools.log");
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int setup(void **state)
{
	struct att_buf pub;
	uint8_t d[32];
	int i;

	(void)state;
	if (att_swtpm_start(&F.sw)) {
		fprintf(stderr, "FATAL: cannot start swtpm\n");
		return -1;
	}
	if (att_esys_new(att_swtpm_tcti(F.sw), &F.tpm))
		return -1;
	att_buf_init(&pub, 0);
	for (i = 0; i < 2; i++) {
		FILE *f;

		att_buf_init(&F.blob[i], 0);
		if (att_esys_ak_create(F.tpm,
				       i ? ATT_ESYS_AK_ECC_ECDSA
					 : ATT_ESYS_AK_RSA_RSASSA,
				       ATT_ESYS_KEY_RSA, &F.blob[i]) ||
		    att_esys_ak_public(F.tpm, &pub) ||
		    att_tpm_key_parse(pub.data, pub.len, &F.ak[i]))
			return -1;
		path(F.akpem[i], sizeof(F.akpem[i]), i ? "ak1.pem" : "ak0.pem");
		f = fopen(F.akpem[i], "w");
		if (!f || PEM_write_PUBKEY(f, att_tpm_key_pkey(F.ak[i])) != 1)
			return -1;
		fclose(f);
	}
	att_buf_release(&pub);
	/* non-zero values in the quoted PCRs of both banks */
	memset(d, 0xa5, sizeof(d));
	if (att_esys_pcr_extend(F.tpm, 10, ATT_HASH_SHA256, d) ||
	    att_esys_pcr_extend(F.tpm, 16, ATT_HASH_SHA256, d) ||
	    att_esys_pcr_extend(F.tpm, 16, ATT_HASH_SHA1, d))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		att_tpm_key_free(F.ak[i]);
		att_buf_release(&F.blob[i]);
	}
	att_esys_free(F.tpm);
	att_swtpm_free(F.sw);
	return 0;
}

struct quote {
	uint8_t nonce[20];
	struct att_pcr_sel sel;
	struct att_pcrs pcrs;
	struct att_buf attest, sig;
};

static void sel_init(struct att_pcr_sel *sel)
{
	memset(sel, 0, sizeof(*sel));
	assert_int_equal(att_pcr_sel_add(sel, ATT_HASH_SHA256,
					 (1u << 0) | (1u << 10) | (1u << 16)),
			 ATT_OK);
	assert_int_equal(att_pcr_sel_add(sel, ATT_HASH_SHA1, 1u << 16), ATT_OK);
}

/* PCR values concatenated in selection order (tpm2-tools "values"). */
static void pcr_values(const struct quote *q, struct att_buf *out)
{
	unsigned int i, pcr;

	att_buf_init(out, 0);
	for (i = 0; i < q->sel.count; i++)
		for (pcr = 0; pcr < ATT_PCR_COUNT; pcr++)
			if (q->sel.b[i].mask & (1u << pcr))
				assert_int_equal(
					att_buf_append(
						out,
						att_pcrs_get(&q->pcrs,
							     q->sel.b[i].bank,
							     pcr),
						att_hash_size(
							q->sel.b[i].bank)),
					ATT_OK);
}

/* tpm2_checkquote's verdict: 1 good, 0 rejected. */
static int checkquote(const struct quote *q, int ak)
{
	char msg[300], sig[300], pcrs[300], hex[2 * sizeof(q->nonce) + 1];
	struct att_buf vals;
	int rc;

	pcr_values(q, &vals);
	assert_int_equal(write_file("q.msg", q->attest.data, q->attest.len), 0);
	assert_int_equal(write_file("q.sig", q->sig.data, q->sig.len), 0);
	assert_int_equal(write_file("q.pcrs", vals.data, vals.len), 0);
	att_buf_release(&vals);
	path(msg, sizeof(msg), "q.msg");
	path(sig, sizeof(sig), "q.sig");
	path(pcrs, sizeof(pcrs), "q.pcrs");
	att_hex_encode(q->nonce, sizeof(q->nonce), hex);
	{
		char *argv[] = {"tpm2_checkquote",
				"-u",
				F.akpem[ak],
				"-m",
				msg,
				"-s",
				sig,
				"-f",
				pcrs,
				"-F",
				"values",
				"-l",
				SEL_TEXT,
				"-g",
				"sha256",
				"-q",
				hex,
				NULL};

		rc = run(argv);
	}
	assert_true(rc == 0 || rc == 1); /* 1: tool verdict "no" */
	return rc == 0;
}

static int ours(const struct quote *q, int ak, enum att_quote_reason *r)
{
	return att_quote_verify(F.ak[ak], q->attest.data, q->attest.len,
				q->sig.data, q->sig.len, q->nonce,
				sizeof(q->nonce), &q->sel, &q->pcrs, NULL,
				r) == ATT_OK;
}

static void agent_quote(struct quote *q, int ak)
{
	memset(q, 0, sizeof(*q));
	assert_int_equal(RAND_bytes(q->nonce, sizeof(q->nonce)), 1);
	sel_init(&q->sel);
	att_pcrs_clear(&q->pcrs);
	att_buf_init(&q->attest, 0);
	att_buf_init(&q->sig, 0);
	assert_int_equal(att_esys_ak_load(F.tpm, ATT_ESYS_KEY_RSA,
					  F.blob[ak].data, F.blob[ak].len),
			 ATT_OK);
	assert_int_equal(att_esys_quote(F.tpm, q->nonce, sizeof(q->nonce),
					&q->sel, &q->attest, &q->sig),
			 ATT_OK);
	assert_int_equal(att_esys_pcr_read(F.tpm, &q->sel, &q->pcrs), ATT_OK);
}

static void quote_release(struct quote *q)
{
	att_buf_release(&q->attest);
	att_buf_release(&q->sig);
}

static void agree(const struct quote *q, int ak, int expect_good,
		  enum att_quote_reason want)
{
	enum att_quote_reason r = ATT_QR_OK;
	int a = ours(q, ak, &r), b = checkquote(q, ak);

	if (a != b || a != expect_good)
		fail_msg("ours %d (%s), tpm2_checkquote %d, expected %d", a,
			 att_quote_reason_str(r), b, expect_good);
	assert_int_equal(r, want);
}

static void agent_quotes_agree(void **state)
{
	struct quote q;
	uint8_t v[32];

	(void)state;
	for (int ak = 0; ak < 2; ak++) {
		agent_quote(&q, ak);
		agree(&q, ak, 1, ATT_QR_OK);
		/* wrong nonce */
		q.nonce[0] ^= 1;
		agree(&q, ak, 0, ATT_QR_NONCE);
		q.nonce[0] ^= 1;
		/* one flipped byte in the attest */
		q.attest.data[q.attest.len / 2] ^= 0x10;
		agree(&q, ak, 0, ATT_QR_SIGNATURE);
		q.attest.data[q.attest.len / 2] ^= 0x10;
		/* a PCR value that does not match the digest */
		memcpy(v, att_pcrs_get(&q.pcrs, ATT_HASH_SHA256, 10), 32);
		v[0] ^= 1;
		att_pcrs_set(&q.pcrs, ATT_HASH_SHA256, 10, v, 32);
		agree(&q, ak, 0, ATT_QR_PCR_DIGEST);
		v[0] ^= 1;
		att_pcrs_set(&q.pcrs, ATT_HASH_SHA256, 10, v, 32);
		agree(&q, ak, 1, ATT_QR_OK);
		/* signed by the other AK */
		assert_false(ours(&q, 1 - ak, NULL));
		assert_false(checkquote(&q, 1 - ak));
		quote_release(&q);
	}
}

/* tpm2_quote makes the quote (the AK persisted by the agent); we verify. */
static void tpm2_quote_verifies(void **state)
{
	char msg[300], sig[300], pcrs[300], hex[41], handle[16];
	struct att_buf vals;
	struct quote q;
	size_t off = 0;
	unsigned int i, pcr;

	(void)state;
	memset(&q, 0, sizeof(q));
	assert_int_equal(RAND_bytes(q.nonce, sizeof(q.nonce)), 1);
	sel_init(&q.sel);
	att_pcrs_clear(&q.pcrs);
	assert_int_equal(att_esys_ak_load(F.tpm, ATT_ESYS_KEY_RSA,
					  F.blob[0].data, F.blob[0].len),
			 ATT_OK);
	assert_int_equal(att_esys_ak_persist(F.tpm, AK_HANDLE), ATT_OK);
	/* swtpm serves one client at a time */
	att_esys_free(F.tpm);
	F.tpm = NULL;
	path(msg, sizeof(msg), "t.msg");
	path(sig, sizeof(sig), "t.sig");
	path(pcrs, sizeof(pcrs), "t.pcrs");
	att_hex_encode(q.nonce, sizeof(q.nonce), hex);
	snprintf(handle, sizeof(handle), "0x%x", AK_HANDLE);
	{
		char *argv[] = {
			"tpm2_quote", "-T",	(char *)att_swtpm_tcti(F.sw),
			"-c",	      handle,	"-l",
			SEL_TEXT,     "-q",	hex,
			"-m",	      msg,	"-s",
			sig,	      "-o",	pcrs,
			"-F",	      "values", "-g",
			"sha256",     NULL};

		assert_int_equal(run(argv), 0);
	}
	att_buf_init(&q.attest, 0);
	att_buf_init(&q.sig, 0);
	att_buf_init(&vals, 0);
	assert_int_equal(att_buf_read_file(&q.attest, msg, 4096), ATT_OK);
	assert_int_equal(att_buf_read_file(&q.sig, sig, 4096), ATT_OK);
	assert_int_equal(att_buf_read_file(&vals, pcrs, 4096), ATT_OK);
	for (i = 0; i < q.sel.count; i++) {
		size_t sz = att_hash_size(q.sel.b[i].bank);

		for (pcr = 0; pcr < ATT_PCR_COUNT; pcr++) {
			if (!(q.sel.b[i].mask & (1u << pcr)))
				continue;
			assert_true(off + sz <= vals.len);
			att_pcrs_set(&q.pcrs, q.sel.b[i].bank, pcr,
				     vals.data + off, sz);
			off += sz;
		}
	}
	assert_int_equal(off, vals.len);
	agree(&q, 0, 1, ATT_QR_OK);
	q.nonce[3] ^= 0xff;
	agree(&q, 0, 0, ATT_QR_NONCE);
	quote_release(&q);
	att_buf_release(&vals);

	assert_int_equal(att_esys_new(att_swtpm_tcti(F.sw), &F.tpm), ATT_OK);
	assert_int_equal(att_esys_evict(F.tpm, AK_HANDLE), ATT_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(agent_quotes_agree),
		cmocka_unit_test(tpm2_quote_verifies),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
