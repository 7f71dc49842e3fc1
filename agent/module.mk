# agent: attest-agent (below). Its TPM layer is libattest's ESAPI wrapper
# (common/src/tpm/tpm_esys.c, attest/tpm_esys.h), which the tests that drive
# swtpm (tests/integration/test_tpm_*.c) take from libattest with the TSS
# libraries below.
AGENT_TPM_OBJS := $(B)/obj/agent/logsrc.o
AGENT_TSS_LIBS := $(shell pkg-config --libs tss2-esys tss2-tctildr tss2-rc tss2-mu)

# The TPM integration tests: agent objects, the test support library and
# the TSS + cmocka libraries, whatever the order the module fragments are
# read in (target-specific, so the shared link rule stays as it is).
AGENT_TPM_TESTS := $(patsubst $(SRC)/tests/integration/%.c,$(B)/tests/integration/%,\
	$(wildcard $(SRC)/tests/integration/test_tpm_*.c))
AGENT_TESTLIB_OBJS := $(patsubst $(SRC)/%.c,$(B)/obj/%.o,$(wildcard $(SRC)/tests/lib/*.c))
$(AGENT_TPM_TESTS): $(AGENT_TPM_OBJS) $(AGENT_TESTLIB_OBJS)
$(AGENT_TPM_TESTS): PKG_LIBS += $(AGENT_TSS_LIBS) $(shell pkg-config --libs cmocka)
$(B)/obj/tests/integration/test_tpm_%.o: ALL_CFLAGS += -I$(SRC)/agent

# Unit tests of agent parts that need no TPM (tests/unit/test_agent_*.c).
AGENT_UNIT_TESTS := $(patsubst $(SRC)/tests/unit/%.c,$(B)/tests/unit/%,\
	$(wildcard $(SRC)/tests/unit/test_agent_*.c))
$(AGENT_UNIT_TESTS): $(B)/obj/agent/logsrc.o $(B)/obj/agent/config.o $(B)/obj/agent/privdrop.o
$(B)/obj/tests/unit/test_agent_%.o: ALL_CFLAGS += -I$(SRC)/agent

# Integration tests of the agent (tests/integration/test_agent_*.c): the
# agent's objects, libcurl and the TSS.
AGENT_OBJS := $(patsubst $(SRC)/%.c,$(B)/obj/%.o,$(wildcard $(SRC)/agent/*.c))
AGENT_LIBS := $(shell pkg-config --libs libcurl libsystemd tss2-esys tss2-tctildr tss2-rc tss2-mu)
AGENT_INTEG_TESTS := $(patsubst $(SRC)/tests/integration/%.c,$(B)/tests/integration/%,\
	$(wildcard $(SRC)/tests/integration/test_agent_*.c))
$(AGENT_INTEG_TESTS): $(filter-out $(B)/obj/agent/main.o,$(AGENT_OBJS))
$(AGENT_INTEG_TESTS): PKG_LIBS += $(AGENT_LIBS)
$(B)/obj/tests/integration/test_agent_%.o: ALL_CFLAGS += -I$(SRC)/agent

# The daemon.
AGENT_BIN := $(B)/bin/attest-agent
BINS += $(AGENT_BIN)
LINKS += $(AGENT_BIN)
$(AGENT_BIN)_SRCS := $(wildcard $(SRC)/agent/*.c)
$(AGENT_BIN)_LIBS := $(AGENT_LIBS)
