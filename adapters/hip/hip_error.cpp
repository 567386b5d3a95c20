// HIP errors as pi_results with a message naming the call and HIP's error.
#include "hip_api.h"

namespace dglink::hip {
namespace {

pi_result defaultCode(HipError Result) {
  switch (Result) {
  case HipErrorInvalidValue:
  case HipErrorNotFound:
  case HipErrorInvalidHandle:
  case HipErrorInvalidDevicePointer:
    return PI_ERROR_INVALID_VALUE;
  case HipErrorOutOfMemory:
    return PI_ERROR_OUT_OF_RESOURCES;
  case HipErrorNoDevice:
    return PI_ERROR_DEVICE_NOT_FOUND;
  case HipErrorInvalidDevice:
    return PI_ERROR_INVALID_DEVICE;
  case HipErrorInvalidContext:
  case HipErrorContextIsDestroyed:
    return PI_ERROR_INVALID_CONTEXT;
  case HipErrorInvalidImage:
  case HipErrorInvalidKernelFile:
  case HipErrorNoBinaryForGpu:
  case HipErrorSharedObjectInitFailed:
    return PI_ERROR_INVALID_BINARY;
  case HipErrorLaunchFailure:
  case HipErrorIllegalAddress:
    return PI_ERROR_COMMAND_EXECUTION_FAILURE;
  case HipErrorLaunchOutOfResources:
    return PI_ERROR_OUT_OF_RESOURCES;
  default:
    return PI_ERROR_UNKNOWN;
  }
}

} // namespace

pi_result hipError(HipError Result, const char *Call, pi_result Code) {
  const HipApi &Api = hip();
  const char *Name = Api.ErrorName != nullptr ? Api.ErrorName(Result) : "hipError<unknown>";
  const char *Text = Api.ErrorString != nullptr ? Api.ErrorString(Result) : "no description";
  return fail(Code, "{} failed: {} ({}): {}", Call, Name, Result, Text);
}

pi_result hipError(HipError Result, const char *Call) {
  return hipError(Result, Call, defaultCode(Result));
}

} // namespace dglink::hip
