// In-order command queues on one device of a context.
#include "opencl_adapter.h"

#include <dglink/support/info.h>

namespace dglink::opencl {

void releaseReference(pi_queue Queue) {
  if (--Queue->RefCount != 0)
    return;
  clReleaseCommandQueue(Queue->Queue);
  releaseReference(Queue->Context);
  delete Queue;
}

} // namespace dglink::opencl

using namespace dglink::opencl;

extern "C" {

PI_API_EXPORT pi_result piQueueCreate(pi_context Context, pi_device Device,
                                      pi_queue_properties Properties, pi_queue *RetQueue) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_OPENCL_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  DGLINK_CHECK_NOT_NULL(RetQueue, PI_ERROR_INVALID_VALUE);
  if (!Context->hasDevice(Device))
    return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not in the context", __func__,
                        Device->Name);
  // Queues are in order; profiling is the only property dglink defines.
  if ((Properties & ~PI_QUEUE_FLAG_PROFILING_ENABLE) != 0)
    return dglink::fail(PI_ERROR_INVALID_QUEUE_PROPERTIES,
                        "{}: Properties 0x{:x} has bits other than PROFILING_ENABLE", __func__,
                        Properties);
  cl_queue_properties ClProperties[] = {CL_QUEUE_PROPERTIES, 0, 0};
  const bool Profiling = (Properties & PI_QUEUE_FLAG_PROFILING_ENABLE) != 0;
  if (Profiling)
    ClProperties[1] = CL_QUEUE_PROFILING_ENABLE;

  auto Queue = std::make_unique<_pi_queue>();
  cl_int Error = CL_SUCCESS;
  Queue->Queue = clCreateCommandQueueWithProperties(Context->Context, Device->Device,
                                                    Profiling ? ClProperties : nullptr, &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, "clCreateCommandQueueWithProperties");
  Queue->Context = Context;
  Queue->Device = Device;
  ++Context->RefCount;
  *RetQueue = Queue.release();
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piQueueGetInfo(pi_queue Queue, pi_queue_info ParamName,
                                       size_t ParamValueSize, void *ParamValue,
                                       size_t *ParamValueSizeRet) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  switch (ParamName) {
  case PI_QUEUE_INFO_CONTEXT:
    return dglink::returnInfo(Queue->Context, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_QUEUE_INFO_DEVICE:
    return dglink::returnInfo(Queue->Device, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_QUEUE_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Queue->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: unknown ParamName 0x{:x}", __func__,
                      static_cast<unsigned>(ParamName));
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piQueueFinish(pi_queue Queue) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  cl_int Error = clFinish(Queue->Queue);
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, "clFinish");
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piQueueRetain(pi_queue Queue) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  ++Queue->RefCount;
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piQueueRelease(pi_queue Queue) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  releaseReference(Queue);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

} // extern "C"
