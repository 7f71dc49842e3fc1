# attest - top-level Makefile.
#
#   make            build everything (release variant) into $(O)/rel
#   make check      install deps, build, run unit (ASan+UBSan), integration,
#                   fuzz (time-boxed) and VM tests
#   make demo       install deps, build, run the demo fleet
#   make bench      benchmarks against the reference tools and the
#                   verifier load benchmark (not a test; bench-vm: the
#                   module's overhead in the VM only; bench-debian: boot
#                   and a steady workload of a real Debian guest in
#                   enforce mode against no module)
#   make soak       1,000 simulated agents for 30 minutes with a verifier
#                   restart every 5 (bench/soak.sh; not a test)
#   make kernel-check  W=1, sparse and checkpatch on slim.ko for both kernels
#   make fuzz       long fuzzing runs (FUZZ_SECONDS=N per target)
#   make install    install binaries, systemd units, sysusers.d files,
#                   configuration and directories under $(DESTDIR)
#                   (binaries in $(PREFIX)/bin); slim.ko's boot files
#                   (modules-load.d, modprobe.d: mode=enforce) and the
#                   Debian labeling policy (docs/enforce-debian.md)
#   make deb        Debian packages (dpkg-buildpackage, lintian) into
#                   $(O)/deb/VERSION (DEB_VERSION=... for another version)
#
# Out-of-tree: make -f /path/to/attest/Makefile O=/tmp/attest-build
SRC := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
O ?= $(SRC)/build
override O := $(abspath $(O))
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 20
CHECK_FUZZ_SECONDS ?= 15
SKIP_DEPS ?=

BUILD = $(MAKE) --no-print-directory -f $(SRC)/mk/build.mk SRC=$(SRC)

.PHONY: all rel san fuzz-build deps check unit integration fuzz-check vm-check \
	demo bench bench-vm bench-debian soak kernel-check fuzz install deb clean kernel

all: rel

deps:
ifeq ($(SKIP_DEPS),)
	@$(SRC)/deploy/install-deps.sh
endif

rel:
	@$(BUILD) B=$(O)/rel VARIANT=rel all

san:
	@$(BUILD) B=$(O)/san VARIANT=san all tests

fuzz-build:
	@$(BUILD) B=$(O)/fuzz VARIANT=fuzz fuzzers

kernel:
	@$(MAKE) --no-print-directory -C $(SRC)/kernel

# The environment tests/run-all.sh gives each suite.
TEST_ENV = ATT_SRC=$(SRC) ATT_BUILD=$(O)/rel ATT_SAN_BUILD=$(O)/san \
	ATT_LOGDIR=$(O)/test-logs

unit: san
	@$(TEST_ENV) $(SRC)/tests/run-tests.sh unit $(O)/san/tests/unit

integration: rel san
	@$(TEST_ENV) $(SRC)/tests/run-tests.sh integration \
		$(O)/san/tests/integration

fuzz-check: fuzz-build
	@$(SRC)/tests/fuzz/run.sh $(O)/fuzz $(CHECK_FUZZ_SECONDS)

vm-check: rel
	@if [ -x $(SRC)/tests/vm/run.sh ]; then $(SRC)/tests/vm/run.sh $(O); fi

check: deps
	@$(MAKE) --no-print-directory -f $(SRC)/Makefile O=$(O) SKIP_DEPS=1 rel san fuzz-build
	@$(SRC)/tests/run-all.sh $(O) $(CHECK_FUZZ_SECONDS)

fuzz: deps fuzz-build
	@$(SRC)/tests/fuzz/run.sh $(O)/fuzz $(FUZZ_SECONDS)

bench: deps rel
	@$(SRC)/bench/run.sh $(O)/rel
	@$(SRC)/bench/load.sh $(O)/rel
	@$(SRC)/bench/vm/run.sh $(O)
	@$(SRC)/bench/vm/debian.sh $(O)

bench-vm: deps rel
	@$(SRC)/bench/vm/run.sh $(O)

bench-debian: deps rel
	@$(SRC)/bench/vm/debian.sh $(O)

soak: deps rel
	@$(SRC)/bench/soak.sh $(O)/rel

kernel-check: deps
	@$(SRC)/tests/kernel-static.sh $(O)

demo: deps rel
	@$(SRC)/deploy/demo.sh $(O)

install: rel
	@$(BUILD) B=$(O)/rel VARIANT=rel install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)

deb: deps
	@$(SRC)/mk/deb.sh $(SRC) $(O)/deb $(DEB_VERSION)

clean:
	rm -rf $(O)
