# Builds and runs the consumer project against einrt, then runs it under mpirun.
# MODE:
#   install          einrt installed into a fresh prefix (`cmake --install BUILD --component
#                    einrt --prefix ...`), found with CMAKE_PREFIX_PATH;
#   buildtree        straight from the build tree (einrt_DIR=BUILD/runtime);
#   cpu_only         einrt built with CUDA (einrt::cuda exported), the consumer without
#                    COMPONENTS cuda, configured and built with no nvcc on PATH, no CUDA
#                    variables and -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON: einrt's package
#                    must not look the toolkit up (its cache must hold no CUDA entry);
#                    "SKIPPED:" when einrt was built without CUDA;
#   pkgconfig_install, pkgconfig_buildtree
#                    no CMake: `mpicxx main.cpp $(pkg-config --cflags --libs einrt)` with
#                    PKG_CONFIG_PATH at the installed (relocated: --prefix at install time)
#                    or the build tree's einrt.pc; the flags must name that einrt.
# Variables: BUILD (eindecomp build dir), SOURCE (this folder), WORK (scratch), MODE,
# MPIRUN, NP, and for the pkgconfig modes PKG_CONFIG and MPICXX.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

if(MODE STREQUAL "cpu_only")
  if(NOT EXISTS ${BUILD}/runtime/einrtCudaTargets.cmake)
    message("SKIPPED: einrt was built without CUDA (no ${BUILD}/runtime/einrtCudaTargets.cmake); nothing to check")
    return()
  endif()
  # The environment of a machine without the CUDA toolkit.
  string(REPLACE ":" ";" path "$ENV{PATH}")
  set(kept "")
  foreach(dir IN LISTS path)
    if(dir AND NOT EXISTS "${dir}/nvcc")
      list(APPEND kept "${dir}")
    endif()
  endforeach()
  string(REPLACE ";" ":" kept "${kept}")
  set(ENV{PATH} "${kept}")
  foreach(var CUDA_HOME CUDA_PATH CUDA_ROOT CUDACXX CUDAHOSTCXX CUDAToolkit_ROOT LIBRARY_PATH)
    unset(ENV{${var}})
  endforeach()
  find_program(NVCC_LEFT nvcc NO_CACHE)
  if(NVCC_LEFT)
    message(FATAL_ERROR "nvcc still found on PATH: ${NVCC_LEFT}")
  endif()
endif()

if(MODE MATCHES "^(install|pkgconfig_install)$")
  run(${CMAKE_COMMAND} --install ${BUILD} --component einrt --prefix ${WORK}/prefix)
  set(locate -DCMAKE_PREFIX_PATH=${WORK}/prefix)
  file(GLOB_RECURSE pc ${WORK}/prefix/einrt.pc)
  set(root ${WORK}/prefix)
else()
  set(locate -Deinrt_DIR=${BUILD}/runtime)
  set(pc ${BUILD}/runtime/einrt.pc)
  set(root ${BUILD}/runtime)
endif()

if(MODE MATCHES "^pkgconfig_")
  list(LENGTH pc n)
  if(NOT n EQUAL 1 OR NOT EXISTS "${pc}")
    message(FATAL_ERROR "expected one einrt.pc, found '${pc}'")
  endif()
  get_filename_component(pcdir ${pc} DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} ${pcdir})
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs einrt RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs einrt failed (${rc}): ${err}")
  endif()
  message("PKG_CONFIG_PATH=${pcdir} pkg-config --cflags --libs einrt: ${flags}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  # The flags must name this einrt (its headers, its library), not the prefix of
  # configure time or another einrt on the machine.
  set(header "")
  set(library "")
  foreach(flag IN LISTS flags)
    if(flag MATCHES "^-([IL])(.+)$")
      if(CMAKE_MATCH_1 STREQUAL "I" AND EXISTS "${CMAKE_MATCH_2}/einrt/einrt.h")
        get_filename_component(header "${CMAKE_MATCH_2}/einrt/einrt.h" REALPATH)
      elseif(CMAKE_MATCH_1 STREQUAL "L" AND EXISTS "${CMAKE_MATCH_2}/libeinrt.a")
        get_filename_component(library "${CMAKE_MATCH_2}/libeinrt.a" REALPATH)
      endif()
    endif()
  endforeach()
  get_filename_component(root_real ${root} REALPATH)
  get_filename_component(source_real ${SOURCE}/../.. REALPATH)
  string(FIND "${library}" "${root_real}/" at_root)
  if(NOT at_root EQUAL 0)
    message(FATAL_ERROR "pkg-config's -L does not lead to ${root}'s libeinrt.a (found '${library}')")
  endif()
  string(FIND "${header}" "${root_real}/" at_root)
  string(FIND "${header}" "${source_real}/runtime/include/" at_source)
  if(NOT at_root EQUAL 0 AND NOT (MODE STREQUAL "pkgconfig_buildtree" AND at_source EQUAL 0))
    message(FATAL_ERROR "pkg-config's -I does not lead to this einrt's einrt/einrt.h (found '${header}')")
  endif()
  # CXXFLAGS and LDFLAGS as a user's build would pass them (`make test-asan` exports the
  # sanitizer flags that einrt was built with).
  separate_arguments(user_flags UNIX_COMMAND "$ENV{CXXFLAGS} $ENV{LDFLAGS}")
  run(${MPICXX} ${user_flags} ${SOURCE}/project/main.cpp ${flags} -o ${WORK}/einrt_consumer)
  run(${MPIRUN} --oversubscribe -np ${NP} ${WORK}/einrt_consumer)
  return()
endif()

set(extra "")
if(MODE STREQUAL "cpu_only")
  set(extra -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
endif()
run(${CMAKE_COMMAND} -S ${SOURCE}/project -B ${WORK}/build ${locate} ${extra})
if(MODE STREQUAL "cpu_only")
  file(STRINGS ${WORK}/build/CMakeCache.txt cuda REGEX "^(CUDAToolkit_|CMAKE_CUDA_|CUDA_)")
  if(cuda)
    message(FATAL_ERROR "a CPU-only consumer of a CUDA-built einrt looked up the CUDA toolkit: ${cuda}")
  endif()
endif()
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${MPIRUN} --oversubscribe -np ${NP} ${WORK}/build/einrt_consumer)
