// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/security/slim/: the measurement list in IMA's binary
 * and ascii formats, its counters, and the policy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/module.h>
#include "measure.h"
#include "events.h"

#define SLIM_POLICY_MAX (64 * 1024)

static struct dentry *slim_dir;
static struct dentry *slim_files[5];

/* ---- the measurement list ------------------------------------------- */

static void *slim_list_start(struct seq_file *m, loff_t *pos)
	__acquires(RCU)
{
	struct slim_entry *e;
	loff_t n = *pos;

	rcu_read_lock();
	list_for_each_entry_rcu(e, &slim_entries, list) {
		if (!n--)
			return e;
	}
	return NULL;
}

static void *slim_list_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct slim_entry *e = v;

	(*pos)++;
	e = list_entry_rcu(e->list.next, struct slim_entry, list);
	return &e->list == &slim_entries ? NULL : e;
}

static void slim_list_stop(struct seq_file *m, void *v)
	__releases(RCU)
{
	rcu_read_unlock();
}

static const char *slim_template_name(const struct slim_entry *e)
{
	return e->buf_template ? "ima-buf" : SLIM_TEMPLATE_NAME;
}

static int slim_binary_show(struct seq_file *m, void *v)
{
	struct slim_entry *e = v;
	const char *tname = slim_template_name(e);
	u32 nlen = strlen(tname);

	seq_write(m, &e->pcr, sizeof(e->pcr));
	seq_write(m, e->digest, sizeof(e->digest));
	seq_write(m, &nlen, sizeof(nlen));
	seq_write(m, tname, nlen);
	seq_write(m, &e->len, sizeof(e->len));
	seq_write(m, e->data, e->len);
	return 0;
}

static int slim_ascii_show(struct seq_file *m, void *v)
{
	struct slim_entry *e = v;
	const u8 *p = e->data, *end = e->data + e->len;
	u32 dlen, nlen, alen;

	memcpy(&dlen, p, sizeof(u32));
	p += sizeof(u32);
	alen = strnlen(p, dlen) + 1;	/* "sha256:" and its NUL */
	seq_printf(m, "%2u %*phN %s %s%*phN ", e->pcr,
		   (int)sizeof(e->digest), e->digest, slim_template_name(e),
		   (const char *)p, (int)(dlen - alen), p + alen);
	p += dlen;
	memcpy(&nlen, p, sizeof(u32));
	p += sizeof(u32);
	if (nlen && p + nlen <= end)
		seq_write(m, p, nlen - 1);
	p += nlen;
	if (e->buf_template && p + sizeof(u32) <= end) {
		u32 blen, i;

		memcpy(&blen, p, sizeof(u32));
		p += sizeof(u32);
		seq_putc(m, ' ');
		for (i = 0; i < blen && p + i < end; i++)
			seq_printf(m, "%02x", p[i]);
	}
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations slim_binary_seqops = {
	.start = slim_list_start,
	.next = slim_list_next,
	.stop = slim_list_stop,
	.show = slim_binary_show,
};

static const struct seq_operations slim_ascii_seqops = {
	.start = slim_list_start,
	.next = slim_list_next,
	.stop = slim_list_stop,
	.show = slim_ascii_show,
};

static int slim_binary_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &slim_binary_seqops);
}

static int slim_ascii_open(struct inode *inode, struct file *file)
{
	return seq_open(file, &slim_ascii_seqops);
}

