// SPDX-License-Identifier: Apache-2.0
/*
 * test_agent_privdrop.c - after dropping to "nobody" the agent cannot get
 * root back, keeps descriptors it opened before, and cannot open them again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "attest/err.h"
#include "privdrop.h"

static void drop_to_nobody(void **state)
{
	struct passwd *pw = getpwnam("nobody");
	pid_t pid;
	int status;

	(void)state;
	if (geteuid() != 0)
		fail_msg("this test needs root (the agent starts as root)");
	assert_non_null(pw);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* a root-only file opened before the drop stays readable */
		int fd = open("/etc/shadow", O_RDONLY), again;
		char c;

		if (fd < 0)
			_exit(10);
		if (agent_drop_privileges("nobody") != ATT_OK)
			_exit(11);
		if (getuid() != pw->pw_uid || geteuid() != pw->pw_uid ||
		    getgid() != pw->pw_gid)
			_exit(12);
		if (setuid(0) == 0 || seteuid(0) == 0)
			_exit(13);
		if (read(fd, &c, 1) != 1)
			_exit(14);
		again = open("/etc/shadow", O_RDONLY);
		if (again >= 0)
			_exit(15);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void refusals(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(agent_drop_privileges("no-such-user-xyz"),
			 ATT_E_NOT_FOUND);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(agent_drop_privileges("root") == ATT_E_INVAL ? 0 : 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drop_to_nobody),
		cmocka_unit_test(refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
