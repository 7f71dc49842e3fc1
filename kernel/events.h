/* SPDX-License-Identifier: GPL-2.0 */
/*
 * the lattice's event records in the list (events.c).
 */
#ifndef SLIM_EVENTS_H
#define SLIM_EVENTS_H

#include "lattice.h"

/* events.c: the lattice's event records in the list */
int slim_events_init(bool lock);
void slim_events_exit(void);
void slim_event_demotion(struct task_struct *task, enum slim_cause cause,
			 const struct path *path, const struct slim_level *t,
			 unsigned int integ, unsigned int secr, gfp_t gfp);
void slim_event_missed(void);
void slim_event_relabel(const struct path *path, const char *old,
			const char *new);
void slim_event_mode(int old, int mode);
void slim_event_policy(const char *text, size_t len, bool written);
void slim_event_policy_digest(u8 out[SHA256_DIGEST_SIZE]);
void slim_event_evm_key(void);
void slim_event_refused(const char *action, const struct path *path,
			const struct dentry *dentry,
			const struct slim_level *t);

#endif /* SLIM_EVENTS_H */
