// SPDX-License-Identifier: Apache-2.0
/*
 * verifier_proc.c - the real attest-verifier in tests (see
 * verifier_proc.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attest/err.h"
#include "verifier_http.h"
#include "verifier_proc.h"

#define VP_MAX_ARGS    64
#define VP_START_TRIES 6000 /* 10 ms apart: a generous deadline (valgrind) */

struct att_vproc {
	pid_t pid;
	unsigned int port;
	char dir[512];
};

static int run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return ATT_E_IO;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return ATT_E_IO;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "verifier_proc: %s %s failed (status %d)\n",
			argv[0], argv[1] ? argv[1] : "", status);
		return ATT_E_IO;
	}
	return 0;
}

static int pki_script(char *out, size_t cap)
{
	const char *src = getenv("ATT_SRC");

	if (!src || !*src) {
		fprintf(stderr, "verifier_proc: ATT_SRC is not set\n");
		return ATT_E_INVAL;
	}
	snprintf(out, cap, "%s/deploy/pki.sh", src);
	return 0;
}

int att_pki_init(const char *dir)
{
	char sh[512];
	char *argv[] = {"/bin/sh", sh, "init", (char *)dir, NULL};

	if (pki_script(sh, sizeof(sh)))
		return ATT_E_INVAL;
	return run(argv);
}

int att_pki_client(const char *dir, const char *ca, const char *name)
{
	char sh[512];
	char *argv[] = {"/bin/sh",  sh,		  "client", (char *)dir,
			(char *)ca, (char *)name, NULL};

	if (pki_script(sh, sizeof(sh)))
		return ATT_E_INVAL;
	return run(argv);
}

int att_vproc_bin(const char *name, char *out, size_t cap)
{
	const char *b = getenv("ATT_BUILD");

	if (!b || !*b) {
		fprintf(stderr, "verifier_proc: ATT_BUILD is not set\n");
		return ATT_E_INVAL;
	}
	snprintf(out, cap, "%s/bin/%s", b, name);
	if (access(out, X_OK)) {
		fprintf(stderr, "verifier_proc: %s is not there (make rel)\n",
			out);
		return ATT_E_NOT_FOUND;
	}
	return 0;
}

static void nap(void)
{
	struct timespec ts = {0, 10 * 1000 * 1000};

	nanosleep(&ts, NULL);
}

/*
 * Under ATT_VALGRIND=1 every verifier runs in valgrind (memcheck: any
 * error or a definite, indirect or possible leak -> exit status 99, which
 * the tests' att_vproc_stop() sees as they see any unclean exit).
 */
static const char *const vp_valgrind[] = {
	"valgrind",
	"-q",
	"--error-exitcode=99",
	"--leak-check=full",
	"--errors-for-leak-kinds=definite,indirect,possible",
	"--show-leak-kinds=definite,indirect,possible",
	NULL};

int att_vproc_start(const char *dir, const char *db, const char *const *extra,
		    struct att_vproc **out)
{
	const char *v = getenv("ATT_VALGRIND");

	return att_vproc_start_wrapped(
		dir, db, extra, v && !strcmp(v, "1") ? vp_valgrind : NULL, out);
}

int att_vproc_start_wrapped(const char *dir, const char *db,
			    const char *const *extra, const char *const *wrap,
			    struct att_vproc **out)
{
	static unsigned int seq;
	char bin[512], f[6][600], logp[600], buf[32];
	const char *argv[VP_MAX_ARGS];
	struct att_vh_resp r;
	struct att_vproc *p;
	unsigned int n = 0, i;
	int fd, st;
	FILE *pf;

	*out = NULL;
	if (att_vproc_bin("attest-verifier", bin, sizeof(bin)))
		return ATT_E_NOT_FOUND;
	p = calloc(1, sizeof(*p));
	if (!p)
		return ATT_E_NOMEM;
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	seq++;
	snprintf(f[0], sizeof(f[0]), "%s/port-%d-%u", dir, (int)getpid(), seq);
	snprintf(f[1], sizeof(f[1]), "%s/server.pem", dir);
	snprintf(f[2], sizeof(f[2]), "%s/server.key", dir);
	snprintf(f[3], sizeof(f[3]), "%s/admin-ca.pem", dir);
	snprintf(f[4], sizeof(f[4]), "%s/agent-ca.pem", dir);
	snprintf(f[5], sizeof(f[5]), "%s/agent-ca.key", dir);
	snprintf(logp, sizeof(logp), "%s/verifier-%u.log", dir, seq);
	unlink(f[0]);
	for (i = 0; wrap && wrap[i] && n < VP_MAX_ARGS / 2; i++)
		argv[n++] = wrap[i];
	argv[n++] = bin;
	argv[n++] = "--listen";
	argv[n++] = "127.0.0.1:0";
	argv[n++] = "--port-file";
	argv[n++] = f[0];
	argv[n++] = "--tls-cert";
	argv[n++] = f[1];
	argv[n++] = "--tls-key";
	argv[n++] = f[2];
	argv[n++] = "--admin-ca";
	argv[n++] = f[3];
	argv[n++] = "--agent-ca";
	argv[n++] = f[4];
	argv[n++] = "--agent-ca-key";
	argv[n++] = f[5];
	argv[n++] = "--database";
	argv[n++] = db;
	argv[n++] = "--log-level";
	argv[n++] = "debug";
	for (i = 0; extra && extra[i] && n < VP_MAX_ARGS - 1; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;

	p->pid = fork();
	if (p->pid < 0) {
		free(p);
		return ATT_E_IO;
	}
	if (p->pid == 0) {
		/* Goes when the test goes, even when it crashes. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		fd = open(logp, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (i = 0; i < VP_START_TRIES; i++) {
		if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
			fprintf(stderr,
				"verifier_proc: attest-verifier exited "
				"(status %d) during startup; see %s\n",
				st, logp);
			p->pid = 0;
			free(p);
			return ATT_E_IO;
		}
		pf = fopen(f[0], "r");
		if (pf) {
			if (fgets(buf, sizeof(buf), pf))
				p->port = (unsigned int)strtoul(buf, NULL, 10);
			fclose(pf);
		}
		if (p->port && !att_vh_request(p->port, dir, NULL, "GET",
					       "/healthz", NULL, 0, &r)) {
			st = r.status;
			att_vh_resp_release(&r);
			if (st == 200) {
				*out = p;
				return 0;
			}
		}
		nap();
	}
	fprintf(stderr,
		"verifier_proc: attest-verifier did not become ready; "
		"see %s\n",
		logp);
	att_vproc_free(p);
	return ATT_E_TIMEOUT;
}

unsigned int att_vproc_port(const struct att_vproc *p)
{
	return p->port;
}

int att_vproc_pid(const struct att_vproc *p)
{
	return (int)p->pid;
}

int att_vproc_stop(struct att_vproc *p, int *status)
{
	int st;

	*status = -1;
	if (p->pid <= 0)
		return ATT_E_STATE;
	if (kill(p->pid, SIGTERM))
		return ATT_E_IO;
	while (waitpid(p->pid, &st, 0) < 0)
		if (errno != EINTR)
			return ATT_E_IO;
	p->pid = 0;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return 0;
}

void att_vproc_free(struct att_vproc *p)
{
	int st;

	if (!p)
		return;
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &st, 0);
	}
	free(p);
}
