// SPDX-License-Identifier: Apache-2.0
/*
 * label.c - the text form of a SLIM label:
 *   "<integrity> <secrecy> [guard-read=<integrity>] [guard-write=<secrecy>]"
 * parsed exactly as kernel/lattice_label.c parses it.
 */
#include <stdio.h>
#include <string.h>

#include "attest/err.h"
#include "slimctl.h"

static const char *const slc_integ_names[] = SLIM_INTEG_NAMES;
static const char *const slc_secr_names[] = SLIM_SECR_NAMES;

#define SLC_N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define GR_LEN	 (sizeof(SLIM_GUARD_READ) - 1)
#define GW_LEN	 (sizeof(SLIM_GUARD_WRITE) - 1)

static int slc_name_index(const char *s, size_t len, const char *const *names,
			  int n)
{
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len && !memcmp(s, names[i], len))
			return i;
	return -1;
}

int slc_label_parse(const char *s, size_t len, struct slc_level *out)
{
	struct slc_level l = {.gread = SLC_I_NONE, .gwrite = SLC_S_NONE};
	size_t i = 0, w, wl;
	int field = 0, v;

	if (len > SLC_LABEL_MAX)
		return ATT_E_TOO_BIG;
	while (len && (s[len - 1] == '\0' || s[len - 1] == '\n'))
		len--;
	while (i < len) {
		if (s[i] == ' ') {
			i++;
			continue;
		}
		for (w = i; i < len && s[i] != ' '; i++)
			if (s[i] < 0x21 || s[i] > 0x7e)
				return ATT_E_FORMAT;
		wl = i - w;
		if (field == 0) {
			v = slc_name_index(s + w, wl, slc_integ_names,
					   SLC_N(slc_integ_names));
			if (v < 0)
				return ATT_E_FORMAT;
			l.integ = v;
		} else if (field == 1) {
			v = slc_name_index(s + w, wl, slc_secr_names,
					   SLC_N(slc_secr_names));
			if (v < 0)
				return ATT_E_FORMAT;
			l.secr = v;
		} else if (wl > GR_LEN &&
			   !memcmp(s + w, SLIM_GUARD_READ, GR_LEN) &&
			   l.gread == SLC_I_NONE) {
			v = slc_name_index(s + w + GR_LEN, wl - GR_LEN,
					   slc_integ_names,
					   SLC_N(slc_integ_names));
			if (v < 0)
				return ATT_E_FORMAT;
			l.gread = v;
		} else if (wl > GW_LEN &&
			   !memcmp(s + w, SLIM_GUARD_WRITE, GW_LEN) &&
			   l.gwrite == SLC_S_NONE) {
			v = slc_name_index(s + w + GW_LEN, wl - GW_LEN,
					   slc_secr_names,
					   SLC_N(slc_secr_names));
			if (v < 0)
				return ATT_E_FORMAT;
			l.gwrite = v;
		} else {
			return ATT_E_FORMAT;
		}
		field++;
	}
	if (field < 2)
		return ATT_E_FORMAT;
	*out = l;
	return ATT_OK;
}

int slc_label_format(const struct slc_level *l, char *buf, size_t size)
{
	int n;

	if (l->integ < 0 || l->integ >= SLC_N(slc_integ_names) || l->secr < 0 ||
	    l->secr >= SLC_N(slc_secr_names) || l->gread < 0 ||
	    l->gread > SLC_I_NONE || l->gwrite < 0 || l->gwrite > SLC_S_NONE)
		return ATT_E_INVAL;
	n = snprintf(buf, size, "%s %s%s%s%s%s", slc_integ_names[l->integ],
		     slc_secr_names[l->secr],
		     l->gread != SLC_I_NONE ? " guard-read=" : "",
		     l->gread != SLC_I_NONE ? slc_integ_names[l->gread] : "",
		     l->gwrite != SLC_S_NONE ? " guard-write=" : "",
		     l->gwrite != SLC_S_NONE ? slc_secr_names[l->gwrite] : "");
	if (n < 0 || (size_t)n >= size)
		return ATT_E_TOO_BIG;
	return ATT_OK;
}
