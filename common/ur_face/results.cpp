// The core's results in UR's words, and the answers of UR's *GetInfo queries.
#include "face.h"

namespace dglink::ur {

ur_result_t toUr(pi_result Result) {
  if (Result == core::InvalidMutableCommand) // not one of PI's names
    return UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_COMMAND_HANDLE_EXP;
  switch (Result) {
  case PI_SUCCESS:
    return UR_RESULT_SUCCESS;
  case PI_ERROR_DEVICE_NOT_FOUND:
    return UR_RESULT_ERROR_DEVICE_NOT_FOUND;
  case PI_ERROR_DEVICE_NOT_AVAILABLE:
    return UR_RESULT_ERROR_DEVICE_NOT_AVAILABLE;
  case PI_ERROR_COMPILER_NOT_AVAILABLE:
  case PI_ERROR_LINKER_NOT_AVAILABLE:
    return UR_RESULT_ERROR_COMPILER_NOT_AVAILABLE;
  case PI_ERROR_MEM_OBJECT_ALLOCATION_FAILURE:
    return UR_RESULT_ERROR_MEM_OBJECT_ALLOCATION_FAILURE;
  case PI_ERROR_OUT_OF_RESOURCES:
    return UR_RESULT_ERROR_OUT_OF_RESOURCES;
  case PI_ERROR_OUT_OF_HOST_MEMORY:
    return UR_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  case PI_ERROR_PROFILING_INFO_NOT_AVAILABLE:
    return UR_RESULT_ERROR_PROFILING_INFO_NOT_AVAILABLE;
  case PI_ERROR_MEM_COPY_OVERLAP:
    return UR_RESULT_ERROR_OVERLAPPING_REGIONS;
  case PI_ERROR_MISALIGNED_SUB_BUFFER_OFFSET:
    return UR_RESULT_ERROR_MISALIGNED_SUB_BUFFER_OFFSET;
  case PI_ERROR_BUILD_PROGRAM_FAILURE:
  case PI_ERROR_COMPILE_PROGRAM_FAILURE:
    return UR_RESULT_ERROR_PROGRAM_BUILD_FAILURE;
  case PI_ERROR_LINK_PROGRAM_FAILURE:
    return UR_RESULT_ERROR_PROGRAM_LINK_FAILURE;
  case PI_ERROR_INVALID_VALUE:
  case PI_ERROR_INVALID_BUILD_OPTIONS:
  case PI_ERROR_INVALID_COMPILER_OPTIONS:
  case PI_ERROR_INVALID_LINKER_OPTIONS:
  case PI_ERROR_INVALID_GLOBAL_OFFSET:
    return UR_RESULT_ERROR_INVALID_VALUE;
  case PI_ERROR_INVALID_SPEC_ID:
    return UR_RESULT_ERROR_INVALID_SPEC_ID;
  case PI_ERROR_INVALID_DEVICE_TYPE:
    return UR_RESULT_ERROR_INVALID_ENUMERATION;
  case PI_ERROR_INVALID_PLATFORM:
    return UR_RESULT_ERROR_INVALID_PLATFORM;
  case PI_ERROR_INVALID_DEVICE:
    return UR_RESULT_ERROR_INVALID_DEVICE;
  case PI_ERROR_INVALID_CONTEXT:
    return UR_RESULT_ERROR_INVALID_CONTEXT;
  case PI_ERROR_INVALID_QUEUE_PROPERTIES:
    return UR_RESULT_ERROR_INVALID_QUEUE_PROPERTIES;
  case PI_ERROR_INVALID_QUEUE:
    return UR_RESULT_ERROR_INVALID_QUEUE;
  case PI_ERROR_INVALID_HOST_PTR:
    return UR_RESULT_ERROR_INVALID_HOST_PTR;
  case PI_ERROR_INVALID_MEM_OBJECT:
    return UR_RESULT_ERROR_INVALID_MEM_OBJECT;
  case PI_ERROR_INVALID_BINARY:
    return UR_RESULT_ERROR_INVALID_BINARY;
  case PI_ERROR_INVALID_PROGRAM:
    return UR_RESULT_ERROR_INVALID_PROGRAM;
  case PI_ERROR_INVALID_PROGRAM_EXECUTABLE:
    return UR_RESULT_ERROR_INVALID_PROGRAM_EXECUTABLE;
  case PI_ERROR_INVALID_KERNEL_NAME:
    return UR_RESULT_ERROR_INVALID_KERNEL_NAME;
  case PI_ERROR_INVALID_KERNEL_DEFINITION:
  case PI_ERROR_INVALID_KERNEL:
    return UR_RESULT_ERROR_INVALID_KERNEL;
  case PI_ERROR_INVALID_ARG_INDEX:
    return UR_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
  case PI_ERROR_INVALID_ARG_VALUE:
    return UR_RESULT_ERROR_INVALID_ARGUMENT;
  case PI_ERROR_INVALID_ARG_SIZE:
    return UR_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
  case PI_ERROR_INVALID_KERNEL_ARGS:
    // UR_RESULT_ERROR_INVALID_KERNEL_ARGS, which the header marks deprecated but the
    // launch entry point still names.
    return static_cast<ur_result_t>(27);
  case PI_ERROR_INVALID_WORK_DIMENSION:
    return UR_RESULT_ERROR_INVALID_WORK_DIMENSION;
  case PI_ERROR_INVALID_WORK_GROUP_SIZE:
    return UR_RESULT_ERROR_INVALID_WORK_GROUP_SIZE;
  case PI_ERROR_INVALID_WORK_ITEM_SIZE:
    return UR_RESULT_ERROR_INVALID_WORK_ITEM_SIZE;
  case PI_ERROR_INVALID_GLOBAL_WORK_SIZE:
    return UR_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION;
  case PI_ERROR_INVALID_EVENT_WAIT_LIST:
    return UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST;
  case PI_ERROR_INVALID_EVENT:
    return UR_RESULT_ERROR_INVALID_EVENT;
  case PI_ERROR_INVALID_OPERATION:
    return UR_RESULT_ERROR_INVALID_OPERATION;
  case PI_ERROR_INVALID_BUFFER_SIZE:
    return UR_RESULT_ERROR_INVALID_BUFFER_SIZE;
  case PI_ERROR_UNSUPPORTED_FEATURE:
    return UR_RESULT_ERROR_UNSUPPORTED_FEATURE;
  case PI_ERROR_PLUGIN_SPECIFIC_ERROR:
    return UR_RESULT_ERROR_ADAPTER_SPECIFIC;
  case PI_ERROR_COMMAND_EXECUTION_FAILURE:
    return UR_RESULT_ERROR_DEVICE_LOST;
  case PI_ERROR_INVALID_COMMAND_BUFFER_KHR:
    return UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_EXP;
  case PI_ERROR_INVALID_SYNC_POINT_WAIT_LIST_KHR:
    return UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_SYNC_POINT_EXP;
  case PI_ERROR_UNKNOWN:
    break;
  }
  return UR_RESULT_ERROR_UNKNOWN;
}

ur_result_t InfoAnswer::check() const {
  if (PropValue == nullptr && PropSizeRet == nullptr)
    return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER,
                  "{}: arguments 'pPropValue' and 'pPropSizeRet' are both null", Function);
  if (PropValue != nullptr && PropSize == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'propSize' is 0", Function);
  return UR_RESULT_SUCCESS;
}

ur_result_t InfoAnswer::bytes(const void *Data, size_t Size) const {
  if (PropValue != nullptr) {
    if (PropSize < Size)
      return failUr(UR_RESULT_ERROR_INVALID_SIZE,
                    "{}: buffer of {} bytes is too small, {} bytes needed", Function, PropSize,
                    Size);
    if (Size != 0)
      std::memcpy(PropValue, Data, Size);
  }
  if (PropSizeRet != nullptr)
    *PropSizeRet = Size;
  return UR_RESULT_SUCCESS;
}

ur_result_t InfoAnswer::unsupported(uint32_t Name) const {
  return failUr(UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION,
                "{}: query {:#x} is not answered by dglink's Unified Runtime face", Function, Name);
}

ur_backend_t backendOf(const char *AdapterName) {
  const std::string Name = AdapterName;
  if (Name == "opencl")
    return UR_BACKEND_OPENCL;
  if (Name == "level_zero")
    return UR_BACKEND_LEVEL_ZERO;
  if (Name == "cuda")
    return UR_BACKEND_CUDA;
  if (Name.compare(0, 3, "hip") == 0)
    return UR_BACKEND_HIP;
  return UR_BACKEND_UNKNOWN;
}

} // namespace dglink::ur
