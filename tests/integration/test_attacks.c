// SPDX-License-Identifier: Apache-2.0
/*
 * test_attacks.c - attacks on the verifier's front door, with the real
 * attest-verifier over TLS (SQLite; PostgreSQL with two replicas) and
 * real swtpms through the agent's TPM layer.
 *
 * - Every route of schemas/openapi.yaml (the test checks that its table
 *   is the whole API) without a client certificate, with a certificate
 *   from an unknown CA, with an agent certificate on admin routes and the
 *   admin certificate on agent routes: 401/403 with the role's error
 *   code, and nothing stored changes.
 * - 50 enrollments of one EK under 50 ids at once (on PostgreSQL spread
 *   over two replicas): exactly one wins, 49 get 409 ek_in_use.
 * - 50 re-enrollments of one id with its EK at once: every answer is a
 *   challenge or 409 conflict; the one pending secret stored is the one
 *   of a challenge that was answered, its activation alone yields a
 *   certificate, and that certificate works.
 * - An AK from another TPM enrolled with a genuine EK: the verifier
 *   answers with a credential for that AK's name sealed to the EK, and
 *   the attacker cannot open it: not with the EK's TPM and its own AK,
 *   not with the AK's TPM, not with the foreign AK's public area loaded
 *   into the EK's TPM (TPM2_LoadExternal); a guessed proof is refused
 *   and no certificate is issued. The same raw TPM calls with the AK
 *   that lives there do open it (the control).
 *
 * The evidence and transport attacks are in test_attacks_evidence.c.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <openssl/crypto.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

#include "../../verifier/service/store.h"
#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/tpm_esys.h"
#include "imabuild.h"
#include "pg_cluster.h"
#include "swtpm.h"
#include "verifier_http.h"
#include "verifier_proc.h"
#include "vhost/vhost.h"

#define RACE_N 50

static struct vh_host F;
static struct att_vproc *V2; /* a second replica (PostgreSQL only) */

static const char *const extra[] = {"--ek-ca-dir", ATT_SWTPM_LOCALCA_DIR, NULL};

/* ---- fixture ---- */

static int setup(int use_pg)
{
	V2 = NULL;
	if (vh_setup_enrolled(&F, "attack", use_pg, extra))
		return -1;
	if (use_pg && att_vproc_start(F.dir, F.db, extra, &V2)) {
		fprintf(stderr, "FATAL: cannot start a second verifier\n");
		return -1;
	}
	return 0;
}

static int teardown(void)
{
	int st, rc = 0;

	if (V2 && att_vproc_stop(V2, &st) == 0 && st != 0)
		rc = -1;
	att_vproc_free(V2);
	V2 = NULL;
	return vh_teardown(&F) ? -1 : rc;
}

/* ---- every route needs its role ---- */

enum role { R_OPEN, R_ADMIN, R_AGENT };

struct route {
	const char *method, *tmpl, *path, *body;
	enum role role;
};

static const char evidence_body[] =
	"{\"agent_id\":\"host-1\",\"nonce\":"
	"\"00000000000000000000000000000000000000000000000000000000000000"
	"00\",\"quote\":\"AA==\",\"signature\":\"AA==\",\"pcrs\":{\"sha256\":"
	"{\"10\":\"000000000000000000000000000000000000000000000000000000000"
	"0000000\"}},\"logs\":[{\"name\":\"ima\",\"start\":0,\"entries\":"
	"\"\"}]}";

