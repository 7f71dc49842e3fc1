// SPDX-License-Identifier: Apache-2.0
/*
 * test_wl_union.c - layered whitelists (att_wl_union_new): the union's
 * verdicts and the layer each one names, the order of preference among
 * the layers' judgements, the sections only one layer may have, bad
 * layer lists, and att_check_list's per-layer counts and entry callback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "attest/buf.h"
#include "attest/check.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "attest/replay.h"
#include "attest/whitelist.h"
#include "imabuild.h"

static struct att_wl *load(const char *json)
{
	struct att_wl *wl = NULL;
	char err[300] = "";
	int rc = att_wl_load_json(json, strlen(json), NULL, &wl, err,
				  sizeof(err));

	if (rc)
		print_message("load: %s\n", err);
	assert_int_equal(rc, ATT_OK);
	return wl;
}

static void sha(const char *s, uint8_t *d, char *hex)
{
	ib_hash("sha256", s, strlen(s), d);
	att_hex_encode(d, 32, hex);
}

/* One ima-ng record (sha256 file digest, PCR 10) appended to b. */
static void record(struct att_buf *b, const char *path, const uint8_t *d,
		   int viol)
{
	struct att_buf td;
	uint8_t z[32] = {0};

	att_buf_init(&td, 0);
	ib_dng(&td, "sha256", viol ? z : d, 32);
	ib_nng(&td, path);
	ib_record(b, 10, "sha1", "ima-ng", &td, viol);
	att_buf_release(&td);
}

