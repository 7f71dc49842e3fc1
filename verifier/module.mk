# verifier/: attest-whitelist (more binaries join as they are written)
WL_BIN := $(B)/bin/attest-whitelist
BINS += $(WL_BIN)
LINKS += $(WL_BIN)
$(WL_BIN)_SRCS := $(wildcard $(SRC)/verifier/whitelist/*.c)
$(WL_BIN)_LIBS :=
