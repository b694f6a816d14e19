#!/usr/bin/env bash
# install-clients.sh: install the client libraries that "respcheck clients"
# drives through its external adapters, cached outside the repository.
#
#   node    adapters/node: ioredis 6.0.0 and 5.11.1, redis (node-redis)
#           6.3.1, 5.12.1 and 4.7.1, iovalkey 0.4.0 and @valkey/valkey-glide
#           2.5.2 at the exact versions of package-lock.json, the older
#           versions side by side under npm aliases (ioredis-5, redis-5,
#           redis-4: "npm:ioredis@5.11.1"...), from the npm registry (npm ci
#           into adapters/node/node_modules, which git ignores; npm's cache
#           under the respcheck cache); node adapters/node/adapter.js --list
#           names the configurations they make
#   python  redis-py 4.3.4: Debian bookworm's python3-redis (apt-get install)
#           hiredis-py 1.0.1: Debian bookworm's python3-hiredis (apt-get install),
#           the parser of redis-py-4.3.4+hiredis. redis-py 6.4.0 takes only
#           hiredis-py >= 3.2.0 (redis/utils.py), which Debian does not have
#           (sid: 2.3.2, built for Python >= 3.14), so 6.4.0 has no +hiredis
#           redis-py 6.4.0: Debian sid's python3-redis 6.4.0-3 (arch all, pure
#           Python), fetched with apt-get download through a private APT_CONFIG
#           and unpacked with dpkg-deb -x into the cache (no system install);
#           the adapter puts it on PYTHONPATH for /usr/bin/python3.11
#   hiredis hiredis 1.2.0: the deps/hiredis tree of the Redis 8.6.3 source package
#           that scripts/install-servers.sh keeps in its cache (src/redis-8.6.3,
#           fetched by it if missing), built static (make static) into the clients
#           cache, and adapters/hiredis/adapter.c compiled against it with gcc
#   locale  de_DE.UTF-8 compiled with localedef from Debian's locales (apt-get
#           install when missing) into the cache, for the configuration
#           hiredis-1.2.0[LC_ALL=de_DE.UTF-8] (LOCPATH; no system locale set up)
#   ruby    Ruby's redis gem 4.8.0: Debian bookworm's ruby-redis (apt-get install)
#   php     phpredis 5.3.7: Debian bookworm's php-cli and php-redis (apt-get install)
#   perl    Redis::Fast 0.34: Debian bookworm's libredis-fast-perl (apt-get install),
#           for adapters/perl, the example of an adapter written from
#           docs/adapters.md alone (not a built-in client: --adapter runs it)
#
# Layout: ${RESPCHECK_CACHE:-$HOME/.cache/respcheck}/clients/
#           adapters/       a copy of adapters/ with node_modules (a full run), for
#                           respcheck binaries run outside the checkout
#           python/redis-6.4.0/usr/lib/python3/dist-packages/redis
#           hiredis-1.2.0/hiredis/ (the built tree) and bin/hiredis-adapter
#           locale/de_DE.UTF-8/
#           apt/            private apt configuration, lists and archives (sid)
#           npm/            npm cache
#           logs/
# Idempotent: a second run only checks stamps. Needs root for apt-get install.
# Two copies may run at once (another checkout, CI): the second waits for the
# cache's "clients" lock (saying whose it is), apt-get for its "apt" lock, and
# every tree is made in a private temporary folder renamed into place.
# Usage: scripts/install-clients.sh [-q] [--only node|python|hiredis|locale|ruby|php|perl|adapters]
set -euo pipefail
# This file, named before the cd (for --help from another directory).
SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."

PY_SID_DEB_VERSION=6.4.0-3
PY_SID_VERSION=6.4.0
PY_BOOKWORM_VERSION=4.3.4
HIREDIS_VERSION=1.2.0         # deps/hiredis/hiredis.h of the Redis source below
HIREDIS_REDIS_SRC=8.6.3       # the Redis source package of scripts/install-servers.sh
RUBY_REDIS_VERSION=4.8.0      # bookworm ruby-redis
PHPREDIS_VERSION=5.3.7        # bookworm php-redis
REDIS_FAST_VERSION=0.34       # bookworm libredis-fast-perl
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

QUIET=0
ONLY=""
while [ $# -gt 0 ]; do
	case "$1" in
	-q) QUIET=1 ;;
	--only) [ $# -ge 2 ] || { echo "install-clients: --only needs a value" >&2; exit 2; }
		ONLY="$2"; shift ;;
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$SELF"; exit 0 ;;
	*) echo "install-clients: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

