// SPDX-License-Identifier: Apache-2.0
/*
 * test_boot.c - measured boot: the event data parsers cut at every byte
 * and fed bad sizes, names and GUIDs; a crafted log's facts; every rule
 * of the whitelist's boot section passing and failing (the event named);
 * the real OVMF Secure Boot log of tests/fixtures/uefi.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "attest/boot.h"
#include "attest/buf.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/whitelist.h"
#include "evbuild.h"
#include "imabuild.h"

#define OWNER "77fa9abd-0359-4d32-bd60-28f4e78f784b"

/* What a crafted boot changes from the golden one. */
struct variant {
	int secure_boot_off;
	int evil_db;	      /* a second db certificate */
	int drop_dbx;	      /* dbx lacks revoked-2 */
	int skip_sep;	      /* 1 + the PCR without a separator */
	int bad_sep;	      /* 1 + the PCR whose separator says error */
	int bad_var_digest;   /* db's digest is not the hash of its data */
	int wrong_guid;	      /* db under the global variable GUID */
	const char *app2;     /* grub's image */
	int extra_app;	      /* a fourth boot application */
	int no_kernel_app;    /* two boot applications only */
	const char *kernel;   /* kernel file grub read */
	const char *initrd;   /* initrd file */
	const char *cmdline;  /* kernel_cmdline text */
	int bad_cmdline_hash; /* the digest is not the text's */
	int cut_var;	      /* PK's data cut short by 1 byte */
};

static void var_event(struct att_buf *log, const char *guid, const char *name,
		      const struct att_buf *val, int bad)
{
	struct att_buf d;

	att_buf_init(&d, 0);
	evb_var(&d, guid, name, val->data ? val->data : (const uint8_t *)"",
		val->len);
	if (bad)
		evb_event_over(log, 7, ATT_EV_EFI_VARIABLE_DRIVER_CONFIG,
			       d.data, d.len, "other", 5);
	else
		evb_event(log, 7, ATT_EV_EFI_VARIABLE_DRIVER_CONFIG, d.data,
			  d.len, NULL, NULL);
	att_buf_release(&d);
}

static void cert_list(struct att_buf *b, const char *cert)
{
	const uint8_t *e[1] = {(const uint8_t *)cert};

	evb_siglist(b, ATT_GUID_CERT_X509, OWNER, e, 1, strlen(cert));
}

static void text_event(struct att_buf *log, uint32_t pcr, const char *pre,
		       const char *text, int bad)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s%s", pre, text);
	evb_event_over(log, pcr, ATT_EV_IPL, buf, strlen(buf) + 1,
		       bad ? "x" : text, bad ? 1 : strlen(text));
}

