#!/bin/sh
# lib_layers.sh - libattest's folders depend one way (common/module.mk):
# base uses base only; ima, tpm and boot use base and themselves; policy
# may use them all. Every #include "..." of every file in common/src/*/
# and common/include/attest/ is checked against the layer of the header it
# names; a header of no layer, a folder of no layer, or a file's own
# folder's header that is not there fails too. Prints one line a breach
# and the closing count; exits 1 on any.
set -u
S=${ATT_SRC:?}/common

# The layer of each public header (common/include/attest/NAME.h).
layer_of_header() {
	case $1 in
	buf | rd | err | log | codec | json | jsonpull | utf8 | kvconf | digest | pcrs | http) echo base ;;
	ima | lattice | replay) echo ima ;;
	tpm_key | tpm_quote | tpm_cred | tpm_ek | tpm_esys) echo tpm ;;
	uefi | boot) echo boot ;;
	whitelist | check | check_json) echo policy ;;
	*) echo "" ;;
	esac
}

# may FROM TO: 0 when a file of layer FROM may include one of layer TO.
may() {
	[ "$1" = "$2" ] && return 0
	case $1:$2 in
	ima:base | tpm:base | boot:base) return 0 ;;
	policy:base | policy:ima | policy:tpm | policy:boot) return 0 ;;
	esac
	return 1
}

checked=0
bad=0
breach() {
	bad=$((bad + 1))
	echo "FAIL $*"
}

# check FILE LAYER: every quoted include of FILE.
check() {
	f=$1
	from=$2
	dir=$(dirname "$f")
	checked=$((checked + 1))
	# shellcheck disable=SC2013 # one include a line
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $inc in
		attest/*.h)
			h=${inc#attest/}
			to=$(layer_of_header "${h%.h}")
			if [ -z "$to" ]; then
				breach "$f: $inc has no layer (add it to tests/unit/lib_layers.sh)"
			elif ! may "$from" "$to"; then
				breach "$f ($from) includes $inc ($to)"
			fi
			;;
		../../../kernel/slim_wire.h)
			# the wire format shared with slim.ko (attest/lattice.h)
			[ "$f" = "$S/include/attest/lattice.h" ] ||
				breach "$f: $inc is for attest/lattice.h only"
			;;
		*/*)
			breach "$f: $inc reaches into another folder"
			;;
		*)
			[ -f "$dir/$inc" ] ||
				breach "$f: $inc is not in its own folder $dir"
			;;
		esac
	done
}

for d in "$S"/src/*/; do
	layer=$(basename "$d")
	case $layer in
	base | ima | tpm | boot | policy) ;;
	*) breach "common/src/$layer: a folder of no layer" ;;
	esac
	for f in "$d"*.c "$d"*.h; do
		[ -f "$f" ] && check "$f" "$layer"
	done
done
for f in "$S"/src/*.c "$S"/src/*.h; do
	[ -f "$f" ] && breach "$f: outside the layer folders"
done
for f in "$S"/include/attest/*.h; do
	n=$(basename "$f" .h)
	layer=$(layer_of_header "$n")
	if [ -z "$layer" ]; then
		breach "$f: a header of no layer"
		continue
	fi
	check "$f" "$layer"
done
[ "$checked" -gt 60 ] || breach "only $checked files checked: the tree moved?"
echo "lib_layers: $checked files checked, $bad breaches"
[ "$bad" -eq 0 ]
