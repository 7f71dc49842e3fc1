// SPDX-License-Identifier: GPL-2.0
/*
 * the per-object state table (objtable.h): adding, forgetting, emptying.
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "objtable.h"

/* a look without holding anything (the answer may be stale at once) */
bool slim_table_find_unlocked(struct slim_table *t, const void *obj)
{
	bool found;

	rcu_read_lock();
	found = slim_table_find(t, obj);
	rcu_read_unlock();
	return found;
}

/* caller holds t->lock and found no entry for n->obj */
void slim_table_add(struct slim_table *t, struct slim_key *n)
{
	lockdep_assert_held(&t->lock);
	hlist_add_head_rcu(&n->node, slim_bucket(t, n->obj));
	atomic_long_inc(t->live);
}

/*
 * The object is being freed. Every task exit and every inode freed in the
 * system comes here and most have no entry: look before locking (nothing
 * adds an entry for an object that is being freed).
 */
void slim_table_forget(struct slim_table *t, const void *obj)
{
	struct slim_key *k;
	unsigned long flags;

	rcu_read_lock();
	k = slim_table_find(t, obj);
	rcu_read_unlock();
	if (!k)
		return;
	spin_lock_irqsave(&t->lock, flags);
	k = slim_table_find(t, obj);
	if (k) {
		hlist_del_rcu(&k->node);
		atomic_long_dec(t->live);
	}
	spin_unlock_irqrestore(&t->lock, flags);
	if (k)
		kfree_rcu(k, rcu);
}

/* empties the table (after the hooks are detached) */
void slim_table_drop(struct slim_table *t)
{
	struct hlist_node *tmp;
	struct slim_key *k;
	unsigned long flags;
	HLIST_HEAD(dead);
	unsigned int b;

	might_sleep();
	spin_lock_irqsave(&t->lock, flags);
	for (b = 0; b < (1u << t->bits); b++) {
		hlist_for_each_entry_safe(k, tmp, &t->ht[b], node) {
			hlist_del_rcu(&k->node);
			hlist_add_head(&k->node, &dead);
		}
	}
	atomic_long_set(t->live, 0);
	spin_unlock_irqrestore(&t->lock, flags);
	synchronize_rcu();
	hlist_for_each_entry_safe(k, tmp, &dead, node)
		kfree(k);
}
