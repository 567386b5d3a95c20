# The Unified Runtime (UR) dglink's UR face is built against (docs/ur.md): its headers,
# and for tests, benchmarks and the GPU-host package its loader (libur_loader.so),
# urinfo and its conformance tests (CTS). Found, in this order:
#   1. an installed UR: find_package(unified-runtime), e.g. -Dunified-runtime_DIR=...
#   2. a UR source tree, DGLINK_UR_SOURCE_DIR, built here as an external project
#   3. the snapshot in ../shared/third_party (DGLINK_UR_SNAPSHOT), extracted into the
#      build folder and built the same way (what CI does)
# Without UR headers the UR face is not built. Sets DGLINK_UR_FOUND, the targets
# dglink::ur_headers and (when a loader is known) dglink::ur_loader, and
# DGLINK_UR_LOADER_DIR / DGLINK_URINFO / DGLINK_UR_CTS_DIR.
option(DGLINK_ENABLE_UR "Build the Unified Runtime face and UR adapters when UR is found" ON)
set(DGLINK_UR_SNAPSHOT "${CMAKE_SOURCE_DIR}/../shared/third_party/unified-runtime-578c2a84.tar.gz"
    CACHE FILEPATH "Unified Runtime source snapshot (.tar.gz) used when no UR is installed")
set(DGLINK_UR_SOURCE_DIR "" CACHE PATH
    "Unified Runtime source tree (default: DGLINK_UR_SNAPSHOT, extracted into the build folder)")
option(DGLINK_REQUIRE_UR "Fail the configuration when no UR is found (CI: scripts/dev.sh)" OFF)
option(DGLINK_UR_BUILD_CTS "Build UR's conformance tests from source" ON)

option(DGLINK_UR_CTS_UNITY
       "Compile UR's conformance-test suites as unity builds (several times faster; CI)" ON)
set(DGLINK_UR_CTS_DIR "" CACHE PATH
    "Where UR's conformance test programs are, for an installed UR (set when UR is built here)")
# All 23 suites UR's CTS builds for dglink's adapters: 13 need no device code, 10 load the
# device programs that dglink's DPC++ stand-in (conformance/ur_cts/dpcxx-standin) builds
# from the ports in conformance/ur_cts (docs/ur.md). exp_enqueue_native is UR's CUDA
# adapter's own (built only with it).
set(DGLINK_UR_CTS_SUITES
    adapter platform device context memory event queue sampler virtual_memory exp_graph
    exp_reusable_events exp_usm_context_memcpy exp_usm_host_mem_register kernel program
    enqueue usm exp_command_buffer exp_kernel_launch_with_args memory-migrate
    integration exp_host_task exp_usm_p2p
    CACHE STRING "The UR CTS suites built here and run against dglink's UR adapters")
option(DGLINK_UR_CTS_DEVICE_CODE
       "Build the CTS suites that load device code, with dglink's DPC++ stand-in" ON)
set(DGLINK_UR_CTS_TRIPLES "spir64,nvptx64-nvidia-cuda" CACHE STRING
    "The targets the DPC++ stand-in builds UR's CTS device programs for (spir64: SPIR-V; nvptx64-nvidia-cuda: PTX)")
set(DGLINK_UR_FOUND OFF)
if(NOT DGLINK_ENABLE_UR)
  message(STATUS "dglink: Unified Runtime face OFF (DGLINK_ENABLE_UR=OFF)")
  return()
endif()

