// SPDX-License-Identifier: GPL-2.0
/*
 * the lattice's event records: load, mode changes, policies, the EVM key,
 * relabels and demotions of SYSTEM tasks, written into the measurement
 * list as ima-buf entries named "slim_event" (docs/lattice-events.md has
 * the format byte by byte).
 *
 * Load, mode, policy and EVM key records are written at once by the task
 * that caused them (process context, never dropped). Relabel and demotion
 * records pass a token bucket and a cap per module instance; a demotion
 * may happen in atomic context, so these records are built on the spot
 * and queued for a worker that writes them in order. What the limit
 * refuses is counted and reported by a "dropped" record within a second.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/file.h>
#include <linux/timekeeping.h>
#include <linux/moduleparam.h>
#include <crypto/sha2.h>
#include "slim.h"
#include "measure.h"
#include "lattice.h"
#include "evm.h"
#include "events.h"
#include "compat.h"

static unsigned int slim_ev_burst = 32;
module_param_named(events_burst, slim_ev_burst, uint, 0444);
MODULE_PARM_DESC(events_burst, "Relabel and demotion records written at once before the rate limit (default 32)");

static unsigned int slim_ev_rate = 8;
module_param_named(events_rate, slim_ev_rate, uint, 0444);
MODULE_PARM_DESC(events_rate, "Relabel and demotion records per second after the burst (default 8)");

static unsigned int slim_ev_max = 4096;
module_param_named(events_max, slim_ev_max, uint, 0444);
MODULE_PARM_DESC(events_max, "Relabel and demotion records per module instance, then only counted (default 4096)");

#define SLIM_EV_QUEUE_MAX 256

struct slim_ev {
	struct list_head list;
	u32 len;
	bool overflow;
	u8 buf[SLIM_EVENT_MAX];
	char scratch[SLIM_NAME_MAX];	/* d_path() works from the end */
};

static DEFINE_SPINLOCK(slim_ev_lock);
static LIST_HEAD(slim_ev_queue);
static unsigned int slim_ev_queued;
static unsigned int slim_ev_admitted;	/* limited records, per instance */
static u64 slim_ev_dropped;		/* not yet reported */
static u64 slim_ev_tokens;		/* in 1/HZ token units */
static unsigned long slim_ev_stamp;
static bool slim_ev_capped, slim_ev_stopping;

static void slim_ev_worker(struct work_struct *w);
static void slim_ev_drop_worker(struct work_struct *w);
static DECLARE_WORK(slim_ev_work, slim_ev_worker);
static DECLARE_DELAYED_WORK(slim_ev_drop_work, slim_ev_drop_worker);

static DEFINE_MUTEX(slim_ev_policy_mutex);
static u8 slim_ev_policy_digest[SHA256_DIGEST_SIZE];

/* ---- building a record ---------------------------------------------------- */

static void slim_ev_start(struct slim_ev *ev, enum slim_ev_type type)
{
	memset(ev->buf, 0, SLIM_EV_HDR);
	memcpy(ev->buf, "SLEV", 4);
	ev->buf[4] = SLIM_EV_VERSION;
	ev->buf[5] = type;
	/* bytes 8..15: seq, set when the record enters the list */
	put_unaligned_le64(ktime_get_real_seconds(), ev->buf + 16);
	ev->len = SLIM_EV_HDR;
	ev->overflow = false;
}

static u8 *slim_ev_field(struct slim_ev *ev, enum slim_ev_tag tag, u16 len)
{
	u8 *p;

	if (ev->overflow || ev->len + 4 + len > SLIM_EVENT_MAX) {
		ev->overflow = true;
		return NULL;
	}
	p = ev->buf + ev->len;
	put_unaligned_le16(tag, p);
	put_unaligned_le16(len, p + 2);
	ev->len += 4 + len;
	return p + 4;
}

static void slim_ev_u8(struct slim_ev *ev, enum slim_ev_tag tag, u8 v)
{
	u8 *p = slim_ev_field(ev, tag, 1);

	if (p)
		*p = v;
}

