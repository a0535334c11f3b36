#!/usr/bin/env bash
# rowkey serve --hbase-rest with curl, HBase REST's own client: a table made
# through the schema resource, puts (one cell, a CellSet of several rows, a
# raw value), gets (a row, a column, versions, a raw value), multiget, the
# stateless scan, scanners with batches and filters, deletes of a cell, a
# column, a row, and the drop. The rows written over REST are read back
# through the Bigtable API by cbt (the same tables, one server) and must be
# equal; a table cbt makes with splits shows its real regions over REST, and so
# does a table that split under a load of 10,000 rows.
# Hostile requests (bad base64, bad JSON, an unknown filter, XML, a body over
# the limit, a foreign Host) get their 4xx and the server stays up. A write
# acknowledged over REST survives kill -9.
#
# Both APIs listen on ports the kernel picks. Exits 77 (skipped) when rowkey
# was built without gRPC, or curl, python3 or cbt are missing.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
for tool in curl python3 cbt; do
	command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
if "$ROWKEY" serve --help 2>&1 | grep -q "has no gRPC"; then
	echo "skipped: rowkey built without RK_WITH_BIGTABLE"
	exit 77
fi

T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

start_serve() { # sets SV_PID, GRPC, REST
	: >"$T/sv.out"
	"$ROWKEY" serve --db "$T/db" --listen 127.0.0.1:0 --hbase-rest 127.0.0.1:0 --servers 3 \
		>"$T/sv.out" 2>"$T/sv.err" &
	SV_PID=$!
	PIDS+=("$SV_PID")
	for _ in $(seq 200); do
		GRPC=$(sed -n 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p' "$T/sv.out")
		REST=$(sed -n 's#^rowkey serve: HBase REST on http://\([^/]*\)/$#\1#p' "$T/sv.out")
		[ -n "$GRPC" ] && [ -n "$REST" ] && return 0
		kill -0 "$SV_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$T/sv.out" "$T/sv.err" >&2
	fail "rowkey serve --hbase-rest did not start"
}

b64() { printf %s "$1" | base64 -w0; }
# req METHOD PATH [CONTENT-TYPE BODY]: the status on the first line of
# $T/code, the body in $T/body
req() {
	local m=$1 p=$2
	shift 2
	if [ $# -ge 2 ]; then
		curl -s -o "$T/body" -w '%{http_code}' -X "$m" -H "Content-Type: $1" --data-binary "$2" \
			"http://$REST$p" >"$T/code"
	else
		curl -s -o "$T/body" -w '%{http_code}' -X "$m" -H 'Accept: application/json' \
			"http://$REST$p" >"$T/code"
	fi
}
expect() { # expect STATUS [TEXT-IN-BODY]
	[ "$(cat "$T/code")" = "$1" ] || { cat "$T/body" >&2; fail "status $(cat "$T/code"), expected $1"; }
	[ $# -lt 2 ] || grep -q -- "$2" "$T/body" || { cat "$T/body" >&2; fail "expected '$2' in the body"; }
}
# the CellSet in $T/body as "row|fam:qual|value" lines (no timestamps)
cells() {
	python3 -c '
import json, sys, base64
d = lambda s: base64.b64decode(s).decode("latin-1")
for r in json.load(open(sys.argv[1]))["Row"]:
    for c in r["Cell"]:
        print(d(r["key"]), d(c["column"]), d(c["$"]), sep="|")' "$T/body"
}
cellset() { # cellset "row|col|value" ... -> a CellSet's JSON
	python3 -c '
import json, sys, base64
e = lambda s: base64.b64encode(s.encode()).decode()
rows = {}
for a in sys.argv[1:]:
    k, c, v = a.split("|", 2)
    rows.setdefault(k, []).append({"column": e(c), "$": e(v)})
print(json.dumps({"Row": [{"key": e(k), "Cell": cs} for k, cs in rows.items()]}))' "$@"
}
scanner() { # scanner JSON: POSTs it, the scanner's path in $SC
	req POST /t/scanner application/json "$1"
	expect 201
	SC=$(curl -s -D - -o /dev/null -X POST -H 'Content-Type: application/json' --data-binary "$1" \
		"http://$REST/t/scanner" | tr -d '\r' | sed -n 's#^Location: http://[^/]*##p')
	[ -n "$SC" ] || fail "no Location for a scanner"
}
J=application/json

# a table made small enough to split under a load (the store's own option), for the
# regions resource after a load
"$ROWKEY" create --db "$T/db" grow -f cf --split-threshold 64K >/dev/null || fail "create grow"
start_serve

# ---- cluster and tables ----
req GET /version/cluster; expect 200 '"Version"'
req GET /status/cluster; expect 200 '"LiveNodes"'
grep -q '"name":"server-2"' "$T/body" || fail "status/cluster does not list the 3 servers"
req PUT /t/schema $J '{"name":"t","ColumnSchema":[{"name":"cf","VERSIONS":"3"},{"name":"meta","TTL":"864000"}]}'
expect 201
req GET /t/schema; expect 200 '{"name":"cf","VERSIONS":"3","TTL":"2147483647"}'
grep -q '{"name":"meta","VERSIONS":"1","TTL":"864000"}' "$T/body" || fail "meta's TTL: $(cat "$T/body")"
req PUT /t/schema $J '{"name":"other","ColumnSchema":[{"name":"cf"}]}'; expect 400 "not the table"
req GET /; expect 200 '{"name":"t"}'
req GET /t/exists; expect 200
req GET /nosuch/exists; expect 404

# ---- puts ----
req PUT /t/a/cf:x $J "$(cellset 'a|cf:x|v-a')"; expect 200
req PUT /t/false-row-key $J "$(cellset 'b|cf:x|v-b' 'b|meta:n|b' 'c|cf:x|v-c' 'g|cf:y|w-g' 'k 1|cf:x|v-k1')"
expect 200
req PUT /t/b/cf:x $J "$(cellset 'b|cf:x|second')"; expect 200
req PUT /t/h/cf:raw application/octet-stream 'raw value'; expect 200

# ---- gets ----
req GET /t/b; expect 200; cells >"$T/got"
printf 'b|cf:x|second\nb|meta:n|b\n' | diff - "$T/got" || fail "GET /t/b"
req GET '/t/b/cf:x?v=3'; expect 200; cells >"$T/got"
printf 'b|cf:x|second\nb|cf:x|v-b\n' | diff - "$T/got" || fail "GET /t/b/cf:x?v=3"
req GET '/t/k%201/cf'; expect 200; cells | grep -qx 'k 1|cf:x|v-k1' || fail "an escaped row key"
[ "$(curl -s -H 'Accept: application/octet-stream' "http://$REST/t/h/cf:raw")" = "raw value" ] ||
	fail "a raw value read back"
req GET /t/nope; expect 404
req GET /nosuch/a; expect 404 "table nosuch"
req GET '/t/multiget?row=a&row=nope&row=c'; expect 200; cells >"$T/got"
printf 'a|cf:x|v-a\nc|cf:x|v-c\n' | diff - "$T/got" || fail "multiget"

# ---- stateless scans ----
req GET '/t/*'; expect 200; [ "$(cells | wc -l)" = 7 ] || fail "scan of the table: $(cells)"
req GET '/t/*?startrow=b&endrow=g'; expect 200; cells | cut -d'|' -f1 | sort -u | tr '\n' ' ' >"$T/got"
[ "$(cat "$T/got")" = "b c " ] || fail "startrow/endrow: $(cat "$T/got")"
req GET '/t/*?limit=2'; expect 200; [ "$(cells | cut -d'|' -f1 | sort -u | wc -l)" = 2 ] || fail "limit"
req GET '/t/k*'; expect 200; cells | grep -qx 'k 1|cf:x|v-k1' || fail "prefix scan"
req GET '/t/zz*'; expect 404

# ---- scanners ----
scanner '{"batch":2}'
n=0 rows=""
while :; do
	req GET "$SC"
	[ "$(cat "$T/code")" = 204 ] && break
	expect 200
	[ "$(cells | wc -l)" -le 2 ] || fail "a batch of 2 answered $(cells | wc -l) cells"
	rows="$rows$(cells | cut -d'|' -f1 | tr '\n' ,)"
	n=$((n + 1))
	[ $n -lt 20 ] || fail "the scanner never ended"
done
[ "$rows" = "a,b,b,b,c,g,h,k 1," ] || fail "scanner rows: $rows"
req DELETE "$SC"; expect 200
req GET "$SC"; expect 404
F=$(python3 -c 'import json,base64;print(json.dumps(json.dumps({"type":"FilterList","op":"MUST_PASS_ALL","filters":[
 {"type":"PrefixFilter","value":base64.b64encode(b"b").decode()},
 {"type":"QualifierFilter","op":"EQUAL","comparator":{"type":"BinaryComparator","value":base64.b64encode(b"x").decode()}}]})))')
