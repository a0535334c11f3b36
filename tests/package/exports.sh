#!/usr/bin/env bash
# What the shared libraries export (the build tree's, which are what gets
# installed): the public API and nothing of the internals but the names one
# part calls in another.
# - every dynamic symbol a part defines is a public function (declared in
#   include/rowkey/, read from the preprocessed headers, so comments do not
#   count) or a name in cmake/rowkey-internal.list;
# - every public function is exported, by exactly one part (rk_bigtable_*
#   only when the Bigtable part is built);
# - every listed internal name is exported by one part and needed by
#   another, so the list cannot grow past what the parts use.
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
grep -E '^rk_' "$RK_SOURCE_DIR/cmake/rowkey-internal.list" | sort -u >"$T/internal"

: >"$T/all"
for p in $parts; do
	nm -D --defined-only "$B/librowkey-$p.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' |
		sort -u >"$T/def.$p"
	nm -D --undefined-only "$B/librowkey-$p.so" | awk '{print $2}' | sed 's/@.*//' | sort -u >"$T/undef.$p"
	stray=$(sort -u "$T/public" "$T/internal" | comm -13 - "$T/def.$p" | head -5)
	[ -z "$stray" ] || fail "librowkey-$p exports names neither public nor in cmake/rowkey-internal.list: $stray"
	cat "$T/def.$p" >>"$T/all"
done
missing=$(sort -u "$T/all" | comm -23 "$T/public" - | head -5)
[ -z "$missing" ] || fail "public functions no part exports: $missing"
twice=$(sort "$T/all" | uniq -d | head -5)
[ -z "$twice" ] || fail "names more than one part exports: $twice"
for n in $(cat "$T/internal"); do
	def= use=
	for p in $parts; do
		grep -qx "$n" "$T/def.$p" && def=$p
		grep -qx "$n" "$T/undef.$p" && use=$p
	done
	[ -n "$def" ] || fail "$n (cmake/rowkey-internal.list) is exported by no part"
	# a Bigtable-only name is unused when that part is not built
	[ -n "$use" ] || case " $parts " in *" bigtable "*) fail "$n (cmake/rowkey-internal.list) is needed by no other part: drop it" ;; esac
done
nint=$(sort -u "$T/all" | comm -12 - "$T/internal" | wc -l)
echo "exports: ok ($(wc -l <"$T/public") public functions; $nint internal names shared between parts)"
