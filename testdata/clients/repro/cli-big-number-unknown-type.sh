#!/bin/sh
# repro: redis-cli and valkey-cli exit on a RESP3 big number, in the raw and the --no-raw format: "Unknown reply type: 13" on stderr, exit status 1, the next command never sent (src/redis-cli.c cliFormatReplyRaw and cliFormatReplyTTY have no case for REDIS_REPLY_BIGNUM, which hiredis returns for '(')
# finds: faults/big number [redis-cli-7.0.15/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [redis-cli-7.0.15/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [redis-cli-7.0.15/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [redis-cli-7.0.15/resp3]
# finds: faults/big number [redis-cli-7.0.15[--no-raw]/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [redis-cli-7.0.15[--no-raw]/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [redis-cli-7.0.15[--no-raw]/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [redis-cli-7.0.15[--no-raw]/resp3]
# finds: faults/big number [redis-cli-8.6.3/resp3]
# finds: faults/big number [redis-cli-8.0.6/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [redis-cli-8.6.3/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [redis-cli-8.0.6/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [redis-cli-8.6.3/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [redis-cli-8.0.6/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [redis-cli-8.6.3/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [redis-cli-8.0.6/resp3]
# finds: faults/big number [redis-cli-8.6.3[--no-raw]/resp3]
# finds: faults/big number [redis-cli-8.0.6[--no-raw]/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [redis-cli-8.6.3[--no-raw]/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [redis-cli-8.0.6[--no-raw]/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [redis-cli-8.6.3[--no-raw]/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [redis-cli-8.0.6[--no-raw]/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [redis-cli-8.6.3[--no-raw]/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [redis-cli-8.0.6[--no-raw]/resp3]
# finds: faults/big number [valkey-cli-8.0.1/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [valkey-cli-8.0.1/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [valkey-cli-8.0.1/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [valkey-cli-8.0.1/resp3]
# finds: faults/big number [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: faults/big number [valkey-cli-9.1.2/resp3]
# finds: faults/big number [valkey-cli-8.1.1/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [valkey-cli-9.1.2/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [valkey-cli-8.1.1/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [valkey-cli-9.1.2/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [valkey-cli-8.1.1/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [valkey-cli-9.1.2/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [valkey-cli-8.1.1/resp3]
# finds: faults/big number [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: faults/big number [valkey-cli-8.1.1[--no-raw]/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [valkey-cli-8.1.1[--no-raw]/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [valkey-cli-8.1.1[--no-raw]/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: resp3-types/map, set and big number from a Lua script in RESP3, arrays and a blob string in RESP2 [valkey-cli-8.1.1[--no-raw]/resp3]
# run: cli-redis-7.0.15
# run: cli-redis-8.0.6
# run: cli-redis-8.6.3
# run: cli-valkey-8.0.1
# run: cli-valkey-8.1.1
# run: cli-valkey-9.1.2
# expect: (?s)raw: exit 1, stdout "", stderr "Unknown reply type: 13".*no-raw: exit 1, stdout "", stderr "Unknown reply type: 13"
addr=$1 cli=$2
host=${addr%:*} port=${addr##*:}
err=$(mktemp)
for mode in raw no-raw; do
	flag=
	[ "$mode" = no-raw ] && flag=--no-raw
	out=$(printf 'DEBUG PROTOCOL bignum\nPING\n' | timeout 20 "$cli" -h "$host" -p "$port" -3 $flag 2>"$err")
	echo "$mode: exit $?, stdout \"$out\", stderr \"$(cat "$err")\""
done
rm -f "$err"
