// SPDX-License-Identifier: Apache-2.0
/*
 * test_agent_e2e.c - the whole flow on one machine with real processes:
 * attest-verifier (SQLite, TLS), swtpm, and the attest-agent binary.
 *
 * A "host" helper appends ima-ng records to a list file and extends the
 * same template hashes into the swtpm's PCR 10, so the agent sees a
 * consistent host. swtpm serves one client at a time, so the helper uses
 * the TPM only between agent rounds (--once runs), except in the daemon
 * scenario where nothing is extended.
 *
 * Scenarios: first attestation trusted; an unknown executable appended
 * -> the agent and the fleet report show it untrusted with the path; a
 * list entry edited after it was extended -> untrusted (PCR mismatch);
 * swtpm restarted (reboot: PCRs reset, new resetCount, list restarts) ->
 * trusted again without re-enrollment; a restarted agent continues from
 * its position (sends only new entries); the first of two verifier URLs
 * down -> the second takes the evidence; verifier stopped while the
 * daemon runs -> the daemon retries and attests again when it is back.
 * The TPM losing power at a random point of a round (4 times): a TPM
 * error or a finished round, never a crash; trusted after power is back.
 * The daemon takes each round's challenge from the last verdict (one
 * challenge request for many rounds) and asks again when the verifier
 * has lost it.
 * Two logs (a verifier with logs = ima:10,slim:11): both replayed against
 * one quote, an unknown file or an edited entry in the slim list (PCR 11)
 * named, an agent without the slim log refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/replay.h"
#include "attest/tpm_esys.h"
#include "evbuild.h"
#include "imabuild.h"
#include "swtpm.h"
#include "verifier_http.h"
#include "verifier_proc.h"

static struct {
	char dir[64], db[128], list[128], conf[128], token[128], state[128];
	char uefi[128], slimlist[128];
	unsigned int boots;
	int slim; /* the agent has the slim log (PCR 11) configured */
	char agent_bin[256], url[64];
	struct att_vproc *vp;
	struct att_swtpm *sw;
	struct att_buf log;  /* what the host's kernel would show */
	struct att_buf slog; /* the slim module's list, PCR 11 */
} F;

static const char *const vextra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR,
				     NULL};

static int req(const char *method, const char *path, const char *body,
	       struct json_object **js)
{
	struct att_vh_resp r;
	int st;

	assert_int_equal(att_vh_request(att_vproc_port(F.vp), F.dir, "admin",
					method, path, body,
					body ? strlen(body) : 0, &r),
			 0);
	st = r.status;
	*js = r.body ? json_tokener_parse(r.body) : NULL;
	att_vh_resp_release(&r);
	return st;
}

static void write_file(const char *path, const struct att_buf *b)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(
		fwrite(b->data ? b->data : (uint8_t *)"", 1, b->len, f),
		b->len);
	assert_int_equal(fclose(f), 0);
}

static void write_list(void)
{
	write_file(F.list, &F.log);
}

static void extend_pcr(struct att_esys *t, unsigned int pcr,
		       const struct att_buf *td)
{
	uint8_t d1[20], d256[32];

	ib_hash("sha1", td->data, td->len, d1);
	ib_hash("sha256", td->data, td->len, d256);
	assert_int_equal(att_esys_pcr_extend(t, pcr, ATT_HASH_SHA1, d1), 0);
	assert_int_equal(att_esys_pcr_extend(t, pcr, ATT_HASH_SHA256, d256), 0);
}

static void extend(struct att_esys *t, const struct att_buf *td)
{
	extend_pcr(t, 10, td);
}

/* One ima-ng record of digest d for path in list, extended into pcr. */
static void record(struct att_esys *t, struct att_buf *list, unsigned int pcr,
		   const char *path, const uint8_t *d)
{
	struct att_buf td;

	att_buf_init(&td, 0);
	ib_dng(&td, "sha256", d, 32);
	ib_nng(&td, path);
	ib_record(list, pcr, "sha1", "ima-ng", &td, 0);
	extend_pcr(t, pcr, &td);
	att_buf_release(&td);
}

