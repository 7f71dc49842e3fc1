// SPDX-License-Identifier: Apache-2.0
/*
 * test_pkg.c - attest-whitelist's package and initramfs readers: member
 * name normalisation, the paths IMA reports (usr-merge, an archive's own
 * symlinks), .deb files (a real one from the Debian archive and ones
 * built by dpkg-deb with gzip, zstd and no compression; digests from
 * sha256sum of dpkg-deb --fsys-tarfile's files), cpio newc with hard
 * links, every truncation of each, the Packages, status and diversions
 * parsers, and the cache.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "apt_repo.h"
#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/digest.h"
#include "attest/err.h"
#include "deb.h"
#include "dpkg_root.h"
#include "initrd.h"
#include "pkg.h"
#include "pkg_cache.h"
#include "pkg_src.h"

static int read_mem(const void *p, size_t n, int initrd, struct pkg_list *l,
		    char *err, size_t errlen)
{
	struct att_md *md;
	struct pkg_src s;
	int fd = memfd_create("pkg", MFD_CLOEXEC), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(att_md_new(ATT_HASH_SHA256, &md), ATT_OK);
	assert_int_equal(pkg_src_init(&s, fd), ATT_OK);
	pkg_list_init(l, initrd);
	rc = initrd ? initrd_read(&s, l, md, err, errlen)
		    : deb_read(&s, l, md, err, errlen);
	pkg_src_release(&s);
	att_md_free(md);
	close(fd);
	return rc;
}

static void fixture(const char *name, struct att_buf *b)
{
	const char *src = getenv("ATT_SRC");
	char path[1024];

	assert_non_null(src);
	snprintf(path, sizeof(path), "%s/tests/fixtures/deb/%s", src, name);
	att_buf_init(b, 0);
	assert_int_equal(att_buf_read_file(b, path, 1 << 20), ATT_OK);
}

static void assert_digest(const struct pkg_list *l, const char *path,
			  const char *hex)
{
	const struct pkg_entry *e = pkg_list_find(l, path);
	char got[65];

	if (!e)
		print_message("no entry %s\n", path);
	assert_non_null(e);
	att_hex_encode(e->digest, 32, got);
	assert_string_equal(got, hex);
}

static void norm(void **state)
{
	char out[PKG_MAX_PATH + 1];
	char *longname = malloc(PKG_MAX_PATH + 10);

	(void)state;
	assert_int_equal(pkg_path_norm("./usr/bin/ls", 12, out), ATT_OK);
	assert_string_equal(out, "/usr/bin/ls");
	assert_int_equal(pkg_path_norm("usr//bin/./ls/", 14, out), ATT_OK);
	assert_string_equal(out, "/usr/bin/ls");
	assert_int_equal(pkg_path_norm("./", 2, out), ATT_OK);
	assert_string_equal(out, "/");
	assert_int_equal(pkg_path_norm("/etc/passwd", 11, out), ATT_E_FORMAT);
	assert_int_equal(pkg_path_norm("./a/../b", 8, out), ATT_E_FORMAT);
	assert_int_equal(pkg_path_norm("..", 2, out), ATT_E_FORMAT);
	assert_int_equal(pkg_path_norm("a\0b", 3, out), ATT_E_FORMAT);
	assert_int_equal(pkg_path_norm("", 0, out), ATT_E_FORMAT);
	/* "..." and "..x" are names */
	assert_int_equal(pkg_path_norm("./.../..x", 9, out), ATT_OK);
	assert_string_equal(out, "/.../..x");
	assert_non_null(longname);
	memset(longname, 'a', PKG_MAX_PATH + 5);
	assert_int_equal(pkg_path_norm(longname, PKG_MAX_PATH + 5, out),
			 ATT_E_TOO_BIG);
	free(longname);
}

