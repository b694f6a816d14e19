#!/bin/sh
# repro: LMOVE from a missing source answers a null (src/t_list.c lmoveGenericCommand: lookupKeyWriteOrReply with shared.null), but the lmove.json reply_schema of Redis 8.6.3 and 8.0.6 and of Valkey 8.1.1 is a string only: a schema bug (Valkey 9.1.2's lmove.json has a oneOf with the null)
# finds: LMOVE lmove.json#/type
# run: cli-redis-8.6.3
# run: cli-redis-8.0.6
# run: cli-valkey-8.1.1
# expect: (?s)LMOVE rc:repro:missing rc:repro:dst LEFT RIGHT => \(nil\).*lmove.json reply_schema: \{"description":"[^"]*","type":"string"\}
. "$(dirname "$0")/lib.sh"
send LMOVE rc:repro:missing rc:repro:dst LEFT RIGHT
schema lmove.json
