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

#define LG_MAX_URLS   8
#define LG_MAX_PIDS   8
#define LG_MAX_REPEAT 9

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
	      "    --ask-challenge    ask for every round's challenge (the "
	      "protocol before\n"
	      "                       next_challenge: two requests a "
	      "round)\n"
	      "    --verifier-pid PID verifier process to account CPU and "
	      "memory of\n"
	      "                       (repeatable)\n"
	      "    --prefix P         agent id prefix (default lg)\n"
	      "    --unknown-path P   the path --unknown agents measure "
	      "(default\n"
	      "                       /usr/bin/not-whitelisted-ID; up to "
	      "200 bytes)\n"
	      "    --timeout S        seconds per request (default 120)\n"
	      "    --repeat N         the closed loop N times (up to 9); the "
	      "median run\n"
	      "                       is the 'saturation' result, the spread "
	      "is reported\n"
	      "    --procs P          spread the agents over P processes "
	      "(default: as\n"
	      "                       many as the descriptor limit needs, "
	      "at most 4,000\n"
	      "                       agents each; up to 16)\n"
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
	const char *pki, *ekca_cert, *ekca_key, *prefix, *unknown_path;
	long agents, conc, duration, entries, files, big, timeout, soak, procs;
	long repeat;
	double rate, rate_frac, bad_sig, unknown;
	int rsa_ek, reconnect, ask;
	int pids[LG_MAX_PIDS];
	unsigned int npids;
};

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