CACHE="${RESPCHECK_CACHE:-$HOME/.cache/respcheck}/clients"
APTDIR="$CACHE/apt"
LOGDIR="$CACHE/logs"
mkdir -p "$CACHE" "$LOGDIR"
LOG="$LOGDIR/install-clients.log"
export DEBIAN_FRONTEND=noninteractive
LOCKDIR="${RESPCHECK_CACHE:-$HOME/.cache/respcheck}/locks"

say() { [ "$QUIET" = 1 ] || echo "install-clients: $*"; }
die() { echo "install-clients: $*" >&2; exit 1; }
# run: scripts/lib/run-logged.sh
RUN_NAME=install-clients
. "$(dirname "${BASH_SOURCE[0]}")/lib/run-logged.sh"
# with_lock: scripts/lib/lock.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/lock.sh"
installed_pkg() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

# ---- node -----------------------------------------------------------------------
install_node() {
	command -v npm >/dev/null || die "npm not found (Node 20 is expected)"
	local dir=adapters/node stamp=adapters/node/node_modules/.respcheck-stamp want
	want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		say "node adapter: up to date"
		return
	fi
	say "npm ci (adapters/node)"
	(cd "$dir" && run npm ci --no-audit --no-fund --cache "$CACHE/npm")
	# Each dependency of package.json (aliases included) at its version.
	(cd "$dir" && node -e '
		const deps = require("./package.json").dependencies;
		for (const m of Object.keys(deps)) console.log(m + " " + require("./node_modules/" + m + "/package.json").version);
	') | while read -r m v; do say "node: $m $v"; done
	echo "$want" >"$stamp"
}

# ---- python ---------------------------------------------------------------------
# detect_mirror: scripts/lib/debian-mirror.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/debian-mirror.sh"

install_python() {
	[ -x /usr/bin/python3.11 ] || die "/usr/bin/python3.11 not found"
	# redis-py 4.3.4 and hiredis-py 1.0.1 from bookworm, into the system.
	local pkg v
	for pkg in python3-redis python3-hiredis; do
		installed_pkg "$pkg" && continue
		[ "$(id -u)" = 0 ] || die "must run as root to apt-get install $pkg"
		say "apt-get install $pkg (bookworm)"
		with_lock apt "apt-get install $pkg" apt_get_install "$pkg"
	done
	v=$(/usr/bin/python3.11 -c 'import redis; print(redis.__version__)')
	[ "$v" = "$PY_BOOKWORM_VERSION" ] || say "warning: system redis-py is $v, not $PY_BOOKWORM_VERSION"
	/usr/bin/python3.11 -c 'import redis.utils, sys; sys.exit(not redis.utils.HIREDIS_AVAILABLE)' ||
		die "redis-py $PY_BOOKWORM_VERSION does not see hiredis (python3-hiredis)"

	# redis-py 6.4.0 from sid, unpacked into the cache.
	local dest="$CACHE/python/redis-$PY_SID_VERSION"
	if [ -f "$dest/.stamp" ] && PYTHONPATH="$dest/usr/lib/python3/dist-packages" /usr/bin/python3.11 -c \
		"import redis,sys; sys.exit(redis.__version__ != '$PY_SID_VERSION')" 2>/dev/null; then
		say "redis-py $PY_SID_VERSION: up to date"
		return
	fi
	local mirror
	mirror=$(detect_mirror)
	mirror=${mirror%/}
	mkdir -p "$APTDIR/sources.list.d" "$APTDIR/preferences.d" "$APTDIR/state/lists/partial" \
		"$APTDIR/cache/archives/partial" "$APTDIR/download"
	echo "deb [signed-by=$KEYRING] $mirror sid main" >"$APTDIR/sources.list"
	write_apt_conf "$APTDIR" scripts/install-clients.sh 'APT::Architectures { "amd64"; };'
	local deb
	deb=$(ls "$APTDIR/download/python3-redis_${PY_SID_DEB_VERSION}_all.deb" 2>/dev/null || true)
	if [ -z "$deb" ]; then
		if ! APT_CONFIG="$APTDIR/apt.conf" apt-cache madison python3-redis 2>/dev/null |
			grep -q "| *$PY_SID_DEB_VERSION *|"; then
			say "apt-get update (private: sid)"
			run env APT_CONFIG="$APTDIR/apt.conf" apt-get update
		fi
		say "apt-get download python3-redis=$PY_SID_DEB_VERSION (sid)"
		(cd "$APTDIR/download" && run env APT_CONFIG="$APTDIR/apt.conf" apt-get download "python3-redis=$PY_SID_DEB_VERSION")
		deb="$APTDIR/download/python3-redis_${PY_SID_DEB_VERSION}_all.deb"
	fi
	local tmp
	rm -rf "$dest.tmp"
	tmp=$(mktemp -d "$CACHE/.redis-py.XXXXXX")
	run dpkg-deb -x "$deb" "$tmp"
	rm -rf "$dest"
	mkdir -p "$(dirname "$dest")"
	mv "$tmp" "$dest"
	v=$(PYTHONPATH="$dest/usr/lib/python3/dist-packages" /usr/bin/python3.11 -c 'import redis; print(redis.__version__)')
	[ "$v" = "$PY_SID_VERSION" ] || die "unpacked redis-py reports $v, not $PY_SID_VERSION"
	printf 'deb=%s\ndate=%s\n' "$(basename "$deb")" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$dest/.stamp"
}

# ---- hiredis --------------------------------------------------------------------
# hiredis_tarball: the upstream tarball of the Redis source package that
# install-servers.sh downloads for its redis build and keeps in its cache.
hiredis_tarball() {
	echo "${RESPCHECK_CACHE:-$HOME/.cache/respcheck}/src/redis-$HIREDIS_REDIS_SRC/redis_$HIREDIS_REDIS_SRC.orig.tar.gz"
}

install_hiredis() {
	local tarball dest="$CACHE/hiredis-$HIREDIS_VERSION" want v
	command -v gcc >/dev/null && command -v make >/dev/null || die "gcc and make are needed for hiredis (build-essential)"
	tarball=$(hiredis_tarball)
	if [ ! -f "$tarball" ]; then
		# install-servers.sh keeps the source of a build it made; without it the
		# build's stamp goes, so that it fetches the source (and rebuilds).
		say "hiredis: no Redis $HIREDIS_REDIS_SRC source in the cache; scripts/install-servers.sh fetches it"
		rm -rf "${RESPCHECK_CACHE:-$HOME/.cache/respcheck}/servers/redis-$HIREDIS_REDIS_SRC/.stamp"
		scripts/install-servers.sh -q --only "redis-$HIREDIS_REDIS_SRC" >/dev/null
		[ -f "$tarball" ] || die "$tarball missing after scripts/install-servers.sh --only redis-$HIREDIS_REDIS_SRC"
	fi
	want="$(sha256sum adapters/hiredis/adapter.c | cut -d' ' -f1) $(basename "$tarball")"
	if [ -x "$dest/bin/hiredis-adapter" ] && [ "$(sed -n 's/^want=//p' "$dest/.stamp" 2>/dev/null)" = "$want" ]; then
		say "hiredis $HIREDIS_VERSION: up to date"
		return
	fi
	say "hiredis $HIREDIS_VERSION: make static (deps/hiredis of $(basename "$tarball")), gcc adapters/hiredis/adapter.c"
	local tmp
	rm -rf "$dest.tmp" "$CACHE/.hiredis".*
	tmp=$(mktemp -d "$CACHE/.hiredis.XXXXXX")
	mkdir -p "$tmp/bin"
	run tar -xzf "$tarball" -C "$tmp" --strip-components=2 "redis-$HIREDIS_REDIS_SRC/deps/hiredis"
	v=$(awk '/#define HIREDIS_(MAJOR|MINOR|PATCH) /{ printf "%s%s", sep, $3; sep="." }' "$tmp/hiredis/hiredis.h")
	[ "$v" = "$HIREDIS_VERSION" ] || die "deps/hiredis of Redis $HIREDIS_REDIS_SRC is hiredis $v, not $HIREDIS_VERSION"
	run make -C "$tmp/hiredis" static
	run gcc -O2 -Wall -std=c11 -pthread -I"$tmp/hiredis" adapters/hiredis/adapter.c \
		"$tmp/hiredis/libhiredis.a" -lm -o "$tmp/bin/hiredis-adapter"
	printf 'want=%s\ndate=%s\n' "$want" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp/.stamp"
	rm -rf "$dest"
	mv "$tmp" "$dest"
}

# ---- locale: de_DE.UTF-8 for hiredis-1.2.0[LC_ALL=de_DE.UTF-8] ----------------------
LOCALE_NAME=de_DE.UTF-8
install_locale() {
	local dest="$CACHE/locale/$LOCALE_NAME" tmp
	if [ -f "$dest/LC_NUMERIC" ]; then
		say "locale $LOCALE_NAME: up to date"
		return
	fi
	[ -f /usr/share/i18n/locales/de_DE ] || apt_install locales
	command -v localedef >/dev/null || die "localedef not found (libc-bin)"
	say "locale $LOCALE_NAME: localedef into $CACHE/locale"
	mkdir -p "$CACHE/locale"
	tmp=$(mktemp -d "$CACHE/locale/.tmp.XXXXXX")
	run localedef -i de_DE -f UTF-8 "$tmp/$LOCALE_NAME"
	rm -rf "$dest"
	mv "$tmp/$LOCALE_NAME" "$dest"
	rm -rf "$tmp"
}

# ---- ruby, php: Debian bookworm packages -------------------------------------------
# apt_install PKG...: apt-get install those not yet installed.
apt_install() {
	local missing=() p
	for p in "$@"; do installed_pkg "$p" || missing+=("$p"); done
	[ ${#missing[@]} -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || die "must run as root to apt-get install ${missing[*]}"
	say "apt-get install ${missing[*]} (bookworm)"
	with_lock apt "apt-get install ${missing[*]}" apt_get_install "${missing[@]}"
}
# apt_get_install PKG...: apt-get install (after apt-get update when a package has
# no candidate yet); the caller holds the "apt" lock.
apt_get_install() {
	apt-cache policy "$@" 2>/dev/null | grep -q 'Candidate: [0-9]' || run apt-get update
	run apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends "$@"
}

install_ruby() {
	apt_install ruby ruby-redis
	local v
	v=$(ruby -e 'require "redis"; print Redis::VERSION')
	[ "$v" = "$RUBY_REDIS_VERSION" ] || say "warning: Ruby's redis gem is $v, not $RUBY_REDIS_VERSION"
	say "ruby redis gem $v: installed"
}

install_php() {
	apt_install php-cli php-redis
	local v
	v=$(php -r 'echo phpversion("redis");')
	[ "$v" = "$PHPREDIS_VERSION" ] || say "warning: phpredis is $v, not $PHPREDIS_VERSION"
	say "phpredis $v: installed"
}

install_perl() {
	apt_install perl libredis-fast-perl
	local v
	v=$(perl -MRedis::Fast -e 'print $Redis::Fast::VERSION')
	[ "$v" = "$REDIS_FAST_VERSION" ] || say "warning: Redis::Fast is $v, not $REDIS_FAST_VERSION"
	say "perl Redis::Fast $v: installed"
}

# copy_adapters: the adapters (and the Node modules) into the cache, where
# a respcheck binary run outside this checkout finds them
# ($CACHE/adapters; runner/clients adaptersDir).
copy_adapters() {
	local dst="$CACHE/adapters"
	rm -rf "$dst.new"
	mkdir -p "$dst.new"
	cp -a adapters/. "$dst.new/"
	find "$dst.new" -name __pycache__ -prune -exec rm -rf {} +
	if [ ! -d adapters/node/node_modules ]; then
		# A checkout without the Node modules (--only adapters before any
		# --only node in it) keeps the ones the cache has, if they are of
		# this package-lock.json; else the Node adapter needs --only node.
		if [ -d "$dst/node/node_modules" ] && cmp -s adapters/node/package-lock.json "$dst/node/package-lock.json"; then
			cp -a "$dst/node/node_modules" "$dst.new/node/"
		else
			say "warning: adapters/node/node_modules missing: the Node adapter needs scripts/install-clients.sh --only node"
		fi
	fi
	rm -rf "$dst.old"
	[ ! -d "$dst" ] || mv "$dst" "$dst.old"
	mv "$dst.new" "$dst"
	rm -rf "$dst.old"
	say "adapters copied to $dst"
}

install_selected() {
	: >"$LOG"
	case "$ONLY" in
	"") install_node; install_python; install_hiredis; install_locale; install_ruby; install_php; install_perl; copy_adapters ;;
	node) install_node ;;
	python) install_python ;;
	hiredis) install_hiredis ;;
	locale) install_locale ;;
	ruby) install_ruby ;;
	php) install_php ;;
	perl) install_perl ;;
	adapters) copy_adapters ;;
	*) die "--only wants node, python, hiredis, locale, ruby, php, perl or adapters" ;;
	esac
}
start=$(date +%s)
with_lock clients "client libraries" install_selected
say "done in $(( $(date +%s) - start ))s (cache: $CACHE)"
