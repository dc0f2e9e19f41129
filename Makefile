# Top-level entry points (README): `make demo` and `make test` install the Debian
# packages they need (idempotent; sudo when not root), build, and run.
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# libblas-dev: Debian's reference BLAS (300 kB), which codegen_portable_blas builds an
# emitted program against instead of OpenBLAS. libonnx-dev + libprotobuf-dev: einplan
# import; python3-onnx, libonnx-testdata (ONNX's node tests) and python3-torch (models
# exported with torch.onnx.export, and torch as the oracle) and python3-torchvision
# (its VisionTransformer and resnet18 as written): its tests. libdnnl-dev
# (oneDNN): the bf16/f16 GEMMs of CPU programs (einrt::dnnl; optional for the programs).
# libxsmm-dev (LIBXSMM): the JIT small-GEMM primitive of the programs' small and skinny
# contractions (einrt::xsmm; optional); libsleef-dev (SLEEF): the vector exp/log/tanh/erf
# of their elementwise kernels (optional). libgoogle-perftools-dev: tcmalloc, einplan's
# allocator (optional; CMakeLists.txt says why).
DEB_PACKAGES := cmake g++ make pkg-config libcli11-dev nlohmann-json3-dev libyaml-cpp-dev \
  libopenmpi-dev openmpi-bin libopenblas-dev doctest-dev python3-numpy python3-yaml \
  libctemplate-dev libscalapack-openmpi-dev libssl-dev clang libclang-rt-14-dev \
  libblas-dev libonnx-dev libprotobuf-dev python3-onnx libonnx-testdata python3-torch python3-torchvision libdnnl-dev \
  libxsmm-dev libsleef-dev libgoogle-perftools-dev

export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: deps build demo test test-fuzz test-asan bench install clean

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	else echo "deps: all Debian packages present"; fi

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	./examples/demo.sh $(BUILD)

# The whole suite but the libFuzzer runs (label fuzz), which `make test-fuzz` runs: a
# clang build of the harnesses and each harness for EINDECOMP_FUZZ_SECONDS took a minute
# and a half of the two cores here, and without them `make test` stays within its
# 15 minutes (docs/hardening.md, "CI time"). CI (.ci/run) runs all three targets.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE fuzz $(CTEST_ARGS)

test-fuzz: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L fuzz $(CTEST_ARGS)

# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer in a
# separate build folder (docs/hardening.md). CXXFLAGS/LDFLAGS stay exported while ctest
# runs so that the projects the tests configure (emitted programs, the einrt consumer)
# are built with the same sanitizers and can link the sanitized runtime. Leaks are
# reported by every process except MPI ranks (tests/fuzz/lsan_suppressions.txt silences
# leaks inside OpenMPI's own libraries): in ranks LeakSanitizer's stop-the-world tracer
# crashes at exit ("Tracer caught signal 11", no leak reported; twice in a row for
# gen-ffnn at p = 3), a sanitizer bug that aborted the whole job, so mpirun hands the
# ranks detect_leaks=0 through mca_base_env_list. ASan and UBSan stay on in the ranks.
# Built -O1 -g1 (Debug plus -O1: quicker to build than -O2, and the usual ASan setting;
# -g1, line tables only, is what the sanitizers' stack traces use, and builds a third
# faster than -g: executor.cpp 32.5 -> 21.0 s, test_reports.cpp 49.2 -> 33.8 s).
# To keep CI within its time, the sanitized suite narrows what only repeats the plain one:
# the emitted-program tests run for one device count, 3 (an odd prime: uneven blocks,
# repartitions and partial aggregations, the --inputs scatter, --threads 2 and the
# wrong-rank-count check all run there; 1..8 run in `make test`), and ASAN_EXCLUDE leaves
# out what checks build systems rather than our code: the nvcc compiles of emitted CUDA
# code (CUDA is off here), the portable-project builds and the einrt consumer projects,
# and the resource-limits test, whose time bounds the sanitizers distort 6-15x (its
# graphs at the limits took over 15 minutes sanitized; the plain suite runs it), and the
# torch-model tests of einplan import that only rebuild emitted programs the e2e tests
# already sanitize (import_torch_models, import_torch_vision: the importer's C++, its
# convolution windows included, runs sanitized in import_onnx_node_tests).
# The fuzz tests (label fuzz) are left out: they are a clang build with the same
# sanitizers already. Should LeakSanitizer's tracer crash in another process, the
# scripts that start emitted programs run that command once more, on that signature only
# (tests/support/sanitizer_flake.py). Every example runs, the tensor networks included.
ASAN_BUILD ?= build-asan
SANITIZE_FLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_EXCLUDE ?= ^codegen_cuda_compile_|^codegen_portable_|^einrt_consumer_|^bad_inputs_limits(_large)?$$|^import_torch_(models|vision)$$
ASAN_E2E_RANKS ?= 3
ASAN_OPTIONS_ALL := detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
ASAN_OPTIONS_RANKS := detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0
test-asan: deps
	CXXFLAGS="$(SANITIZE_FLAGS)" CFLAGS="$(SANITIZE_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
	  cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 -DEINDECOMP_WITH_CUDA=OFF -DEINDECOMP_E2E_RANKS=$(ASAN_E2E_RANKS) -DEINDECOMP_SANITIZED=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && CXXFLAGS="$(SANITIZE_FLAGS)" CFLAGS="$(SANITIZE_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
	  ASAN_OPTIONS=$(ASAN_OPTIONS_ALL) \
	  OMPI_MCA_mca_base_env_list='ASAN_OPTIONS=$(ASAN_OPTIONS_RANKS)' \
	  OMPI_MCA_mca_base_component_disable_dlclose=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan_suppressions.txt:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE fuzz $(if $(ASAN_EXCLUDE),-E '$(ASAN_EXCLUDE)') $(CTEST_ARGS)

# The kernel benchmark of bench/RESULTS.md (bench/kernels/run.py): kernel classes against
# the machine's memory bandwidth and NumPy, a LLaMA layer against torch and NumPy, the
# tensor networks against numpy.einsum. BENCH_ARGS=... passes options (e.g. --sections
# classes --reps 3).
BENCH_ARGS ?=
bench: build
	/usr/bin/python3 bench/kernels/run.py --build $(BUILD) $(BENCH_ARGS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
