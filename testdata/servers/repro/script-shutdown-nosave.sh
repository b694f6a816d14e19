#!/usr/bin/env bash
# repro: a script that wrote cannot be stopped by SCRIPT KILL (UNKILLABLE);
# SHUTDOWN NOSAVE stops it, and after a restart from the AOF (appendonly
# yes, appendfsync always) its first write is not there either: the
# script's effects reach the AOF only when it ends. Redis 7.0.15 and 8.6.3,
# Valkey 9.1.2. Backs the note of respcheck bench's script-kill table,
# without respcheck: the build's own server and CLI.
# usage: script-shutdown-nosave.sh SERVER-BINARY [PORT]   (its *-cli beside it)
# prints the SCRIPT KILL reply's first word, then AFTER RESTART: control=C
# script=N: C is 1 when a SET sent before the script survived the restart
# (the AOF works), N the number of the script's two keys that exist
set -u
port=${2:-$((20000 + RANDOM % 10000))}
dir=$(mktemp -d)
. "$(dirname "$0")/start-server.sh"
args=(--dir "$dir" --appendonly yes --appendfsync always --busy-reply-threshold 100)
start_server "$1" "$port" "${args[@]}"
"$cli" -p "$port" SET '{k}0' 1 >/dev/null
# SET one key, then loop forever: the second SET never runs.
"$cli" -p "$port" EVAL "redis.call('SET', KEYS[1], '1') while true do end redis.call('SET', KEYS[2], '1')" 2 '{k}1' '{k}2' >/dev/null 2>&1 &
eval_pid=$!
sleep 0.5
"$cli" -p "$port" SCRIPT KILL | head -1 | cut -d' ' -f1
"$cli" -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1
stop_server # SHUTDOWN ended it (else, within 5 s)
wait "$eval_pid" 2>/dev/null
start_server "$1" "$port" "${args[@]}"
echo "AFTER RESTART: control=$("$cli" -p "$port" EXISTS '{k}0') script=$("$cli" -p "$port" EXISTS '{k}1' '{k}2')"
stop_server
rm -rf "$dir" "$log"
