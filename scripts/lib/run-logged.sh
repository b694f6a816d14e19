# run runs a noisy command with its output appended to $LOG; on failure it
# shows the log's tail and exits 1, naming the script by $RUN_NAME. Sourced
# by install-servers.sh and install-clients.sh.
run() {
	if ! "$@" >>"$LOG" 2>&1; then
		echo "$RUN_NAME: command failed: $*" >&2
		echo "---- last lines of $LOG ----" >&2
		tail -n 40 "$LOG" >&2
		exit 1
	fi
}
