# debs.sh - real Debian packages for the tests (sourced): att_fetch_debs
# DIR PKG... downloads the candidate version of each package with
# apt-get download into DIR, once (DIR is kept under the build dir, so
# later runs need no network).
att_fetch_debs() {
	dir=$1
	shift
	mkdir -p "$dir" || return 1
	for p in "$@"; do
		ls "$dir/${p}_"*.deb >/dev/null 2>&1 && continue
		(cd "$dir" && apt-get download -q "$p" >/dev/null 2>&1) || {
			echo "att_fetch_debs: apt-get download $p failed" >&2
			return 1
		}
	done
	# apt-get download as root writes files only root can read
	chmod a+r "$dir"/*.deb
}
