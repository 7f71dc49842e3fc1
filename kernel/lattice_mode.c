// SPDX-License-Identifier: GPL-2.0
/*
 * the lattice's settings: the mode (enforce, permissive, off) and the
 * default label, module parameters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "lattice.h"

static const char *const slim_mode_names[] = SLIM_MODE_NAMES;

int slim_mode = SLIM_MODE_PERMISSIVE;

int slim_mode_parse(const char *s)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(slim_mode_names); i++)
		if (sysfs_streq(s, slim_mode_names[i]))
			return i;
	return -EINVAL;
}

const char *slim_mode_name(int mode)
{
	return slim_mode_names[mode];
}

static int slim_mode_param_set(const char *val, const struct kernel_param *kp)
{
	int mode = slim_mode_parse(val);

	if (mode < 0)
		return mode;
	WRITE_ONCE(slim_mode, mode);
	return 0;
}

static int slim_mode_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", slim_mode_name(READ_ONCE(slim_mode)));
}

static const struct kernel_param_ops slim_mode_param_ops = {
	.set = slim_mode_param_set,
	.get = slim_mode_param_get,
};
module_param_cb(mode, &slim_mode_param_ops, NULL, 0444);
MODULE_PARM_DESC(mode, "SLIM lattice: enforce, permissive (default) or off");

static char *slim_default_param = "SYSTEM PUBLIC";
module_param_named(default_label, slim_default_param, charp, 0444);
MODULE_PARM_DESC(default_label, "Label of files without security.slim (default \"SYSTEM PUBLIC\")");

struct slim_level slim_default_level;

/* ---- setup ---------------------------------------------------------------- */

int slim_lattice_init(void)
{
	int rc;

	rc = slim_label_parse(slim_default_param, strlen(slim_default_param),
			      &slim_default_level);
	if (rc) {
		pr_err("default_label=\"%s\": not a label\n",
		       slim_default_param);
		return rc;
	}
	return 0;
}
