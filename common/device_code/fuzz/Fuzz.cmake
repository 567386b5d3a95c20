# The libFuzzer target for the SPIR-V intake, built like compiler/fuzz's: the front's
# sources with clang-15 (-fsanitize=fuzzer,address,undefined), the LLVM side as built
# (libdglink_device_code_llvm.so, opened at run time). It runs for a bounded time as a
# test, from the seed modules in fuzz/corpus. Off (with the reason) where clang's
# libFuzzer does not link (dglink_fuzzing_unavailable, cmake/DglinkOptions.cmake).
set(SpirvFuzzDir ${CMAKE_CURRENT_LIST_DIR})
dglink_fuzzing_unavailable(SpirvFuzzOff)
# In the sanitizer build the LLVM side carries GCC's ASan runtime, which cannot be
# opened into a binary linked with clang's (ASan refuses two runtimes in one process):
# the fuzz target carries its own sanitizers and runs in the plain build.
if(DGLINK_SANITIZE)
  set(SpirvFuzzOff "the sanitizer build: the LLVM side has GCC's ASan runtime, the fuzz target clang's (it runs in the plain build)")
endif()
if(SpirvFuzzOff)
  message(STATUS "dglink: SPIR-V intake fuzz target OFF: ${SpirvFuzzOff}")
  return()
endif()
message(STATUS "dglink: SPIR-V intake fuzz target ON")

set(SpirvFuzzSources
  ${SpirvFuzzDir}/spirv_intake_fuzzer.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/spirv_module.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/translation_cache.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/translate.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/translator_process.cpp
  ${CMAKE_SOURCE_DIR}/common/support/error.cpp
  ${CMAKE_SOURCE_DIR}/common/support/device_code.cpp)
set(SpirvFuzzer ${CMAKE_CURRENT_BINARY_DIR}/fuzz/dglink_spirv_intake_fuzzer)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
# The LLVM side is found by the run path (the fuzzer's own folder holds no copy).
add_custom_command(
  OUTPUT ${SpirvFuzzer}
  COMMAND ${DGLINK_FUZZ_CLANGXX} -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined
          -fno-sanitize-recover=undefined -DFMT_HEADER_ONLY
          -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_SOURCE_DIR}/common/support/include
          -I${CMAKE_CURRENT_SOURCE_DIR}/include ${SpirvFuzzSources}
          -Wl,-rpath,$<TARGET_FILE_DIR:dglink_device_code_llvm> -ldl -o ${SpirvFuzzer}
  DEPENDS ${SpirvFuzzSources}
  COMMENT "Building the SPIR-V intake fuzz target with clang++-15 and libFuzzer"
  VERBATIM)
add_custom_target(dglink_spirv_intake_fuzzer ALL DEPENDS ${SpirvFuzzer} dglink_device_code_llvm)
# A bounded run (30 s in CI; long runs by hand, docs/opencl.md): the corpus is read, not
# written (new inputs go to a scratch folder).
set(SpirvFuzzScratch ${CMAKE_CURRENT_BINARY_DIR}/fuzz_corpus_new)
file(MAKE_DIRECTORY ${SpirvFuzzScratch})
# libFuzzer's own malloc limit would act in the translator's process before the
# translator's memory bound does (translator_process.cpp): it is set above that.
add_test(NAME device_code_spirv_fuzz
         COMMAND ${SpirvFuzzer} -runs=50000 -max_total_time=30 -max_len=16384
                 -malloc_limit_mb=8192 ${SpirvFuzzScratch}
                 ${SpirvFuzzDir}/corpus)
