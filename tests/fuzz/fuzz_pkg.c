// SPDX-License-Identifier: Apache-2.0
/*
 * fuzz_pkg.c - attest-whitelist's .deb reader (ar container, data.tar
 * through libarchive) and initramfs reader (cpio newc, concatenated and
 * compressed), on the same bytes; then the paths each entry would be
 * listed under. Seeds: a real .deb of the Debian archive, .debs built by
 * dpkg-deb, a small initramfs.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attest/digest.h"
#include "attest/err.h"
#include "deb.h"
#include "initrd.h"
#include "pkg.h"
#include "pkg_src.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(int fd, int initrd, struct att_md *md,
		const struct pkg_links *host)
{
	char err[320] = "", out[PKG_MAX_PATH + 1];
	struct pkg_links own;
	struct pkg_list l;
	struct pkg_src s;
	size_t i;
	int rc;

	if (lseek(fd, 0, SEEK_SET) != 0 || pkg_src_init(&s, fd))
		return;
	pkg_list_init(&l, initrd);
	rc = initrd ? initrd_read(&s, &l, md, err, sizeof(err))
		    : deb_read(&s, &l, md, err, sizeof(err));
	if (rc && rc != ATT_E_NOMEM && !err[0])
		__builtin_trap(); /* every refusal says why */
	pkg_links_init(&own);
	for (i = 0; !rc && i < l.n; i++)
		if (l.e[i].kind == PKG_SYMLINK)
			pkg_links_add(&own, l.e[i].path, l.e[i].target);
	for (i = 0; !rc && i < l.n; i++) {
		if (l.e[i].kind != PKG_REG && l.e[i].kind != PKG_HARDLINK)
			continue;
		if (pkg_path_resolve(host, &own, l.e[i].path, out) == ATT_OK &&
		    out[0] != '/')
			__builtin_trap(); /* always an absolute path */
	}
	pkg_links_release(&own);
	pkg_list_release(&l);
	pkg_src_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct att_md *md;
	static struct pkg_links host;
	int fd;

	if (!md) {
		if (att_md_new(ATT_HASH_SHA256, &md))
			return 0;
		pkg_links_init(&host);
		pkg_links_add_usrmerge(&host);
	}
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		one(fd, 0, md, &host);
		one(fd, 1, md, NULL);
	}
	close(fd);
	return 0;
}