static void build(struct att_buf *log, const struct variant *v)
{
	static const char *const apps[3] = {"SHIM", "GRUB", "KERNEL"};
	static const char *const paths[3] = {"\\EFI\\BOOT\\BOOTX64.EFI",
					     "\\EFI\\BOOT\\grubx64.efi", ""};
	struct att_buf b;
	uint8_t r1[32], r2[32], one = v->secure_boot_off ? 0 : 1;
	const uint8_t *rv[2] = {r1, r2};
	uint32_t sep;
	unsigned int i, napps;

	att_buf_init(log, 0);
	evb_header(log);
	att_buf_init(&b, 0);
	att_buf_append(&b, &one, 1);
	var_event(log, ATT_GUID_EFI_GLOBAL, "SecureBoot", &b, 0);
	att_buf_release(&b);
	cert_list(&b, "PK-CERT");
	if (v->cut_var)
		b.len--;
	var_event(log, ATT_GUID_EFI_GLOBAL, "PK", &b, 0);
	att_buf_release(&b);
	cert_list(&b, "KEK-CERT");
	var_event(log, ATT_GUID_EFI_GLOBAL, "KEK", &b, 0);
	att_buf_release(&b);
	cert_list(&b, "DB-CERT");
	if (v->evil_db)
		cert_list(&b, "EVIL-CERT");
	var_event(log,
		  v->wrong_guid ? ATT_GUID_EFI_GLOBAL : ATT_GUID_IMAGE_SEC_DB,
		  "db", &b, v->bad_var_digest);
	att_buf_release(&b);
	ib_hash("sha256", "revoked-1", 9, r1);
	ib_hash("sha256", "revoked-2", 9, r2);
	evb_siglist(&b, ATT_GUID_CERT_SHA256, OWNER, rv, v->drop_dbx ? 1 : 2,
		    32);
	var_event(log, ATT_GUID_IMAGE_SEC_DB, "dbx", &b, 0);
	att_buf_release(&b);
	for (i = 0; i < 8; i++) {
		if (v->skip_sep == (int)i + 1)
			continue;
		sep = v->bad_sep == (int)i + 1 ? 0xffffffffu : 0;
		evb_event(log, i, ATT_EV_SEPARATOR, &sep, 4, NULL, NULL);
	}
	napps = 3u + (v->extra_app ? 1u : 0u) - (v->no_kernel_app ? 1u : 0u);
	for (i = 0; i < napps; i++) {
		const char *img = i == 1 && v->app2 ? v->app2
				  : i < 3	    ? apps[i]
						    : "EXTRA";

		att_buf_init(&b, 0);
		evb_image(&b, i < 3 ? paths[i] : "\\x.efi");
		evb_event_over(log, 4, ATT_EV_EFI_BOOT_SERVICES_APP, b.data,
			       b.len, img, strlen(img));
		att_buf_release(&b);
	}
	text_event(log, 8, "grub_cmd: ", "linux /vmlinuz root=/dev/vda1", 0);
	evb_event_over(log, 9, ATT_EV_IPL, "/vmlinuz", 9,
		       v->kernel ? v->kernel : "KERNEL",
		       strlen(v->kernel ? v->kernel : "KERNEL"));
	text_event(log, 8, "kernel_cmdline: ",
		   v->cmdline ? v->cmdline : "/vmlinuz root=/dev/vda1 ro",
		   v->bad_cmdline_hash);
	text_event(log, 8, "grub_cmd: ", "initrd /initrd.img", 0);
	evb_event_over(log, 9, ATT_EV_IPL, "/initrd.img", 12,
		       v->initrd ? v->initrd : "INITRD",
		       strlen(v->initrd ? v->initrd : "INITRD"));
}

static struct att_boot_facts *facts_of(const struct att_buf *log)
{
	struct att_boot_facts *f = NULL;
	char err[300];

	if (att_boot_facts_read(log->data, log->len, NULL, &f, err,
				sizeof(err)))
		fail_msg("%s", err);
	return f;
}

/* The golden boot's policy, as attest-whitelist create makes it. */
static struct att_boot_policy *golden_policy(void)
{
	struct variant v = {0};
	struct att_boot_policy *p = NULL;
	struct att_boot_facts *f;
	struct json_object *o;
	struct att_buf log;
	char err[300];

	build(&log, &v);
	f = facts_of(&log);
	o = att_boot_policy_json_from_facts(f, ATT_HASH_SHA256);
	assert_non_null(o);
	if (att_boot_policy_from_json(o, &p, err, sizeof(err)))
		fail_msg("%s: %s", err, json_object_to_json_string(o));
	json_object_put(o);
	att_boot_facts_free(f);
	att_buf_release(&log);
	return p;
}

/* Judges a variant; returns the failures' text, one a line. */
static char *judge(const struct att_boot_policy *p, const struct variant *v,
		   enum att_boot_status *st)
{
	struct att_boot_result r;
	struct att_buf log, out;
	char t[ATT_BOOT_DETAIL + 80];
	size_t i;

	build(&log, v);
	att_boot_result_init(&r);
	assert_int_equal(att_boot_judge(p, log.data, log.len, NULL, &r), 0);
	*st = r.status;
	att_buf_init(&out, 0);
	if (r.status == ATT_BOOT_MALFORMED)
		att_buf_printf(&out, "%s\n", r.errmsg);
	for (i = 0; i < r.nfailures; i++) {
		att_boot_failure_text(&r.failures[i], t, sizeof(t));
		att_buf_printf(&out, "[%s] %s\n", r.failures[i].rule, t);
	}
	att_buf_cstr(&out);
	att_boot_result_release(&r);
	att_buf_release(&log);
	return (char *)out.data;
}

static void expect(const struct variant *v, const char *want)
{
	struct att_boot_policy *p = golden_policy();
	enum att_boot_status st;
	char *got = judge(p, v, &st);

	if (st != ATT_BOOT_FAIL || !strstr(got, want))
		fail_msg("want '%s' (status FAIL), got status %d:\n%s", want,
			 (int)st, got);
	free(got);
	att_boot_policy_free(p);
}

static void test_golden(void **state)
{
	struct att_boot_policy *p = golden_policy();
	struct variant v = {0};
	struct att_boot_facts *f;
	enum att_boot_status st;
	struct att_buf log;
	char *got;

	(void)state;
	build(&log, &v);
	f = facts_of(&log);
	assert_int_equal(f->secure_boot, 1);
	assert_int_equal(f->var[ATT_BV_DB].n, 1);
	assert_int_equal(f->var[ATT_BV_DBX].n, 2);
	assert_int_equal(f->var[ATT_BV_DBX].sig[0].kind, ATT_SIG_SHA256);
	assert_int_equal(f->napps, 3);
	assert_string_equal(f->apps[0].path, "\\EFI\\BOOT\\BOOTX64.EFI");
	assert_int_equal(f->nkernels, 1);
	assert_int_equal(f->ninitrds, 1);
	assert_int_equal(f->ncmdlines, 1);
	assert_string_equal(f->cmdlines[0].text, "/vmlinuz root=/dev/vda1 ro");
	assert_int_equal(f->separators, 0xff);
	assert_int_equal(f->nbad, 0);
	att_boot_facts_free(f);
	att_buf_release(&log);
	got = judge(p, &v, &st);
	if (st != ATT_BOOT_PASS)
		fail_msg("%s", got);
	free(got);
	att_boot_policy_free(p);
}

static void test_rules_fail(void **state)
{
	struct variant v;

	(void)state;
	memset(&v, 0, sizeof(v));
	v.secure_boot_off = 1;
	expect(&v, "[secure_boot] event 0 (PCR 7, EV_EFI_VARIABLE_DRIVER_"
		   "CONFIG): Secure Boot is off");
	memset(&v, 0, sizeof(v));
	v.evil_db = 1;
	expect(&v, "[db] event 3 (PCR 7, EV_EFI_VARIABLE_DRIVER_CONFIG): db "
		   "entry certificate");
	memset(&v, 0, sizeof(v));
	v.drop_dbx = 1;
	expect(&v, "[dbx_required] event 4 (PCR 7, EV_EFI_VARIABLE_DRIVER_"
		   "CONFIG): dbx lacks the required entry");
	memset(&v, 0, sizeof(v));
	v.skip_sep = 3;
	expect(&v, "[separators] no EV_SEPARATOR in PCR 2");
	memset(&v, 0, sizeof(v));
	v.bad_sep = 5;
	expect(&v, "[separators] event 9 (PCR 4, EV_SEPARATOR): separator "
		   "value 0xffffffff");
	memset(&v, 0, sizeof(v));
	v.bad_var_digest = 1;
	expect(&v, "[variable] event 3 (PCR 7, EV_EFI_VARIABLE_DRIVER_CONFIG):"
		   " digest is not the hash of the variable's data");
	memset(&v, 0, sizeof(v));
	v.wrong_guid = 1;
	expect(&v, "variable db has vendor GUID " ATT_GUID_EFI_GLOBAL);
	memset(&v, 0, sizeof(v));
	v.app2 = "EVIL-GRUB";
	expect(&v, "[boot_apps] event 14 (PCR 4, EV_EFI_BOOT_SERVICES_"
		   "APPLICATION): digest sha256:");
	expect(&v, "(\\EFI\\BOOT\\grubx64.efi) not an allowed boot "
		   "application at stage 2");
	memset(&v, 0, sizeof(v));
	v.extra_app = 1;
	expect(&v, "boot application 4, sha256:");
	memset(&v, 0, sizeof(v));
	v.no_kernel_app = 1;
	expect(&v, "[boot_apps] 2 boot applications in the log (PCR 4), the "
		   "policy has 3 stages");
	memset(&v, 0, sizeof(v));
	v.kernel = "OTHER-KERNEL";
	expect(&v, "[kernels] event 17 (PCR 9, EV_IPL): digest sha256:");
	memset(&v, 0, sizeof(v));
	v.initrd = "OTHER-INITRD";
	expect(&v, "(/initrd.img) not an allowed initrd");
	memset(&v, 0, sizeof(v));
	v.cmdline = "/vmlinuz root=/dev/vda1 ro init=/bin/sh";
	expect(&v, "[cmdline] event 18 (PCR 8, EV_IPL): kernel command line "
		   "'/vmlinuz root=/dev/vda1 ro init=/bin/sh' does not match");
	memset(&v, 0, sizeof(v));
	v.bad_cmdline_hash = 1;
	expect(&v, "digest is not the hash of the text after grub's prefix");
	expect(&v, "[cmdline] no kernel command line in the log");
}

