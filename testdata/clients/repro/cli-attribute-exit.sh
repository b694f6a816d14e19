#!/bin/sh
# repro: redis-cli and valkey-cli exit on a RESP3 attribute, in the raw and the --no-raw format: redis-cli 7.0.15, 8.0.6 and 8.6.3 and valkey-cli 8.0.1 and 8.1.1 (hiredis has no '|' type: "Protocol error, got "|" as reply type byte"), valkey-cli 9.1.2 ("Unknown reply type: 11": libvalkey returns the attribute as a reply of its own, VALKEY_REPLY_ATTR, for which cliFormatReplyRaw and cliFormatReplyTTY have no case); exit status 1, the next command never sent
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-cli-7.0.15/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-cli-7.0.15/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-cli-7.0.15/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-cli-7.0.15/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-cli-7.0.15/resp3]
# finds: faults/attribute before a reply [redis-cli-7.0.15/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-cli-7.0.15/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-cli-7.0.15[--no-raw]/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-cli-7.0.15[--no-raw]/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-cli-7.0.15[--no-raw]/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-cli-7.0.15[--no-raw]/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-cli-7.0.15[--no-raw]/resp3]
# finds: faults/attribute before a reply [redis-cli-7.0.15[--no-raw]/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-cli-7.0.15[--no-raw]/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-cli-8.6.3/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-cli-8.0.6/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-cli-8.6.3/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-cli-8.0.6/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-cli-8.6.3/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-cli-8.0.6/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-cli-8.6.3/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-cli-8.0.6/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-cli-8.6.3/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-cli-8.0.6/resp3]
# finds: faults/attribute before a reply [redis-cli-8.6.3/resp3]
# finds: faults/attribute before a reply [redis-cli-8.0.6/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-cli-8.6.3/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-cli-8.0.6/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-cli-8.6.3[--no-raw]/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [redis-cli-8.0.6[--no-raw]/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-cli-8.6.3[--no-raw]/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [redis-cli-8.0.6[--no-raw]/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-cli-8.6.3[--no-raw]/resp3]
# finds: attributes/two attributed blob strings pipelined [redis-cli-8.0.6[--no-raw]/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-cli-8.6.3[--no-raw]/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [redis-cli-8.0.6[--no-raw]/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-cli-8.6.3[--no-raw]/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [redis-cli-8.0.6[--no-raw]/resp3]
# finds: faults/attribute before a reply [redis-cli-8.6.3[--no-raw]/resp3]
# finds: faults/attribute before a reply [redis-cli-8.0.6[--no-raw]/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-cli-8.6.3[--no-raw]/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [redis-cli-8.0.6[--no-raw]/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [valkey-cli-8.0.1/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [valkey-cli-8.0.1/resp3]
# finds: attributes/two attributed blob strings pipelined [valkey-cli-8.0.1/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [valkey-cli-8.0.1/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [valkey-cli-8.0.1/resp3]
# finds: faults/attribute before a reply [valkey-cli-8.0.1/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [valkey-cli-8.0.1/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: attributes/two attributed blob strings pipelined [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: faults/attribute before a reply [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [valkey-cli-8.0.1[--no-raw]/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [valkey-cli-9.1.2/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [valkey-cli-8.1.1/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [valkey-cli-9.1.2/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [valkey-cli-8.1.1/resp3]
# finds: attributes/two attributed blob strings pipelined [valkey-cli-9.1.2/resp3]
# finds: attributes/two attributed blob strings pipelined [valkey-cli-8.1.1/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [valkey-cli-9.1.2/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [valkey-cli-8.1.1/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [valkey-cli-9.1.2/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [valkey-cli-8.1.1/resp3]
# finds: faults/attribute before a reply [valkey-cli-9.1.2/resp3]
# finds: faults/attribute before a reply [valkey-cli-8.1.1/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [valkey-cli-9.1.2/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [valkey-cli-8.1.1/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: attributes/attribute map before a blob string, then an ordinary reply [valkey-cli-8.1.1[--no-raw]/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: attributes/attribute typed as an attribute on a blob string [valkey-cli-8.1.1[--no-raw]/resp3]
# finds: attributes/two attributed blob strings pipelined [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: attributes/two attributed blob strings pipelined [valkey-cli-8.1.1[--no-raw]/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: attributes/EXEC array whose first element carries an attribute [valkey-cli-8.1.1[--no-raw]/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: attributes/EXEC array with an attributed element between a map and a set [valkey-cli-8.1.1[--no-raw]/resp3]
# finds: faults/attribute before a reply [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: faults/attribute before a reply [valkey-cli-8.1.1[--no-raw]/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [valkey-cli-9.1.2[--no-raw]/resp3]
# finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [valkey-cli-8.1.1[--no-raw]/resp3]
# run: cli-redis-7.0.15
# run: cli-redis-8.0.6
# run: cli-redis-8.6.3
# run: cli-valkey-8.0.1
# run: cli-valkey-8.1.1
# run: cli-valkey-9.1.2
# expect: (?s)raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte".*no-raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte"
# expect: (?s)raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte".*no-raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte"
# expect: (?s)raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte".*no-raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte"
# expect: (?s)raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte".*no-raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte"
# expect: (?s)raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte".*no-raw: exit 1, stdout "", stderr "Error: Protocol error, got "\|" as reply type byte"
# expect: (?s)raw: exit 1, stdout "", stderr "Unknown reply type: 11".*no-raw: exit 1, stdout "", stderr "Unknown reply type: 11"
addr=$1 cli=$2
host=${addr%:*} port=${addr##*:}
err=$(mktemp)
for mode in raw no-raw; do
	flag=
	[ "$mode" = no-raw ] && flag=--no-raw
	out=$(printf 'DEBUG PROTOCOL attrib\nPING\n' | timeout 20 "$cli" -h "$host" -p "$port" -3 $flag 2>"$err")
	echo "$mode: exit $?, stdout \"$out\", stderr \"$(cat "$err")\""
done
rm -f "$err"