static const struct route routes[] = {
	{"GET", "/healthz", "/healthz", NULL, R_OPEN},
	{"GET", "/metrics", "/metrics", NULL, R_ADMIN},
	{"GET", "/dashboard", "/dashboard", NULL, R_ADMIN},
	{"GET", "/dashboard.js", "/dashboard.js", NULL, R_ADMIN},
	{"GET", "/dashboard.css", "/dashboard.css", NULL, R_ADMIN},
	{"GET", "/v1/whitelists", "/v1/whitelists", NULL, R_ADMIN},
	{"POST", "/v1/whitelists", "/v1/whitelists",
	 "{\"name\":\"evil\",\"whitelist\":{\"digests\":{}}}", R_ADMIN},
	{"GET", "/v1/whitelists/{name}", "/v1/whitelists/base", NULL, R_ADMIN},
	{"PUT", "/v1/whitelists/{name}", "/v1/whitelists/base",
	 "{\"whitelist\":{\"digests\":{}}}", R_ADMIN},
	{"DELETE", "/v1/whitelists/{name}", "/v1/whitelists/base", NULL,
	 R_ADMIN},
	{"GET", "/v1/agents", "/v1/agents", NULL, R_ADMIN},
	{"GET", "/v1/agents/{id}", "/v1/agents/host-1", NULL, R_ADMIN},
	{"DELETE", "/v1/agents/{id}", "/v1/agents/host-1", NULL, R_ADMIN},
	{"PUT", "/v1/agents/{id}/whitelist", "/v1/agents/host-1/whitelist",
	 "{\"name\":\"base\"}", R_ADMIN},
	{"DELETE", "/v1/agents/{id}/clone", "/v1/agents/host-1/clone", NULL,
	 R_ADMIN},
	{"POST", "/v1/enrollment/tokens", "/v1/enrollment/tokens", "{}",
	 R_ADMIN},
	{"POST", "/v1/enroll", "/v1/enroll", NULL, R_OPEN},
	{"POST", "/v1/enroll/activate", "/v1/enroll/activate", NULL, R_OPEN},
	{"POST", "/v1/attestation/challenge", "/v1/attestation/challenge",
	 "{\"agent_id\":\"host-1\"}", R_AGENT},
	{"POST", "/v1/attestation/evidence", "/v1/attestation/evidence",
	 evidence_body, R_AGENT},
	{"GET", "/v1/fleet", "/v1/fleet", NULL, R_ADMIN},
	{"POST", "/v1/check", "/v1/check",
	 "{\"whitelist\":{\"name\":\"base\"},\"log\":\"\"}", R_ADMIN},
};

#define NROUTES (sizeof(routes) / sizeof(routes[0]))

/* Every (method, path) of the OpenAPI file is in routes, and back. */
static void check_route_table(void)
{
	char p[512], line[512], path[128] = "";
	int seen[NROUTES] = {0};
	size_t i, n = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/schemas/openapi.yaml", getenv("ATT_SRC"));
	f = fopen(p, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char m[16];
		int found = 0;

		if (!strncmp(line, "  /", 3)) {
			snprintf(path, sizeof(path), "%.*s",
				 (int)strcspn(line + 2, ":"), line + 2);
			continue;
		}
		if (!path[0] || sscanf(line, "    %15[a-z]:", m) != 1 ||
		    line[4] == ' ')
			continue;
		if (strcmp(m, "get") && strcmp(m, "post") && strcmp(m, "put") &&
		    strcmp(m, "delete") && strcmp(m, "patch"))
			continue;
		for (i = 0; m[i]; i++)
			m[i] = (char)(m[i] - 'a' + 'A');
		for (i = 0; i < NROUTES; i++)
			if (!strcmp(routes[i].method, m) &&
			    !strcmp(routes[i].tmpl, path)) {
				seen[i] = found = 1;
				n++;
			}
		if (!found)
			fail_msg("%s %s of the OpenAPI file is not tested", m,
				 path);
	}
	fclose(f);
	for (i = 0; i < NROUTES; i++)
		if (!seen[i])
			fail_msg("%s %s is not in the OpenAPI file",
				 routes[i].method, routes[i].tmpl);
	assert_int_equal(n, NROUTES);
}

/* What an attacker could have changed, as one string (malloc'd). */
static void expect(const struct route *r, const char *who, int status,
		   const char *code)
{
	struct json_object *js;
	int st;

	st = vh_req(&F, who, r->method, r->path, r->body, &js);
	if (st != status || strcmp(vh_jstr(js, "code"), code))
		fail_msg("%s %s as %s: %d %s (want %d %s)", r->method, r->path,
			 who ? who : "nobody", st,
			 json_object_to_json_string(js), status, code);
	json_object_put(js);
}

static void test_routes_need_their_role(void **state)
{
	char *before, *after;
	size_t i;
	int checked = 0;

	(void)state;
	check_route_table();
	before = vh_snapshot(&F);
	for (i = 0; i < NROUTES; i++) {
		const struct route *r = &routes[i];

		if (r->role == R_OPEN)
			continue;
		/* TLS without a client certificate; an unknown CA's. */
		expect(r, NULL, 401, "unauthenticated");
		expect(r, "rogue", 401, "unauthenticated");
		if (r->role == R_ADMIN)
			expect(r, "host-1", 403, "forbidden");
		else
			expect(r, "admin", 403, "wrong_agent");
		checked++;
	}
	after = vh_snapshot(&F);
	assert_string_equal(before, after);
	free(before);
	free(after);
	fprintf(stderr, "roles: %d routes x 3 callers refused\n", checked);
}