/* The host measures a file: one ima-ng record, extended into PCR 10. */
static void measure(const char *path, const char *content)
{
	struct att_esys *t;
	uint8_t d[32];

	assert_int_equal(att_esys_new(att_swtpm_tcti(F.sw), &t), 0);
	ib_hash("sha256", content, strlen(content), d);
	record(t, &F.log, 10, path, d);
	att_esys_free(t);
	write_list();
}

/*
 * The firmware's part of a boot: events on PCRs 0-7 extended into the TPM
 * and written to the event log file the agent is configured with; each
 * boot's firmware measures something different. With forge set, the file
 * gets another digest for PCR 4's event than the TPM was given.
 */
static void firmware(struct att_esys *t, int forge)
{
	static const uint8_t sep[4];
	uint8_t d1[20], d256[32];
	struct att_buf fw;
	char what[64];
	uint32_t pcr;
	FILE *f;

	att_buf_init(&fw, 0);
	evb_header(&fw);
	for (pcr = 0; pcr < 8; pcr++) {
		snprintf(what, sizeof(what), "firmware %u, boot %u", pcr,
			 F.boots);
		evb_event(&fw, pcr, EVB_EV_POST_CODE, what, strlen(what), d1,
			  d256);
		if (forge && pcr == 4)
			evb_event(&fw, pcr, EVB_EV_POST_CODE, "forged", 6, NULL,
				  NULL);
		assert_int_equal(att_esys_pcr_extend(t, pcr, ATT_HASH_SHA1, d1),
				 0);
		assert_int_equal(
			att_esys_pcr_extend(t, pcr, ATT_HASH_SHA256, d256), 0);
	}
	for (pcr = 0; pcr < 8; pcr++) {
		evb_event(&fw, pcr, EVB_EV_SEPARATOR, sep, sizeof(sep), d1,
			  d256);
		assert_int_equal(att_esys_pcr_extend(t, pcr, ATT_HASH_SHA1, d1),
				 0);
		assert_int_equal(
			att_esys_pcr_extend(t, pcr, ATT_HASH_SHA256, d256), 0);
	}
	f = fopen(F.uefi, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(fw.data, 1, fw.len, f), fw.len);
	assert_int_equal(fclose(f), 0);
	att_buf_release(&fw);
	F.boots++;
}

/*
 * A boot: the firmware measures into PCRs 0-7, then the list restarts
 * with boot_aggregate over PCRs 0-9.
 */
static void boot_forged(int forge)
{
	struct att_pcr_sel sel;
	struct att_pcrs pcrs;
	struct att_esys *t;
	struct att_buf td;
	uint8_t agg[32];

	att_buf_release(&F.log);
	att_buf_init(&F.log, 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(F.sw), &t), 0);
	firmware(t, forge);
	memset(&sel, 0, sizeof(sel));
	att_pcr_sel_add(&sel, ATT_HASH_SHA256, 0x3ff);
	att_pcrs_clear(&pcrs);
	assert_int_equal(att_esys_pcr_read(t, &sel, &pcrs), 0);
	assert_int_equal(att_boot_aggregate(&pcrs, ATT_HASH_SHA256, 1, agg), 0);
	att_buf_init(&td, 0);
	ib_dng(&td, "sha256", agg, 32);
	ib_nng(&td, "boot_aggregate");
	ib_record(&F.log, 10, "sha1", "ima-ng", &td, 0);
	extend(t, &td);
	att_buf_release(&td);
	att_esys_free(t);
	write_list();
}

static void boot(void)
{
	boot_forged(0);
}

