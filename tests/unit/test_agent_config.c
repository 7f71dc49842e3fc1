// SPDX-License-Identifier: Apache-2.0
/*
 * test_agent_config.c - the agent's configuration file and its errors.
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
#include "config.h"

static void good_file(void **state)
{
	const char *t = "# attest-agent\n"
			"verifier = https://a.example:8443\n"
			"  verifier=https://b.example:8443  \n"
			"\n"
			"ca = /etc/attest/ca.pem\n"
			"log = ima:/sys/kernel/security/ima/binary_runtime_"
			"measurements:10\n"
			"log = slim:/x/slim.bin:11:sha256\n"
			"ak_handle = 0x81010011\n"
			"interval = 5\n"
			"ek = ecc\n"
			"agent_id = web-01\n";
	struct agent_config c;
	char err[200] = "";

	(void)state;
	agent_config_init(&c);
	assert_int_equal(agent_config_parse(&c, t, strlen(t), err, sizeof(err)),
			 ATT_OK);
	assert_int_equal(agent_config_finish(&c, err, sizeof(err)), ATT_OK);
	assert_int_equal(c.nverifiers, 2);
	assert_string_equal(c.verifiers[1], "https://b.example:8443");
	assert_int_equal(c.nlogs, 2);
	assert_int_equal(c.logs[1].pcr, 11);
	assert_int_equal(c.logs[1].bank, ATT_HASH_SHA256);
	assert_int_equal(c.ak_handle, 0x81010011);
	assert_int_equal(c.interval, 5);
	assert_true(c.ek_ecc);
	assert_string_equal(c.state_dir, "/var/lib/attest-agent");
	agent_config_release(&c);
}

static void expect_error(const char *text, const char *want)
{
	struct agent_config c;
	char err[200] = "";

	agent_config_init(&c);
	assert_int_not_equal(
		agent_config_parse(&c, text, strlen(text), err, sizeof(err)),
		ATT_OK);
	if (!strstr(err, want))
		print_message("'%s' lacks '%s'\n", err, want);
	assert_non_null(strstr(err, want));
	agent_config_release(&c);
}

static void errors(void **state)
{
	struct agent_config c;
	char err[200];

	(void)state;
	expect_error("verifier = http://plain.example\n", "https://");
	expect_error("\n\nbogus = 1\n", "line 3: unknown setting 'bogus'");
	expect_error("interval = 0\n", "interval");
	expect_error("interval = 12x\n", "interval");
	expect_error("ak_handle = 0x01000000\n", "persistent");
	expect_error("log = ima:relative/path:10\n", "NAME:/PATH:PCR");
	expect_error("log = ima:/p:24\n", "NAME:/PATH:PCR");
	expect_error("log = ima:/p:10:md4\n", "NAME:/PATH:PCR");
	expect_error("ek = dsa\n", "rsa or ecc");
	expect_error("just words\n", "line 1: expected key = value");
	agent_config_init(&c);
	assert_int_equal(agent_config_finish(&c, err, sizeof(err)),
			 ATT_E_INVAL);
	assert_non_null(strstr(err, "no verifier"));
	agent_config_set(&c, "verifier", "https://v", err, sizeof(err));
	assert_int_equal(agent_config_finish(&c, err, sizeof(err)),
			 ATT_E_INVAL);
	assert_non_null(strstr(err, "CA"));
	agent_config_release(&c);
}

/* The example shipped in deploy/ is valid. */
static void shipped_example(void **state)
{
	const char *src = getenv("ATT_SRC");
	struct agent_config c;
	char path[512], err[200] = "";

	(void)state;
	snprintf(path, sizeof(path), "%s/deploy/agent.conf", src ? src : ".");
	agent_config_init(&c);
	if (agent_config_load(&c, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(agent_config_finish(&c, err, sizeof(err)), ATT_OK);
	assert_int_equal(c.nlogs, 1);
	assert_string_equal(c.user, "attest-agent");
	agent_config_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_file),
		cmocka_unit_test(errors),
		cmocka_unit_test(shipped_example),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
