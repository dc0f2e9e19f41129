# Top-level entry points (README): `make demo` and `make test` install the Debian
# packages they need (idempotent; sudo when not root), build, and run.
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# libblas-dev: Debian's reference BLAS (300 kB), which codegen_portable_blas builds an
# emitted program against instead of OpenBLAS.
DEB_PACKAGES := cmake g++ make pkg-config libcli11-dev nlohmann-json3-dev libyaml-cpp-dev \
  libopenmpi-dev openmpi-bin libopenblas-dev doctest-dev python3-numpy python3-yaml \
  libctemplate-dev libscalapack-openmpi-dev libssl-dev clang libclang-rt-14-dev \
  libblas-dev

export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: deps build demo test test-asan install clean

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

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer in a
# separate build folder (docs/hardening.md). CXXFLAGS/LDFLAGS stay exported while ctest
# runs so that the projects the tests configure (emitted programs, the einrt consumer)
# are built with the same sanitizers and can link the sanitized runtime. Leaks are
# reported everywhere except inside OpenMPI's own libraries (tests/fuzz/lsan_suppressions.txt);
# for those suppressions to match, the MPI ranks (and only they: it makes every malloc
# ten times slower) unwind allocation stacks with DWARF, set through mpirun's
# mca_base_env_list (OpenMPI is built without frame pointers: the fast unwinder stops at
# "<unknown module>"), and OpenMPI keeps its plugins loaded until exit.
# Built -O1 -g (Debug plus -O1: quicker to build than -O2, and the usual ASan setting);
# the emitted-program tests run for device counts 1,3,6 instead of 1,2,3,4,6,8 to keep
# CI within its time (tests/codegen/CMakeLists.txt). The fuzz tests (label fuzz) are left out: they are a clang build with the same
# sanitizers already. ASAN_EXCLUDE: a ctest -E regex of further tests to leave out; by
# default the nvcc compiles of emitted CUDA code, which run nothing (CUDA is off here).
# Every example runs, the tensor networks included: the reference evaluator follows their
# contraction paths (gen-syn evaluates in 0.03 s plain).
ASAN_BUILD ?= build-asan
SANITIZE_FLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_EXCLUDE ?= ^codegen_cuda_compile_
ASAN_OPTIONS_ALL := detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
test-asan: deps
	CXXFLAGS="$(SANITIZE_FLAGS)" CFLAGS="$(SANITIZE_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
	  cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DEINDECOMP_WITH_CUDA=OFF -DEINDECOMP_E2E_RANKS=1,3,6 $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && CXXFLAGS="$(SANITIZE_FLAGS)" CFLAGS="$(SANITIZE_FLAGS)" LDFLAGS="-fsanitize=address,undefined" \
	  ASAN_OPTIONS=$(ASAN_OPTIONS_ALL) \
	  OMPI_MCA_mca_base_env_list='ASAN_OPTIONS=$(ASAN_OPTIONS_ALL):fast_unwind_on_malloc=0' \
	  OMPI_MCA_mca_base_component_disable_dlclose=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan_suppressions.txt:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE fuzz $(if $(ASAN_EXCLUDE),-E '$(ASAN_EXCLUDE)')

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
