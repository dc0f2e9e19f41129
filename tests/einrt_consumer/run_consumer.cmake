# Builds and runs the consumer project against einrt, either installed into a fresh
# prefix (MODE=install: `cmake --install BUILD --component einrt --prefix ...`) or
# straight from the build tree (MODE=buildtree: einrt_DIR=BUILD/runtime).
# Variables: BUILD (eindecomp build dir), SOURCE (this folder), WORK (scratch), MODE,
# MPIRUN, NP.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
if(MODE STREQUAL "install")
  run(${CMAKE_COMMAND} --install ${BUILD} --component einrt --prefix ${WORK}/prefix)
  set(locate -DCMAKE_PREFIX_PATH=${WORK}/prefix)
else()
  set(locate -Deinrt_DIR=${BUILD}/runtime)
endif()
run(${CMAKE_COMMAND} -S ${SOURCE}/project -B ${WORK}/build ${locate})
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${MPIRUN} --oversubscribe -np ${NP} ${WORK}/build/einrt_consumer)