scanner "{\"filter\":$F,\"maxVersions\":1}"
req GET "$SC"; expect 200; cells >"$T/got"
echo 'b|cf:x|second' | diff - "$T/got" || fail "PrefixFilter + QualifierFilter"
F=$(python3 -c 'import json;print(json.dumps(json.dumps({"type":"ValueFilter","op":"EQUAL","comparator":{"type":"RegexStringComparator","value":"^w"}})))')
scanner "{\"filter\":$F}"
req GET "$SC"; expect 200; cells >"$T/got"
echo 'g|cf:y|w-g' | diff - "$T/got" || fail "ValueFilter with a regex"
F=$(python3 -c 'import json;print(json.dumps(json.dumps({"type":"PageFilter","value":"2"})))')
scanner "{\"filter\":$F,\"column\":[\"$(b64 cf)\"]}"
req GET "$SC"; expect 200; [ "$(cells | cut -d'|' -f1 | sort -u | wc -l)" = 2 ] || fail "PageFilter"
F=$(python3 -c 'import json;print(json.dumps(json.dumps({"type":"KeyOnlyFilter"})))')
scanner "{\"filter\":$F,\"startRow\":\"$(b64 c)\",\"endRow\":\"$(b64 h)\"}"
req GET "$SC"; expect 200; cells >"$T/got"
printf 'c|cf:x|\ng|cf:y|\n' | diff - "$T/got" || fail "KeyOnlyFilter over startRow..endRow"

