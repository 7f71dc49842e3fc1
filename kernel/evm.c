// SPDX-License-Identifier: GPL-2.0
/*
 * EVM-style protection of the labels: an HMAC-SHA256 over the protected
 * xattrs and the inode's metadata, stored in security.slim.evm as
 * 0x02 (EVM_XATTR_HMAC) || HMAC (33 bytes).
 *
 * HMAC input, in this order (docs/evm.md has the byte layout):
 *   for each of security.slim, security.ima, security.capability,
 *   security.selinux that the file has:
 *       the name with its NUL, u32 le length of the value, the value
 *   then u64 le ino, u32 le i_generation, u32 le uid, u32 le gid,
 *   u16 le mode, the 16-byte file system UUID.
 *
 * The key is a 32-byte logon key (slimctl evm-load unseals it from the
 * TPM): accepted once per boot, never readable again. Until then labels
 * are believed unverified. Afterwards a labeled file whose HMAC is missing
 * or wrong is refused (evm_action=deny) or treated as UNTRUSTED PUBLIC
 * (evm_action=demote).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <keys/user-type.h>
#include <linux/fs.h>
#include <linux/key.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xattr.h>
#include "lattice.h"
#include "evm.h"

static const char *const slim_evm_protected[] = {
	SLIM_XATTR, "security.ima", "security.capability", "security.selinux",
};

#define SLIM_EVM_VALUE_MAX 4096

static struct crypto_shash *slim_evm_tfm;
static DEFINE_MUTEX(slim_evm_key_mutex);
static bool slim_evm_keyed;

static bool slim_evm_demote_param;
module_param_named(evm_demote, slim_evm_demote_param, bool, 0444);
MODULE_PARM_DESC(evm_demote, "A file failing EVM is treated as UNTRUSTED PUBLIC instead of refused (default 0: refused)");

bool slim_evm_has_key(void)
{
	/* pairs with the release in slim_evm_load_key(): keyed tfm */
	return smp_load_acquire(&slim_evm_keyed);
}

bool slim_evm_demote(void)
{
	return slim_evm_demote_param;
}

struct slim_evm_meta {
	__le64 ino;
	__le32 generation;
	__le32 uid;
	__le32 gid;
	__le16 mode;
	u8 uuid[16];
} __packed;