static void resolve(void **state)
{
	struct pkg_links host, own;
	char out[PKG_MAX_PATH + 1];

	(void)state;
	pkg_links_init(&host);
	pkg_links_init(&own);
	assert_int_equal(pkg_links_add_usrmerge(&host), ATT_OK);
	assert_int_equal(pkg_path_resolve(&host, NULL, "/bin/ls", out), 0);
	assert_string_equal(out, "/usr/bin/ls");
	assert_int_equal(pkg_path_resolve(&host, NULL, "/sbin/x", out), 0);
	assert_string_equal(out, "/usr/sbin/x");
	assert_int_equal(
		pkg_path_resolve(&host, NULL, "/lib64/ld-linux.so.2", out), 0);
	assert_string_equal(out, "/usr/lib64/ld-linux.so.2");
	assert_int_equal(pkg_path_resolve(&host, NULL, "/lib/a/b/c", out), 0);
	assert_string_equal(out, "/usr/lib/a/b/c");
	assert_int_equal(pkg_path_resolve(&host, NULL, "/binx/y", out), 0);
	assert_string_equal(out, "/binx/y");
	assert_int_equal(pkg_path_resolve(&host, NULL, "/bin", out), 0);
	assert_string_equal(out, "/bin"); /* the last component stays */
	/* an archive's own links: relative, absolute, "..", chained */
	assert_int_equal(pkg_links_add(&own, "/usr/lib/foo", "bar"), 0);
	assert_int_equal(pkg_links_add(&own, "/opt/x", "/bin"), 0);
	assert_int_equal(pkg_links_add(&own, "/a/b", "../../../../c"), 0);
	assert_int_equal(pkg_path_resolve(&host, &own, "/usr/lib/foo/z", out),
			 0);
	assert_string_equal(out, "/usr/lib/bar/z");
	assert_int_equal(pkg_path_resolve(&host, &own, "/opt/x/tool", out), 0);
	assert_string_equal(out, "/usr/bin/tool");
	assert_int_equal(pkg_path_resolve(&host, &own, "/a/b/f", out), 0);
	assert_string_equal(out, "/c/f");
	/* loops end with an error, not a hang */
	assert_int_equal(pkg_links_add(&own, "/l1", "l2"), 0);
	assert_int_equal(pkg_links_add(&own, "/l2", "/l1"), 0);
	assert_int_equal(pkg_links_add(&own, "/grow", "grow/x"), 0);
	assert_int_not_equal(pkg_path_resolve(NULL, &own, "/l1/f", out), 0);
	assert_int_not_equal(pkg_path_resolve(NULL, &own, "/grow/f", out), 0);
	pkg_links_release(&host);
	pkg_links_release(&own);
}

static void candidate(void **state)
{
	(void)state;
	assert_true(pkg_is_candidate("/x", 1, NULL, 0));
	assert_true(pkg_is_candidate("/x", 0,
				     (const uint8_t *)"\x7f"
						      "ELF",
				     4));
	assert_true(pkg_is_candidate("/x", 0, (const uint8_t *)"#!", 2));
	assert_true(pkg_is_candidate("/m/a.ko.zst", 0, NULL, 0));
	assert_false(pkg_is_candidate("/m/a.kox", 0, (const uint8_t *)"#", 1));
}

/* The real Debian archive's usr-is-merged 37~deb12u1 (xz). */
static void deb_real(void **state)
{
	struct pkg_list l;
	struct att_buf b;
	char err[300];

	(void)state;
	fixture("usr-is-merged_37-deb12u1_all.deb", &b);
	assert_int_equal(read_mem(b.data, b.len, 0, &l, err, sizeof(err)),
			 ATT_OK);
	assert_digest(&l, "/usr/share/doc/usr-is-merged/changelog.gz",
		      "a712cb1aa49837a9cb9f058cfa70eebae2052eb47afcefaf87b32941"
		      "6e9c87ed");
	assert_digest(&l, "/usr/share/doc/usr-is-merged/copyright",
		      "9836bfe2ef94505bbf29701e8c90799ab1a5fd966d26d60d019a822c"
		      "dbf3d61a");
	assert_int_equal(pkg_list_find(&l, "/usr/share/doc")->kind, PKG_DIR);
	/* its maintainer scripts (sha256sum of dpkg-deb -e's files), under
	 * the names dpkg runs them by */
	assert_digest(&l, "/var/lib/dpkg/info/usr-is-merged.preinst",
		      "727f2971fe428284f1dfcf88ead0d5c6fc6e1013b3ea4fbc87809907"
		      "6792a2af");
	assert_digest(&l, "/var/lib/dpkg/tmp.ci/preinst",
		      "727f2971fe428284f1dfcf88ead0d5c6fc6e1013b3ea4fbc87809907"
		      "6792a2af");
	assert_digest(&l, "/var/lib/dpkg/info/usr-is-merged.postinst",
		      "da90a5ff269ea58f1aa8f06a92ac37ab7f42d28787e4a7017992f67f"
		      "cf48518b");
	assert_null(
		pkg_list_find(&l, "/var/lib/dpkg/info/usr-is-merged.prerm"));
	/* the files and the scripts, not the control file */
	assert_int_equal(l.bytes, 2434 + 987 + 1780 + 745);
	pkg_list_release(&l);
	att_buf_release(&b);
}

