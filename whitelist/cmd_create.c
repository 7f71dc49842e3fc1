// SPDX-License-Identifier: Apache-2.0
/*
 * cmd_create.c - attest-whitelist create: from a root filesystem and/or a
 * known-good host's IMA measurement list.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "attest/boot.h"
#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/ima.h"
#include "create_pkg.h"
#include "walk.h"
#include "wlcli.h"
#include "wldoc.h"

/* Never part of a measured system image, or changing all the time. */
static const char *const default_excludes[] = {
	"/proc/",	  "/sys/",	 "/dev/",
	"/run/",	  "/tmp/",	 "/var/tmp/",
	"/var/log/",	  "/var/cache/", "/var/lib/apt/lists/",
	"/lost\\+found/",
};

struct create_args {
	const char *rootfs, *ima_log, *uefi_log, *out, *prefix;
	const char *apt_repo, *keyring, *cache, *dpkg_root;
	const char **debs, **initrds;
	size_t ndebs, ninitrds;
	int all, no_defaults, progress, no_usrmerge;
	enum att_hash hash, list_hash, uefi_bank;
	unsigned int threads;
	struct att_buf excl, incl;
	const char **skip;
	size_t nskip;
};

static int add_alt(struct att_buf *b, const char *re)
{
	return att_buf_printf(b, "%s^(%s)", b->len ? "|" : "", re);
}

static int compile(const struct att_buf *b, regex_t *re, regex_t **out)
{
	char *text;
	int bad;

	*out = NULL;
	if (!b->len)
		return ATT_OK;
	text = strndup((const char *)b->data, b->len);
	if (!text)
		return ATT_E_NOMEM;
	bad = regcomp(re, text, REG_EXTENDED | REG_NOSUB);
	free(text);
	if (bad) {
		fprintf(stderr, "attest-whitelist: bad --exclude/--include "
				"expression\n");
		return ATT_E_FORMAT;
	}
	*out = re;
	return ATT_OK;
}

