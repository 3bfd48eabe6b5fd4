#!/usr/bin/env bash
# trixie-libc.sh DIR: fetch Debian 13 (trixie)'s libc6 for amd64 and
# extract it into DIR, for running the Chroma 1.3 test server (whose npm
# bindings need glibc 2.38) on a machine with an older glibc:
#
#   DIR/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
#     --library-path DIR/usr/lib/x86_64-linux-gnu node .../cli.mjs run ...
#
# Nothing is installed system-wide and the system's apt sources are not
# touched: apt-get runs with a sources list, package lists and cache of its
# own in a temporary directory (signatures are checked against
# debian-archive-keyring, which lists the trixie keys from bookworm on).
# DIR/.version records the package version extracted. Environment:
#   DEBIAN_MIRROR   the mirror (default http://deb.debian.org/debian)
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dest="$1"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

fail() {
	echo "trixie-libc: $*" >&2
	exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: fetching Debian 13's libc6 needs a Debian or Ubuntu machine (or set CHROMA_BIN to a Chroma 1.3 executable that runs here)"
command -v dpkg-deb >/dev/null 2>&1 || fail "dpkg-deb not found"
[ -r "$keyring" ] || fail "$keyring not readable: apt-get install debian-archive-keyring"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/sources.list.d" "$tmp/preferences.d"
echo "deb [signed-by=$keyring] $mirror trixie main" >"$tmp/sources.list"
apt_opts=(
	-o "Dir::Etc::SourceList=$tmp/sources.list"
	-o "Dir::Etc::SourceParts=$tmp/sources.list.d"
	-o "Dir::Etc::Preferences=/dev/null"
	-o "Dir::Etc::PreferencesParts=$tmp/preferences.d"
	-o "Dir::State::Lists=$tmp/lists"
	-o "Dir::State::status=/dev/null"
	-o "Dir::Cache=$tmp/cache"
	-o "APT::Architecture=amd64"
	-o "APT::Architectures::=amd64"
	-o "Acquire::Languages=none"
	-o "APT::Sandbox::User=root"
	-o "Debug::NoLocking=1"
)
if ! apt-get "${apt_opts[@]}" -qq update >"$tmp/update.log" 2>&1 || grep -q '^[EW]: Failed' "$tmp/update.log"; then
	cat "$tmp/update.log" >&2
	if grep -q NO_PUBKEY "$tmp/update.log"; then
		fail "$keyring has no Debian 13 (trixie) key: upgrade debian-archive-keyring"
	fi
	fail "could not download the trixie package index from $mirror (no network? set DEBIAN_MIRROR to a reachable Debian mirror)"
fi
if ! (cd "$tmp" && apt-get "${apt_opts[@]}" -qq download libc6:amd64) >"$tmp/download.log" 2>&1; then
	cat "$tmp/download.log" >&2
	fail "could not download libc6 from trixie at $mirror"
fi
deb="$(ls "$tmp"/libc6_*_amd64.deb 2>/dev/null | head -1)"
[ -n "$deb" ] || fail "apt-get download left no libc6 .deb in $tmp"
version="$(dpkg-deb -f "$deb" Version)"

rm -rf "$dest.new"
mkdir -p "$dest.new"
dpkg-deb -x "$deb" "$dest.new"
loader="$dest.new/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
[ -x "$loader" ] || fail "libc6 $version has no $loader"
"$loader" --version 2>/dev/null | sed -n 1p >&2 || true
echo "$version" >"$dest.new/.version"
rm -rf "$dest"
mv "$dest.new" "$dest"
echo "trixie-libc: libc6 $version extracted into $dest" >&2
