#!/bin/sh
# repro: XPENDING's summary form for a group without pending entries answers [0, null, null, null] (src/t_stream.c xpendingCommand: addReplyNull twice and addReplyNullArray), but the xpending.json reply_schema of Valkey 9.1.2 and 8.1.1 and of Redis 8.0.6 has no branch for it (its summary branch wants strings and an array): a schema bug (Redis 8.6.3's has a "no pending messages" branch)
# finds: XPENDING xpending.json#/oneOf
# run: cli-valkey-9.1.2
# run: cli-redis-8.0.6
# run: cli-valkey-8.1.1
# expect: (?s)XPENDING rc:repro:stream g => 1\) \(integer\) 0 2\) \(nil\) 3\) \(nil\) 4\) \(nil\).*xpending.json reply_schema: .*"description":"Extended form.*"description":"Summary form.*"description":"Minimal pending entry ID","type":"string"
. "$(dirname "$0")/lib.sh"
"$cli" -h "$host" -p "$port" DEL rc:repro:stream >/dev/null
"$cli" -h "$host" -p "$port" XGROUP CREATE rc:repro:stream g '$' MKSTREAM >/dev/null
send XPENDING rc:repro:stream g
schema xpending.json
"$cli" -h "$host" -p "$port" DEL rc:repro:stream >/dev/null
