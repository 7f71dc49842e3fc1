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

	u32le(log, 0);		      /* pcrIndex */
	u32le(log, 0x3);	      /* EV_NO_ACTION */
	put(log, zero, sizeof(zero)); /* SHA-1 digest field, zero */
	u32le(log, (uint32_t)ev.len);
	put(log, ev.data, ev.len);
	att_buf_release(&ev);
}

static void event(struct att_buf *log, uint32_t pcr, uint32_t type,
		  const void *data, size_t n, const void *hashed, size_t hn,
		  uint8_t sha1[20], uint8_t sha256[32])
{
	uint8_t d1[20], d256[32];

	ib_hash("sha1", hashed, hn, d1);
	ib_hash("sha256", hashed, hn, d256);
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

void evb_event(struct att_buf *log, uint32_t pcr, uint32_t type,
	       const void *data, size_t n, uint8_t sha1[20], uint8_t sha256[32])
{
	event(log, pcr, type, data, n, data, n, sha1, sha256);
}

void evb_event_over(struct att_buf *log, uint32_t pcr, uint32_t type,
		    const void *data, size_t n, const void *hashed, size_t hn)
{
	event(log, pcr, type, data, n, hashed, hn, NULL, NULL);
}

static int hexv(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

void evb_guid(const char *t, uint8_t g[16])
{
	static const uint8_t order[16] = {3, 2, 1,  0,	5,  4,	7,  6,
					  8, 9, 10, 11, 12, 13, 14, 15};
	unsigned int i, k = 0;

	for (i = 0; t[i] && k < 16;) {
		if (t[i] == '-') {
			i++;
			continue;
		}
		g[order[k++]] = (uint8_t)(hexv(t[i]) << 4 | hexv(t[i + 1]));
		i += 2;
	}
}

static void u64le(struct att_buf *b, uint64_t v)
{
	u32le(b, (uint32_t)v);
	u32le(b, (uint32_t)(v >> 32));
}

void evb_var(struct att_buf *out, const char *guid, const char *name,
	     const void *data, size_t n)
{
	uint8_t g[16];
	size_t i;

	evb_guid(guid, g);
	put(out, g, 16);
	u64le(out, strlen(name));
	u64le(out, n);
	for (i = 0; name[i]; i++)
		u16le(out, (uint16_t)(uint8_t)name[i]);
	put(out, data, n);
}

void evb_siglist(struct att_buf *out, const char *type_guid,
		 const char *owner_guid, const uint8_t *const *entries,
		 size_t n, size_t size)
{
	uint8_t t[16], o[16];
	size_t i;

	evb_guid(type_guid, t);
	evb_guid(owner_guid, o);
	put(out, t, 16);
	u32le(out, (uint32_t)(28 + n * (16 + size)));
	u32le(out, 0);
	u32le(out, (uint32_t)(16 + size));
	for (i = 0; i < n; i++) {
		put(out, o, 16);
		put(out, entries[i], size);
	}
}

void evb_image(struct att_buf *out, const char *path)
{
	size_t i, plen = strlen(path);
	uint8_t end[4] = {0x7f, 0xff, 4, 0}, hdr[2] = {4, 4};

	u64le(out, 0x10000000);
	u64le(out, 4096);
	u64le(out, 0);
	u64le(out, 4 + 2 * (plen + 1) + 4);
	put(out, hdr, 2);
	u16le(out, (uint16_t)(4 + 2 * (plen + 1)));
	for (i = 0; i <= plen; i++)
		u16le(out, (uint16_t)(uint8_t)path[i]);
	put(out, end, 4);
}
