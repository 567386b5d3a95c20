// Queues: in-order, one immediate command list each.
#include "handles.h"

#include <dglink/support/info.h>
#include <dglink/support/log.h>

#include <cstdint>

namespace dglink::level_zero {
namespace {

// Waits for everything appended to the queue's list so far: a barrier that
// signals an event, and the host waits for it.
pi_result drain(_pi_queue &Queue) {
  ze_event_handle_t Event = nullptr;
  DGLINK_TRY(acquireEvent(*Queue.Context, Event));
  ze_result_t Result = ZE_RESULT_SUCCESS;
  {
    std::lock_guard<std::mutex> Lock(Queue.Mutex);
    Result = ze().zeCommandListAppendBarrier(Queue.List, Event, 0, nullptr);
  }
  if (Result == ZE_RESULT_SUCCESS)
    Result = ze().zeEventHostSynchronize(Event, UINT64_MAX);
  recycleEvent(*Queue.Context, Event);
  if (Result != ZE_RESULT_SUCCESS)
    return zeError(Result, "piQueueFinish (barrier + zeEventHostSynchronize)");
  return PI_SUCCESS;
}

} // namespace

void releaseQueue(_pi_queue *Queue) {
  if (!dropReference(Queue))
    return;
  if (drain(*Queue) != PI_SUCCESS)
    logger().warn("level_zero: releasing queue {}: {}", fmt::ptr(Queue), lastErrorMessage());
  ze().zeCommandListDestroy(Queue->List);
  releaseContext(Queue->Context);
  delete Queue;
}

} // namespace dglink::level_zero

using namespace dglink::level_zero;

extern "C" PI_API_EXPORT pi_result piQueueCreate(pi_context Context, pi_device Device,
                                                 pi_queue_properties Properties,
                                                 pi_queue *RetQueue) {
  DGLINK_TRY(dglink::checkQueueCreate(Context, Device, Properties, RetQueue, &PluginFunctions,
                                      AdapterLabel));
  ze_command_queue_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  Desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  ze_command_list_handle_t List = nullptr;
  DGLINK_ZE(zeCommandListCreateImmediate, Context->Context, Device->Device, &Desc, &List);
  auto *Queue = new _pi_queue();
  Queue->Context = Context;
  Queue->Device = Device;
  Queue->List = List;
  Queue->Properties = Properties;
  retain(Context);
  *RetQueue = Queue;
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piQueueGetInfo(pi_queue Queue, pi_queue_info ParamName,
                                                  size_t ParamValueSize, void *ParamValue,
                                                  size_t *ParamValueSizeRet) {
  DGLINK_ZE_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  switch (ParamName) {
  case PI_QUEUE_INFO_CONTEXT:
    return dglink::returnInfo(static_cast<pi_context>(Queue->Context), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
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

extern "C" PI_API_EXPORT pi_result piQueueFinish(pi_queue Queue) {
  DGLINK_ZE_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return drain(*Queue);
}

extern "C" PI_API_EXPORT pi_result piQueueRetain(pi_queue Queue) {
  DGLINK_ZE_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  retain(Queue);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piQueueRelease(pi_queue Queue) {
  DGLINK_ZE_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  releaseQueue(Queue);
  return PI_SUCCESS;
}
