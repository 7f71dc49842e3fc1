/* SPDX-License-Identifier: GPL-2.0 */
/*
 * the attach layers: how the hooks are reached on a stock kernel. They
 * decode arguments and call the core (hooks.h).
 */
#ifndef SLIM_ATTACH_H
#define SLIM_ATTACH_H

struct seq_file;

/* attach_ftrace.c: how the hooks are reached on a stock kernel */
int slim_attach(void);
void slim_detach(void);

/* attach_kprobe.c: where received data arrives (return probes) */
int slim_kprobes_init(void);
void slim_kprobes_exit(void);

/* attach_fsnotify.c: the sleepable open hook (fsnotify permission events) */
int slim_watch_init(void);
void slim_watch_exit(void);
int slim_watch_path(const char *path);
void slim_watch_show(struct seq_file *m);

#endif /* SLIM_ATTACH_H */
