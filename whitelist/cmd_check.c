// SPDX-License-Identifier: Apache-2.0
/*
 * cmd_check.c - attest-whitelist check: judge a list, replay it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/check.h"
#include "attest/check_json.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "attest/pcrs.h"
#include "attest/replay.h"
#include "attest/whitelist.h"
#include "wlcli.h"

#define WL_MAX_BYTES (256u << 20)
#define MAX_BANKS    4

void wlcli_check_usage(void)
{
	fputs("NAME\n"
	      "    attest-whitelist check - judge an IMA measurement list\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    attest-whitelist check WHITELIST LIST [--pcrs [BANK,]FILE]"
	      "...\n"
	      "        [--uefi-log FILE] [--pcr N]... [--excludes FILE] "
	      "[--format "
	      "auto|binary|ascii]\n"
	      "        [--list-hash BANK] [--bank BANK]... [--replay-only] "
	      "[--json]\n"
	      "        [--max-failures N]\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    Reads LIST (binary_runtime_measurements or "
	      "ascii_runtime_measurements,\n"
	      "    detected; '-' for standard input) one entry at a time, "
	      "checks every\n"
	      "    template hash, judges every entry by WHITELIST (JSON, "
	      "or the legacy\n"
	      "    'hash  path' text) and prints each failing entry with "
	      "its index,\n"
	      "    path and reason. With --pcrs it also replays the list "
	      "and requires\n"
	      "    the replay to reach the given PCR values at some "
	      "prefix; entries\n"
	      "    after that prefix are reported as unverified.\n"
	      "    With --uefi-log FILE (LIST may then be left out) it reads "
	      "a firmware\n"
	      "    event log (binary_bios_measurements), replays it against "
	      "the PCR 0-7\n"
	      "    values of --pcrs when given, and judges it by the "
	      "whitelist's 'boot'\n"
	      "    section as the verifier does: each failure names the "
	      "event (index\n"
	      "    from 0 after the Spec ID header, PCR, type) and the "
	      "rule.\n"
	      "\n"
	      "OPTIONS\n"
	      "    --pcrs [BANK,]FILE  PCR values: evmctl's 'PCR-NN: hex' "
	      "lines (one\n"
	      "                        bank a file), tpm2_pcrread YAML, or "
	      "JSON\n"
	      "                        {\"sha256\": {\"10\": \"hex\"}}. "
	      "Repeatable.\n"
	      "    --pcr N             the PCR the list extends (default "
	      "10); repeatable\n"
	      "    --excludes FILE     Keylime exclude list for a legacy "
	      "allowlist\n"
	      "    --format F          auto (default), binary or ascii\n"
	      "    --list-hash BANK    bank of the template digests in "
	      "LIST: sha1 for the\n"
	      "                        legacy files (default), else that "
	      "of\n"
	      "                        *_runtime_measurements_BANK\n"
	      "    --bank BANK         banks to replay (default: those in "
	      "--pcrs, else\n"
	      "                        sha1 and sha256)\n"
	      "    --replay-only       check template hashes and the "
	      "replay only\n"
	      "    --json              print the result as JSON\n"
	      "    --max-failures N    failing entries printed (default "
	      "1000)\n"
	      "    --uefi-log FILE     a firmware event log to judge by the "
	      "boot section\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 trusted, 1 not trusted, 2 error (unreadable or "
	      "malformed\n"
	      "    input; the message says where).\n",
	      stdout);
}

struct check_args {
	const char *wl_path, *list_path, *excl_path, *uefi_log;
	struct att_pcrs pcrs;
	int have_pcrs;
	uint32_t pcr_mask;
	enum att_ima_format fmt;
	enum att_hash list_hash;
	enum att_hash banks[MAX_BANKS];
	unsigned int nbanks;
	int replay_only, json;
	size_t max_failures;
};

static int read_text(const char *path, struct att_buf *b)
{
	int rc;

	att_buf_init(b, 0);
	rc = att_buf_read_file(b, path, WL_MAX_BYTES);
	if (rc)
		fprintf(stderr, "attest-whitelist: %s: %s\n", path,
			rc == ATT_E_IO ? strerror(errno) : att_strerror(rc));
	return rc;
}

static int parse_bank(const char *s, enum att_hash *h)
{
	*h = att_hash_by_name(s, strlen(s));
	if (*h == ATT_HASH_NONE) {
		fprintf(stderr, "attest-whitelist: unknown bank '%s'\n", s);
		return ATT_E_INVAL;
	}
	return ATT_OK;
}

static int load_pcrs(struct check_args *a, const char *arg)
{
	enum att_hash bank = ATT_HASH_NONE;
	const char *comma = strchr(arg, ',');
	const char *file = arg;
	struct att_buf b;
	char err[200] = "";
	int rc;

	if (comma) {
		bank = att_hash_by_name(arg, (size_t)(comma - arg));
		if (bank != ATT_HASH_NONE)
			file = comma + 1;
	}
	rc = read_text(file, &b);
	if (rc)
		return rc;
	rc = att_pcrs_parse_any(&a->pcrs, bank, (const char *)b.data, b.len,
				err, sizeof(err));
	att_buf_release(&b);
	if (rc)
		fprintf(stderr, "attest-whitelist: %s: %s\n", file, err);
	a->have_pcrs = 1;
	return rc;
}

static int parse_args(int argc, char **argv, struct check_args *a)
{
	static const struct option opts[] = {
		{"pcrs", required_argument, NULL, 'p'},
		{"pcr", required_argument, NULL, 'n'},
		{"excludes", required_argument, NULL, 'x'},
		{"format", required_argument, NULL, 'f'},
		{"list-hash", required_argument, NULL, 'l'},
		{"bank", required_argument, NULL, 'b'},
		{"replay-only", no_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"max-failures", required_argument, NULL, 'm'},
		{"uefi-log", required_argument, NULL, 'u'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	unsigned long v;
	int c;

	memset(a, 0, sizeof(*a));
	a->list_hash = ATT_HASH_SHA1;
	a->max_failures = 1000;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (load_pcrs(a, optarg))
				return ATT_E_INVAL;
			break;
		case 'n':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || v >= ATT_PCR_COUNT) {
				fprintf(stderr,
					"attest-whitelist: bad --pcr '%s'\n",
					optarg);
				return ATT_E_INVAL;
			}
			a->pcr_mask |= 1u << v;
			break;
		case 'x':
			a->excl_path = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "auto"))
				a->fmt = ATT_IMA_FMT_AUTO;
			else if (!strcmp(optarg, "binary"))
				a->fmt = ATT_IMA_FMT_BINARY;
			else if (!strcmp(optarg, "ascii"))
				a->fmt = ATT_IMA_FMT_ASCII;
			else {
				fprintf(stderr,
					"attest-whitelist: bad "
					"--format '%s'\n",
					optarg);
				return ATT_E_INVAL;
			}
			break;
		case 'l':
			if (parse_bank(optarg, &a->list_hash))
				return ATT_E_INVAL;
			break;
		case 'b':
			if (a->nbanks == MAX_BANKS ||
			    parse_bank(optarg, &a->banks[a->nbanks]))
				return ATT_E_INVAL;
			a->nbanks++;
			break;
		case 'r':
			a->replay_only = 1;
			break;
		case 'u':
			a->uefi_log = optarg;
			break;
		case 'j':
			a->json = 1;
			break;
		case 'm':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !v || v > 10000000) {
				fprintf(stderr,
					"attest-whitelist: bad "
					"--max-failures '%s'\n",
					optarg);
				return ATT_E_INVAL;
			}
			a->max_failures = v;
			break;
		case 'h':
			wlcli_check_usage();
			return 1;
		default:
			return ATT_E_INVAL;
		}
	}
	if (argc - optind != 2 && (argc - optind != 1 || !a->uefi_log)) {
		fprintf(stderr, "usage: attest-whitelist check WHITELIST LIST "
				"[options] (see --help)\n");
		return ATT_E_INVAL;
	}
	a->wl_path = argv[optind];
	a->list_path = argc - optind == 2 ? argv[optind + 1] : NULL;
	if (!a->pcr_mask)
		a->pcr_mask = 1u << 10;
	if (!a->nbanks) {
		static const enum att_hash pref[] = {
			ATT_HASH_SHA1, ATT_HASH_SHA256, ATT_HASH_SHA384,
			ATT_HASH_SHA512};
		unsigned int i;

		for (i = 0; i < 4; i++)
			if (!a->have_pcrs || a->pcrs.mask[pref[i]])
				a->banks[a->nbanks++] = pref[i];
		if (!a->have_pcrs)
			a->nbanks = 2;
	}
	return ATT_OK;
}

static int load_whitelist(const struct check_args *a, struct att_wl **wl)
{
	struct att_buf t, x;
	char err[300] = "";
	int rc;

	if (a->replay_only && !strcmp(a->wl_path, "-"))
		return att_wl_load_json("{}", 2, NULL, wl, err, sizeof(err));
	/* With --replay-only a whitelist given is still validated. */
	rc = read_text(a->wl_path, &t);
	if (rc)
		return rc;
	if (a->excl_path) {
		rc = read_text(a->excl_path, &x);
		if (rc) {
			att_buf_release(&t);
			return rc;
		}
		rc = att_wl_load_legacy((const char *)t.data, t.len,
					(const char *)x.data, x.len, NULL, wl,
					err, sizeof(err));
		att_buf_release(&x);
	} else {
		rc = att_wl_load_any((const char *)t.data, t.len, NULL, wl, err,
				     sizeof(err));
	}
	att_buf_release(&t);
	if (rc)
		fprintf(stderr, "attest-whitelist: %s: %s\n", a->wl_path,
			err[0] ? err : att_strerror(rc));
	return rc;
}

