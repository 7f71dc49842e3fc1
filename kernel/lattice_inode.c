// SPDX-License-Identifier: GPL-2.0
/*
 * the labels of inodes: read from security.slim (and checked against its
 * HMAC, evm.c) in the sleepable open hook, cached in an object table
 * (objtable.h) for the atomic hooks. An inode without an entry has the
 * default label; the entry goes when the inode is freed (inode_free).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/hashtable.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/xattr.h>
#include <linux/dcache.h>
#include <linux/magic.h>
#include "lattice.h"
#include "evm.h"
#include "objtable.h"

/* ---- per-inode labels ----------------------------------------------------- */

struct slim_inode {
	struct slim_key key;	/* first: the allocation */
	struct slim_level lv;
	u8 source;		/* enum slim_label_source */
	bool stale;		/* security.slim changed: read it again */
	unsigned int epoch;	/* slim_label_epoch when it was read */
};

/* bumped when the EVM key arrives: every cached label is checked again */
static atomic_t slim_label_epoch = ATOMIC_INIT(0);

void slim_inode_stale_all(void)
{
	atomic_inc(&slim_label_epoch);
}

#define SLIM_INODE_BITS 12
static DEFINE_HASHTABLE(slim_inode_ht, SLIM_INODE_BITS);
static struct slim_table slim_inodes =
	SLIM_TABLE_INIT(slim_inodes, slim_inode_ht, SLIM_INODE_BITS,
			&slim_counters[SLIM_C_INODES]);

static struct slim_inode *slim_inode_find(const struct inode *inode)
{
	struct slim_key *k = slim_table_find(&slim_inodes, inode);

	return k ? container_of(k, struct slim_inode, key) : NULL;
}

/* Atomic context: the cached label, else the default label. */
enum slim_label_source slim_inode_level(const struct inode *inode,
					struct slim_level *out)
{
	enum slim_label_source src = SLIM_SRC_DEFAULT;
	struct slim_inode *e;

	*out = slim_default_level;
	rcu_read_lock();
	e = slim_inode_find(inode);
	if (e) {
		*out = e->lv;
		src = e->source;
	}
	rcu_read_unlock();
	return src;
}

/*
 * Atomic context, for a change of the file (metadata, unlink, rename): the
 * cached label; a label not seen since the module loaded may be in an
 * xattr that cannot be read here, so it counts as SYSTEM integrity.
 */
bool slim_inode_level_strict(const struct inode *inode, struct slim_level *out)
{
	struct slim_inode *e;

	*out = slim_default_level;
	rcu_read_lock();
	e = slim_inode_find(inode);
	if (e)
		*out = e->lv;
	else
		out->integ = SLIM_I_SYSTEM;
	rcu_read_unlock();
	return e;
}

void slim_inode_set(const struct inode *inode, const struct slim_level *l,
		    enum slim_label_source src, gfp_t gfp)
{
	struct slim_inode *e, *n;
	unsigned long flags;

	n = kmalloc(sizeof(*n), gfp);
	spin_lock_irqsave(&slim_inodes.lock, flags);
	e = slim_inode_find(inode);
	if (e) {
		/* readers see either the old or the new label */
		e->lv = *l;
		e->source = src;
		e->epoch = atomic_read(&slim_label_epoch);
		WRITE_ONCE(e->stale, false);
	} else if (n) {
		n->key.obj = inode;
		n->lv = *l;
		n->source = src;
		n->stale = false;
		n->epoch = atomic_read(&slim_label_epoch);
		slim_table_add(&slim_inodes, &n->key);
		n = NULL;
	}
	spin_unlock_irqrestore(&slim_inodes.lock, flags);
	kfree(n);
}

/*
 * Sleepable: the label of @inode, read from security.slim unless cached.
 * A file system without xattrs keeps labels in memory only (they last as
 * long as the inode, which for ramfs and tmpfs is the file's life).
 */
enum slim_label_source slim_inode_load(struct dentry *dentry,
				       struct inode *inode,
				       struct slim_level *out)
{
	enum slim_label_source src;
	struct slim_inode *e;
	char buf[SLIM_LABEL_MAX + 1];
	ssize_t n;
	bool fresh = false;

