// SPDX-License-Identifier: Apache-2.0
/*
 * main.c - attest-whitelist: build, inspect and apply whitelists.
 */
#include <stdio.h>
#include <string.h>

#include "attest/log.h"
#include "wlcli.h"

#define WLCLI_VERSION ATT_VERSION

static void usage(FILE *f)
{
	fputs("NAME\n"
	      "    attest-whitelist - build, inspect and apply IMA "
	      "whitelists\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    attest-whitelist create --rootfs DIR | --deb FILE... | "
	      "--apt-repo DIR\n"
	      "        --keyring FILE | --dpkg-root ROOT | --initrd FILE | "
	      "--ima-log FILE\n"
	      "        | --uefi-log FILE [options] [-o FILE]\n"
	      "    attest-whitelist check WHITELIST LIST [options]\n"
	      "    attest-whitelist merge A B... [-o FILE]\n"
	      "    attest-whitelist add WL PATH... | add WL --digest HEX "
	      "PATH [-o FILE]\n"
	      "    attest-whitelist remove WL PATH... [--digest HEX] [-o "
	      "FILE]\n"
	      "    attest-whitelist diff A B\n"
	      "    attest-whitelist show [--paths] WL\n"
	      "    attest-whitelist validate WL\n"
	      "    attest-whitelist import --allowlist FILE [--excludes "
	      "FILE] | --policy FILE [-o FILE]\n"
	      "    attest-whitelist export WL [--allowlist OUT] [--excludes "
	      "OUT] [--policy OUT]\n"
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
	      "    create   from a root filesystem, Debian packages (files, "
	      "a signed\n"
	      "             repository, a host's dpkg database), an "
	      "initramfs, a\n"
	      "             known-good host's IMA list, a firmware log (see "
	      "'create --help')\n"
	      "    check    judge an IMA measurement list against a "
	      "whitelist and,\n"
	      "             with --pcrs, replay it against PCR values "
	      "(see\n"
	      "             'attest-whitelist check --help')\n"
	      "    merge    union of whitelists\n"
	      "    add      hash local files (or take --digest) into a "
	      "whitelist\n"
	      "    remove   drop paths, or one digest of a path\n"
	      "    diff     '- path digest' / '+ path digest' lines; exit 1 "
	      "when they differ\n"
	      "    show     summary (--paths: every path and digest)\n"
	      "    validate check a whitelist with the verifier's own "
	      "loader\n"
	      "    import   Keylime legacy allowlist (+ exclude list) or "
	      "runtime policy\n"
	      "    export   to Keylime's legacy allowlist, exclude list or "
	      "runtime policy\n"
	      "\n"
	      "    Output goes to -o FILE (default standard output), "
	      "written atomically,\n"
	      "    deterministic: keys and digests sorted.\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 success (check: trusted; diff: same); 1 check: not "
	      "trusted, diff:\n"
	      "    different, create/export: written but some files were "
	      "reported and\n"
	      "    left out, validate: invalid; 2 error (unreadable or "
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
	if (!strcmp(argv[1], "create"))
		return wlcli_create(argc - 1, argv + 1);
	if (!strcmp(argv[1], "merge") || !strcmp(argv[1], "add") ||
	    !strcmp(argv[1], "remove") || !strcmp(argv[1], "diff") ||
	    !strcmp(argv[1], "show") || !strcmp(argv[1], "validate"))
		return wlcli_edit(argv[1], argc - 1, argv + 1);
	if (!strcmp(argv[1], "import") || !strcmp(argv[1], "export"))
		return wlcli_keylime(argv[1], argc - 1, argv + 1);
	fprintf(stderr, "attest-whitelist: unknown command '%s' (try --help)\n",
		argv[1]);
	return WLCLI_EXIT_ERROR;
}
