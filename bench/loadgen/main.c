/* SPDX-License-Identifier: Apache-2.0 */
/*
 * att-bench-loadgen - verifier load generator (issue 9): N simulated
 * agents (software EK and AK) enroll with real attest-verifier processes
 * and attest over keep-alive TLS with their own client certificates, in a
 * closed loop (saturation) and at a fixed offered rate (open loop); every
 * verdict is checked. See --help and bench/README.md.
 */
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <openssl/pem.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "lg.h"

#define LG_MAX_URLS 8
#define LG_MAX_PIDS 8
#define LG_LAT_CAP  (4u << 20)

static void lg_usage(FILE *f)
{
	fputs("NAME\n"
	      "    att-bench-loadgen - simulated agents against "
	      "attest-verifier\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    att-bench-loadgen --selftest [N]\n"
	      "    att-bench-loadgen --url URL [--url URL...] --pki DIR\n"
	      "                      --ek-ca-cert FILE --ek-ca-key FILE "
	      "[OPTION...]\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    Uploads a whitelist of the simulated hosts' files, enrolls "
	      "N agents\n"
	      "    (admin token, POST /v1/enroll with a software EK "
	      "certified by the\n"
	      "    given TPM vendor CA and a software P-256 AK, "
	      "ActivateCredential,\n"
	      "    /v1/enroll/activate with a CSR), runs one warm-up round "
	      "per agent\n"
	      "    (connection closed after it), one more leaving every "
	      "agent's\n"
	      "    connection open, then a closed-loop phase (C rounds in "
	      "flight) and,\n"
	      "    with --rate or --rate-frac, an open-loop phase at a fixed\n"
	      "    offered rate. A round is challenge, quote\n"
	      "    over sha256 PCRs 0-10, evidence with E new ima-ng "
	      "entries. Agent i\n"
	      "    talks to URL number i mod the number of URLs, over its "
	      "own keep-alive\n"
	      "    TLS connection. Every verdict is checked: honest agents "
	      "must be\n"
	      "    trusted, misbehaving ones untrusted.\n"
	      "\n"
	      "OPTIONS\n"
	      "    --selftest [N]     software TPM self-test only (N EKs of "
	      "each kind)\n"
	      "    --url URL          verifier base URL (repeatable, up to 8)\n"
	      "    --pki DIR          deploy/pki.sh directory (server-ca.pem, "
	      "admin.pem,\n"
	      "                       admin.key)\n"
	      "    --ek-ca-cert FILE  TPM vendor CA certificate (PEM), in the "
	      "verifier's\n"
	      "                       ek_ca_dir\n"
	      "    --ek-ca-key FILE   its private key (PEM)\n"
	      "    --agents N         simulated agents (default 1000)\n"
	      "    --concurrency C    rounds in flight / worker threads "
	      "(default 32)\n"
	      "    --duration S       seconds of each measured phase "
	      "(default 20)\n"
	      "    --rate R           open-loop phase at R attestations/s\n"
	      "    --rate-frac F      open-loop phase at F x the saturation "
	      "rate measured\n"
	      "    --entries E        new IMA entries per round (default 100)\n"
	      "    --files F          whitelisted files (default 10000)\n"
	      "    --bad-sig FRAC     fraction of agents with broken quote "
	      "signatures\n"
	      "    --unknown FRAC     fraction of agents measuring a file "
	      "not whitelisted\n"
	      "    --first-big N      then one more agent whose first "
	      "attestation has\n"
	      "                       N entries; its time is reported\n"
	      "    --rsa-ek           RSA-2048 EKs (about 0.34 s each to "
	      "make) instead\n"
	      "                       of ECC P-256 EKs\n"
	      "    --reconnect        a new TLS connection every round\n"
	      "    --verifier-pid PID verifier process to account CPU and "
	      "memory of\n"
	      "                       (repeatable)\n"
	      "    --prefix P         agent id prefix (default lg)\n"
	      "    --timeout S        seconds per request (default 120)\n"
	      "    --soak S           instead of the measured phases: S "
	      "seconds at --rate R,\n"
	      "                       one report line a minute; requests "
	      "that fail (a\n"
	      "                       verifier restarting) are counted, not "
	      "fatal; only a\n"
	      "                       wrong verdict fails the run\n"
	      "    --help             this text\n"
	      "\n"
	      "OUTPUT\n"
	      "    Human-readable lines, and one 'result' line per phase "
	      "with key=value\n"
	      "    pairs for scripts.\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 all verdicts as expected and no failed request; 1 "
	      "otherwise;\n"
	      "    2 usage.\n",
	      f);
}

