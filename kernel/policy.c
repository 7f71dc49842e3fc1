// SPDX-License-Identifier: GPL-2.0
/*
 * IMA-like measurement rules.
 *
 *   measure|dont_measure [func=BPRM_CHECK|MMAP_CHECK|FILE_MMAP|FILE_CHECK]
 *        [mask=[^]MAY_EXEC|MAY_WRITE|MAY_READ|MAY_APPEND] [uid=N] [euid=N]
 *        [fowner=N] [fsmagic=0xHEX] [slim_integrity=SYSTEM|USER|UNTRUSTED]
 *
 * slim_integrity=L holds when the task's integrity in the SLIM lattice is
 * L at the time of the access (before the access demotes it): the
 * lattice-aware rule "measure what SYSTEM-integrity tasks execute and read".
 *
 * The first rule whose conditions all hold decides. The rule set is
 * replaced as a whole: a write session whose rules all parse replaces the
 * policy when the file is closed; any malformed rule fails the write with
 * -EINVAL, the reason is logged, and the old policy stays.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/uidgid.h>
#include <linux/cred.h>
#include "measure.h"
#include "lattice.h"

#define SLIM_MAX_RULES 1024

enum {
	SLIM_R_FUNC = 1 << 0,
	SLIM_R_MASK = 1 << 1,
	SLIM_R_INMASK = 1 << 2,
	SLIM_R_UID = 1 << 3,
	SLIM_R_EUID = 1 << 4,
	SLIM_R_FOWNER = 1 << 5,
	SLIM_R_FSMAGIC = 1 << 6,
	SLIM_R_INTEG = 1 << 7,
};

struct slim_rule {
	bool measure;
	unsigned int flags;
	enum slim_func func;
	int mask;
	kuid_t uid, euid, fowner;
	unsigned long fsmagic;
	struct slim_level integ;
};

struct slim_policy {
	struct rcu_head rcu;
	unsigned int n;
	struct slim_rule rules[];
};

static struct slim_policy __rcu *slim_policy;

static const char *const slim_func_names[SLIM_FUNC_MAX] = {
	[SLIM_BPRM_CHECK] = "BPRM_CHECK",
	[SLIM_MMAP_CHECK] = "MMAP_CHECK",
	[SLIM_FILE_CHECK] = "FILE_CHECK",
};

static const struct {
	const char *name;
	int bit;
} slim_mask_names[] = {
	{ "MAY_EXEC", MAY_EXEC }, { "MAY_WRITE", MAY_WRITE },
	{ "MAY_READ", MAY_READ }, { "MAY_APPEND", MAY_APPEND },
};

static const char slim_default_policy[] =
	"dont_measure fsmagic=0x9fa0\n"		/* proc */
	"dont_measure fsmagic=0x62656572\n"	/* sysfs */
	"dont_measure fsmagic=0x64626720\n"	/* debugfs */
	"dont_measure fsmagic=0x1021994\n"	/* tmpfs */
	"dont_measure fsmagic=0x1cd1\n"		/* devpts */
	"dont_measure fsmagic=0x42494e4d\n"	/* binfmt_misc */
	"dont_measure fsmagic=0x73636673\n"	/* securityfs */
	"dont_measure fsmagic=0xf97cff8c\n"	/* selinuxfs */
	"dont_measure fsmagic=0x43415d53\n"	/* smackfs */
	"dont_measure fsmagic=0x27e0eb\n"	/* cgroup */
	"dont_measure fsmagic=0x63677270\n"	/* cgroup2 */
	"dont_measure fsmagic=0x6e736673\n"	/* nsfs */
	"dont_measure fsmagic=0xde5e81e4\n"	/* efivarfs */
	"dont_measure fsmagic=0xcafe4a11\n"	/* bpf */
	"dont_measure fsmagic=0x50494446\n"	/* pidfs (6.9+: pidfds) */
	"dont_measure fsmagic=0x9041934\n"	/* anon_inodefs */
	"measure func=MMAP_CHECK mask=MAY_EXEC\n"
	"measure func=BPRM_CHECK mask=MAY_EXEC\n"
	"measure func=FILE_CHECK mask=^MAY_READ uid=0\n";

static int slim_parse_id(const char *val, kuid_t *out)
{
	unsigned int id;

	if (kstrtouint(val, 10, &id))
		return -EINVAL;
	*out = make_kuid(&init_user_ns, id);
	return uid_valid(*out) ? 0 : -EINVAL;
}

static int slim_parse_mask(const char *val, struct slim_rule *r)
{
	unsigned int i;

	if (*val == '^') {
		r->flags |= SLIM_R_INMASK;
		val++;
	} else {
		r->flags |= SLIM_R_MASK;
	}
	for (i = 0; i < ARRAY_SIZE(slim_mask_names); i++) {
		if (!strcmp(val, slim_mask_names[i].name)) {
			r->mask = slim_mask_names[i].bit;
			return 0;
		}
	}
	return -EINVAL;
}

