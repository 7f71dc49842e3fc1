// SPDX-License-Identifier: Apache-2.0
/*
 * test_verifier_logs.c - the verifier's list of logs (the "logs" setting)
 * and the per-log replay states stored in an agent's row: round trip, the
 * encoding of verifiers that knew only "ima", truncation and corruption.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "attest/err.h"
#include "attest/replay.h"
#include "config.h"
#include "logstate.h"

static void settings(void **state)
{
	static const char *const bad[] = {
		"",
		"ima",
		"ima:",
		"ima:9",
		"ima:24",
		"IMA:10",
		"ima:10,ima:11",
		"ima:10,slim:10",
		"a:10,b:11,c:12,d:13,e:14",
		"ima:10x",
		"averyveryverylongname:10",
		"ima:1000000000",
	};
	struct ver_config c;
	char err[200];
	size_t i;

	(void)state;
	ver_config_defaults(&c);
	assert_int_equal(c.nlogs, 1);
	assert_string_equal(c.logs[0].name, "ima");
	assert_int_equal(c.logs[0].pcr, 10);
	assert_int_equal(
		ver_config_set(&c, "logs", "ima:10, slim:11", err, sizeof(err)),
		0);
	assert_int_equal(c.nlogs, 2);
	assert_string_equal(c.logs[1].name, "slim");
	assert_int_equal(c.logs[1].pcr, 11);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (!ver_config_set(&c, "logs", bad[i], err, sizeof(err)))
			fail_msg("'%s' accepted", bad[i]);
		assert_true(strncmp(err, "logs:", 5) == 0);
		/* a refused value leaves the setting as it was */
		assert_int_equal(c.nlogs, 2);
		assert_string_equal(c.logs[1].name, "slim");
	}
}

static void some_state(struct att_replay_state *st, uint64_t n)
{
	memset(st, 0, sizeof(*st));
	st->next_index = n;
	st->next_offset = n * 100;
	st->rule = ATT_RULE_NG;
	st->pcr_mask = 1u << (10 + n % 2);
	st->nbanks = 1;
	st->banks[0] = ATT_HASH_SHA256;
	memset(st->val[0][0][10 + n % 2], (int)n, 32);
}

static void round_trip(void **state)
{
	struct ver_logstates *s, *t;
	struct att_replay_state a, b;
	const struct att_replay_state *f;
	uint8_t *p;
	size_t n, cut;

	(void)state;
	assert_int_equal(ver_logstates_new(&s), 0);
	assert_int_equal(ver_logstates_new(&t), 0);
	some_state(&a, 7);
	some_state(&b, 12);
	assert_int_equal(ver_logstates_set(s, "ima", &a), 0);
	assert_int_equal(ver_logstates_set(s, "slim", &b), 0);
	assert_int_equal(ver_logstates_set(s, "ima", &a), 0); /* replaced */
	assert_int_equal(s->n, 2);
	assert_int_equal(ver_logstates_set(s, "Bad Name", &a), ATT_E_INVAL);
	s->flags = VER_LS_UEFI_VERIFIED;
	assert_int_equal(ver_logstates_encode(s, &p, &n), 0);
	assert_int_equal(ver_logstates_decode(p, n, t), 0);
	assert_int_equal(t->n, 2);
	assert_int_equal(t->flags, VER_LS_UEFI_VERIFIED);
	/* an unknown flag is refused; version 1 (no flags byte) is read */
	p[n - 1] = 0x02;
	assert_int_equal(ver_logstates_decode(p, n, t), ATT_E_FORMAT);
	p[4] = 1;
	assert_int_equal(ver_logstates_decode(p, n - 1, t), 0);
	assert_int_equal(t->flags, 0);
	assert_int_equal(t->n, 2);
	assert_int_not_equal(ver_logstates_decode(p, n, t), 0);
	p[4] = 2;
	p[n - 1] = VER_LS_UEFI_VERIFIED;
	assert_int_equal(ver_logstates_decode(p, n, t), 0);
	f = ver_logstates_find(t, "slim");
	assert_non_null(f);
	assert_int_equal(f->next_index, 12);
	assert_memory_equal(f->val[0][0][10], b.val[0][0][10], 32);
	assert_int_equal(ver_logstates_find(t, "ima")->next_index, 7);
	assert_null(ver_logstates_find(t, "other"));
	/* every truncation is refused, never half-read */
	for (cut = 1; cut < n; cut++)
		assert_int_not_equal(ver_logstates_decode(p, cut, t), 0);
	/* a trailing byte too */
	p = realloc(p, n + 1);
	assert_non_null(p);
	p[n] = 0;
	assert_int_not_equal(ver_logstates_decode(p, n + 1, t), 0);
	/* a count above the maximum, a bad name, a repeated name */
	p[5] = VER_MAX_LOGS + 1;
	assert_int_not_equal(ver_logstates_decode(p, n, t), 0);
	p[5] = 2;
	p[7] = 'I';
	assert_int_not_equal(ver_logstates_decode(p, n, t), 0);
	free(p);
	ver_logstates_free(s);
	ver_logstates_free(t);
}

/* A row written when "ima" was the only log: one bare replay state. */
static void legacy_blob(void **state)
{
	struct ver_logstates *s;
	struct att_replay_state a;
	uint8_t *p;
	size_t n;

	(void)state;
	some_state(&a, 5);
	assert_int_equal(att_replay_state_encode(&a, &p, &n), 0);
	assert_int_equal(ver_logstates_new(&s), 0);
	assert_int_equal(ver_logstates_decode(p, n, s), 0);
	assert_int_equal(s->n, 1);
	assert_int_equal(ver_logstates_find(s, "ima")->next_index, 5);
	assert_int_not_equal(ver_logstates_decode(p, n - 1, s), 0);
	assert_int_equal(ver_logstates_decode(p, 0, s), 0);
	assert_int_equal(s->n, 0);
	free(p);
	ver_logstates_free(s);
}

/* Random bytes after the magic: refused or read, never a crash. */
static void garbage(void **state)
{
	struct ver_logstates *s;
	uint8_t buf[256];
	unsigned int i, seed = 1;
	size_t j;

	(void)state;
	assert_int_equal(ver_logstates_new(&s), 0);
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < sizeof(buf); j++) {
			seed = seed * 1103515245u + 12345u;
			buf[j] = (uint8_t)(seed >> 16);
		}
		memcpy(buf, "AVLS\x01", 5);
		buf[5] = (uint8_t)(buf[5] % (VER_MAX_LOGS + 1));
		(void)ver_logstates_decode(buf, 6 + i % 250, s);
		assert_true(s->n <= VER_MAX_LOGS);
	}
	ver_logstates_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(settings),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(legacy_blob),
		cmocka_unit_test(garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
