#!/bin/sh
# bench/load.sh - verifier load benchmark driver (issue 9). Never run by
# make check. For now it runs only the software-TPM self-test (EK,
# ActivateCredential, AK, quote); the agent
# protocol driver is not written yet (bench/README.md, "Verifier load").
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-20}
case "$N" in --help|-h)
	echo "usage: bench/load.sh [N]  (N software EKs for the self-test)"
	exit 0 ;;
esac
make -C "$SRC" rel >/dev/null
exec timeout 600 "$SRC/build/rel/tools/att-bench-loadgen" --selftest "$N"