static void write_conf_urls(const char *first)
{
	FILE *f = fopen(F.conf, "w");

	assert_non_null(f);
	if (first)
		fprintf(f, "verifier = %s\n", first);
	fprintf(f,
		"# written by test_agent_e2e\n"
		"verifier = %s\n"
		"ca = %s/server-ca.pem\n"
		"enrollment_token_file = %s\n"
		"agent_id = host-1\n"
		"tcti = %s\n"
		"log = ima:%s:10\n"
		"uefi_log = %s\n"
		"state_dir = %s\n"
		"interval = 1\n",
		F.url, F.dir, F.token, att_swtpm_tcti(F.sw), F.list, F.uefi,
		F.state);
	if (F.slim)
		fprintf(f, "log = slim:%s:11\n", F.slimlist);
	assert_int_equal(fclose(f), 0);
}

static void write_conf(void)
{
	write_conf_urls(NULL);
}

/* The last "round" line the agent logged. */
static void last_round_line(char *out, size_t n)
{
	char path[192], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/agent.log", F.dir);
	out[0] = '\0';
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, ": round "))
			snprintf(out, n, "%s", line);
	fclose(f);
}

/*
 * Starts attest-agent --once under valgrind; agent_wait() returns its
 * exit status (0 trusted, 1 not, 2 error; 9 valgrind found an error or a
 * leak; -1 killed by a signal).
 */
static pid_t agent_start(void)
{
	char out[192];
	pid_t pid;

	snprintf(out, sizeof(out), "%s/agent.log", F.dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen(out, "a", stderr))
			_exit(127);
		/*
		 * Every --once round runs under valgrind: an invalid access
		 * or a leak makes it exit 9, which no test accepts.
		 */
		execlp("valgrind", "valgrind", "-q", "--error-exitcode=9",
		       "--leak-check=full",
		       "--errors-for-leak-kinds=definite,indirect", F.agent_bin,
		       "--config", F.conf, "--once", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int agent_wait(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int agent_once(void)
{
	return agent_wait(agent_start());
}

static struct json_object *agent_record(void)
{
	struct json_object *js;

	assert_int_equal(req("GET", "/v1/agents/host-1", NULL, &js), 200);
	return js;
}

static const char *jpath_str(struct json_object *o, const char *a,
			     const char *b)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, a, &v))
		return NULL;
	if (b && !json_object_object_get_ex(v, b, &v))
		return NULL;
	return json_object_get_string(v);
}

