# libattest (a static library: a binary takes only the objects it uses).
# src/ has one folder a concern; a folder uses its own files and those of
# the folders before it, never after (tests/unit/lib_layers.sh checks):
#   base    buffers, readers, errors, log, codecs, JSON, key = value,
#           digests, PCR values, the HTTPS client (http.c)
#   ima     the IMA list and slim.ko's list, replay, lattice state
#   tpm     quotes, keys, credentials, EK checks, the ESAPI wrapper
#   boot    the UEFI event log and boot facts
#   policy  whitelists, the check of a list, boot and lattice policy
# (ima, tpm and boot use base only; policy may use them all.)
# base/http.c is the HTTPS client of attest-agent and attestctl: a binary
# that calls it links libcurl itself; tpm/tpm_esys.c is the one tpm2-tss
# ESAPI wrapper (attest-agent, slimctl, the swtpm tests): its users link
# tss2-esys, tss2-tctildr and tss2-rc.
LIB_SRCS += $(wildcard $(SRC)/common/src/*/*.c)
$(B)/obj/common/src/base/http.o: ALL_CFLAGS += $(shell pkg-config --cflags libcurl)
