# imgfetch: `make demo` installs what it needs and shows the pipeline; `make test` runs every test.
PREFIX ?= /usr/local
SWIFT ?= swift
# No $ORIGIN RUNPATH: the Swift stdlib is static, and a RUNPATH is a lintian error in the package
# (and would make dlopen look for libcurl and libvips next to the binary first).
# The C++ runtime the static Swift stdlib needs is linked in statically too: a dynamic libstdc++.so.6
# costs every start ~1.6 M instructions of loading and relocation (a cache hit's largest part). swiftc's
# -L comes before the toolchain's, so the linker finds $(LINK_DIR)/libstdc++.so first: a linker script
# naming the archive. --exclude-libs keeps the archives' symbols out of the dynamic symbol table, so
# the libstdc++.so.6 that libvips loads never binds to this copy.
LINK_DIR = .build/link
RELEASE_FLAGS = -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -L$(CURDIR)/$(LINK_DIR) -Xlinker --exclude-libs=ALL
BIN = .build/release/imgfetch

.PHONY: all deps build debug test engines-test faults conformance sanitize tsan fuzz demo scale-demo bench websim bench-instructions deb install uninstall lint clean

all: build

# Debian packages (and PyPI's, for tests) the goals asked for need, installed only when missing: the
# sets of scripts/install-deps.sh, `demo` for make demo, `deb` (lintian) for make deb, `build` for
# make, build, debug and install, `engines` for make engines-test, `test` for the test goals (test,
# sanitize, tsan, fuzz, conformance), all of them for any other goal (make deps itself).
deps_set = $(or $(filter demo deb,$1),$(if $(filter all build debug install,$1),build),$(if $(filter engines-test,$1),engines),$(if $(filter test sanitize tsan fuzz conformance,$1),test),test engines)
DEPS_SETS = $(sort $(foreach g,$(or $(MAKECMDGOALS),all),$(call deps_set,$(g))))
deps:
	@scripts/install-deps.sh $(DEPS_SETS)

build: deps
	@mkdir -p $(LINK_DIR) && echo 'INPUT(libstdc++.a)' > $(LINK_DIR)/libstdc++.so
	$(SWIFT) build $(RELEASE_FLAGS)

debug:
	$(SWIFT) build

# Every test: unit tests (XCTest) and end-to-end tests that run the release binary `make install`
# ships (static stdlib) against a real HTTP server on 127.0.0.1. Every test is XCTest, so the Swift
# Testing runner is off. The classes run in two processes at once (scripts/test-groups.sh: its group
# A, and every other class), each logging to .build/test-groups/; both logs are printed at the end,
# then the last line: "N passed, M failed" of both. Either group failing fails the target.
test: build
	$(SWIFT) build --build-tests
	python3 Tests/Conformance/conformance.py --strict --binary $(CURDIR)/$(BIN)
	IMGFETCH_E2E_BINARY=$(CURDIR)/$(BIN) scripts/test-groups.sh $(SWIFT)

# The README's engine recipes, run as written with the release binary against the test server on
# 127.0.0.1 (Tests/Engines/run.sh): a Slurm array on a one-node cluster of its own (munged, slurmctld,
# slurmd with a private SLURM_CONF; a task cancelled and the array submitted again), Spark's RDD.pipe
# in local[2] mode, GNU parallel --pipepart. About 2 minutes on 2 cores.
engines-test: build
	Tests/Engines/run.sh $(CURDIR)/$(BIN)

