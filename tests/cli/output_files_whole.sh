#!/usr/bin/env bash
# Files a command writes (a picture, a report, split points, generated code)
# appear whole or not at all: on a real full disk (a tiny tmpfs in a private
# mount namespace; skipped without root or user namespaces) the command
# fails naming the file, the file it was to replace is still the old one,
# and no temporary file is left beside it. A symbolic link to a file keeps
# the link and gets the new file.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
if [ "${1:-}" != --inside ]; then
	command -v unshare >/dev/null || { echo "skipped: no unshare"; exit 77; }
	if unshare -m --propagation private true 2>/dev/null; then
		exec unshare -m --propagation private bash "$0" --inside
	fi
	unshare -rm --propagation private true 2>/dev/null ||
		{ echo "skipped: cannot make a mount namespace"; exit 77; }
	exec unshare -rm --propagation private bash "$0" --inside
fi
T=$(mktemp -d)
trap 'umount "$T/mnt" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$T/mnt"
mount -t tmpfs -o size=64k tmpfs "$T/mnt" 2>/dev/null || { echo "skipped: cannot mount a tmpfs"; exit 77; }
M="$T/mnt"
W=(-w messages --rate 200 --duration 5 --servers 2 --seed 1)
S='fields date:str, time:str, id:u64; key date ":" time ":" id'
n=0
# whole FILE CMD...: FILE holds "old" before; the command must fail on the
# full disk naming FILE, and leave "old" and nothing else
whole() {
	local file=$1
	shift
	rm -f "$M"/*
	echo old >"$file"
	dd if=/dev/zero of="$M/fill" bs=1k 2>/dev/null # the rest of the disk
	"$ROWKEY" "$@" >"$T/out" 2>"$T/err" && { cat "$T/err"; fail "rowkey $* succeeded on a full disk"; }
	grep -q -- "$file" "$T/err" || { cat "$T/err"; fail "rowkey $*: the error does not name $file"; }
	[ "$(cat "$file")" = old ] || fail "rowkey $*: $file is not the old file after the failure"
	[ "$(ls "$M" | wc -l)" = 2 ] || { ls -la "$M"; fail "rowkey $*: a file left beside $file"; }
	n=$((n + 1))
}
whole "$M/r.html" analyze -s "$S" "${W[@]}" --html "$M/r.html"
whole "$M/h.png" analyze -s "$S" "${W[@]}" --png "$M/h.png"
whole "$M/v.jsonl" vectors -s "$S" -n 500 -o "$M/v.jsonl"
whole "$M/splits.txt" suggest "${W[@]}" -n 1 --splits "$M/splits.txt"

# the same commands with room: the new file replaces the old one; through a link
umount "$M"
mount -t tmpfs -o size=16m tmpfs "$M" || fail "remount"
echo old >"$M/real.html"
ln -s real.html "$M/link.html"
"$ROWKEY" analyze -s "$S" "${W[@]}" --html "$M/link.html" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "analyze --html through a link"; }
[ -L "$M/link.html" ] || fail "the link was replaced by a file"
grep -q '<canvas' "$M/real.html" || fail "the linked file was not written"
[ "$(ls "$M" | wc -l)" = 2 ] || { ls -la "$M"; fail "a file left beside the report"; }
echo "output files whole: ok ($n commands on a full disk)"
