#!/usr/bin/env bash
# The generated encoders against the C library (docs/gen.md), one language at
# a time:
#
#   run.sh setup     the designs: every schema of tests/vectors/keys.tsv,
#                    those of designs.txt, and RK_GEN_RANDOM random ones
#                    covering every part of the language (gen_random_schemas
#                    checks that), each with `rowkey vectors` of
#                    RK_GEN_RECORDS records
#   run.sh LANG      java | python | go | ts: `rowkey gen` for every design,
#                    one compile of them all with the language's harness, one
#                    run over every design's vectors: keys byte for byte, the
#                    same refusals (invalid, too long, corrupt), records back
#                    from keys, damaged keys, the planner's ranges, key order
#
# ctest runs setup once (a fixture), then the four languages. The toolchains
# come from Debian (scripts/deps.sh); TypeScript from npm, into the build
# directory, the first time (exit 77, skipped, when npm cannot fetch it).
set -euo pipefail
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
SRC=${RK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
W=${RK_BINARY_DIR:-/tmp}/gen-test
RECORDS=${RK_GEN_RECORDS:-400}
RANDOM_DESIGNS=${RK_GEN_RANDOM:-200}
H=$SRC/tests/gen

need() { # need TOOL...: the toolchains scripts/deps.sh installs
	for t in "$@"; do
		command -v "$t" >/dev/null || { echo "FAIL: $t is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
	done
}

designs() { # "name<TAB>schema" lines
	nl -w1 -s$'\t' "$W/schemas.txt" | sed 's/^/d/'
}

generate() { # generate LANG DIR [gen options]: every design into DIR
	local lang=$1 dir=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	designs | while IFS=$'\t' read -r name schema; do
		"$ROWKEY" gen --lang "$lang" --name "$name" -s "$schema" -o "$dir" "$@" >/dev/null
		echo "$name $W/vectors/$name.jsonl" >>"$dir/manifest"
	done
}

case ${1:-} in
setup)
	rm -rf "$W"
	mkdir -p "$W/vectors"
	{
		grep -v '^#' "$SRC/tests/vectors/keys.tsv" | cut -f1 | awk 'NF && !seen[$0]++'
		grep -v '^#' "$H/designs.txt"
		"${RK_GEN_RANDOM_SCHEMAS:?the gen_random_schemas program}" "$RANDOM_DESIGNS" 1
	} >"$W/schemas.txt"
	designs | while IFS=$'\t' read -r name schema; do
		"$ROWKEY" vectors -s "$schema" -n "$RECORDS" --seed "${name#d}" -o "$W/vectors/$name.jsonl"
	done
	echo "gen setup: $(wc -l <"$W/schemas.txt") designs, $RECORDS records each"
	;;
java)
	need javac java
	D=$W/java
	generate java "$D"
	cp "$H/Harness.java" "$D/"
	# Java 8: what the generated code promises; every lint warning an error.
	# The JIT's first tier only: a third of the CPU time for runs this short.
	(cd "$D" && javac -J-XX:TieredStopAtLevel=1 --release 8 -Xlint:all -Werror -d classes ./*.java)
	java -XX:TieredStopAtLevel=1 -cp "$D/classes" Harness "$D/manifest"
	;;
python)
	need python3
	generate python "$W/python"
	python3 "$H/harness.py" "$W/python" "$W/python/manifest"
	;;
go)
	need go
	D=$W/go
	generate go "$D" --package main
	cp "$H/harness.go" "$D/"
	{
		printf 'package main\n\nimport "reflect"\n\nvar designs = map[string]design{\n'
		while read -r name _; do
			T=D${name#d}
			printf '\t"%s": {func(s uint64) interface{} { return New%sCodec(s) }, reflect.TypeOf(%s{}), %sSchema, %sFormatVersion, %sBuckets},\n' \
				"$name" "$T" "$T" "$T" "$T" "$T"
		done <"$D/manifest"
		printf '}\n'
	} >"$D/registry.go"
	printf 'module rkgentest\n\ngo 1.19\n' >"$D/go.mod"
	export GOCACHE=${RK_BINARY_DIR:-/tmp}/gen-go-cache GOPATH=$W/gopath GOPROXY=off GOFLAGS=-mod=mod
	# generated Go is what gofmt would write, and vet finds nothing in it
	unformatted=$(cd "$D" && gofmt -l ./d*.go rowkey_runtime.go)
	[ -z "$unformatted" ] || { echo "FAIL: not gofmt's format: $unformatted" >&2; exit 1; }
	(cd "$D" && go vet . && go build -o harness .)
	"$D/harness" "$D/manifest"
	;;
ts)
	TOOLS=${RK_BINARY_DIR:-/tmp}/gen-ts-tools
	if [ ! -x "$TOOLS/node_modules/.bin/tsc" ]; then
		command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node and npm are needed"; exit 77; }
		mkdir -p "$TOOLS"
		cp "$H/package.json" "$TOOLS/"
		echo "installing TypeScript from npm into $TOOLS"
		if ! (cd "$TOOLS" && npm install --no-audit --no-fund --loglevel=error >npm.log 2>&1); then
			tail -5 "$TOOLS/npm.log"
			echo "skipped: npm could not install TypeScript (is the npm registry reachable?)"
			exit 77
		fi
	fi
	D=$W/ts
	generate ts "$D"
	# strict, and ES2020 alone: the generated code may use no platform API (DOM, Node)
	cat >"$D/tsconfig.json" <<-'EOF'
	{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs", "lib": ["es2020"],
	 "noUnusedLocals": true, "noUnusedParameters": true, "noImplicitReturns": true,
	 "noFallthroughCasesInSwitch": true, "outDir": "out"}, "include": ["*.ts"]}
	EOF
	(cd "$D" && "$TOOLS/node_modules/.bin/tsc" -p .)
	node "$H/harness.js" "$D/out" "$D/manifest"
	;;
*)
	echo "usage: run.sh setup|java|python|go|ts" >&2
	exit 2
	;;
esac