# The fault suite of issue 42 (scripts/faults.py, its header has the kinds and the invariants table):
# FAULT_ROUNDS rounds of get or prefetch (--save-remaining, --shard-dir, --shard-tar, a remote tier)
# stopped at a random moment by SIGINT, SIGTERM, SIGHUP, a closed stdout, kill -9, a full disk or a
# read-only cache (the last two in a mount namespace: `unshare -rm`, skipped where user namespaces are
# off), each checked for what it left and for a next run that finishes the job; 3 rounds at once against
# one test server. Prints the seed first (FAULT_SEED=S replays the run), one line per violation, and
# exits 1 on any. FAULT_BURNERS=N runs N busy python3 loops beside it (stopped after). ~2 minutes idle.
FAULT_ROUNDS ?= 300
FAULT_SEED ?=
FAULT_BURNERS ?= 0
faults: build
	python3 scripts/faults.py --binary $(CURDIR)/$(BIN) --rounds $(FAULT_ROUNDS) --burners $(FAULT_BURNERS) \
	  $(if $(FAULT_SEED),--seed $(FAULT_SEED))

# RFC 9111 conformance: imgfetch's scenarios for the 174 ids of http-tests/cache-tests a private
# command-line cache can express (Tests/Conformance/cases.py), run against the release binary; prints
# the pass rates by group, required and optional. --verbose lists every case.
conformance: build
	python3 Tests/Conformance/conformance.py --verbose --binary $(CURDIR)/$(BIN)

# The same tests under AddressSanitizer (Swift and the C shims; libvips, libcurl and libjpeg are not
# instrumented), the end-to-end tests running the sanitized binary. Any report fails the run, also
# one from a child process whose exit status a test does not check (they are logged to files).
# Leak detection is off: the Swift runtime, XCTest and glib keep allocations until exit by design.
ASAN_BUILD = --sanitize=address --scratch-path .build/asan
ASAN_REPORTS = $(CURDIR)/.build/asan/reports
sanitize: deps
	$(SWIFT) build --build-tests $(ASAN_BUILD)
	rm -rf $(ASAN_REPORTS) && mkdir -p $(ASAN_REPORTS)
	ASAN_OPTIONS=detect_leaks=0:log_path=$(ASAN_REPORTS)/asan SWIFT_BACKTRACE=enable=no \
	  IMGFETCH_E2E_BINARY=$(CURDIR)/.build/asan/debug/imgfetch $(SWIFT) test --skip-build $(ASAN_BUILD)
	@if ls $(ASAN_REPORTS)/asan.* >/dev/null 2>&1; then cat $(ASAN_REPORTS)/asan.*; \
	  echo "make sanitize: AddressSanitizer reported errors (above)" >&2; exit 1; fi
	scripts/cnet-stress.sh address

# ThreadSanitizer over CNet's exchange (threads, cancels, lowered limits, the resolver thread:
# scripts/cnet-stress.sh; `make sanitize` runs it under ASan+UBSan), then over a prefetch of TSAN_LINES list lines (alternatives, low-data sources, headers,
# duplicates) with an nginx remote tier, filling it and then reading it; a report with a frame in
# imgfetch's Swift code fails (docs/THREADS.md lists every thread and lock).
TSAN_LINES ?= 300
tsan: deps
	scripts/cnet-stress.sh thread
	scripts/tsan.sh $(TSAN_LINES)

# libFuzzer targets (list, source, headers, meta, listing, direct, numbers, jpeg), each run for FUZZ_SECONDS (default 60).
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

# Serves the bundled sample images on 127.0.0.1, fetches them through imgfetch (a miss, then a hit),
# prefetches a list, and lists the cache.
demo: build
	@scripts/demo.sh $(BIN)

# Many machines, one cache: 4 GNU parallel workers (separate local caches) prefetch one list with
# --shard and a remote cache tier (nginx WebDAV on 127.0.0.1); a fifth worker with an empty cache
# then gets every image from the tier without one origin request. Prints the counts.
scale-demo: build
	@scripts/scale-demo.sh $(BIN)

# Side-by-side figures (ratios) against vipsthumbnail, curl, aria2c and img2dataset on a generated corpus.
# The first run also makes figure 23's 64 finished shards of a 1,000,000-line list (~35 min on 2 busy cores, kept).
# BENCH_1M_CYCLE=1 adds figure 11b (a full eviction cycle into a 1,000,000-entry cache, ~10 min more);
# ONLY=11b runs it alone. Other variables: the header of scripts/bench.sh.
bench: build
	@BENCH_DEPS=1 scripts/install-deps.sh
	@scripts/bench.sh $(BIN)