/* Built by dpkg-deb: a script, a hard link, a symlink, an ELF-looking
 * data file under /bin, a data file; gzip, zstd and none. */
static void deb_built(void **state)
{
	static const char *const names[] = {"attest-fixture-gzip.deb",
					    "attest-fixture-zstd.deb",
					    "attest-fixture-none.deb"};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		const struct pkg_entry *e;
		struct pkg_list l;
		struct att_buf b;
		char err[300];

		fixture(names[i], &b);
		assert_int_equal(
			read_mem(b.data, b.len, 0, &l, err, sizeof(err)), 0);
		assert_digest(&l, "/usr/bin/attest-fixture",
			      "6ecf06f6dbbab6a920b5b208bc7c4069ca266b150d6c0053"
			      "3a00b5975a8417ca");
		assert_digest(&l, "/usr/bin/attest-fixture2",
			      "6ecf06f6dbbab6a920b5b208bc7c4069ca266b150d6c0053"
			      "3a00b5975a8417ca");
		assert_digest(&l, "/bin/tool",
			      "6a970be382101c66a28317ee845191ffdddc959a941d2381"
			      "d48e7fd5bf67caea");
		assert_digest(&l, "/usr/share/attest-fixture/data",
			      "6667b2d1aab6a00caa5aee5af8ad9f1465e567abf1c209d1"
			      "5727d57b3e8f6e5f");
		assert_int_equal(
			pkg_list_find(&l, "/usr/bin/attest-fixture2")->kind,
			PKG_HARDLINK);
		e = pkg_list_find(&l, "/usr/bin/attest-link");
		assert_int_equal(e->kind, PKG_SYMLINK);
		assert_string_equal(e->target, "attest-fixture");
		assert_true(pkg_list_find(&l, "/usr/bin/attest-fixture")
				    ->candidate);
		assert_true(pkg_list_find(&l, "/bin/tool")->candidate);
		assert_false(pkg_list_find(&l, "/usr/share/attest-fixture/data")
				     ->candidate);
		pkg_list_release(&l);
		att_buf_release(&b);
	}
}

/* Every prefix of each .deb is an error; nothing is taken from it. */
static void deb_truncated(void **state)
{
	static const char *const names[] = {"usr-is-merged_37-deb12u1_all.deb",
					    "attest-fixture-gzip.deb",
					    "attest-fixture-zstd.deb"};
	size_t i, n;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct att_buf b;

		fixture(names[i], &b);
		/* the last member's pad byte may be missing */
		for (n = 0; n + 1 < b.len; n++) {
			struct pkg_list l;
			char err[300] = "";
			int rc = read_mem(b.data, n, 0, &l, err, sizeof(err));

			if (rc == ATT_OK)
				print_message("%s: prefix %zu accepted\n",
					      names[i], n);
			assert_int_not_equal(rc, ATT_OK);
			assert_true(err[0] != '\0');
			pkg_list_release(&l);
		}
		att_buf_release(&b);
	}
}

