#!/usr/bin/env bash
# Starts a local Chroma server (unless one answers already), ingests
# examples/docs into the collection "example-docs" (embedded with the
# n-gram function, which needs no model or key) and explores it with
# ls, tree, cat, find and stat, as a public user and as staff.
#
#   scripts/demo.sh        run the demo (the server keeps running)
#   scripts/demo.sh stop   stop the server the demo started
#
# It needs bash, coreutils and node (for Chroma); not curl: it asks
# Chroma's heartbeat with a raw HTTP request over bash's /dev/tcp.
#
# Environment:
#   CHROMA_URL           the Chroma to use (default http://localhost:8000);
#                        when nothing answers there and it names this
#                        machine over http, the demo starts Chroma on its port
#   CHROMAFS_DEMO_STATE  directory of the started Chroma's data, log and pid
#                        file (default .chroma-demo)
#   CHROMAFS_DEMO_BIN    the chromafs binary (default ./bin/chromafs, which
#                        `make build` and `make demo` build)
#   CHROMA_BIN           the chroma executable (default
#                        internal/testenv/chroma/node_modules/.bin/chroma,
#                        which `make deps-chroma` installs)
#   CHROMAFS_DEMO_WAIT   seconds to wait for a started Chroma to answer
#                        (default 30)
#
# Paths in the environment are relative to the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."

STATE="${CHROMAFS_DEMO_STATE:-.chroma-demo}"
URL="${CHROMA_URL:-http://localhost:8000}"
export CHROMA_URL="$URL" CHROMAFS_COLLECTION=example-docs
BIN="${CHROMAFS_DEMO_BIN:-./bin/chromafs}"
CHROMA="${CHROMA_BIN:-internal/testenv/chroma/node_modules/.bin/chroma}"
WAIT="${CHROMAFS_DEMO_WAIT:-30}"
DATA="$(realpath -m "$STATE/data")"
LOG="$STATE/chroma.log"
PIDFILE="$STATE/pid"

die() { printf 'scripts/demo.sh: %s\n' "$*" >&2; exit 1; }

