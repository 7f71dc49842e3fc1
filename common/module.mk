# libattest (a static library: a binary takes only the objects it uses).
# http.c is the HTTPS client of attest-agent and attestctl: a binary that
# calls it links libcurl itself.
LIB_SRCS += $(wildcard $(SRC)/common/src/*.c)
$(B)/obj/common/src/http.o: ALL_CFLAGS += $(shell pkg-config --cflags libcurl)