static int parse(int argc, char **argv, struct create_args *a)
{
	static const struct option opts[] = {
		{"rootfs", required_argument, NULL, 'r'},
		{"ima-log", required_argument, NULL, 'i'},
		{"uefi-log", required_argument, NULL, 'u'},
		{"uefi-bank", required_argument, NULL, 'B'},
		{"output", required_argument, NULL, 'o'},
		{"prefix", required_argument, NULL, 'p'},
		{"all", no_argument, NULL, 'a'},
		{"exclude", required_argument, NULL, 'x'},
		{"include", required_argument, NULL, 'I'},
		{"skip-path", required_argument, NULL, 's'},
		{"no-default-excludes", no_argument, NULL, 'N'},
		{"hash", required_argument, NULL, 'H'},
		{"list-hash", required_argument, NULL, 'l'},
		{"progress", no_argument, NULL, 'P'},
		{"no-progress", no_argument, NULL, 'Q'},
		{"deb", required_argument, NULL, 'D'},
		{"initrd", required_argument, NULL, 'R'},
		{"apt-repo", required_argument, NULL, 'A'},
		{"keyring", required_argument, NULL, 'K'},
		{"cache", required_argument, NULL, 'C'},
		{"dpkg-root", required_argument, NULL, 'd'},
		{"policy", required_argument, NULL, 'y'},
		{"no-usrmerge", no_argument, NULL, 'U'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long v;
	char *end;
	int c;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	a->hash = ATT_HASH_SHA256;
	a->list_hash = ATT_HASH_SHA1;
	a->uefi_bank = ATT_HASH_SHA256;
	a->out = "-";
	a->progress = isatty(STDERR_FILENO);
	a->threads = ncpu > 0 ? (unsigned int)ncpu : 1;
	a->all = 1; /* --policy tcb */
	att_buf_init(&a->excl, 0);
	att_buf_init(&a->incl, 0);
	while ((c = getopt_long(argc, argv, "o:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			a->rootfs = optarg;
			break;
		case 'i':
			a->ima_log = optarg;
			break;
		case 'u':
			a->uefi_log = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'p':
			a->prefix = optarg;
			break;
		case 'a':
			a->all = 1;
			break;
		case 'y':
			if (strcmp(optarg, "tcb") && strcmp(optarg, "exec")) {
				fprintf(stderr, "attest-whitelist: --policy "
						"takes tcb or exec\n");
				return ATT_E_INVAL;
			}
			a->all = !strcmp(optarg, "tcb");
			break;
		case 'D':
		case 'R': {
			const char ***vec = c == 'D' ? &a->debs : &a->initrds;
			size_t *n = c == 'D' ? &a->ndebs : &a->ninitrds;
			const char **nv = realloc(*vec, (*n + 1) * sizeof(*nv));

			if (!nv)
				return ATT_E_NOMEM;
			*vec = nv;
			nv[(*n)++] = optarg;
			break;
		}
		case 'A':
			a->apt_repo = optarg;
			break;
		case 'K':
			a->keyring = optarg;
			break;
		case 'C':
			a->cache = optarg;
			break;
		case 'd':
			a->dpkg_root = optarg;
			break;
		case 'U':
			a->no_usrmerge = 1;
			break;
		case 'x':
			if (add_alt(&a->excl, optarg))
				return ATT_E_NOMEM;
			break;
		case 'I':
			if (add_alt(&a->incl, optarg))
				return ATT_E_NOMEM;
			break;
		case 's': {
			const char **ns =
				realloc(a->skip, (a->nskip + 1) * sizeof(*ns));

			if (!ns)
				return ATT_E_NOMEM;
			a->skip = ns;
			a->skip[a->nskip++] = optarg;
			break;
		}
		case 'N':
			a->no_defaults = 1;
			break;
		case 'H':
		case 'B':
		case 'l': {
			enum att_hash h =
				att_hash_by_name(optarg, strlen(optarg));

			if (h == ATT_HASH_NONE || h == ATT_HASH_MD5) {
				fprintf(stderr,
					"attest-whitelist: unknown "
					"hash '%s'\n",
					optarg);
				return ATT_E_INVAL;
			}
			if (c == 'H')
				a->hash = h;
			else if (c == 'B')
				a->uefi_bank = h;
			else
				a->list_hash = h;
			break;
		}
		case 'P':
			a->progress = 1;
			break;
		case 'Q':
			a->progress = 0;
			break;
		case 'j':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !v || v > 64) {
				fprintf(stderr, "attest-whitelist: -j takes "
						"1..64\n");
				return ATT_E_INVAL;
			}
			a->threads = (unsigned int)v;
			break;
		case 'h':
			wlcli_create_usage();
			return 1;
		default:
			return ATT_E_INVAL;
		}
	}
	/* --deb A.deb B.deb ...: the names after the first are debs too */
	for (; a->ndebs && optind < argc; optind++) {
		const char **nv =
			realloc(a->debs, (a->ndebs + 1) * sizeof(*nv));

		if (!nv)
			return ATT_E_NOMEM;
		a->debs = nv;
		nv[a->ndebs++] = argv[optind];
	}
	if (optind != argc ||
	    (!a->rootfs && !a->ima_log && !a->uefi_log && !a->ndebs &&
	     !a->ninitrds && !a->apt_repo && !a->dpkg_root)) {
		fprintf(stderr, "usage: attest-whitelist create --rootfs DIR | "
				"--deb FILE... | --apt-repo DIR | --dpkg-root "
				"ROOT | --initrd FILE | --ima-log FILE | "
				"--uefi-log FILE [options] (see --help)\n");
		return ATT_E_INVAL;
	}
	if (!!a->apt_repo != !!a->keyring) {
		fprintf(stderr, "attest-whitelist: --apt-repo needs --keyring "
				"(and --keyring an --apt-repo): an index is "
				"never taken unverified\n");
		return ATT_E_INVAL;
	}
	return ATT_OK;
}

/* Digest text as Keylime writes it: hex, with algo: only for sm3. */
static void digest_text(enum att_hash h, const uint8_t *d, size_t n, char *out,
			size_t outlen)
{
	char hex[2 * ATT_DIGEST_MAX + 1];

	att_hex_encode(d, n, hex);
	if (h == ATT_HASH_SM3)
		snprintf(out, outlen, "sm3:%s", hex);
	else
		snprintf(out, outlen, "%s", hex);
}

static int from_rootfs(const struct create_args *a, struct wldoc *doc,
		       int *reported)
{
	struct walk_opts o = {.root = a->rootfs,
			      .prefix = a->prefix,
			      .all = a->all,
			      .skip = a->skip,
			      .nskip = a->nskip};
	struct att_buf excl;
	regex_t ere, ire;
	struct walk w;
	size_t i;
	int rc;

	att_buf_init(&excl, 0);
	rc = att_buf_append(&excl, a->excl.data, a->excl.len);
	for (i = 0; !rc && !a->no_defaults &&
		    i < sizeof(default_excludes) / sizeof(default_excludes[0]);
	     i++) {
		/* defaults are absolute paths on the host */
		rc = att_buf_printf(
			&excl, "%s^(%s%s)", excl.len ? "|" : "",
			a->prefix && strcmp(a->prefix, "/") ? a->prefix : "",
			default_excludes[i]);
	}
	if (!rc)
		rc = compile(&excl, &ere, &o.excl);
	if (rc && o.excl) {
		regfree(o.excl);
		o.excl = NULL;
	}
	if (!rc)
		rc = compile(&a->incl, &ire, &o.incl);
	if (rc) {
		att_buf_release(&excl);
		return rc;
	}
	walk_init(&w);
	rc = walk_collect(&w, &o);
	if (rc) {
		fprintf(stderr,
			"attest-whitelist: %s: not a readable "
			"directory\n",
			a->rootfs);
		goto out;
	}
	rc = walk_hash(&w, a->hash, a->all, a->threads, a->progress);
	if (rc)
		goto out;
	for (i = 0; i < w.n && !rc; i++) {
		char d[2 * ATT_DIGEST_MAX + 8];

		if (w.f[i].status != WALK_HASHED)
			continue;
		if (!wldoc_utf8_ok((const uint8_t *)w.f[i].path,
				   strlen(w.f[i].path))) {
			struct att_buf e;

			att_buf_init(&e, 0);
			att_escape_bytes((const uint8_t *)w.f[i].path,
					 strlen(w.f[i].path), &e);
			att_buf_cstr(&e);
			fprintf(stderr,
				"attest-whitelist: name is not UTF-8, a JSON "
				"whitelist cannot hold it (not included): "
				"%s\n",
				(char *)e.data);
			att_buf_release(&e);
			w.st.not_utf8++;
			continue;
		}
		digest_text(a->hash, w.f[i].digest, att_hash_size(a->hash), d,
			    sizeof(d));
		rc = wldoc_add_digest(doc, w.f[i].path, d);
	}
	fprintf(stderr,
		"attest-whitelist: %zu files walked, %zu hashed (%.1f MiB), "
		"%zu not measured by policy, %zu hard links, %zu symlinks "
		"(targets measured under their own paths), %zu excluded; "
		"reported: %zu special, %zu unreadable, %zu changed, %zu "
		"loops, %zu non-UTF-8\n",
		w.st.files,
		w.st.files - w.st.not_candidate - w.st.unreadable -
			w.st.changed,
		(double)w.st.bytes_done / 1048576.0, w.st.not_candidate,
		w.st.hardlinks, w.st.symlinks, w.st.excluded, w.st.special,
		w.st.unreadable, w.st.changed, w.st.loops, w.st.not_utf8);
	/* special files are reported, not counted: IMA measures only
	 * regular files (a fifo or socket in a tree is normal) */
	*reported += (int)(w.st.unreadable + w.st.changed + w.st.loops +
			   w.st.not_utf8);
out:
	walk_release(&w);
	if (o.excl)
		regfree(o.excl);
	if (o.incl)
		regfree(o.incl);
	att_buf_release(&excl);
	return rc;
}

static int from_ima_log(const struct create_args *a, struct wldoc *doc,
			int *reported)
{
	struct att_ima_reader *r = NULL;
	struct att_ima_entry e;
	size_t taken = 0, viol = 0, bufs = 0;
	int fd, rc;

	fd = open(a->ima_log, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "attest-whitelist: %s: %s\n", a->ima_log,
			strerror(errno));
		return ATT_E_IO;
	}
	rc = att_ima_reader_new_fd(fd, ATT_IMA_FMT_AUTO, a->list_hash, NULL,
				   &r);
	while (!rc && (rc = att_ima_reader_next(r, &e)) == ATT_OK) {
		char d[2 * ATT_DIGEST_MAX + 8];
		char *path;

		if (e.violation) {
			viol++;
			continue;
		}
		if (!e.file_digest || !e.path)
			continue;
		if (!wldoc_utf8_ok(e.path, e.path_len)) {
			(*reported)++;
			fprintf(stderr,
				"attest-whitelist: entry %llu: name is "
				"not UTF-8 (not included)\n",
				(unsigned long long)e.index);
			continue;
		}
		path = strndup((const char *)e.path, e.path_len);
		if (!path) {
			rc = ATT_E_NOMEM;
			break;
		}
		digest_text(e.file_alg, e.file_digest, e.file_digest_len, d,
			    sizeof(d));
		if (e.buf) {
			/* ima-buf: kexec-cmdline, keys, ... */
			rc = wldoc_add_buf(doc, path, d);
			bufs++;
		} else {
			rc = wldoc_add_digest(doc, path, d);
			taken++;
		}
		free(path);
	}
	if (rc == ATT_E_EOF)
		rc = ATT_OK;
	else if (rc)
		fprintf(stderr, "attest-whitelist: %s: %s\n", a->ima_log,
			r ? att_ima_reader_error(r) : att_strerror(rc));
	if (!rc)
		fprintf(stderr,
			"attest-whitelist: %s: %zu file measurements, %zu "
			"buffers taken; %zu violations not taken\n",
			a->ima_log, taken, bufs, viol);
	*reported += (int)viol;
	att_ima_reader_free(r);
	close(fd);
	return rc;
}

/* Whether the log's events carry the bank (the first event's digests). */
static int has_bank(const uint8_t *log, size_t len, enum att_hash bank)
{
	struct att_uefi_info info;
	char err[200];
	unsigned int i;

	if (att_uefi_parse(log, len, NULL, NULL, NULL, &info, err, sizeof(err)))
		return 0;
	for (i = 0; i < info.nalgs; i++)
		if (info.algs[i] == bank)
			return 1;
	return 0;
}

static int from_uefi_log(const struct create_args *a, struct wldoc *doc)
{
	struct att_boot_facts *f = NULL;
	struct json_object *boot;
	struct att_buf b;
	char err[300];
	int rc;

	att_buf_init(&b, 0);
	rc = att_buf_read_file(&b, a->uefi_log, 64u << 20);
	if (rc) {
		fprintf(stderr, "attest-whitelist: %s: %s\n", a->uefi_log,
			rc == ATT_E_IO ? strerror(errno) : att_strerror(rc));
		goto out;
	}
	rc = att_boot_facts_read(b.data, b.len, NULL, &f, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "attest-whitelist: %s: %s\n", a->uefi_log, err);
		goto out;
	}
	if (f->nbad) {
		char t[ATT_BOOT_DETAIL + 80];

		att_boot_failure_text(&f->bad[0], t, sizeof(t));
		fprintf(stderr,
			"attest-whitelist: %s: not a log to take as a "
			"reference: %s\n",
			a->uefi_log, t);
		rc = ATT_E_VERIFY;
		goto out;
	}
	if (!has_bank(b.data, b.len, a->uefi_bank)) {
		fprintf(stderr,
			"attest-whitelist: %s: the log has no %s bank "
			"(--uefi-bank)\n",
			a->uefi_log, att_hash_name(a->uefi_bank));
		rc = ATT_E_UNSUPPORTED;
		goto out;
	}
	boot = att_boot_policy_json_from_facts(f, a->uefi_bank);
	if (!boot) {
		rc = ATT_E_NOMEM;
		goto out;
	}
	json_object_object_add(doc->root, "boot", boot);
	fprintf(stderr,
		"attest-whitelist: %s: Secure Boot %s; PK %zu, KEK %zu, db "
		"%zu, dbx %zu entries; %zu boot applications, %zu kernels, "
		"%zu initrds, %zu command lines\n",
		a->uefi_log,
		f->secure_boot == 1   ? "on"
		: f->secure_boot == 0 ? "off (secure_boot: \"any\")"
				      : "not measured (secure_boot: \"any\")",
		f->var[ATT_BV_PK].n, f->var[ATT_BV_KEK].n, f->var[ATT_BV_DB].n,
		f->var[ATT_BV_DBX].n, f->napps, f->nkernels, f->ninitrds,
		f->ncmdlines);
out:
	att_boot_facts_free(f);
	att_buf_release(&b);
	return rc;
}