static char *escaped(const char *p, size_t n)
{
	struct att_buf b;

	att_buf_init(&b, 0);
	if (att_escape_bytes((const uint8_t *)p, n, &b) || att_buf_cstr(&b)) {
		att_buf_release(&b);
		return NULL;
	}
	if (!b.data)
		return calloc(1, 1);
	return (char *)b.data;
}

static const char *status_name(enum att_check_status s)
{
	return s == ATT_CHECK_TRUSTED	  ? "trusted"
	       : s == ATT_CHECK_UNTRUSTED ? "untrusted"
					  : "error";
}

static void print_text(const struct check_args *a,
		       const struct att_check_result *res)
{
	size_t i;

	for (i = 0; i < res->nfailures; i++) {
		const struct att_check_failure *f = &res->failures[i];
		char *p = escaped(f->path, f->path_len);

		printf("FAIL entry %llu pcr %u %s: %s%s%s\n",
		       (unsigned long long)f->index, f->pcr,
		       att_verdict_name(f->verdict), p ? p : "?",
		       f->detail[0] ? " " : "", f->detail);
		free(p);
	}
	if (res->failures_total > res->nfailures)
		printf("... and %llu more failing entries\n",
		       (unsigned long long)(res->failures_total -
					    res->nfailures));
	if (res->status == ATT_CHECK_ERROR) {
		printf("error: %s: %s\n", a->list_path, res->errmsg);
		return;
	}
	printf("entries: %llu read, %llu verified, %llu failing",
	       (unsigned long long)res->entries,
	       (unsigned long long)res->verified,
	       (unsigned long long)res->failures_total);
	if (res->failures_unverified)
		printf(", %llu failing after the quoted value (unverified)",
		       (unsigned long long)res->failures_unverified);
	printf("\n");
	if (res->replay_compared)
		printf("replay: %s\n",
		       res->replay_matched
			       ? (res->rule == ATT_RULE_SHA1_PADDED
					  ? "matches the PCR values (padded "
					    "SHA-1 "
					    "rule of kernels before 5.8)"
					  : "matches the PCR values")
			       : "does NOT match the PCR values at any prefix");
	else
		printf("replay: not compared (no --pcrs given)\n");
	if (res->lattice.loaded)
		printf("lattice: slim.ko %s, mode %s, %llu demotions of "
		       "SYSTEM tasks, %llu relabels, %llu events dropped%s\n",
		       res->lattice.version,
		       att_sev_mode_name(res->lattice.mode),
		       (unsigned long long)res->lattice.demotions,
		       (unsigned long long)res->lattice.relabels,
		       (unsigned long long)res->lattice.dropped,
		       res->lattice.gap ? ", reloaded in this boot" : "");
	if (res->lattice_refusal[0])
		printf("FAIL lattice: %s\n", res->lattice_refusal);
	if (res->counts[ATT_V_UNCHECKED])
		printf("note: %llu entries could not be checked "
		       "(boot_aggregate needs PCRs 0-7)\n",
		       (unsigned long long)res->counts[ATT_V_UNCHECKED]);
	printf("result: %s\n", status_name(res->status));
}

