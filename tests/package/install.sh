#!/usr/bin/env bash
# rowkey as a user installs and links it: `cmake --install` (what make install
# runs) into a fresh DESTDIR, then, from that tree alone:
# - the layout: versioned shared libraries (SONAME librowkey-PART.so.MAJOR),
#   static ones, headers, pkg-config files, the CMake package;
# - one version everywhere: rowkey --version, pkg-config, <rowkey/version.h>;
# - link only what you use: the key part needs libcrypto and libxxhash and
#   nothing of the store, gRPC or cairo; each part exports public rk_ names
#   only (no rk_x__ internals);
# - every program in examples/ built through pkg-config, dynamically and
#   fully static (--static), and run (the Bigtable one against Google's
#   emulator on a free loopback port, skipped when it is not installed);
# - find_package(rowkey) from a CMake project.
# Sanitizer builds (RK_SANITIZE) build the examples with the same flags,
# dynamically only (a sanitizer runtime does not link statically).
set -u
: "${RK_BINARY_DIR:?}" "${RK_SOURCE_DIR:?}"
T=$(mktemp -d)
EPID=
cleanup() {
	[ -n "$EPID" ] && { kill -9 "$EPID" 2>/dev/null; wait "$EPID" 2>/dev/null; }
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$RK_BINARY_DIR/CMakeCache.txt")
DESTDIR="$T/stage" cmake --install "$RK_BINARY_DIR" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "cmake --install"; }
ROOT="$T/stage$prefix"
LIB=$(dirname "$(find "$ROOT" -name 'librowkey-key.so' | head -1)")
[ -d "$LIB" ] || fail "no librowkey-key.so under $ROOT"
export PKG_CONFIG_PATH="$LIB/pkgconfig"
CFLAGS="-std=c11 -Wall -Wextra -Werror -pedantic"
STATIC=1
if [ -n "${RK_SANITIZE:-}" ]; then
	CFLAGS="$CFLAGS -fsanitize=$RK_SANITIZE"
	STATIC=0
fi

# ---- layout ----
version=$(pkg-config --modversion rowkey) || fail "pkg-config rowkey"
major=${version%%.*}
parts="key store analyze"
[ -f "$LIB/librowkey-bigtable.so" ] && parts="$parts bigtable"
for p in $parts; do
	so="$LIB/librowkey-$p.so.$version"
	[ -f "$so" ] || fail "missing $so"
	[ "$(readlink "$LIB/librowkey-$p.so.$major")" = "librowkey-$p.so.$version" ] || fail "librowkey-$p.so.$major"
	[ -f "$LIB/librowkey-$p.a" ] || fail "missing librowkey-$p.a"
	readelf -d "$so" | grep -q "SONAME.*\[librowkey-$p.so.$major\]" || fail "SONAME of $so"
	[ "$(pkg-config --modversion "rowkey-$p")" = "$version" ] || fail "rowkey-$p.pc version"
	# only rk_ names are exported, and none of the rk_x__ internals (which
	# names exactly: exports.sh)
	other=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^rk_' | head -3)
	[ -z "$other" ] || fail "librowkey-$p exports non-rk_ symbols: $other"
	internal=$(nm -D --defined-only "$so" | awk '{print $3}' | grep '__' | head -3)
	[ -z "$internal" ] || fail "librowkey-$p exports internal names: $internal"
done
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
key_needs=$(needed "$LIB/librowkey-key.so")
for lib in leveldb grpc protobuf cairo; do
	case "$key_needs" in *$lib*) fail "librowkey-key needs $lib: $key_needs" ;; esac
done
case "$(needed "$LIB/librowkey-store.so")" in *grpc* | *cairo*) fail "librowkey-store needs gRPC or cairo" ;; esac
for p in $parts; do
	pkg-config --libs rowkey | grep -q -- "-lrowkey-$p" || fail "pkg-config rowkey lacks rowkey-$p"
done
[ -f "$ROOT/include/rowkey/key.h" ] && [ -f "$ROOT/include/rowkey/version.h" ] || fail "headers"
grep -q "#define RK_VERSION \"$version\"" "$ROOT/include/rowkey/version.h" || fail "version.h is not $version"
[ "$("$ROOT/bin/rowkey" --version)" = "rowkey $version" ] || fail "rowkey --version is not $version"

