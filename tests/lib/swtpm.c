// SPDX-License-Identifier: Apache-2.0
/*
 * swtpm.c - a private swtpm per test (see swtpm.h).
 */
#include "swtpm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "attest/err.h"

struct att_swtpm {
	char dir[128];
	char tcti[96];
	int port;
	pid_t pid;
};

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Binds 127.0.0.1:port (0: any); returns the fd and the bound port. */
static int bind_port(int port, int *bound)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen)) {
		close(fd);
		return -1;
	}
	*bound = ntohs(a.sin_port);
	return fd;
}

/* A port P such that P and P+1 are both free right now. */
static int free_port_pair(int *port)
{
	int i;

	for (i = 0; i < 64; i++) {
		int p, p2, fd, fd2;

		fd = bind_port(0, &p);
		if (fd < 0)
			return ATT_E_IO;
		if (p >= 65535) {
			close(fd);
			continue;
		}
		fd2 = bind_port(p + 1, &p2);
		close(fd);
		if (fd2 >= 0) {
			close(fd2);
			*port = p;
			return ATT_OK;
		}
	}
	return ATT_E_IO;
}

static int port_accepts(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ok;

	if (fd < 0)
		return 0;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* fork + exec argv with stdout/stderr appended to logpath. */
static pid_t spawn(char *const argv[], const char *logpath)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0600);
		int nul = open("/dev/null", O_RDONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul >= 0)
			dup2(nul, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static void dump_log(const char *what, const char *logpath)
{
	char line[512];
	FILE *f = fopen(logpath, "r");

	fprintf(stderr, "swtpm: %s failed; log %s:\n", what, logpath);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "  | %s", line);
	fclose(f);
}

static int run_setup(struct att_swtpm *s)
{
	char log[192];
	char *argv[] = {"swtpm_setup", "--tpm2",	   "--tpmstate",
			s->dir,	       "--create-ek-cert", "--lock-nvram",
			"--pcr-banks", "sha1,sha256",	   "--overwrite",
			NULL};
	int st;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/setup.log", s->dir);
	pid = spawn(argv, log);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		dump_log("swtpm_setup", log);
		return ATT_E_IO;
	}
	return ATT_OK;
}

static int launch(struct att_swtpm *s)
{
	char log[192], state[160], server[96], ctrl[96];
	char *argv[] = {"swtpm",
			"socket",
			"--tpm2",
			"--tpmstate",
			state,
			"--server",
			server,
			"--ctrl",
			ctrl,
			"--flags",
			"not-need-init,startup-clear",
			NULL};
	int try, rc;

	snprintf(log, sizeof(log), "%s/swtpm.log", s->dir);
	snprintf(state, sizeof(state), "dir=%s", s->dir);
	for (try = 0; try < 5; try++) {
		/* a restart keeps its ports when they are still free */
		if (!(try == 0 && s->port > 0)) {
			rc = free_port_pair(&s->port);
			if (rc)
				return rc;
		}
		snprintf(server, sizeof(server),
			 "type=tcp,port=%d,bindaddr=127.0.0.1", s->port);
		snprintf(ctrl, sizeof(ctrl),
			 "type=tcp,port=%d,bindaddr=127.0.0.1", s->port + 1);
		s->pid = spawn(argv, log);
		if (s->pid < 0)
			return ATT_E_IO;
		for (int i = 0; i < 250; i++) {
			int st;

			if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
				s->pid = 0;
				break; /* died: port taken? try another */
			}
			if (port_accepts(s->port + 1)) {
				snprintf(s->tcti, sizeof(s->tcti),
					 "swtpm:host=127.0.0.1,port=%d",
					 s->port);
				return ATT_OK;
			}
			sleep_ms(20);
		}
		if (s->pid > 0)
			att_swtpm_stop(s);
	}
	dump_log("swtpm start", log);
	return ATT_E_IO;
}

