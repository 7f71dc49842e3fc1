// SPDX-License-Identifier: GPL-2.0
/*
 * the IMA-compatible measurement list and the TPM PCR it is
 * extended into.
 *
 * Every entry uses the ima-ng template: template data is
 *   u32 len(d-ng) || "sha256:" '\0' || digest[32] || u32 len(n-ng) || name '\0'
 * (lengths in native byte order, as IMA writes them); the lattice's event
 * records use ima-buf, the same fields and u32 len || record. Each allocated PCR
 * bank b is extended with H_b(template data); violations are logged with
 * an all-zero template digest and extend every bank with 0xff bytes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/tpm.h>
#include <linux/string.h>
#include <crypto/hash.h>
#include <crypto/hash_info.h>
#include <crypto/sha2.h>
#include "slim.h"
#include "measure.h"
#include "compat.h"

LIST_HEAD(slim_entries);
atomic_long_t slim_entry_count = ATOMIC_LONG_INIT(0);
atomic_long_t slim_violation_count = ATOMIC_LONG_INIT(0);

/* template digests already in the list (IMA skips duplicates) */
#define SLIM_DEDUP_BITS 10
static DEFINE_HASHTABLE(slim_dedup, SLIM_DEDUP_BITS);
static DEFINE_MUTEX(slim_list_mutex);
static u64 slim_event_seq;	/* the next event record's number */

static struct tpm_chip *slim_chip;
static struct crypto_shash *slim_sha1_tfm;
static struct crypto_shash *slim_bank_tfm[TPM2_MAX_PCR_BANKS];
static struct tpm_digest slim_digests[TPM2_MAX_PCR_BANKS];

static u32 slim_key(const u8 *digest)
{
	u32 k;

	memcpy(&k, digest, sizeof(k));
	return k;
}

static bool slim_dedup_has(const u8 *digest)
{
	struct slim_entry *e;

	hash_for_each_possible(slim_dedup, e, hnode, slim_key(digest))
		if (!memcmp(e->digest, digest, SHA1_DIGEST_SIZE))
			return true;
	return false;
}

/* Extend every allocated bank; called with slim_list_mutex held. */
static int slim_extend(const u8 *data, u32 len, bool violation)
{
	unsigned int i;
	int rc;

	lockdep_assert_held(&slim_list_mutex);
	if (!slim_chip)
		return 0;
	for (i = 0; i < slim_chip->nr_allocated_banks; i++) {
		const struct tpm_bank_info *bank = &slim_chip->allocated_banks[i];
		struct tpm_digest *d = &slim_digests[i];

		memset(d, 0, sizeof(*d));
		d->alg_id = bank->alg_id;
		if (violation) {
			memset(d->digest, 0xff, bank->digest_size);
			continue;
		}
		/* unknown bank algorithm: SHA-1 zero-padded, as IMA does */
		rc = crypto_shash_tfm_digest(slim_bank_tfm[i] ?: slim_sha1_tfm,
					     data, len, d->digest);
		if (rc)
			return rc;
	}
	rc = tpm_pcr_extend(slim_chip, slim_pcr, slim_digests);
	if (rc)
		pr_err("TPM PCR %u extend failed: %d\n", slim_pcr, rc);
	return rc;
}

/*
 * ima-ng template data, or with @buf ima-buf: the ima-ng fields and
 * u32 buflen || buf.
 */
static struct slim_entry *slim_entry_build(const char *algo, const u8 *digest,
					   unsigned int digest_len,
					   const char *name, const u8 *buf,
					   u32 buflen)
{
	size_t alen = strlen(algo) + 1, nlen = strlen(name) + 1;
	u32 dlen = alen + digest_len;
	struct slim_entry *e;
	u32 len;
	u8 *p;

	len = sizeof(u32) + dlen + sizeof(u32) + nlen;
	if (buf)
		len += sizeof(u32) + buflen;
	e = kzalloc(sizeof(*e) + len, GFP_KERNEL);
	if (!e)
		return NULL;
	e->pcr = slim_pcr;
	e->len = len;
	e->buf_template = buf;
	p = e->data;
	memcpy(p, &dlen, sizeof(u32));
	p += sizeof(u32);
	memcpy(p, algo, alen);		/* "sha256:" and its NUL */
	p += alen;
	if (digest)
		memcpy(p, digest, digest_len);
	p += digest_len;
	len = nlen;
	memcpy(p, &len, sizeof(u32));
	p += sizeof(u32);
	memcpy(p, name, nlen);
	p += nlen;
	if (buf) {
		memcpy(p, &buflen, sizeof(u32));
		memcpy(p + sizeof(u32), buf, buflen);
	}
	return e;
}

