// Queues: in-order, one non-blocking CUDA stream each, with the queue's host
// staging memory for copies.
#include "handles.h"

#include <dglink/support/info.h>
#include <dglink/support/log.h>

namespace dglink::cuda {

void releaseQueue(_pi_queue *Queue) {
  if (!dropReference(Queue))
    return;
  if (makeCurrent(Queue->Context->Context) == PI_SUCCESS) {
    // Work still in flight may read the staging memory: drain the stream first.
    if (cu().cuStreamSynchronize(Queue->Stream) != CUDA_SUCCESS)
      logger().warn("cuda: releasing queue {}: its stream reported an error",
                    fmt::ptr(Queue));
    Queue->Staging.release();
    cu().cuStreamDestroy(Queue->Stream);
  }
  releaseContext(Queue->Context);
  delete Queue;
}

} // namespace dglink::cuda

using namespace dglink::cuda;

extern "C" PI_API_EXPORT pi_result piQueueCreate(pi_context Context, pi_device Device,
                                                 pi_queue_properties Properties,
                                                 pi_queue *RetQueue) try {
  DGLINK_TRY(dglink::checkQueueCreate(Context, Device, Properties, RetQueue, &PluginFunctions,
                                      AdapterLabel));
  DGLINK_TRY(makeCurrent(Context->Context));
  CUstream Stream = nullptr;
  DGLINK_CU(cuStreamCreate, &Stream, CU_STREAM_NON_BLOCKING);
  auto *Queue = new _pi_queue();
  Queue->Context = Context;
  Queue->Device = Device;
  Queue->Stream = Stream;
  Queue->Properties = Properties;
  retain(Context);
  *RetQueue = Queue;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piQueueGetInfo(pi_queue Queue, pi_queue_info ParamName,
                                                  size_t ParamValueSize, void *ParamValue,
                                                  size_t *ParamValueSizeRet) try {
  DGLINK_CUDA_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  switch (ParamName) {
  case PI_QUEUE_INFO_CONTEXT:
    return dglink::returnInfo(static_cast<pi_context>(Queue->Context), ParamValueSize,
                              ParamValue, ParamValueSizeRet);
  case PI_QUEUE_INFO_DEVICE:
    return dglink::returnInfo(static_cast<pi_device>(Queue->Device), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_QUEUE_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Queue->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piQueueGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piQueueFinish(pi_queue Queue) try {
  DGLINK_CUDA_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_TRY(makeCurrent(Queue->Context->Context));
  DGLINK_CU(cuStreamSynchronize, Queue->Stream);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piQueueRetain(pi_queue Queue) try {
  DGLINK_CUDA_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  retain(Queue);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piQueueRelease(pi_queue Queue) try {
  DGLINK_CUDA_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  releaseQueue(Queue);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL
