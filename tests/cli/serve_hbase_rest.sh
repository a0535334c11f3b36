#!/usr/bin/env bash
# rowkey serve --hbase-rest with curl, HBase REST's own client: a table made
# through the schema resource, puts (one cell, a CellSet of several rows, a
# raw value), gets (a row, a column, versions, a raw value), multiget, the
# stateless scan, scanners with batches and filters, deletes of a cell, a
# column, a row, and the drop. The rows written over REST are read back
# through the Bigtable API by cbt (the same tables, one server) and must be
# equal; a table cbt makes with splits shows its real regions over REST, and so
# does a table that split under a load of 10,000 rows.
# The XML and protobuf representations both ways (puts, rows, schemas,
# scanners, the cluster's resources), check-and-put and check-and-delete
# (200, and 304 when the check fails), namespaces (default, default:TABLE).
# Hostile requests (bad base64 in JSON and XML, bad JSON, an unknown filter,
# deep or huge XML, a DOCTYPE, bad protobuf, a body over the limit, a
# foreign Host) get their 4xx and the server stays up. A write acknowledged
# over REST survives kill -9.
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
X=text/xml
P=application/x-protobuf
PB="python3 $(dirname "$0")/hbase_pb.py"
acc() { # acc TYPE PATH: GET with Accept: TYPE, as req
	curl -s -o "$T/body" -w '%{http_code}' -H "Accept: $1" "http://$REST$2" >"$T/code"
}
# the XML CellSet in $T/body as cells() prints a JSON one
xcells() {
	python3 -c '
import sys, base64
import xml.etree.ElementTree as ET
d = lambda s: base64.b64decode(s).decode("latin-1")
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "CellSet", root.tag
for r in root.findall("Row"):
    for c in r.findall("Cell"):
        print(d(r.get("key")), d(c.get("column")), d(c.text or ""), sep="|")' "$T/body"
}

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

# ---- XML ----
XR="<?xml version=\"1.0\"?><!-- rows --><CellSet><Row key=\"$(b64 x1)\"><Cell column=\"$(b64 cf:x)\">$(b64 'a<b')</Cell>
  <Cell column=\"$(b64 cf:y)\" timestamp=\"5000\"><![CDATA[$(b64 m1)]]></Cell></Row><Row key=\"$(b64 x2)\"><Cell column=\"$(b64 cf:x)\">$(b64 'x&2')</Cell></Row></CellSet>"
req PUT /t/false-row-key $X "$XR"; expect 200
acc $X /t/x1; expect 200 '<CellSet><Row key="eDE="><Cell column="'; xcells >"$T/got"
printf 'x1|cf:x|a<b\nx1|cf:y|m1\n' | diff - "$T/got" || fail "an XML CellSet read back as XML"
grep -q 'timestamp="5000"' "$T/body" || fail "the XML cell's timestamp: $(cat "$T/body")"
req GET /t/x2; cells | grep -qx 'x2|cf:x|x&2' || fail "an XML put read as JSON"
acc $X '/t/multiget?row=x1&row=x2'; expect 200; [ "$(xcells | wc -l)" = 3 ] || fail "multiget as XML"
acc $X /t/schema; expect 200 '<TableSchema name="t" IS_META="false" IS_ROOT="false"><ColumnSchema name="cf" VERSIONS="3" TTL="2147483647"/>'
req PUT /tx/schema $X '<TableSchema name="tx"><ColumnSchema name="f" VERSIONS="2"/></TableSchema>'; expect 201
req GET /tx/schema; expect 200 '{"name":"f","VERSIONS":"2"'
acc $X /; expect 200 '<TableList>.*<table name="t"/>'
acc $X /version; expect 200 '<Version REST="rowkey-'
acc $X /version/cluster; expect 200 '<ClusterVersion Version="rowkey-'
acc $X /status/cluster; expect 200 '<ClusterStatus regions="[0-9]*" requests="[0-9]*" averageLoad="[0-9.]*"><LiveNodes><Node name="server-0"'
grep -q '</LiveNodes><DeadNodes></DeadNodes></ClusterStatus>' "$T/body" || fail "ClusterStatus: $(cat "$T/body")"
acc $X /s/regions; expect 200 "<TableInfo name=\"s\"><Region id=\"[0-9]*\" startKey=\"\" endKey=\"$(b64 g)\" location=\"server-"
FX="{&quot;type&quot;:&quot;PrefixFilter&quot;,&quot;value&quot;:&quot;$(b64 x)&quot;}"
req POST /t/scanner $X "<Scanner batch=\"10\"><column>$(b64 cf)</column><filter>$FX</filter></Scanner>"; expect 201
SC=$(curl -s -D - -o /dev/null -X POST -H "Content-Type: $X" --data-binary \
	"<Scanner batch=\"10\"><column>$(b64 cf)</column><filter>$FX</filter></Scanner>" \
	"http://$REST/t/scanner" | tr -d '\r' | sed -n 's#^Location: http://[^/]*##p')
