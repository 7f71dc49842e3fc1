// SPDX-License-Identifier: Apache-2.0
/*
 * evbuild.c - a crypto-agile event log, written field by field after the
 * TCG PC Client Platform Firmware Profile (little-endian).
 */
#include "evbuild.h"

#include <string.h>

#include "imabuild.h"

#define ALG_SHA1   0x0004
#define ALG_SHA256 0x000b

static void put(struct att_buf *b, const void *p, size_t n)
{
	if (att_buf_append(b, p, n))
		__builtin_trap(); /* a test fixture: out of memory is fatal */
}

static void u32le(struct att_buf *b, uint32_t v)
{
	if (att_buf_append_u32le(b, v))
		__builtin_trap();
}

static void u16le(struct att_buf *b, uint16_t v)
{
	uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};

	put(b, p, 2);
}

void evb_header(struct att_buf *log)
{
	static const char sig[16] = "Spec ID Event03";
	static const uint8_t zero[20];
	struct att_buf ev;
	uint8_t v;

	att_buf_init(&ev, 0);
	put(&ev, sig, sizeof(sig));
	u32le(&ev, 0); /* platformClass: client */
	v = 0;
	put(&ev, &v, 1); /* specVersionMinor */
	v = 2;
	put(&ev, &v, 1); /* specVersionMajor */
	v = 0;
	put(&ev, &v, 1); /* specErrata */
	v = 2;
	put(&ev, &v, 1); /* uintnSize: 64-bit UINTN */
	u32le(&ev, 2);	 /* numberOfAlgorithms */
	u16le(&ev, ALG_SHA1);
	u16le(&ev, 20);
	u16le(&ev, ALG_SHA256);
	u16le(&ev, 32);
	v = 0;
	put(&ev, &v, 1); /* vendorInfoSize */

	u32le(log, 0);		     /* pcrIndex */
	u32le(log, 0x3);	     /* EV_NO_ACTION */
	put(log, zero, sizeof(zero)); /* SHA-1 digest field, zero */
	u32le(log, (uint32_t)ev.len);
	put(log, ev.data, ev.len);
	att_buf_release(&ev);
}

void evb_event(struct att_buf *log, uint32_t pcr, uint32_t type,
	       const void *data, size_t n, uint8_t sha1[20],
	       uint8_t sha256[32])
{
	uint8_t d1[20], d256[32];

	ib_hash("sha1", data, n, d1);
	ib_hash("sha256", data, n, d256);
	u32le(log, pcr);
	u32le(log, type);
	u32le(log, 2); /* digest count */
	u16le(log, ALG_SHA1);
	put(log, d1, sizeof(d1));
	u16le(log, ALG_SHA256);
	put(log, d256, sizeof(d256));
	u32le(log, (uint32_t)n);
	put(log, data, n);
	if (sha1)
		memcpy(sha1, d1, sizeof(d1));
	if (sha256)
		memcpy(sha256, d256, sizeof(d256));
}
