// SPDX-License-Identifier: GPL-2.0
/*
 * slimtest's operations on another process, on a file's metadata and on
 * mappings:
 *
 *   spawn LOW          fork a child that reads LOW ("-": nothing) and then
 *                      waits (it ends when this process does)  "spawn OK|ERRNO"
 *   ptrace-attach      PTRACE_ATTACH to the child, then detach  "ptrace-attach ..."
 *   proc-mem-write     open /proc/CHILD/mem for writing         "proc-mem-write ..."
 *   vm-write           process_vm_writev() one byte into it     "vm-write ..."
 *   kill SIG           kill(CHILD, SIG): TERM, USR1, CHLD or 0  "kill ..."
 *   sigio-from LOW     a child reads LOW, makes this process the SIGIO
 *                      owner of a pipe (F_SETOWN, F_SETSIG SIGUSR2,
 *                      O_ASYNC) and writes into it: "sigio-from OK" when
 *                      the signal arrived within a second, else EAGAIN
 *   sigio-own LOW      this process owns the pipe; a child reads LOW and
 *                      writes into it                           "sigio-own ..."
 *   truncate F         truncate(F, 0)                           "truncate ..."
 *   ftruncfd           ftruncate(kept fd, 0)                    "ftruncfd ..."
 *   chmod F / chown F  chmod(F, 0600) / chown(F, 0, 0)          "chmod ..."
 *   utime F            utimes(F, NULL)                          "utime ..."
 *   unlink F           unlink(F)                                "unlink ..."
 *   rename A B         rename(A, B)                             "rename ..."
 *   link A B           link(A, B)                               "link ..."
 *   symlink T B        symlink(T, B)                            "symlink ..."
 *   mkdir D, rmdir D   mkdir(D, 0755), rmdir(D)                 "mkdir ..."
 *   mkfifo F           mkfifo(F, 0600)                          "mkfifo ..."
 *   mmapkeep           map the kept fd shared and writable, keep it
 *   mmapro             map the kept fd shared and read-only, keep it
 *   mprotw             mprotect(PROT_READ|PROT_WRITE) of the kept mapping
 *   unmap              munmap the kept mapping
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slimtest.h"

static pid_t child = -1;
static void *mapped;
static volatile char target_byte = 'a';

pid_t slimtest_spawned(void)
{
	return child;
}

/*
 * The child blocks reading a pipe whose other end only this process holds:
 * it reads EOF and ends when this process does, without a signal (which a
 * demoted parent could not send it).
 */
static int op_spawn(const char *low)
{
	int p[2], st;

	if (pipe2(p, O_CLOEXEC))
		return errno;
	child = fork();
	if (child < 0)
		return errno;
	if (child == 0) {
		char c;

		close(p[1]);
		if (strcmp(low, "-")) {
			if (do_read(low))
				_exit(1);
			/* demoted: stop, so the parent knows */
			raise(SIGSTOP);
		}
		while (read(p[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(p[0]);
	if (strcmp(low, "-")) {
		if (waitpid(child, &st, WUNTRACED) != child || !WIFSTOPPED(st))
			return EIO;
		/* down in integrity: allowed */
		if (kill(child, SIGCONT))
			return errno;
	}
	return 0;
}

static int op_ptrace_attach(void)
{
	int st;

	if (ptrace(PTRACE_ATTACH, child, NULL, NULL))
		return errno;
	waitpid(child, &st, __WALL);
	ptrace(PTRACE_DETACH, child, NULL, NULL);
	return 0;
}

static int op_proc_mem_write(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)child);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int op_vm_write(void)
{
	char b = 'z';
	struct iovec l = { .iov_base = &b, .iov_len = 1 };
	struct iovec r = { .iov_base = (void *)&target_byte, .iov_len = 1 };

	return process_vm_writev(child, &l, 1, &r, 1, 0) == 1 ? 0 : errno;
}

static int op_kill(const char *sig)
{
	int s;

	if (!strcmp(sig, "TERM"))
		s = SIGTERM;
	else if (!strcmp(sig, "USR1"))
		s = SIGUSR1;
	else if (!strcmp(sig, "CHLD"))
		s = SIGCHLD;
	else if (!strcmp(sig, "0"))
		s = 0;
	else
		return EINVAL;
	return kill(child, s) ? errno : 0;
}

/* the pipe's read end @fd signals SIGUSR2 to @owner when written */
static int sigio_arm(int fd, pid_t owner)
{
	if (fcntl(fd, F_SETOWN, owner) || fcntl(fd, F_SETSIG, SIGUSR2) ||
	    fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK))
		return errno;
	return 0;
}

static int op_sigio(const char *low, int own)
{
	struct timespec to = { .tv_sec = 1 };
	sigset_t set, old;
	int p[2], st, e;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, &old))
		return errno;
	if (pipe(p)) {
		e = errno;
		goto out;
	}
	if (own && (e = sigio_arm(p[0], getpid())))
		goto out_pipe;
	pid = fork();
	if (pid < 0) {
		e = errno;
		goto out_pipe;
	}
	if (pid == 0) {
		slimtest_unmap_kept();
		if (strcmp(low, "-") && do_read(low))
			_exit(1);
		if (!own && sigio_arm(p[0], getppid()))
			_exit(2);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 3);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		e = EIO;
		goto out_pipe;
	}
	e = sigtimedwait(&set, NULL, &to) == SIGUSR2 ? 0 : errno;