	might_sleep();
	rcu_read_lock();
	e = slim_inode_find(inode);
	if (e && e->source == SLIM_SRC_MEMORY) {
		fresh = true;
	} else if (e && !READ_ONCE(e->stale) &&
		   e->epoch == atomic_read(&slim_label_epoch)) {
		fresh = true;
	}
	if (fresh) {
		*out = e->lv;
		src = e->source;
	}
	rcu_read_unlock();
	if (fresh)
		return src;

	n = __vfs_getxattr(dentry, inode, SLIM_XATTR, buf, SLIM_LABEL_MAX);
	if (n >= 0) {
		buf[n] = '\0';
		if (slim_label_parse(buf, n, out)) {
			/* an unreadable label is the lowest integrity */
			slim_count(SLIM_C_BAD_LABEL);
			pr_warn_ratelimited("bad label on %pd4 (ino %lu): treated as UNTRUSTED PUBLIC\n",
					    dentry, inode->i_ino);
			*out = slim_initial_level;
			out->integ = SLIM_I_UNTRUSTED;
			src = SLIM_SRC_BAD;
		} else {
			src = SLIM_SRC_XATTR;
			switch (slim_evm_verify(dentry, inode)) {
			case SLIM_EVM_MISSING:
			case SLIM_EVM_FAIL:
				pr_warn_ratelimited("%pd4 (ino %lu): label \"%.*s\" without a valid HMAC: %s\n",
						    dentry, inode->i_ino,
						    (int)strcspn(buf, "\n"), buf,
						    slim_evm_demote() ?
						    "treated as UNTRUSTED PUBLIC" :
						    "refused");
				*out = slim_initial_level;
				out->integ = SLIM_I_UNTRUSTED;
				if (!slim_evm_demote())
					src = SLIM_SRC_EVM_FAIL;
				break;
			default:
				break;
			}
		}
	} else if (n == -ENODATA || n == -EOPNOTSUPP) {
		*out = slim_default_level;
		src = SLIM_SRC_DEFAULT;
	} else {
		slim_count(SLIM_C_BAD_LABEL);
		pr_warn_ratelimited("cannot read the label of %pd4: %zd, treated as UNTRUSTED PUBLIC\n",
				    dentry, n);
		*out = slim_initial_level;
		out->integ = SLIM_I_UNTRUSTED;
		return SLIM_SRC_BAD;	/* not cached: try again next time */
	}
	slim_inode_set(inode, out, src, GFP_KERNEL);
	return src;
}

void slim_inode_stale(const struct inode *inode)
{
	struct slim_inode *e;

	rcu_read_lock();
	e = slim_inode_find(inode);
	if (e)
		WRITE_ONCE(e->stale, true);
	rcu_read_unlock();
}

void slim_inode_forget(const struct inode *inode)
{
	slim_table_forget(&slim_inodes, inode);
}

/* pseudo file systems: nothing to label there (and nothing to watch) */
static const unsigned long slim_unlabeled_magic[] = {
	PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, DEVPTS_SUPER_MAGIC,
	BINFMTFS_MAGIC, SECURITYFS_MAGIC, SELINUX_MAGIC, SMACK_MAGIC,
	CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, NSFS_MAGIC, EFIVARFS_MAGIC,
	BPF_FS_MAGIC, TRACEFS_MAGIC, PIPEFS_MAGIC, SOCKFS_MAGIC,
	ANON_INODE_FS_MAGIC, SECRETMEM_MAGIC, PSTOREFS_MAGIC,
};

bool slim_sb_labeled(const struct super_block *sb)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(slim_unlabeled_magic); i++)
		if (sb->s_magic == slim_unlabeled_magic[i])
			return false;
	return true;
}

/* after the hooks are detached: nothing adds entries any more */
void slim_inode_state_exit(void)
{
	BUILD_BUG_ON(offsetof(struct slim_inode, key) != 0);
	slim_table_drop(&slim_inodes);
}
