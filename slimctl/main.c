// SPDX-License-Identifier: Apache-2.0
/*
 * main.c - slimctl: administration of the slim module's SLIM lattice.
 */
#include <stdio.h>
#include <string.h>

#include "slimctl.h"

#define SLIMCTL_VERSION ATT_VERSION

static void slc_usage(FILE *f)
{
	fputs("NAME\n"
	      "    slimctl - labels, levels and mode of the slim module's "
	      "SLIM lattice\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    slimctl status\n"
	      "    slimctl mode [enforce|permissive|off]\n"
	      "    slimctl show FILE...\n"
	      "    slimctl ps [--changed]\n"
	      "    slimctl relabel [--offline] LABEL FILE...\n"
	      "    slimctl label [--root DIR] [--offline] [--dry-run] [-v] "
	      "POLICY\n"
	      "    slimctl evm-seal --out BLOB [--pcrs 0-7] [--key-file K] "
	      "[--tcti CONF]\n"
	      "    slimctl evm-load --in BLOB [--tcti CONF]\n"
	      "    slimctl evm-hmac --key-file K [--uuid U] [--generation N] "
	      "[--write] FILE...\n"
	      "    slimctl --help | --version\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    The slim module keeps an integrity level (UNTRUSTED < USER "
	      "< SYSTEM)\n"
	      "    and a secrecy level (PUBLIC < USER < USER_SENSITIVE < "
	      "SYSTEM_SENSITIVE)\n"
	      "    for every task and file. A file's label is text in its "
	      "security.slim\n"
	      "    xattr:\n"
	      "        INTEGRITY SECRECY [guard-read=INTEGRITY] "
	      "[guard-write=SECRECY]\n"
	      "    A task that reads lower integrity is demoted to it, one "
	      "that reads\n"
	      "    higher secrecy rises to it; writing up in integrity or "
	      "down in\n"
	      "    secrecy is denied. IP sockets are UNTRUSTED PUBLIC. A "
	      "program whose\n"
	      "    label has guard-read= (a sanitizer) reads down to that "
	      "level without\n"
	      "    demotion; guard-write= (a declassifier) writes down to "
	      "that secrecy.\n"
	      "\n"
	      "COMMANDS\n"
	      "    status   mode, default label, watched file systems and "
	      "counters\n"
	      "    mode     print or set the mode: enforce, permissive (log "
	      "and count\n"
	      "             what would be denied), off\n"
	      "    show     each FILE's label (or the default it gets)\n"
	      "    ps       every task's levels (--changed: only those not "
	      "SYSTEM PUBLIC)\n"
	      "    relabel  set FILEs' label through the module "
	      "(--offline: the xattr)\n"
	      "    label    label a tree from a labeling policy (see "
	      "'slimctl label --help')\n"
	      "    evm-seal make a random 32-byte EVM key (or take K) and "
	      "seal it in the\n"
	      "             TPM to the sha256 PCRs 0-7 as they are now\n"
	      "    evm-load unseal it (only if those PCRs are unchanged: a "
	      "trusted boot)\n"
	      "             and hand it to the module once per boot\n"
	      "    evm-hmac the HMAC the module computes for a file "
	      "(docs/evm.md)\n"
	      "\n"
	      "    Changing the mode or a label needs CAP_MAC_ADMIN and a "
	      "task at SYSTEM\n"
	      "    integrity; security.slim cannot be changed with "
	      "setxattr(2) while the\n"
	      "    module enforces.\n"
	      "\n"
	      "ENVIRONMENT\n"
	      "    SLIMCTL_SECFS  the module's directory (default " SLC_SECFS
	      ")\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 success, 1 failure (refused, unreadable, module "
	      "missing), 2 usage.\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{"status", slc_cmd_status},	{"mode", slc_cmd_mode},
		{"show", slc_cmd_show},		{"ps", slc_cmd_ps},
		{"relabel", slc_cmd_relabel},	{"label", slc_cmd_label},
		{"evm-seal", slc_cmd_evm_seal}, {"evm-load", slc_cmd_evm_load},
		{"evm-hmac", slc_cmd_evm_hmac},
	};

	if (argc < 2) {
		slc_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		slc_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("slimctl " SLIMCTL_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		if (argc > 2 && strcmp(cmds[i].name, "label") &&
		    strncmp(cmds[i].name, "evm-", 4) &&
		    (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			slc_usage(stdout);
			return 0;
		}
		return cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "slimctl: unknown command '%s' (see slimctl --help)\n",
		argv[1]);
	return 2;
}
