# verifier/: attest-verifier and attestctl (attest-whitelist is whitelist/)

# attest-verifier: the REST service (verifier/service/)
VER_BIN := $(B)/bin/attest-verifier
VER_SRCS := $(wildcard $(SRC)/verifier/service/*.c)
VER_LIBS := $(shell pkg-config --libs libmicrohttpd gnutls sqlite3 libpq libcurl)
BINS += $(VER_BIN)
LINKS += $(VER_BIN)
$(VER_BIN)_SRCS := $(VER_SRCS)
$(VER_BIN)_LIBS := $(VER_LIBS)
# The dashboard's HTML, script and style sheet, compiled in (mk/embed.sh).
DASH_ASSETS := $(SRC)/verifier/service/dashboard.html \
	$(SRC)/verifier/service/dashboard.js $(SRC)/verifier/service/dashboard.css
$(B)/gen/verifier/dashboard_assets.h: $(DASH_ASSETS) $(SRC)/mk/embed.sh
	@mkdir -p $(dir $@)
	@echo "  GEN     $(patsubst $(B)/%,%,$@)"
	@sh $(SRC)/mk/embed.sh ver_dash_html=$(word 1,$(DASH_ASSETS)) \
		ver_dash_js=$(word 2,$(DASH_ASSETS)) \
		ver_dash_css=$(word 3,$(DASH_ASSETS)) >$@.tmp && mv $@.tmp $@
$(B)/obj/verifier/service/api_dashboard.o: $(B)/gen/verifier/dashboard_assets.h
$(B)/obj/verifier/service/api_dashboard.o: ALL_CFLAGS += -I$(B)/gen/verifier
$(B)/obj/verifier/service/store_pg.o $(B)/obj/verifier/service/store_pg_agents.o: ALL_CFLAGS += $(shell pkg-config --cflags libpq)
# Integration tests that call the service's code directly link its objects
# (all but main.c); `override` wins over tests/integration/module.mk's
# defaults, which are read later. Recursive (=): TEST_LIBS may be set later.
VER_TEST_SRCS := $(filter-out %/main.c,$(VER_SRCS))
VER_DIRECT_TESTS := test_verifier_store test_verifier_api test_verifier_attest test_attacks \
	test_attacks_evidence test_verifier_next test_verifier_history test_verifier_boot \
	test_faults
$(foreach t,$(VER_DIRECT_TESTS),$(eval override $(B)/tests/integration/$(t)_SRCS = $(SRC)/tests/integration/$(t).c $$(TESTLIB_SRCS) $(VER_TEST_SRCS)))
$(foreach t,$(VER_DIRECT_TESTS),$(eval override $(B)/tests/integration/$(t)_LIBS = $$(TEST_LIBS) $(VER_LIBS)))
# Verifier tests that drive swtpm through libattest's ESAPI wrapper; those
# that play a whole host or share its fixture runner for the two store
# back-ends (vh_run_backends, tests/lib/vhost/) link it too.
VER_VHOST_NAMES := test_verifier_attest test_faults test_attacks test_attacks_evidence \
	test_attacks_quote test_attacks_body test_attacks_certs test_verifier_next test_verifier_history \
	test_verifier_boot test_verifier_layers test_verifier_store
VER_VHOST_TESTS := $(addprefix $(B)/tests/integration/,$(VER_VHOST_NAMES))
VER_TPM_TESTS := $(B)/tests/integration/test_verifier_enroll $(VER_VHOST_TESTS)
VER_VHOST_OBJ := $(B)/obj/tests/lib/vhost/vhost.o
$(VER_TPM_TESTS): $(AGENT_TPM_OBJS)
$(VER_TPM_TESTS): PKG_LIBS += $(AGENT_TSS_LIBS)
$(VER_VHOST_TESTS): $(VER_VHOST_OBJ)
$(VER_VHOST_OBJ) $(patsubst $(B)/tests/%,$(B)/obj/tests/%.o,$(VER_TPM_TESTS)): ALL_CFLAGS += -I$(SRC)/agent

# attestctl
include $(SRC)/verifier/attestctl/module.mk

# Unit tests of verifier parts that need no server (tests/unit/test_verifier_*.c).
VER_UNIT_TESTS := $(patsubst $(SRC)/tests/unit/%.c,$(B)/tests/unit/%,\
	$(wildcard $(SRC)/tests/unit/test_verifier_*.c))
$(VER_UNIT_TESTS): $(B)/obj/verifier/service/logstate.o $(B)/obj/verifier/service/config.o \
	$(B)/obj/verifier/service/verdict.o $(B)/obj/verifier/service/metrics.o \
	$(B)/obj/verifier/service/agent_state.o \
	$(B)/obj/verifier/service/akcache.o
$(B)/obj/tests/unit/test_verifier_%.o: ALL_CFLAGS += -I$(SRC)/verifier/service