static struct att_judgement judge(const struct att_wl *wl, const char *path,
				  const uint8_t *d, int viol)
{
	struct att_ima_reader *r;
	struct att_judgement j;
	struct att_ima_entry e;
	struct att_buf b;

	att_buf_init(&b, 0);
	record(&b, path, d, viol);
	assert_int_equal(att_ima_reader_new_mem(b.data, b.len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	assert_int_equal(att_ima_reader_next(r, &e), ATT_OK);
	e.index = 5;
	memset(&j, 0x5a, sizeof(j));
	assert_int_equal(att_wl_judge(wl, &e, &j), ATT_OK);
	att_ima_reader_free(r);
	att_buf_release(&b);
	return j;
}

struct layers {
	struct att_wl *site, *distro, *security, *u;
	uint8_t a[32], a2[32], b[32], c[32], x[32];
};

/*
 * site: /etc/conf (a), excludes /var/lib/state/.*
 * distro: /usr/bin/a (a), /usr/bin/b (b), /etc/conf (b)
 * security: /usr/bin/a (a2: the fixed version), violations allowed
 */
static void make(struct layers *l)
{
	char ha[65], ha2[65], hb[65], hc[65], hx[65], json[1024];
	const struct att_wl *v[3];
	char err[200];

	sha("a", l->a, ha);
	sha("a2", l->a2, ha2);
	sha("b", l->b, hb);
	sha("c", l->c, hc);
	sha("x", l->x, hx);
	snprintf(json, sizeof(json),
		 "{\"digests\": {\"/etc/conf\": [\"%s\"]},"
		 " \"excludes\": [\"/var/lib/state/.*\"]}",
		 ha);
	l->site = load(json);
	snprintf(json, sizeof(json),
		 "{\"digests\": {\"/usr/bin/a\": [\"%s\"], \"/usr/bin/b\": "
		 "[\"%s\"], \"/etc/conf\": [\"%s\"]}}",
		 ha, hb, hb);
	l->distro = load(json);
	snprintf(json, sizeof(json),
		 "{\"digests\": {\"/usr/bin/a\": [\"%s\"]},"
		 " \"attest\": {\"violations\": \"allow\"}}",
		 ha2);
	l->security = load(json);
	v[0] = l->site;
	v[1] = l->distro;
	v[2] = l->security;
	assert_int_equal(att_wl_union_new(v, 3, &l->u, err, sizeof(err)),
			 ATT_OK);
	assert_int_equal(att_wl_layer_count(l->u), 3);
	assert_int_equal(att_wl_layer_count(l->site), 0);
}

static void unmake(struct layers *l)
{
	att_wl_free(l->u);
	att_wl_free(l->site);
	att_wl_free(l->distro);
	att_wl_free(l->security);
}

static void verdicts_and_layers(void **state)
{
	struct layers l;
	struct att_judgement j;

	(void)state;
	make(&l);
	/* each layer allows its own; the first that allows is named */
	j = judge(l.u, "/usr/bin/a", l.a, 0);
	assert_int_equal(j.verdict, ATT_V_ALLOWED);
	assert_int_equal(j.layer, 1);
	assert_int_equal(j.index, 5);
	j = judge(l.u, "/usr/bin/a", l.a2, 0);
	assert_int_equal(j.verdict, ATT_V_ALLOWED);
	assert_int_equal(j.layer, 2);
	j = judge(l.u, "/etc/conf", l.a, 0);
	assert_int_equal(j.verdict, ATT_V_ALLOWED);
	assert_int_equal(j.layer, 0);
	j = judge(l.u, "/etc/conf", l.b, 0);
	assert_int_equal(j.verdict, ATT_V_ALLOWED);
	assert_int_equal(j.layer, 1);
	/* an exclude of one layer holds for the union */
	j = judge(l.u, "/var/lib/state/x", l.x, 0);
	assert_int_equal(j.verdict, ATT_V_EXCLUDED);
	assert_int_equal(j.layer, 0);
	/* a violation: allowed by the layer that allows them */
	j = judge(l.u, "/usr/bin/a", l.a, 1);
	assert_int_equal(j.verdict, ATT_V_VIOLATION_ALLOWED);
	assert_int_equal(j.layer, 2);
	/* a digest no layer has for a known path: a hash mismatch naming
	 * the first layer that knows it, not the unknown path of layer 0 */
	j = judge(l.u, "/usr/bin/a", l.c, 0);
	assert_int_equal(j.verdict, ATT_V_HASH_MISMATCH);
	assert_int_equal(j.layer, 1);
	j = judge(l.u, "/usr/bin/b", l.a, 0);
	assert_int_equal(j.verdict, ATT_V_HASH_MISMATCH);
	assert_int_equal(j.layer, 1);
	/* a path no layer knows */
	j = judge(l.u, "/usr/bin/evil", l.a, 0);
	assert_int_equal(j.verdict, ATT_V_UNKNOWN_PATH);
	assert_int_equal(j.layer, -1);
	/* the layers alone judge as before, with no layer */
	j = judge(l.distro, "/usr/bin/a", l.a2, 0);
	assert_int_equal(j.verdict, ATT_V_HASH_MISMATCH);
	assert_int_equal(j.layer, -1);
	j = judge(l.distro, "/usr/bin/a", l.a, 1);
	assert_int_equal(j.verdict, ATT_V_VIOLATION);
	assert_int_equal(att_wl_path_count(l.u), 5); /* sums */
	assert_int_equal(att_wl_digest_count(l.u), 5);
	assert_int_equal(att_wl_violations(l.u), ATT_WL_VIOLATIONS_ALLOW);
	assert_int_equal(att_wl_violations(l.distro), ATT_WL_VIOLATIONS_FAIL);
	unmake(&l);
}

static void bad_layer_lists(void **state)
{
	struct layers l;
	const struct att_wl *v[ATT_WL_LAYERS_MAX + 1];
	struct att_wl *u = (struct att_wl *)1, *lat, *lat2;
	char err[200];
	size_t i;

	(void)state;
	make(&l);
	assert_int_equal(att_wl_union_new(v, 0, &u, err, sizeof(err)),
			 ATT_E_INVAL);
	assert_null(u);
	for (i = 0; i <= ATT_WL_LAYERS_MAX; i++)
		v[i] = l.distro;
	assert_int_equal(att_wl_union_new(v, ATT_WL_LAYERS_MAX + 1, &u, err,
					  sizeof(err)),
			 ATT_E_INVAL);
	assert_non_null(strstr(err, "1 to 16 layers"));
	assert_int_equal(
		att_wl_union_new(v, ATT_WL_LAYERS_MAX, &u, err, sizeof(err)),
		ATT_OK);
	att_wl_free(u);
	/* a union is not a layer */
	v[0] = l.u;
	assert_int_equal(att_wl_union_new(v, 2, &u, err, sizeof(err)),
			 ATT_E_INVAL);
	assert_non_null(strstr(err, "layer 0: a layer may not have layers"));
	v[0] = NULL;
	assert_int_equal(att_wl_union_new(v, 2, &u, err, sizeof(err)),
			 ATT_E_INVAL);
	/* one layer may carry the lattice section, not two */
	lat = load("{\"digests\": {}, \"lattice\": {}}");
	lat2 = load("{\"digests\": {}, \"lattice\": {}}");
	assert_non_null(att_wl_lattice(lat));
	v[0] = l.site;
	v[1] = lat;
	assert_int_equal(att_wl_union_new(v, 2, &u, err, sizeof(err)), ATT_OK);
	assert_ptr_equal(att_wl_lattice(u), att_wl_lattice(lat));
	assert_null(att_wl_boot(u));
	att_wl_free(u);
	v[2] = lat2;
	assert_int_equal(att_wl_union_new(v, 3, &u, err, sizeof(err)),
			 ATT_E_INVAL);
	assert_non_null(strstr(err, "layers 1 and 2 both have a lattice"));
	att_wl_free(lat);
	att_wl_free(lat2);
	unmake(&l);
}

struct seen {
	int n;
	int layer[8];
	enum att_verdict verdict[8];
};

static int on_entry(const struct att_ima_entry *e,
		    const struct att_judgement *j, void *arg)
{
	struct seen *s = arg;

	assert_int_equal(j->index, e->index);
	if (s->n < 8) {
		s->layer[s->n] = j->layer;
		s->verdict[s->n] = j->verdict;
	}
	s->n++;
	return s->n == 99 ? ATT_E_INVAL : 0;
}

static void check_counts(void **state)
{
	static const enum att_hash banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};
	struct att_check_opts o = {0};
	struct att_check_result cr;
	struct att_ima_reader *r;
	struct att_replay *rp;
	struct seen s = {0};
	struct layers l;
	struct att_buf b;

	(void)state;
	make(&l);
	att_buf_init(&b, 0);
	record(&b, "/usr/bin/a", l.a, 0);	/* distro */
	record(&b, "/usr/bin/a", l.a2, 0);	/* security */
	record(&b, "/etc/conf", l.a, 0);	/* site */
	record(&b, "/usr/bin/b", l.b, 0);	/* distro */
	record(&b, "/usr/bin/evil", l.x, 0);	/* none */
	record(&b, "/var/lib/state/s", l.x, 0); /* site's exclude */
	o.on_entry = on_entry;
	o.arg = &s;
	assert_int_equal(att_replay_new(banks, 2, &rp), ATT_OK);
	assert_int_equal(att_ima_reader_new_mem(b.data, b.len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	att_check_result_init(&cr);
	assert_int_equal(att_check_list(r, l.u, rp, &o, &cr), ATT_OK);
	assert_int_equal(cr.status, ATT_CHECK_UNTRUSTED);
	assert_int_equal(cr.entries, 6);
	assert_int_equal(cr.layer_counts[0], 2);
	assert_int_equal(cr.layer_counts[1], 2);
	assert_int_equal(cr.layer_counts[2], 1);
	assert_int_equal(cr.layer_counts[3], 0);
	assert_int_equal(cr.failures_total, 1);
	assert_int_equal(cr.failures[0].layer, -1);
	assert_string_equal(cr.failures[0].path, "/usr/bin/evil");
	assert_int_equal(s.n, 6);
	assert_int_equal(s.layer[0], 1);
	assert_int_equal(s.layer[1], 2);
	assert_int_equal(s.layer[2], 0);
	assert_int_equal(s.layer[4], -1);
	assert_int_equal(s.verdict[4], ATT_V_UNKNOWN_PATH);
	assert_int_equal(s.verdict[5], ATT_V_EXCLUDED);
	att_check_result_release(&cr);
	att_ima_reader_free(r);
	/* a callback's error ends the check as an error */
	s.n = 97;
	att_replay_free(rp);
	assert_int_equal(att_replay_new(banks, 2, &rp), ATT_OK);
	assert_int_equal(att_ima_reader_new_mem(b.data, b.len,
						ATT_IMA_FMT_BINARY,
						ATT_HASH_SHA1, NULL, &r),
			 ATT_OK);
	att_check_result_init(&cr);
	assert_int_equal(att_check_list(r, l.u, rp, &o, &cr), ATT_E_INVAL);
	assert_int_equal(cr.status, ATT_CHECK_ERROR);
	assert_int_equal(cr.entries, 2);
	att_check_result_release(&cr);
	att_ima_reader_free(r);
	att_replay_free(rp);
	att_buf_release(&b);
	unmake(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts_and_layers),
		cmocka_unit_test(bad_layer_lists),
		cmocka_unit_test(check_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
