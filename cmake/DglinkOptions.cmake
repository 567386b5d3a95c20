# Build options shared by every folder: warnings, sanitizers, adapter switches.
option(DGLINK_WARNINGS_AS_ERRORS "Treat compiler warnings as errors (CI)" OFF)
option(DGLINK_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(DGLINK_BUILD_BENCHMARKS "Build the Google Benchmark programs" ON)
option(DGLINK_ENABLE_OPENCL "Build the OpenCL adapter when its SDK is found" ON)
option(DGLINK_ENABLE_CUDA "Build the CUDA adapter when the CUDA headers are found" ON)

add_compile_options(-Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter)
if(DGLINK_WARNINGS_AS_ERRORS)
  add_compile_options(-Werror)
endif()
if(DGLINK_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# Adapters resolve their own entry points before any other library's (the dispatch
# layer exports the same names), and keep everything but the PI symbols hidden.
function(dglink_add_adapter target backend)
  add_library(${target} SHARED ${ARGN})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME dglink_adapter_${backend})
  target_link_options(${target} PRIVATE -Wl,-Bsymbolic -Wl,--no-undefined)
  target_link_libraries(${target} PRIVATE dglink::support)
  target_compile_definitions(${target} PRIVATE DGLINK_ADAPTER_NAME="${backend}")
endfunction()

# An adapter built on the adapter core (common/adapter_core): the core's exports and
# contract, linked whole, and the backend's hooks in ARGN.
function(dglink_add_core_adapter target backend)
  dglink_add_adapter(${target} ${backend} ${ARGN})
  target_link_libraries(${target} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,dglink_adapter_core>"
                        dglink_pi_face)
endfunction()

# The Unified Runtime adapter of a PI adapter built on the core
# (libur_adapter_dglink_<backend>.so, docs/ur.md): the same backend objects and core,
# with the UR face (common/ur_face) instead of the PI one. It exports the
# urGet*ProcAddrTable functions and the test hooks, nothing else.
function(dglink_add_ur_adapter pi_target backend)
  if(NOT TARGET dglink_ur_face OR NOT TARGET ${pi_target})
    return()
  endif()
  set(target dglink_ur_adapter_${backend})
  add_library(${target} SHARED $<TARGET_OBJECTS:${pi_target}> $<TARGET_OBJECTS:dglink_ur_face>)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ur_adapter_dglink_${backend})
  get_target_property(libraries ${pi_target} LINK_LIBRARIES)
  list(REMOVE_ITEM libraries dglink_pi_face)
  target_link_libraries(${target} PRIVATE ${libraries})
  set(map ${CMAKE_SOURCE_DIR}/common/ur_face/ur_adapter.map)
  target_link_options(${target} PRIVATE -Wl,-Bsymbolic -Wl,--no-undefined
                      -Wl,--version-script=${map})
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
  set_property(GLOBAL APPEND PROPERTY DGLINK_UR_ADAPTERS ${target})
endfunction()
