# Echo: build, test, benchmark and demo. Everything lands under build/.
#   make build     echoctl, the emulator (libcudart.so.12, libcudart_static.a, libcuda.so.1), the workloads
#   make test      build, lint (what changed) and the Go tests, timed by stage: about 10 minutes
#                  on 2 cores from a fresh clone (as root: the privileged tests run too)
#   make test-all  what CI runs: test, and the whole lint, -race, the shared tracer's benchmark
#                  and the arm64 stages (qemu: about 25 minutes more)
#   make lint      go vet, staticcheck (what changed since the last clean lint), deadcode, and the
#                  code's shape: cmd/echoctl <= 2,600 lines, no function over 80 (tests/funclen)
#   make lint-all  the same on every package (go.mod's tool block pins the tools)
#   make test-race the tests that need no root, BPF or emulator, under -race
#   make bench     benchmarks on the emulator (GPU-host numbers: bench/gpu.sh)
#   make demo      the main job on the built-in demo workload
#   make generate  regenerate generated code (the BPF objects, with clang)
#   make cross     every part for linux/arm64 (Jetson, Grace Hopper) under build/arm64
#   make test-arm64  the user-space suite on arm64, under qemu's user mode
#   make test-arm64-vm  the tracer's tests on an arm64 kernel, in qemu-system-aarch64
#   make install   echoctl, which carries the preload library, into $(PREFIX)/bin (/usr/local)
#   make package   .deb and .rpm of echoctl for amd64 and arm64 into build/pkg (nfpm)
#   make trapcost  build/bin/trapcost, what a bare uprobe trap costs (bench/trapcost.sh), and
#                  build/bin/bpfstats, what each of Echo's BPF programs costs a run

BUILD    := build
ARM64    := $(BUILD)/arm64
CROSS    ?= aarch64-linux-gnu-
ARM64_PACKAGES := apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
comma    := ,
GO       ?= go
CC       ?= gcc
CXX      ?= g++
VERSION  ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