/* ---- enrollment races ---- */

struct racer {
	pthread_t th;
	unsigned int port;
	char *body;
	int status;
	struct json_object *js;
};

static void *race_one(void *arg)
{
	struct racer *r = arg;
	struct att_vh_resp resp;

	if (att_vh_request(r->port, F.dir, NULL, "POST", "/v1/enroll", r->body,
			   strlen(r->body), &resp) == 0) {
		r->status = resp.status;
		r->js = json_tokener_parse(resp.body);
		att_vh_resp_release(&resp);
	}
	return NULL;
}

/* All at once; on PostgreSQL every other one goes to the replica. */
static void race(struct racer *rs)
{
	int i;

	for (i = 0; i < RACE_N; i++) {
		rs[i].port = att_vproc_port(V2 && i % 2 ? V2 : F.vp);
		assert_int_equal(
			pthread_create(&rs[i].th, NULL, race_one, &rs[i]), 0);
	}
	for (i = 0; i < RACE_N; i++)
		pthread_join(rs[i].th, NULL);
}

static void race_free(struct racer *rs)
{
	int i;

	for (i = 0; i < RACE_N; i++) {
		free(rs[i].body);
		json_object_put(rs[i].js);
	}
}

static void test_race_one_ek_many_ids(void **state)
{
	struct racer rs[RACE_N];
	struct att_swtpm *sw2;
	struct att_esys *tpm2;
	struct json_object *js, *arr;
	char id[32], path[64];
	int i, won = -1, created;
	size_t k, racers = 0;

	(void)state;
	assert_int_equal(att_swtpm_start(&sw2), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(sw2), &tpm2), 0);
	assert_int_equal(att_esys_ak_ensure(tpm2, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA, VH_AK_HANDLE,
					    &created),
			 0);
	memset(rs, 0, sizeof(rs));
	for (i = 0; i < RACE_N; i++) {
		snprintf(id, sizeof(id), "race-%d", i);
		rs[i].body = vh_enroll_body(&F, tpm2, id);
	}
	race(rs);
	for (i = 0; i < RACE_N; i++) {
		assert_non_null(rs[i].js);
		if (rs[i].status == 200) {
			if (won >= 0)
				fail_msg("race-%d and race-%d both enrolled "
					 "one EK",
					 won, i);
			won = i;
			continue;
		}
		if (rs[i].status != 409 ||
		    strcmp(vh_jstr(rs[i].js, "code"), "ek_in_use"))
			fail_msg("race-%d: %d %s", i, rs[i].status,
				 json_object_to_json_string(rs[i].js));
	}
	assert_true(won >= 0);
	/* One agent record holds the EK. */
	assert_int_equal(vh_req(&F, "admin", "GET", "/v1/agents", NULL, &js),
			 200);
	arr = vh_jget(js, "agents");
	for (k = 0; k < json_object_array_length(arr); k++)
		racers += !strncmp(
			vh_jstr(json_object_array_get_idx(arr, k), "id"),
			"race-", 5);
	json_object_put(js);
	assert_int_equal(racers, 1);
	snprintf(path, sizeof(path), "/v1/agents/race-%d", won);
	assert_int_equal(vh_req(&F, "admin", "DELETE", path, NULL, &js), 200);
	json_object_put(js);
	race_free(rs);
	att_esys_free(tpm2);
	att_swtpm_free(sw2);
}

