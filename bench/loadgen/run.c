/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - att-bench-loadgen's phases: worker threads over the agents, in
 * one process or spread over several.
 *
 * Each libcurl easy handle that has run a transfer keeps a private multi
 * handle with a wakeup socket pair, so an agent costs three descriptors
 * with its connection; one process cannot hold 10,000 agents under a
 * 20,000-descriptor limit. With several processes, process k owns agents
 * k, k + P, k + 2P, ... and runs its share of the worker threads; the
 * counters, latencies and the open loop's ticket are in shared memory, so
 * a phase's numbers and its offered rate are the whole run's. The parent
 * starts each phase in every process through a pipe and waits for all.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attest/err.h"
#include "lg.h"

double lg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void lg_sleep_until(double t)
{
	double d = t - lg_now();
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static void lg_count(struct lg_run *r, int rc, int ok, double lat)
{
	struct lg_stats *st = r->st;
	unsigned long i;

	if (rc) {
		atomic_fetch_add(&st->errors, 1);
		return;
	}
	atomic_fetch_add(&st->done, 1);
	if (!ok)
		atomic_fetch_add(&st->mismatches, 1);
	i = atomic_fetch_add(&st->nlat, 1);
	if (i < LG_LAT_CAP)
		r->lat[i] = lat;
}

/* The run-wide index of this process's agent i. */
static unsigned int lg_global(const struct lg_run *r, unsigned int i)
{
	return i * r->nproc + r->proc;
}

/* Enrollment, warm-up, connect and prime: every agent once. */
static void lg_each(struct lg_run *r, struct lg_scratch *s)
{
	int phase = r->st->phase, rc, ok = 1;
	unsigned int i, n = r->n;
	double t;

	if (phase == LG_PH_PRIME) { /* this process's agents below primed */
		n = r->st->primed > r->proc
			    ? (r->st->primed - r->proc + r->nproc - 1) /
				      r->nproc
			    : 0;
		if (n > r->n)
			n = r->n;
	}
	while ((i = atomic_fetch_add(&r->cursor, 1)) < n) {
		if (phase == LG_PH_WARMUP && lg_global(r, i) < r->st->primed)
			continue;
		t = lg_now();
		if (phase == LG_PH_ENROLL) {
			unsigned int g = lg_global(r, i);

			rc = lg_agent_new(r->c, g, r->kind(g), &r->agents[i]);
			if (!rc)
				rc = lg_agent_enroll(r->agents[i], s);
			if (rc) { /* never used again */
				lg_agent_free(r->agents[i]);
				r->agents[i] = NULL;
			}
		} else {
			/* Warm-up and prime: connections closed, so that the
			 * memory measured after is the agents' state, not
			 * TLS; connect: every agent's keep-alive connection. */
			rc = r->agents[i]
				     ? lg_agent_round(r->agents[i], s,
						      phase != LG_PH_CONNECT,
						      &ok)
				     : ATT_E_STATE;
		}
		lg_count(r, rc, ok, lg_now() - t);
	}
}

static struct lg_agent *lg_pick(struct lg_run *r)
{
	unsigned int i, tries;
	struct lg_agent *a;

	for (tries = 0; tries < 2 * r->n; tries++) {
		i = atomic_fetch_add(&r->cursor, 1) % r->n;
		a = r->agents[i];
		if (a && lg_agent_claim(a))
			return a;
	}
	return NULL;
}

static void lg_measured(struct lg_run *r, struct lg_scratch *s)
{
	struct lg_stats *st = r->st;
	struct lg_agent *a;
	double ts, t1;
	unsigned long j;
	int rc, ok;

	for (;;) {
		if (st->rate > 0) {
			j = atomic_fetch_add(&st->ticket, 1);
			ts = st->t0 + (double)j / st->rate;
			if (ts >= st->end)
				return;
			lg_sleep_until(ts);
		} else {
			ts = lg_now();
			if (ts >= st->end)
				return;
		}
		a = r->n ? lg_pick(r) : NULL;
		if (!a) {
			lg_errorf("no free agent: more concurrency than "
				  "agents");
			atomic_fetch_add(&st->errors, 1);
			return;
		}
		rc = lg_agent_round(a, s, r->c->reconnect, &ok);
		t1 = lg_now();
		lg_agent_release(a);
		lg_count(r, rc, ok, t1 - ts);
	}
}

static void *lg_worker(void *arg)
{
	struct lg_run *r = arg;
	struct lg_scratch s;

	if (lg_scratch_init(&s, r->c)) {
		lg_scratch_release(&s);
		atomic_fetch_add(&r->st->errors, 1);
		return NULL;
	}
	if (r->st->phase != LG_PH_MEASURED)
		lg_each(r, &s);
	else
		lg_measured(r, &s);
	lg_scratch_release(&s);
	return NULL;
}

/* This process's worker threads for the phase in r->st. */
static int lg_threads(struct lg_run *r)
{
	pthread_t th[LG_MAX_THREADS];
	unsigned int i, nt = r->conc;

	atomic_store(&r->cursor, 0);
	if (nt > LG_MAX_THREADS)
		nt = LG_MAX_THREADS;
	if (r->st->phase == LG_PH_PRIME)
		nt = 1;
	for (i = 0; i < nt; i++)
		if (pthread_create(&th[i], NULL, lg_worker, r))
			break;
	nt = i;
	for (i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	return nt ? 0 : ATT_E_INTERNAL;
}

/* Machine-wide busy and total jiffies over every CPU (/proc/stat). */
static void lg_machine(double *busy, double *total)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "r");
	int i;

	*busy = *total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (i = 0; i < 8; i++)
			*total += (double)v[i];
		*busy = *total - (double)v[3] - (double)v[4]; /* idle, iowait */
	}
	fclose(f);
}

