#!/usr/bin/env bash
# install-servers.sh: install or build the pinned Redis/Valkey server builds that
# respcheck's tests run against, cached outside the repository.
#
#   scripts/install-servers.sh                      # all pinned builds
#   scripts/install-servers.sh --only redis-8.6.3   # a subset (comma-separated)
#   scripts/install-servers.sh --list               # "name version path" per installed build,
#                                                   # "name in-progress pid N (...)" per lock held (a build,
#                                                   # or the cache's apt, clients or schemas lock)
#   scripts/install-servers.sh -q                   # quiet: one line per build, errors, paths
#
# Layout: ${RESPCHECK_CACHE:-$HOME/.cache/respcheck}/servers/<family>-<version>/bin/<family>-server
# with a .stamp file (how it was made; for a source build the SHA-256 of the source
# tarball it was built from: a different tarball is built again). A build is made in
# private temporary folders and renamed into place with its stamp when complete, so a
# killed or failed build never leaves a tree that looks installed; rerunning takes seconds.
# Two copies may run at once (another checkout, CI): package installs and downloads
# take the cache's "apt" lock, each build its own lock (locks/NAME.lock); the second
# copy says what it waits for and whose PID, then finds the build done.
#
# Sources (all Debian, no other network needed): the pins are runner/servers/pinned.tsv,
# one line a build (name, how it is installed, Debian source package, version, suite),
# which Go embeds (servers.Pinned): edit that file to move a pin.
# The extra suites are reached through a private APT_CONFIG under the cache; the system's
# apt sources are never edited. Needs root for apt-get install (except --list).
set -euo pipefail

# ---- pins -------------------------------------------------------------------
PINS="$(dirname "${BASH_SOURCE[0]}")/../runner/servers/pinned.tsv"
[ -r "$PINS" ] || { echo "install-servers: ERROR: $PINS is missing" >&2; exit 1; }
# pins [INSTALL]: the lines of the pinned builds (of that install kind), comments dropped.
pins() { awk -v k="${1:-}" '!/^#/ && NF == 5 && (k == "" || $2 == k)' "$PINS"; }
# pin_names [INSTALL]: their names, comma-separated.
pin_names() { pins "${1:-}" | awk '{ printf "%s%s", (NR > 1 ? "," : ""), $1 }'; }
# install_kind NAME: apt, backports or source.
install_kind() { pins | awk -v n="$1" '$1 == n { print $2 }'; }
ALL_BUILDS=$(pin_names)
REDIS_APT_VERSION=$(pin_names apt)                # bookworm: redis-server redis-tools
REDIS_APT_VERSION=${REDIS_APT_VERSION#redis-}
VALKEY_BPO_VERSION=$(pin_names backports)        # bookworm-backports: valkey-server valkey-tools
VALKEY_BPO_VERSION=${VALKEY_BPO_VERSION#valkey-}
# Packages needed to unpack and build the source builds (TLS, no modules, no tcl).
BUILD_DEPS="build-essential dpkg-dev pkg-config xz-utils libssl-dev"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

CACHE="${RESPCHECK_CACHE:-$HOME/.cache/respcheck}"
SERVERS="$CACHE/servers"
APTDIR="$CACHE/apt"
LOGDIR="$CACHE/logs"
SRCDIR="$CACHE/src"
BUILDDIR="$CACHE/build"
LOCKDIR="$CACHE/locks"
RUN_NAME=install-servers
# with_lock, lock_busy, lock_holder: scripts/lib/lock.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/lock.sh"

QUIET=0
ONLY=""
LIST=0

usage() {
	sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case "$1" in
	--only) [ $# -ge 2 ] || { echo "install-servers: --only needs a value" >&2; exit 2; }
		ONLY="$2"; shift 2 ;;
	--only=*) ONLY="${1#--only=}"; shift ;;
	--list) LIST=1; shift ;;
	-q | --quiet) QUIET=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "install-servers: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done

say() { [ "$QUIET" = 1 ] || echo "install-servers: $*"; }
out() { echo "install-servers: $*"; }
die() { echo "install-servers: ERROR: $*" >&2; exit 1; }

