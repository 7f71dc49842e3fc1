# Integration tests: every tests/integration/test_*.c is one cmocka binary
# that starts the real processes it needs (swtpm, the verifier, ...).
INTEG_SRCS := $(wildcard $(SRC)/tests/integration/test_*.c)
INTEG_BINS := $(patsubst $(SRC)/tests/integration/%.c,$(B)/tests/integration/%,$(INTEG_SRCS))
TESTS += $(INTEG_BINS)
LINKS += $(INTEG_BINS)
$(foreach t,$(INTEG_BINS),$(eval $(t)_SRCS := $(SRC)/tests/integration/$(notdir $(t)).c $(TESTLIB_SRCS)))
$(foreach t,$(INTEG_BINS),$(eval $(t)_LIBS := $(TEST_LIBS)))
