// SPDX-License-Identifier: Apache-2.0
/*
 * boot_facts.c - what a firmware log shows about a boot: Secure Boot and
 * its key databases, the boot applications in order, the kernels and
 * initrds grub loaded, grub's kernel command lines, the separators.
 *
 * Event data is believed only where the event's digest covers it, and
 * that is checked: UEFI variables (digest = hash of UEFI_VARIABLE_DATA),
 * separators (hash of the 4 bytes), grub's strings in PCR 8 (hash of the
 * string after its prefix). A boot application's or a grub file's digest
 * is the image's or the file's: their paths are the host's word only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/boot.h"
#include "attest/err.h"
#include "attest/rd.h"

#define TAG_LINUX_INITRD 0x8f3b22ecu

enum grub_mode { MODE_NONE = 0, MODE_KERNEL, MODE_INITRD };

struct walk {
	struct att_boot_facts *f;
	enum grub_mode mode; /* the last verified grub_cmd in PCR 8 */
	int rc;		     /* a malformed event: what went wrong */
	char *err;
	size_t errlen;
};

static void ev_of(const struct att_uefi_event *e, struct att_boot_ev *o)
{
	o->index = e->index;
	o->pcr = e->pcr;
	o->type = e->type;
}

static int malformed(struct walk *w, const struct att_uefi_event *e, int rc,
		     const char *why)
{
	snprintf(w->err, w->errlen, "event %llu (PCR %u, %s): %s",
		 (unsigned long long)e->index, e->pcr,
		 att_uefi_event_name(e->type), why);
	w->rc = rc;
	return rc;
}

static int add_bad(struct att_boot_facts *f, const struct att_uefi_event *e,
		   const char *rule, const char *detail)
{
	struct att_boot_failure *n;

	if (f->nbad >= ATT_BOOT_MAX_ITEMS)
		return ATT_OK; /* one failure is enough to refuse the boot */
	n = realloc(f->bad, (f->nbad + 1) * sizeof(*n));
	if (!n)
		return ATT_E_NOMEM;
	f->bad = n;
	n = &f->bad[f->nbad++];
	memset(n, 0, sizeof(*n));
	n->has_ev = 1;
	ev_of(e, &n->ev);
	n->rule = rule;
	snprintf(n->detail, sizeof(n->detail), "%s", detail);
	return ATT_OK;
}

/* 1 when every digest of e is the hash of p (in its bank), 0 if not. */
static int covers(const struct att_uefi_event *e, const void *p, size_t n,
		  int *rc)
{
	unsigned int i;

	*rc = ATT_OK;
	for (i = 0; i < e->ndigests; i++) {
		uint8_t d[ATT_DIGEST_MAX];

		*rc = att_digest(e->digests[i].alg, p, n, d);
		if (*rc)
			return 0;
		if (memcmp(d, e->digests[i].d,
			   att_hash_size(e->digests[i].alg)))
			return 0;
	}
	return 1;
}

static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
	void *p;
	size_t c;

	if (n < *cap)
		return ATT_OK;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*arr, c * size);
	if (!p)
		return ATT_E_NOMEM;
	*arr = p;
	*cap = c;
	return ATT_OK;
}

struct sigs_ctx {
	struct att_boot_sig **arr;
	size_t *n, *cap;
};

static int take_sig(const struct att_boot_sig *s, void *arg)
{
	struct sigs_ctx *c = arg;
	int rc = grow((void **)c->arr, *c->n, c->cap, sizeof(**c->arr));

	if (rc)
		return rc;
	(*c->arr)[(*c->n)++] = *s;
	return ATT_OK;
}

static const struct {
	const char *name, *guid;
	int var; /* att_boot_var, or -1 for SecureBoot */
} known_vars[] = {
	{"SecureBoot", ATT_GUID_EFI_GLOBAL, -1},
	{"PK", ATT_GUID_EFI_GLOBAL, ATT_BV_PK},
	{"KEK", ATT_GUID_EFI_GLOBAL, ATT_BV_KEK},
	{"db", ATT_GUID_IMAGE_SEC_DB, ATT_BV_DB},
	{"dbx", ATT_GUID_IMAGE_SEC_DB, ATT_BV_DBX},
};

static int variable(struct walk *w, const struct att_uefi_event *e)
{
	struct att_boot_facts *f = w->f;
	struct att_uefi_var v;
	uint8_t want[ATT_GUID_LEN];
	char why[160], got[ATT_GUID_TEXT];
	struct sigs_ctx c;
	size_t i;
	int rc;

	rc = att_uefi_var_parse(e->data, e->data_len, &v, why, sizeof(why));
	if (rc)
		return malformed(w, e, rc, why);
	if (!covers(e, e->data, e->data_len, &rc))
		return rc ? rc
			  : add_bad(f, e, "variable",
				    "digest is not the hash of the variable's "
				    "data");
	for (i = 0; i < sizeof(known_vars) / sizeof(known_vars[0]); i++)
		if (!strcmp(v.name, known_vars[i].name))
			break;
	if (i == sizeof(known_vars) / sizeof(known_vars[0]))
		return ATT_OK; /* not one the policy reads */
	att_guid_parse(known_vars[i].guid, want);
	if (memcmp(v.guid, want, ATT_GUID_LEN)) {
		att_guid_format(v.guid, got);
		snprintf(why, sizeof(why),
			 "variable %.32s has vendor GUID %s, not %s", v.name,
			 got, known_vars[i].guid);
		return add_bad(f, e, "variable", why);
	}
	if (known_vars[i].var < 0) {
		if (v.data_len > 1)
			return malformed(w, e, ATT_E_FORMAT,
					 "SecureBoot is not one byte");
		f->secure_boot = v.data_len && v.data[0];
		ev_of(e, &f->secure_boot_ev);
		return ATT_OK;
	}
	/* A variable measured again: its last value counts. */
	f->var[known_vars[i].var].seen = 1;
	f->var[known_vars[i].var].n = 0;
	ev_of(e, &f->var[known_vars[i].var].ev);
	c.arr = &f->var[known_vars[i].var].sig;
	c.n = &f->var[known_vars[i].var].n;
	c.cap = &f->var[known_vars[i].var].cap;
	rc = att_efi_siglists_parse(v.data, v.data_len, take_sig, &c, why,
				    sizeof(why));
	if (rc && rc != ATT_E_NOMEM)
		return malformed(w, e, rc, why);
	return rc;
}

/* EV_EFI_VARIABLE_AUTHORITY: the db entry that verified an image. */
static int authority(struct walk *w, const struct att_uefi_event *e)
{
	struct att_boot_facts *f = w->f;
	struct att_boot_sig s;
	struct att_uefi_var v;
	char why[160];
	int rc;

	rc = att_uefi_var_parse(e->data, e->data_len, &v, why, sizeof(why));
	if (rc)
		return malformed(w, e, rc, why);
	if (!covers(e, e->data, e->data_len, &rc))
		return rc ? rc
			  : add_bad(f, e, "variable",
				    "digest is not the hash of the variable's "
				    "data");
	if (strcmp(v.name, "db"))
		return ATT_OK; /* shim's MokList, SbatLevel, ... */
	if (v.data_len <= ATT_GUID_LEN)
		return malformed(w, e, ATT_E_TRUNCATED,
				 "EFI_SIGNATURE_DATA is cut short");
	memset(&s, 0, sizeof(s));
	memcpy(s.owner, v.data, ATT_GUID_LEN);
	s.kind = v.data[ATT_GUID_LEN] == 0x30 ? ATT_SIG_X509 : ATT_SIG_OTHER;
	rc = att_digest(ATT_HASH_SHA256, v.data + ATT_GUID_LEN,
			v.data_len - ATT_GUID_LEN, s.id);
	if (!rc)
		rc = grow((void **)&f->authorities, f->nauth, &f->authcap,
			  sizeof(s));
	if (!rc)
		f->authorities[f->nauth++] = s;
	return rc;
}

static int separator(struct walk *w, const struct att_uefi_event *e)
{
	struct att_boot_facts *f = w->f;
	uint32_t v;
	char why[160];
	int rc;

	if (e->data_len != 4)
		return malformed(w, e, ATT_E_FORMAT,
				 "separator data is not 4 bytes");
	if (!covers(e, e->data, 4, &rc))
		return rc ? rc
			  : add_bad(f, e, "separators",
				    "digest is not the hash of the "
				    "separator's data");
	v = (uint32_t)e->data[0] | (uint32_t)e->data[1] << 8 |
	    (uint32_t)e->data[2] << 16 | (uint32_t)e->data[3] << 24;
	if (v) {
		f->bad_separators |= (uint8_t)(1u << e->pcr);
		snprintf(why, sizeof(why),
			 "separator value 0x%08x: the firmware reports an "
			 "error",
			 v);
		return add_bad(f, e, "separators", why);
	}
	f->separators |= (uint8_t)(1u << e->pcr);
	return ATT_OK;
}