# ---- --list -------------------------------------------------------------------
if [ "$LIST" = 1 ]; then
	[ -d "$SERVERS" ] || exit 0
	for d in "$SERVERS"/*/; do
		[ -f "$d.stamp" ] || continue
		name=$(basename "$d")
		fam=${name%%-*}
		echo "$name ${name#*-} ${d}bin/${fam}-server"
	done
	for f in "$LOCKDIR"/*.lock; do
		[ -e "$f" ] || continue
		name=$(basename "$f" .lock)
		lock_busy "$name" || continue
		echo "$name in-progress $(lock_holder "$f")"
	done
	exit 0
fi

# ---- selection ------------------------------------------------------------------
WANT="${ONLY:-$ALL_BUILDS}"
IFS=',' read -r -a WANTED <<<"$WANT"
for b in "${WANTED[@]}"; do
	case ",$ALL_BUILDS," in
	*",$b,"*) ;;
	*) die "unknown build '$b' (pinned: $ALL_BUILDS)" ;;
	esac
done

[ "$(id -u)" = 0 ] || die "must run as root (apt-get install); use sudo"
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$SERVERS" "$LOGDIR" "$SRCDIR" "$BUILDDIR"

# Run a noisy command with its output in a log; on failure show the log's tail.
LOG=""
# run: scripts/lib/run-logged.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/run-logged.sh"

# ---- system apt -----------------------------------------------------------------
# A policy-rc.d that forbids starting services while packages install (no stray
# redis-server on :6379). An existing one is left alone; ours is removed on exit.
OUR_POLICY=""
cleanup() {
	if [ -n "$OUR_POLICY" ]; then rm -f /usr/sbin/policy-rc.d; fi
}
trap cleanup EXIT
forbid_services() {
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\n# written by respcheck install-servers.sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		OUR_POLICY=1
	fi
}

SYS_UPDATED=0
sys_update() {
	if [ "$SYS_UPDATED" = 0 ]; then
		say "apt-get update (system sources)"
		run apt-get update
		SYS_UPDATED=1
	fi
}
installed_pkg() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}
# sys_install PKG...: apt-get install those not yet installed (after one apt-get update).
sys_install() {
	local missing=() p
	for p in "$@"; do
		case "$p" in
		*=*) missing+=("$p") ;;
		*) installed_pkg "$p" || missing+=("$p") ;;
		esac
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	sys_update
	forbid_services
	say "apt-get install ${missing[*]}"
	run apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends --allow-downgrades "${missing[@]}"
}

# ---- private apt (bookworm-backports, sid, experimental) ------------------------
# detect_mirror: scripts/lib/debian-mirror.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/debian-mirror.sh"

PRIV_READY=0
PRIV_UPDATED=0
priv_setup() {
	[ "$PRIV_READY" = 0 ] || return 0
	[ -r "$KEYRING" ] || sys_install debian-archive-keyring
	local mirror
	mirror=$(detect_mirror)
	mirror=${mirror%/}
	mkdir -p "$APTDIR/sources.list.d" "$APTDIR/preferences.d" "$APTDIR/state/lists/partial" \
		"$APTDIR/cache/archives/partial"
	# Binary index only where a binary is needed (backports); sources for the builds.
	# (No "deb" for sid/experimental: their Packages indexes are large and unused.)
	cat >"$APTDIR/sources.list.new" <<EOF
deb [signed-by=$KEYRING] $mirror bookworm-backports main
deb-src [signed-by=$KEYRING] $mirror trixie main
deb-src [signed-by=$KEYRING] $mirror sid main
deb-src [signed-by=$KEYRING] $mirror experimental main
EOF
	if ! cmp -s "$APTDIR/sources.list.new" "$APTDIR/sources.list" 2>/dev/null; then
		mv "$APTDIR/sources.list.new" "$APTDIR/sources.list"
		rm -f "$APTDIR/state/lists/"*_* "$APTDIR/cache/"*.bin
	else
		rm -f "$APTDIR/sources.list.new"
	fi
	write_apt_conf "$APTDIR" scripts/install-servers.sh
	PRIV_READY=1
}
papt() { APT_CONFIG="$APTDIR/apt.conf" "$@"; }
priv_update() {
	if [ "$PRIV_UPDATED" = 0 ]; then
		say "apt-get update (private: bookworm-backports, trixie, sid, experimental)"
		run papt apt-get update
		PRIV_UPDATED=1
	fi
}
# have_src PKG DEBVER: is that exact source version in the private indexes?
# (grep reads all of showsrc's output: with -q it would stop at the first match and
# apt-cache's SIGPIPE would fail the pipeline when another version follows.)
have_src() {
	papt apt-cache showsrc "$1" 2>/dev/null | grep -x "Version: $2" >/dev/null
}
# bpo_version PKG UPSTREAM: newest backports version of PKG whose upstream part is UPSTREAM.
bpo_version() {
	local up="${2//./\\.}"
	papt apt-cache madison "$1" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
		grep -E "^([0-9]+:)?${up}([+~-]|$)" | head -n1 || true
}

# ---- helpers ----------------------------------------------------------------------
# server_version BIN: "7.0.15" from "Redis server v=7.0.15 sha=..." (or Valkey).
server_version() {
	"$1" --version 2>/dev/null | sed -n 's/.* v=\([^ ]*\).*/\1/p' | head -n1
}
# is_cached NAME: stamp present and the binary still reports the pinned version;
# a source build must also have been built with TLS (its stamp says tls=yes:
# the TLS cluster tests need tls-port), else it is built again.
is_cached() {
	local dir="$SERVERS/$1" fam="${1%%-*}" ver="${1#*-}"
	[ -f "$dir/.stamp" ] && [ -x "$dir/bin/$fam-server" ] &&
		[ "$(server_version "$dir/bin/$fam-server")" = "$ver" ] || return 1
	case "$(install_kind "$1")" in
	source)
		grep -qx 'tls=yes' "$dir/.stamp" || return 1
		# Keyed by the source's SHA-256: a stamp of another tarball than the
		# cached one is rebuilt (a stamp without one predates the key: kept).
		local want have
		have=$(sed -n 's/^source-sha256=//p' "$dir/.stamp")
		want=$(src_sha256 "$1")
		[ -z "$have" ] || [ -z "$want" ] || [ "$have" = "$want" ] ;;
	esac
}
# src_sha256 NAME: SHA-256 of the cached source tarball of NAME, or nothing.
src_sha256() {
	local f
	f=$(ls "$SRCDIR/$1"/*.orig.tar.* 2>/dev/null | head -n1 || true)
	[ -z "$f" ] || sha256sum "$f" | cut -d' ' -f1
}
stamp() { # stamp NAME HOW [DIR]: DIR (default the build's folder) gets its .stamp
	printf 'name=%s\nhow=%s\ndate=%s\n' "$1" "$2" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"${3:-$SERVERS/$1}/.stamp"
}
# put_in_place NAME TMP: TMP (complete, stamped) becomes $SERVERS/NAME. The
# caller holds NAME's lock; the old folder is moved aside first, so --list
# never sees a half tree under the build's name.
put_in_place() {
	local dir="$SERVERS/$1"
	if [ -e "$dir" ]; then
		mv "$dir" "$2.old"
		rm -rf "$2.old"
	fi
	mv "$2" "$dir"
}
check_libs() { # check_libs BIN: fail if a shared library is missing
	local missing
	missing=$(ldd "$1" 2>&1 | grep 'not found' || true)
	[ -z "$missing" ] || die "$1 is missing shared libraries:
$missing"
}

# ---- redis (install "apt" in pinned.tsv): Debian bookworm packages ------------------
install_redis_apt() {
	local name="redis-$REDIS_APT_VERSION" v have=""
	local dir="$SERVERS/$name"
	if [ -x /usr/bin/redis-server ]; then have=$(server_version /usr/bin/redis-server); fi
	if [ "$have" != "$REDIS_APT_VERSION" ]; then
		sys_update
		v=$(apt-cache madison redis-server | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
			grep -E "^([0-9]+:)?${REDIS_APT_VERSION//./\\.}([+~-]|$)" | head -n1 || true)
		[ -n "$v" ] || die "Debian package redis-server $REDIS_APT_VERSION is not available from the system's apt sources (apt-cache madison redis-server); update its line in runner/servers/pinned.tsv"
		sys_install "redis-server=$v" "redis-tools=$v"
		have=$(server_version /usr/bin/redis-server)
		[ "$have" = "$REDIS_APT_VERSION" ] ||
			die "redis-server --version reports '$have' after installing redis-server=$v, expected $REDIS_APT_VERSION"
		RESULT="installed (Debian redis-server $v)"
	else
		RESULT="installed (Debian package already present)"
	fi
	local tmp
	tmp=$(mktemp -d "$SERVERS/.$name.XXXXXX")
	mkdir -p "$tmp/bin"
	ln -s /usr/bin/redis-server "$tmp/bin/redis-server"
	ln -s /usr/bin/redis-cli "$tmp/bin/redis-cli"
	stamp "$name" "debian bookworm redis-server" "$tmp"
	put_in_place "$name" "$tmp"
}

# ---- valkey (install "backports" in pinned.tsv): bookworm-backports packages, extracted --
install_valkey_bpo() {
	local name="valkey-$VALKEY_BPO_VERSION" v deps
	local dir="$SERVERS/$name" tmp
	tmp=$(mktemp -d "$SERVERS/.$name.XXXXXX")
	priv_setup
	v=$(bpo_version valkey-server "$VALKEY_BPO_VERSION")
	if [ -z "$v" ]; then
		priv_update
		v=$(bpo_version valkey-server "$VALKEY_BPO_VERSION")
	fi
	[ -n "$v" ] || die "Debian package valkey-server $VALKEY_BPO_VERSION is no longer in bookworm-backports on $(detect_mirror); update its line in runner/servers/pinned.tsv"
	mkdir -p "$tmp/dl" "$tmp/root" "$tmp/bin"
	say "$name: apt-get download valkey-server=$v valkey-tools=$v"
	if ! (cd "$tmp/dl" && papt apt-get download "valkey-server=$v" "valkey-tools=$v" >>"$LOG" 2>&1); then
		[ "$PRIV_UPDATED" = 0 ] || die "apt-get download valkey-server=$v failed (log: $LOG)"
		priv_update # stale lists from an earlier run
		v=$(bpo_version valkey-server "$VALKEY_BPO_VERSION")
		[ -n "$v" ] || die "Debian package valkey-server $VALKEY_BPO_VERSION is no longer in bookworm-backports on $(detect_mirror); update its line in runner/servers/pinned.tsv"
		rm -f "$tmp"/dl/*
		(cd "$tmp/dl" && run papt apt-get download "valkey-server=$v" "valkey-tools=$v")
	fi
	local deb
	for deb in "$tmp"/dl/*.deb; do run dpkg-deb -x "$deb" "$tmp/root"; done
	# The binary's library dependencies come from bookworm itself.
	deps=$(for deb in "$tmp"/dl/*.deb; do dpkg-deb -f "$deb" Depends; done | tr ',' '\n' |
		sed 's/|.*//; s/(.*)//; s/:any//; s/[[:space:]]//g' | grep -v -E '^(valkey-|adduser$|lsb-base$|$)' | sort -u)
	# shellcheck disable=SC2086
	sys_install $deps
	# Debian ships valkey-server as a symlink to valkey-check-rdb (one binary that looks at
	# argv[0]); resolve absolute links inside the extracted tree.
	local f t
	for f in valkey-server valkey-cli; do
		t="usr/bin/$f"
		if [ -L "$tmp/root/$t" ]; then
			t=$(readlink "$tmp/root/$t")
			case "$t" in /*) t="${t#/}" ;; *) t="usr/bin/$t" ;; esac
		fi
		[ -e "$tmp/root/$t" ] || die "$f not found in the extracted valkey packages ($t)"
		ln -s "../root/$t" "$tmp/bin/$f"
	done
	rm -rf "$tmp/dl"
	check_libs "$tmp/bin/valkey-server"
	# The links point at ../root, so the version is asked once in place.
	stamp "$name" "debian bookworm-backports valkey-server $v, extracted" "$tmp"
	put_in_place "$name" "$tmp"
	[ "$(server_version "$dir/bin/valkey-server")" = "$VALKEY_BPO_VERSION" ] || {
		rm -f "$dir/.stamp"
		die "$dir/bin/valkey-server --version reports '$(server_version "$dir/bin/valkey-server")', expected $VALKEY_BPO_VERSION"
	}
	RESULT="installed (bookworm-backports $v, extracted into the cache)"
}

# ---- source builds (install "source" in pinned.tsv) ----------------------------------------
# orig_sha256 PKG DEBVER FILE: the SHA-256 the private Sources index gives for FILE.
orig_sha256() {
	papt apt-cache showsrc "$1" 2>/dev/null | awk -v v="$2" -v f="$3" '
		/^Package:/ { ours = 0 }
		$1 == "Version:" { ours = ($2 == v) }
		ours && /^Checksums-Sha256:/ { on = 1; next }
		/^[^ ]/ { on = 0 }
		on && $3 == f { print $1; exit }'
}
# fetch_src NAME SRCPKG DEBVER SUITE: download the source package into $SRCDIR/NAME, kept
# there (.complete) so a rebuild needs no mirror. When the mirror lacks the .dsc and
# Debian's diff but has the upstream tarball (trixie's valkey 8.1.1+dfsg1-3+deb13u3: its
# .dsc is a 404 on deb.debian.org while the Sources index lists it), the tarball alone
# is kept once its SHA-256 matches the index: the build uses the upstream tree anyway.
fetch_src() {
	local name="$1" pkg="$2" debver="$3" suite="$4" src="$SRCDIR/$1" orig sum
	[ -f "$src/.complete" ] && return 0
	priv_setup
	# A dot folder: install-schemas.sh and install-clients.sh read src/NAME/ only.
	rm -rf "$src" "$SRCDIR/.$1.part".*
	src=$(mktemp -d "$SRCDIR/.$1.part.XXXXXX")
	say "$name: apt-get source --download-only $pkg=$debver ($suite)"
	# Lists from an earlier run may be stale (version gone from the pool): on any
	# failure refresh them once, then say clearly whether the pin is still there.
	if have_src "$pkg" "$debver" &&
		(cd "$src" && papt apt-get source --download-only "$pkg=$debver" >>"$LOG" 2>&1); then
		touch "$src/.complete"
		mv "$src" "$SRCDIR/$name"
		return 0
	fi
	priv_update
	have_src "$pkg" "$debver" ||
		die "Debian source package $pkg version $debver is no longer in $suite on $(detect_mirror); update its line in runner/servers/pinned.tsv"
	rm -rf "$src"
	mkdir -p "$src"
	if ! (cd "$src" && papt apt-get source --download-only "$pkg=$debver" >>"$LOG" 2>&1); then
		orig=$(cd "$src" && ls ./*.orig.tar.* 2>/dev/null | head -n1 || true)
		orig=${orig#./}
		sum=$(orig_sha256 "$pkg" "$debver" "$orig")
		[ -n "$orig" ] && [ -n "$sum" ] && echo "$sum  $src/$orig" | sha256sum -c --status ||
			die "apt-get source --download-only $pkg=$debver failed (log: $LOG)"
		say "$name: the mirror has only $orig of $pkg $debver (SHA-256 checked): building that"
		find "$src" -mindepth 1 ! -name "$orig" -delete
	fi
	touch "$src/.complete"
	mv "$src" "$SRCDIR/$name"
}
# build_src NAME SRCPKG DEBVER SUITE: build the downloaded source (fetch_src) with TLS and
# without modules, install server, cli and benchmark into the cache and stamp it.
build_src() {
	local name="$1" pkg="$2" debver="$3" suite="$4"
	local fam="${name%%-*}" dir="$SERVERS/$name" src="$SRCDIR/$name" bdir tmp
	local start=$SECONDS dsc orig f
	# Private folders: a killed build leaves only these (removed by the next
	# build of NAME, which holds its lock), never a tree under servers/NAME.
	rm -rf "$BUILDDIR/$name" "$BUILDDIR/$name".* "$SERVERS/.$name".*
	mkdir -p "$BUILDDIR"
	bdir=$(mktemp -d "$BUILDDIR/$name.XXXXXX")/tree
	# Upstream tree as released: Debian's patches (system jemalloc/lua/hiredis, ...) are skipped.
	dsc=$(ls "$src"/*.dsc 2>/dev/null | head -n1 || true)
	if [ -n "$dsc" ]; then
		run dpkg-source --no-check --skip-patches -x "$dsc" "$bdir"
	else
		orig=$(ls "$src"/*.orig.tar.* | head -n1)
		mkdir -p "$bdir"
		run tar -xf "$orig" -C "$bdir" --strip-components=1
	fi
	say "$name: make -j$MAKE_JOBS BUILD_WITH_MODULES=no BUILD_TLS=yes (log: $LOG)"
	run make -C "$bdir" -j"$MAKE_JOBS" BUILD_WITH_MODULES=no BUILD_TLS=yes
	tmp=$(mktemp -d "$SERVERS/.$name.XXXXXX")
	mkdir -p "$tmp/bin"
	for f in server cli benchmark; do
		install -m 755 "$bdir/src/$fam-$f" "$tmp/bin/$fam-$f"
	done
	check_libs "$tmp/bin/$fam-server"
	[ "$(server_version "$tmp/bin/$fam-server")" = "${name#*-}" ] ||
		die "$tmp/bin/$fam-server --version reports '$(server_version "$tmp/bin/$fam-server")', expected ${name#*-}"
	stamp "$name" "built from Debian $suite source $pkg $debver${orig:+ (upstream tarball only)}" "$tmp"
	printf 'tls=yes\nsource-sha256=%s\n' "$(src_sha256 "$name")" >>"$tmp/.stamp"
	put_in_place "$name" "$tmp"
	rm -rf "$(dirname "$bdir")"
	RESULT="built in $((SECONDS - start)) s (Debian $suite source $pkg $debver)"
}
# src_pin NAME: "SRCPKG DEBVER SUITE" of a source build, or nothing.
src_pin() { pins source | awk -v n="$1" '$1 == n { print $3, $4, $5 }'; }

# ---- main -----------------------------------------------------------------------------------
# Packages first, one at a time (apt and dpkg take locks), with every source download,
# under the cache's "apt" lock; then the source builds compile at once, each in its own
# process, log and lock, so a fresh machine waits for the longest build rather than
# their sum (on 2 CPUs the serial parts of one build -- configure of jemalloc, linking --
# leave a CPU to the others). At most $RESPCHECK_BUILD_SLOTS builds run at once (default:
# one per GiB of available memory beyond the first, at most 4; measured here: 4 at once
# with make -j2 on 2 CPUs, about 9 minutes for all four, each build's cc1 below 400 MB).
# RESPCHECK_SERIAL_BUILDS=1 builds one after the other; RESPCHECK_MAKE_JOBS sets make -j
# (default 2).
MAKE_JOBS="${RESPCHECK_MAKE_JOBS:-2}"
build_slots() {
	local mem
	if [ -n "${RESPCHECK_BUILD_SLOTS:-}" ]; then echo "$RESPCHECK_BUILD_SLOTS"; return; fi
	if [ "${RESPCHECK_SERIAL_BUILDS:-}" = 1 ]; then echo 1; return; fi
	mem=$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo 2>/dev/null || echo 2)
	mem=$((mem - 1))
	[ "$mem" -ge 1 ] || mem=1
	[ "$mem" -le 4 ] || mem=4
	echo "$mem"
}

# prepare NAME: install a package build, or download a source build's source and
# add NAME to BUILDS. Runs under the "apt" lock.
BUILDS=()
prepare() {
	local b="$1"
	LOG="$LOGDIR/$b.log"
	if is_cached "$b"; then
		out "$b: cached"
		return
	fi
	say "$b: installing (log: $LOG)"
	RESULT=""
	case "$(install_kind "$b")" in
	apt) : >"$LOG"; with_lock "$b" "$b" install_redis_apt ;;
	backports) : >"$LOG"; with_lock "$b" "$b" install_valkey_bpo ;;
	source)
		# Not emptied here: another installer may be building $b and
		# writing this log; build_one empties it under $b's lock.
		sys_install $BUILD_DEPS
		# shellcheck disable=SC2046
		fetch_src "$b" $(src_pin "$b")
		BUILDS+=("$b")
		return
		;;
	esac
	is_cached "$b" || die "$b: installed but $SERVERS/$b/bin/${b%%-*}-server does not report ${b#*-}"
	out "$b: $RESULT"
}
prepare_all() {
	local b
	for b in "${WANTED[@]}"; do prepare "$b"; done
}
with_lock apt "packages and downloads" prepare_all

# build_one NAME: build_src under NAME's lock (in a child process); a build that another
# installer finished while this one waited is not built again.
build_one() {
	LOG="$LOGDIR/$1.log"
	RESULT=""
	if is_cached "$1"; then
		out "$1: cached (built by another installer)"
		return
	fi
	: >"$LOG"
	# shellcheck disable=SC2046
	build_src "$1" $(src_pin "$1")
	is_cached "$1" || die "$1: installed but $SERVERS/$1/bin/${1%%-*}-server does not report ${1#*-}"
	out "$1: $RESULT"
}
SLOTS=$(build_slots)
PIDS=()
FAILED=0
for b in "${BUILDS[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$SLOTS" ]; do wait -n || FAILED=1; done
	with_lock "$b" "$b: build" build_one "$b" &
	PIDS+=("$!")
done
for p in "${PIDS[@]}"; do wait "$p" || FAILED=1; done
[ "$FAILED" = 0 ] || die "a source build failed (see the messages above)"

for b in "${WANTED[@]}"; do
	echo "$SERVERS/$b/bin/${b%%-*}-server"
done
