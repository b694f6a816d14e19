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
#           redis-py 6.4.0: Debian sid's python3-redis 6.4.0-3 (arch all, pure
#           Python), fetched with apt-get download through a private APT_CONFIG
#           and unpacked with dpkg-deb -x into the cache (no system install);
#           the adapter puts it on PYTHONPATH for /usr/bin/python3.11
#
# Layout: ${RESPCHECK_CACHE:-$HOME/.cache/respcheck}/clients/
#           python/redis-6.4.0/usr/lib/python3/dist-packages/redis
#           apt/            private apt configuration, lists and archives (sid)
#           npm/            npm cache
#           logs/
# Idempotent: a second run only checks stamps. Needs root for apt-get install.
# Usage: scripts/install-clients.sh [-q] [--only node|python]
set -euo pipefail
cd "$(dirname "$0")/.."

PY_SID_DEB_VERSION=6.4.0-3
PY_SID_VERSION=6.4.0
PY_BOOKWORM_VERSION=4.3.4
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

QUIET=0
ONLY=""
while [ $# -gt 0 ]; do
	case "$1" in
	-q) QUIET=1 ;;
	--only) ONLY="$2"; shift ;;
	-h|--help) sed -n '2,26p' "$0"; exit 0 ;;
	*) echo "install-clients: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

CACHE="${RESPCHECK_CACHE:-$HOME/.cache/respcheck}/clients"
APTDIR="$CACHE/apt"
LOGDIR="$CACHE/logs"
mkdir -p "$CACHE" "$LOGDIR"
LOG="$LOGDIR/install-clients.log"
: >"$LOG"
export DEBIAN_FRONTEND=noninteractive

say() { [ "$QUIET" = 1 ] || echo "install-clients: $*"; }
die() { echo "install-clients: $*" >&2; exit 1; }
# run: scripts/lib/run-logged.sh
RUN_NAME=install-clients
. "$(dirname "${BASH_SOURCE[0]}")/lib/run-logged.sh"
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
	# redis-py 4.3.4 from bookworm, into the system.
	if ! installed_pkg python3-redis; then
		[ "$(id -u)" = 0 ] || die "must run as root to apt-get install python3-redis"
		say "apt-get install python3-redis (bookworm)"
		apt-cache policy python3-redis 2>/dev/null | grep -q 'Candidate: [0-9]' || run apt-get update
		run apt-get install -y --no-install-recommends python3-redis
	fi
	local v
	v=$(/usr/bin/python3.11 -c 'import redis; print(redis.__version__)')
	[ "$v" = "$PY_BOOKWORM_VERSION" ] || say "warning: system redis-py is $v, not $PY_BOOKWORM_VERSION"

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
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	run dpkg-deb -x "$deb" "$dest.tmp"
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
	v=$(PYTHONPATH="$dest/usr/lib/python3/dist-packages" /usr/bin/python3.11 -c 'import redis; print(redis.__version__)')
	[ "$v" = "$PY_SID_VERSION" ] || die "unpacked redis-py reports $v, not $PY_SID_VERSION"
	printf 'deb=%s\ndate=%s\n' "$(basename "$deb")" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$dest/.stamp"
}

start=$(date +%s)
case "$ONLY" in
"") install_node; install_python ;;
node) install_node ;;
python) install_python ;;
*) die "--only wants node or python" ;;
esac
say "done in $(( $(date +%s) - start ))s (cache: $CACHE)"