static int add_digest(struct att_boot_digest **arr, size_t *n,
		      const struct att_uefi_event *e, const char *path)
{
	struct att_boot_digest *a, *d;
	unsigned int i;

	if (*n >= ATT_BOOT_MAX_ITEMS)
		return ATT_E_TOO_BIG;
	a = realloc(*arr, (*n + 1) * sizeof(*a));
	if (!a)
		return ATT_E_NOMEM;
	*arr = a;
	d = &a[*n];
	memset(d, 0, sizeof(*d));
	ev_of(e, &d->ev);
	d->n = e->ndigests;
	for (i = 0; i < e->ndigests; i++) {
		d->alg[i] = e->digests[i].alg;
		memcpy(d->d[i], e->digests[i].d,
		       att_hash_size(e->digests[i].alg));
	}
	if (path && path[0] && !(d->path = strdup(path)))
		return ATT_E_NOMEM;
	(*n)++;
	return ATT_OK;
}

static int app(struct walk *w, const struct att_uefi_event *e)
{
	char path[ATT_BOOT_TEXT_MAX], why[160];
	int rc;

	rc = att_uefi_image_parse(e->data, e->data_len, path, sizeof(path), why,
				  sizeof(why));
	if (rc)
		return malformed(w, e, rc, why);
	rc = add_digest(&w->f->apps, &w->f->napps, e, path);
	if (rc == ATT_E_TOO_BIG)
		return malformed(w, e, rc, "more than 1024 boot applications");
	return rc;
}

/*
 * The event's text: data up to an optional trailing NUL, no NUL inside.
 * 0 when it is not text.
 */
static int text_of(const struct att_uefi_event *e, size_t *len)
{
	size_t n = e->data_len;

	if (n && !e->data[n - 1])
		n--;
	if (memchr(e->data, 0, n))
		return 0;
	*len = n;
	return 1;
}

static int starts(const uint8_t *p, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && !memcmp(p, pre, k);
}

/* grub's command, "linux /vmlinuz ..." -> kernel, "initrd ..." -> initrd. */
static enum grub_mode mode_of(const uint8_t *p, size_t n)
{
	static const struct {
		const char *cmd;
		enum grub_mode m;
	} cmds[] = {{"linux", MODE_KERNEL},	{"linuxefi", MODE_KERNEL},
		    {"linux16", MODE_KERNEL},	{"initrd", MODE_INITRD},
		    {"initrdefi", MODE_INITRD}, {"initrd16", MODE_INITRD}};
	size_t i, k;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		k = strlen(cmds[i].cmd);
		if (n >= k && !memcmp(p, cmds[i].cmd, k) &&
		    (n == k || p[k] == ' '))
			return cmds[i].m;
	}
	return MODE_NONE;
}

/* grub's strings in PCR 8: commands and command lines. */
static int grub_string(struct walk *w, const struct att_uefi_event *e)
{
	static const char pcmd[] = "grub_cmd: ", pcl[] = "kernel_cmdline: ";
	struct att_boot_facts *f = w->f;
	const uint8_t *s;
	size_t n, k;
	int rc, is_cl;
	struct att_boot_text *t;

	if (!text_of(e, &n))
		return ATT_OK; /* not grub's */
	is_cl = starts(e->data, n, pcl);
	if (!is_cl && !starts(e->data, n, pcmd))
		return ATT_OK;
	k = is_cl ? sizeof(pcl) - 1 : sizeof(pcmd) - 1;
	s = e->data + k;
	if (!covers(e, s, n - k, &rc)) {
		if (rc)
			return rc;
		w->mode = MODE_NONE;
		return add_bad(f, e, is_cl ? "cmdline" : "grub",
			       "digest is not the hash of the text after "
			       "grub's prefix");
	}
	if (!is_cl) {
		w->mode = mode_of(s, n - k);
		return ATT_OK;
	}
	if (n - k > ATT_BOOT_TEXT_MAX)
		return malformed(w, e, ATT_E_TOO_BIG,
				 "kernel command line longer than 4096 bytes");
	if (f->ncmdlines >= ATT_BOOT_MAX_ITEMS)
		return malformed(w, e, ATT_E_TOO_BIG,
				 "more than 1024 kernel command lines");
	t = realloc(f->cmdlines, (f->ncmdlines + 1) * sizeof(*t));
	if (!t)
		return ATT_E_NOMEM;
	f->cmdlines = t;
	t = &t[f->ncmdlines];
	ev_of(e, &t->ev);
	t->text = strndup((const char *)s, n - k);
	if (!t->text)
		return ATT_E_NOMEM;
	f->ncmdlines++;
	return ATT_OK;
}