# ---- the same rows through the Bigtable API (cbt) ----
req GET '/t/*?maxversions=10'; cells | sort >"$T/rest.txt"
BIGTABLE_EMULATOR_HOST=$GRPC cbt -project p -instance i read t >"$T/cbt.raw" 2>&1 || fail "cbt read: $(cat "$T/cbt.raw")"
python3 - "$T/cbt.raw" >"$T/cbt.txt" <<'PY' || fail "reading cbt's output"
import sys, ast
row = col = None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line or line.startswith("---"):
        continue
    if not line.startswith(" "):
        row = line
    elif line.startswith("    "):
        print(row, col, ast.literal_eval(line.strip()), sep="|")
    else:
        col = line.split()[0]
PY
sort "$T/cbt.txt" | diff -u "$T/rest.txt" - || fail "cbt reads other rows than REST (- REST, + cbt)"
BIGTABLE_EMULATOR_HOST=$GRPC cbt -project p -instance i set t z cf:x=from-cbt 2>/dev/null || fail "cbt set"
req GET /t/z; expect 200; cells | grep -qx 'z|cf:x|from-cbt' || fail "a cbt write read over REST"
# a family added over REST while the gRPC side has handles open on the table
req POST /t/schema $J '{"name":"t","ColumnSchema":[{"name":"extra","VERSIONS":2}]}'; expect 200
BIGTABLE_EMULATOR_HOST=$GRPC cbt -project p -instance i ls t 2>/dev/null | grep -q extra ||
	fail "cbt does not see the family added over REST"
# a table made by cbt with split points: its real regions
BIGTABLE_EMULATOR_HOST=$GRPC cbt -project p -instance i createtable s families=f splits=g,p 2>/dev/null ||
	fail "cbt createtable"
req GET /s/regions; expect 200
python3 -c '
import json, sys, base64
r = json.load(open(sys.argv[1]))["Region"]
got = [(base64.b64decode(x["startKey"]), base64.b64decode(x["endKey"])) for x in r]
assert got == [(b"", b"g"), (b"g", b"p"), (b"p", b"")], got
assert all(x["location"].startswith("server-") and x["id"] for x in r)' "$T/body" ||
	fail "regions of s: $(cat "$T/body")"

# ---- deletes ----
req PUT /t/d $J "$(cellset 'd|cf:x|1' 'd|cf:y|2' 'd|meta:n|3')"; expect 200
req DELETE /t/d/cf:x; expect 200
req GET /t/d; cells | grep -q '|cf:x|' && fail "DELETE of a column"
TS=$(python3 -c 'import json;print([c for c in json.load(open("'"$T/body"'"))["Row"][0]["Cell"] if c["column"]=="'"$(b64 cf:y)"'"][0]["timestamp"])')
req DELETE "/t/d/cf:y/$TS"; expect 200
req GET /t/d; cells >"$T/got"; echo 'd|meta:n|3' | diff - "$T/got" || fail "DELETE of a cell"
req DELETE /t/d; expect 200
req GET /t/d; expect 404

