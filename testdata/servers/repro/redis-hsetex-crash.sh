#!/usr/bin/env bash
# repro: Redis 8.6.3 dies on an assertion (t_hash.c:3463
# 'dictExpireMeta->expireMeta.trash == 0') when HSETEX gives one field
# twice with a value longer than a listpack keeps (300 bytes), on a hash
# that exists: HSET h f1 v1, then HSETEX h PXAT 4102444800000 FIELDS 2 f1 x
# f1 yyy...; Valkey 9.1.2 answers 1. Found by respcheck explore (Redis
# 8.6.3 against itself, seed 2), shrunk to this command; without
# respcheck: the build's own server and CLI.
# usage: redis-hsetex-crash.sh SERVER-BINARY [PORT]   (its *-cli beside it)
# prints CRASHED (and the log's assertion line) or ANSWERED: REPLY
set -u
port=${2:-$((20000 + RANDOM % 10000))}
. "$(dirname "$0")/start-server.sh"
start_server "$1" "$port"
"$cli" -p "$port" HSET h f1 v1 >/dev/null
reply=$("$cli" -p "$port" HSETEX h PXAT 4102444800000 FIELDS 2 f1 x f1 "$(printf 'y%.0s' $(seq 300))" 2>&1)
# The crash report (a memory test included) takes a few seconds.
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if grep -q 'ASSERTION FAILED' "$log"; then
	stop_server
	echo "CRASHED"
	grep -m1 '==> ' "$log" | sed 's/.*==> //'
else
	echo "ANSWERED: $reply"
	stop_server
fi
rm -f "$log"
