# whitelist/: attest-whitelist, which makes and checks whitelists where no
# verifier runs; it links libattest and libarchive, nothing of the verifier.
WL_BIN := $(B)/bin/attest-whitelist
BINS += $(WL_BIN)
LINKS += $(WL_BIN)
$(WL_BIN)_SRCS := $(wildcard $(SRC)/whitelist/*.c)
$(WL_BIN)_LIBS := $(shell pkg-config --libs libarchive)
