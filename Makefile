# fpm-cpu: fpm-record and fpm-analyze.
#   make            build bin/fpm-analyze and bin/fpm-record
#   make run        build both programs, then analyze the bundled fixture log (LOG=... for another)
#   make test       install what is missing, build, run every test (also under ASan+UBSan)
#   make test-quick the edit loop: unit tests, CLI cases and the fuzzers' regressions (a minute)
#   make bench      speed and memory of a long replay
#   make fuzz       libFuzzer on every parser, FUZZ_SECONDS each (default 60)
#   make torture    1,000 SIGKILLs of a recorder appending to one log
#   make mutate     break each rule once; a test must fail each time
#   make mutate-learn  the same from scratch, then scripts/mutate.first (each rule's
#                   cheapest killing test, which make mutate runs first)
#   make install    both programs, their man pages, the systemd unit, the logrotate
#                   snippet and the unit's defaults file (PREFIX, DESTDIR, BINDIR,
#                   MANDIR, SYSCONFDIR, UNITDIR); make uninstall removes them
#   make deb        the Debian package, in build/deb/ (dpkg-buildpackage -us -uc -b)

CC      ?= cc

# The tests' python3 is the system's (Debian's, with the packages deps.sh
# installs), ahead of a version manager's shim on PATH: pyenv's costs 0.35 s
# a start, and make test starts python3 some hundreds of times.
ifneq ($(wildcard /usr/bin/python3),)
SYS_PYTHON := $(shell mkdir -p build/sys-python && ln -sf /usr/bin/python3 build/sys-python/python3 && echo $(CURDIR)/build/sys-python)
export PATH := $(SYS_PYTHON):$(PATH)
endif
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror
CPPFLAGS += -D_DEFAULT_SOURCE
# Each folder sees only the headers it may include (docs/design.md, "Layout";
# tests/layout/layout.py checks the rules): formats/ and recorder/ see no analyzer
# header, read/ and report/ never see each other.
INC_common   := -Icommon
INC_formats  := -Icommon -Iformats
INC_recorder := -Icommon -Iformats -Irecorder
INC_pipeline := -Icommon -Iformats -Ianalyzer/pipeline
INC_read     := $(INC_pipeline) -Ianalyzer/read
INC_report   := $(INC_pipeline) -Ianalyzer/report
INC_cmd      := $(INC_pipeline) -Ianalyzer/read -Ianalyzer/report -Ianalyzer/cmd -Ianalyzer
INC_         := $(INC_cmd)
INC_tests    := $(INC_cmd) -Irecorder -Itests
# the flags of a source file, by its folder (analyzer/X/ is X, analyzer/ is "")
inc = $(INC_$(firstword $(subst /, ,$(patsubst analyzer/%,%,$(dir $1)))))
LDLIBS  := -lzstd -ldeflate -ljansson -lcsv -lm -lpthread
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LOG     ?= fixtures/logs/realistic.fpmlog.zst fixtures/logs/census.fpmlog

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
# systemd and logrotate read /etc, whatever the prefix
SYSCONFDIR ?= /etc
UNITDIR    ?= $(SYSCONFDIR)/systemd/system

FORMATS  := formats/accessfmt.c formats/accessfmt_match.c formats/fpmsum.c formats/fpmidx.c formats/fpmlog_read.c formats/fpmlog_feed.c formats/fpmlog_write.c formats/fpmlog_kv.c formats/zahead.c formats/zframe.c formats/status.c formats/procfs.c \
            common/msg.c common/numarg.c common/escape.c
