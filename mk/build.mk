# mk/build.mk - builds one variant of the userspace tree into $(B).
#
# VARIANT=rel   -O2, fortify, stack protector
# VARIANT=san   -O1, ASan + UBSan, -fno-sanitize-recover=all (unit tests)
# VARIANT=fuzz  clang, libFuzzer + ASan + UBSan (fuzz targets only)
#
# Components add themselves through */module.mk fragments that append to
# LIB_SRCS, BINS, TESTS and FUZZERS.
SRC ?= $(CURDIR)
B ?= $(SRC)/build/rel
VARIANT ?= rel
PREFIX ?= /usr/local

PKGS := openssl json-c tss2-mu
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS := $(shell pkg-config --libs $(PKGS))

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla -Wpointer-arith \
	-Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
# The project's version: one place, the file VERSION (debian/changelog is
# checked against it by mk/deb.sh).
ATT_VERSION := $(shell cat $(SRC)/VERSION)
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -g $(WARN) -I$(SRC)/common/include \
	-I$(SRC)/tests/lib $(PKG_CFLAGS) -MMD -MP \
	-DATT_VERSION='"$(ATT_VERSION)"'

ifeq ($(VARIANT),san)
CC := gcc
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
V_CFLAGS := -O1 $(SAN)
V_LDFLAGS := $(SAN)
else ifeq ($(VARIANT),fuzz)
CC := clang
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
V_CFLAGS := -O1 $(SAN) -fsanitize=fuzzer-no-link -DATT_FUZZING
V_LDFLAGS := $(SAN)
else
V_CFLAGS := -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
V_LDFLAGS := -pie -Wl,-z,relro,-z,now
endif

ALL_CFLAGS := $(BASE_CFLAGS) $(V_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(V_LDFLAGS) $(LDFLAGS)

# Shared by the test fragments (defined before any fragment is read).
TEST_LIBS := $(shell pkg-config --libs cmocka tss2-esys tss2-mu tss2-rc tss2-tctildr 2>/dev/null)
TESTLIB_SRCS := $(wildcard $(SRC)/tests/lib/*.c)

LIB_SRCS :=
BINS :=
TESTS :=
FUZZERS :=
TOOLS :=

include $(wildcard $(SRC)/*/module.mk $(SRC)/tests/*/module*.mk)
# bench/*.mk: benchmark tools' fragments (bench/module.mk is already in)
include $(filter-out $(SRC)/bench/module.mk,$(wildcard $(SRC)/bench/*.mk))

LIB := $(B)/libattest.a
LIB_OBJS := $(patsubst $(SRC)/%.c,$(B)/obj/%.o,$(LIB_SRCS))

.PHONY: all tests fuzzers install
.DEFAULT_GOAL := all

all: $(LIB) $(BINS) $(TOOLS)
tests: $(TESTS) $(TOOLS)
fuzzers: $(FUZZERS)

$(B)/obj/%.o: $(SRC)/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $(patsubst $(B)/%,%,$@)"
	@$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  AR      $(notdir $@)"
	@rm -f $@ && ar rcs $@ $^

# Link rule: a binary from its objects, libattest and extra libraries.
# $(1) target, $(2) sources, $(3) extra libs
define att_link
$(1): $(patsubst $(SRC)/%.c,$(B)/obj/%.o,$(2)) $(LIB)
	@mkdir -p $$(dir $$@)
	@echo "  LD      $$(patsubst $(B)/%,%,$$@)"
	@$$(CC) $$(ALL_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(LIB) $(3) $$(PKG_LIBS) -lpthread
endef

define att_fuzzer
$(1): $(patsubst $(SRC)/%.c,$(B)/obj/%.o,$(2)) $(LIB)
	@mkdir -p $$(dir $$@)
	@echo "  FUZZ    $$(patsubst $(B)/%,%,$$@)"
	@$$(CC) $$(ALL_LDFLAGS) -fsanitize=fuzzer -o $$@ $$(filter %.o,$$^) $(LIB) $(3) $$(PKG_LIBS) -lpthread
endef

$(foreach t,$(LINKS),$(eval $(call att_link,$(t),$($(t)_SRCS),$($(t)_LIBS))))
$(foreach t,$(FUZZERS),$(eval $(call att_fuzzer,$(t),$($(t)_SRCS),$($(t)_LIBS))))

# install: the binaries, the systemd units (their /usr/bin paths rewritten
# for PREFIX), the system users (sysusers.d), the configuration in
# SYSCONFDIR/attest (an existing file is never overwritten) and the
# directories. The Debian packages use PREFIX=/usr (debian/rules).
SYSCONFDIR ?= /etc
LOCALSTATEDIR ?= /var
# systemd reads units from /lib/systemd/system (Debian 12's place for
# packages) and /usr/local/lib/systemd/system, sysusers.d from
# /usr/lib/sysusers.d and /usr/local/lib/sysusers.d
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
DEPLOY := $(SRC)/deploy
install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	for u in attest-agent attest-verifier; do \
		sed 's|/usr/bin/|$(PREFIX)/bin/|; s|/etc/attest/|$(SYSCONFDIR)/attest/|g' \
			$(DEPLOY)/$$u.service >$(DESTDIR)$(UNITDIR)/$$u.service && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u.service && \
		install -m 0644 $(DEPLOY)/sysusers.d/$$u.conf $(DESTDIR)$(SYSUSERSDIR)/ || exit 1; \
	done
	install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/attest
	for c in agent.conf verifier.conf; do \
		if [ -e $(DESTDIR)$(SYSCONFDIR)/attest/$$c ]; then \
			echo "  KEEP    $(DESTDIR)$(SYSCONFDIR)/attest/$$c (exists)"; \
		else \
			install -m 0644 $(DEPLOY)/$$c $(DESTDIR)$(SYSCONFDIR)/attest/$$c || exit 1; \
		fi; \
	done
	install -d -m 0700 $(DESTDIR)$(LOCALSTATEDIR)/lib/attest-agent
	install -d -m 0750 $(DESTDIR)$(LOCALSTATEDIR)/lib/attest
	# slim.ko at boot in enforce mode, and the Debian labeling policy
	# (docs/enforce-debian.md); an existing file is never overwritten
	install -d $(DESTDIR)$(PREFIX)/share/attest/slim
	install -m 0644 $(DEPLOY)/slim/debian.policy $(DEPLOY)/slim/attest-agent.policy \
		$(DESTDIR)$(PREFIX)/share/attest/slim/
	for c in modules-load.d modprobe.d; do \
		install -d $(DESTDIR)$(SYSCONFDIR)/$$c; \
		if [ -e $(DESTDIR)$(SYSCONFDIR)/$$c/slim.conf ]; then \
			echo "  KEEP    $(DESTDIR)$(SYSCONFDIR)/$$c/slim.conf (exists)"; \
		else \
			install -m 0644 $(DEPLOY)/slim/$$c/slim.conf $(DESTDIR)$(SYSCONFDIR)/$$c/ || exit 1; \
		fi; \
	done

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
