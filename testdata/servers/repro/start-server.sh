# Sourced by the repro scripts: start_server SERVER-BINARY PORT [ARG...]
# starts the build's server on 127.0.0.1:PORT without persistence (ARGs
# after, which may turn it on), sets cli (its *-cli beside it), pid and
# log, and waits for PING; on failure it prints NOT STARTED and the log,
# and exits 1. A PORT another process took meanwhile ("Address already in
# use") is replaced by a random one of 20000-29999, at most 5 times: the
# script's $port is set to the port the server listens on.
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
	port=$2
	local up= attempt
	for attempt in 1 2 3 4 5; do
		log=$(mktemp)
		"$1" --port "$port" --bind 127.0.0.1 --save '' --appendonly no "${@:3}" >"$log" 2>&1 &
		pid=$!
		for _ in $(seq 50); do
			# A server that could not bind exits within milliseconds: the
			# PING would go to the port's other owner (which may never
			# answer), and only this server's PONG counts.
			sleep 0.1
			kill -0 "$pid" 2>/dev/null || break
			"$cli" -p "$port" PING >/dev/null 2>&1 && kill -0 "$pid" 2>/dev/null && up=1 && break
		done
		[ -z "$up" ] && [ "$attempt" -lt 5 ] && ! kill -0 "$pid" 2>/dev/null && grep -q 'Address already in use' "$log" || break
		rm -f "$log"
		port=$((20000 + RANDOM % 10000))
	done
	if [ -z "$up" ]; then
		echo "NOT STARTED on port $port:"
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