/* Called with slim_list_mutex held; frees @e when it is not listed. */
static int slim_entry_commit(struct slim_entry *e, bool violation)
{
	int rc;

	lockdep_assert_held(&slim_list_mutex);
	if (!violation) {
		rc = crypto_shash_tfm_digest(slim_sha1_tfm, e->data, e->len,
					     e->digest);
		if (rc)
			goto out_free;
		if (slim_dedup_has(e->digest))
			goto out_free;	/* rc == 0: already measured */
	}
	rc = slim_extend(e->data, e->len, violation);
	if (rc)
		pr_err("entry kept in the list although the TPM failed\n");
	/* the entry is listed even if the TPM failed: the verifier sees it */
	if (!violation)
		hash_add(slim_dedup, &e->hnode, slim_key(e->digest));
	else
		atomic_long_inc(&slim_violation_count);
	list_add_tail_rcu(&e->list, &slim_entries);
	atomic_long_inc(&slim_entry_count);
	return 0;
out_free:
	kfree(e);
	return rc;
}

static int slim_entry_add(struct slim_entry *e, bool violation)
{
	int rc;

	mutex_lock(&slim_list_mutex);
	rc = slim_entry_commit(e, violation);
	mutex_unlock(&slim_list_mutex);
	return rc;
}

int slim_list_add_file(const u8 *sha256, const char *name)
{
	struct slim_entry *e;

	e = slim_entry_build("sha256:", sha256, SHA256_DIGEST_SIZE, name, NULL,
			     0);
	if (!e)
		return -ENOMEM;
	return slim_entry_add(e, false);
}

int slim_list_add_violation(const char *name)
{
	struct slim_entry *e;

	e = slim_entry_build("sha256:", NULL, SHA256_DIGEST_SIZE, name, NULL,
			     0);
	if (!e)
		return -ENOMEM;
	return slim_entry_add(e, true);
}

/*
 * An event record (events.c) as an ima-buf entry named "slim_event". Its
 * seq (bytes 8..15 of the record, little-endian) is set here, under the
 * list mutex, so that records are numbered in list order; the d-ng digest
 * is the record's SHA-256.
 */
int slim_list_add_event(u8 *buf, u32 len)
{
	const u32 dng = sizeof(u32) + sizeof("sha256:");
	struct slim_entry *e;
	u8 *rec;
	int rc;

	e = slim_entry_build("sha256:", NULL, SHA256_DIGEST_SIZE,
			     SLIM_EVENT_NAME, buf, len);
	if (!e)
		return -ENOMEM;
	rec = e->data + e->len - len;
	mutex_lock(&slim_list_mutex);
	put_unaligned_le64(slim_event_seq, rec + 8);
	sha256(rec, len, e->data + dng);
	rc = slim_entry_commit(e, false);
	if (!rc)
		slim_event_seq++;
	mutex_unlock(&slim_list_mutex);
	return rc;
}

/* The bank the boot_aggregate and the gap record use: sha256, else sha1. */
static int slim_main_bank(void)
{
	unsigned int i;
	int sha1 = -1;

	if (!slim_chip)
		return -1;
	for (i = 0; i < slim_chip->nr_allocated_banks; i++) {
		if (slim_chip->allocated_banks[i].alg_id == TPM_ALG_SHA256)
			return i;
		if (slim_chip->allocated_banks[i].alg_id == TPM_ALG_SHA1)
			sha1 = i;
	}
	return sha1;
}

/*
 * boot_aggregate as IMA computes it: H(PCR0 || ... || PCR7), plus PCR8 and
 * PCR9 for a non-SHA-1 bank, in the chosen bank; zeros without a TPM.
 */
static int slim_add_boot_aggregate(void)
{
	const struct tpm_bank_info *bank;
	struct slim_entry *e;
	struct tpm_digest d;
	u8 agg[SHA256_DIGEST_SIZE] = { 0 };
	const char *algo = "sha256:";
	unsigned int dsize = SHA256_DIGEST_SIZE;
	int b = slim_main_bank();
	int i, n, rc;

	if (b >= 0) {
		struct crypto_shash *tfm;

		bank = &slim_chip->allocated_banks[b];
		tfm = slim_bank_tfm[b];
		if (bank->alg_id == TPM_ALG_SHA1) {
			algo = "sha1:";
			dsize = SHA1_DIGEST_SIZE;
		}
		n = bank->alg_id == TPM_ALG_SHA1 ? 8 : 10;
		{
			SHASH_DESC_ON_STACK(desc, tfm);

			desc->tfm = tfm;
			rc = crypto_shash_init(desc);
			for (i = 0; !rc && i < n; i++) {
				memset(&d, 0, sizeof(d));
				d.alg_id = bank->alg_id;
				rc = tpm_pcr_read(slim_chip, i, &d);
				if (!rc)
					rc = crypto_shash_update(desc, d.digest,
								 bank->digest_size);
			}
			if (!rc)
				rc = crypto_shash_final(desc, agg);
		}
		if (rc) {
			pr_err("boot_aggregate: %d\n", rc);
			return rc;
		}
	}
	e = slim_entry_build(algo, agg, dsize, "boot_aggregate", NULL, 0);
	if (!e)
		return -ENOMEM;
	return slim_entry_add(e, false);
}

