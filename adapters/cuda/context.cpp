// Contexts: one device each, on its primary context (shared with the CUDA
// runtime and any other user of the device in the process).
#include "handles.h"

#include <dglink/support/info.h>

namespace dglink::cuda {

void releaseContext(_pi_context *Context) {
  if (!dropReference(Context))
    return;
  if (makeCurrent(Context->Context) == PI_SUCCESS)
    for (CUevent Event : Context->EventPool)
      cu().cuEventDestroy(Event);
  cu().cuDevicePrimaryCtxRelease(Context->Device->Device);
  delete Context;
}

} // namespace dglink::cuda

using namespace dglink::cuda;

extern "C" PI_API_EXPORT pi_result piContextCreate(const pi_context_properties *Properties,
                                                   pi_uint32 NumDevices, const pi_device *Devices,
                                                   pi_context *RetContext) try {
  DGLINK_TRY(dglink::checkContextCreate(Properties, NumDevices, Devices, RetContext,
                                        &PluginFunctions, AdapterLabel, "CUDA"));
  auto *Context = new _pi_context();
  Context->Device = Devices[0];
  const CUresult Result = cu().cuDevicePrimaryCtxRetain(&Context->Context, Devices[0]->Device);
  if (Result != CUDA_SUCCESS) {
    delete Context;
    return cudaError(Result, "cuDevicePrimaryCtxRetain");
  }
  *RetContext = Context;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piContextGetInfo(pi_context Context, pi_context_info ParamName,
                                                    size_t ParamValueSize, void *ParamValue,
                                                    size_t *ParamValueSizeRet) try {
  DGLINK_CUDA_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  switch (ParamName) {
  case PI_CONTEXT_INFO_NUM_DEVICES:
    return dglink::returnInfo(pi_uint32{1}, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_CONTEXT_INFO_DEVICES:
    return dglink::returnInfo(static_cast<pi_device>(Context->Device), ParamValueSize,
                              ParamValue, ParamValueSizeRet);
  case PI_CONTEXT_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Context->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piContextGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piContextRetain(pi_context Context) try {
  DGLINK_CUDA_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  retain(Context);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piContextRelease(pi_context Context) try {
  DGLINK_CUDA_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  releaseContext(Context);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL
