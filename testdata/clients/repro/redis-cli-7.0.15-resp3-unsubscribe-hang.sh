#!/bin/sh
# repro: redis-cli 7.0.15 waits forever for the reply to an UNSUBSCRIBE (PUNSUBSCRIBE, SUNSUBSCRIBE) in RESP3: the confirmation is a push, which its hiredis hands to the default push callback (redisPushAutoFree: pushes are not shown when stdout is not a terminal), so redisGetReply waits for an in-band reply that never comes; redis-cli 8.6.3 removes the callback for the (un)subscribe family (cliSendCommand: redisSetPushCallback(context, NULL)) and prints the confirmation
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-cli-7.0.15/resp3]
# finds: pubsub/PSUBSCRIBE confirmation [redis-cli-7.0.15/resp3]
# finds: pubsub/SSUBSCRIBE confirmation [redis-cli-7.0.15/resp3]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-cli-7.0.15/resp3]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-cli-7.0.15/resp3]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-cli-7.0.15/resp3]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-cli-7.0.15/resp3]
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-cli-7.0.15[--no-raw]/resp3]
# finds: pubsub/PSUBSCRIBE confirmation [redis-cli-7.0.15[--no-raw]/resp3]
# finds: pubsub/SSUBSCRIBE confirmation [redis-cli-7.0.15[--no-raw]/resp3]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-cli-7.0.15[--no-raw]/resp3]
# finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [redis-cli-7.0.15[--no-raw]/resp3]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-cli-7.0.15[--no-raw]/resp3]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-cli-7.0.15[--no-raw]/resp3]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-cli-7.0.15/resp3]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-cli-7.0.15[--no-raw]/resp3]
# run: cli-redis-7.0.15
# run: cli-redis-8.6.3
# expect: (?s)UNSUBSCRIBE: killed after 3 s, stdout "".*PUNSUBSCRIBE: killed after 3 s, stdout "".*SUNSUBSCRIBE: killed after 3 s, stdout ""
# expect: (?s)UNSUBSCRIBE: answered, stdout "unsubscribe\|ch\|0\|PONG".*PUNSUBSCRIBE: answered, stdout "punsubscribe\|ch\|0\|PONG".*SUNSUBSCRIBE: answered, stdout "sunsubscribe\|ch\|0\|PONG"
addr=$1 cli=$2
host=${addr%:*} port=${addr##*:}
for cmd in UNSUBSCRIBE PUNSUBSCRIBE SUNSUBSCRIBE; do
	# stdin stays open for 2 s (the CLI ends at the end of its input),
	# the CLI is killed after 3 s.
	out=$( (printf '%s ch\nPING\n' "$cmd"; sleep 2) | timeout 3 "$cli" -h "$host" -p "$port" -3 | tr '\n' '|')
	case "$out" in
	*PONG*) echo "$cmd: answered, stdout \"${out%|}\"" ;;
	*) echo "$cmd: killed after 3 s, stdout \"${out%|}\"" ;;
	esac
done
