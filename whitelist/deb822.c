// SPDX-License-Identifier: Apache-2.0
/*
 * deb822.c - stanzas and fields of Debian control files, never copying
 * more than the caller's buffer holds.
 */
#include "deb822.h"

#include <string.h>
#include <strings.h>

#include "attest/err.h"

void deb822_init(struct deb822 *d, const char *text, size_t len)
{
	d->p = text;
	d->end = text + len;
}

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

static int blank(const char *p, const char *e)
{
	for (; p < e; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return 0;
	return 1;
}

int deb822_next(struct deb822 *d, const char **s, size_t *n)
{
	const char *p = d->p, *start;

	while (p < d->end) { /* blank lines before */
		const char *e = line_end(p, d->end);

		if (!blank(p, e))
			break;
		p = e < d->end ? e + 1 : e;
	}
	if (p >= d->end) {
		d->p = d->end;
		return 0;
	}
	start = p;
	while (p < d->end) {
		const char *e = line_end(p, d->end);

		if (blank(p, e))
			break;
		p = e < d->end ? e + 1 : e;
	}
	*s = start;
	*n = (size_t)(p - start);
	d->p = p;
	return 1;
}

/* The line holding "name:" at its start, and where its value starts. */
static const char *find(const char *s, size_t n, const char *name,
			const char **val)
{
	const char *p = s, *end = s + n;
	size_t nl = strlen(name);

	while (p < end) {
		const char *e = line_end(p, end);

		if ((size_t)(e - p) > nl && p[nl] == ':' &&
		    !strncasecmp(p, name, nl)) {
			*val = p + nl + 1;
			return e;
		}
		p = e < end ? e + 1 : e;
	}
	return NULL;
}

int deb822_field(const char *s, size_t n, const char *name, char *out,
		 size_t outlen)
{
	const char *v, *e = find(s, n, name, &v);
	size_t len;

	if (!e)
		return ATT_E_NOT_FOUND;
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	len = (size_t)(e - v);
	if (len + 1 > outlen)
		return ATT_E_TOO_BIG;
	memcpy(out, v, len);
	out[len] = '\0';
	return ATT_OK;
}

int deb822_field_body(const char *s, size_t n, const char *name,
		      const char **body, size_t *blen)
{
	const char *v, *e = find(s, n, name, &v), *p, *end = s + n;

	if (!e)
		return ATT_E_NOT_FOUND;
	p = e < end ? e + 1 : e;
	*body = p;
	while (p < end && (*p == ' ' || *p == '\t')) {
		const char *le = line_end(p, end);

		p = le < end ? le + 1 : le;
	}
	*blen = (size_t)(p - *body);
	return ATT_OK;
}
