# libFuzzer targets (VARIANT=fuzz): every tests/fuzz/fuzz_*.c is one
# target; its seed corpus is tests/fuzz/corpus/<name without fuzz_>/.
FUZZ_SRCS := $(wildcard $(SRC)/tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst $(SRC)/tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRCS))
FUZZERS += $(FUZZ_BINS)
$(foreach t,$(FUZZ_BINS),$(eval $(t)_SRCS := $(SRC)/tests/fuzz/$(notdir $(t)).c))
$(foreach t,$(FUZZ_BINS),$(eval $(t)_LIBS := $(shell pkg-config --libs tss2-mu tss2-rc 2>/dev/null)))