/* The failures of the agent's last result name this path. */
static int last_result_names(struct json_object *rec, const char *path)
{
	const char *s = json_object_to_json_string_ext(
		rec, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	return strstr(s, path) != NULL;
}

static int setup(void **state)
{
	struct json_object *js, *t;
	char body[1024], ha[65], hb[65];
	FILE *f;

	(void)state;
	att_buf_init(&F.log, 0);
	snprintf(F.dir, sizeof(F.dir), "/tmp/att-e2e-XXXXXX");
	if (!mkdtemp(F.dir) || att_pki_init(F.dir))
		return -1;
	snprintf(F.db, sizeof(F.db), "sqlite:%s/v.db", F.dir);
	snprintf(F.list, sizeof(F.list), "%s/ima.bin", F.dir);
	snprintf(F.conf, sizeof(F.conf), "%s/agent.conf", F.dir);
	snprintf(F.uefi, sizeof(F.uefi), "%s/binary_bios_measurements", F.dir);
	snprintf(F.slimlist, sizeof(F.slimlist), "%s/slim.bin", F.dir);
	att_buf_init(&F.slog, 0);
	snprintf(F.token, sizeof(F.token), "%s/token", F.dir);
	snprintf(F.state, sizeof(F.state), "%s/state", F.dir);
	if (att_vproc_bin("attest-agent", F.agent_bin, sizeof(F.agent_bin)) ||
	    access(F.agent_bin, X_OK)) {
		fprintf(stderr, "FATAL: no attest-agent binary (%s)\n",
			F.agent_bin);
		return -1;
	}
	if (att_swtpm_start(&F.sw) ||
	    att_vproc_start(F.dir, F.db, vextra, &F.vp)) {
		fprintf(stderr, "FATAL: cannot start swtpm or the verifier\n");
		return -1;
	}
	snprintf(F.url, sizeof(F.url), "https://127.0.0.1:%u",
		 att_vproc_port(F.vp));
	/* token, whitelist of the host's known files, assigned */
	if (req("POST", "/v1/enrollment/tokens", "{\"ttl\": 600}", &js) !=
		    201 ||
	    !json_object_object_get_ex(js, "token", &t))
		return -1;
	f = fopen(F.token, "w");
	fprintf(f, "%s\n", json_object_get_string(t));
	fclose(f);
	json_object_put(js);
	ib_sha256_hex("bash", ha);
	ib_sha256_hex("libc", hb);
	snprintf(body, sizeof(body),
		 "{\"name\": \"hosts\", \"whitelist\": {\"digests\": "
		 "{\"/usr/bin/bash\": [\"%s\"], \"/usr/lib/libc.so.6\": "
		 "[\"%s\"]}}}",
		 ha, hb);
	if (req("POST", "/v1/whitelists", body, &js) != 201)
		return -1;
	json_object_put(js);
	write_conf();
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	att_vproc_free(F.vp);
	att_swtpm_free(F.sw);
	att_buf_release(&F.log);
	att_buf_release(&F.slog);
	if (getenv("ATT_KEEP"))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", F.dir);
	return system(cmd) ? -1 : 0;
}

static void assign(void)
{
	struct json_object *js;

	assert_int_equal(req("PUT", "/v1/agents/host-1/whitelist",
			     "{\"name\": \"hosts\", \"version\": 0}", &js),
			 200);
	json_object_put(js);
}

static void trusted_then_unknown_then_edited(void **state)
{
	struct json_object *rec, *fleet;
	size_t off;

	(void)state;
	boot();
	measure("/usr/bin/bash", "bash");
	measure("/usr/lib/libc.so.6", "libc");
	/* first round enrolls; no whitelist yet: not trusted */
	assert_int_equal(agent_once(), 1);
	assign();
	assert_int_equal(agent_once(), 0);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "trusted");
	json_object_put(rec);
	/* an unknown executable runs */
	measure("/opt/evil/bin/miner", "evil");
	assert_int_equal(agent_once(), 1);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "untrusted");
	assert_true(last_result_names(rec, "/opt/evil/bin/miner"));
	json_object_put(rec);
	assert_int_equal(req("GET", "/v1/fleet", NULL, &fleet), 200);
	assert_non_null(strstr(json_object_to_json_string_ext(
				       fleet, JSON_C_TO_STRING_NOSLASHESCAPE),
			       "/opt/evil/bin/miner"));
	json_object_put(fleet);
	/* an entry edited after it was extended: the replay cannot match */
	off = F.log.len - 4;
	F.log.data[off] ^= 1;
	write_list();
	assert_int_equal(agent_once(), 1);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "untrusted");
	json_object_put(rec);
	F.log.data[off] ^= 1;
	write_list();
}

/* An orderly reboot: the kernel sends TPM2_Shutdown, the TPM restarts. */
static void tpm_reboot(void)
{
	struct att_esys *t;

	assert_int_equal(att_esys_new(att_swtpm_tcti(F.sw), &t), 0);
	assert_int_equal(Esys_Shutdown(att_esys_context(t), ESYS_TR_NONE,
				       ESYS_TR_NONE, ESYS_TR_NONE,
				       TPM2_SU_CLEAR),
			 TPM2_RC_SUCCESS);
	att_esys_free(t);
	assert_int_equal(att_swtpm_restart(F.sw), 0); /* PCRs reset */
	write_conf(); /* the TCTI may have a new port */
}

/* The last result says the firmware log replayed to the quoted PCRs. */
static int uefi_matched(struct json_object *rec)
{
	struct json_object *v;

	return json_object_object_get_ex(rec, "last_result", &v) &&
	       json_object_object_get_ex(v, "uefi", &v) &&
	       json_object_object_get_ex(v, "matched", &v) &&
	       json_object_is_type(v, json_type_boolean) &&
	       json_object_get_boolean(v);
}