static int slim_parse_func(const char *val, struct slim_rule *r)
{
	int i;

	if (!strcmp(val, "FILE_MMAP"))
		val = "MMAP_CHECK";
	for (i = SLIM_FUNC_NONE + 1; i < SLIM_FUNC_MAX; i++) {
		if (!strcmp(val, slim_func_names[i])) {
			r->func = i;
			r->flags |= SLIM_R_FUNC;
			return 0;
		}
	}
	return -EINVAL;
}

/* Parses one rule in place (line is modified). */
static int slim_parse_rule(char *line, struct slim_rule *r)
{
	char *tok, *val;
	bool first = true;
	int rc;

	memset(r, 0, sizeof(*r));
	while ((tok = strsep(&line, " \t")) != NULL) {
		if (!*tok)
			continue;
		if (first) {
			first = false;
			if (!strcmp(tok, "measure")) {
				r->measure = true;
			} else if (!strcmp(tok, "dont_measure")) {
				r->measure = false;
			} else {
				pr_err("policy: unknown action '%s'\n", tok);
				return -EINVAL;
			}
			continue;
		}
		val = strchr(tok, '=');
		if (!val || !val[1]) {
			pr_err("policy: expected key=value, got '%s'\n", tok);
			return -EINVAL;
		}
		*val++ = '\0';
		rc = -EINVAL;
		if (!strcmp(tok, "func") && !(r->flags & SLIM_R_FUNC)) {
			rc = slim_parse_func(val, r);
		} else if (!strcmp(tok, "mask") &&
			   !(r->flags & (SLIM_R_MASK | SLIM_R_INMASK))) {
			rc = slim_parse_mask(val, r);
		} else if (!strcmp(tok, "uid") && !(r->flags & SLIM_R_UID)) {
			rc = slim_parse_id(val, &r->uid);
			r->flags |= SLIM_R_UID;
		} else if (!strcmp(tok, "euid") && !(r->flags & SLIM_R_EUID)) {
			rc = slim_parse_id(val, &r->euid);
			r->flags |= SLIM_R_EUID;
		} else if (!strcmp(tok, "fowner") &&
			   !(r->flags & SLIM_R_FOWNER)) {
			rc = slim_parse_id(val, &r->fowner);
			r->flags |= SLIM_R_FOWNER;
		} else if (!strcmp(tok, "slim_integrity") &&
			   !(r->flags & SLIM_R_INTEG)) {
			/* "<integrity> PUBLIC" parses the level name */
			char lvl[24];

			rc = -EINVAL;
			if (strlen(val) < 12) {
				scnprintf(lvl, sizeof(lvl), "%s PUBLIC", val);
				rc = slim_label_parse(lvl, strlen(lvl),
						      &r->integ);
			}
			r->flags |= SLIM_R_INTEG;
		} else if (!strcmp(tok, "fsmagic") &&
			   !(r->flags & SLIM_R_FSMAGIC)) {
			rc = kstrtoul(val, 16, &r->fsmagic);
			r->flags |= SLIM_R_FSMAGIC;
		} else {
			pr_err("policy: unknown or repeated condition '%s'\n",
			       tok);
			return -EINVAL;
		}
		if (rc) {
			pr_err("policy: bad value '%s' for '%s'\n", val, tok);
			return -EINVAL;
		}
	}
	if (first) {
		pr_err("policy: empty rule\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * Parses a whole policy text. Blank lines and lines starting with '#' are
 * skipped. On success *out holds a new policy for slim_policy_replace();
 * with out == NULL the text is only checked (and may hold no rule).
 */
int slim_policy_parse(const char *text, size_t len, void **out)
{
	struct slim_policy *p;
	char *copy, *cur, *line;
	unsigned int n = 0, max;
	int rc = 0;

	copy = kmemdup_nul(text, len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	for (cur = copy; *cur; cur++)
		if (*cur == '\n')
			n++;
	max = min_t(unsigned int, n + 1, SLIM_MAX_RULES);
	p = kzalloc(struct_size(p, rules, max), GFP_KERNEL);
	if (!p) {
		kfree(copy);
		return -ENOMEM;
	}
	n = 0;
	cur = copy;
	while ((line = strsep(&cur, "\n")) != NULL) {
		line = strim(line);
		if (!*line || *line == '#')
			continue;
		if (n == max) {
			pr_err("policy: more than %d rules\n", SLIM_MAX_RULES);
			rc = -E2BIG;
			break;
		}
		rc = slim_parse_rule(line, &p->rules[n]);
		if (rc)
			break;
		n++;
	}
	kfree(copy);
	if (!rc && !out) {
		kfree(p);
		return 0;
	}
	if (!rc && !n) {
		pr_err("policy: no rules\n");
		rc = -EINVAL;
	}
	if (rc) {
		kfree(p);
		return rc;
	}
	p->n = n;
	*out = p;
	return 0;
}

void slim_policy_free(void *p)
{
	kfree(p);
}

static void slim_policy_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct slim_policy, rcu));
}

void slim_policy_replace(void *newp)
{
	struct slim_policy *old;

	old = rcu_replace_pointer(slim_policy, (struct slim_policy *)newp,
				  true);
	if (old)
		call_rcu(&old->rcu, slim_policy_free_rcu);
}

static bool slim_rule_match(const struct slim_rule *r, struct inode *inode,
			    const struct cred *cred, enum slim_func func,
			    int mask)
{
	if ((r->flags & SLIM_R_FUNC) && r->func != func)
		return false;
	if ((r->flags & SLIM_R_MASK) && r->mask != mask)
		return false;
	if ((r->flags & SLIM_R_INMASK) && !(r->mask & mask))
		return false;
	if ((r->flags & SLIM_R_UID) && !uid_eq(r->uid, cred->uid))
		return false;
	if ((r->flags & SLIM_R_EUID) && !uid_eq(r->euid, cred->euid))
		return false;
	if ((r->flags & SLIM_R_FOWNER) && !uid_eq(r->fowner, inode->i_uid))
		return false;
	if ((r->flags & SLIM_R_FSMAGIC) && r->fsmagic != inode->i_sb->s_magic)
		return false;
	if ((r->flags & SLIM_R_INTEG) &&
	    slim_task_level(current).integ != r->integ.integ)
		return false;
	return true;
}

/* Safe in atomic context. */
bool slim_policy_match(struct inode *inode, const struct cred *cred,
		       enum slim_func func, int mask)
{
	const struct slim_policy *p;
	bool measure = false;
	unsigned int i;

	rcu_read_lock();
	p = rcu_dereference(slim_policy);
	for (i = 0; p && i < p->n; i++) {
		if (slim_rule_match(&p->rules[i], inode, cred, func, mask)) {
			measure = p->rules[i].measure;
			break;
		}
	}
	rcu_read_unlock();
	return measure;
}

void slim_policy_show(struct seq_file *m)
{
	const struct slim_policy *p;
	const struct slim_rule *r;
	unsigned int i, j;

	rcu_read_lock();
	p = rcu_dereference(slim_policy);
	for (i = 0; p && i < p->n; i++) {
		r = &p->rules[i];
		seq_puts(m, r->measure ? "measure" : "dont_measure");
		if (r->flags & SLIM_R_FUNC)
			seq_printf(m, " func=%s", slim_func_names[r->func]);
		if (r->flags & (SLIM_R_MASK | SLIM_R_INMASK)) {
			for (j = 0; j < ARRAY_SIZE(slim_mask_names); j++)
				if (slim_mask_names[j].bit == r->mask)
					seq_printf(m, " mask=%s%s",
						   r->flags & SLIM_R_INMASK ?
						   "^" : "",
						   slim_mask_names[j].name);
		}
		if (r->flags & SLIM_R_UID)
			seq_printf(m, " uid=%u",
				   from_kuid(&init_user_ns, r->uid));
		if (r->flags & SLIM_R_EUID)
			seq_printf(m, " euid=%u",
				   from_kuid(&init_user_ns, r->euid));
		if (r->flags & SLIM_R_FOWNER)
			seq_printf(m, " fowner=%u",
				   from_kuid(&init_user_ns, r->fowner));
		if (r->flags & SLIM_R_FSMAGIC)
			seq_printf(m, " fsmagic=0x%lx", r->fsmagic);
		if (r->flags & SLIM_R_INTEG)
			seq_printf(m, " slim_integrity=%s",
				   slim_integ_name(r->integ.integ));
		seq_putc(m, '\n');
	}
	rcu_read_unlock();
}

/* the default rules, which `policy` reads back byte for byte */
const char *slim_policy_default_text(size_t *len)
{
	*len = sizeof(slim_default_policy) - 1;
	return slim_default_policy;
}

int slim_policy_init(void)
{
	void *p;
	int rc;

	rc = slim_policy_parse(slim_default_policy,
			       sizeof(slim_default_policy) - 1, &p);
	if (rc)
		return rc;
	slim_policy_replace(p);
	return 0;
}

void slim_policy_exit(void)
{
	struct slim_policy *old;

	old = rcu_replace_pointer(slim_policy, NULL, true);
	synchronize_rcu();
	kfree(old);
	/* policies replaced earlier may still wait for their grace period */
	rcu_barrier();
}