out_pipe:
	close(p[0]);
	close(p[1]);
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return e;
}

void slimtest_unmap_kept(void)
{
	if (mapped)
		munmap(mapped, 4096);
	mapped = NULL;
}

static int op_map(int prot)
{
	mapped = mmap(NULL, 4096, prot, MAP_SHARED, kept, 0);
	if (mapped == MAP_FAILED) {
		mapped = NULL;
		return errno;
	}
	return 0;
}

int slimtest_proc_op(const char *op, int argc, char **argv, int i)
{
	const char *a = i < argc ? argv[i] : NULL;
	int e;

	if (!strcmp(op, "spawn") && a) {
		report(op, op_spawn(a));
		return 1;
	}
	if (!strcmp(op, "ptrace-attach")) {
		report(op, op_ptrace_attach());
		return 0;
	}
	if (!strcmp(op, "proc-mem-write")) {
		report(op, op_proc_mem_write());
		return 0;
	}
	if (!strcmp(op, "vm-write")) {
		report(op, op_vm_write());
		return 0;
	}
	if (!strcmp(op, "kill") && a) {
		report(op, op_kill(a));
		return 1;
	}
	if (!strcmp(op, "ftruncfd")) {
		report(op, ftruncate(kept, 0) ? errno : 0);
		return 0;
	}
	if (!strcmp(op, "mmapkeep") || !strcmp(op, "mmapro")) {
		report(op, op_map(op[4] == 'k' ? PROT_READ | PROT_WRITE :
				  PROT_READ));
		return 0;
	}
	if (!strcmp(op, "mprotw")) {
		report(op, mprotect(mapped, 4096, PROT_READ | PROT_WRITE) ?
				   errno : 0);
		return 0;
	}
	if (!strcmp(op, "unmap")) {
		e = munmap(mapped, 4096) ? errno : 0;
		mapped = NULL;
		report(op, e);
		return 0;
	}
	if (!a) {
		return -1;
	} else if (!strcmp(op, "sigio-from") || !strcmp(op, "sigio-own")) {
		e = op_sigio(a, op[6] == 'o');
	} else if (!strcmp(op, "truncate")) {
		e = truncate(a, 0) ? errno : 0;
	} else if (!strcmp(op, "chmod")) {
		e = chmod(a, 0600) ? errno : 0;
	} else if (!strcmp(op, "chown")) {
		e = chown(a, 0, 0) ? errno : 0;
	} else if (!strcmp(op, "utime")) {
		e = utimes(a, NULL) ? errno : 0;
	} else if (!strcmp(op, "unlink")) {
		e = unlink(a) ? errno : 0;
	} else if (!strcmp(op, "mkdir")) {
		e = mkdir(a, 0755) ? errno : 0;
	} else if (!strcmp(op, "rmdir")) {
		e = rmdir(a) ? errno : 0;
	} else if (!strcmp(op, "mkfifo")) {
		e = mkfifo(a, 0600) ? errno : 0;
	} else if (!strcmp(op, "rename") || !strcmp(op, "link") ||
		   !strcmp(op, "symlink")) {
		if (i + 1 >= argc)
			return -2;
		e = op[0] == 'r' ? rename(a, argv[i + 1]) :
		    op[0] == 'l' ? link(a, argv[i + 1]) :
				   symlink(a, argv[i + 1]);
		report(op, e ? errno : 0);
		return 2;
	} else {
		return -1;
	}
	report(op, e);
	return 1;
}