static void deb_member_size(void **state)
{
	struct pkg_list l;
	struct att_buf b;
	char err[300];

	(void)state;
	fixture("attest-fixture-gzip.deb", &b);
	/* the data member claims more than the file holds */
	{
		char *h = memmem(b.data, b.len, "data.tar.gz", 11);

		assert_non_null(h);
		memcpy(h + 48, "99999     ", 10);
		assert_int_equal(
			read_mem(b.data, b.len, 0, &l, err, sizeof(err)),
			ATT_E_TRUNCATED);
		pkg_list_release(&l);
		memcpy(h + 48, "9999999999", 10);
		assert_int_equal(
			read_mem(b.data, b.len, 0, &l, err, sizeof(err)),
			ATT_E_TOO_BIG);
		pkg_list_release(&l);
		memcpy(h + 48, "12x       ", 10);
		assert_int_equal(
			read_mem(b.data, b.len, 0, &l, err, sizeof(err)),
			ATT_E_FORMAT);
		pkg_list_release(&l);
	}
	att_buf_release(&b);
}

/* A newc writer for the tests. */
static void newc(struct att_buf *b, const char *name, uint32_t mode,
		 uint32_t ino, uint32_t nlink, const char *data)
{
	size_t dl = data ? strlen(data) : 0;

	assert_int_equal(att_buf_printf(b,
					"070701%08X%08X%08X%08X%08X%08X%08zX%"
					"08X%08X%08X%08X%08zX%08X",
					ino, mode, 0, 0, nlink, 0, dl, 0, 0, 0,
					0, strlen(name) + 1, 0),
			 0);
	assert_int_equal(att_buf_append(b, name, strlen(name) + 1), 0);
	while (b->len & 3)
		assert_int_equal(att_buf_append_u8(b, 0), 0);
	assert_int_equal(att_buf_append(b, data ? data : "", dl), 0);
	while (b->len & 3)
		assert_int_equal(att_buf_append_u8(b, 0), 0);
}

static void build_initrd(struct att_buf *b)
{
	att_buf_init(b, 0);
	newc(b, "kernel/x86/microcode/GenuineIntel.bin", 0100644, 1, 1, "uc");
	newc(b, "TRAILER!!!", 0, 0, 1, NULL);
	assert_int_equal(att_buf_append(b, "\0\0\0\0\0\0\0\0", 8), 0);
	newc(b, ".", 040755, 2, 2, NULL);
	newc(b, "usr/bin", 040755, 3, 2, NULL);
	newc(b, "bin", 0120777, 4, 1, "usr/bin");
	/* GNU cpio: a hard-linked file's data comes with its last name */
	newc(b, "usr/bin/a", 0100755, 5, 2, NULL);
	newc(b, "usr/bin/b", 0100755, 5, 2, "#!/bin/sh\n");
	newc(b, "init", 0100755, 6, 1, "#!/bin/sh\nexec init\n");
	newc(b, "conf/initramfs.conf", 0100644, 7, 1, "MODULES=most\n");
	newc(b, "dev/console", 020600, 8, 1, NULL);
	newc(b, "TRAILER!!!", 0, 0, 1, NULL);
}

static void cpio_read(void **state)
{
	struct pkg_list l;
	struct att_buf b;
	char err[300], hex[65];
	uint8_t d[32];

	(void)state;
	build_initrd(&b);
	assert_int_equal(read_mem(b.data, b.len, 1, &l, err, sizeof(err)),
			 ATT_OK);
	att_digest(ATT_HASH_SHA256, "#!/bin/sh\n", 10, d);
	att_hex_encode(d, 32, hex);
	assert_digest(&l, "/usr/bin/a", hex);
	assert_digest(&l, "/usr/bin/b", hex);
	assert_int_equal(pkg_list_find(&l, "/usr/bin/b")->kind, PKG_HARDLINK);
	assert_string_equal(pkg_list_find(&l, "/bin")->target, "usr/bin");
	assert_int_equal(pkg_list_find(&l, "/dev/console")->kind, PKG_SPECIAL);
	att_digest(ATT_HASH_SHA256, "uc", 2, d);
	att_hex_encode(d, 32, hex);
	assert_digest(&l, "/kernel/x86/microcode/GenuineIntel.bin", hex);
	assert_false(pkg_list_find(&l, "/conf/initramfs.conf")->candidate);
	assert_true(pkg_list_find(&l, "/init")->candidate);
	pkg_list_release(&l);
	/* a later archive's member replaces an earlier one's */
	newc(&b, "init", 0100755, 9, 1, "#!/bin/sh\nnew\n");
	newc(&b, "TRAILER!!!", 0, 0, 1, NULL);
	assert_int_equal(read_mem(b.data, b.len, 1, &l, err, sizeof(err)),
			 ATT_OK);
	att_digest(ATT_HASH_SHA256, "#!/bin/sh\nnew\n", 14, d);
	att_hex_encode(d, 32, hex);
	assert_digest(&l, "/init", hex);
	pkg_list_release(&l);
	att_buf_release(&b);
}

