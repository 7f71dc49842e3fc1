#!/bin/bash
# run.sh FUZZDIR SECONDS - runs every libFuzzer target in FUZZDIR/fuzz for
# SECONDS each, from its seed corpus (tests/fuzz/corpus/NAME, copied: the
# repository's corpus is not modified) plus the regression inputs in
# tests/fuzz/regressions/NAME, which must all pass first; a dictionary
# tests/fuzz/fuzz_NAME.dict is passed when there is one. A crash fails the
# run and leaves the input in FUZZDIR/artifacts. FUZZ_JOBS (default 2)
# targets run at once, one per core (tests/lib/lanes.sh): each still gets
# its SECONDS of its own core.
set -u
dir=$1
secs=${2:-15}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/lanes.sh"
[ -d "$dir/fuzz" ] || { echo "fuzz: no targets in $dir/fuzz (build them: make fuzz-build)"; echo "fuzz: 0 passed, 1 failed"; exit 1; }
mkdir -p "$dir/artifacts" "$dir/work"

# One target: its regressions, then SECONDS of fuzzing; prints its line.
fuzz_one() {
	local t=$1 name short work runs
	name=$(basename "$t")
	short=${name#fuzz_}
	work="$dir/work/$short"
	rm -rf "$work"
	mkdir -p "$work"
	[ -d "$here/corpus/$short" ] && cp -r "$here/corpus/$short/." "$work/"
	if [ -d "$here/regressions/$short" ] &&
		! "$t" "$here/regressions/$short"/* >"$dir/$name.regress.log" 2>&1; then
		echo "FAIL  fuzz/$name: a regression input crashes again"
		tail -n 30 "$dir/$name.regress.log" | sed 's/^/    | /'
		return 1
	fi
	set --
	[ -f "$here/$name.dict" ] && set -- -dict="$here/$name.dict"
	if "$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$dir/artifacts/$name-" -print_final_stats=1 \
		"$@" "$work" >"$dir/$name.log" 2>&1; then
		runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/$name.log" | grep -o '[0-9]*$')
		echo "PASS  fuzz/$name (${secs}s, ${runs:-?} runs)"
	else
		echo "FAIL  fuzz/$name, log follows:"
		tail -n 40 "$dir/$name.log" | sed 's/^/    | /'
		return 1
	fi
}

lanes_init "${FUZZ_JOBS:-2}"
for t in "$dir"/fuzz/fuzz_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d | *.o) continue ;; esac
	lanes_run "$(basename "$t")" fuzz_one "$t"
done
lanes_finish
echo "fuzz: $lanes_pass passed, $lanes_fail failed"
[ "$lanes_fail" -eq 0 ]
