// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_verdict.c - the typed verdict (verifier/service/verdict.h)
 * and what is made of it without a server: a reason is kept once, in the
 * order given, with its kind; its text is cut and made valid UTF-8; the
 * reasons' JSON; /metrics counts each class of an untrusted verdict once,
 * by kind and by a failing entry's verdict, never by text; the agent
 * states' names go both ways.
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

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/whitelist.h"
#include "metrics.h"
#include "store.h"
#include "verdict.h"

static void test_reasons_once_in_order(void **state)
{
	struct ver_verdict v;
	struct json_object *o, *arr;

	(void)state;
	ver_verdict_init(&v, ATT_AGENT_NONE);
	assert_int_equal(v.refused, 0);
	ver_verdict_add(&v, VER_REASON_LOG, ATT_V_COUNT, "log %s: not sent",
			"ima");
	ver_verdict_add(&v, VER_REASON_ENTRY, ATT_V_UNKNOWN_PATH, "%s: %s",
			att_verdict_name(ATT_V_UNKNOWN_PATH), "/bin/x");
	/* the same file in a second log: one reason */
	ver_verdict_add(&v, VER_REASON_ENTRY, ATT_V_UNKNOWN_PATH, "%s: %s",
			att_verdict_name(ATT_V_UNKNOWN_PATH), "/bin/x");
	assert_int_equal(v.refused, 1);
	assert_int_equal(v.nreasons, 2);
	assert_int_equal(v.reasons[0].kind, VER_REASON_LOG);
	assert_int_equal(v.reasons[0].entry, ATT_V_COUNT);
	assert_string_equal(v.reasons[0].text, "log ima: not sent");
	assert_int_equal(v.reasons[1].kind, VER_REASON_ENTRY);
	assert_int_equal(v.reasons[1].entry, ATT_V_UNKNOWN_PATH);
	v.state = ATT_AGENT_UNTRUSTED;
	o = ver_verdict_json(&v);
	assert_non_null(o);
	assert_string_equal(
		json_object_get_string(json_object_object_get(o, "state")),
		"untrusted");
	arr = json_object_object_get(o, "reasons");
	assert_int_equal(json_object_array_length(arr), 2);
	assert_string_equal(
		json_object_get_string(json_object_array_get_idx(arr, 1)),
		"unknown-path: /bin/x");
	json_object_put(o);
	ver_verdict_release(&v);
	assert_int_equal(v.nreasons, 0);
	assert_null(v.reasons);
}

static void test_text_cut_and_clean(void **state)
{
	struct ver_verdict v;
	char path[600];

	(void)state;
	/* a host's path: 0xff is no UTF-8, and 2-byte characters at the cut */
	memset(path, 'a', sizeof(path));
	path[3] = (char)0xff;
	for (size_t i = 390; i + 1 < sizeof(path) - 1; i += 2) {
		path[i] = (char)0xc3;
		path[i + 1] = (char)0xa9;
	}
	path[sizeof(path) - 1] = '\0';
	ver_verdict_init(&v, ATT_AGENT_NONE);
	ver_verdict_add(&v, VER_REASON_OTHER, ATT_V_COUNT, "x %s", path);
	assert_int_equal(v.nreasons, 1);
	assert_true(strlen(v.reasons[0].text) < 400);
	assert_null(strchr(v.reasons[0].text, (char)0xff));
	/* what is left is valid UTF-8: the strict parser takes it */
	{
		char doc[1024], err[128];
		struct json_object *back = NULL;

		snprintf(doc, sizeof(doc), "\"%s\"", v.reasons[0].text);
		assert_int_equal(att_json_parse(doc, strlen(doc), 4, &back, err,
						sizeof(err)),
				 0);
		json_object_put(back);
	}
	ver_verdict_release(&v);
}

static unsigned long long metric(const char *text, const char *reason)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key),
		 "attest_untrusted_reasons_total{reason=\"%s\"} ", reason);
	p = strstr(text, key);
	assert_non_null(p);
	return strtoull(p + strlen(key), NULL, 10);
}

static void test_metrics_by_kind(void **state)
{
	struct ver_metrics *m;
	struct ver_verdict v;
	struct att_buf b;

	(void)state;
	assert_int_equal(ver_metrics_new(&m), 0);
	ver_verdict_init(&v, ATT_AGENT_UNTRUSTED);
	/* texts that would have fooled a prefix reading: the kind counts */
	ver_verdict_add(&v, VER_REASON_BOOT, ATT_V_COUNT, "quote: not mine");
	ver_verdict_add(&v, VER_REASON_BOOT, ATT_V_COUNT, "boot: event 1");
	ver_verdict_add(&v, VER_REASON_ENTRY, ATT_V_HASH_MISMATCH, "a");
	ver_verdict_add(&v, VER_REASON_ENTRY, ATT_V_HASH_MISMATCH, "b");
	ver_verdict_add(&v, VER_REASON_MORE, ATT_V_COUNT, "log 1: more");
	ver_verdict_add(&v, VER_REASON_CLONE, ATT_V_COUNT, "possible clone");
	ver_metrics_verdict(m, &v);
	ver_metrics_verdict(m, &v);
	att_buf_init(&b, 0);
	assert_int_equal(ver_metrics_format(m, &b), 0);
	assert_int_equal(att_buf_cstr(&b), 0);
	/* once a verdict for each class it shows */
	assert_int_equal(metric((char *)b.data, "boot"), 2);
	assert_int_equal(metric((char *)b.data, "hash-mismatch"), 2);
	assert_int_equal(metric((char *)b.data, "cloned-tpm"), 2);
	/* counted in no class: MORE; and nothing by text */
	assert_int_equal(metric((char *)b.data, "quote"), 0);
	assert_int_equal(metric((char *)b.data, "log"), 0);
	assert_int_equal(metric((char *)b.data, "other"), 0);
	att_buf_release(&b);
	ver_verdict_release(&v);
	ver_metrics_free(m);
}

static void test_state_names(void **state)
{
	enum att_agent_state s, back;

	(void)state;
	for (s = ATT_AGENT_NONE; s < ATT_AGENT_STATE_COUNT; s++) {
		assert_int_equal(
			att_agent_state_parse(att_agent_state_name(s), &back),
			0);
		assert_int_equal(back, s);
	}
	assert_string_equal(att_agent_state_name(ATT_AGENT_TRUSTED), "trusted");
	assert_string_equal(att_agent_state_name(ATT_AGENT_STATE_COUNT), "");
	assert_int_equal(att_agent_state_parse("Trusted", &back), ATT_E_FORMAT);
	assert_int_equal(att_agent_state_parse("error", &back), ATT_E_FORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reasons_once_in_order),
		cmocka_unit_test(test_text_cut_and_clean),
		cmocka_unit_test(test_metrics_by_kind),
		cmocka_unit_test(test_state_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