static void reboot_without_reenrollment(void **state)
{
	struct json_object *rec;
	struct stat st;
	time_t before;
	char cert[192];

	(void)state;
	snprintf(cert, sizeof(cert), "%s/agent.pem", F.state);
	assert_int_equal(stat(cert, &st), 0);
	before = st.st_mtime;
	tpm_reboot();
	boot();
	measure("/usr/bin/bash", "bash");
	assert_int_equal(agent_once(), 0);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "trusted");
	/* the new boot's firmware log went with it and replayed */
	assert_true(uefi_matched(rec));
	json_object_put(rec);
	assert_int_equal(stat(cert, &st), 0);
	assert_int_equal(st.st_mtime, before); /* not enrolled again */
}

/*
 * A boot whose firmware log does not match what the firmware extended:
 * untrusted, naming the firmware log; the next genuine boot is trusted.
 */
static void forged_firmware_log(void **state)
{
	struct json_object *rec;

	(void)state;
	tpm_reboot();
	boot_forged(1);
	measure("/usr/bin/bash", "bash");
	assert_int_equal(agent_once(), 1);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "untrusted");
	assert_false(uefi_matched(rec));
	assert_true(last_result_names(rec, "uefi log"));
	json_object_put(rec);
	tpm_reboot();
	boot();
	measure("/usr/bin/bash", "bash");
	assert_int_equal(agent_once(), 0);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "trusted");
	assert_true(uefi_matched(rec));
	json_object_put(rec);
}

/*
 * The TPM loses power (swtpm SIGKILLed) at a random point of an agent
 * round, 4 times: the agent ends with a TPM error (2) or had finished
 * (0), never a crash or a valgrind error; a failed round leaves nothing
 * new at the verifier. Power back (a disorderly reset: the clock is
 * unsafe until the TPM writes it to NV, here moved on with
 * TPM2_ClockSet), a new boot: trusted again.
 */
static void tpm_gone_mid_round(void **state)
{
	struct json_object *rec;
	unsigned int seed = (unsigned int)getpid();
	int i, st, errs = 0;

	(void)state;
	for (i = 0; i < 4; i++) {
		struct timespec ts = {0, 0};
		int64_t before, after;
		pid_t pid;

		rec = agent_record();
		before = json_object_get_int64(
			json_object_object_get(rec, "last_attestation"));
		json_object_put(rec);
		measure("/usr/bin/bash", "bash");
		pid = agent_start();
		/* valgrind start-up, then anywhere in the round */
		ts.tv_nsec = (long)(rand_r(&seed) % 1000) * 1000000L;
		ts.tv_sec = 1 + (rand_r(&seed) % 2);
		nanosleep(&ts, NULL);
		assert_int_equal(att_swtpm_kill(F.sw), 0);
		st = agent_wait(pid);
		if (st != 0 && st != 2)
			fail_msg("round %d: agent exit %d (0 or 2 wanted)", i,
				 st);
		if (st == 2) {
			errs++;
			rec = agent_record();
			after = json_object_get_int64(json_object_object_get(
				rec, "last_attestation"));
			json_object_put(rec);
			/* no evidence went out: nothing new stored */
			assert_int_equal(after, before);
		}
		/* power back, a new boot */
		assert_int_equal(att_swtpm_restart(F.sw), 0);
		write_conf();
		{
			struct att_esys *t;

			assert_int_equal(att_esys_new(att_swtpm_tcti(F.sw), &t),
					 0);
			assert_int_equal(
				att_tpm_clock_safe_again(att_esys_context(t)),
				0);
			att_esys_free(t);
		}
		boot();
		measure("/usr/bin/bash", "bash");
		st = agent_once();
		if (st != 0)
			fail_msg("round %d after power back: exit %d", i, st);
	}
	fprintf(stderr, "tpm gone: %d of 4 rounds ended with a TPM error\n",
		errs);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "trusted");
	json_object_put(rec);
}

