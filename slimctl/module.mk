# slimctl/: administration of the slim module's lattice
SLC_BIN := $(B)/bin/slimctl
BINS += $(SLC_BIN)
LINKS += $(SLC_BIN)
$(SLC_BIN)_SRCS := $(wildcard $(SRC)/slimctl/*.c)
$(SLC_BIN)_LIBS := $(shell pkg-config --libs tss2-esys tss2-tctildr tss2-rc tss2-mu)
# Unit tests of slimctl's parsers (tests/unit/test_slimctl_*.c)
SLC_UNIT_TESTS := $(patsubst $(SRC)/tests/unit/%.c,$(B)/tests/unit/%,\
	$(wildcard $(SRC)/tests/unit/test_slimctl_*.c))
$(SLC_UNIT_TESTS): $(B)/obj/slimctl/label.o $(B)/obj/slimctl/labelpol.o $(B)/obj/slimctl/sys.o $(B)/obj/slimctl/evmhmac.o
$(B)/obj/tests/unit/test_slimctl_%.o: ALL_CFLAGS += -I$(SRC)/slimctl
