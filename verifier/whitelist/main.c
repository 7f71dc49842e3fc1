// SPDX-License-Identifier: Apache-2.0
/*
 * main.c - attest-whitelist: build, inspect and apply whitelists.
 */
#include <stdio.h>
#include <string.h>

#include "attest/log.h"
#include "wlcli.h"

#define WLCLI_VERSION "0.1.0"

static void usage(FILE *f)
{
	fputs("NAME\n"
	      "    attest-whitelist - build, inspect and apply IMA "
	      "whitelists\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    attest-whitelist check WHITELIST LIST [options]\n"
	      "    attest-whitelist --help | --version\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    A whitelist holds the known-good digests of the files a "
	      "host may\n"
	      "    measure. Its native form is JSON, a superset of "
	      "Keylime's runtime\n"
	      "    policy; Keylime's legacy 'hash  path' allowlist is read "
	      "too.\n"
	      "\n"
	      "COMMANDS\n"
	      "    check    judge an IMA measurement list against a "
	      "whitelist and,\n"
	      "             with --pcrs, replay it against PCR values "
	      "(see\n"
	      "             'attest-whitelist check --help')\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 trusted, 1 not trusted, 2 error (unreadable or "
	      "malformed input,\n"
	      "    bad usage).\n",
	      f);
}

int main(int argc, char **argv)
{
	att_log_set_ident("attest-whitelist");
	if (argc < 2) {
		usage(stderr);
		return WLCLI_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return WLCLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("attest-whitelist %s\n", WLCLI_VERSION);
		return WLCLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "check"))
		return wlcli_check(argc - 1, argv + 1);
	fprintf(stderr, "attest-whitelist: unknown command '%s' (try --help)\n",
		argv[1]);
	return WLCLI_EXIT_ERROR;
}
