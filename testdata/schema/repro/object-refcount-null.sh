#!/bin/sh
# repro: OBJECT REFCOUNT, IDLETIME and FREQ of a missing key answer a null (src/object.c objectCommand: the key's lookup replies shared.null before anything else), but object-refcount.json, object-idletime.json and object-freq.json's reply_schema is an integer only: a schema bug (object-encoding.json allows the null)
# finds: OBJECT REFCOUNT object-refcount.json#/type
# run: cli-redis-8.6.3
# run: cli-valkey-9.1.2
# run: cli-redis-8.0.6
# run: cli-valkey-8.1.1
# expect: (?s)OBJECT REFCOUNT rc:repro:missing => \(nil\) .*OBJECT IDLETIME rc:repro:missing => \(nil\) .*OBJECT FREQ rc:repro:missing => \(nil\) .*object-refcount.json reply_schema: \{"description":"[^"]*","type":"integer"\}.*object-idletime.json reply_schema: \{"description":"[^"]*","type":"integer"\}.*object-freq.json reply_schema: \{"description":"[^"]*","type":"integer"\}
. "$(dirname "$0")/lib.sh"
for sub in REFCOUNT IDLETIME FREQ; do
	send OBJECT $sub rc:repro:missing
done
for f in object-refcount object-idletime object-freq; do
	schema $f.json
done
