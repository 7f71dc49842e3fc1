#!/bin/sh
# fleet-cmd.sh DIR N COMMAND - sends COMMAND to guest N of a fleet left
# running by `make demo KEEP=1` (DIR is the demo's directory) and waits
# until the guest acknowledges it on its console.
#
# Commands (tests/vm/guest/fleet-init):
#   run-unknown   run /root/unknown-tool, a script on no whitelist
#   load-module   insmod /opt/extra/dummy.ko, a module on no whitelist
#   demote        a SYSTEM task reads a file labelled UNTRUSTED (a demotion
#                 in the guest's lattice state; the host stays trusted)
#   permissive    slimctl mode permissive (the host turns untrusted)
#   reload        remove slim.ko and load it again (untrusted: "module
#                 reloaded in this boot", until the next boot)
#   reboot        reboot the guest (same swtpm, new boot)
#   poweroff      power the guest off
# Exit status: 0 acknowledged, 1 not acknowledged within 60 s, 2 usage.
set -u
case "${1:-}" in
-h | --help | '')
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
	[ -n "${1:-}" ]
	exit $((2 * $?))
	;;
esac
[ $# -eq 3 ] || {
	echo "usage: fleet-cmd.sh DIR N COMMAND" >&2
	exit 2
}
FLEET_DIR=$1
case "$3" in
run-unknown | load-module | demote | permissive | reload | reboot | poweroff) ;;
*)
	echo "fleet-cmd.sh: unknown command '$3'" >&2
	exit 2
	;;
esac
[ -S "$FLEET_DIR/g$2/cmd.sock" ] || {
	echo "fleet-cmd.sh: no guest $2 in $FLEET_DIR" >&2
	exit 2
}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/vm/fleet.sh"
fleet_cmd "$2" "$3"
