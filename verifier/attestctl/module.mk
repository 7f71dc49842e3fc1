# attestctl: the admin CLI (libattest's HTTPS client, attest/http.h).
CTL_BIN := $(B)/bin/attestctl
BINS += $(CTL_BIN)
LINKS += $(CTL_BIN)
$(CTL_BIN)_SRCS := $(SRC)/verifier/attestctl/attestctl.c
$(CTL_BIN)_LIBS := $(shell pkg-config --libs libcurl)
