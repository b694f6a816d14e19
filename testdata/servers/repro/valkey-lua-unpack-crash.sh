#!/usr/bin/env bash
# repro: Valkey 8.0.1 and 8.1.1 die (SIGSEGV) on EVAL "return unpack({1,2,3},
# -2, 2147483647)" 0, a Lua unpack of a huge range; Redis 7.0.15, 8.0.6 and
# 8.6.3 and Valkey 9.1.2 answer "-ERR user_script:1: too many results to
# unpack".
# Backs the known crash of cmd/respcheck/known_crash_test.go and
# runner/known_test.go, without respcheck: the build's own server and CLI.
# usage: valkey-lua-unpack-crash.sh SERVER-BINARY [PORT]   (its *-cli beside it)
# prints CRASHED (and the log's crash line) or ANSWERED: REPLY
set -u
port=${2:-$((20000 + RANDOM % 10000))}
. "$(dirname "$0")/start-server.sh"
start_server "$1" "$port"
reply=$("$cli" -p "$port" EVAL "return unpack({1,2,3}, -2, 2147483647)" 0 2>&1)
for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
# A server that took the SIGSEGV may freeze in its crash handler instead
# of exiting: its log says it crashed, and stop_server kills it.
if kill -0 "$pid" 2>/dev/null && ! grep -q 'crashed by signal' "$log"; then
	echo "ANSWERED: $reply"
	stop_server
else
	stop_server
	echo "CRASHED"
	grep -m1 'crashed by signal' "$log"
fi
rm -f "$log"
