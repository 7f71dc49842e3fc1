/* SPDX-License-Identifier: GPL-2.0 */
/*
 * the rules of the hooks of lattice_confine.c, lattice_data.c and
 * lattice_dir.c: each file registers them through its own list (at its
 * end); lsm_check.c lists the same functions as LSM hooks
 */
#ifndef SLIM_LATTICE_RULES_H
#define SLIM_LATTICE_RULES_H

#include <linux/key.h>
#include <linux/types.h>

struct cred;
struct dentry;
struct file;
struct inode;
struct kern_ipc_perm;
struct path;
struct qstr;
struct sembuf;
struct socket;
struct vfsmount;

/* lattice_confine.c */
int slim_confine_bpf(int cmd);
int slim_confine_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int slim_confine_load_data(int id, bool contents);
int slim_confine_read_file(struct file *file, int id, bool contents);
int slim_confine_locked_down(int what);
int slim_confine_move_mount(const struct path *from_path,
			    const struct path *to_path);
int slim_confine_sb_mount(const char *dev_name, const struct path *path,
			  const char *type, unsigned long flags);
int slim_confine_pivotroot(const struct path *old_path,
			   const struct path *new_path);
int slim_confine_sb_umount(struct vfsmount *mnt, int flags);
/* lattice_data.c */
int slim_data_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int slim_data_getxattr(struct dentry *dentry, const char *name);
int slim_data_anon_inode(struct inode *inode, const struct qstr *name,
			 const struct inode *context);
int slim_data_key_alloc(struct key *key, const struct cred *cred,
			unsigned long flags);
void slim_data_key_free(struct key *key);
int slim_data_key_permission(key_ref_t key_ref, const struct cred *cred,
			     enum key_need_perm need);
int slim_data_sem_alloc(struct kern_ipc_perm *perm);
void slim_data_sem_free(struct kern_ipc_perm *perm);
int slim_data_semctl(struct kern_ipc_perm *perm, int cmd);
int slim_data_semop(struct kern_ipc_perm *perm, struct sembuf *sops,
		    unsigned int nsops, int alter);
int slim_data_getsockopt(struct socket *sock, int level, int optname);
/* lattice_dir.c */
int slim_dir_create(struct inode *dir, struct dentry *dentry);
int slim_dir_link(struct dentry *old_dentry, struct inode *dir,
		  struct dentry *new_dentry);
int slim_dir_write(struct inode *dir, struct dentry *dentry);

#endif /* SLIM_LATTICE_RULES_H */