# The host and port of an http:// CHROMA_URL; scheme is empty for others
# (https: the demo neither checks nor starts that server, the commands
# report what they find).
scheme="" host="" port=""
if [[ $URL =~ ^http://(\[([^]]+)\]|[^/:]+)(:([0-9]+))?(/.*)?$ ]]; then
	scheme=http
	host="${BASH_REMATCH[2]:-${BASH_REMATCH[1]}}"
	port="${BASH_REMATCH[4]:-80}"
fi

# up reports whether a Chroma answers at CHROMA_URL: an HTTP GET of its
# heartbeat over bash's /dev/tcp, within 2 seconds, answered with 200 and
# a body that names the heartbeat.
up() {
	local reply
	reply="$(timeout 2 bash -c '
		exec 3<>"/dev/tcp/$1/$2" || exit 1
		printf "GET /api/v2/heartbeat HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n\r\n" "$1" "$2" >&3
		head -c 512 <&3' bash "$host" "$port" 2>/dev/null)" || return 1
	[[ $reply == HTTP/1.[01]\ 200* && $reply == *heartbeat* ]]
}

# listening reports whether anything accepts a connection on host:port.
listening() { timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' bash "$host" "$port" 2>/dev/null; }

# alive reports whether process $1 runs (a zombie does not).
alive() {
	local stat
	stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
	stat="${stat##*) }"
	[ "${stat%% *}" != Z ]
}

# demo_pids prints the processes that serve the demo's data directory:
# their command line is `... run --path DIR ...` with DIR, resolved against
# the process's working directory, the demo's (whether or not it still
# exists: `rm -rf .chroma-demo` leaves its Chroma running).
demo_pids() {
	local p args i dir cwd
	for p in /proc/[0-9]*; do
		[ -r "$p/cmdline" ] || continue
		mapfile -d '' -t args <"$p/cmdline" 2>/dev/null || continue
		for ((i = 0; i < ${#args[@]} - 1; i++)); do
			[ "${args[i]}" = --path ] || continue
			dir="${args[i + 1]}"
			if [[ $dir != /* ]]; then
				cwd="$(readlink "$p/cwd" 2>/dev/null)" || continue
				dir="$cwd/$dir"
			fi
			if [[ " ${args[*]} " == *" run "* && "$(realpath -m "$dir")" == "$DATA" ]] && alive "${p#/proc/}"; then
				echo "${p#/proc/}"
			fi
			break
		done
	done
}

# kill_wait stops process $1: SIGTERM, then SIGKILL after 10 seconds; it
# returns once the process has exited (at most 12 seconds).
kill_wait() {
	local i
	kill "$1" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do alive "$1" || return 0; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null || true
	for ((i = 0; i < 20; i++)); do alive "$1" || return 0; sleep 0.1; done
	die "Chroma (pid $1) did not exit after SIGKILL"
}

# stop stops every Chroma that serves the demo's data directory and says
# what it did.
stop() {
	local pids pid
	mapfile -t pids < <(demo_pids)
	if [ ${#pids[@]} -eq 0 ]; then
		rm -f "$PIDFILE"
		if [ -n "$scheme" ] && up; then
			echo "a Chroma answers at $URL, but it is not the demo's (no process serves $STATE/data): left running"
		else
			echo "no demo Chroma is running"
		fi
		return 0
	fi
	for pid in "${pids[@]}"; do
		kill_wait "$pid"
		echo "stopped Chroma (pid $pid)"
	done
	rm -f "$PIDFILE"
}

if [ "${1:-}" = stop ]; then
	stop
	exit 0
fi
[ $# -eq 0 ] || die "unknown argument '$1' (usage: scripts/demo.sh [stop])"

[ -x "$BIN" ] || die "no chromafs binary at $BIN: run \`make build\` (\`make demo\` builds it)"

# start starts Chroma on host:port with its data in the demo's directory
# and waits until it answers. If it does not, it prints the log's end
# (without terminal colours), stops it and exits 1.
start() {
	[ -x "$CHROMA" ] || die "Chroma is not installed (no $CHROMA): run \`make deps-chroma\`"
	command -v node >/dev/null || die "Chroma needs node in PATH (Node.js 20 or later)"
	mkdir -p "$STATE"
	echo "starting Chroma on port $port (data in $STATE/data, log in $LOG)"
	nohup "$CHROMA" run --path "$DATA" --host "$host" --port "$port" >"$LOG" 2>&1 </dev/null &
	local pid=$! deadline=$((SECONDS + WAIT)) why=""
	echo "$pid" >"$PIDFILE"
	until up; do
		if ! alive "$pid"; then
			why="Chroma exited while starting"
		elif [ "$SECONDS" -ge "$deadline" ]; then
			why="Chroma did not answer at $URL within ${WAIT}s"
		else
			sleep 0.2
			continue
		fi
		kill_wait "$pid"
		rm -f "$PIDFILE"
		printf 'scripts/demo.sh: %s; %s ends with:\n' "$why" "$LOG" >&2
		tail -n 20 "$LOG" | sed "s/$(printf '\033')\[[0-9;]*[A-Za-z]//g" >&2
		exit 1
	done
}

if [ -n "$scheme" ]; then
	mapfile -t running < <(demo_pids)
	if up; then
		if [ ${#running[@]} -gt 0 ] && [ ! -d "$DATA" ]; then
			# Its database is gone (rm -rf $STATE): every write would
			# fail with "attempt to write a readonly database".
			echo "the demo's Chroma (pid ${running[*]}) lost its data directory $STATE/data: restarting it"
			stop
			start
		fi
	else
		if [ ${#running[@]} -gt 0 ]; then
			echo "the demo's Chroma (pid ${running[*]}) does not answer at $URL: restarting it"
			stop
		fi
		case $host in
		localhost | 127.* | ::1) ;;
		*) die "no Chroma answers at $URL; the demo starts one only on this machine (localhost or 127.0.0.1)" ;;
		esac
		if listening; then
			die "$host:$port is taken by a server that is not Chroma (no heartbeat at $URL/api/v2/heartbeat); set CHROMA_URL to a free port, e.g. CHROMA_URL=http://localhost:8001 make demo"
		fi
		start
	fi
fi

# quote prints its arguments as they must be typed at a shell prompt:
# words with characters special to the shell go in single quotes.
quote() {
	local out="" a q="'"
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]]; then
			out+=" $a"
		else
			out+=" '${a//$q/$q\\$q$q}'"
		fi
	done
	printf '%s' "${out# }"
}

run() { printf '\n$ %s\n' "$(quote "$@")"; "$@"; }

# A collection of an earlier demo, embedded with the consistent hash (384
# dimensions), cannot take ngram's 512 in place: ingest refuses, and the
# demo's own collection is written again instead.
if ! "$BIN" ingest --dry-run --no-progress --embedding ngram --rules examples/access.rules examples/docs >/dev/null 2>&1; then
	printf '\n# the collection of an earlier demo is embedded with another function: writing it again\n'
	run "$BIN" ingest --recreate --embedding ngram --rules examples/access.rules examples/docs
else
	run "$BIN" ingest --embedding ngram --rules examples/access.rules examples/docs
fi
run "$BIN" search -n 3 'how do I rotate keys'
run "$BIN" ls /
run "$BIN" ls -l /guides/auth
run "$BIN" tree /
run "$BIN" cat /guides/auth/oauth.mdx
run "$BIN" find / -type f -name '*.md'
run "$BIN" stat /reference/api/users.md
run "$BIN" grep -rn -i 'access.token' /
printf '\n# internal/ is private: invisible without the staff group\n'
run "$BIN" cat /internal/oncall.md || true
run "$BIN" --groups staff tree /internal
run "$BIN" --groups staff grep -rl rotate /
run "$BIN" validate
printf '\nChroma keeps running at %s; stop it with: make stop-demo\n' "$URL"
printf 'Serve it over HTTP and WebDAV with: %s serve --http 127.0.0.1:8080 --webdav 127.0.0.1:8081\n' "CHROMA_URL=$URL CHROMAFS_COLLECTION=$CHROMAFS_COLLECTION $BIN"