static void cpio_truncated(void **state)
{
	struct att_buf b;
	size_t n, first_end = 0;

	(void)state;
	build_initrd(&b);
	/* the end of the first archive (a complete image by itself) */
	{
		const uint8_t *t = memmem(b.data, b.len, "TRAILER!!!", 10);

		first_end = ((size_t)(t - b.data) + 11 + 3) & ~(size_t)3;
	}
	for (n = 0; n < b.len; n++) {
		struct pkg_list l;
		char err[300] = "";
		int rc = read_mem(b.data, n, 1, &l, err, sizeof(err));

		/* a prefix that ends between archives is an image too */
		if (n >= first_end && n <= first_end + 8)
			assert_int_equal(rc, ATT_OK);
		else
			assert_int_not_equal(rc, ATT_OK);
		pkg_list_release(&l);
	}
	att_buf_release(&b);
}

static void cpio_hostile(void **state)
{
	static const char *const bad[] = {"../evil", "/abs", "a/../../b"};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct pkg_list l;
		struct att_buf b;
		char err[300];

		att_buf_init(&b, 0);
		newc(&b, bad[i], 0100644, 1, 1, "x");
		newc(&b, "TRAILER!!!", 0, 0, 1, NULL);
		assert_int_equal(
			read_mem(b.data, b.len, 1, &l, err, sizeof(err)),
			ATT_E_FORMAT);
		assert_non_null(strstr(err, "absolute or with '..'"));
		pkg_list_release(&l);
		att_buf_release(&b);
	}
	{
		struct pkg_list l;
		struct att_buf b;
		char err[300];

		/* a symlink target with a NUL, one over the cap */
		att_buf_init(&b, 0);
		newc(&b, "l", 0120777, 1, 1, "ab");
		b.data[b.len - 4 + 1] = '\0';
		newc(&b, "TRAILER!!!", 0, 0, 1, NULL);
		assert_int_equal(
			read_mem(b.data, b.len, 1, &l, err, sizeof(err)),
			ATT_E_FORMAT);
		pkg_list_release(&l);
		att_buf_release(&b);
	}
}

static const char packages[] =
	"Package: hello\n"
	"Version: 2.10-3\n"
	"Architecture: amd64\n"
	"Description: hi\n"
	" more\n"
	"Filename: pool/main/h/hello/hello_2.10-3_amd64.deb\n"
	"Size: 53080\n"
	"SHA256: "
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
	"\n"
	"Package: hello\n"
	"version: 2.10-4\n"
	"Architecture: amd64\n"
	"Filename: pool/main/h/hello/hello_2.10-4_amd64.deb\n"
	"Size: 1\n"
	"SHA256: "
	"1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n";

