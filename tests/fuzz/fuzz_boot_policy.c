// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_boot_policy.c - the measured boot facts of a firmware log (UEFI
 * variables, signature lists, image load events, grub's strings, tagged
 * events) and the boot policy's judgement of them, as the verifier runs
 * it on a log that replayed.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/boot.h"
#include "attest/err.h"
#include "attest/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char policy_json[] =
	"{\"secure_boot\": true, \"pk\": [\"00000000000000000000000000000000"
	"00000000000000000000000000000000\"], \"dbx_required\": [{\"id\": \""
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}],"
	" \"boot_apps\": "
	"[[\"sha256:80a66d53a945d2286fcadd780fae1c225aa732079cd6"
	"7b5225dc78aaab4e2ff8\"]], \"kernels\": [], \"initrds\": [], "
	"\"cmdline\": \"/vmlinuz .*\", \"authorities\": []}";

static struct att_boot_policy *policy(void)
{
	static struct att_boot_policy *p;
	struct json_object *o = NULL;
	char err[300];

	if (p)
		return p;
	if (att_json_parse(policy_json, strlen(policy_json), 16, &o, err,
			   sizeof(err)) ||
	    att_boot_policy_from_json(o, &p, err, sizeof(err)))
		__builtin_trap();
	json_object_put(o);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct att_uefi_limits lim = {4096, 4096};
	struct att_boot_result r;
	struct att_boot_facts *f = NULL;
	struct json_object *o;
	char err[300];
	size_t i;
	int rc;

	err[0] = '\0';
	rc = att_boot_facts_read(data, size, &lim, &f, err, sizeof(err));
	if (rc && !err[0])
		__builtin_trap(); /* every refusal says why */
	if (!rc) {
		/* what create would write must load again */
		o = att_boot_policy_json_from_facts(f, ATT_HASH_SHA256);
		if (o) {
			struct att_boot_policy *p = NULL;

			if (att_boot_policy_from_json(o, &p, err,
						      sizeof(err)) == ATT_OK) {
				att_boot_result_init(&r);
				/* a log judged by its own policy passes */
				if (!att_boot_judge_facts(p, f, &r) &&
				    !f->nbad && f->separators == 0xff &&
				    r.status != ATT_BOOT_PASS)
					__builtin_trap();
				att_boot_result_release(&r);
			}
			att_boot_policy_free(p);
			json_object_put(o);
		}
		att_boot_facts_free(f);
	}
	att_boot_result_init(&r);
	rc = att_boot_judge(policy(), data, size, &lim, &r);
	if (!rc && r.status == ATT_BOOT_MALFORMED && !r.errmsg[0])
		__builtin_trap();
	for (i = 0; i < r.nfailures; i++)
		att_boot_failure_text(&r.failures[i], err, sizeof(err));
	att_boot_result_release(&r);
	return 0;
}
