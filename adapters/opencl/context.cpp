// Contexts: one or more devices of one platform, and the USM path their allocations take.
#include "opencl_adapter.h"

#include <dglink/support/info.h>

namespace dglink::opencl {

void releaseReference(pi_context Context) {
  if (--Context->RefCount != 0)
    return;
  freeRemainingUsm(Context);
  clReleaseContext(Context->Context);
  delete Context;
}

} // namespace dglink::opencl

bool _pi_context::hasDevice(pi_device Device) const {
  for (pi_device Member : Devices)
    if (Member == Device)
      return true;
  return false;
}

using namespace dglink::opencl;

extern "C" {

PI_API_EXPORT pi_result piContextCreate(const pi_context_properties *Properties,
                                        pi_uint32 NumDevices, const pi_device *Devices,
                                        pi_context *RetContext) try {
  if (NumDevices == 0 || Devices == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: no devices given (NumDevices {}, Devices {})",
                        __func__, NumDevices, Devices == nullptr ? "null" : "not null");
  DGLINK_CHECK_NOT_NULL(RetContext, PI_ERROR_INVALID_VALUE);
  std::vector<cl_device_id> ClDevices;
  for (pi_uint32 I = 0; I < NumDevices; ++I) {
    if (!dglink::ownedBy(Devices[I], &DispatchTable))
      return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: Devices[{}] is {}", __func__, I,
                          Devices[I] == nullptr ? "null" : "not a device of the OpenCL adapter");
    if (Devices[I]->Platform != Devices[0]->Platform)
      return dglink::fail(PI_ERROR_INVALID_DEVICE,
                          "{}: Devices[{}] ('{}') belongs to another platform than Devices[0] "
                          "('{}')",
                          __func__, I, Devices[I]->Name, Devices[0]->Name);
    ClDevices.push_back(Devices[I]->Device);
  }

  // Without caller properties the platform is named explicitly, as OpenCL 1.x drivers want.
  const cl_context_properties PlatformOnly[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(Devices[0]->Platform->Platform),
      0};
  const cl_context_properties *ClProperties =
      (Properties != nullptr && Properties[0] != 0) ? Properties : PlatformOnly;

  auto Context = std::make_unique<_pi_context>();
  Context->Platform = Devices[0]->Platform;
  Context->Devices.assign(Devices, Devices + NumDevices);
  // One mechanism for the whole context, so that a pointer is freed the way it was made.
  bool AllNative = true, AllSvm = true, AllFineGrain = true;
  for (pi_device Device : Context->Devices) {
    AllNative = AllNative && Device->Usm == PI_USM_MECHANISM_NATIVE;
    AllSvm = AllSvm && Device->Usm == PI_USM_MECHANISM_SVM;
    AllFineGrain = AllFineGrain && Device->FineGrainSvm;
  }
  Context->Usm =
      AllNative ? PI_USM_MECHANISM_NATIVE : (AllSvm ? PI_USM_MECHANISM_SVM : PI_USM_MECHANISM_NONE);
  Context->FineGrainSvm = AllSvm && AllFineGrain;

  cl_int Error = CL_SUCCESS;
  Context->Context = clCreateContext(ClProperties, static_cast<cl_uint>(ClDevices.size()),
                                     ClDevices.data(), nullptr, nullptr, &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, "clCreateContext");
  *RetContext = Context.release();
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piContextGetInfo(pi_context Context, pi_context_info ParamName,
                                         size_t ParamValueSize, void *ParamValue,
                                         size_t *ParamValueSizeRet) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  switch (ParamName) {
  case PI_CONTEXT_INFO_NUM_DEVICES:
    return dglink::returnInfo(static_cast<pi_uint32>(Context->Devices.size()), ParamValueSize,
                              ParamValue, ParamValueSizeRet);
  case PI_CONTEXT_INFO_DEVICES:
    return dglink::returnInfoArray(Context->Devices, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_CONTEXT_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Context->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: unknown ParamName 0x{:x}", __func__,
                      static_cast<unsigned>(ParamName));
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piContextRetain(pi_context Context) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  ++Context->RefCount;
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piContextRelease(pi_context Context) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  releaseReference(Context);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

} // extern "C"
