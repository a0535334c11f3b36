# rowkey: the two commands of the README, plus a few for developers.
#   make demo    install missing Debian packages, build, run the main job
#   make check   install missing Debian packages, build, run every test (ctest)
# Developers: make build, make asan (sanitizer suite), make tsan, make fuzz, make bench,
#   make soak (rowkey serve under load and faults, SOAK_SECONDS, default 300).
# Installing (GNU conventions): make install [PREFIX=/usr/local] [DESTDIR=/staging];
# make uninstall removes what the last install put there.

BUILD     ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
prefix    ?= /usr/local
PREFIX    ?= $(prefix)

.PHONY: all deps configure build check demo readme install uninstall asan tsan fuzz bench soak clean

all: build

deps:
	@scripts/deps.sh

# Configures once; again only for another PREFIX or with CMAKE_ARGS (a build
# re-runs CMake by itself when a CMakeLists.txt changes).
configure: deps
	@if [ -n "$(CMAKE_ARGS)" ] || ! grep -qsx 'CMAKE_INSTALL_PREFIX:PATH=$(PREFIX)' $(BUILD)/CMakeCache.txt; then \
	  cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) \
	    $(CMAKE_ARGS) >/dev/null; fi

build: configure
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

check: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# the demo needs the command only
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target rowkey -- --no-print-directory
	@scripts/demo.sh $(BUILD)

# runs the demo and puts what it printed and drew into README.md and docs/img
readme: configure
	@cmake --build $(BUILD) -j $(JOBS) --target rowkey -- --no-print-directory
	@scripts/readme.sh $(BUILD)

install: build
	@DESTDIR=$(DESTDIR) cmake --install $(BUILD)

uninstall:
	@test -f $(BUILD)/install_manifest.txt || { echo "nothing installed from $(BUILD)"; exit 1; }
	@xargs -d '\n' rm -f -- < $(BUILD)/install_manifest.txt
	@rm $(BUILD)/install_manifest.txt

asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRK_SANITIZE=address,undefined >/dev/null
	@cmake --build build-asan -j $(JOBS) -- --no-print-directory
	@cd build-asan && ctest --output-on-failure -j $(JOBS)

tsan: deps
	@cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DRK_SANITIZE=thread >/dev/null
	@cmake --build build-tsan -j $(JOBS) -- --no-print-directory
	@cd build-tsan && ctest --output-on-failure -j $(JOBS) -L concurrency

fuzz: deps
	@scripts/fuzz.sh $${FUZZ_SECONDS:-60}

# the server built with ASan+UBSan, so its exit runs LeakSanitizer
soak: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRK_SANITIZE=address,undefined >/dev/null
	@cmake --build build-asan -j $(JOBS) --target rowkey -- --no-print-directory
	@scripts/soak_serve.sh $${SOAK_SECONDS:-300} build-asan/rowkey build-asan

bench: build
	@scripts/bench.sh $(BUILD)

clean:
	rm -rf build build-asan build-tsan build-fuzz demo-out
