#!/usr/bin/env bash
# A real full disk: the store on a 1 MiB tmpfs, mounted in a private mount
# namespace (needs root or unprivileged user namespaces; skipped otherwise).
# `rowkey load` fails with ENOSPC naming the table, region server and file;
# opening the store while the disk is still full fails cleanly (LevelDB must
# write to replay its log) and damages nothing; once the tmpfs is grown, the
# store opens, `rowkey check` is clean and every row the load reported
# written is there.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
if [ "${1:-}" != --inside ]; then
	command -v unshare >/dev/null || { echo "skipped: no unshare"; exit 77; }
	unshare -m --propagation private true 2>/dev/null ||
		unshare -rm --propagation private true 2>/dev/null ||
		{ echo "skipped: cannot make a mount namespace"; exit 77; }
	if unshare -m --propagation private true 2>/dev/null; then
		exec unshare -m --propagation private bash "$0" --inside
	fi
	exec unshare -rm --propagation private bash "$0" --inside
fi
T=$(mktemp -d)
trap 'umount "$T/mnt" 2>/dev/null; rm -rf "$T"' EXIT
mkdir "$T/mnt"
mount -t tmpfs -o size=1m tmpfs "$T/mnt" 2>/dev/null || { echo "skipped: cannot mount a tmpfs"; exit 77; }
DB="$T/mnt/db"
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qE -- "$1" "$T/$2" || { echo "--- $2:"; cat "$T/$2"; fail "expected /$1/ in $2"; }; }
SCHEMA='fields user:str, pad:str; key bucket(4, xxh3(user)) user'
PAD=$(printf '%0200d' 0)

"$ROWKEY" create --db "$DB" --servers 2 ev -f d --buckets 4 >/dev/null || fail "create"
{
	echo "user,pad"
	for i in $(seq 1 8000); do echo "user$i,$PAD"; done
} >"$T/in.csv"

"$ROWKEY" load --db "$DB" ev -s "$SCHEMA" --batch 100 "$T/in.csv" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] || { cat "$T/err"; fail "load on a full tmpfs exited $rc, wanted 1"; }
has "table ev: region server [0-9]+: write failed" err
has "engine $DB/rs-00[0-9]: IO error: $DB/rs-00[0-9]/[0-9]+\.(log|ldb): No space left on device" err
N=$(sed -n 's/.*the \([0-9,]*\) rows before line [0-9]* are written.*/\1/p' "$T/err" | tr -d ,)
[ -n "$N" ] && [ "$N" -gt 0 ] || { cat "$T/err"; fail "the load does not say how many rows it wrote"; }

# still full: opening fails, saying so, and leaves the store as it was
"$ROWKEY" check --db "$DB" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc != 0 ]; then
	[ $rc = 1 ] || fail "check on a full disk exited $rc"
	has "No space left on device" err
fi

# room again
mount -o remount,size=64m "$T/mnt" || fail "cannot grow the tmpfs"
"$ROWKEY" check --db "$DB" >"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err"; fail "check after the full disk"; }
head -n $((N + 1)) "$T/in.csv" | "$ROWKEY" encode -s "$SCHEMA" | sort >"$T/want" || fail "encode"
"$ROWKEY" scan --db "$DB" ev --keys-only | sort >"$T/have" || fail "scan"
MISSING=$(comm -23 "$T/want" "$T/have" | wc -l)
[ "$MISSING" = 0 ] || fail "$MISSING of the $N rows reported written are missing"
"$ROWKEY" load --db "$DB" ev -s "$SCHEMA" --batch 100 "$T/in.csv" >"$T/out" 2>"$T/err" ||
	{ cat "$T/err"; fail "load after the full disk"; }
[ "$("$ROWKEY" scan --db "$DB" ev --count)" = 8000 ] || fail "8000 rows expected after the second load"
echo "store full disk (tmpfs): ok ($N rows written before the disk filled)"
