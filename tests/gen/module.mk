# tests/gen: att-imagen, the deterministic IMA list generator used by the
# tests and benchmarks. It computes PCR values with OpenSSL directly, not
# with libattest's replay, so that the replay is checked against it.
IMAGEN := $(B)/tools/att-imagen
TOOLS += $(IMAGEN)
LINKS += $(IMAGEN)
$(IMAGEN)_SRCS := $(SRC)/tests/gen/imagen.c
$(IMAGEN)_LIBS :=
