// What the core's entry-point files share: the barrier every export has, and the
// checks several entry points make.
#pragma once

#include <dglink/core/backend.h>
#include <dglink/support/info.h>

// Every export: `pi_result piX(...) try { DGLINK_ENTRY(); ... } DGLINK_CATCH_ALL`.
// Nothing thrown leaves the C ABI (an allocation failure becomes
// PI_ERROR_OUT_OF_HOST_MEMORY), and the test-only fault injection has its first
// point here, so a test can prove the barrier of each export.
#define DGLINK_ENTRY() ::dglink::core::allocationPoint()

namespace dglink::core {

// The discovered platforms (found on first use).
const std::vector<std::unique_ptr<_pi_platform>> &platforms();

// A wait list: null with 0 events, or NumEvents live events of this adapter.
pi_result checkWaitList(pi_uint32 NumEvents, const pi_event *Events);

// A device list must be empty (the object's devices) or name only devices of
// Context.
pi_result checkDeviceList(const char *Function, const _pi_context &Context, pi_uint32 NumDevices,
                          const pi_device *Devices);

// Raises Value to at least Floor.
inline void raiseTo(std::atomic<uint64_t> &Value, uint64_t Floor) {
  uint64_t Seen = Value.load(std::memory_order_acquire);
  while (Seen < Floor && !Value.compare_exchange_weak(Seen, Floor, std::memory_order_acq_rel)) {
  }
}

// The core's records of the USM allocations made through a context (usm.cpp).
void recordUsmAllocation(_pi_context &Context, void *Pointer, size_t Size, UsmKind Kind,
                         _pi_device *Device);
void forgetUsmAllocation(_pi_context &Context, void *Pointer);

// USM pools (usm_pool.cpp). An allocation of the checked size and alignment from Pool
// (a live pool of the context; Device null for host memory), recorded in the context.
pi_result allocateFromPool(UsmPool &Pool, _pi_device *Device, UsmKind Kind, size_t Size,
                           pi_uint32 Alignment, void *&Pointer);
// True where Pointer lies in memory a pool of Context holds: then Result is the answer of
// the free (the allocation back to its pool, or INVALID_VALUE for a pointer that is not
// a live allocation's start). False: no pool's memory, the backend frees it.
bool freeToPool(const char *Function, _pi_context &Context, void *Pointer, pi_result &Result);
// Adds a live queue of a context to the queues a pool finishes (and removes it at its
// last release).
void registerQueue(_pi_queue &Queue);

// Runs Submit(Request) with the wait list and, where the caller asked for one, the
// event: its handle is made before the command is submitted, so that nothing can
// fail once the backend accepted the command.
template <typename SubmitFunction>
pi_result submit(_pi_queue &Queue, pi_command_type Command, pi_uint32 NumWaits,
                 const pi_event *Waits, bool Blocking, pi_event *Out, SubmitFunction &&Submit) {
  std::unique_ptr<_pi_event> Event;
  Enqueue Request;
  Request.Waits = Waits;
  Request.NumWaits = NumWaits;
  // Events of no command (made from the native handle 0) are complete: the backend
  // never sees them.
  std::vector<pi_event> Commands;
  for (pi_uint32 I = 0; I < NumWaits; ++I)
    if (Waits[I]->Impl == nullptr) {
      for (pi_uint32 J = 0; J < NumWaits; ++J)
        if (Waits[J]->Impl != nullptr)
          Commands.push_back(Waits[J]);
      Request.Waits = Commands.empty() ? nullptr : Commands.data();
      Request.NumWaits = static_cast<pi_uint32>(Commands.size());
      break;
    }
  Request.Blocking = Blocking;
  if (Out != nullptr) {
    Event = makeHandle<_pi_event>();
    Request.Out = &Event->Impl;
  }
  DGLINK_TRY(Submit(Request));
  const uint64_t Count = Queue.Submitted.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (Blocking) // in order: everything before it is complete too
    raiseTo(Queue.KnownComplete, Count);
  if (Out != nullptr) {
    Event->Queue = &Queue;
    Event->Context = Queue.Context;
    Event->Command = Command;
    retain(&Queue);
    *Out = Event.release();
  }
  return PI_SUCCESS;
}

} // namespace dglink::core
