#!/usr/bin/env bash
# One way to say things, in every command: an unknown command or option is
# reported once, on stderr, with the closest real one ("did you mean") and
# exit 2; a missing or unwanted argument says which option; --help is the
# same table the man pages come from; --version is the build's version.
set -u
R=${ROWKEY:?ROWKEY must point at the rowkey binary}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok()   { passes=$((passes+1)); }
bad()  { echo "FAIL: $*"; fails=$((fails+1)); }
# run ARGS...: stdout in $T/out, stderr in $T/err, status in $rc
run() { "$R" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
# says WANT_RC 'first stderr line' ARGS...: the message, once, and the status
says() {
	local want_rc=$1 msg=$2; shift 2
	run "$@"
	[ "$rc" = "$want_rc" ] || { bad "rowkey $*: exit $rc, want $want_rc"; return; }
	[ "$(head -1 "$T/err")" = "$msg" ] || { bad "rowkey $*: said '$(head -1 "$T/err")', want '$msg'"; return; }
	# reported once: the message and a pointer to --help, nothing more
	[ "$(grep -c . "$T/err")" -le 2 ] || { bad "rowkey $*: more than one message: $(cat "$T/err")"; return; }
	[ ! -s "$T/out" ] || { bad "rowkey $*: wrote to stdout"; return; }
	ok
}

says 2 "rowkey: unknown command 'creat' (did you mean 'create'?)" creat t
says 2 "rowkey: unknown command 'regoins' (did you mean 'regions'?)" regoins
says 2 "rowkey: unknown command 'frobnicate'" frobnicate
says 2 "rowkey create: unknown option '--split-treshold' (did you mean '--split-threshold'?)" \
	create --split-treshold 4M t -f d
says 2 "rowkey scan: unknown option '--jsno' (did you mean '--json'?)" scan --jsno t
says 2 "rowkey analyze: unknown option '--servres' (did you mean '--servers'?)" analyze --servres 4
says 2 "rowkey encode: unknown option '--frobnicate'" encode --frobnicate
says 2 "rowkey encode: unknown option '-x'" encode -x
says 2 "rowkey scan: option '--s' is ambiguous: --start, --stop" scan --s a t
says 2 "rowkey scan: option '--json' takes no argument" scan --json=yes t
says 2 "rowkey create: option '--db' needs an argument (DIR)" create t -f d --db
says 2 "rowkey load: option '-s' needs an argument (SCHEMA)" load t -s
says 2 "rowkey: unknown option '--verison' (a command comes first: rowkey <command> [options]; see rowkey --help)" --verison

# --help: on stdout, status 0, the usage line first, every command
for c in $("$R" --help | awk '/^commands:/{on=1; next} on && /^$/{exit} on {print $1}'); do
	run "$c" --help
	if [ "$rc" = 0 ] && head -1 "$T/out" | grep -q "^usage: rowkey $c " && [ ! -s "$T/err" ]; then ok
	else bad "rowkey $c --help: exit $rc, $(head -1 "$T/out")"; fi
done

# --version: the version written once, in CMakeLists.txt
want=$(sed -n 's/^project(rowkey VERSION \([0-9.]*\).*/\1/p' "${RK_SOURCE_DIR:?}/CMakeLists.txt")
run --version
[ "$(cat "$T/out")" = "rowkey $want" ] && ok || bad "--version says '$(cat "$T/out")', want 'rowkey $want'"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