/*
 * A PCR that is not zero when the list starts means something was extended
 * into it that this list does not explain (typically an earlier instance
 * of this module in the same boot). The first entry then records the value
 * of every bank so that a verifier can restart its replay there, and must
 * report the gap. Format: kernel/README.md, "The gap entry".
 */
static int slim_add_gap_if_needed(void)
{
	u8 start[TPM2_MAX_PCR_BANKS][TPM2_MAX_DIGEST_SIZE];
	static const u8 zero[TPM2_MAX_DIGEST_SIZE];
	const struct tpm_bank_info *bank;
	struct slim_entry *e;
	struct tpm_digest d;
	bool gap = false;
	char *name, *p;
	unsigned int i;
	int b, rc;

	if (!slim_chip)
		return 0;
	for (i = 0; i < slim_chip->nr_allocated_banks; i++) {
		bank = &slim_chip->allocated_banks[i];
		memset(&d, 0, sizeof(d));
		d.alg_id = bank->alg_id;
		rc = tpm_pcr_read(slim_chip, slim_pcr, &d);
		if (rc)
			return rc;
		memcpy(start[i], d.digest, bank->digest_size);
		if (memcmp(d.digest, zero, bank->digest_size))
			gap = true;
	}
	if (!gap)
		return 0;

	name = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	p = name + sprintf(name, "slim_gap");
	for (i = 0; i < slim_chip->nr_allocated_banks; i++) {
		bank = &slim_chip->allocated_banks[i];
		if (bank->crypto_id < HASH_ALGO__LAST)
			p += sprintf(p, " %s:", hash_algo_name[bank->crypto_id]);
		else
			p += sprintf(p, " tpm_alg_%04x:", bank->alg_id);
		p += sprintf(p, "%*phN", (int)bank->digest_size, start[i]);
	}
	b = slim_main_bank();
	bank = &slim_chip->allocated_banks[b];
	e = slim_entry_build(bank->alg_id == TPM_ALG_SHA1 ? "sha1:" : "sha256:",
			     start[b], bank->digest_size, name, NULL, 0);
	kfree(name);
	if (!e)
		return -ENOMEM;
	pr_warn("PCR %u is not zero: the list starts with a gap record\n",
		slim_pcr);
	return slim_entry_add(e, false);
}

int slim_list_init(void)
{
	unsigned int i;
	int rc;

	slim_sha1_tfm = crypto_alloc_shash("sha1", 0, 0);
	if (IS_ERR(slim_sha1_tfm)) {
		rc = PTR_ERR(slim_sha1_tfm);
		slim_sha1_tfm = NULL;
		return rc;
	}
	slim_chip = tpm_default_chip();
	if (!slim_chip) {
		pr_warn("no TPM: the list is kept but no PCR is extended\n");
	} else {
		for (i = 0; i < slim_chip->nr_allocated_banks; i++) {
			u16 id = slim_chip->allocated_banks[i].crypto_id;
			struct crypto_shash *tfm;

			if (id >= HASH_ALGO__LAST)
				continue;
			tfm = crypto_alloc_shash(hash_algo_name[id], 0, 0);
			if (IS_ERR(tfm))
				continue;
			slim_bank_tfm[i] = tfm;
		}
		if (slim_main_bank() < 0 ||
		    !slim_bank_tfm[slim_main_bank()]) {
			pr_err("the TPM has neither a SHA-256 nor a SHA-1 bank\n");
			rc = -ENODEV;
			goto err;
		}
	}
	rc = slim_add_gap_if_needed();
	if (rc)
		goto err;
	rc = slim_add_boot_aggregate();
	if (rc)
		goto err;
	return 0;
err:
	slim_list_exit();
	return rc;
}

void slim_list_exit(void)
{
	struct slim_entry *e, *tmp;
	unsigned int i;

	list_for_each_entry_safe(e, tmp, &slim_entries, list) {
		list_del(&e->list);
		kfree(e);
	}
	hash_init(slim_dedup);
	slim_event_seq = 0;
	atomic_long_set(&slim_entry_count, 0);
	atomic_long_set(&slim_violation_count, 0);
	for (i = 0; i < TPM2_MAX_PCR_BANKS; i++) {
		crypto_free_shash(slim_bank_tfm[i]);
		slim_bank_tfm[i] = NULL;
	}
	crypto_free_shash(slim_sha1_tfm);
	slim_sha1_tfm = NULL;
	if (slim_chip)
		put_device(&slim_chip->dev);
	slim_chip = NULL;
}
