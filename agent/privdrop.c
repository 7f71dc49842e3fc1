// SPDX-License-Identifier: Apache-2.0
/*
 * privdrop.c - dropping root after the privileged files are open.
 */
#include "privdrop.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "attest/err.h"
#include "attest/log.h"

int agent_drop_privileges(const char *user)
{
	struct passwd *pw;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		att_err("no_new_privs: %s", strerror(errno));
		return ATT_E_IO;
	}
	if (!user || !*user)
		return ATT_OK;
	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		att_err("user %s: %s", user,
			errno ? strerror(errno) : "no such user");
		return ATT_E_NOT_FOUND;
	}
	if (geteuid() != 0) {
		if (getuid() == pw->pw_uid && geteuid() == pw->pw_uid)
			return ATT_OK;
		att_err("cannot become %s: not running as root", user);
		return ATT_E_AUTH;
	}
	if (pw->pw_uid == 0) {
		att_err("user %s is root: refusing to run privileged", user);
		return ATT_E_INVAL;
	}
	if (setgroups(0, NULL) < 0 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0) {
		att_err("dropping to %s: %s", user, strerror(errno));
		return ATT_E_AUTH;
	}
	/* Root must be gone for good. */
	if (setuid(0) == 0 || seteuid(0) == 0 || getuid() != pw->pw_uid ||
	    geteuid() != pw->pw_uid) {
		att_err("dropping to %s: root could be regained", user);
		return ATT_E_INTERNAL;
	}
	att_info("running as %s (uid %u)", user, (unsigned int)pw->pw_uid);
	return ATT_OK;
}
