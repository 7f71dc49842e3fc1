// SPDX-License-Identifier: Apache-2.0
/*
 * test_whitelist.c - whitelist loading (native, Keylime, legacy), every
 * verdict, signatures, and the errors for malformed documents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "attest/whitelist.h"
#include "imabuild.h"

static struct att_wl *load(const char *json)
{
	struct att_wl *wl = NULL;
	char err[300] = "";
	int rc = att_wl_load_any(json, strlen(json), NULL, &wl, err,
				 sizeof(err));

	if (rc)
		print_message("load: %s\n", err);
	assert_int_equal(rc, ATT_OK);
	return wl;
}

static int load_err(const char *json, const char *want)
{
	struct att_wl *wl = NULL;
	char err[300] = "";
	int rc = att_wl_load_json(json, strlen(json), NULL, &wl, err,
				  sizeof(err));

	assert_int_not_equal(rc, ATT_OK);
	assert_null(wl);
	if (!strstr(err, want))
		print_message("error '%s' lacks '%s'\n", err, want);
	assert_non_null(strstr(err, want));
	return rc;
}

/* Judges one ima-ng/ima-sig/ima-buf record built from the arguments. */
static enum att_verdict judge(const struct att_wl *wl, const char *tmpl,
			      const char *path, const uint8_t *d32, int viol,
			      const uint8_t *extra, size_t extralen)
{
	struct att_ima_reader *r;
	struct att_judgement j;
	struct att_ima_entry e;
	struct att_buf td, b;
	uint8_t z[32] = {0};

	att_buf_init(&td, 0);
	att_buf_init(&b, 0);
	ib_dng(&td, "sha256", viol ? z : d32, 32);
	ib_nng(&td, path);
	if (strcmp(tmpl, "ima-ng"))
		ib_field(&td, extra, extralen);
	ib_record(&b, 10, "sha1", tmpl, &td, viol);
	assert_int_equal(att_ima_reader_new_mem(b.data, b.len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	assert_int_equal(att_ima_reader_next(r, &e), ATT_OK);
	e.index = 3;
	assert_int_equal(att_wl_judge(wl, &e, &j), ATT_OK);
	att_ima_reader_free(r);
	att_buf_release(&td);
	att_buf_release(&b);
	return j.verdict;
}

static void sha(const char *s, uint8_t *d, char *hex)
{
	ib_hash("sha256", s, strlen(s), d);
	att_hex_encode(d, 32, hex);
}

static void verdicts(void **state)
{
	uint8_t d1[32], d2[32], dk[32];
	char h1[65], h2[65], hk[65], json[2048];
	struct att_wl *wl;

	(void)state;
	sha("one", d1, h1);
	sha("two", d2, h2);
	sha("key-blob", dk, hk);
	snprintf(json, sizeof(json),
		 "{\"meta\": {\"version\": 1}, \"release\": 0,"
		 " \"digests\": {\"/bin/a\": [\"%s\", \"sha256:%s\"],"
		 "  \"/bin/b b\": [\"%s\"]},"
		 " \"excludes\": [\"/tmp/.*\", \"/var/log/\\\\d+\"],"
		 " \"keyrings\": {\".ima\": [\"%s\"]},"
		 " \"ima\": {\"ignored_keyrings\": [\".builtin_trusted_keys\"],"
		 "  \"log_hash_alg\": \"sha1\", \"dm_policy\": null},"
		 " \"ima-buf\": {}, \"verification-keys\": \"\"}",
		 h1, h2, h2, hk);
	wl = load(json);
	assert_int_equal(att_wl_path_count(wl), 2);
	assert_int_equal(att_wl_digest_count(wl), 3);
	assert_int_equal(judge(wl, "ima-ng", "/bin/a", d1, 0, NULL, 0),
			 ATT_V_ALLOWED);
	assert_int_equal(judge(wl, "ima-ng", "/bin/a", d2, 0, NULL, 0),
			 ATT_V_ALLOWED);
	assert_int_equal(judge(wl, "ima-ng", "/bin/b b", d1, 0, NULL, 0),
			 ATT_V_HASH_MISMATCH);
	assert_int_equal(judge(wl, "ima-ng", "/bin/c", d1, 0, NULL, 0),
			 ATT_V_UNKNOWN_PATH);
	assert_int_equal(judge(wl, "ima-ng", "/tmp/x", d1, 0, NULL, 0),
			 ATT_V_EXCLUDED);
	assert_int_equal(judge(wl, "ima-ng", "/var/log/42", d1, 0, NULL, 0),
			 ATT_V_EXCLUDED);
	assert_int_equal(judge(wl, "ima-ng", "/var/log/x", d1, 0, NULL, 0),
			 ATT_V_UNKNOWN_PATH);
	/* excludes anchor at the start, as Keylime's re.match does */
	assert_int_equal(judge(wl, "ima-ng", "/x/tmp/y", d1, 0, NULL, 0),
			 ATT_V_UNKNOWN_PATH);
	assert_int_equal(judge(wl, "ima-ng", "/bin/a", d1, 1, NULL, 0),
			 ATT_V_VIOLATION);
	/* ima-buf: keyrings, ignored keyrings, unknown, wrong digest */
	assert_int_equal(judge(wl, "ima-buf", ".ima", dk, 0,
			       (const uint8_t *)"key-blob", 8),
			 ATT_V_ALLOWED);
	assert_int_equal(judge(wl, "ima-buf", ".builtin_trusted_keys", d1, 0,
			       (const uint8_t *)"one", 3),
			 ATT_V_IGNORED_KEYRING);
	assert_int_equal(
		judge(wl, "ima-buf", ".evm", d1, 0, (const uint8_t *)"one", 3),
		ATT_V_UNKNOWN_PATH);
	assert_int_equal(
		judge(wl, "ima-buf", ".ima", d1, 0, (const uint8_t *)"two", 3),
		ATT_V_BUF_DIGEST_BAD);
	assert_int_equal(
		judge(wl, "ima-buf", ".ima", d1, 0, (const uint8_t *)"one", 3),
		ATT_V_HASH_MISMATCH);
	att_wl_free(wl);
	/* violations allowed by policy */
	wl = load("{\"attest\": {\"violations\": \"allow\"}}");
	assert_int_equal(judge(wl, "ima-ng", "/bin/a", d1, 1, NULL, 0),
			 ATT_V_VIOLATION_ALLOWED);
	att_wl_free(wl);
	assert_true(att_verdict_ok(ATT_V_EXCLUDED));
	assert_false(att_verdict_ok(ATT_V_UNKNOWN_PATH));
	assert_string_equal(att_verdict_name(ATT_V_HASH_MISMATCH),
			    "hash-mismatch");
}

static void legacy_allowlist(void **state)
{
	uint8_t d1[32];
	char h1[65], allow[400];
	const char *excl = "# keylime exclude list\n/tmp/.*\n";
	struct att_wl *wl = NULL;
	char err[200];

	(void)state;
	sha("one", d1, h1);
	snprintf(allow, sizeof(allow),
		 "# sha256sum output\n%s  /bin/a\n%s  /bin/with space\n"
		 "%s *boot_aggregate\n",
		 h1, h1, h1);
	assert_int_equal(att_wl_load_legacy(allow, strlen(allow), excl,
					    strlen(excl), NULL, &wl, err,
					    sizeof(err)),
			 ATT_OK);
	assert_int_equal(att_wl_path_count(wl), 3);
	assert_int_equal(judge(wl, "ima-ng", "/bin/with space", d1, 0, NULL, 0),
			 ATT_V_ALLOWED);
	assert_int_equal(judge(wl, "ima-ng", "/tmp/q", d1, 0, NULL, 0),
			 ATT_V_EXCLUDED);
	att_wl_free(wl);
	assert_int_not_equal(att_wl_load_legacy("zz  /bin/a\n", 11, NULL, 0,
						NULL, &wl, err, sizeof(err)),
			     ATT_OK);
	assert_non_null(strstr(err, "line 1"));
	assert_int_not_equal(att_wl_load_legacy(h1, 64, NULL, 0, NULL, &wl, err,
						sizeof(err)),
			     ATT_OK);
	assert_non_null(strstr(err, "no path"));
	assert_int_not_equal(att_wl_load_legacy(allow, strlen(allow), "([\n", 3,
						NULL, &wl, err, sizeof(err)),
			     ATT_OK);
	assert_non_null(strstr(err, "excludes[0]"));
}

static void malformed_documents(void **state)
{
	char deep[200];
	size_t i;

	(void)state;
	load_err("{\"digests\": {\"/a\": [\"xyz\"]}}", "digests[\"/a\"][0]");
	load_err("{\"digests\": {\"/a\": \"00\"}}", "must be an array");
	load_err("{\"digests\": []}", "digests: must be object");
	load_err("{\"bogus\": 1}", "unknown field 'bogus'");
	load_err("{\"ima\": {\"nope\": 1}}", "ima: unknown field 'nope'");
	load_err("{\"ima\": {\"log_hash_alg\": \"md4\"}}", "log_hash_alg");
	load_err("{\"excludes\": [\"(\"]}", "excludes[0]");
	load_err("{\"excludes\": [1]}", "excludes[0]: must be a string");
	/* regcomp blow-ups (found by fuzz_whitelist) are refused */
	load_err("{\"excludes\": [\"/a\", \"x+++++++++\"]}", "excludes[1]");
	load_err("{\"excludes\": [\"((a{255}){255}){255}\"]}", "excludes[0]");
	load_err("{\"release\": \"x\"}", "release");
	load_err("{\"attest\": {\"violations\": \"maybe\"}}",
		 "attest.violations");
	load_err("{\"digests\": {}, \"digests\": {}}",
		 "duplicate key 'digests'");
	load_err("{\"digests\": {\"/a\": [], \"/b\": [], \"/a\": []}}",
		 "duplicate key '/a'");
	load_err("{\"digests\": {}} x", "at byte 16");
	load_err("{\"digests\": {\"/\xff\": []}}", "JSON error");
	load_err("[1, 2", "must be a JSON object");
	load_err("{\"digests\": {\"/a\": "
		 "[\"0123456789012345678901234567890123456789\"",
		 "JSON ends early");
	load_err("{\"verification-keys\": \"-----BEGIN nonsense\"}",
		 "verification-keys");
	memcpy(deep, "{\"meta\": ", 9);
	for (i = 9; i < 60; i++)
		deep[i] = '[';
	deep[60] = '\0';
	load_err(deep, "nesting too deep");
	load_err("{\"digests\": {\"/a\": [[[]]]}}", "digests[\"/a\"][0]");
	load_err("{\"digests\": {\"/a\": "
		 "[\"0123456789012345678901234567890123456789\",]}}",
		 "JSON error");
	load_err("{\"digests\": {\"/a\\u0000b\": []}}", "NUL");
	load_err("{\"digests\": {\"/a\\ud800\": []}}", "surrogate");
	load_err("{\"meta\": {\"a\": 1, \"a\": 2}}", "duplicate key 'a'");
	load_err("{\"release\": 1e999999999999999999999999999999999999999999"
		 "999999999999999999999999999}",
		 "number too long");
	load_err("{\"digests\": {\"/\x01\": []}}", "control character");
	load_err("", "JSON ends early");
}

static void signatures(void **state)
{
	EVP_PKEY *pk = EVP_RSA_gen(2048);
	uint8_t d[32], sig[512], hdr[9 + 512], t[20];
	unsigned char *spki = NULL;
	size_t siglen = sizeof(sig);
	X509_PUBKEY *xpk = NULL;
	const unsigned char *bits;
	EVP_PKEY_CTX *ctx;
	struct att_wl *wl;
	char *json, *pem;
	BIO *bio;
	long pemlen;
	int bitslen, spkilen;
	uint32_t keyid;

	(void)state;
	assert_non_null(pk);
	ib_hash("sha256", "signed file", 11, d);
	ctx = EVP_PKEY_CTX_new(pk, NULL);
	assert_int_equal(EVP_PKEY_sign_init(ctx), 1);
	EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING);
	EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256());
	assert_int_equal(EVP_PKEY_sign(ctx, sig, &siglen, d, 32), 1);
	EVP_PKEY_CTX_free(ctx);
	/* keyid: last 4 bytes of SHA-1 of the subjectPublicKey bits */
	X509_PUBKEY_set(&xpk, pk);
	X509_PUBKEY_get0_param(NULL, &bits, &bitslen, NULL, xpk);
	ib_hash("sha1", bits, (size_t)bitslen, t);
	X509_PUBKEY_free(xpk);
	keyid = ((uint32_t)t[16] << 24) | ((uint32_t)t[17] << 16) |
		((uint32_t)t[18] << 8) | t[19];
	hdr[0] = 3;
	hdr[1] = 2;
	hdr[2] = 4; /* sha256 */
	hdr[3] = (uint8_t)(keyid >> 24);
	hdr[4] = (uint8_t)(keyid >> 16);
	hdr[5] = (uint8_t)(keyid >> 8);
	hdr[6] = (uint8_t)keyid;
	hdr[7] = (uint8_t)(siglen >> 8);
	hdr[8] = (uint8_t)siglen;
	memcpy(hdr + 9, sig, siglen);
	/* native form: PEM keys in an array */
	bio = BIO_new(BIO_s_mem());
	PEM_write_bio_PUBKEY(bio, pk);
	pemlen = BIO_get_mem_data(bio, &pem);
	json = malloc((size_t)pemlen * 2 + 200);
	{
		struct att_buf esc;
		long i;

		att_buf_init(&esc, 0);
		for (i = 0; i < pemlen; i++) {
			if (pem[i] == '\n')
				att_buf_append_str(&esc, "\\n");
			else
				att_buf_append_u8(&esc, (uint8_t)pem[i]);
		}
		att_buf_cstr(&esc);
		sprintf(json, "{\"verification-keys\": [\"%s\"]}",
			(char *)esc.data);
		att_buf_release(&esc);
	}
	BIO_free(bio);
	wl = load(json);
	free(json);
	assert_int_equal(judge(wl, "ima-sig", "/bin/s", d, 0, hdr, 9 + siglen),
			 ATT_V_SIG_OK);
	hdr[20] ^= 1;
	assert_int_equal(judge(wl, "ima-sig", "/bin/s", d, 0, hdr, 9 + siglen),
			 ATT_V_SIG_BAD);
	hdr[20] ^= 1;
	hdr[6] ^= 1; /* unknown key id */
	assert_int_equal(judge(wl, "ima-sig", "/bin/s", d, 0, hdr, 9 + siglen),
			 ATT_V_SIG_BAD);
	hdr[6] ^= 1;
	assert_int_equal(judge(wl, "ima-sig", "/bin/s", d, 0, hdr, 8 + siglen),
			 ATT_V_SIG_BAD);
	/* no signature: judged by digest, and it is not on the list */
	assert_int_equal(judge(wl, "ima-sig", "/bin/s", d, 0, NULL, 0),
			 ATT_V_UNKNOWN_PATH);
	att_wl_free(wl);
	/* Keylime form: a JSON string with base64 DER pubkeys */
	spkilen = i2d_PUBKEY(pk, &spki);
	{
		char *b64 = malloc(att_b64_enclen((size_t)spkilen) + 1);

		att_b64_encode(spki, (size_t)spkilen, b64);
		json = malloc(strlen(b64) + 200);
		sprintf(json,
			"{\"verification-keys\": \"{\\\"meta\\\": "
			"{\\\"version\\\""
			": 1}, \\\"pubkeys\\\": [\\\"%s\\\"]}\"}",
			b64);
		free(b64);
	}
	OPENSSL_free(spki);
	wl = load(json);
	free(json);
	assert_int_equal(judge(wl, "ima-sig", "/bin/s", d, 0, hdr, 9 + siglen),
			 ATT_V_SIG_OK);
	att_wl_free(wl);
	EVP_PKEY_free(pk);
}

static void hundred_k_paths(void **state)
{
	struct att_buf j;
	struct att_wl *wl = NULL;
	char err[200];
	int i;

	(void)state;
	att_buf_init(&j, 0);
	att_buf_append_str(&j, "{\"digests\": {");
	for (i = 0; i < 100000; i++)
		att_buf_printf(&j, "%s\"/usr/lib/f%d\": [\"%064x\"]",
			       i ? "," : "", i, i);
	att_buf_append_str(&j, "}}");
	assert_int_equal(att_wl_load_json((char *)j.data, j.len, NULL, &wl, err,
					  sizeof(err)),
			 ATT_OK);
	assert_int_equal(att_wl_path_count(wl), 100000);
	att_wl_free(wl);
	att_buf_release(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts),
		cmocka_unit_test(legacy_allowlist),
		cmocka_unit_test(malformed_documents),
		cmocka_unit_test(signatures),
		cmocka_unit_test(hundred_k_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
