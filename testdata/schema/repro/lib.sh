# lib.sh: what the reply-schema repros share (sourced, not a repro).
# Usage of a repro: sh REPRO.sh HOST:PORT CLI SCHEMA-DIR
# (CLI: the build's redis-cli or valkey-cli; SCHEMA-DIR: the build's
# command files, ~/.cache/respcheck/schemas/<build>, installed by
# scripts/install-schemas.sh).
addr=$1 cli=$2 schemas=$3
host=${addr%:*} port=${addr##*:}

# send ARGS...: one command in RESP3, its reply as the CLI shows it
# (--no-raw: "(nil)" for a null, "(integer) 1", "1) ...").
send() {
	printf '%s => ' "$*"
	timeout 20 "$cli" -h "$host" -p "$port" -3 --no-raw "$@" | tr '\n' ' '
	echo
}

# schema FILE: the reply_schema of a command file, on one line.
schema() {
	printf '%s reply_schema: ' "$1"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(list(d.values())[0]["reply_schema"], separators=(",", ":")))' "$schemas/$1"
}
