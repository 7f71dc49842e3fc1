// SPDX-License-Identifier: Apache-2.0
/*
 * kvconf.c - "key = value" configuration text.
 */
#include "attest/kvconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/err.h"

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int att_kv_parse(const char *text, size_t len, att_kv_fn fn, void *arg,
		 char *err, size_t errlen)
{
	char *copy, *line, *next;
	unsigned int n = 0;
	int rc = ATT_OK;

	if (memchr(text, '\0', len)) {
		snprintf(err, errlen, "configuration holds a NUL byte");
		return ATT_E_FORMAT;
	}
	copy = strndup(text, len);
	if (!copy)
		return ATT_E_NOMEM;
	for (line = copy; line && !rc; line = next) {
		char *nl = strchr(line, '\n'), *eq, *k, sub[200] = "";

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		n++;
		k = trim(line);
		if (!*k || *k == '#')
			continue;
		eq = strchr(k, '=');
		if (!eq) {
			snprintf(err, errlen, "line %u: expected key = value",
				 n);
			rc = ATT_E_FORMAT;
			break;
		}
		*eq = '\0';
		rc = fn(trim(k), trim(eq + 1), arg, sub, sizeof(sub));
		if (rc)
			snprintf(err, errlen, "line %u: %s", n,
				 sub[0] ? sub : att_strerror(rc));
	}
	free(copy);
	return rc;
}
