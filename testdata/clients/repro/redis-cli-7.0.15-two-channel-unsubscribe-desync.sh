#!/bin/sh
# repro: redis-cli 7.0.15 reads one reply for an UNSUBSCRIBE of two channels in RESP2 although the server sends a confirmation per channel (also to a connection subscribed to none, count 0 each): the second confirmation is printed as the next command's reply, PING's PONG as ECHO's, and ECHO's reply is never printed; redis-cli 8.6.3 reads one confirmation per channel (builds since 7.2) and prints every reply. Found by respcheck clients --generate (runner/replies), two-channel UNSUBSCRIBE frames.
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-cli-7.0.15/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-cli-7.0.15[--no-raw]/resp2]
# run: cli-redis-7.0.15
# run: cli-redis-8.6.3
# expect: stdout "unsubscribe\|c1\|0\|unsubscribe\|c2\|0\|PONG"
# expect: stdout "unsubscribe\|c1\|0\|unsubscribe\|c2\|0\|PONG\|after"
addr=$1 cli=$2
host=${addr%:*} port=${addr##*:}
# stdin stays open for 1 s (the CLI ends at the end of its input), the CLI
# is killed after 3 s.
out=$( (printf 'UNSUBSCRIBE c1 c2\nPING\nECHO after\n'; sleep 1) | timeout 3 "$cli" -h "$host" -p "$port" | tr '\n' '|')
echo "stdout \"${out%|}\""
