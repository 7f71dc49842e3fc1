# lanes.sh - a small job pool for the test runners (bash; sourced).
#
#   lanes_init N        at most N jobs at once (N < 1 or not a number: 1)
#   lanes_run NAME CMD  runs CMD in the background once a lane is free; its
#                       stdout and stderr are kept and printed, whole, when
#                       it ends, so the lines of two jobs never interleave
#   lanes_finish        waits for every job; sets lanes_pass, lanes_fail and
#                       lanes_failed (the failed NAMEs, sorted)
#
# A job's exit status decides pass or fail. Jobs print in the order they
# end. Each job must use its own scratch files and ports.
lanes_init() {
	lanes_max=$1
	case "$lanes_max" in '' | *[!0-9]* | 0) lanes_max=1 ;; esac
	lanes_dir=$(mktemp -d)
	lanes_running=0
	lanes_pass=0
	lanes_fail=0
	lanes_failed=""
	trap 'rm -rf "$lanes_dir"' EXIT
}

lanes_collect() {
	local f name rc
	for f in "$lanes_dir"/*.rc; do
		[ -e "$f" ] || continue
		name=$(basename "$f" .rc)
		read -r rc <"$f"
		rm -f "$f"
		lanes_running=$((lanes_running - 1))
		cat "$lanes_dir/$name.out"
		rm -f "$lanes_dir/$name.out"
		if [ "$rc" -eq 0 ]; then
			lanes_pass=$((lanes_pass + 1))
		else
			lanes_fail=$((lanes_fail + 1))
			echo "$name" >>"$lanes_dir/failed"
		fi
	done
}

lanes_wait_below() {
	while [ "$lanes_running" -ge "$1" ]; do
		wait -n 2>/dev/null
		lanes_collect
	done
}

lanes_run() {
	local name=$1
	shift
	lanes_wait_below "$lanes_max"
	(
		"$@" >"$lanes_dir/$name.out" 2>&1
		echo $? >"$lanes_dir/$name.tmp"
		mv "$lanes_dir/$name.tmp" "$lanes_dir/$name.rc"
	) &
	lanes_running=$((lanes_running + 1))
}

lanes_finish() {
	wait
	lanes_collect
	[ -f "$lanes_dir/failed" ] &&
		lanes_failed=$(sort "$lanes_dir/failed" | tr '\n' ' ')
	return 0
}
