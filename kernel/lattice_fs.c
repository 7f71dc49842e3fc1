// SPDX-License-Identifier: GPL-2.0
/*
 * securityfs files of the lattice, under /sys/kernel/security/slim/:
 *
 *   mode      read: enforce|permissive|off; write (CAP_MAC_ADMIN, writer
 *             at SYSTEM integrity): a new mode
 *   status    mode, default label, watched superblocks
 *   counters  "name value" per line (denials, demotions, live states)
 *   tasks     "pid<TAB>label<TAB>comm" for every task
 *   relabel   write (CAP_MAC_ADMIN, writer at SYSTEM integrity):
 *             "LABEL<TAB>PATH", sets security.slim through the module
 *   watch     write (CAP_MAC_ADMIN): a path whose file system is watched
 *   evm_key   write (CAP_MAC_ADMIN, writer at SYSTEM integrity): the
 *             description of a 32-byte logon key, once per boot
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "slim.h"
#include "measure.h"
#include "lattice.h"
#include "evm.h"
#include "events.h"
#include "attach.h"

#define SLIM_RELABEL_MAX (SLIM_LABEL_MAX + 1 + PATH_MAX)

static struct dentry *slim_lfiles[7];

/* changing the lattice's rules needs CAP_MAC_ADMIN and SYSTEM integrity */
static int slim_admin_check(void)
{
	struct slim_level t;

	if (!capable(CAP_MAC_ADMIN))
		return -EPERM;
	/* loading or being removed: a label set now could outlive its inode */
	if (!slim_is_active())
		return -EBUSY;
	t = slim_task_level(current);
	if (t.integ != SLIM_I_SYSTEM) {
		pr_notice_ratelimited("pid=%d comm=%s at %s integrity may not change the lattice\n",
				      task_pid_nr(current), current->comm,
				      slim_integ_name(t.integ));
		return -EPERM;
	}
	return 0;
}

/* copies a write of at most @max bytes, NUL-terminated, newline dropped */
static char *slim_copy_write(const char __user *ubuf, size_t count,
			     loff_t *ppos, size_t max)
{
	char *buf;

	if (*ppos != 0)
		return ERR_PTR(-EINVAL);
	if (count == 0 || count > max)
		return ERR_PTR(-EINVAL);
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return buf;
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	return buf;
}

/* ---- mode ----------------------------------------------------------------- */

static ssize_t slim_mode_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char tmp[16];
	int n;

	n = scnprintf(tmp, sizeof(tmp), "%s\n",
		      slim_mode_name(READ_ONCE(slim_mode)));
	return simple_read_from_buffer(ubuf, count, ppos, tmp, n);
}

static ssize_t slim_mode_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	int rc, mode, old;
	char *buf;

	rc = slim_admin_check();
	if (rc)
		return rc;
	buf = slim_copy_write(ubuf, count, ppos, 16);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mode = slim_mode_parse(buf);
	kfree(buf);
	if (mode < 0)
		return mode;
	old = xchg(&slim_mode, mode);
	if (old != mode) {
		pr_notice("mode %s -> %s by pid %d (%s)\n", slim_mode_name(old),
			  slim_mode_name(mode), task_pid_nr(current),
			  current->comm);
		slim_event_mode(old, mode);
	}
	return count;
}

static const struct file_operations slim_mode_fops = {
	.owner = THIS_MODULE,
	.read = slim_mode_read,
	.write = slim_mode_write,
	.llseek = generic_file_llseek,
};

/* ---- status, counters, tasks ------------------------------------------------ */

static int slim_status_show(struct seq_file *m, void *v)
{
	char label[SLIM_LABEL_MAX + 1];
	u8 digest[SHA256_DIGEST_SIZE];

	slim_event_policy_digest(digest);
	slim_label_format(&slim_default_level, label, sizeof(label));
	seq_printf(m, "mode %s\n", slim_mode_name(READ_ONCE(slim_mode)));
	seq_printf(m, "default_label %s\n", label);
	seq_printf(m, "evm_key %s\n", slim_evm_has_key() ? "loaded" : "absent");
	seq_printf(m, "evm_action %s\n", slim_evm_demote() ? "demote" : "deny");
	seq_printf(m, "policy_digest %*phN\n", (int)sizeof(digest), digest);
	slim_watch_show(m);
	return 0;
}

