#!/usr/bin/env bash
# rowkey rekey on a store rowkey serve holds, with a client writing
# throughout: 200,000 rows loaded under a sequential design (key u64(id)),
# served; a cbt writer overwrites rows spread over the table, adds new ones
# and deletes some, all through the copy, noting each write cbt
# acknowledged; rekey to bucket(8, xxh3(id)) u64(id) (the server runs it:
# the command asks through the admin door), verify, cutover. Then through
# the server the table's name answers with the new design (no row under an
# old key, the count expected), and, the server stopped, every acknowledged
# write is there under its new key (an overwrite's value, a new row, a
# deleted row absent) and nothing else: the rows equal the model exactly.
#
# Ids are chosen so that every byte of the old key is printable (cbt takes
# row keys as arguments). Exits 77 (skipped) without gRPC or cbt.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
R=$ROWKEY
command -v cbt >/dev/null || { echo "skipped: cbt not installed"; exit 77; }
"$R" serve --help 2>&1 | grep -q "has no gRPC" && { echo "skipped: rowkey built without RK_WITH_BIGTABLE"; exit 77; }

T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -n "${RK_KEEP:-}" ] && cp -r "$T" "$RK_KEEP"; exit 1; }

N=200000
OLD='fields id:u64, v:str; key u64(id)'
NEW='fields id:u64, v:str; key bucket(8, xxh3(id)) u64(id)'
# id i: the bytes "AAAAA" and three of 0x30..0x7a (75 values a byte):
# sequential, and every key byte printable
python3 - "$T" "$N" <<'PY'
import sys
t, n = sys.argv[1], int(sys.argv[2])
def key(i):
    return b"AAAAA" + bytes([0x30 + i // 5625, 0x30 + i // 75 % 75, 0x30 + i % 75])
with open(t + "/rows.csv", "w") as f:
    f.write("id,v\n")
    for i in range(n):
        f.write(f"{int.from_bytes(key(i), 'big')},init-{i}\n")
PY
D="$T/db"
"$R" create --db "$D" ev -f d >/dev/null || fail "create"
"$R" load --db "$D" ev -s "$OLD" -q "$T/rows.csv" >/dev/null || fail "load"

"$R" serve --db "$D" --listen 127.0.0.1:0 --servers 2 >"$T/sv.out" 2>"$T/sv.err" &
SV=$!
PIDS+=("$SV")
for _ in $(seq 200); do
	ADDR=$(sed -n 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p' "$T/sv.out")
	[ -n "$ADDR" ] && break
	sleep 0.05
done
[ -n "$ADDR" ] || { cat "$T/sv.err"; fail "rowkey serve did not start"; }
export BIGTABLE_EMULATOR_HOST=$ADDR
CBT=(cbt -project p -instance i)

# The writer: rounds of one cbt import (100 overwrites spread over the
# table, 20 new rows, one MutateRows) and one deleterow; each write is
# noted (ack.log) only once cbt said it was applied. Stops at $T/stop.
python3 - "$T" "$N" <<'PY' &
import random, subprocess, sys, os
t, n = sys.argv[1], int(sys.argv[2])
def key(i):
    return bytes([0x41] * 5 + [0x30 + i // 5625, 0x30 + i // 75 % 75, 0x30 + i % 75]).decode()
cbt = ["cbt", "-project", "p", "-instance", "i"]
rnd = random.Random(7)
ack = open(t + "/ack.log", "w")
r, new = 0, n
while not os.path.exists(t + "/stop"):
    r += 1
    rows = {}
    for _ in range(100):
        rows[rnd.randrange(n)] = f"w{r}"
    for _ in range(20):
        rows[new] = f"new{r}"
        new += 1
    with open(t + "/w.csv", "w") as f:
        f.write(",v\n")
        for i, v in rows.items():
            f.write(f"{key(i)},{v}\n")
    if subprocess.run(cbt + ["import", "ev", t + "/w.csv", "column-family=d", "batch-size=500"],
                      capture_output=True).returncode == 0:
        for i, v in rows.items():
            ack.write(f"set {i} {v}\n")
    d = rnd.randrange(n)
    if subprocess.run(cbt + ["deleterow", "ev", key(d)], capture_output=True).returncode == 0:
        ack.write(f"del {d}\n")
    ack.flush()
PY
WR=$!
PIDS+=("$WR")
sleep 1

"$R" rekey --db "$D" ev -s "$NEW" >"$T/copy.out" 2>"$T/copy.err" || { cat "$T/copy.out" "$T/copy.err"; fail "the copy failed"; }
grep -q "the server runs this step" "$T/copy.err" || { cat "$T/copy.err"; fail "rekey did not go through the server"; }
grep -q "copied .* rows of ev into ev__rekey" "$T/copy.out" || { cat "$T/copy.out"; fail "no copy summary"; }
sleep 1 # writes after the copy: the mirror alone keeps them
"$R" rekey --verify --db "$D" ev >"$T/verify.out" 2>"$T/verify.err" || { cat "$T/verify.out" "$T/verify.err"; fail "the verify is not clean"; }
grep -q "clean" "$T/verify.out" || { cat "$T/verify.out"; fail "no clean verify"; }
# the writer goes on until it has done three rounds (a busy machine slows
# cbt: the test waits for the writes rather than asserting their pace), then
# stops before the cutover: after it, a client must write under the new
# design (what the cutover prints), which this writer does not
for _ in $(seq 600); do
	[ "$(grep -c '^del ' "$T/ack.log" 2>/dev/null)" -ge 3 ] && break
	sleep 0.1
done
touch "$T/stop"
wait "$WR"
"$R" rekey --cutover --db "$D" ev >"$T/cut.out" 2>"$T/cut.err" || { cat "$T/cut.out" "$T/cut.err"; fail "the cutover failed"; }
grep -q "rowkey gen --lang" "$T/cut.out" || { cat "$T/cut.out"; fail "the cutover printed no encoder commands"; }
grep -c . "$T/ack.log" >/dev/null || fail "the writer had nothing acknowledged"
rounds=$(grep -c '^del ' "$T/ack.log")
[ "$rounds" -ge 3 ] || fail "the writer ran only $rounds rounds"

# the model: the loaded rows, with every acknowledged write applied in order
python3 - "$T" "$N" <<'PY' >"$T/want"
import sys
t, n = sys.argv[1], int(sys.argv[2])
rows = {i: f"init-{i}" for i in range(n)}
for line in open(t + "/ack.log"):
    op, i, *v = line.split()
    if op == "set":
        rows[int(i)] = v[0]
    else:
        rows.pop(int(i), None)
for i in sorted(rows):
    print(i, rows[i])
PY

# through the server: the name answers with the new design
"${CBT[@]}" read ev prefix=AAAAA count=5 >"$T/old-keys" 2>&1
grep -q '^AAAAA' "$T/old-keys" && { head "$T/old-keys"; fail "ev still answers with old-design keys after the cutover"; }
kill -TERM "$SV"
wait "$SV" || fail "rowkey serve did not stop cleanly"

# every acknowledged write under its new key, nothing else
"$R" query --db "$D" -t ev >"$T/q" || fail "query of the new table"
python3 - "$T" "$N" <<'PY' >"$T/got"
import sys
t, n = sys.argv[1], int(sys.argv[2])
def idx(k):
    b = k.to_bytes(8, "big")
    return (b[5] - 0x30) * 5625 + (b[6] - 0x30) * 75 + (b[7] - 0x30)
out = []
for line in open(t + "/q").read().splitlines()[1:]:
    f = line.split("\t")
    v = [c[4:] for c in f[2].split() if c.startswith("d:v=")]
    out.append((idx(int(f[0])), v[0] if v else "-"))
for i, v in sorted(out):
    print(i, v)
PY
if ! diff "$T/want" "$T/got" >"$T/diff"; then
	head -20 "$T/diff"
	fail "the rows after the cutover differ from the acknowledged writes ($(grep -c '^[<>]' "$T/diff") lines)"
fi
"$R" regions --db "$D" ev >"$T/regions"
[ "$(grep -c ' ev ' "$T/regions")" = 8 ] || { cat "$T/regions"; fail "ev is not the 8-bucket table"; }
echo "ok: $(grep -c . "$T/want") rows as acknowledged, $rounds writer rounds"
