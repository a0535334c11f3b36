#!/usr/bin/env bash
# CLI tests for rowkey vectors: valid JSON lines in the format of
# docs/formats.md part E, the same file for a seed and another for another
# seed, each record's key what `rowkey encode` gives it, usage errors.
set -u
R=${ROWKEY:?ROWKEY must point at the rowkey binary}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_eq() { if [ "$2" == "$3" ]; then ok; else bad "$1: got [$2] want [$3]"; fi; }
expect_rc() { if [ "$2" -eq "$3" ]; then ok; else bad "$1: exit $2, want $3"; fi; }

S='fields user:u32, ts:ts, kind:str; key bucket(16, xxh3(user)) u32(user) u64(rts(ts)) esc(kind)'

"$R" vectors -s "$S" -n 200 --seed 7 -o "$T/v1.jsonl"
expect_rc vectors $? 0
"$R" vectors -s "$S" -n 200 --seed 7 >"$T/v2.jsonl"
"$R" vectors -s "$S" -n 200 --seed 8 >"$T/v3.jsonl"
if cmp -s "$T/v1.jsonl" "$T/v2.jsonl"; then ok; else bad "vectors differ for one seed"; fi
if cmp -s "$T/v1.jsonl" "$T/v3.jsonl"; then bad "vectors equal for two seeds"; else ok; fi
python3 - "$T/v1.jsonl" >"$T/check" 2>&1 <<'EOF'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
hdr = json.loads(lines[0])
assert hdr["rowkey_vectors"] == 1 and hdr["format"] == 1 and hdr["seed"] == 7 and hdr["buckets"] == 16, hdr
assert [f["name"] for f in hdr["fields"]] == ["user", "ts", "kind"], hdr
kinds = {"encode": 0, "decode": 0, "prefix": 0}
for l in lines[1:]:
    v = json.loads(l)
    k = [x for x in kinds if x in v]
    assert len(k) == 1, v
    kinds[k[0]] += 1
    assert ("error" in v) != ("key" in v or "fields" in v or "ranges" in v), v
    if "error" in v:
        assert v["error"] in ("invalid", "toolong", "corrupt") and v["message"], v
    if "key" in v:
        assert 0 <= v["bucket"] < 16 and isinstance(v["encode"]["ts"], str), v
print(kinds["encode"], kinds["decode"] > 50, kinds["prefix"])
EOF
expect_eq vectors_json "$(cat "$T/check")" "200 True 50"

# every key is the one rowkey encode gives the record (64-bit numbers as
# strings and f64's inf/nan as strings are what its JSON lines take too)
python3 - "$T/v1.jsonl" >"$T/recs.jsonl" 2>"$T/keys.want" <<'EOF'
import json, sys
for l in open(sys.argv[1], encoding="utf-8").read().splitlines()[1:]:
    v = json.loads(l)
    if "key" in v:
        print(json.dumps(v["encode"]))
        print(v["key"], file=sys.stderr)
EOF
"$R" encode -s "$S" -f jsonl --out hex --in "$T/recs.jsonl" >"$T/keys.got"
if cmp -s "$T/keys.got" "$T/keys.want" && [ -s "$T/keys.got" ]; then ok; else bad "vectors' keys differ from rowkey encode's"; fi

# a random salt: the vectors' encoder draws as `rowkey encode --seed` does,
# refused records included
RS='fields user:u32, kind:str; key random(8) u32(user) kind'
"$R" vectors -s "$RS" -n 300 --seed 11 -o "$T/r.jsonl"
python3 - "$T/r.jsonl" >"$T/rrecs.jsonl" 2>"$T/rkeys.want" <<'EOF'
import json, sys
for l in open(sys.argv[1], encoding="utf-8").read().splitlines()[1:]:
    v = json.loads(l)
    if "encode" in v:
        print(json.dumps(v["encode"]))
        if "key" in v:
            print(v["key"], file=sys.stderr)
EOF
"$R" encode -s "$RS" -f jsonl --out hex --seed 11 --on-error skip --in "$T/rrecs.jsonl" >"$T/rkeys.got" 2>/dev/null
if cmp -s "$T/rkeys.got" "$T/rkeys.want" && [ -s "$T/rkeys.got" ]; then ok; else bad "random salts differ from rowkey encode --seed's"; fi

"$R" vectors -s "$S" -n -3 2>"$T/err"
expect_rc vectors_bad_n $? 2
"$R" vectors -n 3 2>"$T/err"
expect_rc vectors_no_schema $? 2
"$R" vectors -s "$S" -n 3 -o "$T/no/such/dir/v.jsonl" 2>"$T/err"
expect_rc vectors_bad_out $? 1

echo "vectors_commands: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