static void test_race_one_id(void **state)
{
	struct racer rs[RACE_N];
	struct att_swtpm *sw2;
	struct att_esys *tpm2;
	struct att_store *s;
	struct att_agent_rec a;
	struct json_object *js;
	uint8_t secret[RACE_N][64];
	size_t slen[RACE_N];
	int i, answered = 0, conflicts = 0, match = -1, created;
	char *body;

	(void)state;
	assert_int_equal(att_swtpm_start(&sw2), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(sw2), &tpm2), 0);
	assert_int_equal(att_esys_ak_ensure(tpm2, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA, VH_AK_HANDLE,
					    &created),
			 0);
	memset(rs, 0, sizeof(rs));
	for (i = 0; i < RACE_N; i++)
		rs[i].body = vh_enroll_body(&F, tpm2, "racer");
	race(rs);
	for (i = 0; i < RACE_N; i++) {
		assert_non_null(rs[i].js);
		slen[i] = 0;
		if (rs[i].status == 200) {
			answered++;
			assert_int_equal(vh_activate_cred(tpm2, rs[i].js,
							  secret[i], 64,
							  &slen[i]),
					 0);
			continue;
		}
		if (rs[i].status != 409 ||
		    strcmp(vh_jstr(rs[i].js, "code"), "conflict"))
			fail_msg("racer %d: %d %s", i, rs[i].status,
				 json_object_to_json_string(rs[i].js));
		conflicts++;
	}
	fprintf(stderr, "one id: %d challenges, %d conflicts\n", answered,
		conflicts);
	assert_true(answered > 0);
	/* The one pending secret is one that was handed out. */
	assert_int_equal(att_store_open(F.db, &s), 0);
	assert_int_equal(att_store_agent_get(s, "racer", &a), 0);
	assert_int_equal(a.state, ATT_AGENT_ENROLLING);
	assert_non_null(a.secret);
	for (i = 0; i < RACE_N; i++)
		if (slen[i] && slen[i] == a.secret_len &&
		    !CRYPTO_memcmp(secret[i], a.secret, slen[i])) {
			assert_int_equal(match, -1);
			match = i;
		}
	att_agent_rec_release(&a);
	att_store_free(s);
	assert_true(match >= 0);
	/* Its activation alone gives a certificate. */
	body = vh_activate_body(&F, "racer", secret[match], slen[match]);
	assert_int_equal(
		vh_req(&F, NULL, "POST", "/v1/enroll/activate", body, &js),
		200);
	free(body);
	vh_save_cert(&F, "racer", vh_jstr(js, "certificate"));
	json_object_put(js);
	/* The certificate authenticates as the agent. */
	assert_int_equal(vh_req(&F, "racer", "POST",
				"/v1/attestation/challenge",
				"{\"agent_id\":\"racer\"}", &js),
			 201);
	json_object_put(js);
	/* Every other challenge's secret: nothing pending any more. */
	for (i = 0; i < RACE_N; i++) {
		if (!slen[i] || i == match)
			continue;
		body = vh_activate_body(&F, "racer", secret[i], slen[i]);
		assert_int_equal(vh_req(&F, NULL, "POST", "/v1/enroll/activate",
					body, &js),
				 409);
		assert_string_equal(vh_jstr(js, "code"), "not_enrolling");
		json_object_put(js);
		free(body);
	}
	race_free(rs);
	att_esys_free(tpm2);
	att_swtpm_free(sw2);
}

/* ---- an AK from another TPM with a genuine EK ---- */

/* The TCG EK template L-1 (RSA 2048), written here independently. */
static void ek_template_rsa(TPM2B_PUBLIC *t)
{
	static const uint8_t policy[32] = {
		0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8,
		0x1a, 0x90, 0xcc, 0x8d, 0x46, 0xa5, 0xd7, 0x24,
		0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52, 0x0b, 0x64,
		0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa};
	TPMT_PUBLIC *p = &t->publicArea;

	memset(t, 0, sizeof(*t));
	p->type = TPM2_ALG_RSA;
	p->nameAlg = TPM2_ALG_SHA256;
	p->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_ADMINWITHPOLICY |
			      TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
	p->authPolicy.size = 32;
	memcpy(p->authPolicy.buffer, policy, 32);
	p->parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_AES;
	p->parameters.rsaDetail.symmetric.keyBits.aes = 128;
	p->parameters.rsaDetail.symmetric.mode.aes = TPM2_ALG_CFB;
	p->parameters.rsaDetail.scheme.scheme = TPM2_ALG_NULL;
	p->parameters.rsaDetail.keyBits = 2048;
	p->unique.rsa.size = 256;
}

/*
 * The attacker's own TPM calls on the EK's TPM: TPM2_ActivateCredential
 * of the challenge with the EK and `ak`: the persistent handle of an AK
 * there, or 0 to load foreign_ak's public area with TPM2_LoadExternal.
 * Returns the TSS return code of the first call that failed (0: opened,
 * the secret in out).
 */
