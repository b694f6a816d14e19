#!/bin/sh
# repro: HOTKEYS STOP when no tracking is active answers a null (src/hotkeys.c hotkeysCommand: "if (!server.hotkeys || !server.hotkeys->active) addReplyNull"), but hotkeys-stop.json's reply_schema is the constant OK: a schema bug (Redis 8.6.3)
# finds: HOTKEYS STOP hotkeys-stop.json#/const
# run: cli-redis-8.6.3
# expect: (?s)HOTKEYS STOP => \(nil\).*hotkeys-stop.json reply_schema: \{"const":"OK"\}
. "$(dirname "$0")/lib.sh"
"$cli" -h "$host" -p "$port" HOTKEYS STOP >/dev/null
send HOTKEYS STOP
schema hotkeys-stop.json
