// SPDX-License-Identifier: Apache-2.0
/*
 * apt_repo.c - a local APT repository's packages, from verified indices.
 *
 * Nothing is read from an index before its signature (gpgv, the tool APT
 * itself uses) or its hash in a verified Release has been checked, and the
 * bytes checked are the bytes parsed: each file is read once into memory,
 * and gpgv verifies a private copy of them.
 */
#include "apt_repo.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/digest.h"
#include "attest/err.h"
#include "deb822.h"
#include "pkg.h"

extern char **environ;

void apt_index_init(struct apt_index *x)
{
	memset(x, 0, sizeof(*x));
}

void apt_index_release(struct apt_index *x)
{
	size_t i;

	for (i = 0; i < x->n; i++) {
		free(x->p[i].name);
		free(x->p[i].version);
		free(x->p[i].arch);
		free(x->p[i].file);
	}
	free(x->p);
	apt_index_init(x);
}

const struct apt_pkg *apt_index_find(const struct apt_index *x,
				     const char *name, const char *version,
				     const char *arch)
{
	size_t i;

	for (i = 0; x && i < x->n; i++)
		if (!strcmp(x->p[i].name, name) &&
		    !strcmp(x->p[i].version, version) &&
		    !strcmp(x->p[i].arch, arch))
			return &x->p[i];
	return NULL;
}

static int add_pkg(struct apt_index *x, const char *name, const char *ver,
		   const char *arch, const char *file, const uint8_t *sha,
		   uint64_t size)
{
	struct apt_pkg *p;

	if (x->n == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 256;
		struct apt_pkg *np = realloc(x->p, nc * sizeof(*np));

		if (!np)
			return ATT_E_NOMEM;
		x->p = np;
		x->cap = nc;
	}
	p = &x->p[x->n];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	p->version = strdup(ver);
	p->arch = strdup(arch);
	p->file = strdup(file);
	if (!p->name || !p->version || !p->arch || !p->file) {
		free(p->name);
		free(p->version);
		free(p->arch);
		free(p->file);
		return ATT_E_NOMEM;
	}
	memcpy(p->sha256, sha, 32);
	p->size = size;
	x->n++;
	return ATT_OK;
}

static int by_sha(const void *a, const void *b, void *arg)
{
	const struct apt_pkg *p = arg;
	size_t i = *(const size_t *)a, k = *(const size_t *)b;
	int c = memcmp(p[i].sha256, p[k].sha256, 32);

	return c ? c : (i > k) - (i < k);
}

/* The same .deb in several suites (or indices) is read once: the first. */
static int mark_dups(struct apt_index *x)
{
	size_t *ix, i;

	if (!x->n)
		return ATT_OK;
	ix = malloc(x->n * sizeof(*ix));
	if (!ix)
		return ATT_E_NOMEM;
	for (i = 0; i < x->n; i++)
		ix[i] = i;
	qsort_r(ix, x->n, sizeof(*ix), by_sha, x->p);
	x->nfiles = 0;
	for (i = 0; i < x->n; i++) {
		x->p[ix[i]].dup = i && !memcmp(x->p[ix[i]].sha256,
					       x->p[ix[i - 1]].sha256, 32);
		x->nfiles += !x->p[ix[i]].dup;
	}
	free(ix);
	return ATT_OK;
}

static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return ATT_E_FORMAT;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return ATT_E_FORMAT;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return ATT_OK;
}

int apt_packages_parse(struct apt_index *x, const char *base, const char *text,
		       size_t len, char *err, size_t errlen)
{
	struct deb822 d;
	const char *s;
	size_t n, k = 0;

	deb822_init(&d, text, len);
	while (deb822_next(&d, &s, &n)) {
		char name[256], ver[256], arch[64], fn[PKG_MAX_PATH + 1],
			size[32], hex[80], norm[PKG_MAX_PATH + 1];
		uint8_t sha[32];
		uint64_t sz;
		size_t got;
		struct att_buf file;
		int rc;

		k++;
		if (deb822_field(s, n, "Package", name, sizeof(name)) ||
		    deb822_field(s, n, "Version", ver, sizeof(ver)) ||
		    deb822_field(s, n, "Architecture", arch, sizeof(arch)) ||
		    deb822_field(s, n, "Filename", fn, sizeof(fn)) ||
		    deb822_field(s, n, "Size", size, sizeof(size)) ||
		    deb822_field(s, n, "SHA256", hex, sizeof(hex))) {
			snprintf(err, errlen,
				 "stanza %zu lacks Package, Version, "
				 "Architecture, Filename, Size or SHA256",
				 k);
			return ATT_E_FORMAT;
		}
		if (parse_u64(size, &sz) || strlen(hex) != 64 ||
		    att_hex_decode(hex, 64, sha, sizeof(sha), &got) ||
		    pkg_path_norm(fn, strlen(fn), norm)) {
			snprintf(err, errlen,
				 "stanza %zu (%s): bad Size, SHA256 or "
				 "Filename (absolute or with '..')",
				 k, name);
			return ATT_E_FORMAT;
		}
		att_buf_init(&file, 0);
		rc = att_buf_printf(&file, "%s%s", base, norm) ||
		     att_buf_cstr(&file);
		if (!rc)
			rc = add_pkg(x, name, ver, arch, (char *)file.data, sha,
				     sz);
		att_buf_release(&file);
		if (rc)
			return ATT_E_NOMEM;
	}
	return ATT_OK;
}

