# imgfetch: `make demo` installs everything and shows the pipeline; `make test` runs every test.
PREFIX ?= /usr/local
SWIFT ?= swift
RELEASE_FLAGS = -c release --static-swift-stdlib
BIN = .build/release/imgfetch

.PHONY: all deps build debug test conformance demo bench install uninstall lint clean

all: build

# Debian packages the build, the tests and the demo need (installed only when missing).
deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(RELEASE_FLAGS)

debug:
	$(SWIFT) build

# Every test: unit tests (XCTest) and end-to-end tests that run the built binary against a real
# HTTP server on 127.0.0.1.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	python3 Tests/Conformance/conformance.py --strict

# RFC 9111 conformance: imgfetch's scenarios for the 174 ids of http-tests/cache-tests a private
# command-line cache can express (Tests/Conformance/cases.py), run against the debug binary; prints
# the pass rates by group, required and optional. --verbose lists every case.
conformance: deps
	$(SWIFT) build
	python3 Tests/Conformance/conformance.py --verbose

# Serves the bundled sample images on 127.0.0.1, fetches them through imgfetch (a miss, then a hit),
# prefetches a list, and lists the cache.
demo: build
	@scripts/demo.sh $(BIN)

# Side-by-side figures (ratios) against vipsthumbnail, curl and aria2c on a generated corpus.
bench: build
	@BENCH_DEPS=1 scripts/install-deps.sh
	@scripts/bench.sh $(BIN)

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/imgfetch
	install -m 0644 man/imgfetch.1 $(DESTDIR)$(PREFIX)/share/man/man1/imgfetch.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/imgfetch $(DESTDIR)$(PREFIX)/share/man/man1/imgfetch.1

lint:
	mandoc -Tlint -W warning man/imgfetch.1

clean:
	rm -rf .build