static void slim_ev_u32(struct slim_ev *ev, enum slim_ev_tag tag, u32 v)
{
	u8 *p = slim_ev_field(ev, tag, 4);

	if (p)
		put_unaligned_le32(v, p);
}

static void slim_ev_u64(struct slim_ev *ev, enum slim_ev_tag tag, u64 v)
{
	u8 *p = slim_ev_field(ev, tag, 8);

	if (p)
		put_unaligned_le64(v, p);
}

static void slim_ev_bytes(struct slim_ev *ev, enum slim_ev_tag tag,
			  const void *v, u16 n)
{
	u8 *p = slim_ev_field(ev, tag, n);

	if (p)
		memcpy(p, v, n);
}

/* a string without its NUL, cut at SLIM_EV_STR_MAX bytes ending "..." */
static void slim_ev_str(struct slim_ev *ev, enum slim_ev_tag tag,
			const char *s)
{
	size_t n = strnlen(s, SLIM_EV_STR_MAX + 1);
	u8 *p;

	if (n <= SLIM_EV_STR_MAX) {
		slim_ev_bytes(ev, tag, s, n);
		return;
	}
	p = slim_ev_field(ev, tag, SLIM_EV_STR_MAX);
	if (!p)
		return;
	memcpy(p, s, SLIM_EV_STR_MAX - 3);
	memcpy(p + SLIM_EV_STR_MAX - 3, "...", 3);
}

static void slim_ev_level(struct slim_ev *ev, enum slim_ev_tag tag,
			  unsigned int integ, unsigned int secr)
{
	char label[SLIM_LABEL_MAX + 1];

	scnprintf(label, sizeof(label), "%s %s", slim_integ_name(integ),
		  slim_secr_name(secr));
	slim_ev_str(ev, tag, label);
}

/* Safe in atomic context. */
/* @task: current, or a task blocked in a system call (its mm is stable) */
static void slim_ev_task(struct slim_ev *ev, struct task_struct *task)
{
	char comm[TASK_COMM_LEN];

	slim_ev_u32(ev, SLIM_T_PID, task_tgid_nr(task));
	memcpy(comm, task->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	slim_ev_str(ev, SLIM_T_COMM, comm);
}

/* Safe in atomic context: d_path() does not sleep, fput() defers. */
static void slim_ev_exe(struct slim_ev *ev, struct task_struct *task)
{
	struct mm_struct *mm = READ_ONCE(task->mm);
	struct file *exe = mm ? slim_mm_exe_file(mm) : NULL;
	const char *name = "(none)";
	char *p;

	if (exe) {
		p = d_path(&exe->f_path, ev->scratch, sizeof(ev->scratch));
		name = IS_ERR(p) ? "(unnamed)" : p;
	}
	slim_ev_str(ev, SLIM_T_EXE, name);
	if (exe)
		fput(exe);
}

static struct slim_ev *slim_ev_new(enum slim_ev_type type, gfp_t gfp)
{
	struct slim_ev *ev = kmalloc(sizeof(*ev), gfp | __GFP_NOWARN);

	if (ev)
		slim_ev_start(ev, type);
	return ev;
}

/* ---- writing ------------------------------------------------------------- */

static void slim_ev_write(struct slim_ev *ev)
{
	int rc;

	if (ev->overflow) {
		/* cannot happen with the sizes above; never list a torn record */
		WARN_ONCE(1, "slim: event type %u larger than %d bytes\n",
			  ev->buf[5], SLIM_EVENT_MAX);
		slim_count(SLIM_C_EV_DROPPED);
		return;
	}
	rc = slim_list_add_event(ev->buf, ev->len);
	if (rc) {
		pr_err_ratelimited("event type %u not listed: %d\n",
				   ev->buf[5], rc);
		slim_count(SLIM_C_EV_DROPPED);
		return;
	}
	slim_count(SLIM_C_EV_WRITTEN);
}

/* Process context: what is queued first, then @ev; frees @ev. */
static void slim_ev_write_now(struct slim_ev *ev)
{
	flush_work(&slim_ev_work);
	slim_ev_write(ev);
	kfree(ev);
}

static void slim_ev_worker(struct work_struct *w)
{
	struct slim_ev *ev;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&slim_ev_lock, flags);
		ev = list_first_entry_or_null(&slim_ev_queue, struct slim_ev,
					      list);
		if (ev) {
			list_del(&ev->list);
			slim_ev_queued--;
		}
		spin_unlock_irqrestore(&slim_ev_lock, flags);
		if (!ev)
			return;
		slim_ev_write(ev);
		kfree(ev);
		cond_resched();
	}
}