acc $X "$SC"; expect 200; xcells >"$T/got"
printf 'x1|cf:x|a<b\nx1|cf:y|m1\nx2|cf:x|x&2\n' | diff - "$T/got" || fail "an XML scanner with a JSON filter"

# ---- protobuf ----
$PB cellset 'p1|cf:x|pv1' 'p1|meta:n|pm' 'p2|cf:x|pv2' >"$T/cs.pb"
req PUT /t/false-row-key $P "@$T/cs.pb"; expect 200
acc $P /t/p1; expect 200; $PB cells "$T/body" >"$T/got" || fail "decoding a CellSet"
printf 'p1|cf:x|pv1\np1|meta:n|pm\n' | diff - "$T/got" || fail "a protobuf CellSet read back"
req GET /t/p2; cells | grep -qx 'p2|cf:x|pv2' || fail "a protobuf put read as JSON"
acc $P /t/schema; expect 200; $PB dump "$T/body" 3,3.2,2 >"$T/got"
grep -qx '1=t' "$T/got" && grep -qx '3.1=cf' "$T/got" && grep -qx '3.4=3' "$T/got" &&
	grep -qx '2.1=IS_META' "$T/got" || fail "TableSchema in protobuf: $(cat "$T/got")"
$PB schema tp f:4 >"$T/sc.pb"; req PUT /tp/schema $P "@$T/sc.pb"; expect 201
req GET /tp/schema; expect 200 '{"name":"f","VERSIONS":"4"'
acc $P /; expect 200; $PB dump "$T/body" | grep -x '1=tp' >/dev/null || fail "TableList in protobuf"
acc $P /version; expect 200; $PB dump "$T/body" | grep '^1=rowkey-' >/dev/null || fail "Version in protobuf"
acc $P /status/cluster; expect 200; $PB dump "$T/body" 1,1.6 >"$T/got"
grep -qx '1.1=server-2' "$T/got" && grep -q '^5=' "$T/got" || fail "status in protobuf: $(cat "$T/got")"
acc $P /s/regions; expect 200; $PB dump "$T/body" 2 >"$T/got"
grep -qx '1=s' "$T/got" && grep -qx '2.3=g' "$T/got" || fail "TableInfo in protobuf: $(cat "$T/got")"
acc $P /version/cluster; expect 406 "no protobuf"
$PB scanner 1 "{\"type\":\"PrefixFilter\",\"value\":\"$(b64 p)\"}" >"$T/scan.pb"
SC=$(curl -s -D - -o /dev/null -X POST -H "Content-Type: $P" --data-binary @"$T/scan.pb" \
	"http://$REST/t/scanner" | tr -d '\r' | sed -n 's#^Location: http://[^/]*##p')
[ -n "$SC" ] || fail "a protobuf Scanner"
acc $P "$SC"; expect 200; $PB cells "$T/body" >"$T/got"
echo 'p1|cf:x|pv1' | diff - "$T/got" || fail "a protobuf scanner's first batch of one cell"

