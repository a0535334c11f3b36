#!/usr/bin/env bash
# What the advisor says a query reads is what the store reads: for designs of one
# chat table (a reverse timestamp, an ascending time read backwards, a key led
# by a field the query does not bind, a computed bucket, a salt of 8), each query
# is priced by rowkey analyze (the planner over the data, the price suggest ranks
# by) and run by rowkey query --stats on a store loaded with the same design; the
# rows read must be equal (a residual filter's price is estimated from the
# design's sampled keys: here every key is sampled; a salt's LIMIT: the price
# is the bound, each of the 8 streams stopping at the limit, so the store reads
# no more).
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
awk 'BEGIN { srand(11); t = 1700000000000; print "uid,ts,len";
	for (i = 0; i < 6000; i++) { t += 1 + int(rand() * 50); u = (i % 5 == 0) ? 7 : 1 + int(rand() * 300);
		printf "%d,%.0f,%d\n", u, t, 1 + int(rand() * 40) } }' >"$T/chat.csv"
F='fields uid:u64, ts:ts, len:u64'
n=0
# design (key), query, how the prices compare: = or >= (the price bounds the store's read)
while IFS='|' read -r key query cmp; do
	n=$((n + 1))
	S="$F; key $key"
	"$ROWKEY" analyze -w file --file "$T/chat.csv" --servers 4 -s "$S" --query "$query" --json >"$T/a.json" 2>"$T/err" ||
		{ cat "$T/err"; fail "analyze $key: $query"; }
	priced=$(python3 -c "import json,sys; q=json.load(open(sys.argv[1]))['queries'][0]; print(round(q['rows_read']), round(q['rows_returned']))" "$T/a.json")
	D="$T/db$n"
	"$ROWKEY" create --db "$D" chat -f d >/dev/null || fail "create"
	"$ROWKEY" load --db "$D" chat -s "$S" "$T/chat.csv" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "load $key"; }
	"$ROWKEY" query --db "$D" -t chat -w "$query" --stats >"$T/rows" 2>"$T/stats" || { cat "$T/stats"; fail "query $key: $query"; }
	read -r ret rd < <(sed -n 's/^rows: \([0-9]*\) returned, \([0-9]*\) read from the store$/\1 \2/p' "$T/stats")
	[ -n "$rd" ] || { cat "$T/stats"; fail "no --stats line"; }
	read -r p_read p_ret <<<"$priced"
	echo "$key | $query: priced $p_read read for $p_ret returned; the store read $rd for $ret"
	[ "$p_ret" = "$ret" ] || fail "$key: $query: priced $p_ret rows returned, the store returned $ret"
	case $cmp in
	=) [ "$p_read" = "$rd" ] || fail "$key: $query: priced $p_read rows read, the store read $rd" ;;
	'>=') [ "$p_read" -ge "$rd" ] || fail "$key: $query: priced $p_read rows read, below the store's $rd" ;;
	esac
done <<'CASES'
u64(uid) u64(rts(ts))|uid = 7 ORDER BY ts DESC LIMIT 20|=
u64(uid) u64(rts(ts))|uid = 7|=
u64(uid) i64(ts)|uid = 7 ORDER BY ts DESC LIMIT 20|=
u64(uid) i64(ts)|uid = 7 AND ts >= 1700000030000 AND ts < 1700000060000|=
u64(len) u64(uid) i64(ts)|uid = 7 ORDER BY ts DESC LIMIT 20|=
u64(len) u64(uid) i64(ts)|len = 3 AND uid = 7|=
u64(uid) i64(ts) u64(len)|uid = 7 AND len = 3|=
bucket(8, xxh3(uid)) u64(uid) u64(rts(ts))|uid = 7 LIMIT 20|=
bucket(8, xxh3(ts)) u64(uid) u64(rts(ts))|uid = 7 ORDER BY ts DESC LIMIT 20|>=
CASES
echo "advisor and store agree: $n queries"
