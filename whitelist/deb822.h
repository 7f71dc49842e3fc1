/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deb822.h - Debian control-file stanzas (Packages, Release, dpkg status)
 * read in place from a buffer: stanzas split by blank lines, fields by
 * "Name:" at the start of a line, continuation lines starting with a space
 * or a tab.
 */
#ifndef ATTEST_WL_DEB822_H
#define ATTEST_WL_DEB822_H

#include <stddef.h>

struct deb822 {
	const char *p, *end;
};

void deb822_init(struct deb822 *d, const char *text, size_t len);
/* The next stanza in [*s, *s + *n); 0 at the end. */
int deb822_next(struct deb822 *d, const char **s, size_t *n);
/*
 * A field's value (its first line, blanks trimmed; field names compared
 * without case) copied into out. ATT_E_NOT_FOUND, ATT_E_TOO_BIG.
 */
int deb822_field(const char *s, size_t n, const char *name, char *out,
		 size_t outlen);
/* The continuation lines of a multi-line field (Release's SHA256). */
int deb822_field_body(const char *s, size_t n, const char *name,
		      const char **body, size_t *blen);

#endif
