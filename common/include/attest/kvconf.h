/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvconf.h - "key = value" configuration files: one setting a line,
 * '#' comments and blank lines ignored, white space around key and value
 * trimmed, a NUL byte refused. Each setting goes to a callback; an error
 * is reported with its line number.
 */
#ifndef ATTEST_KVCONF_H
#define ATTEST_KVCONF_H

#include <stddef.h>

/* Returns ATT_OK, or an ATT_E_* with a message in err. */
typedef int (*att_kv_fn)(const char *key, const char *value, void *arg,
			 char *err, size_t errlen);

int att_kv_parse(const char *text, size_t len, att_kv_fn fn, void *arg,
		 char *err, size_t errlen);

#endif
