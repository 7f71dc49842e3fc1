# Unit tests: every tests/unit/test_*.c is one cmocka binary, linked with
# libattest and the test support library (tests/lib).
UNIT_SRCS := $(wildcard $(SRC)/tests/unit/test_*.c)
UNIT_BINS := $(patsubst $(SRC)/tests/unit/%.c,$(B)/tests/unit/%,$(UNIT_SRCS))
TESTS += $(UNIT_BINS)
LINKS += $(UNIT_BINS)
$(foreach t,$(UNIT_BINS),$(eval $(t)_SRCS := $(SRC)/tests/unit/$(notdir $(t)).c $(TESTLIB_SRCS)))
$(foreach t,$(UNIT_BINS),$(eval $(t)_LIBS := $(TEST_LIBS)))
