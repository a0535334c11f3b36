#!/usr/bin/env bash
# What the shared libraries export (the build tree's, which are what gets
# installed): the public API and nothing else (cmake/parts.cmake says how
# the parts share internal code instead).
# - every dynamic symbol a part defines is a public function (declared in
#   include/rowkey/, read from the preprocessed headers, so comments do not
#   count); no rk_x__ internal name is exported, and none is needed from
#   another part;
# - every public function is exported, by exactly one part (rk_bigtable_*
#   only when the Bigtable part is built);
# - the shared internals (librowkey-PART-internals.a), of which the parts
#   above carry hidden copies, are safe to copy: no member defines a public
#   name or holds writable data (.data, .bss, thread-local), so no state is
#   ever duplicated. (Not checked under sanitizers, whose instrumentation
#   adds data of its own.)
set -u
: "${RK_BINARY_DIR:?}" "${RK_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
B=$RK_BINARY_DIR
parts="key store analyze"
[ -f "$B/librowkey-bigtable.so" ] && parts="$parts bigtable"
for p in $parts; do [ -f "$B/librowkey-$p.so" ] || fail "no $B/librowkey-$p.so"; done

${CC:-cc} -E -P -I"$RK_SOURCE_DIR/include" -I"$B/include" "$RK_SOURCE_DIR/include/rowkey/rowkey.h" \
	>"$T/pp" || fail "preprocessing include/rowkey/rowkey.h"
grep -oE '(^|[^A-Za-z0-9_])rk_[a-z0-9_]+[[:space:]]*\(' "$T/pp" | grep -oE 'rk_[a-z0-9_]+' |
	grep -v '__' | sort -u >"$T/public"
[ "$(wc -l <"$T/public")" -ge 50 ] || fail "too few public functions found: $(wc -l <"$T/public")"
case " $parts " in *" bigtable "*) ;; *) grep -v '^rk_bigtable_' "$T/public" >"$T/p2"; mv "$T/p2" "$T/public" ;; esac

: >"$T/all"
for p in $parts; do
	so="$B/librowkey-$p.so"
	nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}' | sed 's/@.*//' | sort -u >"$T/def.$p"
	internal=$(grep '__' "$T/def.$p" | head -5 | tr '\n' ' ')
	[ -z "$internal" ] || fail "librowkey-$p exports internal names: $internal"
	stray=$(comm -13 "$T/public" "$T/def.$p" | head -5 | tr '\n' ' ')
	[ -z "$stray" ] || fail "librowkey-$p exports names that include/rowkey/ does not declare: $stray"
	needs=$(nm -D --undefined-only "$so" | awk '{print $2}' | sed 's/@.*//' | grep -E '^rk_.*__' |
		head -5 | tr '\n' ' ')
	[ -z "$needs" ] || fail "librowkey-$p needs internal names of another part: $needs"
	cat "$T/def.$p" >>"$T/all"
done
missing=$(sort -u "$T/all" | comm -23 "$T/public" - | head -5 | tr '\n' ' ')
[ -z "$missing" ] || fail "public functions no part exports: $missing"
twice=$(sort "$T/all" | uniq -d | head -5 | tr '\n' ' ')
[ -z "$twice" ] || fail "names more than one part exports: $twice"

narch=0
for a in "$B"/librowkey-*-internals.a; do
	[ -f "$a" ] || continue
	narch=$((narch + 1))
	pub=$(nm -A --defined-only --extern-only "$a" | awk '$NF !~ /__/ {sub(/^.*\.a:/, "", $1); sub(/:[0-9a-f]*$/, "", $1); print $1, $NF}' | head -3 |
		tr '\n' ' ')
	[ -z "$pub" ] || fail "$(basename "$a") defines names that are not rk_x__ (a copy would export or duplicate them): $pub"
	[ -n "${RK_SANITIZE:-}" ] && continue
	state=$(size -A "$a" | awk '/\(ex / {m=$1} /^\.(data|bss|tdata|tbss)/ && $1 !~ /^\.data\.rel\.ro/ && $2 > 0 {print m, $1}' |
		head -3 | tr '\n' ' ')
	[ -z "$state" ] || fail "$(basename "$a") holds state (each part would have its own): $state"
done
[ "$narch" -gt 0 ] || fail "no librowkey-*-internals.a in $B"
echo "exports: ok ($(wc -l <"$T/public") public functions, no internal names; $narch internals archives hold no state)"
