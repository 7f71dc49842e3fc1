// SPDX-License-Identifier: GPL-2.0
/*
 * the levels of the SLIM lattice and the label grammar.
 *
 * Integrity UNTRUSTED < USER < SYSTEM, secrecy PUBLIC < USER <
 * USER_SENSITIVE < SYSTEM_SENSITIVE. A label is text in the security.slim
 * xattr: "<integrity> <secrecy> [guard-read=<integrity>]
 * [guard-write=<secrecy>]" (see README.md, "SLIM lattice").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/string.h>
#include "lattice.h"

static const char *const slim_integ_names[] = SLIM_INTEG_NAMES;

static const char *const slim_secr_names[] = SLIM_SECR_NAMES;

const struct slim_level slim_initial_level = {
	.integ = SLIM_I_SYSTEM, .secr = SLIM_S_PUBLIC,
	.gread = SLIM_I_NONE, .gwrite = SLIM_S_NONE,
};

static int slim_name_index(const char *s, size_t len,
			   const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(s, names[i], len))
			return i;
	return -1;
}

/*
 * Parses a label of at most SLIM_LABEL_MAX bytes; a trailing NUL or
 * newline is allowed (setfattr and echo add them). Words are separated by
 * single or repeated spaces; unknown or repeated words are an error.
 */
int slim_label_parse(const char *s, size_t len, struct slim_level *out)
{
	struct slim_level l = {
		.gread = SLIM_I_NONE, .gwrite = SLIM_S_NONE,
	};
	const size_t gr = strlen(SLIM_GUARD_READ), gw = strlen(SLIM_GUARD_WRITE);
	size_t i = 0, w, wl;
	int field = 0, v;

	if (len > SLIM_LABEL_MAX)
		return -E2BIG;
	while (len && (s[len - 1] == '\0' || s[len - 1] == '\n'))
		len--;
	while (i < len) {
		if (s[i] == ' ') {
			i++;
			continue;
		}
		for (w = i; i < len && s[i] != ' '; i++)
			if (s[i] < 0x21 || s[i] > 0x7e)
				return -EINVAL;
		wl = i - w;
		if (field == 0) {
			v = slim_name_index(s + w, wl, slim_integ_names,
					    ARRAY_SIZE(slim_integ_names));
			if (v < 0)
				return -EINVAL;
			l.integ = v;
		} else if (field == 1) {
			v = slim_name_index(s + w, wl, slim_secr_names,
					    ARRAY_SIZE(slim_secr_names));
			if (v < 0)
				return -EINVAL;
			l.secr = v;
		} else if (wl > gr && !memcmp(s + w, SLIM_GUARD_READ, gr) &&
			   l.gread == SLIM_I_NONE) {
			v = slim_name_index(s + w + gr, wl - gr,
					    slim_integ_names,
					    ARRAY_SIZE(slim_integ_names));
			if (v < 0)
				return -EINVAL;
			l.gread = v;
		} else if (wl > gw && !memcmp(s + w, SLIM_GUARD_WRITE, gw) &&
			   l.gwrite == SLIM_S_NONE) {
			v = slim_name_index(s + w + gw, wl - gw,
					    slim_secr_names,
					    ARRAY_SIZE(slim_secr_names));
			if (v < 0)
				return -EINVAL;
			l.gwrite = v;
		} else {
			return -EINVAL;
		}
		field++;
	}
	if (field < 2)
		return -EINVAL;
	*out = l;
	return 0;
}

/* "SYSTEM PUBLIC guard-read=UNTRUSTED"; returns the length */
int slim_label_format(const struct slim_level *l, char *buf, size_t size)
{
	int n;

	n = scnprintf(buf, size, "%s %s", slim_integ_names[l->integ],
		      slim_secr_names[l->secr]);
	if (l->gread != SLIM_I_NONE)
		n += scnprintf(buf + n, size - n, " " SLIM_GUARD_READ "%s",
			       slim_integ_names[l->gread]);
	if (l->gwrite != SLIM_S_NONE)
		n += scnprintf(buf + n, size - n, " " SLIM_GUARD_WRITE "%s",
			       slim_secr_names[l->gwrite]);
	return n;
}

const char *slim_integ_name(unsigned int integ)
{
	return integ < ARRAY_SIZE(slim_integ_names) ?
		slim_integ_names[integ] : "-";
}

const char *slim_secr_name(unsigned int secr)
{
	return secr < ARRAY_SIZE(slim_secr_names) ?
		slim_secr_names[secr] : "-";
}
