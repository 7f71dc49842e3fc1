// SPDX-License-Identifier: Apache-2.0
/*
 * imabuild.c - test-side construction of IMA list records.
 */
#include "imabuild.h"
#include "attest/codec.h"

#include <string.h>

#include <openssl/evp.h>

void ib_field(struct att_buf *td, const void *p, size_t n)
{
	att_buf_append_u32le(td, (uint32_t)n);
	att_buf_append(td, p, n);
}

void ib_dng(struct att_buf *td, const char *alg, const uint8_t *d, size_t n)
{
	size_t al = strlen(alg);

	att_buf_append_u32le(td, (uint32_t)(al + 2 + n));
	att_buf_append(td, alg, al);
	att_buf_append(td, ":", 2);
	att_buf_append(td, d, n);
}

void ib_nng(struct att_buf *td, const char *path)
{
	ib_field(td, path, strlen(path) + 1);
}

void ib_hash(const char *alg, const void *p, size_t n, uint8_t *out)
{
	unsigned int len;

	EVP_Digest(p, n, out, &len, EVP_get_digestbyname(alg), NULL);
}

void ib_sha256_hex(const char *content, char hex[65])
{
	uint8_t d[32];

	ib_hash("sha256", content, strlen(content), d);
	att_hex_encode(d, sizeof(d), hex);
}

size_t ib_hash_len(const char *alg)
{
	return (size_t)EVP_MD_get_size(EVP_get_digestbyname(alg));
}

void ib_extend(const char *alg, uint8_t *pcr, const uint8_t *d)
{
	size_t n = ib_hash_len(alg);
	uint8_t t[128];

	memcpy(t, pcr, n);
	memcpy(t + n, d, n);
	ib_hash(alg, t, 2 * n, pcr);
}

void ib_record(struct att_buf *out, uint32_t pcr, const char *tdalg,
	       const char *tname, const struct att_buf *td, int zero_digest)
{
	uint8_t d[64] = {0};
	size_t n = ib_hash_len(tdalg);

	if (!zero_digest)
		ib_hash(tdalg, td->data, td->len, d);
	att_buf_append_u32le(out, pcr);
	att_buf_append(out, d, n);
	att_buf_append_u32le(out, (uint32_t)strlen(tname));
	att_buf_append(out, tname, strlen(tname));
	att_buf_append_u32le(out, (uint32_t)td->len);
	att_buf_append(out, td->data, td->len);
}

void ib_legacy(struct att_buf *out, uint32_t pcr, const uint8_t *d20,
	       const char *name)
{
	uint8_t in[20 + 256] = {0}, t[20];
	size_t nl = strlen(name);

	memcpy(in, d20, 20);
	memcpy(in + 20, name, nl);
	ib_hash("sha1", in, sizeof(in), t);
	att_buf_append_u32le(out, pcr);
	att_buf_append(out, t, 20);
	att_buf_append_u32le(out, 3);
	att_buf_append(out, "ima", 3);
	att_buf_append(out, d20, 20);
	att_buf_append_u32le(out, (uint32_t)nl);
	att_buf_append(out, name, nl);
}

void ib_ima_ng(struct att_buf *out, const char *path, const char *content)
{
	struct att_buf td;
	uint8_t d[32];

	att_buf_init(&td, 0);
	ib_hash("sha256", content, strlen(content), d);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, path);
	ib_record(out, 10, "sha1", "ima-ng", &td, 0);
	att_buf_release(&td);
}