static void slim_ev_enqueue_locked(struct slim_ev *ev)
{
	list_add_tail(&ev->list, &slim_ev_queue);
	slim_ev_queued++;
}

/* called with slim_ev_lock held */
static bool slim_ev_take_token(void)
{
	unsigned long now = jiffies;
	u64 cap = (u64)slim_ev_burst * HZ;

	lockdep_assert_held(&slim_ev_lock);
	slim_ev_tokens += (u64)(now - slim_ev_stamp) * slim_ev_rate;
	slim_ev_stamp = now;
	if (slim_ev_tokens > cap)
		slim_ev_tokens = cap;
	if (slim_ev_tokens < HZ)
		return false;
	slim_ev_tokens -= HZ;
	return true;
}

/*
 * A relabel or demotion record (NULL: it could not be allocated) passes
 * the limit and is queued, or is counted as dropped; takes @ev.
 */
static void slim_ev_submit(struct slim_ev *ev)
{
	unsigned long flags;
	bool kick = false, later = false;

	spin_lock_irqsave(&slim_ev_lock, flags);
	if (slim_ev_stopping)
		goto drop;
	if (slim_ev_capped || !ev || !slim_ev_take_token() ||
	    slim_ev_queued >= SLIM_EV_QUEUE_MAX)
		goto drop;
	if (slim_ev_admitted + 1 >= slim_ev_max) {
		/* the last record of this instance says so */
		slim_ev_capped = true;
		slim_ev_start(ev, SLIM_EV_DROPPED);
		slim_ev_u64(ev, SLIM_T_COUNT, slim_ev_dropped + 1);
		slim_ev_u8(ev, SLIM_T_FINAL, 1);
		slim_ev_dropped = 0;
		slim_count(SLIM_C_EV_DROPPED);
	}
	slim_ev_admitted++;
	slim_ev_enqueue_locked(ev);
	ev = NULL;
	kick = true;
	goto out;
drop:
	if (!slim_ev_capped && !slim_ev_stopping && !slim_ev_dropped++)
		later = true;
	slim_count(SLIM_C_EV_DROPPED);
out:
	spin_unlock_irqrestore(&slim_ev_lock, flags);
	kfree(ev);
	if (kick)
		queue_work(system_wq, &slim_ev_work);
	if (later)
		queue_delayed_work(system_wq, &slim_ev_drop_work, HZ);
}

/* the count of what was dropped since the last report, as a record */
static void slim_ev_drop_report(gfp_t gfp)
{
	struct slim_ev *ev = slim_ev_new(SLIM_EV_DROPPED, gfp);
	bool kick = false, later = false;
	unsigned long flags;

	spin_lock_irqsave(&slim_ev_lock, flags);
	if (slim_ev_dropped && !slim_ev_capped) {
		if (ev) {
			if (++slim_ev_admitted >= slim_ev_max)
				slim_ev_capped = true;
			slim_ev_u64(ev, SLIM_T_COUNT, slim_ev_dropped);
			slim_ev_u8(ev, SLIM_T_FINAL, slim_ev_capped);
			slim_ev_dropped = 0;
			slim_ev_enqueue_locked(ev);
			ev = NULL;
			kick = true;
		} else if (!slim_ev_stopping) {
			later = true;	/* try again */
		}
	}
	spin_unlock_irqrestore(&slim_ev_lock, flags);
	kfree(ev);
	if (kick)
		queue_work(system_wq, &slim_ev_work);
	if (later)
		queue_delayed_work(system_wq, &slim_ev_drop_work, HZ);
}

