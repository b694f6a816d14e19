#!/bin/sh
# repro: redis-cli 7.0.15 exits on the RESP3 double ",nan": its hiredis refuses the spelling ("Error: Bad double value", exit status 1), in the raw and the --no-raw format; redis-cli 8.6.3's hiredis reads it and prints "nan" and "(double) nan"
# finds: faults/nan spelling from Lua [redis-cli-7.0.15/resp3]
# finds: numbers/doubles inf, -inf and nan from Lua scripts [redis-cli-7.0.15/resp3]
# finds: faults/nan spelling from Lua [redis-cli-7.0.15[--no-raw]/resp3]
# finds: numbers/doubles inf, -inf and nan from Lua scripts [redis-cli-7.0.15[--no-raw]/resp3]
# run: cli-redis-7.0.15
# run: cli-redis-8.6.3
# expect: (?s)raw: exit 1, stdout \(lines joined by \|\) "", stderr "Error: Bad double value".*no-raw: exit 1, stdout \(lines joined by \|\) "", stderr "Error: Bad double value"
# expect: (?s)raw: exit 0, stdout \(lines joined by \|\) "nan\|PONG", stderr "".*no-raw: exit 0, stdout \(lines joined by \|\) "\(double\) nan\|PONG", stderr ""
addr=$1 cli=$2
host=${addr%:*} port=${addr##*:}
err=$(mktemp)
for mode in raw no-raw; do
	flag=
	[ "$mode" = no-raw ] && flag=--no-raw
	out=$(printf 'EVAL "redis.setresp(3); return {double=0/0}" 0\nPING\n' | timeout 20 "$cli" -h "$host" -p "$port" -3 $flag 2>"$err")
	rc=$?
	echo "$mode: exit $rc, stdout (lines joined by |) \"$(printf '%s' "$out" | tr '\n' '|')\", stderr \"$(cat "$err")\""
done
rm -f "$err"