# ---- check-and-put, check-and-delete ----
ck() { # ck ROW COL VALUE... CHECK-VALUE: a CellSet of one row, the last cell the check
	local row=$1 col=$2 cells=()
	shift 2
	for v in "$@"; do cells+=("$row|$col|$v"); done
	cellset "${cells[@]}"
}
req PUT '/t/c1?check=put' $J "$(ck c1 cf:x new wrong)"; expect 304
req GET /t/c1/cf:x; expect 404 # a failed check-and-put wrote nothing
req PUT /t/c1/cf:x $J "$(cellset 'c1|cf:x|old')"; expect 200
req PUT '/t/c1?check=put' $J "$(ck c1 cf:x new wrong)"; expect 304
req PUT '/t/c1?check=put' $J "$(ck c1 cf:x new old)"; expect 200
req GET /t/c1/cf:x; cells >"$T/got"; echo 'c1|cf:x|new' | diff - "$T/got" || fail "check-and-put"
req POST '/t/c1?check=put' $X "<CellSet><Row key=\"$(b64 c1)\"><Cell column=\"$(b64 cf:x)\">$(b64 newer)</Cell><Cell column=\"$(b64 cf:x)\">$(b64 new)</Cell></Row></CellSet>"
expect 200
req GET /t/c1/cf:x; cells | grep -qx 'c1|cf:x|newer' || fail "check-and-put in XML"
req PUT '/t/c1?check=put' $J "$(ck c1 cf:x newer)"; expect 400 "check"
req PUT '/t/c1?check=put' $J "$(cellset 'c1|cf:y|v' 'c1|cf:x|newer')"; expect 400 "do not match"
req PUT '/t/c1?check=append' $J "$(ck c1 cf:x a b)"; expect 400 "not supported"
req PUT /t/c1/meta:n $J "$(cellset 'c1|meta:n|keep')"; expect 200
req PUT '/t/c1?check=delete' $J "$(ck c1 cf:x wrong)"; expect 304
req GET /t/c1/cf:x; expect 200
req DELETE '/t/c1/cf:x?check=delete'; expect 400 "PUT or POST"
req GET /t/c1/cf:x; expect 200
req PUT '/t/c1?check=delete' $J "$(ck c1 cf:x newer)"; expect 200
req GET /t/c1; cells >"$T/got"; echo 'c1|meta:n|keep' | diff - "$T/got" || fail "check-and-delete"
req PUT '/t/c1?check=delete' $J "$(cellset 'c1|meta:n|' 'c1|meta:n|keep')"; expect 200
req GET /t/c1; expect 404

# ---- namespaces ----
req GET /namespaces; expect 200 '^{"Namespace":\["default"\]}$'
acc $X /namespaces; expect 200 '<Namespaces><Namespace>default</Namespace></Namespaces>'
acc $P /namespaces; expect 200; $PB dump "$T/body" | grep -x '1=default' >/dev/null || fail "Namespaces in protobuf"
req GET /namespaces/default; expect 200 '^{}$'
req GET /namespaces/default/tables; expect 200 '{"name":"t"}'
req GET /namespaces/hbase; expect 404 "only default"
req GET /namespaces/hbase/tables; expect 404
req POST /namespaces/n2 $J '{}'; expect 403 "cannot be made"
req DELETE /namespaces/default; expect 403 "cannot be dropped"
req PUT /namespaces/default $J '{}'; expect 403
req GET /default:t/p1; expect 200; cells | grep -qx 'p1|cf:x|pv1' || fail "default:t"
req GET /hbase:meta/schema; expect 404 "namespace hbase"

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
req PUT /t/x text/plain 'x'; expect 415
acc text/plain /t/schema; expect 406
python3 -c 'print("<CellSet>" + "<Row>" * 100 + "</Row>" * 100 + "</CellSet>")' >"$T/deep.xml"
req PUT /t/x $X "@$T/deep.xml"; expect 400 "nested more than 32"
req PUT /t/x $X '<CellSet><Row key="!!"><Cell column="Y2Y6eA==">eA==</Cell></Row></CellSet>'; expect 400 "not base64"
req PUT /t/x $X '<CellSet><Row key="eA=="><Cell column="Y2Y6eA==">e!A=</Cell></Row></CellSet>'; expect 400 "not base64"
req PUT /t/x $X '<!DOCTYPE CellSet [<!ENTITY a "aaaa">]><CellSet/>'; expect 400 "DOCTYPE"
req PUT /t/x $X '<CellSet><Row key="eA==">&a;</Row></CellSet>'; expect 400 "entity"
req PUT /t/x $X '<CellSet><Row key="eA=="><Cell>'; expect 400 "never ends"
req PUT /t/schema $X '<CellSet/>'; expect 400 "not <TableSchema>"
printf '<TableSchema name="t"><ColumnSchema name="c\001f"/></TableSchema>' >"$T/ctl.xml"
req PUT /t/schema $X "@$T/ctl.xml"; expect 400 "control character (0x01)"
req PUT /t/schema $X '<TableSchema name="t&#27;"/>'; expect 400 "bad character reference"
req POST /t/scanner $X "<Scanner><filter>{&quot;type&quot;:&quot;SingleColumnValueFilter&quot;}</filter></Scanner>"
expect 400 "SingleColumnValueFilter"
python3 -c 'import sys; sys.stdout.write("<CellSet>" + "<!-- padding -->" * (66 << 16) + "</CellSet>")' >"$T/huge.xml"
req PUT /t/x $X "@$T/huge.xml"; expect 413
req PUT /t/x $P 'xx'; expect 400 "protobuf CellSet"
printf '\x0a\x06\x0a\x01x\xa0\x06\x01' >"$T/unknown.pb"; req PUT /t/x $P "@$T/unknown.pb"; expect 400 "field 100"
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