# the analyzer's folders: read/ (logs into rounds), pipeline/ (rounds into
# state), report/ (state into formats), cmd/ (the commands), and itself
ANALYZER := common/timearg.c $(sort $(wildcard analyzer/read/*.c analyzer/pipeline/*.c analyzer/report/*.c analyzer/cmd/*.c)) analyzer/options.c
RECORDER := recorder/tail.c recorder/access.c recorder/config.c recorder/workers.c recorder/fcgi.c recorder/fpmconf.c recorder/procscan.c recorder/logfile.c recorder/probe.c recorder/stealcmd.c recorder/record.c recorder/round.c recorder/cgroups.c recorder/sockdiag.c recorder/masterconf.c
UNITS    := accessfmt tail pending census svgin routes figures memory predict wait loss fpmsum fpmidx seek msg numarg escape whatif options applier status procfs hist activity fit joint recover readings pipeline report replay timearg rows fcgi fpmconf logfile procscan cgroups namemap table check plot signals timing probe workers record sockdiag fpmlog

.PHONY: all run test test-quick layout unit unit-built unit-asan cli cli-cases fixtures fixtures-check seek-check integration integration-measure integration-rest deps deps-test bench clean \
        fuzz fuzz-regress print-seeds-% torture mutate mutate-run mutate-learn install uninstall deb package-test fleet-test
all: bin/fpm-analyze bin/fpm-record

deps:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test

# Objects: build/<variant>/<path>.o, variant "rel" or "san"
build/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $(call inc,$<) -MMD -MP -c $< -o $@
build/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O1 -g $(SAN) $(CPPFLAGS) $(call inc,$<) -MMD -MP -c $< -o $@

LIB_SRC := $(FORMATS) $(ANALYZER) $(RECORDER)
REL_LIB := $(LIB_SRC:%.c=build/rel/%.o)
SAN_LIB := $(LIB_SRC:%.c=build/san/%.o)

bin/fpm-analyze: build/rel/analyzer/main.o $(REL_LIB)
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# make bench only: the analyzer without the joint fit's work per pair
build/nojoint/analyzer/pipeline/pipeline.o: analyzer/pipeline/pipeline.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $(call inc,$<) -DPL_NO_JOINT -c $< -o $@
bin/fpm-analyze-nojoint: build/rel/analyzer/main.o build/nojoint/analyzer/pipeline/pipeline.o $(filter-out build/rel/analyzer/pipeline/pipeline.o,$(REL_LIB))
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# the recorder links only what it runs: a small resident size
bin/fpm-record: build/rel/recorder/main.o $(FORMATS:%.c=build/rel/%.o) $(RECORDER:%.c=build/rel/%.o)
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lzstd -ldeflate

# ------------------------------------------------------------ installing
MANPAGES := man/fpm-record.1 man/fpm-analyze.1 man/fpm-cpu.7 man/fpmlog.5
install: bin/fpm-analyze bin/fpm-record
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/logrotate.d $(DESTDIR)$(SYSCONFDIR)/default
	install -m 755 bin/fpm-record bin/fpm-analyze $(DESTDIR)$(BINDIR)/
	install -m 644 man/fpm-record.1 man/fpm-analyze.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/fpm-cpu.7 $(DESTDIR)$(MANDIR)/man7/
	install -m 644 man/fpmlog.5 $(DESTDIR)$(MANDIR)/man5/
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	    contrib/fpm-record.service.in > $(DESTDIR)$(UNITDIR)/fpm-record.service
	chmod 644 $(DESTDIR)$(UNITDIR)/fpm-record.service
	install -m 644 contrib/fpm-record.logrotate $(DESTDIR)$(SYSCONFDIR)/logrotate.d/fpm-record
	@# the defaults file is the operator's once installed: never replaced
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/fpm-record ] || \
	    install -m 644 contrib/fpm-record.default $(DESTDIR)$(SYSCONFDIR)/default/fpm-record
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/fpm-record $(DESTDIR)$(BINDIR)/fpm-analyze \
	    $(DESTDIR)$(MANDIR)/man1/fpm-record.1 $(DESTDIR)$(MANDIR)/man1/fpm-analyze.1 \
	    $(DESTDIR)$(MANDIR)/man7/fpm-cpu.7 $(DESTDIR)$(MANDIR)/man5/fpmlog.5 \
	    $(DESTDIR)$(UNITDIR)/fpm-record.service \
	    $(DESTDIR)$(SYSCONFDIR)/logrotate.d/fpm-record
	@# the defaults file goes only when it is still as installed; logs stay
	! cmp -s contrib/fpm-record.default $(DESTDIR)$(SYSCONFDIR)/default/fpm-record || \
	    rm -f $(DESTDIR)$(SYSCONFDIR)/default/fpm-record

# the package is built in a copy of the tree, so that dpkg-buildpackage's
# files land in build/deb/ and the tree stays as it is
deb:
	@scripts/deps.sh deb
	rm -rf build/deb && mkdir -p build/deb/fpm-cpu
	git ls-files -z | xargs -0 cp --parents -t build/deb/fpm-cpu
	cd build/deb/fpm-cpu && DEB_BUILD_OPTIONS="parallel=$$(nproc)" dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
	    { tail -30 ../build.log; exit 1; }
	lintian --fail-on error build/deb/*.deb
	@ls build/deb/*.deb

# the tests link the library as an archive: each takes only the objects it
# uses (the sanitized tests were 210 MB written on every build)
build/rel/libfpm.a: $(REL_LIB)
	@rm -f $@
	$(AR) rcs $@ $^
build/san/libfpm.a: $(SAN_LIB)
	@rm -f $@
	$(AR) rcs $@ $^
bin/tests/%: build/rel/tests/%.o build/rel/libfpm.a
	@mkdir -p bin/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka -lz
bin/tests-san/%: build/san/tests/%.o build/san/libfpm.a
	@mkdir -p bin/tests-san
	$(CC) $(SAN) -o $@ $^ $(LDLIBS) -lcmocka -lz

run: deps
	@$(MAKE) -s bin/fpm-analyze bin/fpm-record
	bin/fpm-analyze $(LOG)

# what unit and cli-cases run, built (make -j2 unit-built: in parallel)
unit-built: $(UNITS:%=bin/tests/test_%) bin/fpm-analyze bin/fpm-record
unit: $(UNITS:%=bin/tests/test_%)
	@scripts/run-units.sh $^
unit-asan: $(UNITS:%=bin/tests-san/test_%)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 scripts/run-units.sh $^

# the include rules of the folders (docs/design.md, "Layout")
layout:
	@python3 tests/layout/layout.py

cli: cli-cases bin/tests/afmatch
	@python3 tests/accessfmt/re_equal.py bin/tests/afmatch
	@tests/cli/threads.sh
	@tests/cli/readme.sh
	@tests/cli/damage.sh
cli-cases: bin/fpm-analyze bin/fpm-record
	@tests/cli/run.sh

# the fixture logs are written by fixtures/simulate.py; this checks that they
# still are exactly what it writes (make fixtures rewrites them)
fixtures:
	python3 fixtures/simulate.py fixtures/logs
	zstd -19 -q -f --rm fixtures/logs/realistic.fpmlog -o fixtures/logs/realistic.fpmlog.zst
fixtures-check:
	@d=$$(mktemp -d) && python3 fixtures/simulate.py $$d && zstd -19 -q --rm $$d/realistic.fpmlog && \
	for f in fixtures/logs/*; do cmp -s $$f $$d/$$(basename $$f) || { echo "FAIL: $$f is not what fixtures/simulate.py writes (make fixtures)"; rm -rf $$d; exit 1; }; done; \
	rm -rf $$d; echo "fixtures: $$(ls fixtures/logs | wc -l) passed, 0 failed"

# a window that seeks prints what reading everything prints, and so does its cut
seek-check: bin/fpm-analyze
	@python3 tests/seek/seek_equal.py bin

# the integration scripts, each timed (what make test's 10 minutes go to):
# those that measure what the kernel and php-fpm report (they hold beside
# other load, and make test runs them one at a time), then beside make
# mutate those that load php-fpm in a cpu group of their own (one at a time:
# two such groups would halve each other's CPU), the rest beside them, and
# the package
INTEGRATION_MEASURE := record_fpm record_fit record_load record_steal record_wait record_cgroup
INTEGRATION_GROUPS := record_predict record_check record_advise record_memory record_oom record_routes
INTEGRATION_OTHER := record_access record_crash progress record_enospc record_world record_hostile fleet record_lock plots status_pages html_page
INTEGRATION_REST := $(INTEGRATION_GROUPS) $(INTEGRATION_OTHER)
INTEGRATION_PACKAGE := package
INTEGRATION := $(INTEGRATION_REST) $(INTEGRATION_PACKAGE) $(INTEGRATION_MEASURE)
INTEGRATION_BINS := bin/fpm-analyze bin/fpm-record bin/tests/status_dump bin/tests/logdrop
integration: $(INTEGRATION_BINS)
	@scripts/run-integration.sh $(INTEGRATION)
integration-measure: $(INTEGRATION_BINS)
	@scripts/run-integration.sh $(INTEGRATION_MEASURE)
integration-rest: $(INTEGRATION_BINS)
	@scripts/run-integration.sh $(INTEGRATION_REST) $(INTEGRATION_PACKAGE)

# breaks each rule in a copy of the tree and checks that a test fails
# (about 3 minutes; the last step of make test)
mutate:
	@scripts/deps.sh test
	@scripts/mutate.sh
mutate-run:
	@scripts/mutate.sh
# scripts/mutate.first from a full run: each rule's cheapest killing test
mutate-learn:
	@scripts/deps.sh test
	@MUTATE_FIRST=/dev/null scripts/mutate.sh | tee build/mutate.report; scripts/mutate-learn.py build/mutate.report

# not part of make test: 1,000 SIGKILLs of a recorder appending to one log
torture: bin/fpm-analyze bin/fpm-record
	@scripts/deps.sh test
	@TORTURE=1 KILLS=$${KILLS:-1000} tests/integration/record_crash.sh

test: deps-test
	@s=$$(date +%s); $(MAKE) -s -j$$(( $$(nproc) + 2 )) all $(UNITS:%=bin/tests/test_%) \
	    bin/tests/status_dump bin/tests/logdrop && \
	    echo "make test: build $$(( $$(date +%s) - s )) s"
	@# the scripts that measure, one at a time, and beside them what only
	@# computes or waits while they wait on their 5-second rounds: the
	@# sanitized build, the unit tests under ASan + UBSan and the fuzzers'
	@# inputs; the unit tests, CLI cases, fixtures, seek-check, then the
	@# integration scripts that measure nothing; the package's build and make
	@# mutate's trees (their reports follow theirs)
	@s=$$(date +%s); mkdir -p build; rm -f build/deb.rc build/*.rc; \
	    { { $(MAKE) -s -j2 $(UNITS:%=bin/tests-san/test_%) $(FUZZERS:%=bin/tests-san/fuzz_%_replay) && \
	        $(MAKE) -s unit-asan && $(MAKE) -s fuzz-regress; } > build/unit-asan.log 2>&1; \
	      echo $$? > build/unit-asan.rc; \
	      echo "make test: sanitized build, unit-asan and fuzz-regress $$(( $$(date +%s) - s )) s" >> build/unit-asan.log; } & \
	    { for stage in layout unit cli fixtures-check seek-check; do \
	        t=$$(date +%s); $(MAKE) -s $$stage || { echo 1 > build/quick.rc; exit 1; }; \
	        echo "make test: $$stage $$(( $$(date +%s) - t )) s"; done; echo 0 > build/quick.rc; \
	      scripts/run-integration.sh $(INTEGRATION_OTHER); echo $$? > build/integration-other.rc; \
	      } > build/quick.log 2>&1 & \
	    { $(MAKE) -s deb > build/deb.log 2>&1; echo $$? > build/deb.rc; } & \
	    { MUTATE_TESTED=1 scripts/mutate.sh --prepare build/mutate-trees \
	        > build/mutate-prepare.log 2>&1; } & \
	    $(MAKE) -s integration-measure; r=$$?; wait; \
	    cat build/quick.log build/unit-asan.log; \
	    [ $$r = 0 ] && [ "$$(cat build/quick.rc)" = 0 ] && [ "$$(cat build/unit-asan.rc)" = 0 ] && \
	    [ "$$(cat build/integration-other.rc)" = 0 ] || exit 1; \
	    echo "make test: integration-measure and the rest beside it $$(( $$(date +%s) - s )) s"
	@# make mutate beside the integration scripts whose php-fpm has a cpu
	@# group of the highest shares (one at a time: two such groups would
	@# halve each other's CPU) and the package's install and checks
	@s=$$(date +%s); mkdir -p build; \
	    for part in groups:"$(INTEGRATION_GROUPS)" package:"$(INTEGRATION_PACKAGE)"; do \
	        { DEB_PREBUILT=1 scripts/run-integration.sh $${part#*:} > build/integration-$${part%%:*}.log 2>&1; \
	          echo $$? > build/integration-$${part%%:*}.rc; } & \
	    done; \
	    t=$$(date +%s); MUTATE_WORK=build/mutate-trees MUTATE_TESTED=1 scripts/mutate.sh; m=$$?; \
	    echo "make test: mutate $$(( $$(date +%s) - t )) s"; wait; \
	    cat build/integration-groups.log build/integration-package.log; \
	    [ "$$(cat build/integration-groups.rc)" = 0 ] && [ "$$(cat build/integration-package.rc)" = 0 ] && \
	    [ $$m = 0 ] && echo "make test: mutate and integration-rest $$(( $$(date +%s) - s )) s"
	@echo "make test: all passed"

# the edit loop: what computes, without a php-fpm (make test runs it all and more)
test-quick:
	@s=$$(date +%s); $(MAKE) -s -j$$(( $$(nproc) + 2 )) all $(UNITS:%=bin/tests/test_%) \
	    $(FUZZERS:%=bin/tests-san/fuzz_%_replay) && $(MAKE) -s unit && $(MAKE) -s cli && \
	    $(MAKE) -s fuzz-regress && echo "make test-quick: passed in $$(( $$(date +%s) - s )) s"

bin/genlog: build/rel/tests/bench/genlog.o $(REL_LIB)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
bin/readlog: build/rel/tests/bench/readlog.o $(FORMATS:%.c=build/rel/%.o)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
bin/floor: build/rel/tests/bench/floor.o
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ -lzstd

bench:
	@scripts/deps.sh bench
	@$(MAKE) -s bin/fpm-analyze bin/fpm-record bin/genlog bin/readlog bin/floor bin/fpm-analyze-nojoint bin/accessbench
	@tests/bench/bench.sh

clean:
	rm -rf build bin

-include $(shell find build/rel build/san build/fz -name '*.d' 2>/dev/null)

bin/tests/status_dump: build/rel/tests/status_dump.o $(REL_LIB)
	@mkdir -p bin/tests
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
bin/tests/logdrop: build/rel/tests/logdrop.o $(FORMATS:%.c=build/rel/%.o)
	@mkdir -p bin/tests
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# ------------------------------------------------------------------ fuzzing
# tests/fuzz/fuzz_NAME.c are libFuzzer harnesses.  make fuzz runs each for
# FUZZ_SECONDS under ASan+UBSan (clang), seeded from fixtures/ and from
# tests/fuzz/regress/NAME/, where every input that once crashed is kept;
# make test replays those inputs (and the seeds) with gcc's sanitizers.
FUZZERS      := accessfmt status fpmlog procfs fcgi fpmconf sockdiag analyze fpmsum
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_SEEDS_accessfmt := tests/fuzz/seeds/accessfmt/*
FUZZ_SEEDS_status  := fixtures/status/*
FUZZ_SEEDS_fpmlog  := fixtures/logs/*
FUZZ_SEEDS_procfs  := fixtures/world/proc/stat fixtures/world/proc/*/stat fixtures/world/sys/fs/cgroup/system.slice/*/cpu.* tests/fuzz/seeds/procfs/*
FUZZ_SEEDS_fcgi    := tests/fuzz/seeds/fcgi/*
FUZZ_SEEDS_fpmconf := fixtures/fpmconf/php-fpm.conf fixtures/fpmconf/pool.d/*
FUZZ_SEEDS_sockdiag := tests/fuzz/seeds/sockdiag/*
FUZZ_SEEDS_analyze := tests/fuzz/seeds/analyze/* fixtures/logs/hostile-routes.fpmlog fixtures/logs/memory-busy.fpmlog fixtures/logs/waited.fpmlog fixtures/logs/small.fpmlog fixtures/logs/quota.fpmlog fixtures/logs/vps.fpmlog fixtures/logs/damaged.fpmlog
FUZZ_SEEDS_fpmsum := tests/fuzz/seeds/fpmsum/*

build/fz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(WARN) $(FUZZ_FLAGS) $(CPPFLAGS) $(call inc,$<) -c $< -o $@
FZ_LIB := $(LIB_SRC:%.c=build/fz/%.o)
build/fuzz/fuzz_%: build/fz/tests/fuzz/fuzz_%.o $(FZ_LIB)
	@mkdir -p build/fuzz
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

print-seeds-%:
	@echo $(wildcard $(FUZZ_SEEDS_$*))

fuzz:
	@scripts/deps.sh fuzz
	@$(MAKE) -s $(FUZZERS:%=build/fuzz/fuzz_%)
	@tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZERS)

bin/tests-san/fuzz_%_replay: build/san/tests/fuzz/fuzz_%.o build/san/tests/fuzz/replay_main.o $(SAN_LIB)
	@mkdir -p bin/tests-san
	$(CC) $(SAN) -o $@ $^ $(LDLIBS)

fuzz-regress: $(FUZZERS:%=bin/tests-san/fuzz_%_replay)
	@set -e; for f in $(FUZZERS); do \
	    case $$f in accessfmt) s="$(FUZZ_SEEDS_accessfmt)";; status) s="$(FUZZ_SEEDS_status)";; fpmlog) s="$(FUZZ_SEEDS_fpmlog)";; \
	    procfs) s="$(FUZZ_SEEDS_procfs)";; fcgi) s="$(FUZZ_SEEDS_fcgi)";; fpmconf) s="$(FUZZ_SEEDS_fpmconf)";; \
	    sockdiag) s="$(FUZZ_SEEDS_sockdiag)";; analyze) s="$(FUZZ_SEEDS_analyze)";; \
	    fpmsum) s="$(FUZZ_SEEDS_fpmsum)";; esac; \
	    printf 'fuzz regressions %s: ' $$f; \
	    ASAN_OPTIONS=detect_leaks=1 bin/tests-san/fuzz_$${f}_replay $$s $$(ls tests/fuzz/regress/$$f/* 2>/dev/null); \
	done

bin/tests/afmatch: build/rel/tests/accessfmt/afmatch.o build/rel/formats/accessfmt.o build/rel/formats/accessfmt_match.o
	@mkdir -p bin/tests
	$(CC) $(CFLAGS) -o $@ $^
bin/accessbench: build/rel/tests/bench/accessbench.o build/rel/recorder/tail.o build/rel/recorder/logfile.o $(FORMATS:%.c=build/rel/%.o)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ -lzstd -ldeflate
