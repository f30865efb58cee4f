# The README's commands: `make run`, `make check` (the quick tests) and `make test` (everything).
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
JOBS       ?= 2
# ctest -j: the tests wait on daemons, sleeps and I/O as much as on the CPU (each has its own
# temporary directory and an ephemeral port, so they run side by side)
TEST_JOBS  ?= 3
# ccache when there is one (rebuilds of the three trees cost seconds)
LAUNCHER   := $(if $(shell command -v ccache 2>/dev/null),-DCMAKE_C_COMPILER_LAUNCHER=ccache)
# the reference's answers (tests/ref_cache.py), shared by the release and ASan stages
export GOBLIND_REF_CACHE ?= $(abspath $(BUILD))/ref-cache

PREFIX     ?= /usr/local
DESTDIR    ?=
UNITDIR    ?= /etc/systemd/system
CONFDIR    ?= /etc/goblind

FUZZ_SECONDS ?= 1800
# make run: the run root, the database, and more serve flags (ARGS)
RUN_ROOT   ?= ./runs
RUN_DB     ?= ./goblind.db
ARGS       ?=

.PHONY: all deps test-deps build build-asan build-tsan check test run bench fuzz install deb clean

all: build

# What building and running need (make run); test-deps adds the test and benchmark tools.
deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LAUNCHER) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# -O1: ASan's own advice (about twice the speed of -O0, the same findings)
build-asan: test-deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DGOBLIND_SANITIZE=ON $(LAUNCHER) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

build-tsan: test-deps
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGOBLIND_TSAN=ON $(LAUNCHER) >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS)

# The developer's loop (a few minutes): incremental release build, the tests labelled `quick`.
check: test-deps build
	cd $(BUILD) && ctest -L quick -j $(TEST_JOBS) --output-on-failure

# Everything (README, CI): the release build's whole suite; the same tests under ASan+UBSan
# (leak checks on, fewer seeds); the daemon and threaded tests (label `threads`) under
# ThreadSanitizer; every libFuzzer harness for 30 seconds. Each stage prints its time.
# CK_TIMEOUT_MULTIPLIER: the Check cases' 120 s limit times 5 (the heaviest run minutes there)
ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 CK_TIMEOUT_MULTIPLIER=5
TSAN_ENV = TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" CK_TIMEOUT_MULTIPLIER=5
STAGE = t0=$$(date +%s); trap 'echo "== stage $@ $(1): $$(( $$(date +%s) - t0 )) s"' EXIT;
test: test-deps
	@$(call STAGE,release build) $(MAKE) -s build
	@$(call STAGE,release tests) cd $(BUILD) && ctest -j $(TEST_JOBS) --output-on-failure
	@$(call STAGE,asan build) $(MAKE) -s build-asan
	@$(call STAGE,asan tests) cd $(ASAN_BUILD) && $(ASAN_ENV) ctest -j $(TEST_JOBS) --output-on-failure
	@$(call STAGE,tsan build) $(MAKE) -s build-tsan
	@$(call STAGE,tsan tests) cd $(TSAN_BUILD) && $(TSAN_ENV) ctest -L threads -j $(TEST_JOBS) --output-on-failure
	@$(call STAGE,fuzz) fuzz/run.sh 30

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
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