static enum lg_kind lg_kind_fn(unsigned int i)
{
	return lg_kind_of(lg_o, i);
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
		O_ASK,
		O_PID,
		O_PREFIX,
		O_UNKPATH,
		O_TIMEOUT,
		O_SOAK,
		O_PROCS,
		O_REPEAT,
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
		{"ask-challenge", 0, NULL, O_ASK},
		{"verifier-pid", 1, NULL, O_PID},
		{"prefix", 1, NULL, O_PREFIX},
		{"unknown-path", 1, NULL, O_UNKPATH},
		{"timeout", 1, NULL, O_TIMEOUT},
		{"soak", 1, NULL, O_SOAK},
		{"procs", 1, NULL, O_PROCS},
		{"repeat", 1, NULL, O_REPEAT},
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
		if (ch == O_UNKPATH) {
			if (optarg[0] != '/' || strlen(optarg) > 200)
				goto bad;
			o->unknown_path = optarg;
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
		if (ch == O_RSA || ch == O_RECON || ch == O_ASK) {
			*(ch == O_RSA	  ? &o->rsa_ek
			  : ch == O_RECON ? &o->reconnect
					  : &o->ask) = 1;
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
		case O_PROCS:
			o->procs = v;
			break;
		case O_REPEAT:
			o->repeat = v;
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
	    o->procs > 16 || o->repeat < 1 || o->repeat > LG_MAX_REPEAT ||
	    o->files < 1 || o->entries < 1 || o->bad_sig + o->unknown > 1 ||
	    (o->unknown > 0 && o->entries < 2) || (o->soak && !(o->rate > 0)))
		return ATT_E_INVAL;
	return 0;
}

/* ---- reports ---- */

/*
 * Prints a phase's line and its 'result' line for scripts; with keep, the
 * result line is written there instead, to be printed by the caller.
 */
static void lg_report(const char *phase, struct lg_run *r, double secs,
		      const struct lg_proc *p0, const struct lg_proc *p1,
		      double gen_cpu, double offered, char *keep, size_t cap)
{
	struct lg_stats *st = r->st;
	unsigned long done = atomic_load(&st->done);
	unsigned long n = atomic_load(&st->nlat);
	double rate = (double)done / secs, p50, p99, vcpu, gcpu;
	char line[512];

	if (n > LG_LAT_CAP)
		n = LG_LAT_CAP;
	qsort(r->lat, n, sizeof(double), lg_cmp_double);
	p50 = lg_pct(r->lat, n, 0.50) * 1e3;
	p99 = lg_pct(r->lat, n, 0.99) * 1e3;
	vcpu = done && p1 ? (p1->cpu - p0->cpu) * 1e3 / (double)done : NAN;
	gcpu = done ? gen_cpu * 1e3 / (double)done : NAN;
	printf("%s: %lu attestations in %.1f s = %.0f/s%s; latency p50 "
	       "%.1f ms p99 %.1f ms; verifier CPU %.3f ms/attestation; "
	       "loadgen CPU %.3f ms/attestation; machine busy %.2f of %ld "
	       "cores; %lu errors, %lu wrong verdicts\n",
	       phase, done, secs, rate, offered > 0 ? " (open loop)" : "", p50,
	       p99, vcpu, gcpu, r->busy, sysconf(_SC_NPROCESSORS_ONLN),
	       (unsigned long)atomic_load(&st->errors),
	       (unsigned long)atomic_load(&st->mismatches));
	snprintf(keep ? keep : line, keep ? cap : sizeof(line),
		 "result phase=%s agents=%u conc=%u procs=%u offered=%.0f "
		 "att_per_s=%.1f p50_ms=%.2f p99_ms=%.2f verifier_cpu_ms=%.3f "
		 "loadgen_cpu_ms=%.3f machine_busy_cores=%.2f errors=%lu "
		 "wrong=%lu rss_kb=%ld hwm_kb=%ld\n",
		 phase, r->total, r->conc_total, r->nproc, offered, rate, p50,
		 p99, vcpu, gcpu, r->busy,
		 (unsigned long)atomic_load(&st->errors),
		 (unsigned long)atomic_load(&st->mismatches),
		 p1 ? p1->rss_kb : 0L, p1 ? p1->hwm_kb : 0L);
	if (!keep)
		fputs(line, stdout);
	fflush(stdout);
}

static int lg_bad(struct lg_run *r)
{
	return atomic_load(&r->st->errors) || atomic_load(&r->st->mismatches);
}

/*
 * Soak: the open loop for o->soak seconds, a line a minute. Failed
 * requests are expected while a verifier restarts; wrong verdicts are not.
 */
static int lg_soak(const struct lg_opts *o, struct lg_run *r)
{
	unsigned long done = 0, errors = 0, wrong = 0;
	double t0 = lg_now(), left, t, cpu;
	unsigned int minute = 0;

	printf("soak: start, %ld s at %.0f attestations/s\n", o->soak, o->rate);
	fflush(stdout);
	while ((left = (double)o->soak - (lg_now() - t0)) > 0.5) {
		char name[32];

		snprintf(name, sizeof(name), "soak-%u", ++minute);
		cpu = lg_gen_cpu(r);
		t = lg_now();
		lg_phase(r, LG_PH_MEASURED, left < 60 ? left : 60, o->rate);
		lg_report(name, r, lg_now() - t, NULL, NULL,
			  lg_gen_cpu(r) - cpu, o->rate, NULL, 0);
		done += atomic_load(&r->st->done);
		errors += atomic_load(&r->st->errors);
		wrong += atomic_load(&r->st->mismatches);
	}
	printf("result phase=soak agents=%u seconds=%ld attestations=%lu "
	       "errors=%lu wrong=%lu\n",
	       r->total, o->soak, done, errors, wrong);
	return wrong ? ATT_E_VERIFY : 0;
}

/* A measured phase with the verifiers' CPU and memory around it. */
static void lg_timed(const struct lg_opts *o, struct lg_run *r, int phase,
		     double duration, double rate, struct lg_proc *pa,
		     struct lg_proc *pb, double *secs, double *cpu)
{
	int have = o->npids > 0;

	*cpu = lg_gen_cpu(r);
	if (have)
		lg_proc_read(o->pids, o->npids, pa);
	*secs = lg_now();
	lg_phase(r, phase, duration, rate);
	*secs = lg_now() - *secs;
	if (have)
		lg_proc_read(o->pids, o->npids, pb);
	*cpu = lg_gen_cpu(r) - *cpu;
}

/* One more agent whose first attestation has o->big entries. */
static int lg_first_big(const struct lg_opts *o, struct lg_run *r)
{
	struct lg_proc pa = {0}, pb = {0};
	int have = o->npids > 0, ok = 0, rc;
	struct lg_agent *a = NULL;
	struct lg_scratch s;
	double t = 0;

	rc = lg_scratch_init(&s, r->c);
	if (!rc)
		rc = lg_agent_new(r->c, r->total, LG_HONEST, &a);
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
		rc = rc ? rc : ATT_E_VERIFY;
	} else {
		printf("first-big: first attestation with %ld entries "
		       "(evidence %zu bytes) trusted in %.3f s; "
		       "verifier CPU %.3f s\n",
		       o->big + 1, s.body.len, t, have ? pb.cpu - pa.cpu : NAN);
		printf("result phase=first-big entries=%ld seconds=%.3f "
		       "verifier_cpu_s=%.3f hwm_kb=%ld\n",
		       o->big + 1, t, have ? pb.cpu - pa.cpu : NAN,
		       have ? pb.hwm_kb : 0L);
	}
	lg_agent_free(a);
	lg_scratch_release(&s);
	return rc;
}

