# LLVM 15 and the SPIR-V translator (LLVMSPIRVLib), found once for every folder that
# turns device code into other device code: the compiler shim (compiler/) and the
# adapters' translation library (common/device_code/). DGLINK_LLVM_OFF_REASON says why
# they cannot be used ("" when they can). LLVM's shared library is linked, not its
# component archives: the SPIR-V translator library links it too, and two copies of
# LLVM in one process would register every command-line option twice.
option(DGLINK_ENABLE_SHIM "Build the LLVM-based compiler shim (dglink compile) when LLVM 15 is found" ON)
if(DGLINK_ENABLE_SHIM)
  find_package(LLVM 15 CONFIG QUIET PATHS /usr/lib/llvm-15/lib/cmake/llvm NO_DEFAULT_PATH)
endif()
find_library(DGLINK_LLVM_SPIRV_LIB NAMES LLVMSPIRVLib)
find_path(DGLINK_LLVM_SPIRV_INCLUDE NAMES LLVMSPIRVLib/LLVMSPIRVLib.h)
set(DGLINK_LLVM_OFF_REASON "")
if(NOT DGLINK_ENABLE_SHIM)
  set(DGLINK_LLVM_OFF_REASON "DGLINK_ENABLE_SHIM is OFF")
elseif(NOT LLVM_FOUND)
  set(DGLINK_LLVM_OFF_REASON "LLVM 15 development files not found (apt-get install llvm-15-dev)")
elseif(NOT TARGET LLVM)
  set(DGLINK_LLVM_OFF_REASON "LLVM 15 was found without its shared library (libLLVM-15.so)")
elseif(NOT DGLINK_LLVM_SPIRV_LIB OR NOT DGLINK_LLVM_SPIRV_INCLUDE)
  set(DGLINK_LLVM_OFF_REASON "LLVMSPIRVLib not found (apt-get install libllvmspirvlib-15-dev)")
endif()
