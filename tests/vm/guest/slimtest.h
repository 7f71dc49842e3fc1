/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slimtest.h - what slimtest.c shares with the operations in
 * slimtest_ipc.c (between processes), slimtest_proc.c (on processes,
 * metadata and mappings), slimtest_uring.c (io_uring) and
 * slimtest_splice.c (splice, tee, vmsplice, POSIX messages) and
 * slimtest_data.c (the remaining data paths).
 */
#ifndef SLIMTEST_H
#define SLIMTEST_H

#include <sys/types.h>

/* the descriptor kept by openw, openrw, scm-take */
extern int kept;

const char *ename(int e);
void report(const char *op, int e);
void print_level(const char *op, pid_t pid);
int do_read(const char *f);
/* unmaps the mapping kept by mmapkeep or mmapro, if any */
void slimtest_unmap_kept(void);

/*
 * Each runs operation @op with the arguments argv[i..argc-1]: returns how
 * many arguments it used, -1 if @op is not one of its operations, -2 if
 * its arguments are missing.
 */
int slimtest_ipc_op(const char *op, int argc, char **argv, int i);
int slimtest_proc_op(const char *op, int argc, char **argv, int i);
int slimtest_uring_op(const char *op, int argc, char **argv, int i);
int slimtest_splice_op(const char *op, int argc, char **argv, int i);
int slimtest_root_op(const char *op, int argc, char **argv, int i);
int slimtest_data_op(const char *op, int argc, char **argv, int i);
/* the child of the last spawn (slimtest_proc.c) */
pid_t slimtest_spawned(void);

#endif