int att_swtpm_start(struct att_swtpm **out)
{
	struct att_swtpm *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");
	int rc;

	*out = NULL;
	if (!s)
		return ATT_E_NOMEM;
	snprintf(s->dir, sizeof(s->dir), "%s/att-swtpm-XXXXXX",
		 tmp && *tmp && strlen(tmp) < 80 ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		fprintf(stderr, "swtpm: mkdtemp %s: %s\n", s->dir,
			strerror(errno));
		free(s);
		return ATT_E_IO;
	}
	rc = run_setup(s);
	if (!rc)
		rc = launch(s);
	if (rc) {
		att_swtpm_free(s);
		return rc;
	}
	*out = s;
	return ATT_OK;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = NULL;
	size_t n;
	int rc = ATT_E_IO;

	if (in)
		out = fopen(to, "wb");
	if (!in || !out)
		goto done;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			goto done;
	rc = ferror(in) ? ATT_E_IO : ATT_OK;
done:
	if (out && fclose(out))
		rc = ATT_E_IO;
	if (in)
		fclose(in);
	return rc;
}

int att_swtpm_copy(const struct att_swtpm *src, struct att_swtpm **out)
{
	struct att_swtpm *s;
	struct dirent *de;
	char from[400], to[400];
	DIR *d;
	int rc = ATT_OK;

	*out = NULL;
	if (src->pid > 0)
		return ATT_E_STATE;
	s = calloc(1, sizeof(*s));
	if (!s)
		return ATT_E_NOMEM;
	if (strlen(src->dir) + 14 > sizeof(s->dir)) {
		free(s);
		return ATT_E_TOO_BIG;
	}
	memcpy(s->dir, src->dir, strlen(src->dir));
	memcpy(s->dir + strlen(src->dir), "-clone-XXXXXX", 14);
	if (!mkdtemp(s->dir)) {
		free(s);
		return ATT_E_IO;
	}
	d = opendir(src->dir);
	if (!d) {
		att_swtpm_free(s);
		return ATT_E_IO;
	}
	while (!rc && (de = readdir(d))) {
		struct stat st;

		snprintf(from, sizeof(from), "%s/%s", src->dir, de->d_name);
		if (stat(from, &st) || !S_ISREG(st.st_mode) ||
		    strstr(de->d_name, ".log"))
			continue;
		snprintf(to, sizeof(to), "%s/%s", s->dir, de->d_name);
		rc = copy_file(from, to);
	}
	closedir(d);
	if (rc) {
		att_swtpm_free(s);
		return rc;
	}
	*out = s;
	return ATT_OK;
}

const char *att_swtpm_tcti(const struct att_swtpm *s)
{
	return s->tcti;
}

const char *att_swtpm_dir(const struct att_swtpm *s)
{
	return s->dir;
}

int att_swtpm_port(const struct att_swtpm *s)
{
	return s->port;
}

int att_swtpm_stop(struct att_swtpm *s)
{
	int st, i;

	if (!s || s->pid <= 0)
		return ATT_OK;
	kill(s->pid, SIGTERM);
	for (i = 0; i < 250; i++) {
		if (waitpid(s->pid, &st, WNOHANG) == s->pid)
			break;
		sleep_ms(20);
	}
	if (i == 250) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, &st, 0);
	}
	s->pid = 0;
	return ATT_OK;
}

int att_swtpm_kill(struct att_swtpm *s)
{
	int st;

	if (!s || s->pid <= 0)
		return ATT_E_STATE;
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &st, 0);
	s->pid = 0;
	return ATT_OK;
}

int att_swtpm_restart(struct att_swtpm *s)
{
	int rc = att_swtpm_stop(s);

	return rc ? rc : launch(s);
}

unsigned int att_tpm_clock_safe_again(ESYS_CONTEXT *esys)
{
	TPMS_TIME_INFO *ti = NULL;
	TSS2_RC rc;

	rc = Esys_ReadClock(esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
			    &ti);
	if (rc)
		return rc;
	rc = Esys_ClockSet(esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD,
			   ESYS_TR_NONE, ESYS_TR_NONE,
			   ti->clockInfo.clock + (UINT64_C(1) << 23));
	Esys_Free(ti);
	return rc;
}

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void att_swtpm_free(struct att_swtpm *s)
{
	if (!s)
		return;
	att_swtpm_stop(s);
	if (!getenv("ATT_KEEP_SWTPM"))
		nftw(s->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	else
		fprintf(stderr, "swtpm: state kept in %s\n", s->dir);
	free(s);
}
