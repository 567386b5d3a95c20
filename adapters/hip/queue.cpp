// Queues: in-order, one non-blocking HIP stream each.
#include "handles.h"

#include <dglink/support/info.h>
#include <dglink/support/log.h>

namespace dglink::hip {

void releaseQueue(_pi_queue *Queue) {
  if (!dropReference(Queue))
    return;
  if (makeCurrent(*Queue->Device) == PI_SUCCESS) {
    if (hip().StreamSynchronize(Queue->Stream) != HipSuccess)
      logger().warn("hip: releasing queue {}: its stream reported an error", fmt::ptr(Queue));
    hip().StreamDestroy(Queue->Stream);
  }
  releaseContext(Queue->Context);
  delete Queue;
}

} // namespace dglink::hip

using namespace dglink::hip;

extern "C" PI_API_EXPORT pi_result piQueueCreate(pi_context Context, pi_device Device,
                                                 pi_queue_properties Properties,
                                                 pi_queue *RetQueue) try {
  DGLINK_TRY(dglink::checkQueueCreate(Context, Device, Properties, RetQueue, &PluginFunctions,
                                      AdapterLabel));
  DGLINK_TRY(makeCurrent(*Device));
  HipStream Stream = nullptr;
  DGLINK_HIP(StreamCreateNonBlocking, &Stream);
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
  DGLINK_HIP_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
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
  DGLINK_HIP_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_TRY(makeCurrent(*Queue->Device));
  DGLINK_HIP(StreamSynchronize, Queue->Stream);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piQueueRetain(pi_queue Queue) try {
  DGLINK_HIP_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  retain(Queue);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piQueueRelease(pi_queue Queue) try {
  DGLINK_HIP_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  releaseQueue(Queue);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL
