# libattest (a static library: a binary takes only the objects it uses).
# http.c is the HTTPS client of attest-agent and attestctl: a binary that
# calls it links libcurl itself; tpm_esys.c is the one tpm2-tss ESAPI
# wrapper (attest-agent, slimctl, the swtpm tests): its users link
# tss2-esys, tss2-tctildr and tss2-rc.
LIB_SRCS += $(wildcard $(SRC)/common/src/*.c)
$(B)/obj/common/src/http.o: ALL_CFLAGS += $(shell pkg-config --cflags libcurl)
