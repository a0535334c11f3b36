#!/usr/bin/env bash
# rowkey serve with a real Bigtable client (Google's cbt), side by side with
# Google's emulator: the same cbt scenario runs against both and the outputs
# must be equal (server-assigned timestamps aside: cbt prints them, and the
# two servers' clocks differ). Then what only rowkey serve does: a restart
# (SIGTERM exits 0, SERVING goes, the rows are read back), the store refusing
# a second opener while served and saying where it is served, regions and
# stats of the live server, kill -9 during a client's load losing
# nothing (rowkey check clean).
#
# Both servers listen on ports the kernel picks. Exits 77 (skipped) when
# rowkey was built without gRPC or the emulator / cbt are missing.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
EMU=/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator
if [ ! -x "$EMU" ] || ! command -v cbt >/dev/null; then
	echo "skipped: $EMU or cbt not installed"
	exit 77
fi
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
has() { grep -q -- "$1" "$2" || { echo "--- $2:"; cat "$2"; fail "expected '$1' in $2"; }; }

start_emulator() { # sets EMU_ADDR
	"$EMU" --host=127.0.0.1 --port=0 >"$T/emu.out" 2>&1 &
	PIDS+=("$!")
	for _ in $(seq 200); do
		EMU_ADDR=$(sed -n 's/^Cloud Bigtable emulator running on //p' "$T/emu.out")
		[ -n "$EMU_ADDR" ] && return 0
		sleep 0.05
	done
	cat "$T/emu.out" >&2
	fail "the emulator did not start"
}

start_serve() { # start_serve DB: sets SV_PID, SV_ADDR
	: >"$T/sv.out" # emptied here: the server's own redirection may come after the first read
	"$ROWKEY" serve --db "$1" --listen 127.0.0.1:0 --servers 3 >"$T/sv.out" 2>"$T/sv.err" &
	SV_PID=$!
	PIDS+=("$SV_PID")
	for _ in $(seq 200); do
		SV_ADDR=$(sed -n 's/^rowkey serve: listening on \([^ ]*\) .*/\1/p' "$T/sv.out")
		[ -n "$SV_ADDR" ] && return 0
		kill -0 "$SV_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$T/sv.out" "$T/sv.err" >&2
	fail "rowkey serve did not start"
}

# the cbt scenario both servers run: scenario ADDR (lib/cbt_scenario.sh)
. "$(dirname "$0")/lib/cbt_scenario.sh"

start_emulator
DB="$T/db"
start_serve "$DB"
scenario "$EMU_ADDR" >"$T/emu.txt" 2>&1
scenario "$SV_ADDR" >"$T/sv.txt" 2>&1
if ! diff -u "$T/emu.txt" "$T/sv.txt" >"$T/diff"; then
	cat "$T/diff" >&2
	fail "cbt sees rowkey serve differently from the emulator (diff above: - emulator, + rowkey)"
fi
grep -q "v-zz" "$T/sv.txt" || fail "the scenario read nothing back"

# the store is held: another command says who serves it, and where
"$ROWKEY" scan --db "$DB" t >"$T/out" 2>"$T/err" && fail "rowkey scan opened a served store"
has "served by rowkey serve (pid $SV_PID) at $SV_ADDR" "$T/err"
[ -f "$DB/SERVING" ] || fail "no $DB/SERVING while serving"

# its load, live: rowkey regions and stats read the metrics it writes every 5 s
sleep 5.5
"$ROWKEY" regions --db "$DB" t >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "rowkey regions on a served store"; }
has "served by rowkey serve (pid $SV_PID)" "$T/err"
[ "$(grep -c '^[0-9]' "$T/out")" = 3 ] || { cat "$T/out"; fail "expected the 3 regions of t (splits g, p)"; }
# (columns: id table server size, then the cells written and read since born)
[ "$(grep -cE '^[0-9]+ +t +[0-9]+ +([0-9.]+ [KMG]?i?B|-) +[1-9][0-9,]* cells +[0-9,]+ cells ' "$T/out")" = 3 ] ||
	{ cat "$T/out"; fail "every region of t took writes"; }
"$ROWKEY" stats --db "$DB" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "rowkey stats on a served store"; }
has "served by rowkey serve (pid $SV_PID) at $SV_ADDR" "$T/out"
has "^t  *3 " "$T/out"

# SampleRowKeys answers the table's regions: g and p split it (cbt has no
# sample command; rowkey regions reads the regions after the stop below)

