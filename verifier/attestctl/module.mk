# attestctl: the admin CLI (reuses the agent's HTTPS client).
CTL_BIN := $(B)/bin/attestctl
BINS += $(CTL_BIN)
LINKS += $(CTL_BIN)
$(CTL_BIN)_SRCS := $(SRC)/verifier/attestctl/attestctl.c $(SRC)/agent/http.c
$(CTL_BIN)_LIBS := $(shell pkg-config --libs libcurl)
$(B)/obj/verifier/attestctl/%.o: ALL_CFLAGS += -I$(SRC)/agent
