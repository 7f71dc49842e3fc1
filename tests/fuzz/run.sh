#!/bin/sh
# run.sh FUZZDIR SECONDS - runs every libFuzzer target in FUZZDIR/fuzz for
# SECONDS each, from its seed corpus (tests/fuzz/corpus/NAME, copied: the
# repository's corpus is not modified) plus the regression inputs in
# tests/fuzz/regressions/NAME, which must all pass first; a dictionary
# tests/fuzz/fuzz_NAME.dict is passed when there is one. A crash fails the
# run and leaves the input in FUZZDIR/artifacts.
set -u
dir=$1
secs=${2:-15}
here=$(cd "$(dirname "$0")" && pwd)
pass=0
fail=0
[ -d "$dir/fuzz" ] || { echo "fuzz: no targets in $dir/fuzz (build them: make fuzz-build)"; echo "fuzz: 0 passed, 1 failed"; exit 1; }
mkdir -p "$dir/artifacts" "$dir/work"
for t in "$dir"/fuzz/fuzz_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d | *.o) continue ;; esac
	name=$(basename "$t")
	short=${name#fuzz_}
	work="$dir/work/$short"
	rm -rf "$work"
	mkdir -p "$work"
	[ -d "$here/corpus/$short" ] && cp -r "$here/corpus/$short/." "$work/"
	if [ -d "$here/regressions/$short" ] &&
		! "$t" "$here/regressions/$short"/* >"$dir/$name.regress.log" 2>&1; then
		fail=$((fail + 1))
		echo "FAIL  fuzz/$name: a regression input crashes again"
		tail -n 30 "$dir/$name.regress.log" | sed 's/^/    | /'
		continue
	fi
	set --
	[ -f "$here/$name.dict" ] && set -- -dict="$here/$name.dict"
	if "$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$dir/artifacts/$name-" -print_final_stats=1 \
		"$@" "$work" >"$dir/$name.log" 2>&1; then
		pass=$((pass + 1))
		runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/$name.log" | grep -o '[0-9]*$')
		echo "PASS  fuzz/$name (${secs}s, ${runs:-?} runs)"
	else
		fail=$((fail + 1))
		echo "FAIL  fuzz/$name, log follows:"
		tail -n 40 "$dir/$name.log" | sed 's/^/    | /'
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