/* Processes: as asked, else enough for the descriptor limit. */
static unsigned int lg_nproc(const struct lg_opts *o)
{
	struct rlimit rl;
	long per;

	if (o->procs > 0)
		return (unsigned int)o->procs;
	/* Three descriptors per agent (see run.c), some to spare. */
	per = getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
			      rl.rlim_cur > 3000000
		      ? 1000000
		      : ((long)rl.rlim_cur - 200) / 3;
	if (per > 4000)
		per = 4000; /* and a few thousand threads' worth of work */
	if (per < 1)
		per = 1;
	return (unsigned int)((o->agents + per - 1) / per);
}

/*
 * The closed loop, o->repeat times: every run's line, then the result line
 * of the median run (by rate) and the spread. *sat: the median rate.
 */
static int lg_saturation(const struct lg_opts *o, struct lg_run *r, double *sat)
{
	char lines[LG_MAX_REPEAT][512];
	double rate[LG_MAX_REPEAT], t, cpu;
	struct lg_proc pa = {0}, pb = {0};
	unsigned int i, k, nr = (unsigned int)o->repeat, ord[LG_MAX_REPEAT];
	int failed = 0;

	for (k = 0; k < nr; k++) {
		if (nr > 1)
			printf("saturation run %u of %u\n", k + 1, nr);
		lg_timed(o, r, LG_PH_MEASURED, (double)o->duration, 0, &pa, &pb,
			 &t, &cpu);
		lg_report("saturation", r, t, &pa, o->npids ? &pb : NULL, cpu,
			  0, lines[k], sizeof(lines[k]));
		rate[k] = (double)atomic_load(&r->st->done) / t;
		failed |= lg_bad(r);
		/* insertion sort of the run indices by rate */
		for (i = k; i > 0 && rate[ord[i - 1]] > rate[k]; i--)
			ord[i] = ord[i - 1];
		ord[i] = k;
	}
	fputs(lines[ord[(nr - 1) / 2]], stdout);
	printf("result phase=saturation-spread agents=%u runs=%u min=%.1f "
	       "median=%.1f max=%.1f\n",
	       r->total, nr, rate[ord[0]], rate[ord[(nr - 1) / 2]],
	       rate[ord[nr - 1]]);
	*sat = rate[ord[(nr - 1) / 2]];
	return failed;
}