static const struct file_operations slim_binary_fops = {
	.owner = THIS_MODULE,
	.open = slim_binary_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

static const struct file_operations slim_ascii_fops = {
	.owner = THIS_MODULE,
	.open = slim_ascii_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

/* ---- counters ----------------------------------------------------------- */

static ssize_t slim_counter_read(struct file *file, char __user *buf,
				 size_t count, loff_t *ppos)
{
	atomic_long_t *counter = file_inode(file)->i_private;
	char tmp[32];
	int len;

	len = scnprintf(tmp, sizeof(tmp), "%ld\n", atomic_long_read(counter));
	return simple_read_from_buffer(buf, count, ppos, tmp, len);
}

static const struct file_operations slim_counter_fops = {
	.owner = THIS_MODULE,
	.read = slim_counter_read,
	.llseek = generic_file_llseek,
};

/* ---- policy --------------------------------------------------------------- */

struct slim_policy_session {
	char *buf;
	size_t len;
	size_t checked;		/* bytes up to here parsed without error */
	bool failed;
};

static int slim_policy_show_seq(struct seq_file *m, void *v)
{
	slim_policy_show(m);
	return 0;
}

static int slim_policy_open(struct inode *inode, struct file *file)
{
	struct slim_policy_session *s;

	switch (file->f_flags & O_ACCMODE) {
	case O_RDONLY:
		return single_open(file, slim_policy_show_seq, NULL);
	case O_WRONLY:
		break;
	default:
		return -EINVAL;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->buf = kvmalloc(SLIM_POLICY_MAX, GFP_KERNEL);
	if (!s->buf) {
		kfree(s);
		return -ENOMEM;
	}
	file->private_data = s;
	return 0;
}

/*
 * Rules are checked as soon as their line is complete, so that a malformed
 * rule fails the write() that carries it.
 */
static ssize_t slim_policy_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct slim_policy_session *s = file->private_data;
	size_t end;
	int rc;

	if (s->failed)
		return -EINVAL;
	if (count > SLIM_POLICY_MAX - s->len) {
		pr_err("policy: larger than %d bytes\n", SLIM_POLICY_MAX);
		s->failed = true;
		return -EFBIG;
	}
	if (copy_from_user(s->buf + s->len, ubuf, count))
		return -EFAULT;
	s->len += count;
	for (end = s->len; end > s->checked && s->buf[end - 1] != '\n'; end--)
		;
	if (end > s->checked) {
		rc = slim_policy_parse(s->buf + s->checked, end - s->checked,
				       NULL);
		if (rc) {
			pr_err("policy: rejected, the current policy stays\n");
			s->failed = true;
			return rc;
		}
		s->checked = end;
	}
	*ppos += count;
	return count;
}

static int slim_policy_release(struct inode *inode, struct file *file)
{
	struct slim_policy_session *s;
	void *newp;
	int rc;

	if ((file->f_flags & O_ACCMODE) == O_RDONLY)
		return single_release(inode, file);
	s = file->private_data;
	if (!s->failed) {
		rc = slim_policy_parse(s->buf, s->len, &newp);
		if (rc) {
			pr_err("policy: rejected, the current policy stays\n");
		} else {
			slim_policy_replace(newp);
			pr_info("policy replaced\n");
			slim_event_policy(s->buf, s->len, true);
		}
	}
	kvfree(s->buf);
	kfree(s);
	return 0;
}

static ssize_t slim_policy_read(struct file *file, char __user *buf,
				size_t count, loff_t *ppos)
{
	if ((file->f_flags & O_ACCMODE) != O_RDONLY)
		return -EBADF;
	return seq_read(file, buf, count, ppos);
}

static const struct file_operations slim_policy_fops = {
	.owner = THIS_MODULE,
	.open = slim_policy_open,
	.read = slim_policy_read,
	.write = slim_policy_write,
	.llseek = generic_file_llseek,
	.release = slim_policy_release,
};

/* ---- setup -------------------------------------------------------------- */

struct dentry *slim_fs_dir(void)
{
	return slim_dir;
}

/*
 * securityfs_remove() unlinks, but a lookup in flight may still hold the
 * dentry: it would stay visible and keep the directory non-empty (the
 * next load would then fail with -EEXIST). Unhash it as well.
 */
void slim_securityfs_remove(struct dentry *d)
{
	if (IS_ERR_OR_NULL(d))
		return;
	dget(d);
	securityfs_remove(d);
	d_drop(d);
	dput(d);
}


int slim_fs_init(void)
{
	struct dentry *d;
	int i = 0;

	slim_dir = securityfs_create_dir("slim", NULL);
	if (IS_ERR(slim_dir))
		return PTR_ERR(slim_dir);

	d = securityfs_create_file("binary_runtime_measurements", 0440,
				   slim_dir, NULL, &slim_binary_fops);
	if (IS_ERR(d))
		goto err;
	slim_files[i++] = d;
	d = securityfs_create_file("ascii_runtime_measurements", 0440,
				   slim_dir, NULL, &slim_ascii_fops);
	if (IS_ERR(d))
		goto err;
	slim_files[i++] = d;
	d = securityfs_create_file("runtime_measurements_count", 0440,
				   slim_dir, &slim_entry_count,
				   &slim_counter_fops);
	if (IS_ERR(d))
		goto err;
	slim_files[i++] = d;
	d = securityfs_create_file("violations", 0440, slim_dir,
				   &slim_violation_count, &slim_counter_fops);
	if (IS_ERR(d))
		goto err;
	slim_files[i++] = d;
	d = securityfs_create_file("policy", 0600, slim_dir, NULL,
				   &slim_policy_fops);
	if (IS_ERR(d))
		goto err;
	slim_files[i++] = d;
	return 0;
err:
	slim_fs_exit();
	return PTR_ERR(d);
}

void slim_fs_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(slim_files) - 1; i >= 0; i--) {
		slim_securityfs_remove(slim_files[i]);
		slim_files[i] = NULL;
	}
	slim_securityfs_remove(slim_dir);
	slim_dir = NULL;
}
