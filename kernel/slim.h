/* SPDX-License-Identifier: GPL-2.0 */
/*
 * what every part of the slim module shares (main.c); each layer has
 * its header: measure.h, lattice.h, evm.h, events.h, hooks.h (the core),
 * attach.h.
 */
#ifndef SLIM_H
#define SLIM_H

#include <linux/types.h>

#define SLIM_VERSION "0.2"
extern unsigned int slim_pcr;
bool slim_is_active(void);
bool slim_is_locked(void);

#endif /* SLIM_H */
