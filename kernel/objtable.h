/* SPDX-License-Identifier: GPL-2.0 */
/*
 * a hash table of per-object state for a module without security blobs:
 * entries keyed by the address of their object, found under RCU, added
 * and removed under the table's lock, freed after a grace period. Each
 * entry type starts with a struct slim_key.
 */
#ifndef SLIM_OBJTABLE_H
#define SLIM_OBJTABLE_H

#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/rculist.h>
#include <linux/spinlock.h>

struct slim_key {
	struct hlist_node node;
	struct rcu_head rcu;
	const void *obj;
};

struct slim_table {
	struct hlist_head *ht;
	unsigned int bits;
	spinlock_t lock;
	atomic_long_t *live;	/* number of entries */
};

#define SLIM_TABLE_INIT(name, table, nbits, counter) {			\
	.ht = (table), .bits = (nbits),					\
	.lock = __SPIN_LOCK_UNLOCKED(name.lock), .live = (counter),	\
}

static inline struct hlist_head *slim_bucket(struct slim_table *t,
					     const void *obj)
{
	return &t->ht[hash_min((unsigned long)obj, t->bits)];
}

/* caller holds rcu_read_lock() or t->lock */
static inline struct slim_key *slim_table_find(struct slim_table *t,
					       const void *obj)
{
	struct slim_key *k;

	hlist_for_each_entry_rcu(k, slim_bucket(t, obj), node,
				 lockdep_is_held(&t->lock))
		if (k->obj == obj)
			return k;
	return NULL;
}

bool slim_table_find_unlocked(struct slim_table *t, const void *obj);
void slim_table_add(struct slim_table *t, struct slim_key *n);
void slim_table_forget(struct slim_table *t, const void *obj);
void slim_table_drop(struct slim_table *t);

#endif /* SLIM_OBJTABLE_H */
