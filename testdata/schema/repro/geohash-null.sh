#!/bin/sh
# repro: GEOHASH answers a null for a member that is not in the key (src/geo.c geohashCommand: addReplyNull), but geohash.json's reply_schema wants a string per item: a schema bug
# finds: GEOHASH geohash.json#/items/type
# run: cli-redis-8.6.3
# run: cli-valkey-9.1.2
# run: cli-redis-8.0.6
# run: cli-valkey-8.1.1
# expect: (?s)GEOHASH rc:repro:geo palermo nowhere => 1\) "sqc8b49rny0" 2\) \(nil\).*geohash.json reply_schema: \{.*"items":\{[^}]*"type":"string"\}
. "$(dirname "$0")/lib.sh"
"$cli" -h "$host" -p "$port" DEL rc:repro:geo >/dev/null
"$cli" -h "$host" -p "$port" GEOADD rc:repro:geo 13.361389 38.115556 palermo >/dev/null
send GEOHASH rc:repro:geo palermo nowhere
schema geohash.json
"$cli" -h "$host" -p "$port" DEL rc:repro:geo >/dev/null