static struct att_boot_policy *policy(const char *json, int want_ok)
{
	struct att_boot_policy *p = NULL;
	struct json_object *o = NULL;
	char err[300] = "";
	int rc;

	assert_int_equal(
		att_json_parse(json, strlen(json), 16, &o, err, sizeof(err)),
		0);
	rc = att_boot_policy_from_json(o, &p, err, sizeof(err));
	json_object_put(o);
	if (want_ok && rc)
		fail_msg("%s: %s", json, err);
	if (!want_ok && !rc)
		fail_msg("accepted: %s", json);
	if (!want_ok)
		assert_non_null(strstr(err, "boot"));
	return p;
}

/* Hand-written rules: a stage with several digests, patterns, any. */
static void test_rules_pass(void **state)
{
	char json[2048], hs[65], hg[65], hk[65];
	struct att_boot_policy *p;
	struct variant v = {0};
	enum att_boot_status st;
	char *got;

	(void)state;
	ib_sha256_hex("SHIM", hs);
	ib_sha256_hex("GRUB", hg);
	ib_sha256_hex("KERNEL", hk);
	snprintf(json, sizeof(json),
		 "{\"secure_boot\": \"any\", \"boot_apps\": [\"%s\", "
		 "[\"sha256:%s\", \"sha256:%s\"], [\"%s\"]], \"kernels\": "
		 "[\"%s\"], \"cmdline\": \"/vmlinuz root=/dev/vda[0-9] "
		 "ro( init=/sbin/init)?\", \"separators\": true}",
		 hs, hk, hg, hk, hk);
	p = policy(json, 1);
	v.secure_boot_off = 1;
	v.app2 = "KERNEL"; /* stage 2 allows either */
	got = judge(p, &v, &st);
	if (st != ATT_BOOT_PASS)
		fail_msg("status %d: %s", (int)st, got ? got : "(none)");
	free(got);
	/* the pattern is anchored: a suffix does not pass */
	v.cmdline = "/vmlinuz root=/dev/vda1 ro quiet";
	got = judge(p, &v, &st);
	assert_int_equal(st, ATT_BOOT_FAIL);
	assert_non_null(strstr(got, "[cmdline]"));
	free(got);
	att_boot_policy_free(p);
	/* a section with nothing in it: only separators required */
	p = policy("{}", 1);
	memset(&v, 0, sizeof(v));
	v.evil_db = 1;
	v.app2 = "X";
	got = judge(p, &v, &st);
	assert_int_equal(st, ATT_BOOT_PASS);
	free(got);
	v.skip_sep = 1;
	got = judge(p, &v, &st);
	assert_int_equal(st, ATT_BOOT_FAIL);
	free(got);
	att_boot_policy_free(p);
	p = policy("{\"separators\": false}", 1);
	got = judge(p, &v, &st);
	assert_int_equal(st, ATT_BOOT_PASS);
	free(got);
	att_boot_policy_free(p);
	/* a db entry pinned to another owner is not the same entry */
	ib_sha256_hex("DB-CERT", hs);
	snprintf(json, sizeof(json),
		 "{\"db\": [{\"id\": \"%s\", \"owner\": "
		 "\"00000000-0000-0000-0000-000000000001\"}]}",
		 hs);
	p = policy(json, 1);
	memset(&v, 0, sizeof(v));
	got = judge(p, &v, &st);
	assert_int_equal(st, ATT_BOOT_FAIL);
	free(got);
	att_boot_policy_free(p);
	snprintf(json, sizeof(json), "{\"db\": [\"%s\"]}", hs);
	p = policy(json, 1);
	got = judge(p, &v, &st);
	assert_int_equal(st, ATT_BOOT_PASS);
	free(got);
	att_boot_policy_free(p);
}

