// SPDX-License-Identifier: Apache-2.0
/*
 * main.c - attest-verifier: the attestation REST service.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/log.h"
#include "attest/pcrs.h"
#include "attest/tpm_ek.h"
#include "ca.h"
#include "config.h"
#include "metrics.h"
#include "server.h"
#include "webhook.h"
#include "wlcache.h"
#include "akcache.h"
#include "service.h"
#include "sweep.h"

#define VER_VERSION ATT_VERSION

static void usage(FILE *f)
{
	fputs("NAME\n"
	      "    attest-verifier - TPM 2.0 remote attestation service "
	      "(REST over HTTPS)\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    attest-verifier [--config FILE] [--KEY VALUE]...\n"
	      "    attest-verifier --help | --version\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    Enrolls agents (EK certificate, AK, credential "
	      "activation), verifies\n"
	      "    their quotes and IMA measurement lists against "
	      "whitelists, and\n"
	      "    reports the fleet. HTTPS only: agents and admins are "
	      "told apart by\n"
	      "    the CA of their client certificate. Logs go to "
	      "stderr.\n"
	      "\n"
	      "    Settings come from the defaults, then the config file "
	      "(lines\n"
	      "    'key = value', '#' comments), then flags: every key is "
	      "also a\n"
	      "    flag, --key value (dashes or underscores).\n"
	      "\n"
	      "SETTINGS\n"
	      "    listen HOST:PORT       address to serve on "
	      "(127.0.0.1:8443; port 0\n"
	      "                           picks a free one)\n"
	      "    port_file FILE         write the bound port there once "
	      "listening\n"
	      "    tls_cert FILE          server certificate chain, PEM "
	      "(required)\n"
	      "    tls_key FILE           its private key, PEM "
	      "(required)\n"
	      "    admin_ca FILE          CA(s) of admin client "
	      "certificates (required)\n"
	      "    agent_ca FILE          CA of agent client certificates "
	      "(required)\n"
	      "    agent_ca_key FILE      its key, to issue agent "
	      "certificates\n"
	      "    ek_ca_dir DIR          TPM vendor CAs for EK "
	      "certificates\n"
	      "    database URL           sqlite:PATH (default\n"
	      "                           "
	      "sqlite:/var/lib/attest/verifier.db) or\n"
	      "                           postgresql://...\n"
	      "    webhook_url URL        HTTPS URL state changes are "
	      "POSTed to\n"
	      "    webhook_ca FILE        CA of that server (default: "
	      "the system's)\n"
	      "    static_pcrs FILE       expected PCR values, "
	      "{\"sha256\": {\"0\": hex}};\n"
	      "                           a quote with other values is "
	      "untrusted\n"
	      "    logs NAME:PCR,...      measurement logs every agent "
	      "sends, each\n"
	      "                           replayed against its PCR "
	      "(ima:10; with the\n"
	      "                           slim module: ima:10,slim:11)\n"
	      "    max_body BYTES         request body cap (16777216)\n"
	      "    max_anon_body BYTES    body cap without a client "
	      "certificate\n"
	      "                           (enrollment; 65536)\n"
	      "    max_body_inflight BYTES  request bodies held at once, "
	      "all\n"
	      "                           connections (268435456); past "
	      "it 503\n"
	      "                           with Retry-After\n"
	      "    clock_drift PERCENT    how far a TPM clock may run "
	      "slower than\n"
	      "                           the wall clock between two "
	      "quotes (10)\n"
	      "    clock_slack MS         and by how many ms besides "
	      "(2000); a\n"
	      "                           clock further behind, or one "
	      "that went\n"
	      "                           backwards, marks a possible "
	      "cloned TPM\n"
	      "    max_connections N      concurrent connections (256)\n"
	      "    threads N              worker threads (16)\n"
	      "    request_timeout S      idle connection timeout "
	      "(30)\n"
	      "    drain_timeout S        on SIGTERM, wait this long for "
	      "requests (30)\n"
	      "    nonce_lifetime S       challenge lifetime (60)\n"
	      "    interval S             expected attestation interval "
	      "(60); an agent\n"
	      "                           silent for two intervals is "
	      "stored as stale\n"
	      "                           (history row, webhook)\n"
	      "    require_uefi_log 0|1   1: a boot is untrusted until its "
	      "UEFI event\n"
	      "                           log is received and replays to "
	      "PCRs 0-7 (0:\n"
	      "                           checked when sent; asked for "
	      "once per boot\n"
	      "                           either way)\n"
	      "    agent_cert_days N      agent certificate lifetime "
	      "(365)\n"
	      "    history_keep N         history rows kept per agent "
	      "(100, 2-1000000;\n"
	      "                           a row is a state change, a new "
	      "boot or a\n"
	      "                           verdict that is not trusted)\n"
	      "    dashboard 0|1          1 (default): the fleet dashboard "
	      "at /dashboard\n"
	      "                           (admin; 0: 404)\n"
	      "    log_level LEVEL        err, warn, info (default), "
	      "debug\n"
	      "\n"
	      "SIGNALS\n"
	      "    SIGTERM, SIGINT: stop accepting, let in-flight "
	      "requests finish\n"
	      "    (up to drain_timeout), exit 0.\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 stopped by a signal, 1 runtime failure, 2 bad usage "
	      "or settings.\n"
	      "\n"
	      "SEE ALSO\n"
	      "    docs/verifier.md, schemas/openapi.yaml, attestctl(1)\n",
	      f);
}

static int parse_args(int argc, char **argv, struct ver_config *cfg)
{
	char key[64], err[300];
	const char *cfgfile = NULL;
	int i;
	size_t j;

	/* The config file first, whatever its place among the flags. */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--config") && i + 1 < argc)
			cfgfile = argv[++i];
	if (cfgfile && ver_config_load_file(cfg, cfgfile, err, sizeof(err))) {
		fprintf(stderr, "attest-verifier: %s\n", err);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--config")) {
			i++;
			continue;
		}
		if (strncmp(a, "--", 2) || strlen(a + 2) >= sizeof(key) ||
		    i + 1 >= argc) {
			fprintf(stderr,
				"attest-verifier: unexpected argument '%s' "
				"(try --help)\n",
				a);
			return 2;
		}
		snprintf(key, sizeof(key), "%s", a + 2);
		for (j = 0; key[j]; j++)
			if (key[j] == '-')
				key[j] = '_';
		if (ver_config_set(cfg, key, argv[++i], err, sizeof(err))) {
			fprintf(stderr, "attest-verifier: --%s: %s\n", a + 2,
				err);
			return 2;
		}
	}
	if (ver_config_check(cfg, err, sizeof(err))) {
		fprintf(stderr, "attest-verifier: %s\n", err);
		return 2;
	}
	return 0;
}

