// SPDX-License-Identifier: GPL-2.0
/*
 * slim - SLIM integrity/secrecy lattice and an IMA-compatible measurement
 * list in a TPM PCR.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/init.h>
#include "slim.h"
#include "measure.h"
#include "lattice.h"
#include "evm.h"
#include "events.h"
#include "attach.h"
#include "hooks.h"

unsigned int slim_pcr = 11;
module_param_named(pcr, slim_pcr, uint, 0444);
MODULE_PARM_DESC(pcr, "TPM PCR the measurement list is extended into (default 11)");

static bool slim_lock = true;
module_param_named(lock, slim_lock, bool, 0444);
MODULE_PARM_DESC(lock, "Pin the module so that it cannot be removed (default 1; 0 only for tests)");

static bool slim_active;

/* lock=1: the module pinned itself and refuses to be switched off */
bool slim_is_locked(void)
{
	return slim_lock;
}

bool slim_is_active(void)
{
	return READ_ONCE(slim_active);
}

static int __init slim_init(void)
{
	int rc;

	if (slim_pcr >= 24) {
		pr_err("pcr=%u: must be 0..23\n", slim_pcr);
		return -EINVAL;
	}
	rc = slim_hooks_init();
	if (rc)
		return rc;
	rc = slim_policy_init();
	if (rc)
		return rc;
	rc = slim_measure_init();
	if (rc)
		goto err_policy;
	rc = slim_list_init();
	if (rc)
		goto err_measure;
	rc = slim_evm_init();
	if (rc)
		goto err_list;
	rc = slim_lattice_init();
	if (rc)
		goto err_evm;
	/* right after boot_aggregate: nothing is measured before the attach */
	rc = slim_events_init(slim_lock);
	if (rc)
		goto err_lattice;
	rc = slim_fs_init();
	if (rc)
		goto err_events;
	rc = slim_lattice_fs_init(slim_fs_dir());
	if (rc)
		goto err_fs;
	rc = slim_watch_init();
	if (rc)
		goto err_lfs;
	rc = slim_attach();
	if (rc)
		goto err_watch;
	/*
	 * Only now, with every hook attached, do the hooks act. A hook that
	 * keeps state for an object (a task's levels, an inode's label, a
	 * pipe's levels) may only act while the hook that forgets it when the
	 * object is freed is attached: the sleepable open (fsnotify, live
	 * since slim_watch_init()) demoted tasks while the ftrace hooks were
	 * still being registered, and a task that exited in that window left
	 * its entry behind for the next task_struct at its address.
	 */
	WRITE_ONCE(slim_active, true);
	if (slim_lock)
		__module_get(THIS_MODULE);
	slim_guards_at_load();
	pr_info("measuring into PCR %u, lattice %s%s\n", slim_pcr,
		slim_mode_name(READ_ONCE(slim_mode)),
		slim_lock ? ", locked" : "");
	return 0;

err_watch:
	WRITE_ONCE(slim_active, false);
	slim_measure_wait();	/* hooks attached before the failure */
	slim_watch_exit();
err_lfs:
	slim_lattice_fs_exit();
err_fs:
	slim_fs_exit();
err_events:
	slim_events_exit();
err_lattice:
	slim_task_state_exit();
	slim_inode_state_exit();
err_evm:
	slim_evm_exit();
err_list:
	slim_list_exit();
err_measure:
	slim_measure_exit();
err_policy:
	slim_policy_exit();
	return rc;
}

static void __exit slim_exit(void)
{
	WRITE_ONCE(slim_active, false);
	slim_detach();
	slim_measure_wait();	/* queued work finishes before the list goes */
	slim_watch_exit();
	slim_lattice_fs_exit();
	slim_fs_exit();
	slim_events_exit();
	slim_task_state_exit();
	slim_inode_state_exit();
	slim_evm_exit();
	slim_list_exit();
	slim_measure_exit();
	slim_policy_exit();
	pr_info("unloaded: nothing is measured from now on\n");
}

module_init(slim_init);
module_exit(slim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SLIM: integrity/secrecy lattice and IMA-compatible measurement list in a TPM PCR");
MODULE_AUTHOR("attest project");
MODULE_VERSION(SLIM_VERSION);