/* PCR 9: the files grub read (EV_IPL), the stub's initrd (EV_EVENT_TAG). */
static int grub_file(struct walk *w, const struct att_uefi_event *e)
{
	struct att_boot_facts *f = w->f;
	char path[ATT_BOOT_TEXT_MAX];
	size_t n;
	int rc;

	if (w->mode == MODE_NONE)
		return ATT_OK; /* grub.cfg, modules, fonts: not judged */
	if (!text_of(e, &n))
		return malformed(w, e, ATT_E_FORMAT,
				 "file name holds a NUL byte");
	if (n >= sizeof(path))
		n = sizeof(path) - 1; /* shown only */
	memcpy(path, e->data, n);
	path[n] = '\0';
	if (w->mode == MODE_KERNEL) {
		w->mode = MODE_NONE; /* one kernel per linux command */
		rc = add_digest(&f->kernels, &f->nkernels, e, path);
	} else {
		rc = add_digest(&f->initrds, &f->ninitrds, e, path);
	}
	if (rc == ATT_E_TOO_BIG)
		return malformed(w, e, rc, "more than 1024 files");
	return rc;
}

static int tagged(struct walk *w, const struct att_uefi_event *e)
{
	uint32_t id, size;
	struct att_rd r;
	int rc;

	att_rd_init(&r, e->data, e->data_len);
	if (att_rd_u32le(&r, &id) || att_rd_u32le(&r, &size) ||
	    size > att_rd_left(&r))
		return malformed(w, e, ATT_E_TRUNCATED,
				 "TCG_PCClientTaggedEvent is cut short");
	if (att_rd_skip(&r, size) || att_rd_end(&r))
		return malformed(w, e, ATT_E_TRAILING,
				 "bytes after the tagged event's data");
	if (id != TAG_LINUX_INITRD)
		return ATT_OK;
	rc = add_digest(&w->f->initrds, &w->f->ninitrds, e, NULL);
	if (rc == ATT_E_TOO_BIG)
		return malformed(w, e, rc, "more than 1024 files");
	return rc;
}

static int on_event(const struct att_uefi_event *e, void *arg)
{
	struct walk *w = arg;

	switch (e->type) {
	case ATT_EV_SEPARATOR:
		return e->pcr < 8 ? separator(w, e) : ATT_OK;
	case ATT_EV_EFI_VARIABLE_DRIVER_CONFIG:
		return variable(w, e);
	case ATT_EV_EFI_VARIABLE_AUTHORITY:
		return authority(w, e);
	case ATT_EV_EFI_BOOT_SERVICES_APP:
		return e->pcr == 4 ? app(w, e) : ATT_OK;
	case ATT_EV_IPL:
		if (e->pcr == 8)
			return grub_string(w, e);
		return e->pcr == 9 ? grub_file(w, e) : ATT_OK;
	case ATT_EV_EVENT_TAG:
		return e->pcr == 9 ? tagged(w, e) : ATT_OK;
	default:
		return ATT_OK;
	}
}

void att_boot_facts_free(struct att_boot_facts *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < ATT_BV_COUNT; i++)
		free(f->var[i].sig);
	for (i = 0; i < f->napps; i++)
		free(f->apps[i].path);
	for (i = 0; i < f->nkernels; i++)
		free(f->kernels[i].path);
	for (i = 0; i < f->ninitrds; i++)
		free(f->initrds[i].path);
	for (i = 0; i < f->ncmdlines; i++)
		free(f->cmdlines[i].text);
	free(f->apps);
	free(f->kernels);
	free(f->initrds);
	free(f->cmdlines);
	free(f->authorities);
	free(f->bad);
	free(f);
}

int att_boot_facts_read(const uint8_t *log, size_t len,
			const struct att_uefi_limits *lim,
			struct att_boot_facts **out, char *err, size_t errlen)
{
	struct att_uefi_info info;
	struct walk w;
	int rc;

	*out = NULL;
	memset(&w, 0, sizeof(w));
	w.f = calloc(1, sizeof(*w.f));
	if (!w.f)
		return ATT_E_NOMEM;
	w.f->secure_boot = -1;
	w.err = err;
	w.errlen = errlen;
	err[0] = '\0';
	rc = att_uefi_parse(log, len, lim, on_event, &w, &info, err, errlen);
	if (rc) {
		att_boot_facts_free(w.f);
		if (!err[0])
			snprintf(err, errlen, "%s", att_strerror(rc));
		return rc;
	}
	*out = w.f;
	return ATT_OK;
}