static int load_static_pcrs(const char *path, struct att_pcrs **out)
{
	struct att_buf b;
	char err[256];
	int rc;

	*out = calloc(1, sizeof(**out));
	if (!*out)
		return ATT_E_NOMEM;
	att_pcrs_clear(*out);
	att_buf_init(&b, 1 << 20);
	rc = att_buf_read_file(&b, path, 1 << 20);
	if (!rc)
		rc = att_pcrs_parse_json(*out, (const char *)b.data, b.len, err,
					 sizeof(err));
	else
		snprintf(err, sizeof(err), "cannot read it");
	att_buf_release(&b);
	if (rc)
		att_err("static_pcrs %s: %s", path, err);
	return rc;
}

static int write_port_file(const char *path, unsigned int port)
{
	char s[16];
	int n = snprintf(s, sizeof(s), "%u\n", port);

	return att_write_file_atomic(path, s, (size_t)n, 0644);
}

int main(int argc, char **argv)
{
	struct ver_config cfg;
	struct ver_ctx ctx;
	struct ver_server *srv = NULL;
	struct ver_sweep *sweep = NULL;
	sigset_t set;
	siginfo_t si;
	int rc, sig = 0, status = 1;

	att_log_set_ident("attest-verifier");
	if (argc == 2 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("attest-verifier %s\n", VER_VERSION);
		return 0;
	}
	ver_config_defaults(&cfg);
	rc = parse_args(argc, argv, &cfg);
	if (rc)
		return rc;
	att_log_set_level((enum att_log_level)cfg.log_level);

	/* Signals are taken by sigwait here; every thread inherits the mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	memset(&ctx, 0, sizeof(ctx));
	ctx.cfg = &cfg;
	rc = att_store_open(cfg.database, &ctx.store);
	if (rc) {
		att_err("cannot open the database: %s", att_strerror(rc));
		goto out;
	}
	rc = att_store_set_history_keep(ctx.store, cfg.history_keep);
	if (rc) {
		att_err("history_keep %u: out of range", cfg.history_keep);
		goto out;
	}
	rc = ver_auth_new(cfg.admin_ca, cfg.agent_ca, &ctx.auth);
	if (!rc)
		rc = ver_metrics_new(&ctx.metrics);
	if (!rc)
		rc = ver_wlcache_new(16, &ctx.wlc);
	if (!rc)
		rc = ver_akcache_new(VER_AKCACHE_SLOTS, &ctx.akc);
	if (!rc && cfg.ek_ca_dir[0]) {
		rc = att_ek_ca_load(cfg.ek_ca_dir, &ctx.ek_ca);
		if (rc)
			att_err("cannot load EK CAs from %s: %s", cfg.ek_ca_dir,
				att_strerror(rc));
	}
	if (!rc && cfg.agent_ca_key[0])
		rc = ver_ca_load(cfg.agent_ca, cfg.agent_ca_key, &ctx.agent_ca);
	if (!rc && cfg.static_pcrs[0])
		rc = load_static_pcrs(cfg.static_pcrs, &ctx.static_pcrs);
	if (!rc && cfg.webhook_url[0])
		rc = ver_webhook_new(cfg.webhook_url, cfg.webhook_ca,
				     &ctx.webhook);
	if (!rc && (!ctx.ek_ca || !ctx.agent_ca))
		att_warn("enrollment disabled (needs ek_ca_dir and "
			 "agent_ca_key)");
	if (!rc)
		rc = ver_server_start(&ctx, &srv);
	if (!rc)
		rc = ver_sweep_start(
			&ctx, cfg.interval > 1 ? cfg.interval / 2 : 1, &sweep);
	if (rc)
		goto out;
	if (cfg.port_file[0] &&
	    write_port_file(cfg.port_file, ver_server_port(srv))) {
		att_err("cannot write %s", cfg.port_file);
		goto out;
	}
	att_info("listening on https://%s:%u (storage %s)", cfg.listen_host,
		 ver_server_port(srv), att_store_backend(ctx.store));
	for (;;) {
		sig = sigwaitinfo(&set, &si);
		if (sig < 0)
			continue;
		if (sig != SIGHUP)
			break;
		att_info("SIGHUP ignored (restart to reload settings)");
	}
	/* Who asked: a stop nobody expected can be traced to its sender. */
	att_info("%s from pid %ld (uid %ld): draining", strsignal(sig),
		 si.si_code == SI_USER || si.si_code == SI_QUEUE
			 ? (long)si.si_pid
			 : -1L,
		 si.si_code == SI_USER || si.si_code == SI_QUEUE
			 ? (long)si.si_uid
			 : -1L);
	ver_sweep_stop(sweep);
	sweep = NULL;
	ver_server_drain_stop(srv, cfg.drain_timeout);
	srv = NULL;
	status = 0;
	att_info("stopped");
out:
	ver_sweep_stop(sweep);
	if (srv)
		ver_server_drain_stop(srv, 0);
	ver_metrics_free(ctx.metrics);
	ver_wlcache_free(ctx.wlc);
	ver_akcache_free(ctx.akc);
	ver_webhook_free(ctx.webhook);
	free(ctx.static_pcrs);
	ver_ca_free(ctx.agent_ca);
	att_ek_ca_free(ctx.ek_ca);
	ver_auth_free(ctx.auth);
	att_store_free(ctx.store);
	return status;
}