static void slim_ev_drop_worker(struct work_struct *w)
{
	slim_ev_drop_report(GFP_KERNEL);
}

/* ---- the events ------------------------------------------------------------ */

/*
 * @integ/@secr: @task's levels after it read from @cause (the file at
 * @path for SLIM_CAUSE_FILE); @t: before. Recorded when @t was SYSTEM.
 */
void slim_event_demotion(struct task_struct *task, enum slim_cause cause,
			 const struct path *path, const struct slim_level *t,
			 unsigned int integ, unsigned int secr, gfp_t gfp)
{
	struct slim_ev *ev;

	if (t->integ != SLIM_I_SYSTEM)
		return;
	ev = slim_ev_new(SLIM_EV_DEMOTION, gfp);
	if (ev) {
		slim_ev_task(ev, task);
		slim_ev_exe(ev, task);
		slim_ev_level(ev, SLIM_T_OLD_LABEL, t->integ, t->secr);
		slim_ev_level(ev, SLIM_T_NEW_LABEL, integ, secr);
		slim_ev_u8(ev, SLIM_T_CAUSE, cause);
		if (cause == SLIM_CAUSE_FILE && path)
			slim_ev_str(ev, SLIM_T_PATH,
				    slim_objname(path, NULL, ev->scratch,
						 sizeof(ev->scratch)));
	}
	slim_ev_submit(ev);
}

/*
 * Something the lattice should have seen was missed (a return probe had
 * no free instance): it is reported like a dropped record, because a
 * demotion may be hidden in it. Atomic context.
 */
void slim_event_missed(void)
{
	slim_ev_submit(NULL);
}

/* Sleepable. @old and @new: the labels as text. */
void slim_event_relabel(const struct path *path, const char *old,
			const char *new)
{
	struct slim_ev *ev = slim_ev_new(SLIM_EV_RELABEL, GFP_KERNEL);

	might_sleep();
	if (ev) {
		slim_ev_str(ev, SLIM_T_PATH,
			    slim_objname(path, NULL, ev->scratch,
					 sizeof(ev->scratch)));
		slim_ev_str(ev, SLIM_T_OLD_LABEL, old);
		slim_ev_str(ev, SLIM_T_NEW_LABEL, new);
		slim_ev_task(ev, current);
	}
	slim_ev_submit(ev);
}

/* Sleepable; never dropped (the writer has CAP_MAC_ADMIN). */
void slim_event_mode(int old, int mode)
{
	struct slim_ev *ev = slim_ev_new(SLIM_EV_MODE, GFP_KERNEL);

	might_sleep();
	if (!ev) {
		pr_err("mode change not listed: out of memory\n");
		slim_count(SLIM_C_EV_DROPPED);
		return;
	}
	slim_ev_u8(ev, SLIM_T_OLD_MODE, old);
	slim_ev_u8(ev, SLIM_T_MODE, mode);
	slim_ev_task(ev, current);
	slim_ev_write_now(ev);
}

/*
 * Sleepable: the policy @text replaced the old one (@written: by a write
 * to `policy`; else the default at load).
 */
void slim_event_policy(const char *text, size_t len, bool written)
{
	struct slim_ev *ev = slim_ev_new(SLIM_EV_POLICY, GFP_KERNEL);
	u8 digest[SHA256_DIGEST_SIZE];

	might_sleep();
	sha256((const u8 *)text, len, digest);
	mutex_lock(&slim_ev_policy_mutex);
	memcpy(slim_ev_policy_digest, digest, sizeof(digest));
	mutex_unlock(&slim_ev_policy_mutex);
	if (!ev) {
		pr_err("policy record not listed: out of memory\n");
		slim_count(SLIM_C_EV_DROPPED);
		return;
	}
	slim_ev_bytes(ev, SLIM_T_DIGEST, digest, sizeof(digest));
	slim_ev_u8(ev, SLIM_T_SOURCE, written ? 1 : 0);
	if (written) {
		slim_ev_task(ev, current);
	} else {
		slim_ev_u32(ev, SLIM_T_PID, 0);
		slim_ev_str(ev, SLIM_T_COMM, KBUILD_MODNAME);
	}
	slim_ev_write_now(ev);
}

