// SPDX-License-Identifier: Apache-2.0
/*
 * pg_cluster.c - a private PostgreSQL for tests (see pg_cluster.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attest/err.h"
#include "pg_cluster.h"

#define PG_BIN "/usr/lib/postgresql/15/bin"

struct att_pg {
	char dir[64];
	char url[128];
	int port;
	int running;
};

static int free_port(void)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    !getsockname(fd, (struct sockaddr *)&sa, &sl))
		port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

/* Runs argv as the postgres user (runuser), output to dir/log. */
static int run_pg(struct att_pg *pg, const char *const *args)
{
	const char *argv[24];
	char logp[128];
	int n = 0, st;
	pid_t pid;

	argv[n++] = "runuser";
	argv[n++] = "-u";
	argv[n++] = "postgres";
	argv[n++] = "--";
	while (*args && n < 22)
		argv[n++] = *args++;
	argv[n] = NULL;
	snprintf(logp, sizeof(logp), "%s/cmd.log", pg->dir);
	pid = fork();
	if (pid < 0)
		return ATT_E_IO;
	if (pid == 0) {
		if (!freopen(logp, "a", stdout) || !freopen(logp, "a", stderr))
			_exit(126);
		execvp("runuser", (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "pg_cluster: %s failed; see %s\n", argv[4],
			logp);
		return ATT_E_IO;
	}
	return 0;
}

/* pg_ctl start on pg->port; sets pg->running. */
static int pg_ctl_start(struct att_pg *pg)
{
	char data[96], opts[256], log[96];
	const char *a[] = {
		PG_BIN "/pg_ctl", "-D", data, "-l", log, "-w", "-o", opts,
		"start",	  NULL};

	snprintf(data, sizeof(data), "%s/data", pg->dir);
	snprintf(log, sizeof(log), "%s/server.log", pg->dir);
	snprintf(opts, sizeof(opts),
		 "-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off",
		 pg->port, pg->dir);
	if (run_pg(pg, a))
		return ATT_E_IO;
	pg->running = 1;
	return 0;
}

int att_pg_start(struct att_pg **out)
{
	struct passwd *pw = getpwnam("postgres");
	struct att_pg *pg;
	char data[96], log[96];
	int tries;

	*out = NULL;
	if (!pw) {
		fprintf(stderr, "pg_cluster: no 'postgres' user (install "
				"postgresql)\n");
		return ATT_E_NOT_FOUND;
	}
	if (access(PG_BIN "/initdb", X_OK)) {
		fprintf(stderr, "pg_cluster: %s/initdb missing\n", PG_BIN);
		return ATT_E_NOT_FOUND;
	}
	pg = calloc(1, sizeof(*pg));
	if (!pg)
		return ATT_E_NOMEM;
	snprintf(pg->dir, sizeof(pg->dir), "/tmp/att-pg-XXXXXX");
	if (!mkdtemp(pg->dir) || chown(pg->dir, pw->pw_uid, pw->pw_gid)) {
		free(pg);
		return ATT_E_IO;
	}
	snprintf(data, sizeof(data), "%s/data", pg->dir);
	snprintf(log, sizeof(log), "%s/server.log", pg->dir);
	{
		const char *a[] = {
			PG_BIN "/initdb", "-D", data, "-A", "trust", "-U",
			"postgres",	  "-N", NULL};

		if (run_pg(pg, a))
			goto fail;
	}
	/* A port can be taken between the probe and the start: retry. */
	for (tries = 0; tries < 5 && !pg->running; tries++) {
		pg->port = free_port();
		pg_ctl_start(pg);
	}
	if (!pg->running) {
		fprintf(stderr,
			"pg_cluster: the server did not start; see %s\n", log);
		goto fail;
	}
	snprintf(pg->url, sizeof(pg->url),
		 "postgresql://postgres@127.0.0.1:%d/postgres", pg->port);
	*out = pg;
	return 0;
fail:
	att_pg_free(pg);
	return ATT_E_IO;
}

const char *att_pg_url(const struct att_pg *pg)
{
	return pg->url;
}

int att_pg_stop(struct att_pg *pg, int immediate)
{
	char data[96];
	const char *a[] = {PG_BIN "/pg_ctl",
			   "-D",
			   data,
			   "-m",
			   immediate ? "immediate" : "fast",
			   "-w",
			   "stop",
			   NULL};

	if (!pg->running)
		return ATT_E_STATE;
	snprintf(data, sizeof(data), "%s/data", pg->dir);
	if (run_pg(pg, a))
		return ATT_E_IO;
	pg->running = 0;
	return 0;
}

int att_pg_resume(struct att_pg *pg)
{
	if (pg->running)
		return ATT_E_STATE;
	return pg_ctl_start(pg);
}

void att_pg_free(struct att_pg *pg)
{
	char cmd[160];

	if (!pg)
		return;
	if (pg->running)
		att_pg_stop(pg, 0);
	if (!getenv("ATT_KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", pg->dir);
		if (system(cmd))
			fprintf(stderr, "pg_cluster: cannot remove %s\n",
				pg->dir);
	}
	free(pg);
}