/* attest-agent as a daemon (no --once), its stderr in log. */
static pid_t daemon_start(const char *log)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen(log, "w", stderr))
			_exit(127);
		execl(F.agent_bin, "attest-agent", "--config", F.conf,
		      (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void verifier_away_and_back(void **state)
{
	char log[192], line[512];
	struct json_object *rec;
	int64_t first, later = 0;
	struct att_vproc *v2 = NULL;
	const char *extra[8];
	char port[16];
	pid_t pid;
	FILE *f;
	int st, i, failed = 0;

	(void)state;
	rec = agent_record();
	first = json_object_get_int64(
		json_object_object_get(rec, "last_attestation"));
	json_object_put(rec);
	snprintf(log, sizeof(log), "%s/daemon.log", F.dir);
	pid = daemon_start(log);
	sleep(2);
	/* stop the verifier; the daemon keeps trying */
	snprintf(port, sizeof(port), "127.0.0.1:%u", att_vproc_port(F.vp));
	assert_int_equal(att_vproc_stop(F.vp, &st), 0);
	att_vproc_free(F.vp);
	F.vp = NULL;
	sleep(3);
	/* back, same address and database */
	extra[0] = "--ek-ca-dir";
	extra[1] = ATT_SWTPM_LOCALCA_DIR;
	extra[2] = "--listen";
	extra[3] = port;
	extra[4] = NULL;
	assert_int_equal(att_vproc_start(F.dir, F.db, extra, &v2), 0);
	F.vp = v2;
	for (i = 0; i < 30 && later <= first; i++) {
		sleep(1);
		rec = agent_record();
		later = json_object_get_int64(
			json_object_object_get(rec, "last_attestation"));
		json_object_put(rec);
	}
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_true(later > first);
	/* it said so while the verifier was away */
	f = fopen(log, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		failed |= strstr(line, "failed") != NULL;
	fclose(f);
	assert_true(failed);
}

/* attest_challenges_total{via="VIA"} from the verifier's /metrics. */
static long long challenges(const char *via)
{
	long long v = att_vh_metric(att_vproc_port(F.vp), F.dir,
				    "attest_challenges_total{via=\"%s\"}", via);

	assert_true(v >= 0);
	return v;
}

/* Waits (up to 30 s) until the verifier has given n more verdict challenges. */
static void wait_verdicts(long long from, long long n)
{
	int i;

	for (i = 0; i < 300 && challenges("verdict") < from + n; i++)
		usleep(100 * 1000);
	assert_true(challenges("verdict") >= from + n);
}

/*
 * The daemon takes each round's challenge from the last verdict: one
 * challenge request for many rounds. When the verifier has lost that
 * challenge (its outstanding nonces deleted, as a power loss may do),
 * the round asks for a new one and still succeeds.
 */
static void daemon_carried_challenges(void **state)
{
	char log[192], line[512], cmd[1600];
	long long req0, ver0, req1;
	int st, i, refused = 0, failed = 0, carried = 0;
	pid_t pid;
	FILE *f;

	(void)state;
	req0 = challenges("request");
	ver0 = challenges("verdict");
	snprintf(log, sizeof(log), "%s/carried.log", F.dir);
	pid = daemon_start(log);
	/* Four rounds (interval 1 s): the first one asked, no other. */
	wait_verdicts(ver0, 4);
	assert_int_equal(challenges("request"), req0 + 1);
	/*
	 * The verifier forgets the outstanding challenge; a round in flight
	 * at that moment may have made the next one already, so again until
	 * a round has had to ask.
	 */
	snprintf(cmd, sizeof(cmd),
		 "sqlite3 -cmd '.timeout 10000' '%s' 'DELETE FROM nonces' "
		 ">/dev/null",
		 F.db + strlen("sqlite:"));
	for (i = 0; i < 10 && challenges("request") == req0 + 1; i++) {
		ver0 = challenges("verdict");
		assert_int_equal(system(cmd), 0);
		wait_verdicts(ver0, 2);
	}
	req1 = challenges("request");
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_true(req1 >= req0 + 2);
	f = fopen(log, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		refused += strstr(line, "refused the challenge its last "
					"verdict gave (bad_nonce)") != NULL;
		failed += strstr(line, "failed") != NULL;
		carried +=
			strstr(line, "challenge from the last verdict") != NULL;
	}
	fclose(f);
	fprintf(stderr,
		"carried challenges: %d rounds on one, %d refused (asked "
		"again), %d failed\n",
		carried, refused, failed);
	assert_true(refused >= 1);
	assert_int_equal(failed, 0);
	assert_true(carried >= 3);
}

static void restart_continues_and_failover(void **state)
{
	char line[512], dead[64];

	(void)state;
	/* a restarted agent sends only what is new */
	measure("/usr/lib/libc.so.6", "libc");
	assert_int_equal(agent_once(), 0);
	last_round_line(line, sizeof(line));
	if (!strstr(line, "trusted, 1 entries sent"))
		fail_msg("last round: %s", line);
	/* the first verifier URL is down: the second one takes it */
	snprintf(dead, sizeof(dead), "https://127.0.0.1:1");
	write_conf_urls(dead);
	assert_int_equal(agent_once(), 0);
	last_round_line(line, sizeof(line));
	assert_non_null(strstr(line, "trusted, 0 entries sent"));
	write_conf();
}

/* attestctl over the same verifier: exit codes and the exact fleet JSON. */
static int ctl(const char *args, const char *out)
{
	char bin[256], cmd[1400];
	int st;

	assert_int_equal(att_vproc_bin("attestctl", bin, sizeof(bin)), 0);
	snprintf(cmd, sizeof(cmd),
		 "ATTEST_URL=https://127.0.0.1:%u ATTEST_CA=%s/server-ca.pem "
		 "ATTEST_CERT=%s/admin.pem ATTEST_KEY=%s/admin.key '%s' %s "
		 ">'%s' 2>/dev/null",
		 att_vproc_port(F.vp), F.dir, F.dir, F.dir, bin, args, out);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void attestctl_fleet(void **state)
{
	struct json_object *api, *cli;
	char out[192];

	(void)state;
	snprintf(out, sizeof(out), "%s/ctl.out", F.dir);
	assert_int_equal(ctl("fleet --json", out), 0);
	cli = json_object_from_file(out);
	assert_non_null(cli);
	assert_int_equal(req("GET", "/v1/fleet", NULL, &api), 200);
	/* the same report but for the time it was generated */
	json_object_object_del(cli, "generated_at");
	json_object_object_del(api, "generated_at");
	assert_true(json_object_equal(cli, api));
	json_object_put(cli);
	json_object_put(api);
	assert_int_equal(ctl("fleet", out), 0);
	assert_int_equal(ctl("agent host-1", out), 0);
	assert_int_equal(ctl("agent no-such-agent", out), 1);
	assert_int_equal(ctl("assign", out), 2);
	assert_int_equal(ctl("--url https://127.0.0.1:1 fleet", out), 3);
	/* host-1 is trusted now; --check says so */
	assert_int_equal(ctl("fleet --check", out), 0);
}

/* The slim module measures a file: a record in its list, PCR 11. */
static void slim_measure(const char *path, const char *content)
{
	struct att_esys *t;
	uint8_t d[32];

	assert_int_equal(att_esys_new(att_swtpm_tcti(F.sw), &t), 0);
	if (!strcmp(path, "boot_aggregate")) {
		struct att_pcr_sel sel;
		struct att_pcrs pcrs;

		memset(&sel, 0, sizeof(sel));
		att_pcr_sel_add(&sel, ATT_HASH_SHA256, 0x3ff);
		att_pcrs_clear(&pcrs);
		assert_int_equal(att_esys_pcr_read(t, &sel, &pcrs), 0);
		assert_int_equal(
			att_boot_aggregate(&pcrs, ATT_HASH_SHA256, 1, d), 0);
	} else {
		ib_hash("sha256", content, strlen(content), d);
	}
	record(t, &F.slog, 11, path, d);
	att_esys_free(t);
	write_file(F.slimlist, &F.slog);
}

static struct json_object *jget_last(struct json_object *rec)
{
	struct json_object *res;

	assert_true(json_object_object_get_ex(rec, "last_result", &res));
	return res;
}

/* The names and replay verdicts of the last result's logs. */
static void last_logs(struct json_object *rec, char *out, size_t n)
{
	struct json_object *res, *logs, *l, *v;
	size_t i, len = 0;

	out[0] = '\0';
	assert_true(json_object_object_get_ex(rec, "last_result", &res));
	assert_true(json_object_object_get_ex(res, "logs", &logs));
	for (i = 0; i < json_object_array_length(logs); i++) {
		l = json_object_array_get_idx(logs, i);
		len += (size_t)snprintf(
			out + len, n - len, "%s%s:%s", i ? " " : "",
			jpath_str(l, "name", NULL),
			json_object_object_get_ex(l, "replay_matched", &v) &&
					json_object_get_boolean(v)
				? "matched"
				: "not-matched");
		assert_true(len < n);
	}
}

/*
 * Two logs: a verifier asking for mainline IMA's list (PCR 10) and the
 * slim module's (PCR 11) replays both against one quote; an unknown file
 * in either is named; an edited slim entry fails PCR 11 only; an agent
 * without the slim log cannot answer (and nothing is stored).
 */
static void two_logs(void **state)
{
	static const char *const two[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR,
					  "--logs", "ima:10,slim:11", NULL};
	struct json_object *rec;
	char logs[128];
	const char *s;
	size_t off;

	(void)state;
	att_vproc_free(F.vp);
	assert_int_equal(att_vproc_start(F.dir, F.db, two, &F.vp), 0);
	snprintf(F.url, sizeof(F.url), "https://127.0.0.1:%u",
		 att_vproc_port(F.vp));
	F.slim = 1;
	tpm_reboot();
	boot();
	att_buf_release(&F.slog);
	att_buf_init(&F.slog, 0);
	slim_measure("boot_aggregate", NULL);
	measure("/usr/bin/bash", "bash");
	slim_measure("/usr/lib/libc.so.6", "libc");
	assert_int_equal(agent_once(), 0);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "trusted");
	last_logs(rec, logs, sizeof(logs));
	assert_string_equal(logs, "ima:matched slim:matched");
	json_object_put(rec);
	/* next round: nothing new in either log, still trusted */
	assert_int_equal(agent_once(), 0);

	/* an unknown file in the slim list only */
	slim_measure("/usr/sbin/evil-daemon", "evil");
	assert_int_equal(agent_once(), 1);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "untrusted");
	assert_true(last_result_names(rec, "/usr/sbin/evil-daemon"));
	last_logs(rec, logs, sizeof(logs));
	assert_string_equal(logs, "ima:matched slim:matched");
	json_object_put(rec);

	/* a slim entry edited after it was extended: PCR 11 cannot match */
	off = F.slog.len - 4;
	F.slog.data[off] ^= 1;
	write_file(F.slimlist, &F.slog);
	assert_int_equal(agent_once(), 1);
	rec = agent_record();
	assert_string_equal(jpath_str(rec, "state", NULL), "untrusted");
	s = json_object_to_json_string(jget_last(rec));
	assert_non_null(strstr(s, "log slim: no prefix"));
	assert_null(strstr(s, "log ima:"));
	json_object_put(rec);
	F.slog.data[off] ^= 1;
	write_file(F.slimlist, &F.slog);

	/* the agent without the slim log: an error, not a verdict */
	F.slim = 0;
	write_conf();
	assert_int_equal(agent_once(), 2);
	F.slim = 1;
	write_conf();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trusted_then_unknown_then_edited),
		cmocka_unit_test(reboot_without_reenrollment),
		cmocka_unit_test(forged_firmware_log),
		cmocka_unit_test(restart_continues_and_failover),
		cmocka_unit_test(verifier_away_and_back),
		cmocka_unit_test(daemon_carried_challenges),
		cmocka_unit_test(tpm_gone_mid_round),
		cmocka_unit_test(attestctl_fleet),
		cmocka_unit_test(two_logs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