static int slim_counters_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < SLIM_C_MAX; i++)
		seq_printf(m, "%s %ld\n", slim_counter_name(i),
			   atomic_long_read(&slim_counters[i]));
	return 0;
}

static int slim_tasks_show(struct seq_file *m, void *v)
{
	struct task_struct *p, *t;
	char label[SLIM_LABEL_MAX + 1];
	struct slim_level l;

	rcu_read_lock();
	for_each_process_thread(p, t) {
		l = slim_task_level(t);
		slim_label_format(&l, label, sizeof(label));
		seq_printf(m, "%d\t%s\t%s\n", task_pid_nr(t), label, t->comm);
	}
	rcu_read_unlock();
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(slim_status);
DEFINE_SHOW_ATTRIBUTE(slim_counters);
DEFINE_SHOW_ATTRIBUTE(slim_tasks);

/* ---- relabel, watch --------------------------------------------------------- */

static ssize_t slim_relabel_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct slim_level l;
	char *buf, *tab;
	int rc;

	rc = slim_admin_check();
	if (rc)
		return rc;
	buf = slim_copy_write(ubuf, count, ppos, SLIM_RELABEL_MAX);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	tab = strchr(buf, '\t');
	rc = -EINVAL;
	if (!tab || tab[1] != '/')
		goto out;
	*tab = '\0';
	rc = slim_label_parse(buf, tab - buf, &l);
	if (rc)
		goto out;
	rc = slim_relabel(tab + 1, &l);
out:
	kfree(buf);
	return rc ? rc : count;
}

static ssize_t slim_evm_key_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char *buf;
	int rc;

	rc = slim_admin_check();
	if (rc)
		return rc;
	buf = slim_copy_write(ubuf, count, ppos, 256);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	rc = slim_evm_load_key(buf);
	kfree(buf);
	if (!rc) {
		slim_event_evm_key();
		slim_inode_stale_all();
	}
	return rc ? rc : count;
}

static ssize_t slim_watch_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char *buf;
	int rc;

	if (!capable(CAP_MAC_ADMIN))
		return -EPERM;
	buf = slim_copy_write(ubuf, count, ppos, PATH_MAX);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	rc = buf[0] == '/' ? slim_watch_path(buf) : -EINVAL;
	kfree(buf);
	return rc ? rc : count;
}

static const struct file_operations slim_relabel_fops = {
	.owner = THIS_MODULE,
	.write = slim_relabel_write,
	.llseek = noop_llseek,
};

static const struct file_operations slim_evm_key_fops = {
	.owner = THIS_MODULE,
	.write = slim_evm_key_write,
	.llseek = noop_llseek,
};

static const struct file_operations slim_watch_fops = {
	.owner = THIS_MODULE,
	.write = slim_watch_write,
	.llseek = noop_llseek,
};

/* ---- setup ---------------------------------------------------------------- */

int slim_lattice_fs_init(struct dentry *dir)
{
	static const struct {
		const char *name;
		umode_t mode;
		const struct file_operations *fops;
	} files[] = {
		{ "mode", 0600, &slim_mode_fops },
		{ "status", 0444, &slim_status_fops },
		{ "counters", 0444, &slim_counters_fops },
		{ "tasks", 0444, &slim_tasks_fops },
		{ "relabel", 0200, &slim_relabel_fops },
		{ "watch", 0200, &slim_watch_fops },
		{ "evm_key", 0200, &slim_evm_key_fops },
	};
	struct dentry *d;
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(files) != ARRAY_SIZE(slim_lfiles));
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		d = securityfs_create_file(files[i].name, files[i].mode, dir,
					   NULL, files[i].fops);
		if (IS_ERR(d)) {
			slim_lattice_fs_exit();
			return PTR_ERR(d);
		}
		slim_lfiles[i] = d;
	}
	return 0;
}

void slim_lattice_fs_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(slim_lfiles) - 1; i >= 0; i--) {
		slim_securityfs_remove(slim_lfiles[i]);
		slim_lfiles[i] = NULL;
	}
}
