#!/usr/bin/env bash
# Installs the Debian packages rowkey needs to build and test, if any are missing.
# Idempotent: a no-op when everything is present. Needs root only when something is missing.
set -euo pipefail
pkgs=(cmake make gcc pkg-config libssl-dev libxxhash-dev libcmocka-dev libleveldb-dev python3 xxhash libgrpc-dev protobuf-c-compiler libprotobuf-c-dev libcairo2-dev fonts-dejavu-core libre2-dev g++ libmicrohttpd-dev
      libsnappy-dev lowdown libjansson-dev) # libsnappy-dev: LevelDB's static library needs it; lowdown:
# rowkey-schema(5) from docs/schema.md; libjansson-dev: serve --hbase-rest's JSON. The completion tests use zsh and bash-completion:
pkgs+=(zsh bash-completion)
# The generated encoders' tests (tests/gen/run.sh) compile and run them: Go, a
# JDK (a javac already installed will do), Node and npm (TypeScript itself comes
# from npm into the build directory); python3 is above.
pkgs+=(golang-go)
command -v javac >/dev/null 2>&1 || pkgs+=(default-jdk-headless)
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
# The browser tests (the HTML report, the live page) drive Debian's headless
# chromium, so every machine that runs make check has it, not only CI's.
pkgs+=(chromium)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "rowkey: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "rowkey: these packages are missing and this is not root: ${missing[*]}" >&2
    echo "rowkey: run as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
$SUDO apt-get install -y -qq "${missing[@]}"
