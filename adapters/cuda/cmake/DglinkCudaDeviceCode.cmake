# Device code for CUDA tests and benchmarks, compiled at build time and embedded
# in the program as byte arrays (the GPU host needs no compiler):
#   dglink_nvcc_ptx(<out.ptx> <in.cu>)             nvcc -ptx -rdc (globals .visible), sm_75 PTX
#   dglink_clang_nvcl_ptx(<out.ptx> <in.cl>)        OpenCL C -> PTX (nvptx64-nvidia-nvcl)
#   dglink_embed_files(<out.cpp> <Symbol> <file> ...)  const unsigned char Symbol[] (NUL
#                                                      appended) + const size_t SymbolSize
# DGLINK_NVCC / DGLINK_CLANG_NVCL say whether each compiler was found.
find_program(DGLINK_NVCC_EXECUTABLE nvcc HINTS ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
find_program(DGLINK_CLANG15_EXECUTABLE clang-15)
# Cache entries, so that other folders (benchmarks/) see them too.
set(DGLINK_NVCC OFF CACHE INTERNAL "nvcc found for CUDA device code")
if(DGLINK_NVCC_EXECUTABLE)
  set(DGLINK_NVCC ON CACHE INTERNAL "nvcc found for CUDA device code")
endif()
set(DGLINK_CLANG_NVCL OFF CACHE INTERNAL "clang-15 found for OpenCL C -> PTX")
if(DGLINK_CLANG15_EXECUTABLE)
  set(DGLINK_CLANG_NVCL ON CACHE INTERNAL "clang-15 found for OpenCL C -> PTX")
endif()
message(STATUS "dglink: CUDA device code: nvcc ${DGLINK_NVCC} (${DGLINK_NVCC_EXECUTABLE}), "
               "clang-15 nvcl ${DGLINK_CLANG_NVCL}")
set(DGLINK_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/EmbedFiles.cmake CACHE INTERNAL "")

function(dglink_nvcc_ptx out in)
  add_custom_command(OUTPUT ${out}
    COMMAND ${DGLINK_NVCC_EXECUTABLE} -ptx -rdc=true -arch=compute_75 -diag-suppress=177
            ${in} -o ${out}
    DEPENDS ${in} COMMENT "nvcc -ptx ${in}" VERBATIM)
endfunction()

function(dglink_clang_nvcl_ptx out in)
  add_custom_command(OUTPUT ${out}
    COMMAND ${DGLINK_CLANG15_EXECUTABLE} -x cl -cl-std=CL2.0 --target=nvptx64-nvidia-nvcl -S -O2
            -Xclang -finclude-default-header ${in} -o ${out}
    DEPENDS ${in} COMMENT "clang-15 (OpenCL C -> PTX) ${in}" VERBATIM)
endfunction()

function(dglink_embed_files out)
  set(pairs ${ARGN})
  set(files)
  list(LENGTH pairs n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 1 ${last} 2)
    list(GET pairs ${i} f)
    list(APPEND files ${f})
  endforeach()
  string(REPLACE ";" "|" encoded "${pairs}")
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${out} "-DPAIRS=${encoded}" -P ${DGLINK_EMBED_SCRIPT}
    DEPENDS ${files} ${DGLINK_EMBED_SCRIPT} COMMENT "embedding device code into ${out}" VERBATIM)
endfunction()
