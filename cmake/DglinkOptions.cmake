# Build options shared by every folder: warnings, sanitizers, adapter switches.
option(DGLINK_WARNINGS_AS_ERRORS "Treat compiler warnings as errors (CI)" OFF)
option(DGLINK_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(DGLINK_BUILD_BENCHMARKS "Build the Google Benchmark programs" ON)
option(DGLINK_BUILD_EXAMPLES "Build the examples (examples/) and run them under ctest" ON)
option(DGLINK_ENABLE_OPENCL "Build the OpenCL adapter when its SDK is found" ON)
option(DGLINK_ENABLE_CUDA "Build the CUDA adapter when the CUDA headers are found" ON)

add_compile_options(-Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter)
# No absolute path of the machine that built dglink in what it installs: __FILE__ (in
# GoogleTest's messages of the conformance scenarios `dglink conform` carries) and debug
# info name sources relative to the source tree (scripts/check-install.sh checks it).
add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-ffile-prefix-map=${CMAKE_SOURCE_DIR}/=>)
if(DGLINK_WARNINGS_AS_ERRORS)
  add_compile_options(-Werror)
endif()
if(DGLINK_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# A shared library others link or load: SONAME lib<name>.so.<major>, file
# lib<name>.so.<major>.<minor>.<patch>.
function(dglink_version_library target)
  set_target_properties(${target} PROPERTIES VERSION ${PROJECT_VERSION}
                                             SOVERSION ${PROJECT_VERSION_MAJOR})
endfunction()

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
# contract, linked whole, and the backend's hooks in ARGN. Versioned like the other
# libraries: the dispatch layer finds libdglink_adapter_<name>.so.<major> (and plain
# .so files, for adapters of other projects).
function(dglink_add_core_adapter target backend)
  dglink_add_adapter(${target} ${backend} ${ARGN})
  dglink_version_library(${target})
  set_property(GLOBAL APPEND PROPERTY DGLINK_ADAPTER_TARGETS ${target})
  target_link_libraries(${target} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,dglink_adapter_core>"
                        dglink_pi_face)
endfunction()

# The Unified Runtime adapter of a PI adapter built on the core
# (libur_adapter_dglink_<backend>.so, docs/ur.md): the same backend objects and core,
# with the UR face (common/ur_face) instead of the PI one. It exports the
# urGet*ProcAddrTable functions and the test hooks, nothing else. Not versioned: the
# UR loader opens it by the path UR_ADAPTERS_FORCE_LOAD names.
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

# Whether libFuzzer targets can be built here: DGLINK_FUZZ_CLANGXX (clang++-15) is found and
# -fsanitize=fuzzer links; otherwise ${out} says why (empty when they can). The probe runs
# once per configure, for every fuzz target.
function(dglink_fuzzing_unavailable out)
  find_program(DGLINK_FUZZ_CLANGXX NAMES clang++-15 DOC "clang++ with libFuzzer for the fuzz targets")
  if(NOT DGLINK_FUZZ_CLANGXX)
    set(${out} "clang++-15 not found" PARENT_SCOPE)
    return()
  endif()
  get_property(Probed GLOBAL PROPERTY DGLINK_FUZZ_PROBED)
  if(NOT Probed)
    set(Probe ${CMAKE_BINARY_DIR}/fuzz_probe)
    file(WRITE ${Probe}.cpp "#include <cstddef>\n#include <cstdint>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }\n")
    execute_process(COMMAND ${DGLINK_FUZZ_CLANGXX} -fsanitize=fuzzer,address ${Probe}.cpp -o ${Probe}
                    RESULT_VARIABLE ProbeResult OUTPUT_QUIET ERROR_QUIET)
    set(Reason "")
    if(NOT ProbeResult EQUAL 0)
      set(Reason "clang++-15 -fsanitize=fuzzer does not link (libFuzzer runtime missing: libclang-common-15-dev)")
    endif()
    set_property(GLOBAL PROPERTY DGLINK_FUZZ_PROBED ON)
    set_property(GLOBAL PROPERTY DGLINK_FUZZ_UNAVAILABLE "${Reason}")
  endif()
  get_property(Reason GLOBAL PROPERTY DGLINK_FUZZ_UNAVAILABLE)
  set(${out} "${Reason}" PARENT_SCOPE)
endfunction()
