// Contexts: one or several devices of a driver, one ze_context_handle_t, its recycled
// host-visible events (visible to every device of the context) and an immediate
// command list for copies outside any queue.
#include "backend.h"

#include <algorithm>
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
  if (OwnsContext)
    ze().zeContextDestroy(Context);
}

pi_result ZeContext::acquireEvent(ze_event_handle_t &Event, bool Timestamps) {
  std::lock_guard<std::mutex> Lock(EventMutex);
  std::vector<ze_event_handle_t> &Free = FreeEvents[Timestamps ? 1 : 0];
  if (Free.empty()) {
    ze_event_pool_desc_t PoolDesc = {};
    PoolDesc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
    PoolDesc.flags =
        ZE_EVENT_POOL_FLAG_HOST_VISIBLE | (Timestamps ? ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP : 0);
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
      Free.push_back(Created);
    }
  }
  Event = Free.back();
  Free.pop_back();
  return PI_SUCCESS;
}

void ZeContext::recycleEvent(ze_event_handle_t Event, bool Timestamps) {
  ze().zeEventHostReset(Event);
  std::lock_guard<std::mutex> Lock(EventMutex);
  FreeEvents[Timestamps ? 1 : 0].push_back(Event);
}

std::shared_ptr<std::mutex> HandleLocks::of(const void *Handle) {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::weak_ptr<std::mutex> &Entry = Locks[Handle];
  std::shared_ptr<std::mutex> Made = Entry.lock();
  if (Made == nullptr) {
    Made = std::make_shared<std::mutex>();
    Entry = Made;
  }
  // Handles whose objects are all gone leave no entry behind: swept whenever the map has
  // doubled since the last sweep, so that making a kernel stays constant time amortized.
  if (Locks.size() >= SweepAt) {
    for (auto It = Locks.begin(); It != Locks.end();)
      It = It->second.expired() ? Locks.erase(It) : std::next(It);
    SweepAt = std::max<size_t>(2 * Locks.size(), 16);
  }
  return Made;
}

bool HandleLocks::held(const void *Handle) {
  std::lock_guard<std::mutex> Lock(Mutex);
  const auto Known = Locks.find(Handle);
  return Known != Locks.end() && !Known->second.expired();
}

std::shared_ptr<std::mutex> ZeContext::listMutex(ze_command_list_handle_t List) {
  return ListLocks.of(List);
}

pi_result ZeContext::createQueue(_pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) {
  ze_command_queue_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  Desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  ze_command_list_handle_t List = nullptr;
  DGLINK_ZE(zeCommandListCreateImmediate, Context, zeDevice(*Queue.Device).Device, &Desc, &List);
  try {
    Impl = std::make_unique<ZeQueue>(*this, *Queue.Device, List, listMutex(List),
                                     (Queue.Properties & PI_QUEUE_FLAG_PROFILING_ENABLE) != 0);
  } catch (...) {
    ze().zeCommandListDestroy(List);
    throw;
  }
  return PI_SUCCESS;
}

// A queue's native handle is its immediate command list (in order). Level Zero 1.8 has
// no query of a list's context, device or kind: the list is taken as the caller says it
// is, an immediate list of this context on the given device (a context of one device
// needs none). A list that is one of this context's queues' shares their lock.
pi_result ZeContext::adoptQueue(const char *Function, uintptr_t Native, bool Owned,
                                _pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) {
  if (Native == 0)
    return fail(PI_ERROR_INVALID_VALUE, "{}: native handle 0 is no Level Zero command list",
                Function);
  if (Queue.Device == nullptr) {
    if (Devices.size() != 1)
      return fail(PI_ERROR_INVALID_DEVICE,
                  "{}: a Level Zero command list does not say its device: name one of the "
                  "context's {} devices",
                  Function, Devices.size());
    Queue.Device = Devices.front();
  }
  auto *List = reinterpret_cast<ze_command_list_handle_t>(Native);
  // A list a queue of this context holds stays that queue's: it cannot be handed over.
  if (Owned && ListLocks.held(List))
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: command list {:#x} belongs to a live queue of this context; it can be "
                "adopted only without ownership",
                Function, Native);
  Queue.Properties = 0; // in order, no profiling: the list's events carry no timestamps
  Impl = std::make_unique<ZeQueue>(*this, *Queue.Device, List, listMutex(List), false, Owned);
  return PI_SUCCESS;
}

pi_result ZeContext::adoptEvent(const char *Function, uintptr_t Native, bool Owned,
                                std::unique_ptr<core::EventImpl> &Impl, uintptr_t &NativeQueue) {
  auto *Event = reinterpret_cast<ze_event_handle_t>(Native);
  const ze_result_t Result =
      Event == nullptr ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE : ze().zeEventQueryStatus(Event);
  if (Result != ZE_RESULT_SUCCESS && Result != ZE_RESULT_NOT_READY)
    return fail(PI_ERROR_INVALID_VALUE, "{}: native handle {:#x} is no Level Zero event ({})",
                Function, Native, zeResultName(Result));
  Impl = std::make_unique<ZeEvent>(*this, Event, ZeEvent::Callers{Owned});
  NativeQueue = 0;
  return PI_SUCCESS;
}

} // namespace dglink::level_zero
