# bench tools (built with the release variant, run by bench/run.sh only)
BENCH_WLLOAD := $(B)/tools/att-bench-wlload
TOOLS += $(BENCH_WLLOAD)
LINKS += $(BENCH_WLLOAD)
$(BENCH_WLLOAD)_SRCS := $(SRC)/bench/wlload.c
$(BENCH_WLLOAD)_LIBS :=
