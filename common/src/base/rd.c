// SPDX-License-Identifier: Apache-2.0
/*
 * rd.c - bounded reader over untrusted bytes.
 */
#include "attest/rd.h"

#include <string.h>

#include "attest/err.h"

void att_rd_init(struct att_rd *r, const void *p, size_t len)
{
	r->p = p;
	r->len = p ? len : 0;
	r->off = 0;
}

static int rd_need(const struct att_rd *r, size_t n)
{
	return n > att_rd_left(r) ? ATT_E_TRUNCATED : ATT_OK;
}

int att_rd_bytes(struct att_rd *r, size_t n, const uint8_t **out)
{
	int rc = rd_need(r, n);

	if (rc)
		return rc;
	*out = r->p + r->off;
	r->off += n;
	return ATT_OK;
}

int att_rd_copy(struct att_rd *r, void *dst, size_t n)
{
	const uint8_t *p;
	int rc = att_rd_bytes(r, n, &p);

	if (rc)
		return rc;
	if (n)
		memcpy(dst, p, n);
	return ATT_OK;
}

int att_rd_skip(struct att_rd *r, size_t n)
{
	const uint8_t *p;

	return att_rd_bytes(r, n, &p);
}

int att_rd_u8(struct att_rd *r, uint8_t *v)
{
	return att_rd_copy(r, v, 1);
}

int att_rd_u16le(struct att_rd *r, uint16_t *v)
{
	const uint8_t *p;
	int rc = att_rd_bytes(r, 2, &p);

	if (!rc)
		*v = (uint16_t)(p[0] | (p[1] << 8));
	return rc;
}

int att_rd_u16be(struct att_rd *r, uint16_t *v)
{
	const uint8_t *p;
	int rc = att_rd_bytes(r, 2, &p);

	if (!rc)
		*v = (uint16_t)((p[0] << 8) | p[1]);
	return rc;
}

int att_rd_u32le(struct att_rd *r, uint32_t *v)
{
	const uint8_t *p;
	int rc = att_rd_bytes(r, 4, &p);

	if (!rc)
		*v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
		     ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
	return rc;
}

int att_rd_u32be(struct att_rd *r, uint32_t *v)
{
	const uint8_t *p;
	int rc = att_rd_bytes(r, 4, &p);

	if (!rc)
		*v = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
		     ((uint32_t)p[2] << 8) | (uint32_t)p[3];
	return rc;
}

int att_rd_u64le(struct att_rd *r, uint64_t *v)
{
	const uint8_t *p;
	int rc = att_rd_bytes(r, 8, &p);
	int i;

	if (rc)
		return rc;
	*v = 0;
	for (i = 7; i >= 0; i--)
		*v = (*v << 8) | p[i];
	return ATT_OK;
}

int att_rd_u64be(struct att_rd *r, uint64_t *v)
{
	const uint8_t *p;
	int rc = att_rd_bytes(r, 8, &p);
	int i;

	if (rc)
		return rc;
	*v = 0;
	for (i = 0; i < 8; i++)
		*v = (*v << 8) | p[i];
	return ATT_OK;
}

int att_rd_lv32le(struct att_rd *r, uint32_t max, const uint8_t **out,
		  uint32_t *len)
{
	size_t save = r->off;
	uint32_t n;
	int rc;

	rc = att_rd_u32le(r, &n);
	if (rc)
		return rc;
	if (n > max) {
		r->off = save;
		return ATT_E_TOO_BIG;
	}
	rc = att_rd_bytes(r, n, out);
	if (rc) {
		r->off = save;
		return rc;
	}
	*len = n;
	return ATT_OK;
}

int att_rd_end(const struct att_rd *r)
{
	return att_rd_left(r) ? ATT_E_TRAILING : ATT_OK;
}
