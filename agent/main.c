// SPDX-License-Identifier: Apache-2.0
/*
 * main.c - attest-agent: enrolls once, then attests on an interval.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <systemd/sd-daemon.h>

#include "attest/err.h"
#include "attest/http.h"
#include "attest/log.h"
#include "attest/tpm_esys.h"
#include "attest.h"
#include "config.h"
#include "enroll.h"
#include "logsrc.h"
#include "privdrop.h"

#define AGENT_VERSION  ATT_VERSION
#define DEFAULT_CONFIG "/etc/attest/agent.conf"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fputs("NAME\n"
	      "    attest-agent - TPM 2.0 remote attestation agent\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    attest-agent [--config FILE] [--once] [options]\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    Enrolls this host with attest-verifier once (EK, AK, "
	      "credential\n"
	      "    activation, client certificate kept in the state "
	      "directory), then on\n"
	      "    every interval takes a challenge (the one the last verdict "
	      "carried,\n"
	      "    else it asks for one), quotes the PCRs with the TPM,\n"
	      "    reads the measurement lists after quoting from the entry "
	      "the\n"
	      "    verifier asks for, and posts the evidence over HTTPS "
	      "(verifier CA\n"
	      "    pinned, mutual TLS). It opens the TPM and the lists as "
	      "root, then\n"
	      "    runs as the configured user. Unreachable verifiers are "
	      "retried with\n"
	      "    jittered exponential backoff and failover across the "
	      "configured URLs.\n"
	      "\n"
	      "OPTIONS\n"
	      "    -c, --config FILE   configuration (default " DEFAULT_CONFIG
	      ";\n"
	      "                        its keys: SETTINGS below)\n"
	      "    --once              one round; exit 0 trusted, 1 not "
	      "trusted, 2 error\n"
	      "    --verifier URL      https:// verifier (repeatable, "
	      "replaces the file's)\n"
	      "    --ca FILE           the verifier's CA\n"
	      "    --agent-id ID       this host's id (default: host name)\n"
	      "    --tcti TCTI         device:/dev/tpmrm0, "
	      "swtpm:host=H,port=P, "
	      "...\n"
	      "    --log NAME:PATH:PCR[:BANK]  a measurement list "
	      "(repeatable)\n"
	      "    --uefi-log FILE     the firmware event log, sent once per "
	      "boot (default\n"
	      "                        " AGENT_UEFI_LOG_DEFAULT "\n"
	      "                        when present; none: never)\n"
	      "    --token-file FILE   the enrollment token\n"
	      "    --state-dir DIR     identity and certificate "
	      "(default /var/lib/attest-agent)\n"
	      "    --interval S        seconds between rounds (default 30)\n"
	      "    --user USER         drop to USER after opening the TPM "
	      "and lists\n"
	      "    -v, --verbose       more logging (-vv: debug)\n"
	      "    -h, --help, --version\n"
	      "\n"
	      "SETTINGS\n"
	      "    The configuration file has one \"key = value\" a line; "
	      "these keys\n"
	      "    (deploy/agent.conf, installed as " DEFAULT_CONFIG
	      ", explains each):\n"
	      "    verifier, ca, enrollment_token_file, agent_id, tcti, "
	      "ak_handle, ek,\n"
	      "    log, uefi_log, interval, state_dir, user\n"
	      "    An unknown key is an error.\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 stopped cleanly (--once: trusted); 1 --once: not "
	      "trusted; 2 error.\n",
	      f);
}

struct opts {
	const char *config;
	int once, verbose, config_given;
	int have_verifier_flag;
};

static int parse(int argc, char **argv, struct opts *o, struct agent_config *c)
{
	static const struct option lo[] = {
		{"config", required_argument, NULL, 'c'},
		{"once", no_argument, NULL, 'o'},
		{"verifier", required_argument, NULL, 'V'},
		{"ca", required_argument, NULL, 'A'},
		{"agent-id", required_argument, NULL, 'i'},
		{"tcti", required_argument, NULL, 'T'},
		{"log", required_argument, NULL, 'l'},
		{"uefi-log", required_argument, NULL, 'U'},
		{"token-file", required_argument, NULL, 't'},
		{"state-dir", required_argument, NULL, 's'},
		{"interval", required_argument, NULL, 'I'},
		{"user", required_argument, NULL, 'u'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'R'},
		{NULL, 0, NULL, 0},
	};
	/* flag -> config key, applied after the file */
	static const struct {
		int opt;
		const char *key;
	} keys[] = {
		{'V', "verifier"},  {'A', "ca"},
		{'i', "agent_id"},  {'T', "tcti"},
		{'l', "log"},	    {'t', "enrollment_token_file"},
		{'s', "state_dir"}, {'I', "interval"},
		{'u', "user"},	    {'U', "uefi_log"},
	};
	char err[256];
	int ch, pass;
	size_t k;

	o->config = DEFAULT_CONFIG;
	/* Pass 1: find --config and the modes; pass 2: settings. */
	for (pass = 0; pass < 2; pass++) {
		optind = 1;
		while ((ch = getopt_long(argc, argv, "c:vh", lo, NULL)) != -1) {
			if (ch == '?')
				return ATT_E_INVAL;
			if (pass == 0) {
				if (ch == 'c') {
					o->config = optarg;
					o->config_given = 1;
				} else if (ch == 'o') {
					o->once = 1;
				} else if (ch == 'v') {
					o->verbose++;
				} else if (ch == 'h') {
					usage(stdout);
					return 1;
				} else if (ch == 'R') {
					printf("attest-agent %s\n",
					       AGENT_VERSION);
					return 1;
				}
				continue;
			}
			for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
				if (keys[k].opt != ch)
					continue;
				if (ch == 'V' && !o->have_verifier_flag) {
					/* flags replace the file's list */
					size_t i;

					for (i = 0; i < c->nverifiers; i++)
						free(c->verifiers[i]);
					c->nverifiers = 0;
					o->have_verifier_flag = 1;
				}
				if (agent_config_set(c, keys[k].key, optarg,
						     err, sizeof(err))) {
					fprintf(stderr, "attest-agent: %s\n",
						err);
					return ATT_E_INVAL;
				}
			}
		}
		if (pass == 0) {
			if (optind != argc) {
				fprintf(stderr,
					"attest-agent: unexpected "
					"argument '%s'\n",
					argv[optind]);
				return ATT_E_INVAL;
			}
			if (o->config_given || access(o->config, F_OK) == 0) {
				if (agent_config_load(c, o->config, err,
						      sizeof(err))) {
					fprintf(stderr, "attest-agent: %s\n",
						err);
					return ATT_E_INVAL;
				}
			}
		}
	}
	if (agent_config_finish(c, err, sizeof(err))) {
		fprintf(stderr, "attest-agent: %s\n", err);
		return ATT_E_INVAL;
	}
	return ATT_OK;
}

