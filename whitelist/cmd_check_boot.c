// SPDX-License-Identifier: Apache-2.0
/*
 * cmd_check_boot.c - attest-whitelist check --uefi-log: the firmware log
 * replayed against the PCR values given (0-7) and judged by the
 * whitelist's "boot" section, as the verifier does.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/boot.h"
#include "attest/buf.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/uefi.h"
#include "attest/whitelist.h"
#include "wlcli.h"

#define UEFI_MAX_BYTES (64u << 20)

/* Replays the log; compares every PCR 0-7 given. -1: none given. */
static int replay(const struct att_buf *b, const struct att_pcrs *want,
		  struct json_object *o, int text, int *matched)
{
	struct att_uefi_info info;
	struct att_pcrs got;
	uint8_t zero[ATT_DIGEST_MAX];
	char err[200];
	unsigned int bank, i, compared = 0;
	int rc;

	*matched = 1;
	rc = att_uefi_replay(b->data, b->len, NULL, &got, &info, err,
			     sizeof(err));
	if (rc) {
		if (text)
			printf("error: uefi log: %s\n", err);
		json_object_object_add(o, "error", json_object_new_string(err));
		return rc;
	}
	json_object_object_add(o, "events",
			       json_object_new_int64((int64_t)info.events));
	for (bank = 0; want && bank < ATT_HASH_COUNT; bank++)
		for (i = 0; i < 8; i++) {
			const uint8_t *q =
				att_pcrs_get(want, (enum att_hash)bank, i);
			const uint8_t *v =
				att_pcrs_get(&got, (enum att_hash)bank, i);

			if (!q)
				continue;
			if (!v) {
				memset(zero, 0, sizeof(zero));
				if (!i)
					zero[att_hash_size(
						     (enum att_hash)bank) -
					     1] = info.startup_locality;
				v = zero;
			}
			compared++;
			if (memcmp(q, v, att_hash_size((enum att_hash)bank))) {
				*matched = 0;
				if (text)
					printf("FAIL uefi log: does not replay "
					       "to PCR %u (%s)\n",
					       i,
					       att_hash_name(
						       (enum att_hash)bank));
			}
		}
	if (!compared)
		*matched = -1;
	json_object_object_add(o, "replay_compared",
			       json_object_new_boolean(compared > 0));
	json_object_object_add(o, "matched",
			       json_object_new_boolean(*matched == 1));
	if (text)
		printf("uefi log: %llu events, %s\n",
		       (unsigned long long)info.events,
		       *matched == 1 ? "replays to the PCR values"
		       : !*matched   ? "does NOT replay to the PCR values"
				     : "not replayed against PCRs 0-7 (no "
				       "--pcrs for them): event digests taken "
				       "as they are");
	return ATT_OK;
}

static void judged(const struct att_boot_result *br, struct json_object *o,
		   int text)
{
	struct json_object *arr = json_object_new_array();
	char t[ATT_BOOT_DETAIL + 80];
	size_t i;

	json_object_object_add(
		o, "status",
		json_object_new_string(br->status == ATT_BOOT_PASS ? "pass"
				       : br->status == ATT_BOOT_FAIL
					       ? "fail"
					       : "malformed"));
	json_object_object_add(o, "failures_total",
			       json_object_new_int64((int64_t)br->total));
	json_object_object_add(o, "failures", arr);
	if (br->status == ATT_BOOT_MALFORMED) {
		json_object_object_add(o, "error",
				       json_object_new_string(br->errmsg));
		if (text)
			printf("error: boot: malformed event data: %s\n",
			       br->errmsg);
		return;
	}
	for (i = 0; i < br->nfailures; i++) {
		const struct att_boot_failure *f = &br->failures[i];
		struct json_object *e;

		att_boot_failure_text(f, t, sizeof(t));
		att_json_utf8_clean(t);
		if (text)
			printf("FAIL boot %s: %s\n", f->rule, t);
		if (!att_boot_failure_json(f, &e))
			json_object_array_add(arr, e);
	}
	if (text && br->total > br->nfailures)
		printf("... and %zu more boot failures\n",
		       br->total - br->nfailures);
	if (text && br->status == ATT_BOOT_PASS)
		printf("boot: the policy accepts the boot\n");
}

int wlcli_check_boot(const char *path, const struct att_wl *wl,
		     const struct att_pcrs *pcrs, int text,
		     struct json_object **out)
{
	const struct att_boot_policy *pol = att_wl_boot(wl);
	struct json_object *o = json_object_new_object(), *bo;
	struct att_boot_result br;
	struct att_buf b;
	int rc, matched, ret;

	*out = o;
	if (!o)
		return WLCLI_EXIT_ERROR;
	json_object_object_add(o, "log", json_object_new_string(path));
	att_buf_init(&b, 0);
	rc = att_buf_read_file(&b, path, UEFI_MAX_BYTES);
	if (rc) {
		fprintf(stderr, "attest-whitelist: %s: %s\n", path,
			rc == ATT_E_IO ? strerror(errno) : att_strerror(rc));
		json_object_object_add(
			o, "error", json_object_new_string(att_strerror(rc)));
		return WLCLI_EXIT_ERROR;
	}
	if (replay(&b, pcrs, o, text, &matched)) {
		att_buf_release(&b);
		return WLCLI_EXIT_ERROR;
	}
	ret = matched ? WLCLI_EXIT_OK : WLCLI_EXIT_UNTRUSTED;
	if (!pol) {
		if (text)
			printf("boot: the whitelist has no boot section\n");
		att_buf_release(&b);
		return ret;
	}
	att_boot_result_init(&br);
	rc = att_boot_judge(pol, b.data, b.len, NULL, &br);
	att_buf_release(&b);
	if (rc) {
		fprintf(stderr, "attest-whitelist: %s\n", att_strerror(rc));
		att_boot_result_release(&br);
		return WLCLI_EXIT_ERROR;
	}
	bo = json_object_new_object();
	json_object_object_add(o, "boot", bo);
	judged(&br, bo, text);
	if (br.status == ATT_BOOT_MALFORMED)
		ret = WLCLI_EXIT_ERROR;
	else if (br.status == ATT_BOOT_FAIL)
		ret = WLCLI_EXIT_UNTRUSTED;
	att_boot_result_release(&br);
	return ret;
}