/* Runs gpgv (no shell), its messages into log; 0 when it exits 0. */
static int run_gpgv(char *const argv[], const char *log)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, rc;

	if (posix_spawn_file_actions_init(&fa))
		return ATT_E_NOMEM;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	rc = posix_spawnp(&pid, "gpgv", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return ATT_E_IO;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return ATT_E_IO;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? ATT_OK : ATT_E_VERIFY;
}

static void gpgv_said(const char *log, char *err, size_t errlen)
{
	struct att_buf b;
	size_t used = strlen(err);

	att_buf_init(&b, 0);
	if (!att_buf_read_file(&b, log, 4096) && b.len && used + 3 < errlen) {
		size_t i, k = errlen - used - 3 < b.len ? errlen - used - 3
							: b.len;

		for (i = 0; i < k; i++)
			if (b.data[i] == '\n')
				b.data[i] = ' ';
		snprintf(err + used, errlen - used, ": %.*s", (int)k,
			 (char *)b.data);
	}
	att_buf_release(&b);
}

/*
 * The verified text of the suite's Release: InRelease (clear-signed) or
 * Release with Release.gpg; each read once, and a private copy verified.
 */
static int verified_release(const char *suite, const char *keyring,
			    struct att_buf *out, char *err, size_t errlen)
{
	char tmp[] = "/tmp/attest-wl-apt.XXXXXX";
	struct att_buf path, in, sig, p2, p3, p4;
	int rc, inrel;

	att_buf_init(&path, 0);
	att_buf_init(&in, APT_MAX_RELEASE);
	att_buf_init(&sig, 0);
	att_buf_init(&p2, 0);
	att_buf_init(&p3, 0);
	att_buf_init(&p4, 0);
	if (!mkdtemp(tmp)) {
		snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
		return ATT_E_IO;
	}
	rc = att_buf_printf(&path, "%s/InRelease", suite) || att_buf_cstr(&path)
		     ? ATT_E_NOMEM
		     : ATT_OK;
	inrel = !rc && !access((char *)path.data, F_OK);
	if (!rc && !inrel) {
		path.len = 0;
		rc = att_buf_printf(&path, "%s/Release", suite) ||
				     att_buf_cstr(&path)
			     ? ATT_E_NOMEM
			     : ATT_OK;
	}
	if (!rc)
		rc = att_buf_read_file(&in, (char *)path.data, APT_MAX_RELEASE);
	if (!rc && !inrel) {
		struct att_buf sp;

		att_buf_init(&sp, 0);
		rc = att_buf_printf(&sp, "%s/Release.gpg", suite) ||
				     att_buf_cstr(&sp)
			     ? ATT_E_NOMEM
			     : att_buf_read_file(&sig, (char *)sp.data,
						 1u << 20);
		att_buf_release(&sp);
	}
	if (rc) {
		snprintf(err, errlen, "%s%s: %s", (char *)path.data,
			 inrel ? "" : " (or its Release.gpg)",
			 rc == ATT_E_IO ? strerror(errno) : att_strerror(rc));
		goto out;
	}
	if (att_buf_printf(&p2, "%s/in", tmp) || att_buf_cstr(&p2) ||
	    att_buf_printf(&p3, "%s/out", tmp) || att_buf_cstr(&p3) ||
	    att_buf_printf(&p4, "%s/log", tmp) || att_buf_cstr(&p4)) {
		rc = ATT_E_NOMEM;
		goto out;
	}
	rc = att_write_file_atomic((char *)p2.data, in.data, in.len, 0600);
	if (!rc && !inrel)
		rc = att_write_file_atomic((char *)p3.data, sig.data, sig.len,
					   0600);
	if (rc) {
		snprintf(err, errlen, "cannot write under %s", tmp);
		goto out;
	}
	if (inrel) {
		char *argv[] = {"gpgv",		 "--homedir",	  tmp,
				"--keyring",	 (char *)keyring, "--output",
				(char *)p3.data, (char *)p2.data, NULL};

		rc = run_gpgv(argv, (char *)p4.data);
	} else {
		char *argv[] = {"gpgv",
				"--homedir",
				tmp,
				"--keyring",
				(char *)keyring,
				(char *)p3.data,
				(char *)p2.data,
				NULL};

		rc = run_gpgv(argv, (char *)p4.data);
	}
	if (rc) {
		snprintf(err, errlen, "%s: signature not verified by %s%s",
			 (char *)path.data, keyring,
			 rc == ATT_E_IO ? " (cannot run gpgv)" : "");
		gpgv_said((char *)p4.data, err, errlen);
		rc = ATT_E_VERIFY;
		goto out;
	}
	if (inrel) {
		rc = att_buf_read_file(out, (char *)p3.data, APT_MAX_RELEASE);
	} else {
		rc = att_buf_append(out, in.data, in.len);
	}
out:
	if (p2.data)
		unlink((char *)p2.data);
	if (p3.data)
		unlink((char *)p3.data);
	if (p4.data)
		unlink((char *)p4.data);
	rmdir(tmp);
	att_buf_release(&path);
	att_buf_release(&in);
	att_buf_release(&sig);
	att_buf_release(&p2);
	att_buf_release(&p3);
	att_buf_release(&p4);
	return rc;
}