static int from_packages(const struct create_args *a, struct wldoc *doc,
			 int *reported)
{
	struct create_pkg_args p = {.debs = a->debs,
				    .ndebs = a->ndebs,
				    .initrds = a->initrds,
				    .ninitrds = a->ninitrds,
				    .apt_repo = a->apt_repo,
				    .keyring = a->keyring,
				    .cache = a->cache,
				    .dpkg_root = a->dpkg_root,
				    .all = a->all,
				    .usrmerge = !a->no_usrmerge,
				    .progress = a->progress,
				    .hash = a->hash,
				    .threads = a->threads};
	regex_t ere, ire;
	int rc;

	rc = compile(&a->excl, &ere, &p.excl);
	if (!rc)
		rc = compile(&a->incl, &ire, &p.incl);
	if (!rc)
		rc = wlcli_create_pkgs(&p, doc, reported);
	if (p.excl)
		regfree(p.excl);
	if (p.incl)
		regfree(p.incl);
	return rc;
}

/* meta.source: "rootfs:DIR + deb:N files + ..." */
static int source_text(const struct create_args *a, struct att_buf *b)
{
	int rc = ATT_OK;

#define SRC_PART(cond, ...)                                          \
	do {                                                         \
		if (!rc && (cond)) {                                 \
			if (b->len)                                  \
				rc = att_buf_printf(b, " + ");       \
			if (!rc)                                     \
				rc = att_buf_printf(b, __VA_ARGS__); \
		}                                                    \
	} while (0)
	SRC_PART(a->rootfs, "rootfs:%s", a->rootfs);
	SRC_PART(a->ima_log, "ima-log:%s", a->ima_log);
	SRC_PART(a->uefi_log, "uefi-log:%s", a->uefi_log);
	SRC_PART(a->ndebs == 1, "deb:%s", a->ndebs ? a->debs[0] : "");
	SRC_PART(a->ndebs > 1, "deb:%zu files", a->ndebs);
	SRC_PART(a->apt_repo, "apt-repo:%s", a->apt_repo);
	SRC_PART(a->dpkg_root, "dpkg-root:%s", a->dpkg_root);
	SRC_PART(a->ninitrds == 1, "initrd:%s",
		 a->ninitrds ? a->initrds[0] : "");
	SRC_PART(a->ninitrds > 1, "initrd:%zu files", a->ninitrds);
#undef SRC_PART
	return rc ? rc : att_buf_cstr(b);
}