static long rss_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (!stop && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int run(const struct opts *o, struct agent_config *c)
{
	struct agent_log *logs[AGENT_MAX_LOGS] = {0};
	struct agent_uefi_log *uefi = NULL;
	struct agent_identity id;
	struct agent_attest_ctx ctx = {.conf = c};
	struct att_backoff bo;
	struct att_esys *tpm = NULL;
	struct att_http *http = NULL;
	unsigned long round = 0;
	size_t i;
	int rc, created, trusted = 0;

	/* Everything that needs root first. */
	for (i = 0; i < c->nlogs; i++) {
		rc = agent_log_open(c->logs[i].name, c->logs[i].path,
				    c->logs[i].pcr, c->logs[i].bank, &logs[i]);
		if (rc)
			goto out;
	}
	rc = agent_uefi_log_open(c->uefi_log, &uefi);
	if (!rc)
		rc = att_esys_new(c->tcti, &tpm);
	if (!rc)
		rc = att_http_new((const char *const *)c->verifiers,
				  c->nverifiers, c->ca, &http);
	if (!rc)
		rc = agent_identity_paths(c, &id);
	if (rc)
		goto out;
	att_backoff_init(&bo, 1000, 60000);
	while (!agent_is_enrolled(c, &id)) {
		rc = agent_enroll(c, tpm, http, &id);
		if (!rc)
			break;
		if (rc != ATT_E_NET || o->once || stop)
			goto out;
		sleep_ms(att_backoff_next(&bo));
	}
	rc = att_esys_ak_ensure(
		tpm, c->ek_ecc ? ATT_ESYS_AK_ECC_ECDSA : ATT_ESYS_AK_RSA_RSASSA,
		c->ek_ecc ? ATT_ESYS_KEY_ECC : ATT_ESYS_KEY_RSA, c->ak_handle,
		&created);
	if (!rc && created) {
		att_err("the enrolled AK at 0x%08x is gone; remove %s to "
			"enroll again",
			c->ak_handle, id.cert_path);
		rc = ATT_E_STATE;
	}
	if (!rc)
		rc = att_http_set_client_cert(http, id.cert_path, id.key_path);
	if (!rc)
		rc = agent_drop_privileges(c->user);
	if (rc)
		goto out;
	ctx.tpm = tpm;
	ctx.http = http;
	ctx.logs = logs;
	ctx.nlogs = c->nlogs;
	ctx.uefi = uefi;
	agent_attest_load_boot(&ctx);
	sd_notify(0, "READY=1");
	att_backoff_reset(&bo);
	while (!stop) {
		struct agent_round r;
		struct timespec t0, t1;
		double c0 = cpu_ms();
		unsigned int wait_ms;

		round++;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = agent_attest_round(&ctx, &r);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!rc) {
			trusted = !strcmp(r.state, "trusted");
			att_info("round %lu: %s, %llu entries sent%s%s%s, "
				 "%.0f ms, %.1f ms CPU, peak RSS %ld KiB",
				 round, r.state,
				 (unsigned long long)r.entries_sent,
				 r.more ? " (more next round)" : "",
				 r.uefi_bytes ? ", firmware log sent" : "",
				 r.held ? ", challenge from the last verdict"
					: "",
				 (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
					 (double)(t1.tv_nsec - t0.tv_nsec) /
						 1e6,
				 cpu_ms() - c0, rss_kib());
			sd_notifyf(0, "STATUS=round %lu: %s", round, r.state);
			att_backoff_reset(&bo);
			wait_ms = r.more ? 0 : c->interval * 1000u;
		} else {
			att_err("round %lu failed: %s", round,
				att_strerror(rc));
			sd_notifyf(0, "STATUS=round %lu failed: %s", round,
				   att_strerror(rc));
			wait_ms = att_backoff_next(&bo);
			if (wait_ms > c->interval * 1000u)
				wait_ms = c->interval * 1000u;
		}
		if (o->once && (!rc || rc != ATT_E_NET || round >= 3))
			break;
		sleep_ms(wait_ms);
	}
	sd_notify(0, "STOPPING=1");
	if (o->once)
		rc = rc ? rc : (trusted ? ATT_OK : ATT_E_VERIFY);
	else if (stop)
		rc = ATT_OK;
out:
	agent_attest_ctx_release(&ctx);
	att_http_free(http);
	att_esys_free(tpm);
	for (i = 0; i < c->nlogs; i++)
		agent_log_free(logs[i]);
	agent_uefi_log_free(uefi);
	return rc;
}

int main(int argc, char **argv)
{
	struct agent_config c;
	struct opts o = {0};
	struct sigaction sa = {.sa_handler = on_signal};
	int rc;

	att_log_set_ident("attest-agent");
	att_log_set_level(ATT_LOG_INFO);
	agent_config_init(&c);
	rc = parse(argc, argv, &o, &c);
	if (rc) {
		agent_config_release(&c);
		return rc == 1 ? 0 : 2;
	}
	if (o.verbose > 1)
		att_log_set_level(ATT_LOG_DEBUG);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = run(&o, &c);
	curl_global_cleanup();
	agent_config_release(&c);
	if (rc == ATT_OK)
		return 0;
	if (rc == ATT_E_VERIFY)
		return 1;
	att_err("exiting: %s", att_strerror(rc));
	return 2;
}