/* Decompresses (xz, gzip, or none) an index read into memory. */
static int decompress(const struct att_buf *in, struct att_buf *out)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	uint8_t buf[65536];
	la_ssize_t r;
	int rc = ATT_OK;

	if (!a)
		return ATT_E_NOMEM;
	if (archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
	    archive_read_support_filter_xz(a) != ARCHIVE_OK ||
	    archive_read_support_format_raw(a) != ARCHIVE_OK ||
	    archive_read_open_memory(a, in->data, in->len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		archive_read_free(a);
		return ATT_E_FORMAT;
	}
	while ((r = archive_read_data(a, buf, sizeof(buf))) > 0) {
		rc = att_buf_append(out, buf, (size_t)r);
		if (rc)
			break;
	}
	if (!rc && r < 0)
		rc = ATT_E_FORMAT;
	archive_read_free(a);
	return rc;
}

/* One Packages index named in the verified Release: checked, parsed. */
static int load_index(struct apt_index *x, const char *root, const char *suite,
		      const char *rel, const uint8_t *sha, uint64_t size,
		      char *err, size_t errlen)
{
	struct att_buf path, raw, text;
	uint8_t d[32];
	int rc;

	att_buf_init(&path, 0);
	att_buf_init(&raw, APT_MAX_PACKAGES);
	att_buf_init(&text, APT_MAX_PACKAGES);
	rc = att_buf_printf(&path, "%s/%s", suite, rel) || att_buf_cstr(&path)
		     ? ATT_E_NOMEM
		     : att_buf_read_file(&raw, (char *)path.data,
					 APT_MAX_PACKAGES);
	if (rc) {
		snprintf(err, errlen, "%s: %s", (char *)path.data,
			 rc == ATT_E_IO ? strerror(errno) : att_strerror(rc));
		goto out;
	}
	rc = att_digest(ATT_HASH_SHA256, raw.data, raw.len, d);
	if (rc)
		goto out;
	if (raw.len != size || memcmp(d, sha, 32)) {
		snprintf(err, errlen,
			 "%s: not the index the signed Release lists (SHA-256 "
			 "or size differs)",
			 (char *)path.data);
		rc = ATT_E_VERIFY;
		goto out;
	}
	if (strlen(rel) > 3 && (!strcmp(rel + strlen(rel) - 3, ".xz") ||
				!strcmp(rel + strlen(rel) - 3, ".gz")))
		rc = decompress(&raw, &text);
	else
		rc = att_buf_append(&text, raw.data, raw.len);
	if (rc) {
		snprintf(err, errlen, "%s: %s", (char *)path.data,
			 rc == ATT_E_FORMAT ? "does not decompress"
					    : att_strerror(rc));
		goto out;
	}
	if (text.len && memchr(text.data, '\0', text.len)) {
		snprintf(err, errlen, "%s: NUL in the index",
			 (char *)path.data);
		rc = ATT_E_FORMAT;
		goto out;
	}
	{
		char e2[300] = "";

		rc = apt_packages_parse(x, root, (char *)text.data, text.len,
					e2, sizeof(e2));
		if (rc)
			snprintf(err, errlen, "%s: %s", (char *)path.data, e2);
	}
	x->nindices++;
out:
	att_buf_release(&path);
	att_buf_release(&raw);
	att_buf_release(&text);
	return rc;
}