static void test_policy_json_errors(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{\"nope\": 1}",
		"{\"secure_boot\": \"yes\"}",
		"{\"secure_boot\": 1}",
		"{\"db\": \"abc\"}",
		"{\"db\": [\"abc\"]}",
		"{\"db\": [{\"owner\": "
		"\"77fa9abd-0359-4d32-bd60-28f4e78f784b\"}]}",
		"{\"db\": [{\"id\": \"00\", \"x\": 1}]}",
		"{\"pk\": [{\"id\": "
		"\"000000000000000000000000000000000000000000"
		"0000000000000000000000\", \"owner\": \"77fa9abd-0359-4d32-bd60"
		"-28f4e78f784\"}]}",
		"{\"boot_apps\": {}}",
		"{\"boot_apps\": [[]]}",
		"{\"boot_apps\": [[\"zz\"]]}",
		"{\"boot_apps\": [3]}",
		"{\"kernels\": [\"12\"]}",
		"{\"initrds\": \"ab\"}",
		"{\"cmdline\": 3}",
		"{\"cmdline\": \"(unclosed\"}",
		"{\"cmdline\": \"((a{16}){16}){16}x{2}y{2}\"}",
		"{\"cmdline\": \"a++\"}",
		"{\"separators\": \"yes\"}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		policy(bad[i], 0);
}

/* Every cut of a valid structure is an error, never a crash or OK. */
static void test_var_parse(void **state)
{
	struct att_uefi_var v;
	struct att_buf b, c;
	char why[160];
	size_t i;

	(void)state;
	att_buf_init(&b, 0);
	evb_var(&b, ATT_GUID_EFI_GLOBAL, "SecureBoot", "\x01", 1);
	assert_int_equal(
		att_uefi_var_parse(b.data, b.len, &v, why, sizeof(why)), 0);
	assert_string_equal(v.name, "SecureBoot");
	assert_int_equal(v.data_len, 1);
	for (i = 0; i < b.len; i++)
		assert_int_not_equal(
			att_uefi_var_parse(b.data, i, &v, why, sizeof(why)), 0);
	att_buf_init(&c, 0);
	att_buf_append(&c, b.data, b.len);
	att_buf_append_u8(&c, 0);
	assert_int_equal(
		att_uefi_var_parse(c.data, c.len, &v, why, sizeof(why)),
		ATT_E_TRAILING);
	att_buf_release(&c);
	/* UnicodeNameLength 0 and 257; data length past the end */
	memcpy(c.data = malloc(b.len), b.data, b.len);
	c.len = b.len;
	memset(c.data + 16, 0, 8);
	assert_int_equal(
		att_uefi_var_parse(c.data, c.len, &v, why, sizeof(why)),
		ATT_E_TOO_BIG);
	c.data[16] = 1;
	c.data[17] = 1; /* 257 */
	assert_int_equal(
		att_uefi_var_parse(c.data, c.len, &v, why, sizeof(why)),
		ATT_E_TOO_BIG);
	memcpy(c.data, b.data, b.len);
	c.data[24] = 0xff;
	c.data[31] = 0x7f; /* data length huge */
	assert_int_equal(
		att_uefi_var_parse(c.data, c.len, &v, why, sizeof(why)),
		ATT_E_TRUNCATED);
	/* name: a NUL inside, a lone surrogate, a broken pair */
	memcpy(c.data, b.data, b.len);
	c.data[32 + 2] = 0;
	assert_int_equal(
		att_uefi_var_parse(c.data, c.len, &v, why, sizeof(why)),
		ATT_E_FORMAT);
	memcpy(c.data, b.data, b.len);
	c.data[32 + 2] = 0x00;
	c.data[32 + 3] = 0xdc;
	assert_int_equal(
		att_uefi_var_parse(c.data, c.len, &v, why, sizeof(why)),
		ATT_E_FORMAT);
	memcpy(c.data, b.data, b.len);
	c.data[32 + 2] = 0x00;
	c.data[32 + 3] = 0xd8; /* high surrogate, then 'c' */
	assert_int_equal(
		att_uefi_var_parse(c.data, c.len, &v, why, sizeof(why)),
		ATT_E_FORMAT);
	/* a valid pair and a BMP character come out as UTF-8 */
	memcpy(c.data, b.data, b.len);
	c.data[32 + 2] = 0x3d;
	c.data[32 + 3] = 0xd8;
	c.data[32 + 4] = 0x00;
	c.data[32 + 5] = 0xde;
	c.data[32 + 6] = 0xe9;
	c.data[32 + 7] = 0x00;
	assert_int_equal(
		att_uefi_var_parse(c.data, c.len, &v, why, sizeof(why)), 0);
	assert_memory_equal(v.name, "S\xf0\x9f\x98\x80\xc3\xa9", 7);
	free(c.data);
	att_buf_release(&b);
}

static int count_sig(const struct att_boot_sig *s, void *arg)
{
	(void)s;
	(*(int *)arg)++;
	return 0;
}

static void test_siglist_parse(void **state)
{
	const uint8_t *e[2] = {
		(const uint8_t *)"0123456789abcdef0123456789abcdef",
		(const uint8_t *)"fedcba9876543210fedcba9876543210"};
	struct att_buf b, c;
	char why[160];
	size_t i;
	int n = 0, rc;

	(void)state;
	att_buf_init(&b, 0);
	evb_siglist(&b, ATT_GUID_CERT_SHA256, OWNER, e, 2, 32);
	evb_siglist(&b, ATT_GUID_CERT_X509, OWNER, e, 1, 7);
	evb_siglist(&b, "11111111-2222-3333-4444-555555555555", OWNER, e, 1, 5);
	assert_int_equal(att_efi_siglists_parse(b.data, b.len, count_sig, &n,
						why, sizeof(why)),
			 0);
	assert_int_equal(n, 4);
	for (i = 1; i < b.len; i++) {
		/* cuts at a list boundary are shorter valid sequences */
		if (i == 28 + 2 * 48 || i == 28 + 2 * 48 + 28 + 23)
			continue;
		rc = att_efi_siglists_parse(b.data, i, NULL, NULL, why,
					    sizeof(why));
		if (!rc)
			fail_msg("cut at %zu accepted", i);
	}
	att_buf_init(&c, 0);
	att_buf_append(&c, b.data, b.len);
	/* SignatureSize 16 (no data); 40 for an EFI_CERT_SHA256 list */
	c.data[24] = 16;
	assert_int_equal(att_efi_siglists_parse(c.data, c.len, NULL, NULL, why,
						sizeof(why)),
			 ATT_E_FORMAT);
	c.data[24] = 40;
	assert_int_equal(att_efi_siglists_parse(c.data, c.len, NULL, NULL, why,
						sizeof(why)),
			 ATT_E_FORMAT);
	memcpy(c.data, b.data, b.len);
	c.data[16] = 27; /* list size under its header */
	c.data[17] = 0;
	assert_int_equal(att_efi_siglists_parse(c.data, c.len, NULL, NULL, why,
						sizeof(why)),
			 ATT_E_TRUNCATED);
	memcpy(c.data, b.data, b.len);
	c.data[20] = 200; /* header size past the list */
	assert_int_equal(att_efi_siglists_parse(c.data, c.len, NULL, NULL, why,
						sizeof(why)),
			 ATT_E_FORMAT);
	att_buf_release(&c);
	att_buf_release(&b);
}

static void test_image_parse(void **state)
{
	char path[256], why[160];
	struct att_buf b, c;
	size_t i;

	(void)state;
	att_buf_init(&b, 0);
	evb_image(&b, "\\EFI\\BOOT\\BOOTX64.EFI");
	assert_int_equal(att_uefi_image_parse(b.data, b.len, path, sizeof(path),
					      why, sizeof(why)),
			 0);
	assert_string_equal(path, "\\EFI\\BOOT\\BOOTX64.EFI");
	for (i = 0; i < b.len; i++)
		assert_int_not_equal(att_uefi_image_parse(b.data, i, path,
							  sizeof(path), why,
							  sizeof(why)),
				     0);
	att_buf_init(&c, 0);
	att_buf_append(&c, b.data, b.len);
	att_buf_append_u8(&c, 0);
	assert_int_equal(att_uefi_image_parse(c.data, c.len, path, sizeof(path),
					      why, sizeof(why)),
			 ATT_E_TRAILING);
	/* a node shorter than its header */
	memcpy(c.data, b.data, b.len);
	c.data[32 + 2] = 3;
	assert_int_equal(att_uefi_image_parse(c.data, b.len, path, sizeof(path),
					      why, sizeof(why)),
			 ATT_E_TRUNCATED);
	/* no end node: the end node's type changed */
	memcpy(c.data, b.data, b.len);
	c.data[b.len - 4] = 0x01;
	assert_int_equal(att_uefi_image_parse(c.data, b.len, path, sizeof(path),
					      why, sizeof(why)),
			 ATT_E_TRUNCATED);
	att_buf_release(&c);
	att_buf_release(&b);
	/* no device path at all (grub's loads): fine, no path */
	att_buf_init(&b, 0);
	for (i = 0; i < 32; i++)
		att_buf_append_u8(&b, 0);
	assert_int_equal(att_uefi_image_parse(b.data, b.len, path, sizeof(path),
					      why, sizeof(why)),
			 0);
	assert_string_equal(path, "");
	att_buf_release(&b);
}

static void test_guid(void **state)
{
	uint8_t g[16];
	char t[ATT_GUID_TEXT];

	(void)state;
	assert_int_equal(att_guid_parse(ATT_GUID_IMAGE_SEC_DB, g), 0);
	assert_int_equal(g[0], 0xcb);
	assert_int_equal(g[3], 0xd7);
	att_guid_format(g, t);
	assert_string_equal(t, ATT_GUID_IMAGE_SEC_DB);
	assert_int_equal(
		att_guid_parse("d719b2cb-3d3a-4596-a3bc-dad00e67656", g),
		ATT_E_FORMAT);
	assert_int_equal(
		att_guid_parse("d719b2cb-3d3a-4596-a3bc-dad00e67656g", g),
		ATT_E_FORMAT);
	assert_int_equal(
		att_guid_parse("d719b2cbx3d3a-4596-a3bc-dad00e67656f", g),
		ATT_E_FORMAT);
}

/* Malformed data inside a well-formed log: MALFORMED, the event named. */
static void test_malformed(void **state)
{
	struct att_boot_policy *p = golden_policy();
	struct variant v = {0};
	enum att_boot_status st;
	char *got;

	(void)state;
	v.cut_var = 1;
	got = judge(p, &v, &st);
	assert_int_equal(st, ATT_BOOT_MALFORMED);
	assert_non_null(strstr(got, "event 1 (PCR 7, "
				    "EV_EFI_VARIABLE_DRIVER_CONFIG): "
				    "EFI_SIGNATURE_LIST"));
	free(got);
	att_boot_policy_free(p);
}

static int read_fixture(const char *name, struct att_buf *b)
{
	const char *src = getenv("ATT_SRC");
	char path[512];

	snprintf(path, sizeof(path), "%s/tests/fixtures/uefi/%s",
		 src ? src : ".", name);
	att_buf_init(b, 0);
	return att_buf_read_file(b, path, 1u << 20);
}

/* The real OVMF Secure Boot log: shim, grub, the Debian kernel. */
static void test_ovmf_fixture(void **state)
{
	struct att_boot_policy *p = NULL;
	struct att_boot_result r;
	struct att_boot_facts *f;
	struct json_object *o, *apps;
	struct att_buf log;
	char err[300];

	(void)state;
	assert_int_equal(read_fixture("ovmf-sb-shim-grub.bin", &log), 0);
	f = facts_of(&log);
	assert_int_equal(f->secure_boot, 1);
	assert_int_equal(f->var[ATT_BV_PK].n, 1);
	assert_int_equal(f->var[ATT_BV_KEK].n, 2);
	assert_int_equal(f->var[ATT_BV_DB].n, 2);
	assert_int_equal(f->var[ATT_BV_DBX].n, 1);
	assert_int_equal(f->napps, 4);
	assert_string_equal(f->apps[0].path, "\\EFI\\BOOT\\BOOTX64.EFI");
	assert_string_equal(f->apps[1].path, "\\EFI\\BOOT\\grubx64.efi");
	assert_int_equal(f->nkernels, 1);
	assert_string_equal(f->kernels[0].path, "/vmlinuz");
	assert_int_equal(f->ninitrds, 1);
	assert_int_equal(f->ncmdlines, 1);
	assert_string_equal(f->cmdlines[0].text,
			    "/vmlinuz console=ttyS0 panic=-1 quiet "
			    "attest.fixture=1");
	assert_int_equal(f->nauth, 1); /* shim, by Microsoft's UEFI CA */
	assert_int_equal(f->separators, 0xff);
	assert_int_equal(f->nbad, 0);
	o = att_boot_policy_json_from_facts(f, ATT_HASH_SHA256);
	att_boot_facts_free(f);
	assert_int_equal(att_boot_policy_from_json(o, &p, err, sizeof(err)), 0);
	att_boot_result_init(&r);
	assert_int_equal(att_boot_judge(p, log.data, log.len, NULL, &r), 0);
	assert_int_equal(r.status, ATT_BOOT_PASS);
	att_boot_result_release(&r);
	att_boot_policy_free(p);
	/* another grub at stage 2: refused, the event named */
	apps = json_object_object_get(o, "boot_apps");
	json_object_array_put_idx(
		apps, 1,
		json_object_new_string("sha256:"
				       "000000000000000000000000000000000000000"
				       "0000000000000000000000000"));
	assert_int_equal(att_boot_policy_from_json(o, &p, err, sizeof(err)), 0);
	assert_int_equal(att_boot_judge(p, log.data, log.len, NULL, &r), 0);
	assert_int_equal(r.status, ATT_BOOT_FAIL);
	assert_int_equal(r.total, 1);
	att_boot_failure_text(&r.failures[0], err, sizeof(err));
	assert_non_null(strstr(err, "event 31 (PCR 4, EV_EFI_BOOT_SERVICES_"
				    "APPLICATION): digest sha256:"));
	assert_non_null(strstr(err, "at stage 2"));
	att_boot_result_release(&r);
	att_boot_policy_free(p);
	json_object_put(o);
	att_buf_release(&log);
}

/* The section inside a whitelist: loaded, reachable, refused when bad. */
static void test_whitelist_section(void **state)
{
	static const char ok[] =
		"{\"digests\": {}, \"boot\": {\"secure_boot\": "
		"true}}";
	static const char bad[] = "{\"boot\": {\"secure_boot\": 2}}";
	static const char twice[] = "{\"boot\": {}, \"boot\": {}}";
	struct att_wl *wl = NULL;
	char err[300];

	(void)state;
	assert_int_equal(
		att_wl_load_json(ok, strlen(ok), NULL, &wl, err, sizeof(err)),
		0);
	assert_non_null(att_wl_boot(wl));
	att_wl_free(wl);
	assert_int_equal(att_wl_load_json("{}", 2, NULL, &wl, err, sizeof(err)),
			 0);
	assert_null(att_wl_boot(wl));
	att_wl_free(wl);
	assert_int_equal(
		att_wl_load_json(bad, strlen(bad), NULL, &wl, err, sizeof(err)),
		ATT_E_FORMAT);
	assert_non_null(strstr(err, "boot.secure_boot"));
	assert_int_equal(att_wl_load_json(twice, strlen(twice), NULL, &wl, err,
					  sizeof(err)),
			 ATT_E_FORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guid),
		cmocka_unit_test(test_var_parse),
		cmocka_unit_test(test_siglist_parse),
		cmocka_unit_test(test_image_parse),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_rules_fail),
		cmocka_unit_test(test_rules_pass),
		cmocka_unit_test(test_policy_json_errors),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_ovmf_fixture),
		cmocka_unit_test(test_whitelist_section),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