# ---- the examples, through pkg-config ----
EX="$RK_SOURCE_DIR/examples"
build() { # build NAME PART [static]
	local name=$1 part=$2 mode=${3:-}
	local out="$T/$name${mode:+-static}"
	# shellcheck disable=SC2046
	if [ "$mode" = static ]; then
		cc $CFLAGS -static "$EX/$name.c" -o "$out" $(pkg-config --static --cflags --libs "rowkey-$part") \
			>"$T/cc.log" 2>&1 || { grep -v "statically linked applications" "$T/cc.log"; fail "static build of $name"; }
		readelf -d "$out" 2>/dev/null | grep -q NEEDED && fail "$name-static is not static"
	else
		cc $CFLAGS "$EX/$name.c" -o "$out" $(pkg-config --cflags --libs "rowkey-$part") >"$T/cc.log" 2>&1 ||
			{ cat "$T/cc.log"; fail "build of $name"; }
	fi
	echo "$out"
}
run() { # run BINARY ARGS...: output in $T/out
	LD_LIBRARY_PATH="$LIB" "$@" >"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err"; fail "$* exited $?"; }
}
has() { grep -q -- "$1" "$T/out" || { cat "$T/out"; fail "expected '$1'"; }; }
modes=(dynamic)
[ "$STATIC" = 1 ] && modes+=(static)

for m in "${modes[@]}"; do
	mode=${m/dynamic/}
	bin=$(build encode_key key $mode) || exit 1
	if [ -z "$mode" ]; then
		# a key-only program loads nothing of the store, gRPC or cairo
		n=$(needed "$bin" | sed -E 's/lib[a-z]*san\.so\.[0-9]+ //g') # a sanitizer's runtime aside
		[ "$n" = "librowkey-key.so.$major libc.so.6 " ] || fail "encode_key needs: $n"
	fi
	run "$bin"
	has "^key    0a000000077ffffe7756d9d4a7636c69636b0001 (20 bytes, bucket 10 of 16)"
	has "^fields user=7 ts=1686465031000 kind=click"
	has "^damaged key refused: key byte 0: the key does not match its design"

	bin=$(build embedded_store store $mode) || exit 1
	run "$bin" "$T/store$m"
	has "^get bob: bob"
	has "^scan: alice bob mallory zoe"
	has "^regions: 2"
	run "$bin" "$T/store$m" # again: the table is there, the puts add versions
	has "^scan: alice bob mallory zoe"

	bin=$(build plan_query store $mode) || exit 1
	run "$bin" "$T/plan$m"
	has "^where id BETWEEN 10 AND 20: 4 ranges, merge yes"
	has "^ids in order: 10 11 12 13 14 15 16 17 18 19 20$"

	bin=$(build hotspot analyze $mode) || exit 1
	run "$bin" "$T/hot$m.png"
	has "^date-first hottest server"
	has "^salted .*8.0 servers effectively used"
	[ "$(head -c 4 "$T/hot$m.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "hotspot PNG"
done

# ---- Bigtable, through the emulator ----
EMU=/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator
if [[ " $parts " == *" bigtable "* ]] && [ -x "$EMU" ]; then
	"$EMU" --host=127.0.0.1 --port=0 >"$T/emu" 2>&1 &
	EPID=$!
	for _ in $(seq 100); do
		addr=$(sed -n 's/^Cloud Bigtable emulator running on //p' "$T/emu")
		[ -n "$addr" ] && break
		sleep 0.05
	done
	[ -n "$addr" ] || { cat "$T/emu"; fail "the emulator did not start"; }
	for m in "${modes[@]}"; do
		mode=${m/dynamic/}
		bin=$(build bigtable bigtable $mode) || exit 1
		BIGTABLE_EMULATOR_HOST=$addr run "$bin" "bigtable://p/$m"
		has "^greeting#0	cf:text	Hello World!"
		has "^zz-last	cf:text	Hello World!"
		has "^tablets: "
	done
else
	echo "note: the Bigtable example was not run (no Bigtable part or no emulator)"
fi

# ---- find_package(rowkey) ----
mkdir -p "$T/consumer"
cat >"$T/consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(rowkey $version REQUIRED COMPONENTS key store)
add_executable(encode_key $EX/encode_key.c)
target_link_libraries(encode_key PRIVATE rowkey::key)
add_executable(plan_query $EX/plan_query.c)
target_link_libraries(plan_query PRIVATE rowkey::store)
CMAKE
cmake -S "$T/consumer" -B "$T/consumer/build" -DCMAKE_PREFIX_PATH="$ROOT" \
	-DCMAKE_C_FLAGS="${CFLAGS/-pedantic/}" >"$T/cmake.log" 2>&1 &&
	cmake --build "$T/consumer/build" >>"$T/cmake.log" 2>&1 || { cat "$T/cmake.log"; fail "find_package(rowkey)"; }
run "$T/consumer/build/encode_key"
has "^fields user=7"
run "$T/consumer/build/plan_query" "$T/plan-cmake"
has "^ids in order: 10 11"
# a version that is not this one is refused
sed -i "s/find_package(rowkey $version/find_package(rowkey 99.0/" "$T/consumer/CMakeLists.txt"
cmake -S "$T/consumer" -B "$T/consumer/build99" -DCMAKE_PREFIX_PATH="$ROOT" >"$T/cmake.log" 2>&1 &&
	fail "find_package(rowkey 99.0) was accepted"
echo "ok: installed tree, $parts, examples ${modes[*]}, find_package"
