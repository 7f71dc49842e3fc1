#!/bin/sh
# deb.sh SRC OUT [VERSION] - the Debian packages (attest-agent,
# attest-verifier, attest-tools, slim-dkms) with dpkg-buildpackage, from a
# copy of the tree in OUT/src (the build tree is kept between runs, so a
# second version builds only what changed); the .debs, .buildinfo and
# .changes land in OUT/VERSION/, and lintian's report in
# OUT/VERSION/lintian.txt (printed; lintian errors fail the build).
#
# VERSION defaults to the project's (the file VERSION, which must match
# the top entry of debian/changelog). Another VERSION (the upgrade test
# builds an older one, e.g. 0.1.0~prev1) gets a one-entry changelog in the
# copy.
set -eu
SRC=$(cd "${1:?usage: deb.sh SRC OUT [VERSION]}" && pwd)
OUT=${2:?usage: deb.sh SRC OUT [VERSION]}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
proj=$(cat "$SRC/VERSION")
VERSION=${3:-$proj}
top=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
if [ "$top" != "$proj" ]; then
	echo "deb: debian/changelog's version $top is not VERSION's $proj" >&2
	exit 1
fi
stage=$OUT/src/attest
mkdir -p "$stage"
# the tree without .git and build outputs (OUT may be inside SRC)
(cd "$SRC" && tar --exclude=./.git --exclude=./build --exclude="./${OUT#"$SRC"/}" \
	--exclude='*.o' --exclude='*.ko' -cf - .) | (cd "$stage" && tar -xpf -)
if [ "$VERSION" != "$proj" ]; then
	cat >"$stage/debian/changelog" <<EOF
attest ($VERSION) bookworm; urgency=medium

  * Built by mk/deb.sh as version $VERSION of the tree of $proj.

 -- attest developers <attest-dev@lists.attest-project.org>  $(date -R)
EOF
fi
echo "deb: dpkg-buildpackage $VERSION in $stage"
# what an earlier build listed (-nc keeps it): this build's packages only
rm -f "$stage/debian/files" "$stage/debian/"*.substvars
rm -f "$OUT/src/"*.deb "$OUT/src/"*.ddeb "$OUT/src/"*.changes "$OUT/src/"*.buildinfo
# -nc: keep debian/build (objects) from an earlier run; -b: binary only
(cd "$stage" && dpkg-buildpackage -b -nc -us -uc) >"$OUT/build-$VERSION.log" 2>&1 || {
	tail -n 40 "$OUT/build-$VERSION.log" >&2
	echo "deb: dpkg-buildpackage failed, log $OUT/build-$VERSION.log" >&2
	exit 1
}
dest=$OUT/$VERSION
rm -rf "$dest"
mkdir -p "$dest"
mv "$OUT/src/"*.deb "$OUT/src/"*.changes "$OUT/src/"*.buildinfo "$dest/"
ls "$dest"
changes=$(ls "$dest"/*.changes)
# lintian: its exit status is 1 on an error (warnings are printed)
lrc=0
lintian --info --display-info \
	"$changes" >"$dest/lintian.txt" 2>&1 || lrc=$?
echo "deb: lintian ($(grep -c . "$dest/lintian.txt") lines, exit $lrc):"
sed 's/^/    /' "$dest/lintian.txt"
[ $lrc = 0 ]
