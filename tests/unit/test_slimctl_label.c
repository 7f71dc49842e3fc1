// SPDX-License-Identifier: Apache-2.0
/*
 * test_slimctl_label.c - slimctl's label parser (the same grammar as the
 * module's), labeling policies (longest prefix), and `slimctl label
 * --offline` on a real directory tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "attest/err.h"
#include "slimctl.h"

static int parse(const char *s, struct slc_level *l)
{
	return slc_label_parse(s, strlen(s), l);
}

static void labels_valid(void **state)
{
	struct slc_level l;
	char buf[SLC_LABEL_MAX + 1];

	(void)state;
	assert_int_equal(parse("SYSTEM PUBLIC", &l), ATT_OK);
	assert_int_equal(l.integ, SLC_I_SYSTEM);
	assert_int_equal(l.secr, SLC_S_PUBLIC);
	assert_int_equal(l.gread, SLC_I_NONE);
	assert_int_equal(l.gwrite, SLC_S_NONE);
	assert_int_equal(parse("USER USER_SENSITIVE", &l), ATT_OK);
	assert_int_equal(l.integ, SLC_I_USER);
	assert_int_equal(l.secr, SLC_S_USER_SENSITIVE);
	/* setfattr and echo leave a NUL or a newline */
	assert_int_equal(slc_label_parse("UNTRUSTED USER\n", 15, &l), ATT_OK);
	assert_int_equal(l.secr, SLC_S_USER);
	assert_int_equal(slc_label_parse("UNTRUSTED USER\0", 15, &l), ATT_OK);
	assert_int_equal(
		parse("  SYSTEM   SYSTEM_SENSITIVE  guard-write=USER", &l),
		ATT_OK);
	assert_int_equal(l.gwrite, SLC_S_USER);
	assert_int_equal(l.gread, SLC_I_NONE);
	assert_int_equal(parse("SYSTEM PUBLIC guard-write=PUBLIC "
			       "guard-read=UNTRUSTED",
			       &l),
			 ATT_OK);
	assert_int_equal(l.gread, SLC_I_UNTRUSTED);
	assert_int_equal(l.gwrite, SLC_S_PUBLIC);
	/* canonical form: guard-read first */
	assert_int_equal(slc_label_format(&l, buf, sizeof(buf)), ATT_OK);
	assert_string_equal(buf, "SYSTEM PUBLIC guard-read=UNTRUSTED "
				 "guard-write=PUBLIC");
	assert_int_equal(slc_label_format(&l, buf, 10), ATT_E_TOO_BIG);
}

static void labels_invalid(void **state)
{
	static const char *const bad[] = {
		"",
		" ",
		"SYSTEM",
		"system public",
		"SYSTEM BOGUS",
		"PUBLIC SYSTEM",
		"SYSTEM PUBLIC USER",
		"SYSTEM PUBLIC guard-read=",
		"SYSTEM PUBLIC guard-read=PUBLIC",
		"SYSTEM PUBLIC guard-write=SYSTEM",
		"SYSTEM PUBLIC guard-read=USER guard-read=USER",
		"SYSTEM PUBLIC guard-write=USER guard-write=PUBLIC",
		"SYSTEM\tPUBLIC",
		"SYSTEM PUBLIC\x01",
		"SYSTEM PUBLIC \xc3\xa9",
		"SYSTEM PUBLIC\n\nx",
		"guard-read=USER SYSTEM PUBLIC",
	};
	struct slc_level l = {7, 7, 7, 7};
	char big[SLC_LABEL_MAX + 2];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &l) == ATT_OK)
			fail_msg("accepted '%s'", bad[i]);
		/* a refused label leaves the output alone */
		assert_int_equal(l.integ, 7);
	}
	memset(big, ' ', sizeof(big));
	memcpy(big, "SYSTEM PUBLIC", 13);
	assert_int_equal(slc_label_parse(big, sizeof(big), &l), ATT_E_TOO_BIG);
	assert_int_equal(slc_label_parse(big, SLC_LABEL_MAX, &l), ATT_OK);
}