static TSS2_RC raw_activate(const char *tcti_conf, uint32_t ak,
			    const struct att_buf *foreign_ak,
			    struct json_object *challenge, uint8_t *out,
			    size_t *outlen)
{
	TSS2_TCTI_CONTEXT *tcti = NULL;
	ESYS_CONTEXT *ectx = NULL;
	TPMT_SYM_DEF sym = {.algorithm = TPM2_ALG_NULL};
	TPM2B_SENSITIVE_CREATE sens;
	TPM2B_PUBLIC tmpl, akpub;
	TPM2B_DATA outside;
	TPML_PCR_SELECTION pcrs;
	TPM2B_ID_OBJECT blob;
	TPM2B_ENCRYPTED_SECRET secret;
	TPM2B_DIGEST *info = NULL;
	ESYS_TR ek = ESYS_TR_NONE, akh = ESYS_TR_NONE, sess = ESYS_TR_NONE;
	const char *s;
	size_t n, off = 0;
	TSS2_RC rc;

	memset(&blob, 0, sizeof(blob));
	memset(&secret, 0, sizeof(secret));
	s = vh_jstr(challenge, "credential_blob");
	assert_int_equal(att_b64_decode(s, strlen(s), blob.credential,
					sizeof(blob.credential), &n),
			 0);
	blob.size = (uint16_t)n;
	s = vh_jstr(challenge, "encrypted_secret");
	assert_int_equal(att_b64_decode(s, strlen(s), secret.secret,
					sizeof(secret.secret), &n),
			 0);
	secret.size = (uint16_t)n;
	assert_int_equal(Tss2_TctiLdr_Initialize(tcti_conf, &tcti), 0);
	assert_int_equal(Esys_Initialize(&ectx, tcti, NULL), 0);
	memset(&sens, 0, sizeof(sens));
	memset(&outside, 0, sizeof(outside));
	memset(&pcrs, 0, sizeof(pcrs));
	ek_template_rsa(&tmpl);
	rc = Esys_CreatePrimary(ectx, ESYS_TR_RH_ENDORSEMENT, ESYS_TR_PASSWORD,
				ESYS_TR_NONE, ESYS_TR_NONE, &sens, &tmpl,
				&outside, &pcrs, &ek, NULL, NULL, NULL, NULL);
	if (rc)
		goto out;
	if (ak) {
		rc = Esys_TR_FromTPMPublic(ectx, ak, ESYS_TR_NONE, ESYS_TR_NONE,
					   ESYS_TR_NONE, &akh);
	} else {
		memset(&akpub, 0, sizeof(akpub));
		assert_int_equal(Tss2_MU_TPM2B_PUBLIC_Unmarshal(
					 foreign_ak->data, foreign_ak->len,
					 &off, &akpub),
				 0);
		rc = Esys_LoadExternal(ectx, ESYS_TR_NONE, ESYS_TR_NONE,
				       ESYS_TR_NONE, NULL, &akpub,
				       ESYS_TR_RH_NULL, &akh);
	}
	if (rc)
		goto out;
	rc = Esys_StartAuthSession(ectx, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				   NULL, TPM2_SE_POLICY, &sym, TPM2_ALG_SHA256,
				   &sess);
	if (!rc)
		rc = Esys_PolicySecret(ectx, ESYS_TR_RH_ENDORSEMENT, sess,
				       ESYS_TR_PASSWORD, ESYS_TR_NONE,
				       ESYS_TR_NONE, NULL, NULL, NULL, 0, NULL,
				       NULL);
	if (!rc)
		rc = Esys_ActivateCredential(ectx, akh, ek, ESYS_TR_PASSWORD,
					     sess, ESYS_TR_NONE, &blob, &secret,
					     &info);
	if (!rc) {
		assert_true(info->size <= 64);
		memcpy(out, info->buffer, info->size);
		*outlen = info->size;
		Esys_Free(info);
	}
out:
	if (sess != ESYS_TR_NONE)
		Esys_FlushContext(ectx, sess);
	if (akh != ESYS_TR_NONE && !ak)
		Esys_FlushContext(ectx, akh);
	if (ek != ESYS_TR_NONE)
		Esys_FlushContext(ectx, ek);
	Esys_Finalize(&ectx);
	Tss2_TctiLdr_Finalize(&tcti);
	return rc;
}