static void packages_parse(void **state)
{
	struct apt_index x;
	char err[300];
	size_t n;

	(void)state;
	apt_index_init(&x);
	assert_int_equal(apt_packages_parse(&x, "/m", packages,
					    strlen(packages), err, sizeof(err)),
			 ATT_OK);
	assert_int_equal(x.n, 2);
	assert_string_equal(x.p[1].version, "2.10-4");
	assert_string_equal(x.p[0].file,
			    "/m/pool/main/h/hello/hello_2.10-3_amd64.deb");
	assert_int_equal(x.p[0].size, 53080);
	assert_int_equal(x.p[0].sha256[0], 0x01);
	assert_non_null(apt_index_find(&x, "hello", "2.10-4", "amd64"));
	assert_null(apt_index_find(&x, "hello", "2.10-5", "amd64"));
	apt_index_release(&x);
	/* every prefix: an error, or only whole stanzas' packages */
	for (n = 0; n < sizeof(packages) - 1; n++) {
		int rc;

		apt_index_init(&x);
		rc = apt_packages_parse(&x, "/m", packages, n, err,
					sizeof(err));
		if (rc == ATT_OK) {
			size_t i;

			for (i = 0; i < x.n; i++)
				assert_true(x.p[i].sha256[0] == 0x01 ||
					    x.p[i].sha256[0] == 0x11);
		}
		apt_index_release(&x);
	}
	/* hostile filenames and fields */
	{
		static const char *const bad[] = {
			"Package: a\nVersion: 1\nArchitecture: all\nFilename: "
			"../../etc/passwd\nSize: 1\nSHA256: "
			"0123456789abcdef0123456789abcdef0123456789abcdef012345"
			"67"
			"89abcdef\n",
			"Package: a\nVersion: 1\nArchitecture: all\nFilename: "
			"/etc/passwd\nSize: 1\nSHA256: "
			"0123456789abcdef0123456789abcdef0123456789abcdef012345"
			"67"
			"89abcdef\n",
			"Package: a\nVersion: 1\nArchitecture: all\nFilename: "
			"a.deb\nSize: -1\nSHA256: "
			"0123456789abcdef0123456789abcdef0123456789abcdef012345"
			"67"
			"89abcdef\n",
			"Package: a\nVersion: 1\nArchitecture: all\nFilename: "
			"a.deb\nSize: 1\nSHA256: 0123\n",
			"Package: a\nVersion: 1\nArchitecture: all\nFilename: "
			"a.deb\nSHA256: "
			"0123456789abcdef0123456789abcdef0123456789abcdef012345"
			"67"
			"89abcdef\n",
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			apt_index_init(&x);
			assert_int_equal(apt_packages_parse(&x, "/m", bad[i],
							    strlen(bad[i]), err,
							    sizeof(err)),
					 ATT_E_FORMAT);
			apt_index_release(&x);
		}
	}
}

static void dpkg_parse(void **state)
{
	static const char status[] =
		"Package: a\nStatus: install ok installed\nVersion: 1:2.0\n"
		"Architecture: amd64\n\n"
		"Package: b\nStatus: deinstall ok config-files\nVersion: 1\n"
		"Architecture: amd64\n\n"
		"Package: c\nStatus: hold ok installed\nVersion: 3\n"
		"Architecture: all\n";
	static const char div[] = "/usr/bin/x\n/usr/bin/x.real\npkg-a\n"
				  "/etc/y\n/etc/y.local\n:\n";
	struct dpkg_root d;
	struct att_buf p;
	char err[300];

	(void)state;
	dpkg_root_init(&d);
	assert_int_equal(
		dpkg_status_parse(&d, status, strlen(status), err, sizeof(err)),
		ATT_OK);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.p[0].version, "1:2.0");
	assert_string_equal(d.p[1].name, "c");
	assert_int_equal(
		dpkg_diversions_parse(&d, div, strlen(div), err, sizeof(err)),
		ATT_OK);
	assert_string_equal(pkg_divert_find(&d.divert, "b", "/usr/bin/x"),
			    "/usr/bin/x.real");
	/* the diverting package's own file stays */
	assert_null(pkg_divert_find(&d.divert, "pkg-a", "/usr/bin/x"));
	assert_string_equal(pkg_divert_find(&d.divert, "pkg-a", "/etc/y"),
			    "/etc/y.local");
	att_buf_init(&p, 0);
	assert_int_equal(dpkg_root_archive("/nonexistent", &d.p[0], &p),
			 ATT_E_NOT_FOUND);
	assert_string_equal((char *)p.data, "/nonexistent/var/cache/apt/"
					    "archives/a_1%3a2.0_amd64.deb");
	att_buf_release(&p);
	dpkg_root_release(&d);
	/* every prefix of the diversions that is not whole triples */
	for (size_t n = 1; n < sizeof(div) - 1; n++) {
		int rc;

		dpkg_root_init(&d);
		rc = dpkg_diversions_parse(&d, div, n, err, sizeof(err));
		if (n == 33)
			assert_int_equal(rc, ATT_OK);
		else
			assert_int_equal(rc, ATT_E_FORMAT);
		dpkg_root_release(&d);
	}
	dpkg_root_init(&d);
	assert_int_equal(
		dpkg_diversions_parse(&d, "x\n/y\np\n", 7, err, sizeof(err)),
		ATT_E_FORMAT);
	assert_int_equal(dpkg_diversions_parse(&d, "/a/../b\n/y\np\n", 13, err,
					       sizeof(err)),
			 ATT_E_FORMAT);
	dpkg_root_release(&d);
}