/* A child process: runs the phases the parent sends until told to stop. */
static int lg_child(struct lg_run *r, int cmd, int ack)
{
	char c = 0;
	int rc = 0;

	for (;;) {
		ssize_t n = read(cmd, &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1 || c == 'q')
			break;
		rc = lg_threads(r);
		c = rc ? 'e' : 'k';
		if (write(ack, &c, 1) != 1)
			break;
	}
	lg_run_free_agents(r);
	return rc;
}

int lg_run_start(struct lg_run *r, unsigned int nagents, unsigned int conc,
		 unsigned int nproc)
{
	size_t latsz = LG_LAT_CAP * sizeof(double);
	unsigned int k;
	int cmd[2], ack[2];
	pid_t pid;

	r->st = mmap(NULL, sizeof(*r->st), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	r->lat = mmap(NULL, latsz, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->st == MAP_FAILED || r->lat == MAP_FAILED)
		return ATT_E_NOMEM;
	memset(r->st, 0, sizeof(*r->st));
	r->total = nagents;
	r->conc_total = conc;
	r->nproc = nproc ? nproc : 1;
	if (r->nproc > LG_MAX_PROCS)
		return ATT_E_INVAL;
	r->proc = 0;
	if (r->nproc == 1) {
		r->n = nagents;
		r->conc = conc;
		r->agents = calloc(r->n ? r->n : 1, sizeof(*r->agents));
		return r->agents ? 0 : ATT_E_NOMEM;
	}
	r->conc = (conc + r->nproc - 1) / r->nproc;
	for (k = 0; k < r->nproc; k++) {
		if (pipe(cmd))
			return ATT_E_IO;
		if (pipe(ack)) {
			close(cmd[0]);
			close(cmd[1]);
			return ATT_E_IO;
		}
		fflush(NULL);
		pid = fork();
		if (pid < 0)
			return ATT_E_IO;
		if (pid == 0) {
			unsigned int j;

			for (j = 0; j < k; j++) { /* the siblings' pipes */
				close(r->cmd[j]);
				close(r->ack[j]);
			}
			close(cmd[1]);
			close(ack[0]);
			r->proc = k;
			r->n = nagents / r->nproc + (k < nagents % r->nproc);
			r->agents = calloc(r->n ? r->n : 1, sizeof(*r->agents));
			r->is_child = 1;
			r->child_rc = r->agents ? lg_child(r, cmd[0], ack[1])
						: ATT_E_NOMEM;
			close(cmd[0]);
			close(ack[1]);
			return 0;
		}
		close(cmd[0]);
		close(ack[1]);
		r->pids[k] = pid;
		r->cmd[k] = cmd[1];
		r->ack[k] = ack[0];
	}
	return 0;
}

int lg_phase(struct lg_run *r, int phase, double duration, double rate)
{
	struct lg_stats *st = r->st;
	double b0, t0, b1, t1;
	unsigned int k;
	int rc = 0;
	char c;

	st->phase = phase;
	atomic_store(&st->ticket, 0);
	atomic_store(&st->done, 0);
	atomic_store(&st->errors, 0);
	atomic_store(&st->mismatches, 0);
	atomic_store(&st->nlat, 0);
	st->rate = rate;
	st->t0 = lg_now();
	st->end = st->t0 + duration;
	lg_machine(&b0, &t0);
	if (r->nproc == 1) {
		rc = lg_threads(r);
	} else {
		c = 'p';
		for (k = 0; k < r->nproc; k++)
			if (write(r->cmd[k], &c, 1) != 1)
				rc = ATT_E_IO;
		for (k = 0; k < r->nproc; k++) {
			if (read(r->ack[k], &c, 1) != 1 || c != 'k')
				rc = rc ? rc : ATT_E_INTERNAL;
		}
	}
	lg_machine(&b1, &t1);
	r->busy = t1 > t0 ? (b1 - b0) / (t1 - t0) *
				    (double)sysconf(_SC_NPROCESSORS_ONLN)
			  : NAN;
	return rc;
}

int lg_proc_read(const int *pids, unsigned int n, struct lg_proc *p)
{
	char path[64], buf[1024], *q;
	unsigned long ut, st;
	unsigned int i;
	long tck = sysconf(_SC_CLK_TCK);
	FILE *f;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", pids[i]);
		f = fopen(path, "r");
		if (!f)
			return ATT_E_IO;
		q = fgets(buf, sizeof(buf), f);
		fclose(f);
		q = q ? strrchr(buf, ')') : NULL;
		/* after ")": state(3) ... utime(14) stime(15) */
		if (!q || sscanf(q + 2,
				 "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
				 "%*u %lu %lu",
				 &ut, &st) != 2)
			return ATT_E_FORMAT;
		p->cpu += (double)(ut + st) / (double)tck;
		snprintf(path, sizeof(path), "/proc/%d/status", pids[i]);
		f = fopen(path, "r");
		if (!f)
			return ATT_E_IO;
		while (fgets(buf, sizeof(buf), f)) {
			long v;

			if (sscanf(buf, "VmRSS: %ld", &v) == 1)
				p->rss_kb += v;
			else if (sscanf(buf, "VmHWM: %ld", &v) == 1)
				p->hwm_kb += v;
		}
		fclose(f);
	}
	return 0;
}