static void test_ak_from_another_tpm(void **state)
{
	struct att_swtpm *swa, *swb;
	struct att_esys *tpma, *tpmb;
	struct att_buf ak_b;
	struct json_object *js, *ch;
	uint8_t secret[64];
	size_t slen = 0;
	char *body, *p;
	int created;
	TSS2_RC rc;

	(void)state;
	/* TPM A: the genuine EK (and an AK of its own); TPM B: the AK. */
	assert_int_equal(att_swtpm_start(&swa), 0);
	assert_int_equal(att_swtpm_start(&swb), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(swa), &tpma), 0);
	assert_int_equal(att_esys_new(att_swtpm_tcti(swb), &tpmb), 0);
	assert_int_equal(att_esys_ak_ensure(tpma, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA, VH_AK_HANDLE,
					    &created),
			 0);
	assert_int_equal(att_esys_ak_ensure(tpmb, ATT_ESYS_AK_RSA_RSASSA,
					    ATT_ESYS_KEY_RSA, VH_AK_HANDLE,
					    &created),
			 0);
	att_buf_init(&ak_b, 0);
	assert_int_equal(att_esys_ak_public(tpmb, &ak_b), 0);
	/* The enrollment body: TPM A's EK and certificate, B's AK. */
	body = vh_enroll_body(&F, tpma, "mallory");
	p = strstr(body, "\"ak_public\":\"");
	assert_non_null(p);
	p += strlen("\"ak_public\":\"");
	{
		char *bak = vh_b64(ak_b.data, ak_b.len), *nb;
		size_t n = (size_t)(p - body) + strlen(bak) + 4;

		nb = malloc(n);
		assert_non_null(nb);
		snprintf(nb, n, "%.*s%s\"}", (int)(p - body), body, bak);
		free(bak);
		free(body);
		body = nb;
	}
	assert_int_equal(vh_req(&F, NULL, "POST", "/v1/enroll", body, &ch),
			 200);
	free(body);
	/* TPM A with its own AK: the credential names another key. */
	assert_int_not_equal(
		vh_activate_cred(tpma, ch, secret, sizeof(secret), &slen), 0);
	/*
	 * TPM B holds the AK, but the seed is sealed to A's EK (libtpms
	 * before 0.10 answers a failed decryption with TPM_RC_FAILURE).
	 */
	assert_int_not_equal(
		vh_activate_cred(tpmb, ch, secret, sizeof(secret), &slen), 0);
	/* B's AK public area loaded into A: still not opened. */
	att_esys_free(tpma);
	tpma = NULL;
	rc = raw_activate(att_swtpm_tcti(swa), 0, &ak_b, ch, secret, &slen);
	fprintf(stderr, "foreign AK via LoadExternal: 0x%x (%s)\n",
		(unsigned int)rc, rc ? "refused" : "OPENED");
	/* A public-only object has no authValue to authorize ADMIN with. */
	assert_int_equal(rc, TPM2_RC_AUTH_UNAVAILABLE);
	json_object_put(ch);
	/* A guess is refused, and spends the one try: no certificate. */
	memset(secret, 0x42, 32);
	body = vh_activate_body(&F, "mallory", secret, 32);
	assert_int_equal(
		vh_req(&F, NULL, "POST", "/v1/enroll/activate", body, &js),
		403);
	assert_string_equal(vh_jstr(js, "code"), "bad_proof");
	json_object_put(js);
	free(body);
	assert_int_equal(
		vh_req(&F, "admin", "GET", "/v1/agents/mallory", NULL, &js),
		200);
	assert_string_not_equal(vh_jstr(js, "state"), "registered");
	json_object_put(js);
	assert_int_equal(
		vh_req(&F, "admin", "DELETE", "/v1/agents/mallory", NULL, &js),
		200);
	json_object_put(js);
	/* Control: the same raw calls with A's own AK open its challenge. */
	assert_int_equal(att_esys_new(att_swtpm_tcti(swa), &tpma), 0);
	assert_int_equal(att_esys_ak_load_persistent(tpma, VH_AK_HANDLE), 0);
	body = vh_enroll_body(&F, tpma, "alice");
	att_esys_free(tpma);
	assert_int_equal(vh_req(&F, NULL, "POST", "/v1/enroll", body, &ch),
			 200);
	free(body);
	assert_int_equal(raw_activate(att_swtpm_tcti(swa), VH_AK_HANDLE, NULL,
				      ch, secret, &slen),
			 0);
	json_object_put(ch);
	body = vh_activate_body(&F, "alice", secret, slen);
	assert_int_equal(
		vh_req(&F, NULL, "POST", "/v1/enroll/activate", body, &js),
		200);
	json_object_put(js);
	free(body);
	att_buf_release(&ak_b);
	att_esys_free(tpmb);
	att_swtpm_free(swa);
	att_swtpm_free(swb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes_need_their_role),
		cmocka_unit_test(test_race_one_ek_many_ids),
		cmocka_unit_test(test_race_one_id),
		cmocka_unit_test(test_ak_from_another_tpm),
	};

	return vh_run_backends(tests, sizeof(tests) / sizeof(tests[0]), setup,
			       teardown);
}