EMU_DIR  := testdata/emulator
WL_DIR   := testdata/workloads
EMU_SRCS := $(wildcard $(EMU_DIR)/src/*.c)
EMU_HDRS := $(wildcard $(EMU_DIR)/include/*.h) $(EMU_DIR)/src/internal.h $(EMU_DIR)/src/private.h
EMU_OBJS := $(patsubst $(EMU_DIR)/src/%.c,$(BUILD)/obj/emulator/%.o,$(EMU_SRCS))
WL_HDRS  := $(WL_DIR)/workload.h $(WL_DIR)/kernel.h

# Workloads with a hand-merged reference (<name>-manual) and unsafe cases with a naive
# merge (<name>-naive) whose output must differ.
WORKLOADS := stream compute pipeline multistream framework memset async_stream doublebuffer chunked background \
             staging
UNSAFE    := unsafe_live_value unsafe_sync_wait unsafe_ptr_identity unsafe_lifetime unsafe_inplace \
             unsafe_memset_read unsafe_stream_refill unsafe_doublebuffer unsafe_chunked

EMU_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
              -I$(EMU_DIR)/include
WL_FLAGS   := -O2 -g -Wall -Wextra -Werror -x c++ -I$(EMU_DIR)/include -Wl,--build-id=sha1
WL_LINK    := -L$(BUILD)/lib -lcudart -lpthread -Wl,-rpath,'$$ORIGIN/../lib'

LIBS      := $(BUILD)/lib/libcudart.so.12 $(BUILD)/lib/libcudart.so $(BUILD)/lib/libcudart_static.a \
             $(BUILD)/lib/libcuda.so.1 $(BUILD)/lib/libcuda.so
SHIM_SRCS := $(wildcard shim/*.c)
SHIM_OBJS := $(patsubst shim/%.c,$(BUILD)/obj/shim/%.o,$(SHIM_SRCS))
PROGRAMS  := $(addprefix $(BUILD)/workloads/,$(WORKLOADS) $(addsuffix -manual,$(WORKLOADS)) \
               $(UNSAFE) $(addsuffix -naive,$(UNSAFE)) stream-static stream-nobuildid stream-ptds \
               unsafe_live_value-ptds unsafe_live_value-ptds-naive mt_stream helper_alloc) \
             $(BUILD)/tests/emu_selftest $(BUILD)/tests/dlopen_runtime $(BUILD)/tests/dlopen_loop $(BUILD)/tests/driver_api \
             $(BUILD)/tests/failing_copies $(BUILD)/tests/scattered_maps $(BUILD)/tests/pageable_async \
             $(BUILD)/tests/dlopen_driver $(BUILD)/tests/library_launch $(BUILD)/tests/blocking_stream \
             $(BUILD)/tests/gated_copies $(BUILD)/tests/forked_loop $(BUILD)/tests/loader_threads \
             $(BUILD)/tests/glibc_base $(BUILD)/tests/missing_runtime $(BUILD)/tests/static_spawn \
             $(BUILD)/tests/sites $(BUILD)/tests/sites-nopie $(BUILD)/tests/libsites.so \
             $(BUILD)/tests/nvml/libnvidia-ml.so.1 $(BUILD)/tests/blksize \
             $(BUILD)/bench/shimcost $(BUILD)/bench/pageable_copy

.PHONY: all build echoctl trapcost generate check-generated cross cparts lint lint-all test test-all test-race test-arm64 test-arm64-vm install package bench demo clean
all: build
build: echoctl $(LIBS) $(BUILD)/lib/libechoshim.so $(BUILD)/lib/libechoclangout.so $(PROGRAMS)

# echoctl carries the preload library it was built beside (internal/embedshim), so one
# copied binary does everything. It is static (CGO_ENABLED=0, as for arm64): a setcap'd
# echoctl runs in secure mode, where the dynamic loader deletes LD_LIBRARY_PATH and kin from
# the environment in place, which leaves the Go runtime without the auxiliary vector that
# cilium/ebpf reads the kernel's version from ("read auxv from runtime"), and the traced
# program without LD_LIBRARY_PATH.
EMBED := internal/embedshim/lib
echoctl: $(BUILD)/lib/libechoshim.so $(BUILD)/lib/libechoclangout.so
	@mkdir -p $(BUILD)/bin
	cp $(BUILD)/lib/libechoshim.so $(EMBED)/libechoshim-$(shell $(GO) env GOARCH).so
	cp $(BUILD)/lib/libechoclangout.so $(EMBED)/libechoclangout-$(shell $(GO) env GOARCH).so
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -ldflags "-X main.version=$(VERSION)" -o $(BUILD)/bin/echoctl ./cmd/echoctl

$(BUILD)/obj/emulator/%.o: $(EMU_DIR)/src/%.c $(EMU_HDRS)
	@mkdir -p $(@D)
	$(CC) $(EMU_CFLAGS) -c $< -o $@

# -Bsymbolic-functions: calls inside the runtime never come back through an interposer.
$(BUILD)/lib/libcudart.so.12: $(EMU_OBJS) $(EMU_DIR)/libcudart.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libcudart.so.12 -Wl,--version-script=$(EMU_DIR)/libcudart.map \
		-Wl,-Bsymbolic-functions -Wl,--build-id=sha1 -o $@ $(EMU_OBJS) -lpthread -ldl

# The emulated driver, built on the runtime's private entry points (src/private.h).
$(BUILD)/lib/libcuda.so.1: $(EMU_DIR)/driver/driver.c $(EMU_DIR)/driver/proc.c $(EMU_DIR)/driver/libcuda.map \
		$(EMU_HDRS) $(BUILD)/lib/libcudart.so.12
	$(CC) $(EMU_CFLAGS) -I$(EMU_DIR)/src -shared -Wl,-soname,libcuda.so.1 \
		-Wl,--version-script=$(EMU_DIR)/driver/libcuda.map -Wl,-Bsymbolic-functions -Wl,--build-id=sha1 -o $@ \
		$(EMU_DIR)/driver/driver.c $(EMU_DIR)/driver/proc.c \
		-L$(BUILD)/lib -l:libcudart.so.12 -Wl,-rpath,'$$ORIGIN'

$(BUILD)/lib/libcuda.so: $(BUILD)/lib/libcuda.so.1
	ln -sf libcuda.so.1 $@

# The preload library: it resolves the runtime at run time (RTLD_NEXT) and links none. It is
# built against its own view of the CUDA ABI (shim/cuda_abi.h), not the emulator's headers.
SHIM_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror
$(BUILD)/obj/shim/%.o: shim/%.c shim/shim.h shim/api.def shim/cuda_abi.h
	@mkdir -p $(@D)
	$(CC) $(SHIM_CFLAGS) -c $< -o $@

$(BUILD)/lib/libechoshim.so: $(SHIM_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -static-libgcc -Wl,--build-id=sha1 -o $@ $(SHIM_OBJS) -ldl -lpthread

# What the source path preloads into clang: its AST dump written to the pipe in 1 MiB blocks.
$(BUILD)/lib/libechoclangout.so: clangout/clangout.c
	@mkdir -p $(@D)
	$(CC) $(SHIM_CFLAGS) -shared -static-libgcc -Wl,--build-id=sha1 -o $@ $< -ldl

$(BUILD)/lib/libcudart.so: $(BUILD)/lib/libcudart.so.12
	ln -sf libcudart.so.12 $@

$(BUILD)/lib/libcudart_static.a: $(EMU_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $(EMU_OBJS)

$(BUILD)/workloads/%: $(WL_DIR)/%.cu $(WL_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) $< -o $@ $(WL_LINK)

$(BUILD)/workloads/%-manual: $(WL_DIR)/%.cu $(WL_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) -DECHO_MANUAL $< -o $@ $(WL_LINK)

$(BUILD)/workloads/%-naive: $(WL_DIR)/%.cu $(WL_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) -DECHO_NAIVE $< -o $@ $(WL_LINK)

# framework's --driver loop allocates and copies through the driver API, as CuPy does, and
# staging's framework stages through page-locked buffers of its own, as CuPy does.
$(BUILD)/workloads/framework $(BUILD)/workloads/framework-manual: WL_LINK += -lcuda
$(BUILD)/workloads/staging $(BUILD)/workloads/staging-manual: WL_LINK += -lcuda

# The runtime linked into the executable, as `nvcc -cudart static` does.
$(BUILD)/workloads/stream-static: $(WL_DIR)/stream.cu $(WL_HDRS) $(BUILD)/lib/libcudart_static.a
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) $< -x none -o $@ $(BUILD)/lib/libcudart_static.a -lpthread -ldl

# Built as nvcc --default-stream per-thread builds it: the real headers map the plain names
# to the _ptds/_ptsz entry points, as these macros do (for the calls these programs make).
PTDS := -DcudaMemcpy=cudaMemcpy_ptds -DcudaLaunchKernel=cudaLaunchKernel_ptsz
$(BUILD)/workloads/%-ptds: $(WL_DIR)/%.cu $(WL_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) $(PTDS) $< -o $@ $(WL_LINK)

$(BUILD)/workloads/%-ptds-naive: $(WL_DIR)/%.cu $(WL_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) $(PTDS) -DECHO_NAIVE $< -o $@ $(WL_LINK)

# No GNU build-id: plan and shim then name the executable size:N:stream-nobuildid.
$(BUILD)/workloads/stream-nobuildid: $(WL_DIR)/stream.cu $(WL_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CXX) $(filter-out -Wl$(comma)--build-id=sha1,$(WL_FLAGS)) -Wl,--build-id=none $< -o $@ $(WL_LINK)

# The tracer's C test programs: C11 against the emulator's headers; TRACER_LINK gives them a
# GNU build-id (what a plan names an executable by) and the emulated runtime.
TRACER_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -I$(EMU_DIR)/include
TRACER_LINK   := -Wl,--build-id=sha1 -L$(BUILD)/lib -lcudart -Wl,-rpath,'$$ORIGIN/../lib'

# Links the driver too: a case checks that driver-API copies are staged like runtime ones.
$(BUILD)/tests/emu_selftest: $(EMU_DIR)/selftest.c $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I$(EMU_DIR)/include $< -o $@ \
		$(WL_LINK) -lcuda -lpthread

# Loads the runtime with dlopen after start; it links no CUDA library itself.
$(BUILD)/tests/dlopen_runtime: testdata/tracer/dlopen_runtime.c $(LIBS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror $< -o $@ -ldl -Wl,-rpath,'$$ORIGIN/../lib'

# Opens and closes a library in a loop: the loader's hook, over and over.
$(BUILD)/tests/dlopen_loop: testdata/tracer/dlopen_loop.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror $< -o $@ -ldl

# Copies that fail (out of bounds), unchecked, as a buggy program makes them.
$(BUILD)/tests/failing_copies: testdata/tracer/failing_copies.c $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(TRACER_CFLAGS) $< -o $@ -Wl,--build-id=sha1 $(WL_LINK)

# Asynchronous copies from and to fresh pageable buffers, used at once: what pinned must keep.
$(BUILD)/tests/pageable_async: testdata/tracer/pageable_async.c testdata/tracer/check.h $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(TRACER_CFLAGS) $< -o $@ -Wl,--build-id=sha1 $(WL_LINK)

# A loop beside loader threads that allocate through the loop's own helpers.
$(BUILD)/tests/loader_threads: testdata/tracer/loader_threads.c testdata/tracer/check.h testdata/tracer/triple.h $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(TRACER_CFLAGS) $< -o $@ -Wl,--build-id=sha1 $(WL_LINK)

# The same through the driver API, opened with dlopen and called through dlsym'd pointers.
$(BUILD)/tests/dlopen_driver: testdata/tracer/dlopen_driver.c testdata/tracer/check.h $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(TRACER_CFLAGS) $< -o $@ -Wl,--build-id=sha1 -ldl -Wl,-rpath,'$$ORIGIN/../lib'

# A static launcher (--follow must see its dynamic children).
$(BUILD)/tests/static_spawn: testdata/tracer/static_spawn.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static $< -o $@

# Whether the shim's dlsym fallback version names a dlsym on this architecture.
$(BUILD)/tests/glibc_base: testdata/shim/glibc_base.c shim/shim.h shim/api.def shim/cuda_abi.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror $< -o $@ -ldl

# What fstat says of standard output: libechoclangout's test.
$(BUILD)/tests/blksize: testdata/clangout/blksize.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror $< -o $@

# No CUDA library at all: under the shim every hook answers its error, never a NULL call.
$(BUILD)/tests/missing_runtime: testdata/shim/missing_runtime.c $(EMU_HDRS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -I$(EMU_DIR)/include $< -o $@

# A kernel on a created blocking stream between synchronous legacy-stream copies.
$(BUILD)/tests/blocking_stream: testdata/tracer/blocking_stream.c testdata/tracer/check.h testdata/tracer/triple.h $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(TRACER_CFLAGS) $< -o $@ $(TRACER_LINK)

# A copy→kernel→copy loop, with --fork in a forked child while the parent waits.
$(BUILD)/tests/forked_loop: testdata/tracer/forked_loop.c testdata/tracer/check.h testdata/tracer/triple.h $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(TRACER_CFLAGS) -D_GNU_SOURCE $< -o $@ $(TRACER_LINK)

# Copies made on a go from stdin, once the shared tracer watches the process.
$(BUILD)/tests/gated_copies: testdata/tracer/gated_copies.c testdata/tracer/check.h $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(TRACER_CFLAGS) $< -o $@ $(TRACER_LINK)

# The runtime's buffers and copies, a kernel launched through the driver as a library does.
$(BUILD)/tests/library_launch: testdata/tracer/library_launch.c testdata/tracer/check.h testdata/tracer/triple.h $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(TRACER_CFLAGS) -D_GNU_SOURCE $< -o $@ $(TRACER_LINK) -ldl

# Maps a data file around its own executable before it dlopens the runtime.
$(BUILD)/tests/scattered_maps: testdata/tracer/scattered_maps.c $(LIBS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror $< -o $@ -ldl -Wl,--build-id=sha1 -Wl,-rpath,'$$ORIGIN/../lib'

# A stand-in NVML (its energy counter grows at 100 W) for the shim's energy tests.
$(BUILD)/tests/nvml/libnvidia-ml.so.1: testdata/nvml/fake_nvml.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 $< -o $@

# Sites for the symbols test, in a PIE, a non-PIE executable and a shared library: each
# prints where its marked calls return to. No sibling calls, so that a call that ends its
# function still returns into it.
SITES_FLAGS := -std=c11 -O2 -g -fno-optimize-sibling-calls -Wall -Wextra -Werror -Wl,--build-id=sha1
$(BUILD)/tests/libsites.so: testdata/symbols/libsites.c testdata/symbols/libsites.h
	@mkdir -p $(@D)
	$(CC) $(SITES_FLAGS) -fPIC -shared $< -o $@

$(BUILD)/tests/sites: testdata/symbols/sites.c testdata/symbols/libsites.h $(BUILD)/tests/libsites.so
	@mkdir -p $(@D)
	$(CC) $(SITES_FLAGS) -pie -fPIE $< -o $@ -L$(BUILD)/tests -lsites -Wl,-rpath,'$$ORIGIN'

$(BUILD)/tests/sites-nopie: testdata/symbols/sites.c testdata/symbols/libsites.h $(BUILD)/tests/libsites.so
	@mkdir -p $(@D)
	$(CC) $(SITES_FLAGS) -no-pie -fno-PIE $< -o $@ -L$(BUILD)/tests -lsites -Wl,-rpath,'$$ORIGIN'

# A driver-API program (the GPU host builds the same source with nvcc -lcuda); the runtime
# only registers its kernel with the emulator.
$(BUILD)/tests/driver_api: bench/driver_api.cu $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) $< -o $@ -L$(BUILD)/lib -lcuda -lcudart -Wl,-rpath,'$$ORIGIN/../lib'

# Pageable against pinned copies, runtime and driver API (the GPU host builds it with nvcc -lcuda).
$(BUILD)/bench/pageable_copy: bench/pageable_copy.cu $(EMU_HDRS) $(LIBS)
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) $< -o $@ $(WL_LINK) -lcuda

$(BUILD)/bench/shimcost: bench/shimcost.c $(LIBS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I$(EMU_DIR)/include $< -o $@ \
		-Wl,--build-id=sha1 $(WL_LINK)

# Not part of build: only bench/trapcost.sh and bench/tracer_gpu.sh use them, on hosts
# without Go from a copy.
trapcost:
	@mkdir -p $(BUILD)/bin
	$(GO) build -o $(BUILD)/bin/trapcost ./bench/trapcost
	$(GO) build -o $(BUILD)/bin/bpfstats ./bench/bpfstats

generate:
	$(GO) generate ./...

# The generated BPF objects and Go bindings are committed so `go build` needs no clang;
# this fails when they no longer match bpf/.
check-generated: generate
	@git diff --exit-code --stat -- 'tracer/*_bpfel.go' 'tracer/*_bpfel.o' || \
		(echo "generated files are stale: run make generate and commit them" >&2; exit 1)

# Every part for linux/arm64 (Jetson, Grace Hopper) under $(ARM64), laid out as build/ is:
# echoctl with Go, the C parts with Debian's cross toolchain. Without the toolchain only
# echoctl is built, and it says so; ECHO_REQUIRE_ARM64=1 (CI) makes that an error.
cross:
	@mkdir -p $(ARM64)/bin
	@if command -v $(CROSS)gcc >/dev/null && command -v $(CROSS)g++ >/dev/null; then \
		$(MAKE) --no-print-directory BUILD=$(ARM64) CC=$(CROSS)gcc CXX=$(CROSS)g++ cparts && \
		cp $(ARM64)/lib/libechoshim.so $(EMBED)/libechoshim-arm64.so && \
		cp $(ARM64)/lib/libechoclangout.so $(EMBED)/libechoclangout-arm64.so; \
	else \
		echo "cross: no $(CROSS)gcc/g++, so only echoctl is built for arm64, without the shim ($(ARM64_PACKAGES))" >&2; \
		[ -z "$(ECHO_REQUIRE_ARM64)" ]; \
	fi
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -buildvcs=auto -ldflags "-X main.version=$(VERSION)" \
		-o $(ARM64)/bin/echoctl ./cmd/echoctl

# The C parts alone: what make cross builds with the cross toolchain.
cparts: $(LIBS) $(BUILD)/lib/libechoshim.so $(BUILD)/lib/libechoclangout.so $(PROGRAMS)

# The user-space suite on arm64: every Go test built for arm64 and run under qemu's user mode
# against $(ARM64) (tests/arm64.sh; BPF's tests skip there, ECHO_NO_BPF).
test-arm64: cross
	tests/arm64.sh $(ARM64)

# The BPF tests on an arm64 kernel, in qemu-system-aarch64 (tests/arm64vm.sh; TCG, slow).
ARM64_VM_PACKAGES ?= ./tracer ./runner ./validate ./calibrate ./planner
test-arm64-vm: cross
	tests/arm64vm.sh $(ARM64_VM_PACKAGES)

# staticcheck with its default checks; a finding it gets wrong is silenced where it is, with
# //lint:ignore CHECK and the reason. deadcode runs with -test: functions that neither a main
# package nor any test reaches. Without -test every helper only tests call (internal/testenv,
# trace.Summarize, Writer.WriteEvent) would be listed as dead; with it, code kept alive only
# by its own test still passes, so a new test-only export says in its comment who calls it.
# make lint vets and staticchecks the packages whose Go files changed since the last clean
# lint (build/lint/clean), deadcode the whole program when any did (tests/lint.sh); make
# lint-all (CI) every package.
lint:
	@GO=$(GO) tests/lint.sh

lint-all:
	@GO=$(GO) LINT_ALL=1 tests/lint.sh

# The packages whose tests need no root, BPF or emulator, again under the race detector
# (it needs cgo, so gcc, which the C parts need anyway). ECHO_NO_BPF=1 skips the planner's
# tests that trace workloads. About 1.5 minutes on a 2-core machine, source's clang-driven tests
# most of it; the first run also builds the race variants of the dependencies (minutes).
RACE_PACKAGES := ./plan ./planner ./trace ./source/... ./export ./view ./packaging ./pipeline ./report ./plandir \
                 ./internal/units ./internal/infile ./internal/procfs ./internal/shell
test-race:
	ECHO_NO_BPF=1 CGO_ENABLED=1 $(GO) test -race -count=1 $(RACE_PACKAGES)

# The suite by stages, each timed, with a line at least every 25 s and a table of the
# stages' times at the end (tests/suite.sh says what each runs). make test is the default
# (build, lint beside the Go tests under -short, which leaves the end-to-end tests of a
# minute or more, testenv.Long, to test-all); make test-all is CI's (.ci/run): make cross
# too, the whole lint and every test, then -race, the shared tracer's benchmark, make
# test-arm64 and make test-arm64-vm. The Go tests' whole output is kept in build/test.log, their durations in
# build/test-times.json (the next run starts the longest first and splits long packages).
test:
	@MAKE="$(MAKE)" GO=$(GO) tests/suite.sh test

test-all:
	@MAKE="$(MAKE)" GO=$(GO) tests/suite.sh test-all

bench: build
	bench/emulator.sh
	bench/shim_cost.sh
	$(GO) test -run '^$$' -bench . -benchtime 3x -cpu 1 ./plan/ ./planner/ ./trace/
	@if [ "$$(id -u)" = 0 ]; then bench/echo_emulator.sh; else echo "bench: skipping bench/echo_emulator.sh (tracing needs root)"; fi
	@if [ "$$(id -u)" = 0 ]; then $(GO) test -run '^$$' -bench SharedTracer -benchtime 5x -v ./live/; \
	else echo "bench: skipping the shared tracer's benchmark (tracing needs root)"; fi

demo: build
	bench/demo.sh

# One binary: echoctl carries the preload library (written to a root-owned cache on first use).
PREFIX ?= /usr/local
install: echoctl
	install -D -m 0755 $(BUILD)/bin/echoctl $(DESTDIR)$(PREFIX)/bin/echoctl

# Release packages: a .deb and an .rpm of echoctl for amd64 and arm64 (packaging/nfpm.yaml), with
# nfpm from the Go module proxy, into $(BUILD)/pkg.
NFPM        ?= $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
PKG_VERSION ?= 0.0~git$(shell git rev-parse --short HEAD 2>/dev/null || echo 0)
package: echoctl cross
	@mkdir -p $(BUILD)/pkg/stage
	@rm -f $(BUILD)/pkg/*.deb $(BUILD)/pkg/*.rpm # an earlier build's, which a glob would install too
	@for arch in amd64 arm64; do \
		bin=$(BUILD)/bin/echoctl; [ $$arch = amd64 ] || bin=$(ARM64)/bin/echoctl; \
		cp $$bin $(BUILD)/pkg/stage/echoctl || exit 1; \
		for p in deb rpm; do \
			ARCH=$$arch PKG_VERSION=$(PKG_VERSION) GOFLAGS=-mod=mod \
				$(NFPM) package --config packaging/nfpm.yaml --packager $$p --target $(BUILD)/pkg/ || exit 1; \
		done; \
	done

clean:
	rm -rf $(BUILD) $(EMBED)/*.so
