# The README's two commands: `make run` and `make test`.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= 2

PREFIX     ?= /usr/local
DESTDIR    ?=
UNITDIR    ?= /etc/systemd/system
CONFDIR    ?= /etc/goblind

FUZZ_SECONDS ?= 1800
# make run: the run root, the database, and more serve flags (ARGS)
RUN_ROOT   ?= ./runs
RUN_DB     ?= ./goblind.db
ARGS       ?=

.PHONY: all deps test-deps build build-asan test run bench fuzz install deb clean

all: build

# What building and running need (make run); test-deps adds the test and benchmark tools.
deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: test-deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGOBLIND_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

# Whole suite twice: the release build, then the same tests under ASan+UBSan (leak checks on);
# then every libFuzzer harness for 30 seconds.
test: test-deps build build-asan
	cd $(BUILD) && ctest --output-on-failure
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure
	fuzz/run.sh 30

# Every libFuzzer harness for FUZZ_SECONDS (default 30 minutes each); see docs/RELIABILITY.md.
fuzz: test-deps
	fuzz/run.sh $(FUZZ_SECONDS)

# The daemon alone (no test programs), quietly; the compiler's output only when it fails.
run: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@echo "building goblind ($(BUILD)/build.log)"
	@cmake --build $(BUILD) -j $(JOBS) --target goblind -- --no-print-directory >$(BUILD)/build.log 2>&1 \
	  || { tail -n 40 $(BUILD)/build.log; exit 1; }
	@mkdir -p $(RUN_ROOT)
	@$(BUILD)/goblind serve --root $(RUN_ROOT) --db $(RUN_DB) $(ARGS)

bench: test-deps build
	bench/parse.sh

# Binary, docs, the systemd unit and (unless one exists) the example config, with its
# root pointed at /srv/goblin/runs. Then: systemctl daemon-reload && systemctl enable --now goblind
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX) >/dev/null
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(CONFDIR)
	sed -e 's|/usr/local/bin/goblind|$(PREFIX)/bin/goblind|' -e 's|/usr/local/share/doc/goblind|$(PREFIX)/share/doc/goblind|' \
	  systemd/goblind.service > $(DESTDIR)$(UNITDIR)/goblind.service
	chmod 644 $(DESTDIR)$(UNITDIR)/goblind.service
	test -e $(DESTDIR)$(CONFDIR)/goblind.conf || \
	  sed 's|^root = ./runs|root = /srv/goblin/runs|; s|^db = ./goblind.db|db = /var/lib/goblind/goblind.db|' \
	    config/goblind.conf > $(DESTDIR)$(CONFDIR)/goblind.conf
	@echo "installed; now: systemctl daemon-reload && systemctl enable --now goblind"

# A Debian package of the release build: binary, unit, config (conffile), docs, Prometheus rules,
# Grafana dashboard, bash completion, man page (scripts/make-deb.sh). Install: dpkg -i build/goblind_*.deb
deb: build
	@scripts/make-deb.sh $(BUILD) $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
