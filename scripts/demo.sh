#!/usr/bin/env bash
# Starts a local Chroma server (unless one answers already), ingests
# examples/docs into the collection "example-docs" and explores it with
# ls, tree, cat, find and stat, as a public user and as staff.
#
#   scripts/demo.sh        run the demo (the server keeps running)
#   scripts/demo.sh stop   stop the server the demo started
#
# Environment: CHROMA_URL (default http://localhost:8000).
set -euo pipefail
cd "$(dirname "$0")/.."

STATE=.chroma-demo
URL="${CHROMA_URL:-http://localhost:8000}"
export CHROMA_URL="$URL" CHROMAFS_COLLECTION=example-docs
BIN=./bin/chromafs

if [ "${1:-}" = stop ]; then
	if [ -f "$STATE/pid" ]; then kill "$(cat "$STATE/pid")" 2>/dev/null || true; rm -f "$STATE/pid"; echo "stopped"; fi
	exit 0
fi

up() { curl -fsS "$URL/api/v2/heartbeat" >/dev/null 2>&1; }

if ! up; then
	port="${URL##*:}"; port="${port%%/*}"
	mkdir -p "$STATE"
	echo "starting Chroma on port $port (data in $STATE/data, log in $STATE/chroma.log)"
	nohup internal/testenv/chroma/node_modules/.bin/chroma run --path "$STATE/data" --port "$port" \
		>"$STATE/chroma.log" 2>&1 &
	echo $! >"$STATE/pid"
	for _ in $(seq 1 120); do up && break; sleep 0.5; done
	up || { echo "Chroma did not start; see $STATE/chroma.log" >&2; tail -20 "$STATE/chroma.log" >&2; exit 1; }
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

run $BIN ingest --rules examples/access.rules examples/docs
run $BIN ls /
run $BIN ls -l /guides/auth
run $BIN tree /
run $BIN cat /guides/auth/oauth.mdx
run $BIN find / -type f -name '*.md'
run $BIN stat /reference/api/users.md
run $BIN grep -rn -i 'access.token' /
printf '\n# internal/ is private: invisible without the staff group\n'
run $BIN cat /internal/oncall.md || true
run $BIN --groups staff tree /internal
run $BIN --groups staff grep -rl rotate /
run $BIN validate
printf '\nChroma keeps running at %s; stop it with: make stop-demo\n' "$URL"
printf 'Serve it over HTTP and WebDAV with: %s serve --http 127.0.0.1:8080 --webdav 127.0.0.1:8081\n' "CHROMA_URL=$URL CHROMAFS_COLLECTION=$CHROMAFS_COLLECTION $BIN"