find_package(unified-runtime CONFIG QUIET)
if(unified-runtime_FOUND AND TARGET unified-runtime::ur_headers)
  add_library(dglink_ur_headers INTERFACE)
  target_link_libraries(dglink_ur_headers INTERFACE unified-runtime::ur_headers)
  add_library(dglink::ur_headers ALIAS dglink_ur_headers)
  get_target_property(DglinkUrIncludes unified-runtime::ur_headers INTERFACE_INCLUDE_DIRECTORIES)
  find_file(DGLINK_UR_DDI_HEADER unified-runtime/ur_ddi.h PATHS ${DglinkUrIncludes} NO_DEFAULT_PATH)
  if(TARGET unified-runtime::ur_loader)
    add_library(dglink_ur_loader INTERFACE)
    target_link_libraries(dglink_ur_loader INTERFACE unified-runtime::ur_loader dglink_ur_headers)
    add_library(dglink::ur_loader ALIAS dglink_ur_loader)
    get_target_property(DglinkUrLoader unified-runtime::ur_loader LOCATION)
    get_filename_component(DGLINK_UR_LOADER_DIR "${DglinkUrLoader}" DIRECTORY)
  endif()
  find_program(DGLINK_URINFO urinfo HINTS "${unified-runtime_DIR}/../../../bin")
  # The loader and urinfo beside dglink's libraries and programs, as from source, so
  # that scripts/package.sh finds them in lib/ and bin/.
  if(DGLINK_UR_LOADER_DIR)
    file(GLOB DglinkUrLoaderFiles "${DGLINK_UR_LOADER_DIR}/libur_loader.so*")
    file(COPY ${DglinkUrLoaderFiles} DESTINATION "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}")
  endif()
  if(DGLINK_URINFO)
    file(COPY "${DGLINK_URINFO}" DESTINATION "${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
  endif()
  set(DGLINK_UR_FOUND ON)
  message(STATUS "dglink: Unified Runtime face ON (installed UR ${unified-runtime_VERSION} in "
                 "${unified-runtime_DIR})")
  return()
endif()

set(DGLINK_UR_SOURCE "${DGLINK_UR_SOURCE_DIR}")
if(NOT DGLINK_UR_SOURCE AND EXISTS "${DGLINK_UR_SNAPSHOT}")
  set(DGLINK_UR_SOURCE "${CMAKE_BINARY_DIR}/_deps/unified-runtime-src")
  file(SHA256 "${DGLINK_UR_SNAPSHOT}" DglinkUrSnapshotHash)
  set(DglinkUrStamp "${CMAKE_BINARY_DIR}/_deps/unified-runtime-src.sha256")
  set(DglinkUrExtracted "")
  if(EXISTS "${DglinkUrStamp}")
    file(READ "${DglinkUrStamp}" DglinkUrExtracted)
  endif()
  if(NOT DglinkUrExtracted STREQUAL DglinkUrSnapshotHash)
    message(STATUS "dglink: extracting ${DGLINK_UR_SNAPSHOT}")
    file(REMOVE_RECURSE "${DGLINK_UR_SOURCE}" "${CMAKE_BINARY_DIR}/_deps/unified-runtime-tmp")
    file(ARCHIVE_EXTRACT INPUT "${DGLINK_UR_SNAPSHOT}"
         DESTINATION "${CMAKE_BINARY_DIR}/_deps/unified-runtime-tmp")
    file(RENAME "${CMAKE_BINARY_DIR}/_deps/unified-runtime-tmp/unified-runtime" "${DGLINK_UR_SOURCE}")
    file(REMOVE_RECURSE "${CMAKE_BINARY_DIR}/_deps/unified-runtime-tmp")
    file(WRITE "${DglinkUrStamp}" "${DglinkUrSnapshotHash}")
  endif()
endif()

if(NOT DGLINK_UR_SOURCE OR NOT EXISTS "${DGLINK_UR_SOURCE}/include/unified-runtime/ur_ddi.h")
  set(DglinkUrMode STATUS)
  if(DGLINK_REQUIRE_UR)
    set(DglinkUrMode FATAL_ERROR)
  endif()
  message(${DglinkUrMode} "dglink: Unified Runtime face OFF: no installed UR (unified-runtime_DIR), "
                          "no DGLINK_UR_SOURCE_DIR and no snapshot at ${DGLINK_UR_SNAPSHOT}")
  return()
endif()

add_library(dglink_ur_headers INTERFACE)
target_include_directories(dglink_ur_headers SYSTEM INTERFACE "${DGLINK_UR_SOURCE}/include")
set(DGLINK_UR_DDI_HEADER "${DGLINK_UR_SOURCE}/include/unified-runtime/ur_ddi.h")
add_library(dglink::ur_headers ALIAS dglink_ur_headers)

# UR's CMake wants lit and FileCheck when it builds tests (Debian: llvm-15-tools) and
# GoogleTest's sources (Debian: googletest).
set(DglinkUrTests OFF)
if(DGLINK_UR_BUILD_CTS)
  find_file(DGLINK_LIT_PY lit.py PATHS /usr/lib/llvm-15/build/utils/lit /usr/lib/llvm-14/build/utils/lit
            NO_DEFAULT_PATH)
  find_program(DGLINK_FILECHECK NAMES FileCheck FileCheck-15 FileCheck-14
               PATHS /usr/lib/llvm-15/bin /usr/lib/llvm-14/bin)
  find_path(DGLINK_GOOGLETEST_SOURCE_DIR googletest/CMakeLists.txt PATHS /usr/src/googletest
            NO_DEFAULT_PATH)
  if(DGLINK_LIT_PY AND DGLINK_FILECHECK AND DGLINK_GOOGLETEST_SOURCE_DIR)
    set(DglinkUrTests ON)
    set(DglinkLit "${CMAKE_BINARY_DIR}/_deps/lit")
    file(WRITE "${DglinkLit}" "#!/bin/sh\nexec python3 '${DGLINK_LIT_PY}' \"$@\"\n")
    file(CHMOD "${DglinkLit}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
         GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  else()
    message(STATUS "dglink: UR conformance tests OFF: lit.py, FileCheck or GoogleTest's sources "
                   "not found (apt-get install llvm-15-tools googletest)")
  endif()
endif()

set(DglinkUrBinary "${CMAKE_BINARY_DIR}/_deps/unified-runtime-build")
set(DglinkUrTargets ur_loader urinfo)
set(DglinkUrArgs
    -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DCMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER}
    -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
    -DUR_BUILD_EXAMPLES=OFF
    -DUR_BUILD_TOOLS=ON
    -DUR_ENABLE_SANITIZER=OFF
    -DUR_STATIC_LOADER=OFF
    -DUR_BUILD_TESTS=${DglinkUrTests})
if(DglinkUrTests)
  list(APPEND DglinkUrArgs
       -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=${DGLINK_GOOGLETEST_SOURCE_DIR}
       -DFETCHCONTENT_FULLY_DISCONNECTED=ON
       -DURLIT_LIT_BINARY=${DglinkLit}
       -DURLIT_FILECHECK_BINARY=${DGLINK_FILECHECK})
  if(DGLINK_UR_CTS_DEVICE_CODE)
    # UR's device_code/CMakeLists.txt calls UR_DPCXX per program and triple and
    # UR_DEVICE_CODE_EXTRACTOR to take the binary out: dpcxx-standin is both
    # (clang-15, llvm-spirv-15 and llc-15 for the ports in conformance/ur_cts).
    set(DglinkUrStandin "${CMAKE_SOURCE_DIR}/conformance/ur_cts/dpcxx-standin")
    if(NOT DGLINK_LLVM_OFF_REASON)
      # A wrapper that hands the stand-in the build's dglink-local-args (DPC++'s CUDA
      # form of local-memory arguments in the PTX it makes; compiler/post_link).
      set(DglinkUrStandin "${CMAKE_BINARY_DIR}/conformance/ur_cts/dpcxx-standin")
      file(GENERATE OUTPUT "${DglinkUrStandin}"
           CONTENT "#!/bin/sh\nDGLINK_UR_CTS_LOCAL_ARGS='$<TARGET_FILE:dglink-local-args>' exec '${CMAKE_SOURCE_DIR}/conformance/ur_cts/dpcxx-standin' \"$@\"\n"
           FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                            WORLD_READ WORLD_EXECUTE)
      set(DglinkUrStandinTool dglink-local-args)
    endif()
    list(APPEND DglinkUrArgs
         -DUR_DPCXX=${DglinkUrStandin}
         -DUR_DEVICE_CODE_EXTRACTOR=${DglinkUrStandin}
         -DUR_CONFORMANCE_TARGET_TRIPLES=${DGLINK_UR_CTS_TRIPLES}
         -DUR_TEST_FUZZTESTS=OFF)
  else()
    set(DglinkUrDeviceSuites kernel program enqueue usm exp_command_buffer
        exp_kernel_launch_with_args memory-migrate integration exp_host_task exp_usm_p2p)
    list(REMOVE_ITEM DGLINK_UR_CTS_SUITES ${DglinkUrDeviceSuites})
  endif()
  foreach(Suite IN LISTS DGLINK_UR_CTS_SUITES)
    list(APPEND DglinkUrTargets ${Suite}-test)
  endforeach()
  if(DGLINK_UR_CTS_UNITY)
    # The suites as unity builds (cmake/DglinkUrUnity.cmake, read by UR's configure).
    string(REPLACE ";" "|" DglinkUrUnitySuites "${DGLINK_UR_CTS_SUITES}")
    list(APPEND DglinkUrArgs
         "-DCMAKE_PROJECT_unified-runtime_INCLUDE=${CMAKE_CURRENT_LIST_DIR}/DglinkUrUnity.cmake"
         "-DDGLINK_UR_UNITY_SUITES=${DglinkUrUnitySuites}")
  endif()
  set(DGLINK_UR_CTS_DIR "${DglinkUrBinary}/test/conformance")
  if(DGLINK_UR_CTS_DEVICE_CODE)
    set(DGLINK_UR_CTS_KERNEL_DIR "${DGLINK_UR_CTS_DIR}/device_binaries")
  endif()
endif()
set(DglinkUrBuildCommand)
foreach(Target IN LISTS DglinkUrTargets)
  list(APPEND DglinkUrBuildCommand --target ${Target})
endforeach()

include(ExternalProject)
ExternalProject_Add(dglink_unified_runtime
  SOURCE_DIR "${DGLINK_UR_SOURCE}"
  BINARY_DIR "${DglinkUrBinary}"
  LIST_SEPARATOR |
  CMAKE_ARGS ${DglinkUrArgs}
  BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> ${DglinkUrBuildCommand}
  # The loader and urinfo land beside dglink's libraries and programs (lib/, bin/).
  INSTALL_COMMAND sh -c "cp -P <BINARY_DIR>/lib/libur_loader.so* '${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/' && cp <BINARY_DIR>/bin/urinfo '${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/'"
  BUILD_BYPRODUCTS "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/libur_loader.so"
                   "${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/urinfo"
  USES_TERMINAL_BUILD ON)

if(DglinkUrTests AND DGLINK_UR_CTS_DEVICE_CODE)
  # UR's build knows the device programs' UR sources, not their ports: a changed port
  # (or stand-in) removes the binaries and integration headers made from it, so that
  # UR's build makes them again.
  file(GLOB DglinkUrPorts CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/conformance/ur_cts/*.cl"
       "${CMAKE_SOURCE_DIR}/conformance/ur_cts/*.h")
  # The stand-in's tool too: its PTX changes with it.
  list(APPEND DglinkUrPorts ${DglinkUrStandinTool})
  list(APPEND DglinkUrPorts "${CMAKE_SOURCE_DIR}/conformance/ur_cts/dpcxx-standin"
       "${CMAKE_SOURCE_DIR}/conformance/ur_cts/sources.sha256")
  ExternalProject_Add_Step(dglink_unified_runtime device_code_ports
    COMMAND sh -c "rm -f \"$0\"/*/*.bin.0 \"$0\"/*/*.ih" "${DGLINK_UR_CTS_KERNEL_DIR}"
    DEPENDS ${DglinkUrPorts}
    DEPENDEES configure
    DEPENDERS build
    COMMENT "dglink: UR CTS device code ports changed; their binaries are made again")
endif()

add_library(dglink_ur_loader_library SHARED IMPORTED)
set_target_properties(dglink_ur_loader_library PROPERTIES
  IMPORTED_LOCATION "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/libur_loader.so")
add_dependencies(dglink_ur_loader_library dglink_unified_runtime)
add_library(dglink_ur_loader INTERFACE)
target_link_libraries(dglink_ur_loader INTERFACE dglink_ur_loader_library dglink_ur_headers)
add_library(dglink::ur_loader ALIAS dglink_ur_loader)
set(DGLINK_UR_LOADER_DIR "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}")
set(DGLINK_URINFO "${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/urinfo")
set(DGLINK_UR_FOUND ON)
message(STATUS "dglink: Unified Runtime face ON (UR built from ${DGLINK_UR_SOURCE}; CTS "
               "${DglinkUrTests})")
