#!/bin/sh
# bench/run.sh RELDIR - replay + judge benchmark: attest-whitelist check
# against evmctl ima_measurement on the same generated lists (10k, 100k and
# 1M entries), in one run on this machine. Prints entries/s, peak RSS and
# the ratio; then the time to load a 100k-path whitelist.
# BENCH_SIZES="10000 100000 1000000" and BENCH_REPEAT=3 override.
set -eu
B=${1:?usage: bench/run.sh BUILD/rel}
here=$(cd "$(dirname "$0")" && pwd)
W="$B/bin/attest-whitelist"
G="$B/tools/att-imagen"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sizes=${BENCH_SIZES:-10000 100000 1000000}
repeat=${BENCH_REPEAT:-3}
echo "bench: $(nproc) cores, $(uname -r), evmctl $(evmctl --version | cut -d' ' -f2)"
paths=${BENCH_PATHS:-50000}
echo "bench: each figure is the best of $repeat runs; lists are ima-ng, sha1+sha256 banks,"
echo "bench: a host of $paths files (whitelist of $paths paths) measured over and over;"
echo "bench: attest judges every entry against the whitelist, evmctl only replays"
printf '%-9s %-8s %12s %12s %10s %10s %8s\n' entries tool seconds entries/s rss-MiB list-MiB ratio
for n in $sizes; do
	"$G" -o "$T/l" -n "$n" --template ima-ng --paths "$paths" --pcrs "$T/p" --whitelist "$T/wl.json"
	size=$(du -m "$T/l" | cut -f1)
	python3 "$here/measure.py" "$repeat" "$n" "$size" \
		"attest" "$W check $T/wl.json $T/l --pcrs sha1,$T/p-sha1.txt --pcrs sha256,$T/p-sha256.txt" \
		"evmctl" "evmctl ima_measurement --pcrs sha1,$T/p-sha1.txt --pcrs sha256,$T/p-sha256.txt $T/l"
done
# Whitelist compile time: a 100k-path whitelist and an empty list.
"$G" -o "$T/l" -n 100000 --whitelist "$T/wl.json"
: >"$T/empty"
python3 "$here/measure.py" "$repeat" 100000 0 "wl-load" "$W check $T/wl.json $T/empty"
