# The libFuzzer target for the bundle and property-set readers. It is built with
# clang-15 (-fsanitize=fuzzer,address) from the reader sources themselves, whatever
# compiler builds the rest, and runs for a bounded time as a test, starting from the
# corpus in fuzz/corpus. Off (with the reason) where clang's libFuzzer does not link.
set(FuzzDir ${CMAKE_CURRENT_LIST_DIR})
dglink_fuzzing_unavailable(FuzzOff)
if(FuzzOff)
  message(STATUS "dglink: bundle fuzz target OFF: ${FuzzOff}; the mutation test still runs")
  return()
endif()
message(STATUS "dglink: bundle fuzz target ON")

set(FuzzSources
  ${FuzzDir}/bundle_fuzzer.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/bundle/bundle.cpp
  ${CMAKE_SOURCE_DIR}/common/support/image.cpp
  ${CMAKE_SOURCE_DIR}/common/support/error.cpp)
set(Fuzzer ${CMAKE_CURRENT_BINARY_DIR}/fuzz/dglink_bundle_fuzzer)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
add_custom_command(
  OUTPUT ${Fuzzer}
  COMMAND ${DGLINK_FUZZ_CLANGXX} -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined
          -fno-sanitize-recover=undefined -DFMT_HEADER_ONLY
          -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_SOURCE_DIR}/common/support/include
          -I${CMAKE_CURRENT_SOURCE_DIR}/include ${FuzzSources} -o ${Fuzzer}
  DEPENDS ${FuzzSources}
  COMMENT "Building the bundle fuzz target with clang++-15 and libFuzzer"
  VERBATIM)
add_custom_target(dglink_bundle_fuzzer ALL DEPENDS ${Fuzzer})
# A bounded run: the corpus is read, not written (new inputs go to a scratch folder).
set(FuzzScratch ${CMAKE_CURRENT_BINARY_DIR}/fuzz_corpus_new)
file(MAKE_DIRECTORY ${FuzzScratch})
add_test(NAME shim_bundle_fuzz
         COMMAND ${Fuzzer} -runs=200000 -max_total_time=60 -max_len=8192 ${FuzzScratch}
                 ${FuzzDir}/corpus)
