/* SPDX-License-Identifier: Apache-2.0 */
/*
 * digest.h - the hash algorithms attest knows, over OpenSSL 3 EVP.
 *
 * One table maps each algorithm to its name, size, TPM algorithm id and
 * kernel hash_algo number, so that no other file hard-codes those.
 */
#ifndef ATTEST_DIGEST_H
#define ATTEST_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define ATT_DIGEST_MAX 64

enum att_hash {
	ATT_HASH_NONE = 0,
	ATT_HASH_MD5,
	ATT_HASH_SHA1,
	ATT_HASH_SHA224,
	ATT_HASH_SHA256,
	ATT_HASH_SHA384,
	ATT_HASH_SHA512,
	ATT_HASH_SM3,
	ATT_HASH_COUNT,
};

struct att_hash_info {
	enum att_hash id;
	const char *name; /* "sha256", as IMA and Keylime write it */
	size_t size;	  /* digest bytes */
	uint16_t tpm_alg; /* TPM2_ALG_*, 0 when none */
	int kernel_algo;  /* HASH_ALGO_* in the kernel, -1 when none */
};

/* NULL for ATT_HASH_NONE or out of range. */
const struct att_hash_info *att_hash_info(enum att_hash h);
enum att_hash att_hash_by_name(const char *name, size_t len);
enum att_hash att_hash_by_tpm_alg(uint16_t alg);
enum att_hash att_hash_by_kernel_algo(int algo);
size_t att_hash_size(enum att_hash h);
const char *att_hash_name(enum att_hash h);

/*
 * A reusable hashing context. att_md_new() fetches the EVP_MD once; reuse
 * the context for many messages (init/update/final) without reallocating.
 */
struct att_md;

int att_md_new(enum att_hash h, struct att_md **out);
void att_md_free(struct att_md *md);
enum att_hash att_md_hash(const struct att_md *md);
int att_md_init(struct att_md *md);
int att_md_update(struct att_md *md, const void *p, size_t n);
int att_md_final(struct att_md *md, uint8_t *out);
/* init + update + final in one call. */
int att_md_digest(struct att_md *md, const void *p, size_t n, uint8_t *out);

/* One-shot convenience for cold paths. */
int att_digest(enum att_hash h, const void *p, size_t n, uint8_t *out);

#endif
