# einrt_add_program(NAME [CUDA] SOURCES file... [TABLES file])
#
# The graph-independent part of an emitted program's build (SPEC 7), provided with
# einrt's package so that an emitted CMakeLists.txt holds only what depends on its graph:
#   - the kernel flags: -fno-math-errno (the kernels call no libm function that sets
#     errno, so loops over exp and sqrt vectorize), -fno-trapping-math (the kernels never
#     read floating-point exception flags; without it GCC keeps every comparison of a
#     select — relu, max, min, exp's range clamp — as a branch, and such loops do not
#     vectorize: exp ran at 10 % of the triad on AVX2; results and NaN/inf semantics are
#     unchanged), -fopenmp-simd, and -march=native with -mprefer-vector-width=512 unless
#     -DEIN_NATIVE=OFF (kernels for any CPU of this architecture);
#   - TABLES: the file of the plan's tables, compiled without optimization (read once at
#     start-up: half the compile time, and what a plan for another rank count recompiles);
#   - the vector math library of the elementwise kernels (einrt/program/math.h):
#     -DEINRT_VECTOR_MATH=sleef (default: SLEEF's GNU-ABI library, Debian's libsleef-dev),
#     libmvec (glibc's) or none; a library not found means none, said at configure time;
#   - OpenMP when found (--threads splits the kernels);
#   - LIBXSMM, optional: where einrt was built with it (einrt::xsmm) and its pkg-config
#     file is found, small and skinny GEMM tiles run through its JIT kernels
#     (EINRT_WITH_LIBXSMM); -DEINRT_USE_LIBXSMM=OFF builds without it (the BLAS runs them);
#   - oneDNN, optional, the way the BLAS is found: where einrt was built with it
#     (einrt::dnnl) and oneDNN's CMake package is found, bf16 and f16 programs multiply
#     with it (EINRT_WITH_ONEDNN); -DEINRT_USE_ONEDNN=OFF, or no oneDNN, builds without it
#     and such programs convert to f32 for the BLAS (their report says which ran);
#   - CUDA: the architectures (-DCMAKE_CUDA_ARCHITECTURES, default the visible GPUs, or
#     every major one without a GPU), the language and nvcc's C++20 spelling.
# A macro, not a function: CUDA must be enabled at file scope. Its own variables start
# with _einrt_ or EIN_.
macro(einrt_add_program _einrt_name)
  cmake_parse_arguments(_einrt "CUDA" "TABLES" "SOURCES" ${ARGN})
  if(_einrt_CUDA)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      if(CMAKE_VERSION VERSION_LESS 3.24)
        # "native" needs CMake 3.24 and "all-major" 3.23; older releases need the list.
        message(FATAL_ERROR "CMake ${CMAKE_VERSION} cannot choose CUDA architectures by itself (3.24 can): "
                            "pass them, e.g. make CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=90")
      endif()
      execute_process(COMMAND nvidia-smi -L OUTPUT_VARIABLE _einrt_gpus ERROR_QUIET RESULT_VARIABLE _einrt_smi)
      if(_einrt_smi EQUAL 0 AND _einrt_gpus MATCHES "GPU")
        set(CMAKE_CUDA_ARCHITECTURES native)
      else()
        set(CMAKE_CUDA_ARCHITECTURES all-major)
      endif()
    endif()
    enable_language(CUDA)
    # einrt asks for C++20, which CMake releases older than 3.26 cannot spell for nvcc.
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    endif()
    add_executable(${_einrt_name} ${_einrt_SOURCES})
    target_link_libraries(${_einrt_name} PRIVATE einrt::cuda)
  else()
    _einrt_kernel_flags()
    add_executable(${_einrt_name} ${_einrt_SOURCES})
    target_compile_options(${_einrt_name} PRIVATE ${EIN_KERNEL_FLAGS})
    _einrt_vector_math(${_einrt_name})
    if(_einrt_TABLES)
      # The tables file comes last on the link line, so where both define the same inline
      # function the linker keeps the optimized copy.
      set_source_files_properties(${_einrt_TABLES} PROPERTIES COMPILE_OPTIONS "$<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-O0>")
    endif()
    target_link_libraries(${_einrt_name} PRIVATE einrt::einrt)
    find_package(OpenMP COMPONENTS CXX)
    if(OpenMP_CXX_FOUND)
      target_link_libraries(${_einrt_name} PRIVATE OpenMP::OpenMP_CXX)
    endif()
    _einrt_optional_library(${_einrt_name} EINRT_USE_LIBXSMM einrt::xsmm EINRT_WITH_LIBXSMM
      "small and skinny f32/f64 GEMMs through LIBXSMM where einrt was built with it"
      "small GEMMs through LIBXSMM" "small GEMMs through the BLAS (no LIBXSMM)")
    _einrt_optional_library(${_einrt_name} EINRT_USE_ONEDNN einrt::dnnl EINRT_WITH_ONEDNN
      "bf16 and f16 GEMMs through oneDNN where einrt was built with it"
      "bf16/f16 GEMMs through oneDNN" "bf16/f16 GEMMs converted to f32 for the BLAS (no oneDNN)")
  endif()
  set_target_properties(${_einrt_name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}")
endmacro()

function(_einrt_kernel_flags)
  option(EIN_NATIVE "tune the kernels to this machine's CPU (-march=native)" ON)
  include(CheckCXXCompilerFlag)
  set(flags -fno-math-errno)
  check_cxx_compiler_flag(-fno-trapping-math EIN_HAVE_NO_TRAPPING_MATH)
  if(EIN_HAVE_NO_TRAPPING_MATH)
    list(APPEND flags -fno-trapping-math)
  endif()
  check_cxx_compiler_flag(-fopenmp-simd EIN_HAVE_OPENMP_SIMD)
  if(EIN_HAVE_OPENMP_SIMD)
    list(APPEND flags -fopenmp-simd)
  endif()
  if(EIN_NATIVE)
    check_cxx_compiler_flag(-march=native EIN_HAVE_MARCH_NATIVE)
    if(EIN_HAVE_MARCH_NATIVE)
      list(APPEND flags -march=native)
      # GCC vectorizes with 256-bit registers on AVX-512 processors unless told otherwise
      # (for the older ones that slow their clock under 512-bit code); the elementwise
      # kernels are arithmetic-bound there: exp over 4096^2 floats ran at 9.8-10.5 GB/s on
      # one thread with 256 bits, 15-21 with 512 (bench/RESULTS.md). No effect without
      # AVX-512.
      check_cxx_compiler_flag(-mprefer-vector-width=512 EIN_HAVE_PREFER_512)
      if(EIN_HAVE_PREFER_512)
        list(APPEND flags -mprefer-vector-width=512)
      endif()
    endif()
  endif()
  set(EIN_KERNEL_FLAGS ${flags} PARENT_SCOPE)
endfunction()

# Links the vector math library EINRT_VECTOR_MATH names into `target` and tells math.h
# (EINRT_VECTOR_MATH), or says why the kernels go without one.
function(_einrt_vector_math target)
  set(EINRT_VECTOR_MATH "sleef" CACHE STRING "vector math library of the elementwise kernels: sleef, libmvec or none")
  set_property(CACHE EINRT_VECTOR_MATH PROPERTY STRINGS sleef libmvec none)
  if(EINRT_VECTOR_MATH STREQUAL "sleef")
    find_library(EIN_SLEEF_GNUABI NAMES sleefgnuabi)
    set(_einrt_library ${EIN_SLEEF_GNUABI})
  elseif(EINRT_VECTOR_MATH STREQUAL "libmvec")
    find_library(EIN_LIBMVEC NAMES mvec)
    set(_einrt_library ${EIN_LIBMVEC})
  elseif(NOT EINRT_VECTOR_MATH STREQUAL "none")
    message(FATAL_ERROR "EINRT_VECTOR_MATH=${EINRT_VECTOR_MATH}: expected sleef, libmvec or none")
  endif()
  if(_einrt_library)
    target_link_libraries(${target} PRIVATE ${_einrt_library})
    target_compile_definitions(${target} PRIVATE EINRT_VECTOR_MATH=1)
    message(STATUS "${target}: vector math from ${_einrt_library}")
  else()
    message(STATUS "${target}: no vector math library (EINRT_VECTOR_MATH=${EINRT_VECTOR_MATH}): exp vectorizes, log/tanh/erf/pow stay scalar")
  endif()
endfunction()

# Links einrt's optional library `library` (einrt::xsmm, einrt::dnnl) into `target` and
# defines `define` where einrt was built with it and the option `use` is on; says which.
function(_einrt_optional_library target use library define help with without)
  option(${use} "${help}" ON)
  if(${use} AND TARGET ${library})
    target_link_libraries(${target} PRIVATE ${library})
    target_compile_definitions(${target} PRIVATE ${define}=1)
    message(STATUS "${target}: ${with}")
  else()
    message(STATUS "${target}: ${without}")
  endif()
endfunction()