/* utime + stime of pid, seconds; NAN when unreadable. */
static double lg_pid_cpu(int pid)
{
	struct lg_proc p;

	return lg_proc_read(&pid, 1, &p) ? NAN : p.cpu;
}

double lg_gen_cpu(const struct lg_run *r)
{
	struct rusage ru;
	double cpu;
	unsigned int k;

	getrusage(RUSAGE_SELF, &ru);
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	for (k = 0; r->nproc > 1 && k < r->nproc; k++)
		cpu += lg_pid_cpu(r->pids[k]);
	return cpu;
}

void lg_run_free_agents(struct lg_run *r)
{
	unsigned int i;

	for (i = 0; r->agents && i < r->n; i++)
		lg_agent_free(r->agents[i]);
	free(r->agents);
	r->agents = NULL;
	r->n = 0;
}

int lg_run_stop(struct lg_run *r)
{
	unsigned int k;
	int status, rc = 0;
	char c = 'q';

	if (r->is_child)
		return r->child_rc;
	for (k = 0; r->nproc > 1 && k < r->nproc; k++) {
		if (write(r->cmd[k], &c, 1) != 1)
			kill(r->pids[k], SIGTERM);
		close(r->cmd[k]);
		close(r->ack[k]);
	}
	for (k = 0; r->nproc > 1 && k < r->nproc; k++) {
		if (waitpid(r->pids[k], &status, 0) != r->pids[k] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			rc = ATT_E_INTERNAL;
	}
	lg_run_free_agents(r);
	if (r->st && r->st != MAP_FAILED)
		munmap(r->st, sizeof(*r->st));
	if (r->lat && r->lat != MAP_FAILED)
		munmap(r->lat, LG_LAT_CAP * sizeof(double));
	r->st = NULL;
	r->lat = NULL;
	return rc;
}
