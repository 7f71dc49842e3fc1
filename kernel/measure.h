/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measurement: the hooks (measure_hooks.c), the sleepable worker
 * (measure.c), the policy (policy.c), the list (list.c) and its
 * securityfs files (fs.c).
 */
#ifndef SLIM_MEASURE_H
#define SLIM_MEASURE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/atomic.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>
#include "slim_wire.h"

struct linux_binprm;
struct file;
struct inode;
struct cred;
struct dentry;
struct seq_file;

/* IMA hook identifiers used by the policy (values are ours). */
enum slim_func {
	SLIM_FUNC_NONE = 0,
	SLIM_BPRM_CHECK,
	SLIM_MMAP_CHECK,
	SLIM_FILE_CHECK,
	SLIM_FUNC_MAX,
};

/* What the atomic-context hook asks the sleepable worker to do. */
#define SLIM_DO_MEASURE		0x01
#define SLIM_DO_OPEN_WRITERS	0x02
#define SLIM_DO_TOMTOU		0x04

/* measure_hooks.c: measurement's hook functions, LSM hook signatures */
int slim_bprm_check_security(struct linux_binprm *bprm);
int slim_mmap_file(struct file *file, unsigned long reqprot,
		   unsigned long prot, unsigned long flags);
int slim_file_open(struct file *file);

/* measure.c */
int slim_measure_init(void);
void slim_measure_wait(void);
void slim_measure_exit(void);
int slim_queue(struct file *file, enum slim_func func, int mask,
	       unsigned int todo);
bool slim_guard_active(void);
bool slim_cache_must_measure(struct inode *inode);
void slim_cache_mark_dirty(struct inode *inode);

/* policy.c */
int slim_policy_init(void);
void slim_policy_exit(void);
bool slim_policy_match(struct inode *inode, const struct cred *cred,
		       enum slim_func func, int mask);
int slim_policy_parse(const char *text, size_t len, void **out);
void slim_policy_replace(void *newp);
void slim_policy_free(void *p);
void slim_policy_show(struct seq_file *m);
const char *slim_policy_default_text(size_t *len);

/* list.c */
#define SLIM_TEMPLATE_NAME "ima-ng"
#define SLIM_DNG_LEN (sizeof("sha256:") + SHA256_DIGEST_SIZE)
int slim_list_init(void);
void slim_list_exit(void);
int slim_list_add_file(const u8 *sha256, const char *name);
int slim_list_add_violation(const char *name);
int slim_list_add_event(u8 *buf, u32 len);
struct slim_entry {
	struct list_head list;
	struct hlist_node hnode;
	bool buf_template;	/* ima-buf (an event record), else ima-ng */
	u32 pcr;
	u8 digest[SHA1_DIGEST_SIZE];
	u32 len;
	u8 data[];
};
extern struct list_head slim_entries;
extern atomic_long_t slim_entry_count;
extern atomic_long_t slim_violation_count;

/* fs.c */
int slim_fs_init(void);
struct dentry *slim_fs_dir(void);
void slim_securityfs_remove(struct dentry *d);
void slim_fs_exit(void);

#endif /* SLIM_MEASURE_H */
