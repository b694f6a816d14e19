#!/usr/bin/env bash
# install-schemas.sh: extract each server build's own command files
# (src/commands/*.json, with their reply_schema) from the source tarballs that
# scripts/install-servers.sh downloaded, for `respcheck run --check-schema` and
# `respcheck schema`.
#
#   scripts/install-schemas.sh        # every build whose source tarball is cached
#   scripts/install-schemas.sh -q     # quiet: one line per build
#
# Layout: ${RESPCHECK_CACHE:-$HOME/.cache/respcheck}/schemas/<build>/*.json, with a
# .stamp file written after the extraction; a second run skips what is there.
# Reads only ${CACHE}/src/<build>/*.orig.tar.{gz,xz}; needs no network. Builds that come
# from binary packages (redis-7.0.15, valkey-8.0.1) have no source tarball, so
# no schemas. The JSON files are never copied into the repository (Redis's are
# not under a permissive licence). Two copies may run at once: the second waits
# for the cache's "schemas" lock; each build's files are extracted into a
# private folder renamed into place.
set -euo pipefail

CACHE="${RESPCHECK_CACHE:-$HOME/.cache/respcheck}"
QUIET=0
case "${1:-}" in
-q | --quiet) QUIET=1 ;;
"") ;;
-h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
*) echo "install-schemas: unknown argument: $1" >&2; exit 2 ;;
esac

say() { [ "$QUIET" = 1 ] || echo "install-schemas: $*"; }
LOCKDIR="$CACHE/locks"
RUN_NAME=install-schemas
# with_lock: scripts/lib/lock.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/lock.sh"

install_all() {
n=0
for src in "$CACHE"/src/*/; do
	build=$(basename "$src")
	tarball=$(ls "$src"*.orig.tar.* 2>/dev/null | head -n 1 || true)
	[ -n "$tarball" ] || continue
	out="$CACHE/schemas/$build"
	if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$(basename "$tarball")" ]; then
		say "$build: installed ($out)"
		n=$((n + 1))
		continue
	fi
	mkdir -p "$CACHE/schemas"
	tmp=$(mktemp -d "$CACHE/schemas/.$build.XXXXXX")
	# The tarball's top directory differs by build (redis-8.6.3/,
	# valkey-io-valkey-7f1dffe/): match any */src/commands/*.json.
	tar -xf "$tarball" -C "$tmp" --wildcards '*/src/commands/*.json'
	files=$(find "$tmp" -path '*/src/commands/*.json' | wc -l)
	if [ "$files" -eq 0 ]; then
		rm -rf "$tmp"
		echo "install-schemas: $build: no src/commands/*.json in $tarball" >&2
		exit 1
	fi
	mkdir -p "$tmp/out"
	find "$tmp" -path '*/src/commands/*.json' -exec mv -t "$tmp/out" {} +
	basename "$tarball" >"$tmp/out/.stamp"
	rm -rf "$out"
	mv "$tmp/out" "$out"
	rm -rf "$tmp"
	echo "install-schemas: $build: $files command files in $out"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || echo "install-schemas: no source tarball under $CACHE/src (run scripts/install-servers.sh first)" >&2
say "redis-7.0.15 and valkey-8.0.1 come from binary packages: no schemas"
}
with_lock schemas "command files" install_all