/* every level and guard combination survives format -> parse */
static void labels_round_trip(void **state)
{
	char buf[SLC_LABEL_MAX + 1];
	struct slc_level l, back;
	int n = 0;

	(void)state;
	for (l.integ = 0; l.integ <= SLC_I_SYSTEM; l.integ++)
		for (l.secr = 0; l.secr <= SLC_S_SYSTEM_SENSITIVE; l.secr++)
			for (l.gread = 0; l.gread <= SLC_I_NONE; l.gread++)
				for (l.gwrite = 0; l.gwrite <= SLC_S_NONE;
				     l.gwrite++) {
					assert_int_equal(
						slc_label_format(&l, buf,
								 sizeof(buf)),
						ATT_OK);
					assert_int_equal(parse(buf, &back),
							 ATT_OK);
					assert_memory_equal(&l, &back,
							    sizeof(l));
					n++;
				}
	assert_int_equal(n, 3 * 4 * 4 * 5);
	l.integ = 3;
	assert_int_equal(slc_label_format(&l, buf, sizeof(buf)), ATT_E_INVAL);
}

/* random bytes and mutations of valid labels: a result or a clean error */
static void labels_random(void **state)
{
	static const char *const words[] = {
		"SYSTEM",      "USER",		 "UNTRUSTED",
		"PUBLIC",      "USER_SENSITIVE", "SYSTEM_SENSITIVE",
		"guard-read=", "guard-write=",	 " ",
		"=",
	};
	char s[SLC_LABEL_MAX + 8], buf[SLC_LABEL_MAX + 1];
	struct slc_level l, back;
	unsigned int seed = 12345, ok = 0;

	(void)state;
	for (int it = 0; it < 20000; it++) {
		size_t len = 0, want = (size_t)(rand_r(&seed) % sizeof(s));

		while (len < want) {
			if (rand_r(&seed) % 4 == 0) {
				s[len++] = (char)(rand_r(&seed) % 256);
			} else {
				const char *w = words[rand_r(&seed) %
						      (sizeof(words) /
						       sizeof(words[0]))];
				size_t wl = strlen(w);

				if (len + wl > want)
					break;
				memcpy(s + len, w, wl);
				len += wl;
			}
		}
		if (slc_label_parse(s, len, &l) != ATT_OK)
			continue;
		ok++;
		assert_int_equal(slc_label_format(&l, buf, sizeof(buf)),
				 ATT_OK);
		assert_int_equal(parse(buf, &back), ATT_OK);
		assert_memory_equal(&l, &back, sizeof(l));
	}
	/* the generator does reach valid labels */
	assert_true(ok > 0);
}

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/slc-pol-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void policy_lookup(void **state)
{
	struct slc_policy *p;
	const struct slc_level *l;
	char *f;
	size_t rule;

	(void)state;
	f = write_tmp("# comment\n"
		      "/            SYSTEM PUBLIC\n"
		      "\n"
		      "/home/       USER USER\n"
		      "/home/guest\tUNTRUSTED\tPUBLIC\n"
		      "/usr/bin/ssh SYSTEM PUBLIC guard-read=UNTRUSTED  \n");
	assert_int_equal(slc_policy_load(f, &p), ATT_OK);
	unlink(f);
	free(f);
	l = slc_policy_lookup(p, "/etc/passwd", &rule);
	assert_non_null(l);
	assert_int_equal(rule, 0);
	assert_int_equal(l->integ, SLC_I_SYSTEM);
	l = slc_policy_lookup(p, "/home", &rule);
	assert_int_equal(rule, 1);
	l = slc_policy_lookup(p, "/home/alice/x", &rule);
	assert_int_equal(rule, 1);
	assert_int_equal(l->secr, SLC_S_USER);
	/* a prefix only counts at a path component boundary */
	l = slc_policy_lookup(p, "/homer/x", &rule);
	assert_int_equal(rule, 0);
	l = slc_policy_lookup(p, "/home/guest/.profile", &rule);
	assert_int_equal(rule, 2);
	assert_int_equal(l->integ, SLC_I_UNTRUSTED);
	l = slc_policy_lookup(p, "/home/guests", &rule);
	assert_int_equal(rule, 1);
	l = slc_policy_lookup(p, "/usr/bin/ssh", &rule);
	assert_int_equal(rule, 3);
	assert_int_equal(l->gread, SLC_I_UNTRUSTED);
	l = slc_policy_lookup(p, "/usr/bin/sshd", &rule);
	assert_int_equal(rule, 0);
	slc_policy_free(p);

	/* without a / rule, some paths are not covered */
	f = write_tmp("/srv USER PUBLIC\n");
	assert_int_equal(slc_policy_load(f, &p), ATT_OK);
	unlink(f);
	free(f);
	assert_null(slc_policy_lookup(p, "/etc/x", NULL));
	assert_non_null(slc_policy_lookup(p, "/srv/x", NULL));
	slc_policy_free(p);
}

