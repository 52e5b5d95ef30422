# tests/debfetch.sh - fetch Debian packages without installing them, for
# the stages that boot Debian's own kernels (tests/kvm/fetch.sh,
# tests/bench/linux/fetch.sh). Source it; every function returns non-zero
# with one line of reason on stderr (no network, no apt, no such package).
#
#   debfetch_init ARCH DIR  set DEB_ARCH (amd64, arm64) and DEB_APT (apt
#                           options); for an arch other than the machine's,
#                           a private apt state under DIR/apt, updated once
#                           per call, so the machine's dpkg architectures and
#                           lists stay as they are. Log: DIR/fetch.log.
#   debfetch_depends META   the linux-image-* package metapackage META names
#   debfetch_newest ERE     the highest-versioned package name matching ERE
#   debfetch_download DIR PKG...  apt-get download into DIR/debs (emptied)
#   debfetch_unpack DIR PKG DEST PATH...  extract PATHs (tar wildcards) of
#                           DIR/debs/PKG_*.deb into DEST

debfetch_init() {
	case $1 in
	x86_64) DEB_ARCH=amd64 ;;
	arm64) DEB_ARCH=arm64 ;;
	*) echo "unknown arch $1" >&2; return 1 ;;
	esac
	command -v apt-get >/dev/null || { echo "apt-get is not available" >&2; return 1; }
	# Absolute: apt takes a relative Dir::State::Lists as relative to /var/lib/apt.
	DEB_DIR=$(mkdir -p "$2" && cd "$2" && pwd) || return 1
	DEB_LOG=$DEB_DIR/fetch.log
	: >>"$DEB_LOG"
	DEB_APT=""
	[ "$DEB_ARCH" = "$(dpkg --print-architecture)" ] && return 0
	st=$DEB_DIR/apt
	mkdir -p "$st/lists/partial" "$st/cache/archives/partial" || return 1
	: >"$st/status"
	DEB_APT="-o APT::Architecture=$DEB_ARCH -o APT::Architectures=$DEB_ARCH
		-o Dir::State::Lists=$st/lists -o Dir::Cache=$st/cache -o Dir::State::status=$st/status"
	# shellcheck disable=SC2086
	apt-get $DEB_APT -q update >>"$DEB_LOG" 2>&1 ||
		{ echo "apt-get update ($DEB_ARCH lists): $(tail -n 1 "$DEB_LOG")" >&2; return 1; }
	# It exits 0 when every mirror failed (no network): look at the lists.
	ls "$st"/lists/*_Packages* >/dev/null 2>&1 || {
		echo "apt-get update ($DEB_ARCH lists) got none: $(grep -A1 '^Err:' "$DEB_LOG" | head -n 2 | tr -s ' \n' ' ')" >&2
		return 1
	}
}

debfetch_depends() {
	# shellcheck disable=SC2086
	p=$(apt-cache $DEB_APT depends "$1" 2>>"$DEB_LOG" |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
	[ -n "$p" ] || { echo "cannot resolve $1 with apt-cache ($(grep -E '^(E|W|Err):' "$DEB_LOG" | tail -n 1))" >&2; return 1; }
	echo "$p"
}

debfetch_newest() {
	# shellcheck disable=SC2086
	p=$(apt-cache $DEB_APT pkgnames 2>>"$DEB_LOG" | grep -E "$1" | sort -V | tail -n 1)
	[ -n "$p" ] || { echo "no package matches $1 in the $DEB_ARCH lists" >&2; return 1; }
	echo "$p"
}

debfetch_download() {
	d=$1
	shift
	echo "fetching $* ($DEB_ARCH)" >>"$DEB_LOG"
	mkdir -p "$d/debs" || return 1
	# shellcheck disable=SC2086
	(cd "$d/debs" && rm -f ./*.deb && apt-get $DEB_APT -q download "$@") >>"$DEB_LOG" 2>&1 ||
		{ echo "apt-get download $*: $(grep -E '^(E|W):' "$DEB_LOG" | tail -n 1)" >&2; return 1; }
}

debfetch_unpack() {
	deb=$(ls "$1"/debs/"$2"_*.deb) && dest=$3 && shift 3 && mkdir -p "$dest" &&
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" --wildcards "$@" >>"$DEB_LOG" 2>&1 ||
		{ echo "unpacking $(basename "${deb:-$2}") failed" >&2; return 1; }
}