int wlcli_create(int argc, char **argv)
{
	struct create_args a = {0};
	struct wldoc *doc = NULL;
	struct att_buf src;
	int rc, reported = 0;

	rc = parse(argc, argv, &a);
	if (rc == 1) {
		rc = ATT_OK;
		goto out_args;
	}
	if (rc) {
		rc = WLCLI_EXIT_ERROR;
		goto out_args;
	}
	att_buf_init(&src, 0);
	if (wldoc_new(&doc)) {
		rc = WLCLI_EXIT_ERROR;
		goto out_args;
	}
	if (a.rootfs && from_rootfs(&a, doc, &reported)) {
		rc = WLCLI_EXIT_ERROR;
		goto out;
	}
	if (a.ima_log && from_ima_log(&a, doc, &reported)) {
		rc = WLCLI_EXIT_ERROR;
		goto out;
	}
	if (a.uefi_log && from_uefi_log(&a, doc)) {
		rc = WLCLI_EXIT_ERROR;
		goto out;
	}
	if ((a.ndebs || a.ninitrds || a.apt_repo || a.dpkg_root) &&
	    from_packages(&a, doc, &reported)) {
		rc = WLCLI_EXIT_ERROR;
		goto out;
	}
	if (source_text(&a, &src) ||
	    wldoc_set_meta(doc, (char *)src.data, att_hash_name(a.hash))) {
		rc = WLCLI_EXIT_ERROR;
		goto out;
	}
	if (wldoc_write(doc, a.out)) {
		fprintf(stderr, "attest-whitelist: cannot write %s\n", a.out);
		rc = WLCLI_EXIT_ERROR;
		goto out;
	}
	rc = reported ? WLCLI_EXIT_UNTRUSTED : WLCLI_EXIT_OK;
out:
	att_buf_release(&src);
	wldoc_free(doc);
out_args:
	att_buf_release(&a.excl);
	att_buf_release(&a.incl);
	free(a.skip);
	free(a.debs);
	free(a.initrds);
	return rc;
}
