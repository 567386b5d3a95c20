// Contexts: one or several devices of a driver, one ze_context_handle_t, its recycled
// host-visible events (visible to every device of the context) and an immediate
// command list for copies outside any queue.
#include "backend.h"

#include <cstdint>

namespace dglink::level_zero {
namespace {
constexpr uint32_t PoolSize = 64;
} // namespace

ZeContext::~ZeContext() {
  if (InitList != nullptr)
    ze().zeCommandListDestroy(InitList);
  for (ze_event_handle_t Event : AllEvents)
    ze().zeEventDestroy(Event);
  for (ze_event_pool_handle_t Pool : EventPools)
    ze().zeEventPoolDestroy(Pool);
  ze().zeContextDestroy(Context);
}

pi_result ZeContext::acquireEvent(ze_event_handle_t &Event) {
  std::lock_guard<std::mutex> Lock(EventMutex);
  if (FreeEvents.empty()) {
    ze_event_pool_desc_t PoolDesc = {};
    PoolDesc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
    PoolDesc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    PoolDesc.count = PoolSize;
    ze_event_pool_handle_t Pool = nullptr;
    std::vector<ze_device_handle_t> Handles;
    Handles.reserve(Devices.size());
    for (const _pi_device *Device : Devices)
      Handles.push_back(zeDevice(*Device).Device);
    DGLINK_ZE(zeEventPoolCreate, Context, &PoolDesc, static_cast<uint32_t>(Handles.size()),
              Handles.data(), &Pool);
    EventPools.push_back(Pool);
    for (uint32_t Index = 0; Index < PoolSize; ++Index) {
      ze_event_desc_t Desc = {};
      Desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
      Desc.index = Index;
      Desc.signal = ZE_EVENT_SCOPE_FLAG_HOST;
      Desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
      ze_event_handle_t Created = nullptr;
      DGLINK_ZE(zeEventCreate, Pool, &Desc, &Created);
      AllEvents.push_back(Created);
      FreeEvents.push_back(Created);
    }
  }
  Event = FreeEvents.back();
  FreeEvents.pop_back();
  return PI_SUCCESS;
}

void ZeContext::recycleEvent(ze_event_handle_t Event) {
  ze().zeEventHostReset(Event);
  std::lock_guard<std::mutex> Lock(EventMutex);
  FreeEvents.push_back(Event);
}

pi_result ZeContext::createQueue(_pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) {
  ze_command_queue_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  Desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  ze_command_list_handle_t List = nullptr;
  DGLINK_ZE(zeCommandListCreateImmediate, Context, zeDevice(*Queue.Device).Device, &Desc, &List);
  try {
    Impl = std::make_unique<ZeQueue>(*this, *Queue.Device, List);
  } catch (...) {
    ze().zeCommandListDestroy(List);
    throw;
  }
  return PI_SUCCESS;
}

} // namespace dglink::level_zero
