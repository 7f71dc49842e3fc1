# tests/gen: att-imagen, the deterministic IMA list generator used by the
# tests and benchmarks. It computes PCR values with OpenSSL directly, not
# with libattest's replay, so that the replay is checked against it.
IMAGEN := $(B)/tools/att-imagen
TOOLS += $(IMAGEN)
LINKS += $(IMAGEN)
$(IMAGEN)_SRCS := $(SRC)/tests/gen/imagen.c
$(IMAGEN)_LIBS :=

UEFIGEN := $(B)/tools/att-uefigen
EVENTLOG := $(B)/tools/att-eventlog
TOOLS += $(UEFIGEN) $(EVENTLOG)
LINKS += $(UEFIGEN) $(EVENTLOG)
$(UEFIGEN)_SRCS := $(SRC)/tests/gen/uefigen.c
$(UEFIGEN)_LIBS :=
$(EVENTLOG)_SRCS := $(SRC)/tests/gen/eventlog.c
$(EVENTLOG)_LIBS :=
