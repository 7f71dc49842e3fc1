# fuzz_pkg: attest-whitelist's .deb and initramfs readers, linked from
# whitelist/ with libarchive (`override`: wins over
# tests/fuzz/module.mk's defaults in either order).
WL_PKG_FUZZ_SRCS = $(addprefix $(SRC)/whitelist/,pkg_list.c \
	pkg_links.c pkg_src.c deb.c initrd.c)
override $(B)/fuzz/fuzz_pkg_SRCS = $(SRC)/tests/fuzz/fuzz_pkg.c $(WL_PKG_FUZZ_SRCS)
override $(B)/fuzz/fuzz_pkg_LIBS = $(shell pkg-config --libs libarchive)
$(B)/obj/tests/fuzz/fuzz_pkg.o: ALL_CFLAGS += -I$(SRC)/whitelist
