// What the core's entry-point files share: the barrier every export has, and the
// checks several entry points make.
#pragma once

#include <dglink/core/backend.h>
#include <dglink/support/info.h>

#include <optional>

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
// Takes the record of Pointer out (before the driver frees it: once freed, the driver
// may hand the same address to another thread's allocation, whose record must stay);
// a failed free puts it back with restoreUsmAllocation.
std::optional<UsmRecord> forgetUsmAllocation(_pi_context &Context, void *Pointer);
void restoreUsmAllocation(_pi_context &Context, void *Pointer, const UsmRecord &Record);

// Memory-command checks (memory.cpp), which command buffers make at append time too.
// Whether the backends' fill hooks take a pattern of this size; else the core tiles it.
bool drivable(size_t PatternSize);
std::vector<unsigned char> tiled(const void *Pattern, size_t PatternSize, size_t Size);
// A checked USM fill as a command of type Command: the backend's fill where it takes the
// pattern at Ptr's alignment, else the pattern tiled on the host and copied, blocking (the
// tile then goes away); Size 0 of such a pattern only orders.
pi_result submitUsmFill(_pi_queue &Queue, pi_command_type Command, void *Ptr, const void *Pattern,
                        size_t PatternSize, size_t Size, pi_uint32 NumWaits, const pi_event *Waits,
                        pi_event *Event);
// Offset + Size inside Buffer (PI_ERROR_INVALID_VALUE naming Which side).
pi_result checkRange(const char *Function, const char *Which, const _pi_mem &Buffer, size_t Offset,
                     size_t Size);
// The allocation a buffer's bytes are in (its parent for a sub-buffer), and whether two
// byte ranges of it overlap.
const _pi_mem &rootOf(const _pi_mem &Buffer);
bool overlap(size_t A, size_t ASize, size_t B, size_t BSize);
// One side of a rectangle: pitches resolved and checked, the last byte inside Limit.
pi_result resolveSide(const char *Function, const char *Side, const size_t Origin[3],
                      const size_t Region[3], size_t &RowPitch, size_t &SlicePitch,
                      const size_t *Limit);
// A rectangle between a source and a destination (either a buffer: its size given).
pi_result checkRect(const char *Function, pi_buff_rect_offset SrcOrigin,
                    pi_buff_rect_offset DstOrigin, pi_buff_rect_region Region, size_t SrcRowPitch,
                    size_t SrcSlicePitch, size_t DstRowPitch, size_t DstSlicePitch,
                    const size_t *SrcLimit, const size_t *DstLimit, RectCopy &Rect);

// USM range of Size bytes at Ptr inside one allocation of Context (usm.cpp):
// PI_ERROR_INVALID_VALUE for an unknown pointer, PI_ERROR_INVALID_BUFFER_SIZE past its end.
pi_result checkUsmRange(const char *Function, _pi_context &Context, const void *Ptr, size_t Size);

// A launch's shape for Device and Kernel (kernel.cpp): dimensions, sizes, offsets, local
// sizes or the kernel's required one.
pi_result checkLaunch(const char *Function, const _pi_device &Device, const _pi_kernel &Kernel,
                      pi_uint32 WorkDim, const size_t *GlobalWorkOffset,
                      const size_t *GlobalWorkSize, const size_t *LocalWorkSize,
                      LaunchShape &Shape);

// Keeps the argument last set at Index of Kernel (command buffers capture them).
void recordArgument(_pi_kernel &Kernel, pi_uint32 Index, KernelArgument &&Argument);
// An argument the core keeps no record of (a sampler: KernelArgument has no such kind, so
// a command buffer does not capture it).
void forgetArgument(_pi_kernel &Kernel, pi_uint32 Index);
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

// The latest execution of a command buffer's command whose event Event is
// (_pi_event::OfCommand), retained for the caller; null before the first
// (command_buffer.cpp).
_pi_event *currentExecution(_pi_event &Event);

// Events released when it goes.
class HeldEvents {
public:
  HeldEvents() = default;
  HeldEvents(const HeldEvents &) = delete;
  HeldEvents &operator=(const HeldEvents &) = delete;
  ~HeldEvents() {
    for (_pi_event *Event : Events)
      release(Event);
  }
  // Takes Event's reference (released at once where it cannot be kept).
  void hold(_pi_event *Event) {
    try {
      Events.push_back(Event);
    } catch (...) {
      release(Event);
      throw;
    }
  }

private:
  std::vector<_pi_event *> Events;
};

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
  // never sees them. A command buffer's command's event stands for its latest execution
  // (none before the first submission: complete). An event of another context is waited
  // for here, on the host: no driver takes another context's event in a wait list
  // (OpenCL: CL_INVALID_CONTEXT; Level Zero: an event pool is of one context), and UR
  // lets a wait list hold any (UR's CTS urEventWaitTest.WithCrossContextDependencies).
  std::vector<pi_event> Commands;
  HeldEvents Executions;
  for (pi_uint32 I = 0; I < NumWaits; ++I)
    if (Waits[I]->Impl == nullptr || Waits[I]->OfCommand || Waits[I]->Context != Queue.Context) {
      for (pi_uint32 J = 0; J < NumWaits; ++J) {
        _pi_event *Wait = Waits[J];
        if (Wait->OfCommand) {
          Wait = currentExecution(*Wait);
          if (Wait == nullptr)
            continue;
          Executions.hold(Wait);
        }
        if (Wait->Impl == nullptr)
          continue;
        if (Wait->Context != Queue.Context)
          DGLINK_TRY(Wait->Impl->wait());
        else
          Commands.push_back(Wait);
      }
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
