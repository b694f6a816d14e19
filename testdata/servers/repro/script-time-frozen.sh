#!/usr/bin/env bash
# repro: inside one Lua script, redis.call('TIME') answers the same time
# on Redis 8.6.3 and Valkey 9.1.2 however long the script has run (a loop
# of 2,000,000 iterations between two calls); on Redis 7.0.15 it advances.
# A script that busy-loops on TIME for 100 ms then runs until the
# busy-reply-threshold (set to 300 ms here) instead. Backs the clock choice
# of respcheck bench's script tables (runner/bench/scripts.go), without
# respcheck: the build's own server and CLI.
# usage: script-time-frozen.sh SERVER-BINARY [PORT]   (its *-cli beside it)
# prints FROZEN: T1 T2 or ADVANCES: T1 T2, then the 100 ms loop's wall time
set -u
port=${2:-$((20000 + RANDOM % 10000))}
. "$(dirname "$0")/start-server.sh"
start_server "$1" "$port"
times=$("$cli" -p "$port" EVAL "local a = redis.call('TIME') for i = 1, 2000000 do end local b = redis.call('TIME')
return {a[1] .. '.' .. a[2], b[1] .. '.' .. b[2]}" 0 | tr '\n' ' ')
set -- $times
if [ "$1" = "$2" ]; then echo "FROZEN: $1 $2"; else echo "ADVANCES: $1 $2"; fi
"$cli" -p "$port" CONFIG SET busy-reply-threshold 300 >/dev/null
start=$(date +%s%N)
"$cli" -p "$port" EVAL "local function now() local t = redis.call('TIME') return t[1] * 1000000 + t[2] end
local stop = now() + 100000 repeat until now() >= stop return 1" 0 >/dev/null
echo "a 100 ms loop on TIME answered after $(( ($(date +%s%N) - start) / 1000000 )) ms (busy-reply-threshold 300 ms)"
stop_server
rm -f "$log"
