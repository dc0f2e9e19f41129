# eindecomp_stage(PREFIX NAME DEPS...): one stage of the one-way flow as a static library
# PREFIX_NAME built from the .cpp files of the folder NAME beside the calling CMakeLists
# (an interface library where it has none), linking only the stages (or targets) DEPS
# before it, so a backwards dependency fails to link. A DEP that is no target names a
# planner stage (planner_DEP). Every stage includes from the source root and reads the
# generated planner/version.h.
function(eindecomp_stage prefix name)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${name}/*.cpp)
  set(target ${prefix}_${name})
  set(includes ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/planner/generated ${PROJECT_SOURCE_DIR}/runtime/include)
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC ${includes})
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    set(scope PUBLIC)
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${includes})
    set(scope INTERFACE)
  endif()
  foreach(dep ${ARGN})
    if(TARGET ${dep})
      target_link_libraries(${target} ${scope} ${dep})
    else()
      target_link_libraries(${target} ${scope} planner_${dep})
    endif()
  endforeach()
endfunction()