/* A SHA256 line of Release naming a Packages index we can read. */
static int pick(const char *line, size_t n, char *rel, uint8_t *sha,
		uint64_t *size)
{
	char hex[65], sz[32];
	const char *sp1, *sp2, *p = line, *end = line + n;
	size_t got, rl;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	sp1 = memchr(p, ' ', (size_t)(end - p));
	if (!sp1 || sp1 - p != 64)
		return 0;
	memcpy(hex, p, 64);
	p = sp1;
	while (p < end && *p == ' ')
		p++;
	sp2 = memchr(p, ' ', (size_t)(end - p));
	if (!sp2 || sp2 - p >= (long)sizeof(sz) || sp2 == p)
		return 0;
	memcpy(sz, p, (size_t)(sp2 - p));
	sz[sp2 - p] = '\0';
	p = sp2;
	while (p < end && *p == ' ')
		p++;
	while (end > p && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	rl = (size_t)(end - p);
	if (!rl || rl > PKG_MAX_PATH)
		return 0;
	memcpy(rel, p, rl);
	rel[rl] = '\0';
	if (att_hex_decode(hex, 64, sha, 32, &got) || parse_u64(sz, size))
		return 0;
	{
		const char *b = strrchr(rel, '/');

		b = b ? b + 1 : rel;
		if (strcmp(b, "Packages") && strcmp(b, "Packages.xz") &&
		    strcmp(b, "Packages.gz"))
			return 0;
	}
	return strstr(rel, "..") || rel[0] == '/' ? -1 : 1;
}

/*
 * A Release past its Valid-Until is refused, as APT refuses it: an old
 * signed Release replayed would hide newer versions (and their fixes).
 * Dates are RFC 2822 in UTC ("Sat, 14 Dec 2026 08:30:01 UTC").
 */
static int check_valid_until(const char *s, size_t n, const char *suite,
			     char *err, size_t errlen)
{
	char v[128];
	struct tm tm;
	const char *end;
	time_t t;

	if (deb822_field(s, n, "Valid-Until", v, sizeof(v)) == ATT_E_NOT_FOUND)
		return ATT_OK;
	memset(&tm, 0, sizeof(tm));
	end = strptime(v, "%a, %d %b %Y %H:%M:%S", &tm);
	if (!end || (strcmp(end, " UTC") && strcmp(end, " GMT") &&
		     strcmp(end, " +0000") && strcmp(end, " Z"))) {
		snprintf(err, errlen, "%s: Release's Valid-Until unreadable",
			 suite);
		return ATT_E_FORMAT;
	}
	t = timegm(&tm);
	if (t < time(NULL)) {
		snprintf(err, errlen, "%s: Release expired (Valid-Until: %s)",
			 suite, v);
		return ATT_E_VERIFY;
	}
	return ATT_OK;
}

struct listed {
	char rel[PKG_MAX_PATH + 1];
	uint8_t sha[32];
	uint64_t size;
	int there;
};

static size_t stem_len(const char *r)
{
	size_t l = strlen(r);

	if (l > 3 && (!strcmp(r + l - 3, ".xz") || !strcmp(r + l - 3, ".gz")))
		return l - 3;
	return l;
}

/* Whether v is the copy to read of its index: .xz, then .gz, then plain,
 * the first that the Release lists and that is there. */
static int preferred(const struct listed *v, size_t n, size_t i)
{
	static const char *const ext[] = {".xz", ".gz", ""};
	size_t sl = stem_len(v[i].rel), k, q;

	for (q = 0; q < 3; q++)
		for (k = 0; k < n; k++)
			if (v[k].there && stem_len(v[k].rel) == sl &&
			    !strncmp(v[k].rel, v[i].rel, sl) &&
			    !strcmp(v[k].rel + sl, ext[q]))
				return k == i;
	return 0;
}

/* Each Packages index of a suite, from its best local copy. */
static int load_suite(struct apt_index *x, const char *root, const char *suite,
		      const char *keyring, char *err, size_t errlen)
{
	struct listed *v = NULL;
	struct att_buf rel;
	const char *s, *body, *p, *end;
	size_t n, blen, nv = 0, i;
	struct deb822 d;
	int rc, found = 0;

	att_buf_init(&rel, APT_MAX_RELEASE);
	rc = verified_release(suite, keyring, &rel, err, errlen);
	if (rc)
		goto out;
	deb822_init(&d, (char *)rel.data, rel.len);
	if (!deb822_next(&d, &s, &n) ||
	    deb822_field_body(s, n, "SHA256", &body, &blen)) {
		snprintf(err, errlen, "%s: its Release has no SHA256 list",
			 suite);
		rc = ATT_E_FORMAT;
		goto out;
	}
	rc = check_valid_until(s, n, suite, err, errlen);
	if (rc)
		goto out;
	for (p = body, end = body + blen; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		char path[PKG_MAX_PATH + 300];
		struct listed *nv2;
		struct stat st;
		int k;

		e = e ? e : end;
		nv2 = realloc(v, (nv + 1) * sizeof(*v));
		if (!nv2) {
			rc = ATT_E_NOMEM;
			goto out;
		}
		v = nv2;
		k = pick(p, (size_t)(e - p), v[nv].rel, v[nv].sha, &v[nv].size);
		p = e < end ? e + 1 : e;
		if (k < 0) {
			snprintf(err, errlen,
				 "%s: Release names an index outside the "
				 "suite",
				 suite);
			rc = ATT_E_FORMAT;
			goto out;
		}
		if (!k)
			continue;
		snprintf(path, sizeof(path), "%s/%s", suite, v[nv].rel);
		v[nv].there = !stat(path, &st) && S_ISREG(st.st_mode);
		nv++;
	}
	for (i = 0; i < nv && !rc; i++) {
		if (!preferred(v, nv, i))
			continue;
		rc = load_index(x, root, suite, v[i].rel, v[i].sha, v[i].size,
				err, errlen);
		found++;
	}
	if (!rc && !found) {
		snprintf(err, errlen,
			 "%s: no Packages index the Release lists is there",
			 suite);
		rc = ATT_E_NOT_FOUND;
	}
out:
	free(v);
	att_buf_release(&rel);
	return rc;
}

static int load_all(struct apt_index *x, const char *dir, const char *keyring,
		    char *err, size_t errlen);

int apt_index_load(struct apt_index *x, const char *dir, const char *keyring,
		   char *err, size_t errlen)
{
	int rc = load_all(x, dir, keyring, err, errlen);

	return rc ? rc : mark_dups(x);
}

static int load_all(struct apt_index *x, const char *dir, const char *keyring,
		    char *err, size_t errlen)
{
	char root[PATH_MAX], key[PATH_MAX], p[PATH_MAX + 300];
	DIR *d;
	struct dirent *de;
	int rc = ATT_OK, suites = 0;

	if (!realpath(dir, root) || !realpath(keyring, key)) {
		snprintf(err, errlen, "%s: %s",
			 realpath(dir, root) ? keyring : dir, strerror(errno));
		return ATT_E_IO;
	}
	snprintf(p, sizeof(p), "%s/InRelease", root);
	if (!access(p, F_OK) ||
	    (snprintf(p, sizeof(p), "%s/Release", root), !access(p, F_OK)))
		return load_suite(x, root, root, key, err, errlen);
	snprintf(p, sizeof(p), "%s/dists", root);
	d = opendir(p);
	if (!d) {
		snprintf(err, errlen,
			 "no InRelease, Release or dists/ (a flat repository "
			 "or a mirror's root)");
		return ATT_E_NOT_FOUND;
	}
	while (!rc && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/dists/%s", root, de->d_name);
		/* stable -> bookworm: the same suite again */
		if (lstat(p, &st) || !S_ISDIR(st.st_mode))
			continue;
		rc = load_suite(x, root, p, key, err, errlen);
		suites++;
	}
	closedir(d);
	if (!rc && !suites) {
		snprintf(err, errlen, "no suite under dists/");
		rc = ATT_E_NOT_FOUND;
	}
	return rc;
}
