/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wlcli.h - attest-whitelist subcommands.
 */
#ifndef ATTEST_WLCLI_H
#define ATTEST_WLCLI_H

/* Exit codes every subcommand keeps to, so scripts can rely on them. */
enum wlcli_exit {
	WLCLI_EXIT_OK = 0,	  /* trusted / done */
	WLCLI_EXIT_UNTRUSTED = 1, /* checked and found wrong */
	WLCLI_EXIT_ERROR = 2,	  /* unreadable or malformed input, usage */
};

int wlcli_check(int argc, char **argv);
void wlcli_check_usage(void);
struct att_wl;
struct att_pcrs;
struct json_object;
/*
 * check --uefi-log: replay (against pcrs' PCRs 0-7, when given) and the
 * whitelist's boot section; prints when text, *out gets the JSON.
 * Returns a WLCLI_EXIT_* code.
 */
int wlcli_check_boot(const char *path, const struct att_wl *wl,
		     const struct att_pcrs *pcrs, int text,
		     struct json_object **out);
int wlcli_create(int argc, char **argv);
void wlcli_create_usage(void);
int wlcli_edit(const char *cmd, int argc, char **argv);
int wlcli_keylime(const char *cmd, int argc, char **argv);

#endif
