#!/usr/bin/env bash
# repro: Redis 8.6.3 answers SET k v IFDEQ 3 GET (a digest that is not 16
# hex characters, with GET) twice: the old value, then "-ERR must be
# exactly 16 hexadecimal characters"; every later reply on the connection
# is the one of the command before (IFDNE too). Valkey 9.1.2 answers one
# syntax error. Found by respcheck explore (Redis 8.6.3 against itself),
# shrunk to this command; without respcheck: the CLI reads one reply per
# command, so the PING sent next on the same connection reads the error.
# usage: redis-set-ifdeq-get-two-replies.sh SERVER-BINARY [PORT]   (its *-cli beside it)
# prints the three replies, then DESYNC (PING did not read PONG) or IN STEP
set -u
port=${2:-$((20000 + RANDOM % 10000))}
. "$(dirname "$0")/start-server.sh"
start_server "$1" "$port"
out=$(printf 'SET k v\nSET k v IFDEQ 3 GET\nPING\n' | "$cli" -p "$port" 2>&1)
echo "$out"
if [ "$(echo "$out" | tail -1)" = PONG ]; then echo "IN STEP"; else echo "DESYNC"; fi
stop_server
rm -f "$log"