struct lg_opts {
	char *urls[LG_MAX_URLS];
	unsigned int nurls;
	const char *pki, *ekca_cert, *ekca_key, *prefix;
	long agents, conc, duration, entries, files, big, timeout, soak;
	double rate, rate_frac, bad_sig, unknown;
	int rsa_ek, reconnect;
	int pids[LG_MAX_PIDS];
	unsigned int npids;
};

struct lg_stats {
	atomic_ulong done, errors, mismatches;
	atomic_ulong nlat;
	double *lat;
};

struct lg_run {
	struct lg_conf *c;
	struct lg_agent **agents;
	unsigned int n;
	unsigned int conc;
	atomic_uint cursor;
	atomic_ulong ticket;
	double t0, end, rate; /* rate 0: closed loop */
	struct lg_stats st;
	int phase;   /* 0 enroll, 1 warm-up, 3 connect, 2 measured */
	int skip0;   /* warm-up: agent 0 had its first round already */
	double busy; /* machine CPU busy during the phase, in cores */
};

static double lg_now(void)
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

/* ---- process accounting (/proc) ---- */

struct lg_proc {
	double cpu;	     /* utime + stime, seconds, summed */
	long rss_kb, hwm_kb; /* summed */
};

static int lg_proc_read(const int *pids, unsigned int n, struct lg_proc *p)
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

/* Whole machine: busy and total jiffies over every CPU (/proc/stat). */
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

static double lg_self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* ---- workers ---- */

static enum lg_kind lg_kind_of(const struct lg_opts *o, unsigned int i)
{
	/* Golden-ratio spread: the fractions hold for any number of agents. */
	double r = fmod(((double)i + 0.5) * 0.6180339887498949, 1.0);

	if (r < o->bad_sig)
		return LG_BAD_SIG;
	if (r < o->bad_sig + o->unknown)
		return LG_UNKNOWN;
	return LG_HONEST;
}

static const struct lg_opts *lg_o;

static void lg_count(struct lg_run *r, int rc, int ok, double lat)
{
	unsigned long i;

	if (rc) {
		atomic_fetch_add(&r->st.errors, 1);
		return;
	}
	atomic_fetch_add(&r->st.done, 1);
	if (!ok)
		atomic_fetch_add(&r->st.mismatches, 1);
	if (r->st.lat) {
		i = atomic_fetch_add(&r->st.nlat, 1);
		if (i < LG_LAT_CAP)
			r->st.lat[i] = lat;
	}
}

