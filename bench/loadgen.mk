# bench/loadgen.mk - verifier load generator (issue 9); release tool, run
# by bench/load.sh only (make bench), never by make check.
BENCH_LOADGEN := $(B)/tools/att-bench-loadgen
TOOLS += $(BENCH_LOADGEN)
LINKS += $(BENCH_LOADGEN)
$(BENCH_LOADGEN)_SRCS := $(SRC)/bench/loadgen/main.c \
	$(SRC)/bench/loadgen/run.c \
	$(SRC)/bench/loadgen/agent.c \
	$(SRC)/bench/loadgen/files.c \
	$(SRC)/bench/loadgen/selftest.c \
	$(SRC)/bench/loadgen/softtpm.c
$(BENCH_LOADGEN)_LIBS := $(shell pkg-config --libs libcurl) -lm