static void policy_errors(void **state)
{
	static const char *const bad[] = {
		"",
		"# only a comment\n",
		"/a\n",
		"a SYSTEM PUBLIC\n",
		"/a SYSTEM\n",
		"/a SYSTEM PUBLIC\n/a USER PUBLIC\n",
		"/a/ SYSTEM PUBLIC\n/a USER PUBLIC\n",
		"/a SYSTEM PUBLIC guard-read=PUBLIC\n",
	};
	struct slc_policy *p = NULL;
	char *f;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = write_tmp(bad[i]);
		if (slc_policy_load(f, &p) == ATT_OK)
			fail_msg("accepted policy '%s'", bad[i]);
		assert_null(p);
		unlink(f);
		free(f);
	}
	assert_int_equal(slc_policy_load("/nonexistent/policy", &p), ATT_E_IO);
}

static void get_label(const char *path, char *buf, size_t size)
{
	ssize_t n = lgetxattr(path, SLC_XATTR, buf, size - 1);

	if (n < 0)
		fail_msg("%s: no %s", path, SLC_XATTR);
	buf[n] = '\0';
}

/* slimctl label --offline --root on a real tree (the host's /tmp) */
static void label_offline_tree(void **state)
{
	char root[] = "/tmp/slc-tree-XXXXXX", path[512], val[128];
	char *pol, *argv[8];
	int argc = 0;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/etc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/home", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/home/guest", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/etc/conf", root);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/home/a", root);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/home/guest/b", root);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/home/link", root);
	assert_int_equal(symlink("/etc/passwd", path), 0);

	pol = write_tmp("/ SYSTEM PUBLIC\n/home USER USER\n"
			"/home/guest UNTRUSTED PUBLIC guard-read=UNTRUSTED\n");
	argv[argc++] = "label";
	argv[argc++] = "--offline";
	argv[argc++] = "--root";
	argv[argc++] = root;
	argv[argc++] = pol;
	argv[argc] = NULL;
	assert_int_equal(slc_cmd_label(argc, argv), 0);

	snprintf(path, sizeof(path), "%s/etc/conf", root);
	get_label(path, val, sizeof(val));
	assert_string_equal(val, "SYSTEM PUBLIC");
	snprintf(path, sizeof(path), "%s/home/a", root);
	get_label(path, val, sizeof(val));
	assert_string_equal(val, "USER USER");
	snprintf(path, sizeof(path), "%s/home/guest/b", root);
	get_label(path, val, sizeof(val));
	assert_string_equal(val, "UNTRUSTED PUBLIC guard-read=UNTRUSTED");
	/* directories are labeled too, without the rule's guards */
	snprintf(path, sizeof(path), "%s/home/guest", root);
	get_label(path, val, sizeof(val));
	assert_string_equal(val, "UNTRUSTED PUBLIC");
	snprintf(path, sizeof(path), "%s/home", root);
	get_label(path, val, sizeof(val));
	assert_string_equal(val, "USER USER");
	get_label(root, val, sizeof(val));
	assert_string_equal(val, "SYSTEM PUBLIC");
	/* symbolic links are neither followed nor labeled */
	snprintf(path, sizeof(path), "%s/home/link", root);
	assert_true(lgetxattr(path, SLC_XATTR, val, sizeof(val)) < 0);

	/* a root that does not exist: the run reports the failure */
	argv[3] = "/nonexistent-slc-root";
	assert_int_equal(slc_cmd_label(argc, argv), 1);

	unlink(pol);
	free(pol);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(labels_valid),
		cmocka_unit_test(labels_invalid),
		cmocka_unit_test(labels_round_trip),
		cmocka_unit_test(labels_random),
		cmocka_unit_test(policy_lookup),
		cmocka_unit_test(policy_errors),
		cmocka_unit_test(label_offline_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
