# Sourced by the repro scripts: start_server SERVER-BINARY PORT [ARG...]
# starts the build's server on 127.0.0.1:PORT without persistence (ARGs
# after, which may turn it on), sets cli (its *-cli beside it), pid and
# log, and waits for PING; on failure it prints NOT STARTED and the log,
# and exits 1.
start_server() {
	cli=$(ls "$(dirname "$1")"/*-cli | head -1)
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
