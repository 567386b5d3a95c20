// Queues: in-order, one immediate command list each, on the queue's device; every
// command is one append whose wait list is the request's events (of any device of the
// context) and whose signal is the request's event.
#include "backend.h"

#include <dglink/support/log.h>

#include <cstdint>

namespace dglink::level_zero {

template <typename AppendFunction>
pi_result ZeQueue::append(const char *Call, const core::Enqueue &Request, bool Blocking,
                          AppendFunction &&Append) {
  std::vector<ze_event_handle_t> Waits(Request.NumWaits);
  for (pi_uint32 I = 0; I < Request.NumWaits; ++I)
    Waits[I] = static_cast<ZeEvent &>(*Request.Waits[I]->Impl).Event;
  // A non-blocking enqueue nobody waits for needs no event: recycling one while its
  // command may still run would reset it under the device.
  ze_event_handle_t Signal = nullptr;
  std::unique_ptr<ZeEvent> Event;
  // A profiling queue's event: a timestamp event, and the device's time at submission
  // (its QUEUED and SUBMIT: an immediate list submits as it appends).
  const bool Stamped = Profiling && Request.Out != nullptr;
  if (Request.Out != nullptr || Blocking) {
    DGLINK_TRY(Context.acquireEvent(Signal, Stamped));
    // Made before the append, so that nothing can fail once the command is in.
    try {
      uint64_t HostTicks = 0;
      uint64_t SubmitTicks = 0;
      const ze_result_t Timed = Stamped ? ze().zeDeviceGetGlobalTimestamps(zeDevice(Device).Device,
                                                                           &HostTicks, &SubmitTicks)
                                        : ZE_RESULT_SUCCESS;
      if (Timed != ZE_RESULT_SUCCESS) {
        Context.recycleEvent(Signal, Stamped);
        return zeError(Timed, "zeDeviceGetGlobalTimestamps");
      }
      Event = Stamped ? std::make_unique<ZeEvent>(Context, Signal, zeDevice(Device), SubmitTicks)
                      : std::make_unique<ZeEvent>(Context, Signal);
    } catch (...) {
      Context.recycleEvent(Signal, Stamped);
      throw;
    }
  }
  ze_result_t Result = ZE_RESULT_SUCCESS;
  {
    std::lock_guard<std::mutex> Lock(*ListMutex);
    Result =
        Append(Signal, static_cast<uint32_t>(Waits.size()), Waits.empty() ? nullptr : Waits.data());
  }
  if (Result != ZE_RESULT_SUCCESS) {
    if (Event != nullptr)
      Event->forget(); // never signaled: recycled without waiting
    return zeError(Result, Call);
  }
  if (Blocking)
    DGLINK_TRY(Event->wait());
  if (Request.Out != nullptr)
    *Request.Out = std::move(Event);
  return PI_SUCCESS;
}

// Waits for everything appended so far: a barrier that signals an event, and the
// host waits for it.
pi_result ZeQueue::finish() {
  core::Enqueue Request;
  return append("piQueueFinish (barrier + zeEventHostSynchronize)", Request, true,
                [&](ze_event_handle_t Signal, uint32_t, ze_event_handle_t *) {
                  return ze().zeCommandListAppendBarrier(List, Signal, 0, nullptr);
                });
}

ZeQueue::~ZeQueue() {
  if (finish() != PI_SUCCESS)
    logger().warn("level_zero: releasing a queue: {}", lastErrorMessage());
  if (OwnsList)
    ze().zeCommandListDestroy(List);
}

pi_result ZeQueue::usmCopy(void *Dst, const void *Src, size_t Size, const core::Enqueue &Request) {
  return append("zeCommandListAppendMemoryCopy", Request, Request.Blocking,
                [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                  return ze().zeCommandListAppendMemoryCopy(List, Dst, Src, Size, Signal, NumWaits,
                                                            Waits);
                });
}

pi_result ZeQueue::write(const DeviceGlobalLocation &Location, const void *Src, size_t Size,
                         const core::Enqueue &Request) {
  return usmCopy(devicePointer(Location), Src, Size, Request);
}

pi_result ZeQueue::read(void *Dst, const DeviceGlobalLocation &Location, size_t Size,
                        const core::Enqueue &Request) {
  return usmCopy(Dst, devicePointer(Location), Size, Request);
}

// The pattern is read when the command runs: the fill blocks, so that the caller's
// pattern may go away when this returns.
pi_result ZeQueue::usmFill(void *Ptr, const void *Pattern, size_t PatternSize, size_t Size,
                           const core::Enqueue &Request) {
  return append("zeCommandListAppendMemoryFill", Request, true,
                [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                  return ze().zeCommandListAppendMemoryFill(List, Ptr, Pattern, PatternSize, Size,
                                                            Signal, NumWaits, Waits);
                });
}

// The list is in order: a barrier after the wait list completes after everything
// enqueued before, which a marker and a barrier both promise.
pi_result ZeQueue::marker(bool Barrier, const core::Enqueue &Request) {
  // Blocking: a blocking map that reads nothing returns when the barrier is complete.
  return append("zeCommandListAppendBarrier", Request, Request.Blocking,
                [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                  return ze().zeCommandListAppendBarrier(List, Signal, NumWaits, Waits);
                });
}

pi_result ZeQueue::timestamp(const core::Enqueue &Request) {
  // Written by the device, read by the host once the command is complete: host USM,
  // 8 bytes aligned as the call needs.
  ze_host_mem_alloc_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  void *Memory = nullptr;
  DGLINK_ZE(zeMemAllocHost, Context.Context, &Desc, sizeof(uint64_t), sizeof(uint64_t), &Memory);
  auto *Stamp = static_cast<uint64_t *>(Memory);
  *Stamp = 0;
  uint64_t HostTicks = 0, SubmitTicks = 0;
  ze_result_t Timed =
      ze().zeDeviceGetGlobalTimestamps(zeDevice(Device).Device, &HostTicks, &SubmitTicks);
  pi_result Result =
      Timed == ZE_RESULT_SUCCESS
          ? append("zeCommandListAppendWriteGlobalTimestamp", Request, Request.Blocking,
                   [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                     return ze().zeCommandListAppendWriteGlobalTimestamp(List, Stamp, Signal,
                                                                         NumWaits, Waits);
                   })
          : zeError(Timed, "zeDeviceGetGlobalTimestamps");
  if (Result != PI_SUCCESS) {
    ze().zeMemFree(Context.Context, Memory);
    return Result;
  }
  // The core asks timestamps for an event (Request.Out), which append made.
  static_cast<ZeEvent &>(**Request.Out).recordsInto(Stamp, zeDevice(Device), SubmitTicks);
  return PI_SUCCESS;
}

pi_result ZeQueue::launch(_pi_kernel &Kernel, const core::LaunchShape &Shape,
                          const core::Enqueue &Request) {
  auto &Impl = static_cast<ZeKernel &>(*Kernel.Impl);
  // The kernel of the queue's device's module (the core checked that the program was
  // built for it).
  const ze_kernel_handle_t Handle = Impl.kernelOf(Device);
  if (Handle == nullptr)
    return fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                "piEnqueueKernelLaunch: kernel '{}' has no code for device '{}'", clip(Kernel.Name),
                Device.Description.Name);
  uint32_t Global[3] = {1, 1, 1};
  uint32_t Group[3] = {1, 1, 1};
  for (pi_uint32 D = 0; D < Shape.Dimensions; ++D) {
    if (Shape.Global[D] > UINT32_MAX)
      return fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE,
                  "piEnqueueKernelLaunch: global size {} in dimension {} is above 2^32 - 1",
                  Shape.Global[D], D);
    Global[D] = static_cast<uint32_t>(Shape.Global[D]);
    Group[D] = static_cast<uint32_t>(Shape.Local[D]);
  }
  // Group size and arguments are state of the Level Zero kernel: held until the
  // launch is appended.
  std::lock_guard<std::mutex> Lock(*Impl.Mutex);
  if (!Shape.LocalGiven)
    DGLINK_ZE(zeKernelSuggestGroupSize, Handle, Global[0], Global[1], Global[2], &Group[0],
              &Group[1], &Group[2]);
  DGLINK_ZE(zeKernelSetGroupSize, Handle, Group[0], Group[1], Group[2]);
  const ze_group_count_t Groups = {Global[0] / Group[0], Global[1] / Group[1],
                                   Global[2] / Group[2]};
  const pi_result Result = append(
      "zeCommandListAppendLaunchKernel", Request, false,
      [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
        return ze().zeCommandListAppendLaunchKernel(List, Handle, &Groups, Signal, NumWaits, Waits);
      });
  if (Result == PI_ERROR_UNSUPPORTED_FEATURE && !Device.Description.ExecutesKernels)
    return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                "piEnqueueKernelLaunch: kernel '{}' not run: device '{}' executes no kernels "
                "(driver extension {}): {}",
                clip(Kernel.Name), Device.Description.Name, NoKernelExecutionExtension,
                lastErrorMessage());
  return Result;
}

