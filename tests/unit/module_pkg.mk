# test_pkg: attest-whitelist's package and initramfs readers
# (whitelist/), linked from their sources with libarchive.
# `override` with recursive (=): wins over tests/unit/module.mk's defaults
# whichever fragment is read first.
WL_PKG_SRCS = $(addprefix $(SRC)/whitelist/,pkg_list.c pkg_links.c \
	pkg_src.c deb.c initrd.c pkg_cache.c apt_repo.c deb822.c dpkg_root.c)
override $(B)/tests/unit/test_pkg_SRCS = $(SRC)/tests/unit/test_pkg.c $(TESTLIB_SRCS) $(WL_PKG_SRCS)
override $(B)/tests/unit/test_pkg_LIBS = $(TEST_LIBS) $(shell pkg-config --libs libarchive)
$(B)/obj/tests/unit/test_pkg.o: ALL_CFLAGS += -I$(SRC)/whitelist