# restart: SIGTERM drains and exits 0, the rows come back
c "$SV_ADDR" read t | nots >"$T/before.txt"
kill -TERM "$SV_PID"
wait "$SV_PID"; rc=$?
[ "$rc" = 0 ] || { cat "$T/sv.err" >&2; fail "rowkey serve exited $rc on SIGTERM"; }
[ ! -e "$DB/SERVING" ] || fail "SERVING left behind after a clean stop"
"$ROWKEY" regions --db "$DB" t >"$T/regions" 2>&1 || { cat "$T/regions"; fail "rowkey regions on the stopped store"; }
has "'g'\|g " "$T/regions"
start_serve "$DB"
c "$SV_ADDR" read t | nots >"$T/after.txt"
diff -u "$T/before.txt" "$T/after.txt" || fail "rows differ after a restart"

# kill -9 during a client's load: every write cbt saw acknowledged is there
# after the restart, and rowkey check is clean
# (cbt with a timeout: against a dead server it would retry for ever)
: >"$T/acked"
# (on a loaded machine a cbt call can take longer than its timeout: before
# the kill such a call is tried again, the same row, so it is not an end of
# the load; after the kill, a failed call ends it)
(
	for i in $(seq 1 400); do
		until BIGTABLE_EMULATOR_HOST=$SV_ADDR cbt -project p -instance i -timeout 5s set t "crash$i" cf:x="$i" 2>/dev/null; do
			[ -e "$T/killed" ] && exit 0
		done
		echo "crash$i" >>"$T/acked"
	done
) &
LOADER=$!
deadline=$(($(date +%s) + 300))
while [ "$(wc -l <"$T/acked")" -lt 10 ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.05; done
touch "$T/killed"
kill -9 "$SV_PID"; wait "$SV_PID" 2>/dev/null
wait "$LOADER"
acked=$(wc -l <"$T/acked")
[ "$acked" -ge 10 ] && [ "$acked" -lt 400 ] || fail "the kill did not land during the load ($acked of 400 acknowledged)"
"$ROWKEY" check --db "$DB" >"$T/check" 2>&1 || { cat "$T/check"; fail "rowkey check after kill -9"; }
start_serve "$DB"
c "$SV_ADDR" read t prefix=crash keys-only=true | grep '^crash' | sort >"$T/present"
missing=$(sort "$T/acked" | comm -23 - "$T/present" | head -5)
[ -z "$missing" ] || fail "acknowledged before kill -9, gone after: $missing"
kill -TERM "$SV_PID"; wait "$SV_PID" || fail "second SIGTERM stop"

# the balancer runs while serving: all of a table's regions on one server
# spread over the servers within --balance-every
B="$T/bal"
"$ROWKEY" create --db "$B" --servers 3 bt -f d --split g --split p >/dev/null || fail "create bt"
for id in $("$ROWKEY" regions --db "$B" bt | awk '/^[0-9]/ { print $1 }'); do
	"$ROWKEY" regions --db "$B" move "$id" 0 >/dev/null || fail "move $id"
done
[ "$("$ROWKEY" regions --db "$B" bt | awk '/^[0-9]/ && $3 != 0' | wc -l)" = 0 ] || fail "setup: not all on server 0"
# (and with a block cache of its own size; a size that is not one is refused)
timeout 10 "$ROWKEY" serve --db "$B" --listen 127.0.0.1:0 --block-cache 65G >/dev/null 2>"$T/bc.err"
[ $? = 2 ] || fail "--block-cache 65G: not refused as a usage error"
has "block-cache: 65G is not in 0 B..64 GiB" "$T/bc.err"
"$ROWKEY" serve --db "$B" --listen 127.0.0.1:0 --balance-every 1 --block-cache 16 >"$T/bal.out" 2>"$T/bal.err" &
BPID=$!
PIDS+=("$BPID")
for _ in $(seq 200); do grep -q "balancer moved" "$T/bal.err" && break; sleep 0.05; done
kill -TERM "$BPID"; wait "$BPID" || fail "balancing server did not stop cleanly"
has "balancer moved 2 regions" "$T/bal.err"
[ "$("$ROWKEY" regions --db "$B" bt | awk '/^[0-9]/ { print $3 }' | sort -u | wc -l)" = 3 ] ||
	{ "$ROWKEY" regions --db "$B" bt; fail "the regions of bt are not on 3 servers"; }
echo "serve_cbt: ok"
