# Locks that let two copies of the install scripts share one cache (another
# checkout, CI, scripts/test beside scripts/run-suite). Sourced by
# install-servers.sh, install-clients.sh and install-schemas.sh, which set
# LOCKDIR (a folder of the cache) and RUN_NAME (the script's name in messages).
#
# with_lock NAME WHAT CMD...: run CMD (a shell function or command) holding
# the exclusive lock $LOCKDIR/NAME.lock. When another process holds it, say
# once what is waited for and whose it is (PID, command, since when), wait up
# to $RESPCHECK_LOCK_WAIT seconds (default 2700: a fresh machine's slowest
# source build takes about 10 minutes), then say how long it waited. The lock
# is a flock(1) on an open file, so a killed holder releases it at once; the
# file keeps the holder's "pid=... what=... since=..." line for the waiters
# and for `install-servers.sh --list`, and is emptied when CMD ends. CMD runs
# under the caller's set -e: a failure exits the script, which frees the lock.
with_lock() {
	local name="$1" what="$2" file fd t0 wait="${RESPCHECK_LOCK_WAIT:-2700}"
	shift 2
	mkdir -p "$LOCKDIR"
	file="$LOCKDIR/$name.lock"
	exec {fd}>>"$file"
	if ! flock -n "$fd"; then
		echo "$RUN_NAME: $what: waiting for another installer ($(lock_holder "$file")), up to ${wait}s"
		t0=$SECONDS
		if ! flock -w "$wait" "$fd"; then
			exec {fd}>&-
			echo "$RUN_NAME: ERROR: $what: still locked after ${wait}s by $(lock_holder "$file"); remove nothing, wait for it or stop it (RESPCHECK_LOCK_WAIT sets the wait)" >&2
			exit 1
		fi
		echo "$RUN_NAME: $what: waited $((SECONDS - t0))s for the other installer"
	fi
	printf 'pid=%s what=%s since=%s by=%s\n' "$BASHPID" "$what" "$(date -u +%H:%M:%SZ)" "$RUN_NAME" >"$file"
	# Not "$@" || ...: that would turn off set -e inside CMD. A failing CMD
	# exits the script, and the lock goes with the process.
	"$@"
	: >"$file"
	exec {fd}>&-
}

# lock_holder FILE: "pid 123 (install-servers: redis-8.6.3: build, since 10:01:02Z)"
# from the holder's line, or "an unknown process" while it is being written.
lock_holder() {
	local line pid what since by
	line=$(cat "$1" 2>/dev/null || true)
	pid=$(sed -n 's/.*pid=\([0-9]*\).*/\1/p' <<<"$line")
	[ -n "$pid" ] || { echo "an unknown process"; return; }
	what=$(sed -n 's/.* what=\(.*\) since=.*/\1/p' <<<"$line")
	since=$(sed -n 's/.* since=\([^ ]*\).*/\1/p' <<<"$line")
	by=$(sed -n 's/.* by=\(.*\)$/\1/p' <<<"$line")
	echo "pid $pid ($by: $what, since $since)"
}

# lock_busy NAME: true while some process holds $LOCKDIR/NAME.lock.
lock_busy() {
	local file="$LOCKDIR/$1.lock" fd busy=1
	[ -e "$file" ] || return 1
	exec {fd}<"$file"
	flock -n -s "$fd" && busy=0
	exec {fd}<&-
	[ "$busy" = 1 ]
}
