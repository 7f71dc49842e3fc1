# libFuzzer targets (VARIANT=fuzz): every tests/fuzz/fuzz_*.c is one
# target; its seed corpus is tests/fuzz/corpus/<name without fuzz_>/.
FUZZ_SRCS := $(wildcard $(SRC)/tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst $(SRC)/tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRCS))
FUZZERS += $(FUZZ_BINS)
$(foreach t,$(FUZZ_BINS),$(eval $(t)_SRCS := $(SRC)/tests/fuzz/$(notdir $(t)).c))
$(foreach t,$(FUZZ_BINS),$(eval $(t)_LIBS := $(shell pkg-config --libs tss2-mu tss2-rc 2>/dev/null)))

# fuzz_rest drives the verifier's route handlers in-process on SQLite in
# memory: it links the service's sources but main.c and server.c (the
# libmicrohttpd glue: the target builds the request itself) and the PostgreSQL
# backend (the target supplies an att_store_pg_open that refuses).
FUZZ_REST := $(B)/fuzz/fuzz_rest
$(FUZZ_REST)_SRCS := $(SRC)/tests/fuzz/fuzz_rest.c \
	$(filter-out %/main.c %/server.c %/store_pg.c %/store_pg_agents.c,\
		$(wildcard $(SRC)/verifier/service/*.c))
$(FUZZ_REST)_LIBS := $(shell pkg-config --libs tss2-mu tss2-rc sqlite3 libcurl 2>/dev/null)
$(B)/obj/tests/fuzz/fuzz_rest.o: ALL_CFLAGS += -I$(SRC)/verifier/service

# fuzz_http drives raw bytes through libmicrohttpd and server.c (started
# without TLS and without a listening socket: ver_server_start_plain, in
# fuzzing builds only) into the same handlers.
FUZZ_HTTP := $(B)/fuzz/fuzz_http
$(FUZZ_HTTP)_SRCS := $(SRC)/tests/fuzz/fuzz_http.c \
	$(filter-out %/main.c %/store_pg.c %/store_pg_agents.c,\
		$(wildcard $(SRC)/verifier/service/*.c))
$(FUZZ_HTTP)_LIBS := $(shell pkg-config --libs tss2-mu tss2-rc sqlite3 libcurl libmicrohttpd gnutls 2>/dev/null)
$(B)/obj/tests/fuzz/fuzz_http.o: ALL_CFLAGS += -I$(SRC)/verifier/service