static void cache(void **state)
{
	char dir[] = "/tmp/test-pkg-cache.XXXXXX", path[300];
	struct pkg_list l, back;
	struct att_buf b;
	uint8_t key[32] = {1, 2, 3};
	char err[300];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fixture("attest-fixture-gzip.deb", &b);
	assert_int_equal(read_mem(b.data, b.len, 0, &l, err, sizeof(err)), 0);
	assert_int_equal(
		pkg_cache_store(dir, ATT_HASH_SHA256, PKG_TYPE_DEB, key, &l),
		ATT_OK);
	pkg_list_init(&back, 0);
	assert_int_equal(
		pkg_cache_load(dir, ATT_HASH_SHA256, PKG_TYPE_DEB, key, &back),
		ATT_OK);
	assert_int_equal(back.n, l.n);
	assert_int_equal(back.bytes, l.bytes);
	assert_digest(&back, "/usr/bin/attest-fixture2",
		      "6ecf06f6dbbab6a920b5b208bc7c4069ca266b150d6c00533a00b597"
		      "5a8417ca");
	assert_string_equal(
		pkg_list_find(&back, "/usr/bin/attest-link")->target,
		"attest-fixture");
	pkg_list_release(&back);
	/* another hash or type is another entry */
	pkg_list_init(&back, 0);
	assert_int_equal(
		pkg_cache_load(dir, ATT_HASH_SHA512, PKG_TYPE_DEB, key, &back),
		ATT_E_NOT_FOUND);
	assert_int_equal(pkg_cache_load(dir, ATT_HASH_SHA256, PKG_TYPE_INITRD,
					key, &back),
			 ATT_E_NOT_FOUND);
	/* a damaged entry is not used */
	snprintf(path, sizeof(path),
		 "%s/sha256/deb-0102030000000000000000000000000000000000000000"
		 "000000000000000000.json",
		 dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"v\": 1, \"hash\": \"sha256\", \"entries\": [[\"r\", 1, "
	      "\"zz\", \"/x\"]]}",
	      f);
	fclose(f);
	assert_int_equal(
		pkg_cache_load(dir, ATT_HASH_SHA256, PKG_TYPE_DEB, key, &back),
		ATT_E_NOT_FOUND);
	assert_int_equal(back.n, 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"v\": 1, \"hash\": null, \"entries\": []}", f);
	fclose(f);
	assert_int_equal(
		pkg_cache_load(dir, ATT_HASH_SHA256, PKG_TYPE_DEB, key, &back),
		ATT_E_NOT_FOUND);
	pkg_list_release(&back);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sha256", dir);
	rmdir(path);
	rmdir(dir);
	pkg_list_release(&l);
	att_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(norm),
		cmocka_unit_test(resolve),
		cmocka_unit_test(candidate),
		cmocka_unit_test(deb_real),
		cmocka_unit_test(deb_built),
		cmocka_unit_test(deb_truncated),
		cmocka_unit_test(deb_member_size),
		cmocka_unit_test(cpio_read),
		cmocka_unit_test(cpio_truncated),
		cmocka_unit_test(cpio_hostile),
		cmocka_unit_test(packages_parse),
		cmocka_unit_test(dpkg_parse),
		cmocka_unit_test(cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
