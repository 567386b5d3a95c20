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
    endif()
  endforeach()
  # urMemImageCreate.cpp and urMemImageCreateWithImageFormatParam.cpp both define a static
  # image_desc.
  set_source_files_properties(
    "${PROJECT_SOURCE_DIR}/test/conformance/memory/urMemImageCreateWithImageFormatParam.cpp"
    DIRECTORY "${PROJECT_SOURCE_DIR}/test/conformance/memory"
    PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()
cmake_language(DEFER DIRECTORY "${PROJECT_SOURCE_DIR}" CALL dglink_ur_unity)
