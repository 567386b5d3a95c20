// OpenCL's error codes in PI terms and messages, and the string queries every part
// of the backend uses.
#include "backend.h"

#include <cstring>

namespace dglink::opencl {

const char *clErrorName(cl_int Error) {
  switch (Error) {
#define DGLINK_CL_ERROR(Name)                                                                      \
  case Name:                                                                                       \
    return #Name;
    DGLINK_CL_ERROR(CL_SUCCESS)
    DGLINK_CL_ERROR(CL_DEVICE_NOT_FOUND)
    DGLINK_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    DGLINK_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    DGLINK_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    DGLINK_CL_ERROR(CL_OUT_OF_RESOURCES)
    DGLINK_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    DGLINK_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    DGLINK_CL_ERROR(CL_MEM_COPY_OVERLAP)
    DGLINK_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    DGLINK_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    DGLINK_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    DGLINK_CL_ERROR(CL_MAP_FAILURE)
    DGLINK_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    DGLINK_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    DGLINK_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    DGLINK_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    DGLINK_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    DGLINK_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    DGLINK_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    DGLINK_CL_ERROR(CL_INVALID_VALUE)
    DGLINK_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    DGLINK_CL_ERROR(CL_INVALID_PLATFORM)
    DGLINK_CL_ERROR(CL_INVALID_DEVICE)
    DGLINK_CL_ERROR(CL_INVALID_CONTEXT)
    DGLINK_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    DGLINK_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    DGLINK_CL_ERROR(CL_INVALID_HOST_PTR)
    DGLINK_CL_ERROR(CL_INVALID_MEM_OBJECT)
    DGLINK_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    DGLINK_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    DGLINK_CL_ERROR(CL_INVALID_SAMPLER)
    DGLINK_CL_ERROR(CL_INVALID_BINARY)
    DGLINK_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    DGLINK_CL_ERROR(CL_INVALID_PROGRAM)
    DGLINK_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    DGLINK_CL_ERROR(CL_INVALID_KERNEL_NAME)
    DGLINK_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    DGLINK_CL_ERROR(CL_INVALID_KERNEL)
    DGLINK_CL_ERROR(CL_INVALID_ARG_INDEX)
    DGLINK_CL_ERROR(CL_INVALID_ARG_VALUE)
    DGLINK_CL_ERROR(CL_INVALID_ARG_SIZE)
    DGLINK_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    DGLINK_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    DGLINK_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    DGLINK_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    DGLINK_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    DGLINK_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    DGLINK_CL_ERROR(CL_INVALID_EVENT)
    DGLINK_CL_ERROR(CL_INVALID_OPERATION)
    DGLINK_CL_ERROR(CL_INVALID_GL_OBJECT)
    DGLINK_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    DGLINK_CL_ERROR(CL_INVALID_MIP_LEVEL)
    DGLINK_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    DGLINK_CL_ERROR(CL_INVALID_PROPERTY)
    DGLINK_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
    DGLINK_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    DGLINK_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    DGLINK_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
    DGLINK_CL_ERROR(CL_INVALID_PIPE_SIZE)
    DGLINK_CL_ERROR(CL_INVALID_DEVICE_QUEUE)
    DGLINK_CL_ERROR(CL_INVALID_SPEC_ID)
    DGLINK_CL_ERROR(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
    DGLINK_CL_ERROR(CL_PLATFORM_NOT_FOUND_KHR)
#undef DGLINK_CL_ERROR
  }
  return "CL_<unknown error>";
}

pi_result toPiResult(cl_int Error) {
  // pi_result only names codes in [-999, 0]; test the range before converting so that no
  // value outside the enumeration is ever formed.
  if (Error > 0 || Error < -999)
    return PI_ERROR_PLUGIN_SPECIFIC_ERROR;
  const auto Candidate = static_cast<pi_result>(Error);
  if (std::strcmp(resultName(Candidate), "PI_ERROR_<unnamed>") == 0)
    return PI_ERROR_PLUGIN_SPECIFIC_ERROR;
  return Candidate;
}

pi_result clFailure(cl_int Error, const char *PiFunction, const char *ClFunction) {
  return fail(toPiResult(Error), "{}: {} failed with {} ({})", PiFunction, ClFunction,
              clErrorName(Error), Error);
}

std::string deviceString(cl_device_id Device, cl_device_info Param) {
  size_t Size = 0;
  if (clGetDeviceInfo(Device, Param, 0, nullptr, &Size) != CL_SUCCESS || Size == 0)
    return {};
  std::string Value(Size, '\0');
  if (clGetDeviceInfo(Device, Param, Size, Value.data(), nullptr) != CL_SUCCESS)
    return {};
  Value.resize(std::strlen(Value.c_str()));
  return Value;
}

std::string platformString(cl_platform_id Platform, cl_platform_info Param) {
  size_t Size = 0;
  if (clGetPlatformInfo(Platform, Param, 0, nullptr, &Size) != CL_SUCCESS || Size == 0)
    return {};
  std::string Value(Size, '\0');
  if (clGetPlatformInfo(Platform, Param, Size, Value.data(), nullptr) != CL_SUCCESS)
    return {};
  Value.resize(std::strlen(Value.c_str()));
  return Value;
}

const char *formatLabel(ImageFormat Format) {
  return Format == ImageFormat::Unknown ? "native driver binary" : formatName(Format);
}

} // namespace dglink::opencl