/* Enrollment and warm-up: every agent once. */
static void lg_each(struct lg_run *r, struct lg_scratch *s)
{
	unsigned int i;
	int rc, ok = 1;
	double t;

	while ((i = atomic_fetch_add(&r->cursor, 1)) < r->n) {
		if (i == 0 && r->skip0)
			continue;
		t = lg_now();
		if (r->phase == 0) {
			rc = lg_agent_new(r->c, i, lg_kind_of(lg_o, i),
					  &r->agents[i]);
			if (!rc)
				rc = lg_agent_enroll(r->agents[i], s);
			if (rc) { /* never used again */
				lg_agent_free(r->agents[i]);
				r->agents[i] = NULL;
			}
		} else {
			/* Warm-up: connections closed, so that the memory
			 * measured after it is the agents' state, not TLS;
			 * connect: every agent's keep-alive connection. */
			rc = r->agents[i] ? lg_agent_round(r->agents[i], s,
							   r->phase == 1, &ok)
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
	struct lg_agent *a;
	double ts, t1;
	unsigned long j;
	int rc, ok;

	for (;;) {
		if (r->rate > 0) {
			j = atomic_fetch_add(&r->ticket, 1);
			ts = r->t0 + (double)j / r->rate;
			if (ts >= r->end)
				return;
			lg_sleep_until(ts);
		} else {
			ts = lg_now();
			if (ts >= r->end)
				return;
		}
		a = lg_pick(r);
		if (!a) {
			lg_errorf("no free agent: more concurrency than "
				  "agents");
			atomic_fetch_add(&r->st.errors, 1);
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
		atomic_fetch_add(&r->st.errors, 1);
		return NULL;
	}
	if (r->phase != 2)
		lg_each(r, &s);
	else
		lg_measured(r, &s);
	lg_scratch_release(&s);
	return NULL;
}

static int lg_phase(struct lg_run *r, int phase, double duration, double rate)
{
	pthread_t th[1024];
	unsigned int i, nt = r->conc;
	double b0, t0, b1, t1;

	r->phase = phase;
	atomic_store(&r->cursor, 0);
	atomic_store(&r->ticket, 0);
	atomic_store(&r->st.done, 0);
	atomic_store(&r->st.errors, 0);
	atomic_store(&r->st.mismatches, 0);
	atomic_store(&r->st.nlat, 0);
	r->rate = rate;
	r->t0 = lg_now();
	r->end = r->t0 + duration;
	if (nt > 1024)
		nt = 1024;
	lg_machine(&b0, &t0);
	for (i = 0; i < nt; i++)
		if (pthread_create(&th[i], NULL, lg_worker, r))
			break;
	nt = i;
	for (i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	lg_machine(&b1, &t1);
	r->busy = t1 > t0 ? (b1 - b0) / (t1 - t0) *
				    (double)sysconf(_SC_NPROCESSORS_ONLN)
			  : NAN;
	return nt ? 0 : ATT_E_INTERNAL;
}

static int lg_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double lg_pct(double *v, unsigned long n, double p)
{
	unsigned long i;

	if (!n)
		return NAN;
	i = (unsigned long)(p * (double)(n - 1) + 0.5);
	return v[i];
}

/* ---- setup ---- */

static int lg_read_blob(const char *dir, const char *name, struct curl_blob *b,
			struct att_buf *keep)
{
	char path[512];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = att_buf_read_file(keep, path, 1 << 20);
	if (!rc)
		rc = att_buf_cstr(keep);
	if (rc) {
		fprintf(stderr, "att-bench-loadgen: cannot read %s\n", path);
		return rc;
	}
	b->data = keep->data;
	b->len = keep->len;
	b->flags = CURL_BLOB_NOCOPY;
	return 0;
}

static int lg_load_ekca(const struct lg_opts *o, struct lg_conf *c)
{
	FILE *f = fopen(o->ekca_cert, "r");

	if (f) {
		c->ekca_cert = PEM_read_X509(f, NULL, NULL, NULL);
		fclose(f);
	}
	f = fopen(o->ekca_key, "r");
	if (f) {
		c->ekca_key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
		fclose(f);
	}
	if (!c->ekca_cert || !c->ekca_key) {
		fprintf(stderr,
			"att-bench-loadgen: cannot load the EK CA "
			"(%s, %s)\n",
			o->ekca_cert, o->ekca_key);
		return ATT_E_CRYPTO;
	}
	return 0;
}

static int lg_put_whitelist(struct lg_conf *c)
{
	struct lg_scratch s;
	struct att_buf wl;
	char url[300];
	unsigned int i;
	long st = 0;
	int rc;

	att_buf_init(&wl, 0);
	rc = lg_scratch_init(&s, c);
	if (!rc)
		rc = lg_files_whitelist(c->files, c->wl_name, &wl);
	/* One database: the first verifier is enough; several URLs may
	 * still be separate databases (SQLite), so each gets it. */
	for (i = 0; !rc && i < c->nurls; i++) {
		snprintf(url, sizeof(url), "%s/v1/whitelists", c->urls[i]);
		rc = lg_http(s.admin, url, "POST", (const char *)wl.data,
			     wl.len, &s.resp, &st);
		if (!rc && st == 409) /* shared database: already there */
			continue;
		if (!rc && st != 201) {
			fprintf(stderr,
				"att-bench-loadgen: whitelist: HTTP %ld: "
				"%.300s\n",
				st, (const char *)s.resp.data);
			rc = ATT_E_VERIFY;
		}
	}
	att_buf_release(&wl);
	lg_scratch_release(&s);
	return rc;
}

static int lg_parse(int argc, char **argv, struct lg_opts *o)
{
	enum {
		O_URL = 256,
		O_PKI,
		O_EKC,
		O_EKK,
		O_AGENTS,
		O_CONC,
		O_DUR,
		O_RATE,
		O_RFRAC,
		O_ENTRIES,
		O_FILES,
		O_BAD,
		O_UNK,
		O_BIG,
		O_RSA,
		O_RECON,
		O_PID,
		O_PREFIX,
		O_TIMEOUT,
		O_SOAK,
		O_HELP,
	};
	static const struct option lo[] = {
		{"url", 1, NULL, O_URL},
		{"pki", 1, NULL, O_PKI},
		{"ek-ca-cert", 1, NULL, O_EKC},
		{"ek-ca-key", 1, NULL, O_EKK},
		{"agents", 1, NULL, O_AGENTS},
		{"concurrency", 1, NULL, O_CONC},
		{"duration", 1, NULL, O_DUR},
		{"rate", 1, NULL, O_RATE},
		{"rate-frac", 1, NULL, O_RFRAC},
		{"entries", 1, NULL, O_ENTRIES},
		{"files", 1, NULL, O_FILES},
		{"bad-sig", 1, NULL, O_BAD},
		{"unknown", 1, NULL, O_UNK},
		{"first-big", 1, NULL, O_BIG},
		{"rsa-ek", 0, NULL, O_RSA},
		{"reconnect", 0, NULL, O_RECON},
		{"verifier-pid", 1, NULL, O_PID},
		{"prefix", 1, NULL, O_PREFIX},
		{"timeout", 1, NULL, O_TIMEOUT},
		{"soak", 1, NULL, O_SOAK},
		{"help", 0, NULL, O_HELP},
		{NULL, 0, NULL, 0},
	};
	char *end;
	long v;
	double d;
	int ch;

	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (ch == O_HELP)
			return 1;
		if (ch == '?')
			return ATT_E_INVAL;
		if (ch == O_URL) {
			if (o->nurls >= LG_MAX_URLS)
				return ATT_E_INVAL;
			o->urls[o->nurls++] = optarg;
			continue;
		}
		if (ch == O_PKI || ch == O_EKC || ch == O_EKK ||
		    ch == O_PREFIX) {
			*(ch == O_PKI	? &o->pki
			  : ch == O_EKC ? &o->ekca_cert
			  : ch == O_EKK ? &o->ekca_key
					: &o->prefix) = optarg;
			continue;
		}
		if (ch == O_RSA || ch == O_RECON) {
			*(ch == O_RSA ? &o->rsa_ek : &o->reconnect) = 1;
			continue;
		}
		if (ch == O_RATE || ch == O_RFRAC || ch == O_BAD ||
		    ch == O_UNK) {
			d = strtod(optarg, &end);
			if (*end || !(d >= 0) || d > 1e7)
				goto bad;
			*(ch == O_RATE	  ? &o->rate
			  : ch == O_RFRAC ? &o->rate_frac
			  : ch == O_BAD	  ? &o->bad_sig
					  : &o->unknown) = d;
			continue;
		}
		v = strtol(optarg, &end, 10);
		if (*end || v < 0 || v > 10000000)
			goto bad;
		switch (ch) {
		case O_AGENTS:
			o->agents = v;
			break;
		case O_CONC:
			o->conc = v;
			break;
		case O_DUR:
			o->duration = v;
			break;
		case O_ENTRIES:
			o->entries = v;
			break;
		case O_FILES:
			o->files = v;
			break;
		case O_BIG:
			o->big = v;
			break;
		case O_TIMEOUT:
			o->timeout = v;
			break;
		case O_SOAK:
			o->soak = v;
			break;
		case O_PID:
			if (o->npids >= LG_MAX_PIDS)
				return ATT_E_INVAL;
			o->pids[o->npids++] = (int)v;
			break;
		default:
			return ATT_E_INVAL;
		}
		continue;
	bad:
		fprintf(stderr, "att-bench-loadgen: bad value '%s'\n", optarg);
		return ATT_E_INVAL;
	}
	if (optind != argc || !o->nurls || !o->pki || !o->ekca_cert ||
	    !o->ekca_key || o->agents < 1 || o->conc < 1 || o->conc > 1024 ||
	    o->files < 1 || o->entries < 1 || o->bad_sig + o->unknown > 1 ||
	    (o->unknown > 0 && o->entries < 2) || (o->soak && !(o->rate > 0)))
		return ATT_E_INVAL;
	return 0;
}

/* ---- reports ---- */

static void lg_report(const char *phase, struct lg_run *r, double secs,
		      const struct lg_proc *p0, const struct lg_proc *p1,
		      double self_cpu, double offered)
{
	unsigned long done = atomic_load(&r->st.done);
	unsigned long n = atomic_load(&r->st.nlat);
	double rate = (double)done / secs, p50, p99, vcpu;

	if (n > LG_LAT_CAP)
		n = LG_LAT_CAP;
	qsort(r->st.lat, n, sizeof(double), lg_cmp_double);
	p50 = lg_pct(r->st.lat, n, 0.50) * 1e3;
	p99 = lg_pct(r->st.lat, n, 0.99) * 1e3;
	vcpu = done && p1 ? (p1->cpu - p0->cpu) * 1e3 / (double)done : NAN;
	printf("%s: %lu attestations in %.1f s = %.0f/s%s; latency p50 "
	       "%.1f ms p99 %.1f ms; verifier CPU %.3f ms/attestation; "
	       "loadgen CPU %.3f ms/attestation; machine busy %.2f of %ld "
	       "cores; %lu errors, %lu wrong verdicts\n",
	       phase, done, secs, rate, offered > 0 ? " (open loop)" : "", p50,
	       p99, vcpu, done ? self_cpu * 1e3 / (double)done : NAN, r->busy,
	       sysconf(_SC_NPROCESSORS_ONLN),
	       (unsigned long)atomic_load(&r->st.errors),
	       (unsigned long)atomic_load(&r->st.mismatches));
	printf("result phase=%s agents=%u conc=%u offered=%.0f att_per_s=%.1f "
	       "p50_ms=%.2f p99_ms=%.2f verifier_cpu_ms=%.3f "
	       "loadgen_cpu_ms=%.3f machine_busy_cores=%.2f errors=%lu "
	       "wrong=%lu rss_kb=%ld hwm_kb=%ld\n",
	       phase, r->n, r->conc, offered, rate, p50, p99, vcpu,
	       done ? self_cpu * 1e3 / (double)done : NAN, r->busy,
	       (unsigned long)atomic_load(&r->st.errors),
	       (unsigned long)atomic_load(&r->st.mismatches),
	       p1 ? p1->rss_kb : 0L, p1 ? p1->hwm_kb : 0L);
	fflush(stdout);
}

static int lg_bad(struct lg_run *r)
{
	return atomic_load(&r->st.errors) || atomic_load(&r->st.mismatches);
}

/*
 * Soak: the open loop for o->soak seconds, a line a minute. Failed
 * requests are expected while a verifier restarts; wrong verdicts are not.
 */
static int lg_soak(const struct lg_opts *o, struct lg_run *r)
{
	unsigned long done = 0, errors = 0, wrong = 0;
	double t0 = lg_now(), left, t, cpu;
	unsigned int i, minute = 0;

	printf("soak: start, %ld s at %.0f attestations/s\n", o->soak, o->rate);
	fflush(stdout);
	while ((left = (double)o->soak - (lg_now() - t0)) > 0.5) {
		char name[32];

		snprintf(name, sizeof(name), "soak-%u", ++minute);
		cpu = lg_self_cpu();
		t = lg_now();
		lg_phase(r, 2, left < 60 ? left : 60, o->rate);
		lg_report(name, r, lg_now() - t, NULL, NULL,
			  lg_self_cpu() - cpu, o->rate);
		done += atomic_load(&r->st.done);
		errors += atomic_load(&r->st.errors);
		wrong += atomic_load(&r->st.mismatches);
	}
	printf("result phase=soak agents=%u seconds=%ld attestations=%lu "
	       "errors=%lu wrong=%lu\n",
	       r->n, o->soak, done, errors, wrong);
	for (i = 0; i < r->n; i++)
		lg_agent_free(r->agents[i]);
	free(r->agents);
	free(r->st.lat);
	return wrong ? ATT_E_VERIFY : 0;
}

/* Phases: enroll, warm-up, saturation, open loop. */
static int lg_main(const struct lg_opts *o, struct lg_conf *c)
{
	struct lg_run r;
	struct lg_proc p0 = {0}, p1 = {0}, pa = {0}, pb = {0};
	int have = o->npids > 0, failed = 0;
	double t, cpu, sat = 0, rate;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.c = c;
	r.n = (unsigned int)o->agents;
	r.conc = (unsigned int)o->conc;
	r.agents = calloc(r.n, sizeof(*r.agents));
	r.st.lat = malloc(LG_LAT_CAP * sizeof(double));
	if (!r.agents || !r.st.lat)
		return ATT_E_NOMEM;
	if (have && lg_proc_read(o->pids, o->npids, &p0))
		have = 0;
	if (!have)
		fprintf(stderr, "att-bench-loadgen: no verifier pid to "
				"account: CPU and memory not reported\n");

	t = lg_now();
	lg_phase(&r, 0, 0, 0);
	t = lg_now() - t;
	printf("enroll: %lu agents (%s EKs) in %.1f s = %.0f/s; %lu "
	       "errors\n",
	       (unsigned long)atomic_load(&r.st.done),
	       c->ecc_ek ? "ECC P-256" : "RSA-2048", t,
	       (double)atomic_load(&r.st.done) / t,
	       (unsigned long)atomic_load(&r.st.errors));
	failed |= lg_bad(&r);

	/*
	 * Agent 0's first round alone: the whitelist gets compiled; the
	 * memory measured from here on grows with the agents only.
	 */
	if (r.n > 1 && r.agents[0]) {
		struct lg_scratch s;
		int ok = 0;

		if (lg_scratch_init(&s, c) ||
		    lg_agent_round(r.agents[0], &s, 1, &ok) || !ok)
			failed = 1;
		lg_scratch_release(&s);
		r.skip0 = 1;
	}
	if (have)
		lg_proc_read(o->pids, o->npids, &p0);
	t = lg_now();
	cpu = lg_self_cpu();
	lg_phase(&r, 1, 0, 0);
	t = lg_now() - t;
	r.skip0 = 0;
	if (have)
		lg_proc_read(o->pids, o->npids, &pa);
	lg_report("warmup", &r, t, &p0, have ? &pa : NULL, lg_self_cpu() - cpu,
		  0);
	failed |= lg_bad(&r);
	if (have)
		printf("result phase=memory agents=%u rss_before_kb=%ld "
		       "rss_after_kb=%ld per_agent_kb=%.2f\n",
		       r.n, p0.rss_kb, pa.rss_kb,
		       (double)(pa.rss_kb - p0.rss_kb) /
			       (double)(r.n > 1 ? r.n - 1 : 1));

	/* A second round per agent, leaving its connection open. */
	t = lg_now();
	cpu = lg_self_cpu();
	lg_phase(&r, 3, 0, 0);
	t = lg_now() - t;
	if (have)
		lg_proc_read(o->pids, o->npids, &pb);
	lg_report("connect", &r, t, &pa, have ? &pb : NULL, lg_self_cpu() - cpu,
		  0);
	failed |= lg_bad(&r);
	if (have)
		printf("result phase=connections agents=%u rss_before_kb=%ld "
		       "rss_after_kb=%ld per_agent_kb=%.2f\n",
		       r.n, pa.rss_kb, pb.rss_kb,
		       (double)(pb.rss_kb - pa.rss_kb) / (double)r.n);

	if (o->soak > 0)
		return lg_soak(o, &r) || failed ? ATT_E_VERIFY : 0;
	if (o->duration > 0) {
		cpu = lg_self_cpu();
		if (have)
			lg_proc_read(o->pids, o->npids, &pa);
		t = lg_now();
		lg_phase(&r, 2, (double)o->duration, 0);
		t = lg_now() - t;
		if (have)
			lg_proc_read(o->pids, o->npids, &pb);
		lg_report("saturation", &r, t, &pa, have ? &pb : NULL,
			  lg_self_cpu() - cpu, 0);
		sat = (double)atomic_load(&r.st.done) / t;
		failed |= lg_bad(&r);
	}
	rate = o->rate > 0 ? o->rate : o->rate_frac * sat;
	if (o->duration > 0 && rate > 0) {
		cpu = lg_self_cpu();
		if (have)
			lg_proc_read(o->pids, o->npids, &pa);
		t = lg_now();
		lg_phase(&r, 2, (double)o->duration, rate);
		t = lg_now() - t;
		if (have)
			lg_proc_read(o->pids, o->npids, &pb);
		lg_report("rate", &r, t, &pa, have ? &pb : NULL,
			  lg_self_cpu() - cpu, rate);
		failed |= lg_bad(&r);
	}
	if (o->big > 0) {
		struct lg_agent *a = NULL;
		struct lg_scratch s;
		int ok = 0, rc;

		rc = lg_scratch_init(&s, c);
		if (!rc)
			rc = lg_agent_new(c, r.n, LG_HONEST, &a);
		if (!rc)
			rc = lg_agent_enroll(a, &s);
		if (!rc) {
			lg_agent_set_first(a, (uint32_t)o->big);
			if (have)
				lg_proc_read(o->pids, o->npids, &pa);
			t = lg_now();
			rc = lg_agent_round(a, &s, 0, &ok);
			t = lg_now() - t;
			if (have)
				lg_proc_read(o->pids, o->npids, &pb);
		}
		if (rc || !ok) {
			fprintf(stderr, "att-bench-loadgen: first-big: %s\n",
				rc ? att_strerror(rc) : "wrong verdict");
			failed = 1;
		} else {
			printf("first-big: first attestation with %ld entries "
			       "(evidence %zu bytes) trusted in %.3f s; "
			       "verifier CPU %.3f s\n",
			       o->big + 1, s.body.len, t,
			       have ? pb.cpu - pa.cpu : NAN);
			printf("result phase=first-big entries=%ld "
			       "seconds=%.3f verifier_cpu_s=%.3f hwm_kb=%ld\n",
			       o->big + 1, t, have ? pb.cpu - pa.cpu : NAN,
			       have ? pb.hwm_kb : 0L);
		}
		lg_agent_free(a);
		lg_scratch_release(&s);
	}
	if (have && !lg_proc_read(o->pids, o->npids, &p1))
		printf("result phase=end agents=%u rss_kb=%ld hwm_kb=%ld\n",
		       r.n, p1.rss_kb, p1.hwm_kb);
	for (i = 0; i < r.n; i++)
		lg_agent_free(r.agents[i]);
	free(r.agents);
	free(r.st.lat);
	return failed ? ATT_E_VERIFY : 0;
}

int main(int argc, char **argv)
{
	struct lg_opts o;
	struct lg_conf c;
	struct lg_files *files = NULL;
	struct att_buf ca, ac, ak;
	long n = 20;
	char *end;
	int rc;

	if (argc >= 2 && !strcmp(argv[1], "--selftest")) {
		if (argc > 2) {
			n = strtol(argv[2], &end, 10);
			if (*end || n < 1 || n > 100000) {
				fprintf(stderr, "bad N: %s\n", argv[2]);
				return 2;
			}
		}
		return lg_selftest(n) ? 1 : 0;
	}
	memset(&o, 0, sizeof(o));
	o.agents = 1000;
	o.conc = 32;
	o.duration = 20;
	o.entries = 100;
	o.files = 10000;
	o.timeout = 120;
	o.prefix = "lg";
	rc = lg_parse(argc, argv, &o);
	if (rc) {
		lg_usage(rc > 0 ? stdout : stderr);
		return rc > 0 ? 0 : 2;
	}
	lg_o = &o;
	memset(&c, 0, sizeof(c));
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return 1;
	c.urls = o.urls;
	c.nurls = o.nurls;
	c.entries = (unsigned int)o.entries;
	c.ecc_ek = !o.rsa_ek;
	c.reconnect = o.reconnect;
	c.wl_name = "bench";
	c.prefix = o.prefix;
	c.timeout = o.timeout;
	c.headers = curl_slist_append(NULL, "Content-Type: application/json");
	c.headers = curl_slist_append(c.headers, "Expect:");
	att_buf_init(&ca, 1 << 20);
	att_buf_init(&ac, 1 << 20);
	att_buf_init(&ak, 1 << 20);
	rc = lg_read_blob(o.pki, "server-ca.pem", &c.ca, &ca);
	if (!rc)
		rc = lg_read_blob(o.pki, "admin.pem", &c.admin_cert, &ac);
	if (!rc)
		rc = lg_read_blob(o.pki, "admin.key", &c.admin_key, &ak);
	if (!rc)
		rc = lg_load_ekca(&o, &c);
	if (!rc)
		rc = lg_files_new((uint32_t)o.files, &files);
	c.files = files;
	if (!rc)
		rc = lg_put_whitelist(&c);
	if (!rc)
		rc = lg_main(&o, &c);
	if (rc)
		fprintf(stderr, "att-bench-loadgen: %s\n", att_strerror(rc));
	lg_files_free(files);
	att_buf_wipe_release(&ak);
	att_buf_release(&ac);
	att_buf_release(&ca);
	X509_free(c.ekca_cert);
	EVP_PKEY_free(c.ekca_key);
	curl_slist_free_all(c.headers);
	curl_global_cleanup();
	return rc ? 1 : 0;
}
