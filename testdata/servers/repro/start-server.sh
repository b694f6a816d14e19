# Sourced by the repro scripts: start_server SERVER-BINARY PORT [ARG...]
# starts the build's server on 127.0.0.1:PORT without persistence (ARGs
# after, which may turn it on), sets cli (its *-cli beside it), pid and
# log, and waits for PING; on failure it prints NOT STARTED and the log,
# and exits 1.
# Every call of "$cli" has a deadline (timeout 20): a server that froze
# (a crash handler deadlocked, every thread in futex_wait) must not leave
# the CLI, and the test that runs the script, waiting forever; stop_server
# ends the server within 5 s whatever state it is in.
start_server() {
	if [ -z "${cli:-}" ]; then
		cli=$(mktemp)
		printf '#!/bin/sh\nexec timeout 20 %s "$@"\n' "$(ls "$(dirname "$1")"/*-cli | head -1)" >"$cli"
		chmod +x "$cli"
		trap 'rm -f "$cli"' EXIT
	fi
	log=$(mktemp)
	"$1" --port "$2" --bind 127.0.0.1 --save '' --appendonly no "${@:3}" >"$log" 2>&1 &
	pid=$!
	local up=
	for _ in $(seq 50); do "$cli" -p "$2" PING >/dev/null 2>&1 && up=1 && break; sleep 0.1; done
	if [ -z "$up" ]; then
		echo "NOT STARTED on port $2:"
		cat "$log"
		kill "$pid" 2>/dev/null
		exit 1
	fi
}

# stop_server [PID]: SIGTERM to the server (default $pid), SIGKILL after
# 5 s, then reap it.
stop_server() {
	local p=${1:-$pid}
	kill "$p" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$p" 2>/dev/null
	{ wait "$p"; } 2>/dev/null
}
