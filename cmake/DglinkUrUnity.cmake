# Read by the Unified Runtime's own configure (CMAKE_PROJECT_unified-runtime_INCLUDE, set
# by DglinkUnifiedRuntime.cmake): UR's conformance-test suites are compiled as unity
# builds, a few sources per compiler run instead of one each. Every CTS source parses the
# same GoogleTest and UR headers, so this cuts the suites' compile time several-fold (the
# larger part of CI's time before). Sources that define the same file-local names as
# another source of their suite stay out of the batches.
set(DGLINK_UR_UNITY_SUITES "" CACHE STRING "UR CTS suites (targets <suite>-test) built as unity builds")
function(dglink_ur_unity)
  foreach(Suite IN LISTS DGLINK_UR_UNITY_SUITES)
    if(TARGET ${Suite}-test)
      set_target_properties(${Suite}-test PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
      # The tests are compiled for their checks, not their speed (UR's Release build
      # would give -O3; the last -O wins): optimizing them is most of the suites' compile
      # time, which is most of CI's build.
      target_compile_options(${Suite}-test PRIVATE -O0)
    endif()
  endforeach()
  # Sources that define a file-local name another source of their suite defines too stay
  # out of the batches (<folder>/<source>, the first definer stays in):
  #   memory: a static image_desc; enqueue: generateParameterizations (the rect copies),
  #   testParametersFill and test_cases (the fills, the launch test); exp_command_buffer:
  #   generateParameterizations (rect_*) and test_cases (copy, fill, read, write).
  set(Separate
      memory/urMemImageCreateWithImageFormatParam.cpp
      enqueue/urEnqueueMemBufferReadRect.cpp
      enqueue/urEnqueueMemBufferWriteRect.cpp
      enqueue/urEnqueueUSMFill.cpp
      enqueue/urEnqueueUSMFill2D.cpp
      enqueue/urEnqueueKernelLaunchWithArgsExp.cpp
      exp_command_buffer/rect_write.cpp
      exp_command_buffer/fill.cpp
      exp_command_buffer/read.cpp
      exp_command_buffer/write.cpp)
  set(Conformance "${PROJECT_SOURCE_DIR}/test/conformance")
  foreach(Source IN LISTS Separate)
    string(REGEX REPLACE "/.*" "" Folder "${Source}")
    if(EXISTS "${Conformance}/${Folder}/CMakeLists.txt" AND TARGET ${Folder}-test)
      set_source_files_properties("${Conformance}/${Source}" DIRECTORY "${Conformance}/${Folder}"
                                  PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY "${PROJECT_SOURCE_DIR}" CALL dglink_ur_unity)
