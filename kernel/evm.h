/* SPDX-License-Identifier: GPL-2.0 */
/*
 * the labels' HMAC (evm.c).
 */
#ifndef SLIM_EVM_H
#define SLIM_EVM_H

#include <linux/types.h>
#include <crypto/sha2.h>
#include "slim_wire.h"

struct dentry;
struct inode;


enum slim_evm_status {
	SLIM_EVM_NOKEY, SLIM_EVM_OK, SLIM_EVM_MISSING, SLIM_EVM_FAIL,
};

/* evm.c: HMAC of the protected xattrs and metadata */
int slim_evm_init(void);
void slim_evm_exit(void);
bool slim_evm_has_key(void);
bool slim_evm_demote(void);
int slim_evm_load_key(const char *desc);
int slim_evm_calc(struct dentry *dentry, struct inode *inode,
		  u8 out[SHA256_DIGEST_SIZE]);
enum slim_evm_status slim_evm_verify(struct dentry *dentry,
				     struct inode *inode);
int slim_evm_write(struct dentry *dentry, struct inode *inode, void *idmap);

#endif /* SLIM_EVM_H */