static void print_json(const struct check_args *a,
		       const struct att_check_result *res,
		       struct json_object *uefi)
{
	struct json_object *o = json_object_new_object(), *counts;
	int v;

	json_object_object_add(
		o, "result", json_object_new_string(status_name(res->status)));
	json_object_object_add(o, "list", json_object_new_string(a->list_path));
	json_object_object_add(o, "entries",
			       json_object_new_int64((int64_t)res->entries));
	json_object_object_add(o, "verified",
			       json_object_new_int64((int64_t)res->verified));
	json_object_object_add(
		o, "failing",
		json_object_new_int64((int64_t)res->failures_total));
	json_object_object_add(
		o, "failing_unverified",
		json_object_new_int64((int64_t)res->failures_unverified));
	json_object_object_add(o, "replay_compared",
			       json_object_new_boolean(res->replay_compared));
	json_object_object_add(o, "replay_matched",
			       json_object_new_boolean(res->replay_matched));
	if (res->status == ATT_CHECK_ERROR) {
		json_object_object_add(
			o, "error",
			json_object_new_string(att_errname(res->error)));
		json_object_object_add(o, "message",
				       json_object_new_string(res->errmsg));
	}
	counts = json_object_new_object();
	for (v = 0; v < ATT_V_COUNT; v++)
		if (res->counts[v])
			json_object_object_add(
				counts, att_verdict_name((enum att_verdict)v),
				json_object_new_int64((int64_t)res->counts[v]));
	json_object_object_add(o, "verdicts", counts);
	json_object_object_add(
		o, "failures",
		att_check_failures_json(
			res, ATT_CHECK_JSON_PCR | ATT_CHECK_JSON_SOME_DETAIL,
			NULL));
	if (res->lattice.loaded || res->lattice.gap)
		json_object_object_add(o, "lattice",
				       att_lat_state_json(&res->lattice, NULL));
	if (res->lattice_refusal[0])
		json_object_object_add(
			o, "lattice_refusal",
			json_object_new_string(res->lattice_refusal));
	if (uefi)
		json_object_object_add(o, "uefi", json_object_get(uefi));
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

int wlcli_check(int argc, char **argv)
{
	struct att_check_opts opts = {0};
	struct att_ima_reader *r = NULL;
	struct att_check_result res;
	struct att_replay *rp = NULL;
	struct att_wl *wl = NULL;
	struct json_object *uefi = NULL;
	struct check_args a;
	int fd = -1, rc, ret = WLCLI_EXIT_ERROR, boot = WLCLI_EXIT_OK;

	rc = parse_args(argc, argv, &a);
	if (rc == 1)
		return WLCLI_EXIT_OK;
	if (rc)
		return WLCLI_EXIT_ERROR;
	if (load_whitelist(&a, &wl))
		return WLCLI_EXIT_ERROR;
	if (a.uefi_log) {
		boot = wlcli_check_boot(a.uefi_log, wl,
					a.have_pcrs ? &a.pcrs : NULL, !a.json,
					&uefi);
		if (!a.list_path) {
			if (a.json)
				puts(json_object_to_json_string_ext(
					uefi,
					JSON_C_TO_STRING_PRETTY |
						JSON_C_TO_STRING_NOSLASHESCAPE));
			else
				printf("result: %s\n",
				       boot == WLCLI_EXIT_OK ? "trusted"
				       : boot == WLCLI_EXIT_UNTRUSTED
					       ? "untrusted"
					       : "error");
			ret = boot;
			goto out;
		}
	}
	if (!strcmp(a.list_path, "-")) {
		fd = STDIN_FILENO;
	} else {
		fd = open(a.list_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "attest-whitelist: %s: %s\n",
				a.list_path, strerror(errno));
			goto out;
		}
	}
	rc = att_ima_reader_new_fd(fd, a.fmt, a.list_hash, NULL, &r);
	if (!rc)
		rc = att_replay_new(a.banks, a.nbanks, &rp);
	if (rc) {
		fprintf(stderr, "attest-whitelist: %s\n", att_strerror(rc));
		goto out;
	}
	opts.quoted = a.have_pcrs ? &a.pcrs : NULL;
	opts.pcr_mask = a.pcr_mask;
	opts.max_failures = a.max_failures;
	att_check_result_init(&res);
	att_check_list(r, a.replay_only ? NULL : wl, rp, &opts, &res);
	if (a.json)
		print_json(&a, &res, uefi);
	else
		print_text(&a, &res);
	if (res.status == ATT_CHECK_ERROR)
		fprintf(stderr, "attest-whitelist: %s: %s\n", a.list_path,
			res.errmsg);
	ret = res.status == ATT_CHECK_TRUSTED	  ? WLCLI_EXIT_OK
	      : res.status == ATT_CHECK_UNTRUSTED ? WLCLI_EXIT_UNTRUSTED
						  : WLCLI_EXIT_ERROR;
	if (boot > ret)
		ret = boot; /* the worse of the two */
	att_check_result_release(&res);
out:
	json_object_put(uefi);
	att_replay_free(rp);
	att_ima_reader_free(r);
	att_wl_free(wl);
	if (fd > 2)
		close(fd);
	return ret;
}