# A simulated web of WEBSIM_LINES lines (default 20,000) over a tenth as many origins on 127.0.0.0/8,
# inside a network namespace of its own (unshare -rn): healthy, blackhole, slow-drip, throttling,
# flapping, robots.txt, opt-out and redirecting origins, one asyncio server (scripts/websim/). imgfetch
# runs it as 8 shards of --shard-dir --shard-tar --no-keep-original on one cache, then img2dataset 1.47
# (pip, in .build/websim-venv) with the same output; prints wall time, images per CPU-second, peak RSS,
# requests per origin against what it allows, robots.txt fetches, records against lines, the tail, the
# skips. WEBSIM_PROFILES=healthy: every origin healthy (the steady rates, no side waits or hangs).
# A bench, not a test: not in .ci/run.
websim: build
	@scripts/websim/websim.sh $(BIN)

# Instruction counts (valgrind --tool=callgrind) of a cache hit, cold gets from a file and over HTTP and
# a prefetch per image, beside a static Swift hello, djpeg at the same DCT scale and vipsthumbnail, as
# ratios; then every source and output format against vipsthumbnail (issue 44's table, with the floors
# of the PNG and WebP rows); each path's top 10 inclusive costs in .build/instructions/
# (scripts/bench-instructions.sh).
bench-instructions: build
	@BENCH_DEPS=1 scripts/install-deps.sh
	@scripts/bench-instructions.sh $(BIN)

# The Debian package imgfetch_VERSION-1_ARCH.deb of the release binary, in the working tree
# (scripts/make-deb.sh; `apt install ./imgfetch_*.deb` installs it), then lintian's verdict on it
# (errors fail; lintian is installed by scripts/install-deps.sh's deb set, not by DEPS=build).
deb: build
	@deb=$$(scripts/make-deb.sh $(BIN)) && echo "$$deb" && \
	  if command -v lintian >/dev/null; then lintian --allow-root --fail-on error "$$deb"; fi

# The stripped binary, the man page, and the completion scripts where each shell looks for them.
BASH_COMPLETION = share/bash-completion/completions/imgfetch
ZSH_COMPLETION = share/zsh/site-functions/_imgfetch
FISH_COMPLETION = share/fish/vendor_completions.d/imgfetch.fish

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/$(dir $(BASH_COMPLETION)) $(DESTDIR)$(PREFIX)/$(dir $(ZSH_COMPLETION)) \
		$(DESTDIR)$(PREFIX)/$(dir $(FISH_COMPLETION))
	install -m 0755 -s $(BIN) $(DESTDIR)$(PREFIX)/bin/imgfetch
	install -m 0644 man/imgfetch.1 $(DESTDIR)$(PREFIX)/share/man/man1/imgfetch.1
	$(BIN) completions bash > $(DESTDIR)$(PREFIX)/$(BASH_COMPLETION)
	$(BIN) completions zsh > $(DESTDIR)$(PREFIX)/$(ZSH_COMPLETION)
	$(BIN) completions fish > $(DESTDIR)$(PREFIX)/$(FISH_COMPLETION)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/imgfetch $(DESTDIR)$(PREFIX)/share/man/man1/imgfetch.1 \
		$(DESTDIR)$(PREFIX)/$(BASH_COMPLETION) $(DESTDIR)$(PREFIX)/$(ZSH_COMPLETION) $(DESTDIR)$(PREFIX)/$(FISH_COMPLETION)

# mandoc's warnings, but one: EXAMPLES comes right after DESCRIPTION, where a reader looks first, so
# mandoc finds ENVIRONMENT, FILES and EXIT STATUS "out of conventional order" after it.
lint:
	@out=$$(mandoc -Tlint -W warning man/imgfetch.1 2>&1 | grep -v 'sections out of conventional order'); \
	  if [ -n "$$out" ]; then echo "$$out"; exit 1; fi

clean:
	rm -rf .build imgfetch_*.deb