namespace {

char *pointerOf(core::MemImpl &Buffer) {
  return static_cast<char *>(static_cast<ZeMem &>(Buffer).Pointer);
}

} // namespace

pi_result ZeQueue::copyBuffer(core::MemImpl &Src, size_t SrcOffset, core::MemImpl &Dst,
                              size_t DstOffset, size_t Size, const core::Enqueue &Request) {
  return usmCopy(pointerOf(Dst) + DstOffset, pointerOf(Src) + SrcOffset, Size, Request);
}

pi_result ZeQueue::fillBuffer(core::MemImpl &Buffer, size_t Offset, const void *Pattern,
                              size_t PatternSize, size_t Size, const core::Enqueue &Request) {
  return usmFill(pointerOf(Buffer) + Offset, Pattern, PatternSize, Size, Request);
}

pi_result ZeQueue::rect(char *Dst, const char *Src, const core::RectCopy &Rect,
                        const core::Enqueue &Request) {
  const size_t Values[] = {Rect.SrcOrigin[0], Rect.SrcOrigin[1],  Rect.SrcOrigin[2],
                           Rect.DstOrigin[0], Rect.DstOrigin[1],  Rect.DstOrigin[2],
                           Rect.Region[0],    Rect.Region[1],     Rect.Region[2],
                           Rect.SrcRowPitch,  Rect.SrcSlicePitch, Rect.DstRowPitch,
                           Rect.DstSlicePitch};
  for (const size_t Value : Values)
    if (Value > UINT32_MAX)
      return fail(PI_ERROR_INVALID_VALUE,
                  "rectangle copy: {} is above Level Zero's 32-bit offsets and pitches", Value);
  const auto u32 = [](size_t Value) { return static_cast<uint32_t>(Value); };
  const ze_copy_region_t SrcRegion = {u32(Rect.SrcOrigin[0]), u32(Rect.SrcOrigin[1]),
                                      u32(Rect.SrcOrigin[2]), u32(Rect.Region[0]),
                                      u32(Rect.Region[1]),    u32(Rect.Region[2])};
  const ze_copy_region_t DstRegion = {u32(Rect.DstOrigin[0]), u32(Rect.DstOrigin[1]),
                                      u32(Rect.DstOrigin[2]), u32(Rect.Region[0]),
                                      u32(Rect.Region[1]),    u32(Rect.Region[2])};
  return append("zeCommandListAppendMemoryCopyRegion", Request, Request.Blocking,
                [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                  return ze().zeCommandListAppendMemoryCopyRegion(
                      List, Dst, &DstRegion, u32(Rect.DstRowPitch), u32(Rect.DstSlicePitch), Src,
                      &SrcRegion, u32(Rect.SrcRowPitch), u32(Rect.SrcSlicePitch), Signal, NumWaits,
                      Waits);
                });
}

pi_result ZeQueue::readRect(void *Dst, core::MemImpl &Buffer, const core::RectCopy &Rect,
                            const core::Enqueue &Request) {
  return rect(static_cast<char *>(Dst), pointerOf(Buffer), Rect, Request);
}

pi_result ZeQueue::writeRect(core::MemImpl &Buffer, const void *Src, const core::RectCopy &Rect,
                             const core::Enqueue &Request) {
  return rect(pointerOf(Buffer), static_cast<const char *>(Src), Rect, Request);
}

pi_result ZeQueue::copyRect(core::MemImpl &Src, core::MemImpl &Dst, const core::RectCopy &Rect,
                            const core::Enqueue &Request) {
  return rect(pointerOf(Dst), pointerOf(Src), Rect, Request);
}

} // namespace dglink::level_zero
