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
# Whitelist compile time: a 100k-path whitelist, in-process and as a
# whole attest-whitelist run (process start included).
"$G" -o "$T/l" -n 100000 --whitelist "$T/wl.json"
: >"$T/empty"
echo
echo "bench: whitelist load, in-process: $("$B/tools/att-bench-wlload" "$T/wl.json" 11)"
python3 "$here/measure.py" "$repeat" 100000 0 "wl-load" "$W check $T/wl.json $T/empty"

# Whitelist generation: hashing a tree with attest-whitelist create (all
# CPUs) against find | xargs sha256sum, warm page cache, same tree.
files=${BENCH_TREE_FILES:-3000}
echo
echo "bench: tree of $files files (1 KiB to 256 KiB, 1 in 3 executable), page cache warm"
mkdir -p "$T/tree"
python3 - "$T/tree" "$files" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(7)
for i in range(n):
    d = os.path.join(root, "usr", "lib%d" % (i % 37))
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "f%05d" % i)
    with open(p, "wb") as f:
        f.write(rnd.randbytes(rnd.randint(1024, 256 * 1024)))
    if i % 3 == 0:
        os.chmod(p, 0o755)
PY
size=$(du -sm "$T/tree" | cut -f1)
cat "$T"/tree/usr/*/* >/dev/null
printf '%-9s %-8s %12s %12s %10s %10s %8s\n' files tool seconds files/s rss-MiB tree-MiB ratio
python3 "$here/measure.py" "$repeat" "$files" "$size" \
	"attest" "$W create --rootfs $T/tree --all --no-progress -o $T/tree.json" \
	"sha256sum" "sh -c 'find $T/tree -type f -print0 | xargs -0 sha256sum >/dev/null'"

# Whitelists from Debian packages (bench/deb.sh): create --deb against
# dpkg-deb | tar -x + sha256sum, and a re-run over an unchanged repository.
sh "$here/deb.sh" "$B"