/* Phases: enroll, warm-up, connect, saturation, open loop. */
static int lg_main(const struct lg_opts *o, struct lg_conf *c)
{
	struct lg_run r;
	struct lg_proc p0 = {0}, pa = {0}, pb = {0};
	int have = o->npids > 0, failed = 0, rc;
	double t, cpu, sat = 0, rate;

	memset(&r, 0, sizeof(r));
	r.c = c;
	r.kind = lg_kind_fn;
	rc = lg_run_start(&r, (unsigned int)o->agents, (unsigned int)o->conc,
			  lg_nproc(o));
	if (r.is_child)
		return lg_run_stop(&r);
	if (rc) {
		lg_run_stop(&r);
		return rc;
	}
	if (r.nproc > 1)
		printf("loadgen: %u processes, %u worker threads each\n",
		       r.nproc, r.conc);
	if (have && lg_proc_read(o->pids, o->npids, &p0))
		have = 0;
	if (!have)
		fprintf(stderr, "att-bench-loadgen: no verifier pid to "
				"account: CPU and memory not reported\n");

	t = lg_now();
	lg_phase(&r, LG_PH_ENROLL, 0, 0);
	t = lg_now() - t;
	printf("enroll: %lu agents (%s EKs) in %.1f s = %.0f/s; %lu "
	       "errors\n",
	       (unsigned long)atomic_load(&r.st->done),
	       c->ecc_ek ? "ECC P-256" : "RSA-2048", t,
	       (double)atomic_load(&r.st->done) / t,
	       (unsigned long)atomic_load(&r.st->errors));
	failed |= lg_bad(&r);

	/*
	 * The first round of agents 0..URLs-1 (agent i talks to URL i mod
	 * URLs) alone: every verifier compiles the whitelist; the memory
	 * measured from here on grows with the agents only.
	 */
	if (r.total > c->nurls) {
		r.st->primed = c->nurls;
		lg_phase(&r, LG_PH_PRIME, 0, 0);
		failed |= lg_bad(&r) || atomic_load(&r.st->done) != c->nurls;
	}
	if (have)
		lg_proc_read(o->pids, o->npids, &p0);
	lg_timed(o, &r, LG_PH_WARMUP, 0, 0, &p0, &pa, &t, &cpu);
	r.st->primed = 0;
	lg_report("warmup", &r, t, &p0, have ? &pa : NULL, cpu, 0, NULL, 0);
	failed |= lg_bad(&r);
	if (have)
		printf("result phase=memory agents=%u rss_before_kb=%ld "
		       "rss_after_kb=%ld per_agent_kb=%.2f\n",
		       r.total, p0.rss_kb, pa.rss_kb,
		       (double)(pa.rss_kb - p0.rss_kb) /
			       (double)(r.total > c->nurls ? r.total - c->nurls
							   : 1));

	/* A second round per agent, leaving its connection open. */
	lg_timed(o, &r, LG_PH_CONNECT, 0, 0, &pa, &pb, &t, &cpu);
	lg_report("connect", &r, t, &pa, have ? &pb : NULL, cpu, 0, NULL, 0);
	failed |= lg_bad(&r);
	if (have)
		printf("result phase=connections agents=%u rss_before_kb=%ld "
		       "rss_after_kb=%ld per_agent_kb=%.2f\n",
		       r.total, pa.rss_kb, pb.rss_kb,
		       (double)(pb.rss_kb - pa.rss_kb) / (double)r.total);

	if (o->soak > 0) {
		failed |= lg_soak(o, &r) != 0;
		goto out;
	}
	if (o->duration > 0)
		failed |= lg_saturation(o, &r, &sat);
	rate = o->rate > 0 ? o->rate : o->rate_frac * sat;
	if (o->duration > 0 && rate > 0) {
		lg_timed(o, &r, LG_PH_MEASURED, (double)o->duration, rate, &pa,
			 &pb, &t, &cpu);
		lg_report("rate", &r, t, &pa, have ? &pb : NULL, cpu, rate,
			  NULL, 0);
		failed |= lg_bad(&r);
	}
	if (o->big > 0 && lg_first_big(o, &r))
		failed = 1;
	if (have && !lg_proc_read(o->pids, o->npids, &pb))
		printf("result phase=end agents=%u rss_kb=%ld hwm_kb=%ld\n",
		       r.total, pb.rss_kb, pb.hwm_kb);
out:
	if (lg_run_stop(&r))
		failed = 1;
	return failed ? ATT_E_VERIFY : 0;
}

/* Up to the hard limit: the agents' connections are descriptors. */
static void lg_raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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
	o.repeat = 1;
	o.prefix = "lg";
	rc = lg_parse(argc, argv, &o);
	if (rc) {
		lg_usage(rc > 0 ? stdout : stderr);
		return rc > 0 ? 0 : 2;
	}
	lg_o = &o;
	lg_raise_nofile();
	memset(&c, 0, sizeof(c));
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return 1;
	c.urls = o.urls;
	c.nurls = o.nurls;
	c.entries = (unsigned int)o.entries;
	c.ecc_ek = !o.rsa_ek;
	c.reconnect = o.reconnect;
	c.ask_always = o.ask;
	c.wl_name = "bench";
	c.prefix = o.prefix;
	c.unknown_path = o.unknown_path;
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
