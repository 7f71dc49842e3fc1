/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.h - attest-verifier's settings: defaults, a "key = value" config
 * file, then command-line flags (--key value) over both.
 */
#ifndef ATTEST_VERIFIER_CONFIG_H
#define ATTEST_VERIFIER_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "logstate.h"

#define VER_PATH_MAX 1024

/* A measurement log the verifier asks every agent for, and its PCR. */
struct ver_log_spec {
	char name[VER_LOG_NAME_MAX];
	unsigned int pcr;
};

struct ver_config {
	char listen_host[64];	      /* 127.0.0.1 */
	unsigned int listen_port;     /* 8443; 0: any free port */
	char port_file[VER_PATH_MAX]; /* written with the bound port */
	char tls_cert[VER_PATH_MAX];  /* server certificate chain (PEM) */
	char tls_key[VER_PATH_MAX];
	char admin_ca[VER_PATH_MAX];	 /* CA of admin client certificates */
	char agent_ca[VER_PATH_MAX];	 /* CA of agent client certificates */
	char agent_ca_key[VER_PATH_MAX]; /* its key: issues agent certs */
	char ek_ca_dir[VER_PATH_MAX];	 /* TPM vendor CAs for EK certs */
	char database[VER_PATH_MAX];	 /* sqlite:PATH | postgresql://... */
	char webhook_url[VER_PATH_MAX];
	char webhook_ca[VER_PATH_MAX];	/* CA of the webhook receiver */
	char static_pcrs[VER_PATH_MAX]; /* {"sha256": {"0": hex}} expected */
	size_t max_body;		/* bytes, default 16 MiB */
	size_t max_anon_body;		/* without a certificate, 64 KiB */
	size_t max_body_inflight;	/* all bodies being read, 256 MiB */
	unsigned int clock_drift;	/* % the TPM clock may lag, 10 */
	unsigned int clock_slack;	/* ms it may lag besides, 2000 */
	unsigned int max_connections;	/* default 256 */
	unsigned int threads;		/* default 4 */
	unsigned int request_timeout;	/* seconds, default 30 */
	unsigned int drain_timeout;	/* seconds, default 30 */
	unsigned int nonce_lifetime;	/* seconds, default 60 */
	unsigned int interval;		/* expected attestation interval, 60 */
	unsigned int require_uefi_log;	/* 1: a boot without one is untrusted */
	unsigned int agent_cert_days;	/* default 365 */
	unsigned int history_keep;	/* history rows per agent, 100 */
	unsigned int dashboard;		/* 1 (default): serve /dashboard */
	int log_level;			/* enum att_log_level */
	struct ver_log_spec logs[VER_MAX_LOGS]; /* default ima:10 */
	unsigned int nlogs;
};

void ver_config_defaults(struct ver_config *c);
/* Sets one key ("listen", "max_body", ...). err names the problem. */
int ver_config_set(struct ver_config *c, const char *key, const char *val,
		   char *err, size_t errlen);
int ver_config_load_file(struct ver_config *c, const char *path, char *err,
			 size_t errlen);
/* Checks that everything required is there. */
int ver_config_check(const struct ver_config *c, char *err, size_t errlen);

/* Parses a decimal number in [min, max]. */
int ver_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

#endif
