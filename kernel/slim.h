/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal interfaces of the slim module.
 */
#ifndef SLIM_H
#define SLIM_H

#include <linux/types.h>
#include <linux/fs.h>
#include <linux/cred.h>
#include <linux/binfmts.h>
#include <linux/hash_info.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>

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

/* main.c */
extern unsigned int slim_pcr;
bool slim_is_active(void);

/* hooks.c: hook functions with LSM hook signatures */
int slim_bprm_check_security(struct linux_binprm *bprm);
int slim_mmap_file(struct file *file, unsigned long reqprot,
		   unsigned long prot, unsigned long flags);
int slim_file_open(struct file *file);

/* attach_ftrace.c: how the hooks above are reached on a stock kernel */
int slim_attach(void);
void slim_detach(void);

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
struct seq_file;
void slim_policy_show(struct seq_file *m);

/* list.c */
#define SLIM_TEMPLATE_NAME "ima-ng"
#define SLIM_DNG_LEN (sizeof("sha256:") + SHA256_DIGEST_SIZE)
int slim_list_init(void);
void slim_list_exit(void);
int slim_list_add_file(const u8 *sha256, const char *name);
int slim_list_add_violation(const char *name);
struct slim_entry {
	struct list_head list;
	struct hlist_node hnode;
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
void slim_fs_exit(void);

#endif /* SLIM_H */