void slim_event_policy_digest(u8 out[SHA256_DIGEST_SIZE])
{
	mutex_lock(&slim_ev_policy_mutex);
	memcpy(out, slim_ev_policy_digest, SHA256_DIGEST_SIZE);
	mutex_unlock(&slim_ev_policy_mutex);
}

/*
 * A task with levels @t tried @action (on the file at @path, or the name
 * @dentry in its file system when there is no mount at hand, or neither) and
 * was refused (enforce), or would have been (permissive: the record's mode
 * says which); also a refused attempt to switch the module off. Attacker
 * driven: limited like a demotion. Safe in atomic context.
 */
void slim_event_refused(const char *action, const struct path *path,
			const struct dentry *dentry,
			const struct slim_level *t)
{
	struct slim_ev *ev = slim_ev_new(SLIM_EV_REFUSED, GFP_ATOMIC);

	if (ev) {
		slim_ev_task(ev, current);
		slim_ev_exe(ev, current);
		slim_ev_level(ev, SLIM_T_LABEL, t->integ, t->secr);
		slim_ev_str(ev, SLIM_T_ACTION, action);
		slim_ev_u8(ev, SLIM_T_MODE, READ_ONCE(slim_mode));
		if (path || dentry)
			slim_ev_str(ev, SLIM_T_PATH,
				    slim_objname(path, dentry, ev->scratch,
						 sizeof(ev->scratch)));
	}
	slim_ev_submit(ev);
}

/* Sleepable: the EVM key was accepted. */
void slim_event_evm_key(void)
{
	struct slim_ev *ev = slim_ev_new(SLIM_EV_EVM_KEY, GFP_KERNEL);

	might_sleep();
	if (!ev) {
		pr_err("EVM key record not listed: out of memory\n");
		slim_count(SLIM_C_EV_DROPPED);
		return;
	}
	slim_ev_task(ev, current);
	slim_ev_write_now(ev);
}

/*
 * The load record and the default policy's record, right after
 * boot_aggregate (the list is new: its first record has seq 0).
 */
int slim_events_init(bool lock)
{
	char label[SLIM_LABEL_MAX + 1];
	struct slim_ev *ev;
	const char *text;
	size_t len;

	if (!slim_ev_max) {
		pr_err("events_max=0: at least the final record must fit\n");
		return -EINVAL;
	}
	spin_lock_irq(&slim_ev_lock);
	slim_ev_admitted = 0;
	slim_ev_dropped = 0;
	slim_ev_capped = false;
	slim_ev_stopping = false;
	slim_ev_tokens = (u64)slim_ev_burst * HZ;
	slim_ev_stamp = jiffies;
	spin_unlock_irq(&slim_ev_lock);

	ev = slim_ev_new(SLIM_EV_LOAD, GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	slim_label_format(&slim_default_level, label, sizeof(label));
	slim_ev_str(ev, SLIM_T_VERSION, SLIM_VERSION);
	slim_ev_u8(ev, SLIM_T_MODE, READ_ONCE(slim_mode));
	slim_ev_u8(ev, SLIM_T_PCR, slim_pcr);
	slim_ev_u8(ev, SLIM_T_LOCK, lock);
	slim_ev_u8(ev, SLIM_T_EVM_DEMOTE, slim_evm_demote());
	slim_ev_str(ev, SLIM_T_DEFAULT_LABEL, label);
	slim_ev_write_now(ev);
	text = slim_policy_default_text(&len);
	slim_event_policy(text, len, false);
	return 0;
}

/*
 * After the hooks are gone: what was dropped and what is queued goes into
 * the list before the list goes.
 */
void slim_events_exit(void)
{
	spin_lock_irq(&slim_ev_lock);
	slim_ev_stopping = true;
	spin_unlock_irq(&slim_ev_lock);
	cancel_delayed_work_sync(&slim_ev_drop_work);
	slim_ev_drop_report(GFP_KERNEL);
	flush_work(&slim_ev_work);
}
