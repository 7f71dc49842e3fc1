// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_history.c - which verdicts become history rows, against
 * the real attest-verifier over TLS (SQLite; PostgreSQL) with a real
 * swtpm through the agent's TPM layer; every exchange is checked against
 * its JSON Schema.
 *
 * A state change, the first verdict of a new boot and every verdict that
 * is not trusted are rows; a trusted verdict after a trusted one on the
 * same boot is only the agent's last result; history_keep bounds them.
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

#include "verifier_http.h"
#include "verifier_proc.h"
#include "swtpm.h"
#include "vhost/vhost.h"

static struct vh_host F;

/* Four rows per agent: the seven rounds below make exactly four. */
static const char *const extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR,
				    "--history-keep", "4", NULL};

/* After each group's set-up (vh_run_groups). */
static int after_setup(struct vh_host *h)
{
	h->no_schema = 0;
	vh_boot(h);
	return 0;
}

/* attest_ak_cache_lookups_total{result="R"} from /metrics. */
static long long ak_lookups(const char *result)
{
	long long v = att_vh_metric(
		att_vproc_port(F.vp), F.dir,
		"attest_ak_cache_lookups_total{result=\"%s\"}", result);

	assert_true(v >= 0);
	return v;
}

/* One round from entry start (-1: where the challenge says); its state. */
static void round_is(int64_t start, const char *want, int want_reboot)
{
	struct vh_round rd = {.id = "host-1", .start = start, .upto = -1};
	struct json_object *res;

	assert_int_equal(vh_attest(&F, &rd, &res), 200);
	free(rd.body_out);
	if (strcmp(vh_jstr(res, "state"), want))
		fail_msg("want %s: %s", want, json_object_to_json_string(res));
	assert_int_equal(json_object_get_boolean(
				 vh_jget(vh_jget(res, "quote"), "reboot")),
			 want_reboot);
	json_object_put(res);
}

static void test_history_events(void **state)
{
	static const char *const states[] = {"untrusted", "untrusted",
					     "trusted", "trusted"};
	static const int reboots[] = {0, 0, 1, 0};
	struct json_object *ag, *h, *row;
	long long hit0 = ak_lookups("hit"), miss0 = ak_lookups("miss");
	size_t i;

	(void)state;
	round_is(-1, "trusted", 0); /* registered -> trusted: a row */
	round_is(-1, "trusted", 0); /* nothing new */
	round_is(-1, "trusted", 0);
	vh_tpm_power_cycle(&F, 1);
	vh_boot(&F);
	round_is(0, "trusted", 1); /* a new boot: a row */
	round_is(-1, "trusted", 0);
	vh_measure(&F, "/usr/bin/unknown", "not in the whitelist");
	round_is(-1, "untrusted", 0); /* a state change */
	round_is(-1, "untrusted", 0); /* not trusted: each verdict */

	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/host-1", NULL, &ag),
		200);
	h = vh_jget(ag, "history");
	assert_int_equal(json_object_array_length(h), 4);
	for (i = 0; i < 4; i++) {
		row = json_object_array_get_idx(h, i);
		assert_string_equal(vh_jstr(row, "state"), states[i]);
		assert_int_equal(
			json_object_get_boolean(vh_jget(
				vh_jget(vh_jget(row, "result"), "quote"),
				"reboot")),
			reboots[i]);
	}
	/* The last result is the newest verdict, trusted or not. */
	assert_string_equal(vh_jstr(vh_jget(ag, "last_result"), "state"),
			    "untrusted");
	json_object_put(ag);

	/* A fifth row: history_keep 4 drops the oldest (registered ->
	 * trusted), the new boot's row is now the last. */
	round_is(-1, "untrusted", 0);
	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/host-1", NULL, &ag),
		200);
	h = vh_jget(ag, "history");
	assert_int_equal(json_object_array_length(h), 4);
	for (i = 0; i < 3; i++)
		assert_string_equal(
			vh_jstr(json_object_array_get_idx(h, i), "state"),
			"untrusted");
	row = json_object_array_get_idx(h, 3);
	assert_string_equal(vh_jstr(row, "state"), "trusted");
	assert_true(json_object_get_boolean(
		vh_jget(vh_jget(vh_jget(row, "result"), "quote"), "reboot")));
	json_object_put(ag);
	/* Eight rounds of one agent: its AK parsed at most once. */
	assert_in_range(ak_lookups("miss") - miss0, 0, 1);
	assert_int_equal(ak_lookups("hit") - hit0 + ak_lookups("miss") - miss0,
			 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_events),
	};
	return vh_run_groups(&F, "hist", extra, after_setup, tests,
			     sizeof(tests) / sizeof(tests[0]));
}
