#!/bin/sh
# bench/deb.sh RELDIR - whitelists from Debian packages: attest-whitelist
# create --deb over N real packages (apt-get download, kept in
# RELDIR/../bench-debs) against dpkg-deb --fsys-tarfile | tar -x then
# sha256sum of every file, and a re-run of create --apt-repo --cache over
# an unchanged local repository signed here. Best of BENCH_REPEAT (3).
# BENCH_DEBS overrides the package list.
set -eu
B=${1:?usage: bench/deb.sh BUILD/rel}
here=$(cd "$(dirname "$0")" && pwd)
W="$B/bin/attest-whitelist"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
repeat=${BENCH_REPEAT:-3}
pkgs=${BENCH_DEBS:-"libc6 libc-bin coreutils bash perl-base perl-modules-5.36
 libperl5.36 python3.11-minimal libpython3.11-minimal libpython3.11-stdlib
 systemd libsystemd-shared util-linux openssl libssl3 binutils-x86-64-linux-gnu
 libstdc++6 vim-runtime git cpp-12 libgcc-s1 tar gzip findutils grep sed
 dpkg apt libapt-pkg6.0 e2fsprogs"}
D="$B/../bench-debs"
. "$here/../tests/lib/debs.sh"
# shellcheck disable=SC2086
att_fetch_debs "$D" $pkgs
files=$(ls "$D"/*.deb | tr '\n' ' ')
n=$(ls "$D"/*.deb | wc -l)
mib=$(du -cm "$D"/*.deb | tail -n 1 | cut -f1)
cat "$D"/*.deb >/dev/null
echo
echo "bench: $n packages ($mib MiB of .deb), page cache warm; every file of each"
printf '%-9s %-8s %12s %12s %10s %10s %8s\n' packages tool seconds pkgs/s rss-MiB deb-MiB ratio
cat >"$T/ref.sh" <<EOF
set -e
rm -rf "$T/x" && mkdir "$T/x"
for f in "$D"/*.deb; do dpkg-deb --fsys-tarfile "\$f" | tar -x -C "$T/x"; done
find "$T/x" -type f -print0 | xargs -0 sha256sum >/dev/null
EOF
python3 "$here/measure.py" "$repeat" "$n" "$mib" \
	"attest" "$W create --deb $files --no-progress -o $T/deb.json" \
	"attest-j1" "$W create --deb $files -j 1 --no-progress -o $T/deb1.json" \
	"dpkg-tar" "sh $T/ref.sh"

# A local repository of the same packages, signed with a throwaway key.
export GNUPGHOME="$T/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg -q --batch --passphrase '' --quick-gen-key "bench <bench@example.org>" ed25519 sign never 2>/dev/null
gpg -q --export bench@example.org >"$T/key.gpg"
mkdir -p "$T/repo/pool"
ln "$D"/*.deb "$T/repo/pool/" 2>/dev/null || cp "$D"/*.deb "$T/repo/pool/"
(cd "$T/repo" && dpkg-scanpackages pool /dev/null 2>/dev/null | xz >Packages.xz &&
	{
		printf 'Suite: bench\nSHA256:\n'
		printf ' %s %s Packages.xz\n' "$(sha256sum Packages.xz | cut -d' ' -f1)" "$(stat -c %s Packages.xz)"
	} >Release && gpg -q --batch -u bench@example.org --clearsign -o InRelease Release)
"$W" create --apt-repo "$T/repo" --keyring "$T/key.gpg" --cache "$T/cache" --no-progress -o "$T/cold.json" 2>/dev/null
echo
echo "bench: create --apt-repo over the same $n packages: cold cache against a re-run (unchanged repository)"
printf '%-9s %-8s %12s %12s %10s %10s %8s\n' packages run seconds pkgs/s rss-MiB deb-MiB ratio
python3 "$here/measure.py" "$repeat" "$n" "$mib" \
	"rerun" "$W create --apt-repo $T/repo --keyring $T/key.gpg --cache $T/cache --no-progress -o $T/warm.json" \
	"cold" "sh -c 'rm -rf $T/c2 && $W create --apt-repo $T/repo --keyring $T/key.gpg --cache $T/c2 --no-progress -o $T/c2.json'"
cmp -s "$T/cold.json" "$T/warm.json" || { echo "bench: the re-run's whitelist differs"; exit 1; }