# ---- hostile requests: 4xx, and the server stays up ----
req PUT /t/x $J '{"Row":[{"key":"!!notbase64","Cell":[{"column":"Y2Y6eA==","$":"eA=="}]}]}'; expect 400 "not base64"
req PUT /t/x $J '{"Row":[{"key":'; expect 400 "JSON"
req PUT /t/x $J "$(cellset 'x|nofamily:q|v')"; expect 400
F=$(python3 -c 'import json;print(json.dumps(json.dumps({"type":"SingleColumnValueFilter"})))')
req POST /t/scanner $J "{\"filter\":$F}"; expect 400 "SingleColumnValueFilter is not supported"
req POST /t/scanner $J '{"filter":"{\"type\":\"RowFilter\",\"op\":\"NOT_EQUAL\",\"comparator\":{\"type\":\"BinaryComparator\",\"value\":\"YQ==\"}}"}'
expect 400 "NOT_EQUAL"
req POST /t/scanner $J '{"filter":"{\"type\":\"ValueFilter\",\"op\":\"EQUAL\",\"comparator\":{\"type\":\"RegexStringComparator\",\"value\":\"(\"}}"}'
expect 400
req POST /nosuch/scanner $J '{}'; expect 404
req PUT /t/x text/xml '<CellSet/>'; expect 415
req PUT /t/schema text/xml '<TableSchema name="t"/>'; expect 415
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Accept: text/xml' "http://$REST/t/schema")
[ "$code" = 406 ] || fail "Accept: text/xml: status $code"
req PUT /t/x application/x-protobuf 'xx'; expect 415
head -c $((65 << 20)) /dev/zero >"$T/huge"
code=$(curl -s -o "$T/body" -w '%{http_code}' -X PUT -H "Content-Type: $J" --data-binary @"$T/huge" "http://$REST/t/x")
[ "$code" = 413 ] || fail "a 65 MiB body: status $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example' "http://$REST/")
[ "$code" = 403 ] || fail "a foreign Host: status $code"
req GET '/t/%zz'; expect 400
req GET /t/a; expect 200 # still up

# ---- durability: acknowledged, then kill -9 ----
req PUT /t/false-row-key $J "$(cellset 'dur|cf:x|kept' 'dur2|cf:x|kept too')"; expect 200
kill -9 "$SV_PID"; wait "$SV_PID" 2>/dev/null
start_serve
req GET /t/dur2; expect 200; cells | grep -qx 'dur2|cf:x|kept too' || fail "an acknowledged write lost by kill -9"

# ---- the regions of a table that split under the load ----
for b in 0 1 2 3 4 5 6 7 8 9; do
	python3 -c '
import json, sys, base64
e = lambda s: base64.b64encode(s.encode()).decode()
b = int(sys.argv[1])
print(json.dumps({"Row": [{"key": e("row%06d" % (b * 1000 + i)), "Cell": [{"column": e("cf:v"), "$": e("x" * 100)}]}
                          for i in range(1000)]}))' "$b" >"$T/grow.json"
	req PUT /grow/false-row-key $J "@$T/grow.json"; expect 200
done
req GET /grow/regions; expect 200
python3 - "$T/body" <<'PY' || fail "/grow/regions after a load that split: $(head -c 300 "$T/body")"
import json, sys, base64
r = json.load(open(sys.argv[1]))["Region"]
assert len(r) > 1, len(r)
assert r[0]["startKey"] == "" and r[-1]["endKey"] == "", (r[0], r[-1])
for a, b in zip(r, r[1:]):
    assert a["endKey"] == b["startKey"], (a, b)
PY

# ---- drop ----
req DELETE /t/schema; expect 200
req GET /t/schema; expect 404
req GET /t/exists; expect 404
BIGTABLE_EMULATOR_HOST=$GRPC cbt -project p -instance i ls 2>/dev/null | grep -qx t && fail "cbt still lists t"
req DELETE /t/schema; expect 404
kill -TERM "$SV_PID"; wait "$SV_PID" || fail "SIGTERM: exit $?"
echo "ok"
