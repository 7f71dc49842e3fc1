# libattest
LIB_SRCS += $(wildcard $(SRC)/common/src/*.c)
