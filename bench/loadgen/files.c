/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files.c - the simulated hosts' files, their ima-ng records (written the
 * way the kernel writes binary_runtime_measurements) and the whitelist
 * that allows them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "attest/pcrs.h"
#include "attest/replay.h"
#include "lg.h"

static int lg_sha(const EVP_MD *md, const void *p, size_t n, uint8_t *out)
{
	unsigned int len = 0;

	return EVP_Digest(p, n, out, &len, md, NULL) == 1 ? 0 : ATT_E_CRYPTO;
}

/* Template data: d-ng ("sha256:\0" || digest) and n-ng (path || NUL). */
static int lg_record_td(const char *path, const uint8_t *d, struct att_buf *out,
			uint8_t *t256)
{
	struct att_buf td;
	uint8_t t1[20];
	size_t pl = strlen(path) + 1;
	int rc;

	att_buf_init(&td, 0);
	rc = att_buf_append_u32le(&td, 8 + 32);
	if (!rc)
		rc = att_buf_append(&td, "sha256:", 8);
	if (!rc)
		rc = att_buf_append(&td, d, 32);
	if (!rc)
		rc = att_buf_append_u32le(&td, (uint32_t)pl);
	if (!rc)
		rc = att_buf_append(&td, path, pl);
	if (!rc)
		rc = lg_sha(EVP_sha1(), td.data, td.len, t1);
	if (!rc)
		rc = lg_sha(EVP_sha256(), td.data, td.len, t256);
	/* pcr, template digest, name, data length, data */
	if (!rc)
		rc = att_buf_append_u32le(out, 10);
	if (!rc)
		rc = att_buf_append(out, t1, sizeof(t1));
	if (!rc)
		rc = att_buf_append_u32le(out, 6);
	if (!rc)
		rc = att_buf_append(out, "ima-ng", 6);
	if (!rc)
		rc = att_buf_append_u32le(out, (uint32_t)td.len);
	if (!rc)
		rc = att_buf_append(out, td.data, td.len);
	att_buf_release(&td);
	return rc;
}

int lg_record(const char *path, const void *content, size_t clen,
	      struct att_buf *out, uint8_t *t256)
{
	uint8_t d[32];
	int rc = lg_sha(EVP_sha256(), content, clen, d);

	return rc ? rc : lg_record_td(path, d, out, t256);
}

void lg_files_free(struct lg_files *f)
{
	if (!f)
		return;
	att_buf_release(&f->rec);
	free(f->off);
	free(f->t256);
	free(f->fdig);
	free(f);
}

static int lg_files_boot(struct lg_files *f)
{
	struct att_pcrs *pcrs = calloc(1, sizeof(*pcrs));
	struct att_buf b;
	uint8_t agg[32];
	unsigned int i;
	int rc = ATT_E_NOMEM;

	if (!pcrs)
		return rc;
	att_pcrs_clear(pcrs);
	for (i = 0; i < 10; i++) {
		memset(f->pcr[i], 0, 32);
		f->pcr[i][0] = (uint8_t)(0xa0 + i);
		f->pcr[i][31] = (uint8_t)i;
		rc = att_pcrs_set(pcrs, ATT_HASH_SHA256, i, f->pcr[i], 32);
		if (rc)
			goto out;
	}
	rc = att_boot_aggregate(pcrs, ATT_HASH_SHA256, 1, agg);
	if (rc)
		goto out;
	att_buf_init(&b, 0);
	rc = lg_record_td("boot_aggregate", agg, &b, f->agg_t256);
	if (!rc && b.len > sizeof(f->agg_rec))
		rc = ATT_E_TOO_BIG;
	if (!rc) {
		memcpy(f->agg_rec, b.data, b.len);
		f->agg_len = b.len;
	}
	att_buf_release(&b);
out:
	free(pcrs);
	return rc;
}

int lg_files_new(uint32_t n, struct lg_files **out)
{
	struct lg_files *f = calloc(1, sizeof(*f));
	char path[64], content[32];
	uint32_t i;
	int rc = ATT_E_NOMEM;

	*out = NULL;
	if (!f)
		return rc;
	f->n = n;
	att_buf_init(&f->rec, 0);
	f->off = calloc((size_t)n + 1, sizeof(*f->off));
	f->t256 = malloc((size_t)n * 32);
	f->fdig = malloc((size_t)n * 32);
	if (!f->off || !f->t256 || !f->fdig)
		goto fail;
	rc = att_buf_reserve(&f->rec, (size_t)n * 110);
	for (i = 0; !rc && i < n; i++) {
		int cl = snprintf(content, sizeof(content), "bench file %u", i);

		snprintf(path, sizeof(path), "/usr/lib/bench/f%07u", i);
		f->off[i] = (uint32_t)f->rec.len;
		rc = lg_sha(EVP_sha256(), content, (size_t)cl,
			    f->fdig + (size_t)i * 32);
		if (!rc)
			rc = lg_record_td(path, f->fdig + (size_t)i * 32,
					  &f->rec, f->t256 + (size_t)i * 32);
	}
	if (rc)
		goto fail;
	f->off[n] = (uint32_t)f->rec.len;
	rc = lg_files_boot(f);
	if (rc)
		goto fail;
	*out = f;
	return 0;
fail:
	lg_files_free(f);
	return rc;
}

int lg_files_whitelist(const struct lg_files *f, const char *name,
		       struct att_buf *out)
{
	char hex[65];
	uint32_t i;
	int rc;

	rc = att_buf_printf(
		out, "{\"name\":\"%s\",\"whitelist\":{\"digests\":{", name);
	for (i = 0; !rc && i < f->n; i++) {
		att_hex_encode(f->fdig + (size_t)i * 32, 32, hex);
		rc = att_buf_printf(out, "%s\"/usr/lib/bench/f%07u\":[\"%s\"]",
				    i ? "," : "", i, hex);
	}
	if (!rc)
		rc = att_buf_append_str(out, "}}}");
	if (!rc)
		rc = att_buf_cstr(out);
	return rc;
}