/* Sleepable; caller may hold the inode lock (xattrs are read unlocked). */
int slim_evm_calc(struct dentry *dentry, struct inode *inode,
		  u8 out[SHA256_DIGEST_SIZE])
{
	struct slim_evm_meta meta;
	unsigned int i;
	__le32 len;
	char *buf;
	ssize_t n;
	int rc;

	might_sleep();
	if (!slim_evm_has_key())
		return -ENOKEY;
	buf = kmalloc(SLIM_EVM_VALUE_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	{
		SHASH_DESC_ON_STACK(desc, slim_evm_tfm);

		desc->tfm = slim_evm_tfm;
		rc = crypto_shash_init(desc);
		for (i = 0; !rc && i < ARRAY_SIZE(slim_evm_protected); i++) {
			n = __vfs_getxattr(dentry, inode, slim_evm_protected[i],
					   buf, SLIM_EVM_VALUE_MAX);
			if (n == -ENODATA || n == -EOPNOTSUPP)
				continue;
			if (n < 0) {
				rc = n == -ERANGE ? -E2BIG : n;
				break;
			}
			len = cpu_to_le32(n);
			rc = crypto_shash_update(desc, slim_evm_protected[i],
						 strlen(slim_evm_protected[i]) + 1);
			if (!rc)
				rc = crypto_shash_update(desc, (u8 *)&len,
							 sizeof(len));
			if (!rc)
				rc = crypto_shash_update(desc, buf, n);
		}
		if (!rc) {
			memset(&meta, 0, sizeof(meta));
			meta.ino = cpu_to_le64(inode->i_ino);
			meta.generation = cpu_to_le32(inode->i_generation);
			meta.uid = cpu_to_le32(from_kuid(&init_user_ns,
							 inode->i_uid));
			meta.gid = cpu_to_le32(from_kgid(&init_user_ns,
							 inode->i_gid));
			meta.mode = cpu_to_le16(inode->i_mode);
			memcpy(meta.uuid, &inode->i_sb->s_uuid,
			       sizeof(meta.uuid));
			rc = crypto_shash_update(desc, (u8 *)&meta,
						 sizeof(meta));
		}
		if (!rc)
			rc = crypto_shash_final(desc, out);
		shash_desc_zero(desc);
	}
	kfree(buf);
	return rc;
}

/* Sleepable: the state of @inode's HMAC (the file has a label). */
enum slim_evm_status slim_evm_verify(struct dentry *dentry,
				     struct inode *inode)
{
	u8 want[SHA256_DIGEST_SIZE], have[SLIM_EVM_LEN + 1];
	ssize_t n;
	int rc;

	might_sleep();
	if (!slim_evm_has_key()) {
		slim_count(SLIM_C_EVM_UNVERIFIED);
		return SLIM_EVM_NOKEY;
	}
	n = __vfs_getxattr(dentry, inode, SLIM_EVM_XATTR, have, sizeof(have));
	if (n == -ENODATA || n == -EOPNOTSUPP) {
		slim_count(SLIM_C_EVM_MISSING);
		return SLIM_EVM_MISSING;
	}
	rc = slim_evm_calc(dentry, inode, want);
	if (rc) {
		pr_warn_ratelimited("cannot compute the HMAC of %pd4: %d\n",
				    dentry, rc);
		slim_count(SLIM_C_EVM_FAILED);
		return SLIM_EVM_FAIL;
	}
	if (n != SLIM_EVM_LEN || have[0] != SLIM_EVM_TYPE ||
	    crypto_memneq(have + 1, want, sizeof(want))) {
		slim_count(SLIM_C_EVM_FAILED);
		return SLIM_EVM_FAIL;
	}
	slim_count(SLIM_C_EVM_VERIFIED);
	return SLIM_EVM_OK;
}

/* Sleepable, inode locked: writes the HMAC of the current xattrs. */
int slim_evm_write(struct dentry *dentry, struct inode *inode,
		   void *idmap)
{
	u8 val[SLIM_EVM_LEN];
	int rc;

	might_sleep();
	lockdep_assert_held(&inode->i_rwsem);
	rc = slim_evm_calc(dentry, inode, val + 1);
	if (rc)
		return rc;
	val[0] = SLIM_EVM_TYPE;
	return __vfs_setxattr(idmap, dentry, inode, SLIM_EVM_XATTR, val,
			      sizeof(val), 0);
}

/* The key: a 32-byte logon key named @desc in the writer's keyrings. */
int slim_evm_load_key(const char *desc)
{
	const struct user_key_payload *p;
	struct key *key;
	int rc;

	key = request_key(&key_type_logon, desc, NULL);
	if (IS_ERR(key)) {
		pr_warn("EVM key \"%s\": not found (%ld): labels stay unverified\n",
			desc, PTR_ERR(key));
		return PTR_ERR(key);
	}
	down_read(&key->sem);
	p = user_key_payload_locked(key);
	mutex_lock(&slim_evm_key_mutex);
	if (slim_evm_keyed) {
		rc = -EBUSY;
	} else if (!p || p->datalen != SLIM_EVM_KEY_LEN) {
		rc = -EINVAL;
	} else {
		rc = crypto_shash_setkey(slim_evm_tfm, p->data, p->datalen);
		if (!rc) {
			/* the key is in the tfm before anyone sees "keyed" */
			smp_store_release(&slim_evm_keyed, true);
		}
	}
	mutex_unlock(&slim_evm_key_mutex);
	up_read(&key->sem);
	key_put(key);
	if (rc == -EBUSY)
		pr_notice("EVM key \"%s\" refused: a key was already loaded in this boot\n",
			  desc);
	else if (rc)
		pr_warn("EVM key \"%s\" refused: %d (a %d-byte logon key is needed)\n",
			desc, rc, SLIM_EVM_KEY_LEN);
	else
		pr_notice("EVM key loaded: labels are verified from now on\n");
	return rc;
}

int slim_evm_init(void)
{
	BUILD_BUG_ON(SLIM_EVM_LEN != 1 + SHA256_DIGEST_SIZE);
	slim_evm_tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(slim_evm_tfm)) {
		int rc = PTR_ERR(slim_evm_tfm);

		slim_evm_tfm = NULL;
		pr_err("hmac(sha256) unavailable: %d\n", rc);
		return rc;
	}
	return 0;
}

void slim_evm_exit(void)
{
	crypto_free_shash(slim_evm_tfm);
	slim_evm_tfm = NULL;
	slim_evm_keyed = false;
}
