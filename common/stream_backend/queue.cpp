// The stream backend's queues and events: in-order queues on non-blocking streams,
// wait lists as stream waits on the other queues' events, copies through the copy
// engine, launches as blocks and grids; an event is a recycled driver event recorded
// after its command.
#include <dglink/stream/backend.h>

#include <dglink/support/error.h>
#include <dglink/support/log.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace dglink::stream {
namespace {

char *devicePointer(const DeviceGlobalLocation &Location) {
  if (Location.Buffer != nullptr)
    return static_cast<char *>(static_cast<StreamMem *>(Location.Buffer)->Pointer) +
           Location.Address;
  return core::locationAddress<char *>(Location);
}

// What the adapter knows of the host side of a device-global copy.
HostMemory hostMemory(const void *Host, size_t Size) {
  return streamBackend().HostAllocations.contains(Host, Size) ? HostMemory::Pinned
                                                              : HostMemory::Unknown;
}

// The largest divisor of Global not above Limit (at least 1).
size_t blockSizeFor(size_t Global, size_t Limit) {
  for (size_t Block = std::min(Global, Limit); Block > 1; --Block)
    if (Global % Block == 0)
      return Block;
  return 1;
}

// Blocks and grid of a checked launch: the local size when given, else the largest
// blocks that divide the global size (OpenCL's uniform groups), filling dimension 0
// first; the grid within the device's limits.
pi_result grid(const core::LaunchShape &Shape, const StreamKernel &Kernel, const DeviceInfo &Device,
               unsigned Block[3], unsigned Grid[3]) {
  size_t Sizes[3] = {1, 1, 1};
  size_t Budget = static_cast<size_t>(Kernel.MaxThreadsPerBlock);
  for (pi_uint32 D = 0; D < Shape.Dimensions; ++D) {
    if (Shape.LocalGiven) {
      Sizes[D] = Shape.Local[D];
      continue;
    }
    Sizes[D] =
        blockSizeFor(Shape.Global[D], std::min(Budget, static_cast<size_t>(Device.MaxBlockDim[D])));
    Budget /= Sizes[D];
  }
  for (int D = 0; D < 3; ++D) {
    const size_t Blocks = Shape.Global[D] / Sizes[D];
    if (Blocks > static_cast<size_t>(Device.MaxGridDim[D]))
      return fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE,
                  "piEnqueueKernelLaunch: {} groups in dimension {} exceed the device's {}", Blocks,
                  D, Device.MaxGridDim[D]);
    Block[D] = static_cast<unsigned>(Sizes[D]);
    Grid[D] = static_cast<unsigned>(Blocks);
  }
  return PI_SUCCESS;
}

// A launch's local-memory arguments (Dynamic bytes of dynamic shared memory) beside the
// shared memory the kernel declares itself, against what one block of the device may
// have; then the driver's per-function limit raised to Dynamic where it is below.
// Called with the queue's device's context current.
pi_result reserveLocalMemory(Driver &D, FunctionHandle Function, const StreamKernel &Kernel,
                             const _pi_device &Device, size_t Dynamic) {
  const DeviceInfo &Info = streamDevice(Device).Info;
  const int Limit = Info.SharedMemoryPerBlockOptIn > 0 ? Info.SharedMemoryPerBlockOptIn
                                                       : Info.SharedMemoryPerBlock;
  size_t Static = 0, Private = 0;
  if (!D.functionMemory(Function, Static, Private))
    Static = 0;
  if (Limit > 0 &&
      (Static > static_cast<size_t>(Limit) || Dynamic > static_cast<size_t>(Limit) - Static))
    return fail(PI_ERROR_OUT_OF_RESOURCES,
                "piEnqueueKernelLaunch: kernel '{}' needs {} bytes of local memory for its "
                "local-memory arguments and {} bytes of its own; device '{}' gives one "
                "work-group at most {} bytes",
                clip(Kernel.Name), Dynamic, Static, Device.Description.Name, Limit);
  return D.reserveDynamicShared(Function, Dynamic);
}

} // namespace

pi_uint64 hostNanoseconds() {
  return static_cast<pi_uint64>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now().time_since_epoch())
                                    .count());
}

StreamEvent::~StreamEvent() {
  if (FromCaller) {
    if (CallerOwned)
      driver().destroyEvent(Handle);
    return;
  }
  if (Clock != nullptr) {
    if (Handle != nullptr)
      driver().destroyEvent(Handle);
    if (Start != nullptr)
      driver().destroyEvent(Start);
    return;
  }
  if (Handle != nullptr)
    StreamContext::recycleEvent(On, Handle);
}

// QUEUED and SUBMIT are the host's clock when the command was enqueued (submitted at
// once); START and END the device's, on the same clock through the queue's base event.
// The base is taken once, so a device time can fall a little before the host's view of
// the submission: each point is at least the one before, which keeps the order true.
pi_result StreamEvent::profilingInfo(pi_profiling_info Point, pi_uint64 &Nanoseconds) {
  if (Clock == nullptr)
    return fail(PI_ERROR_PROFILING_INFO_NOT_AVAILABLE,
                "piEventGetProfilingInfo: the event has no timing");
  DGLINK_TRY(driver().makeCurrent(On.Ordinal));
  float StartMs = 0, EndMs = 0;
  DGLINK_TRY(driver().elapsed(Clock->Base, Handle, EndMs));
  if (Start != nullptr)
    DGLINK_TRY(driver().elapsed(Clock->Base, Start, StartMs));
  else // a recorded timestamp: one point in time
    StartMs = EndMs;
  const auto deviceTime = [&](float Ms) {
    return Clock->HostNanoseconds + static_cast<pi_uint64>(static_cast<double>(Ms) * 1e6);
  };
  const pi_uint64 StartNs = std::max(QueuedNanoseconds, deviceTime(StartMs));
  const pi_uint64 EndNs = std::max(StartNs, deviceTime(EndMs));
  switch (Point) {
  case PI_PROFILING_INFO_COMMAND_QUEUED:
  case PI_PROFILING_INFO_COMMAND_SUBMIT:
    Nanoseconds = QueuedNanoseconds;
    break;
  case PI_PROFILING_INFO_COMMAND_START:
    Nanoseconds = StartNs;
    break;
  case PI_PROFILING_INFO_COMMAND_END:
  case PI_PROFILING_INFO_COMMAND_COMPLETE:
    Nanoseconds = EndNs;
    break;
  }
  return PI_SUCCESS;
}

pi_result StreamQueue::startClock() {
  const pi_result Made = startClock(Clock);
  if (Made == PI_ERROR_UNSUPPORTED_FEATURE)
    return fail(PI_ERROR_INVALID_QUEUE_PROPERTIES,
                "piQueueCreate: {} has no timed events, so no profiling queue",
                streamBackend().label());
  return Made;
}

pi_result StreamQueue::startClock(ProfilingBase &Base) {
  DGLINK_TRY(timedEventNow(driver(), Handle, Base.Base)); // set only on success
  Base.HostNanoseconds = hostNanoseconds();
  return PI_SUCCESS;
}

pi_result StreamQueue::waitForOthers(const core::Enqueue &Request) {
  // The in-order stream orders its own events; another device's are waited for as any
  // other queue's (a stream may wait for an event of another driver context).
  for (pi_uint32 I = 0; I < Request.NumWaits; ++I)
    if (Request.Waits[I]->Queue != &Queue)
      DGLINK_TRY(
          driver().waitEvent(Handle, static_cast<StreamEvent &>(*Request.Waits[I]->Impl).Handle));
  return PI_SUCCESS;
}

pi_result StreamEvent::wait() {
  DGLINK_TRY(driver().makeCurrent(On.Ordinal));
  return driver().synchronize(Handle);
}

pi_result StreamEvent::status(pi_int32 &Status) {
  DGLINK_TRY(driver().makeCurrent(On.Ordinal));
  bool Complete = false;
  DGLINK_TRY(driver().query(Handle, Complete));
  Status = Complete ? PI_EVENT_COMPLETE : PI_EVENT_SUBMITTED;
  return PI_SUCCESS;
}

StreamQueue::~StreamQueue() {
  Driver &D = driver();
  if (D.makeCurrent(On.Ordinal) != PI_SUCCESS)
    return;
  // Work still in flight may read the staging memory: drain the stream first (a caller's
  // stream only where dglink put work on it: an event adopted from the driver keeps a
  // queue over its stream, and releasing it must not wait for the caller's whole stream).
  if ((OwnsStream || Enqueued.load(std::memory_order_relaxed)) &&
      D.synchronize(Handle) != PI_SUCCESS)
    logger().warn("{}: releasing queue {}: its stream reported an error: {}",
                  streamBackend().name(), fmt::ptr(&Queue), lastErrorMessage());
  Copies.release(D);
  if (Clock.Base != nullptr)
    D.destroyEvent(Clock.Base);
  if (TimestampClock.Base != nullptr)
    D.destroyEvent(TimestampClock.Base);
  if (OwnsStream)
    D.destroyStream(Handle);
}

template <typename SubmitFunction>
pi_result StreamQueue::enqueue(const core::Enqueue &Request, SubmitFunction &&Submit) {
  Driver &D = driver();
  DGLINK_TRY(D.makeCurrent(On.Ordinal));
  Enqueued.store(true, std::memory_order_relaxed);
  DGLINK_TRY(waitForOthers(Request));
  std::unique_ptr<StreamEvent> Done;
  if (Request.Out != nullptr && Clock.Base != nullptr) {
    // A profiling queue's command: timed events of its own before and after it.
    Done = std::make_unique<StreamEvent>(On, nullptr);
    Done->Clock = &Clock; // destroys what it has if a step fails
    Done->QueuedNanoseconds = hostNanoseconds();
    DGLINK_TRY(D.createTimedEvent(Done->Start));
    DGLINK_TRY(D.createTimedEvent(Done->Handle));
    DGLINK_TRY(D.record(Done->Start, Handle));
  } else if (Request.Out != nullptr) {
    Event E = nullptr;
    DGLINK_TRY(StreamContext::acquireEvent(On, E));
    Done = std::make_unique<StreamEvent>(On, E); // recycles E if Submit fails
  }
  DGLINK_TRY(Submit(Done != nullptr ? Done->Handle : nullptr));
  if (Request.Out != nullptr)
    *Request.Out = std::move(Done);
  return PI_SUCCESS;
}

pi_result StreamQueue::finish() {
  DGLINK_TRY(driver().makeCurrent(On.Ordinal));
  return driver().synchronize(Handle);
}

pi_result StreamQueue::write(const DeviceGlobalLocation &Device, const void *Src, size_t Size,
                             const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    return Copies.write(driver(), Handle, devicePointer(Device), Src, Size, Request.Blocking, Done,
                        hostMemory(Src, Size));
  });
}

pi_result StreamQueue::read(void *Dst, const DeviceGlobalLocation &Device, size_t Size,
                            const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    return Copies.read(driver(), Handle, Dst, devicePointer(Device), Size, Request.Blocking, Done,
                       hostMemory(Dst, Size));
  });
}

namespace {

// Whether Size bytes at Host are pageable host memory: in none of the adapter's USM
// allocations, and the driver says it never saw them (a pointer it cannot place, say
// device memory of another library, is never taken for host memory).
bool pageable(StreamBackend &Backend, const void *Host, size_t Size) {
  return !Backend.HostAllocations.contains(Host, Size) &&
         !Backend.DeviceAllocations.contains(Host, Size) && driver().pageableHost(Host);
}

} // namespace

pi_result StreamQueue::usmCopy(void *Dst, const void *Src, size_t Size,
                               const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    Driver &D = driver();
    // Between pageable memory and the adapter's device USM (where a SYCL runtime keeps a
    // device_global's instance, and q.memcpy's usual target), the copy engine stages the
    // bytes as it does for device globals, from the size where that pays.
    if (Size >= copyTuning().UsmBytes) {
      StreamBackend &Backend = streamBackend();
      if (Backend.DeviceAllocations.contains(Dst, Size) && pageable(Backend, Src, Size))
        return Copies.write(D, Handle, Dst, Src, Size, Request.Blocking, Done,
                            HostMemory::Pageable);
      if (Backend.DeviceAllocations.contains(Src, Size) && pageable(Backend, Dst, Size))
        return Copies.read(D, Handle, Dst, Src, Size, Request.Blocking, Done, HostMemory::Pageable);
    }
    // Unified addressing: the driver tells host (pinned or pageable), device and
    // managed memory apart from the pointers.
    if (Size != 0)
      DGLINK_TRY(D.copy(Dst, Src, Size, Handle));
    return complete(D, Handle, Done, Request.Blocking);
  });
}

pi_result StreamQueue::usmFill(void *Ptr, const void *Pattern, size_t PatternSize, size_t Size,
                               const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    Driver &D = driver();
    const size_t Count = Size / PatternSize;
    if (Count != 0 && PatternSize <= 4) {
      const uint32_t Value = patternValue(Pattern, PatternSize);
      DGLINK_TRY(D.fill(Ptr, Value, static_cast<unsigned>(PatternSize), Count, Handle));
    } else if (Count != 0) {
      // Wider patterns (8 to 128 bytes: a SYCL fill of doubles, say): one pattern written
      // through the copy engine, which captures it (the caller's pattern may go away),
      // then doubled on the device, each copy from the filled start to what follows it,
      // in stream order: no host memory of the fill's size, nothing blocking.
      DGLINK_TRY(
          Copies.write(D, Handle, Ptr, Pattern, PatternSize, false, nullptr, HostMemory::Pageable));
      auto *Start = static_cast<char *>(Ptr);
      for (size_t Filled = PatternSize; Filled < Size; Filled *= 2)
        DGLINK_TRY(D.copy(Start + Filled, Start, std::min(Filled, Size - Filled), Handle));
    }
    return complete(D, Handle, Done, Request.Blocking);
  });
}

// Rows of unified addresses: the driver's 2D copy.
pi_result StreamQueue::usmCopy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch,
                                 size_t Width, size_t Height, const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    Driver &D = driver();
    DGLINK_TRY(D.copy2D(Dst, DstPitch, Src, SrcPitch, Width, Height, Handle));
    return complete(D, Handle, Done, Request.Blocking);
  });
}

// Patterns of up to 4 bytes: the driver's 2D fill; wider ones row by row as usmFill
// writes them (one pattern through the copy engine, doubled on the device).
pi_result StreamQueue::usmFill2D(void *Ptr, size_t Pitch, const void *Pattern, size_t PatternSize,
                                 size_t Width, size_t Height, const core::Enqueue &Request) {
  if (PatternSize > 4)
    return QueueImpl::usmFill2D(Ptr, Pitch, Pattern, PatternSize, Width, Height, Request);
  return enqueue(Request, [&](Event Done) {
    Driver &D = driver();
    DGLINK_TRY(D.fill2D(Ptr, Pitch, patternValue(Pattern, PatternSize),
                        static_cast<unsigned>(PatternSize), Width / PatternSize, Height, Handle));
    return complete(D, Handle, Done, Request.Blocking);
  });
}

pi_result StreamQueue::timestamp(const core::Enqueue &Request) {
  Driver &D = driver();
  DGLINK_TRY(D.makeCurrent(On.Ordinal));
  const ProfilingBase *Base = &Clock;
  if (Clock.Base == nullptr) {
    const std::lock_guard<std::mutex> Lock(TimestampMutex);
    if (TimestampClock.Base == nullptr)
      DGLINK_TRY(startClock(TimestampClock));
    Base = &TimestampClock;
  }
  Enqueued.store(true, std::memory_order_relaxed);
  DGLINK_TRY(waitForOthers(Request));
  auto Done = std::make_unique<StreamEvent>(On, nullptr);
  Done->Clock = Base; // destroys what it has if a step fails
  Done->QueuedNanoseconds = hostNanoseconds();
  DGLINK_TRY(D.createTimedEvent(Done->Handle));
  DGLINK_TRY(complete(D, Handle, Done->Handle, Request.Blocking));
  if (Request.Out != nullptr)
    *Request.Out = std::move(Done);
  return PI_SUCCESS;
}

pi_result StreamQueue::launch(_pi_kernel &Kernel, const core::LaunchShape &Shape,
                              const core::Enqueue &Request) {
  auto &Impl = static_cast<StreamKernel &>(*Kernel.Impl);
  if (Impl.functionOf(On.Ordinal) == nullptr)
    return fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                "piEnqueueKernelLaunch: kernel '{}' has no code for device '{}' of the queue",
                Impl.Name, Queue.Device->Description.Name);
  // A non-zero offset runs the kernel's offset entry point (the core checked it has one).
  const FunctionHandle Function = Impl.functionFor(On.Ordinal, Shape);
  if (Function == nullptr)
    return fail(PI_ERROR_INVALID_VALUE,
                "piEnqueueKernelLaunch: kernel '{}' has no '{}{}' entry point on device '{}' "
                "for a global offset",
                Impl.Name, Impl.Name, OffsetEntrySuffix, Queue.Device->Description.Name);
  unsigned Block[3];
  unsigned Grid[3];
  DGLINK_TRY(grid(Shape, Impl, streamDevice(*Queue.Device).Info, Block, Grid));
  DGLINK_TRY(Impl.checkImagesOn(On.Ordinal, *Queue.Device));
  LaunchArguments Arguments;
  DGLINK_TRY(Impl.collect(Shape, Arguments));
  if (Arguments.DynamicSharedBytes != 0) {
    // Before anything is enqueued: a launch past the limit leaves the queue as it was.
    DGLINK_TRY(driver().makeCurrent(On.Ordinal));
    DGLINK_TRY(
        reserveLocalMemory(driver(), Function, Impl, *Queue.Device, Arguments.DynamicSharedBytes));
  }
  return enqueue(Request, [&](Event Done) {
    Driver &D = driver();
    void **Params = Arguments.Params.empty() ? nullptr : Arguments.Params.data();
    if (Shape.Cooperative)
      DGLINK_TRY(
          D.launchCooperative(Function, Grid, Block, Arguments.DynamicSharedBytes, Handle, Params));
    else
      DGLINK_TRY(D.launch(Function, Grid, Block, Arguments.DynamicSharedBytes, Handle, Params));
    return complete(D, Handle, Done, Request.Blocking);
  });
}

// The queue is in order: an event recorded now completes after everything enqueued
// before, which is what both a marker and a barrier promise.
pi_result StreamQueue::marker(bool, const core::Enqueue &Request) {
  return enqueue(Request,
                 [&](Event Done) { return complete(driver(), Handle, Done, Request.Blocking); });
}

namespace {

char *pointerOf(core::MemImpl &Buffer) {
  return static_cast<char *>(static_cast<StreamMem &>(Buffer).Pointer);
}

} // namespace

// Unified addressing: one driver copy between any two of the buffers' pointers.
pi_result StreamQueue::copyBuffer(core::MemImpl &Src, size_t SrcOffset, core::MemImpl &Dst,
                                  size_t DstOffset, size_t Size, const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    Driver &D = driver();
    DGLINK_TRY(D.copy(pointerOf(Dst) + DstOffset, pointerOf(Src) + SrcOffset, Size, Handle));
    return complete(D, Handle, Done, Request.Blocking);
  });
}

// A buffer's bytes are device memory at an address: the USM fill serves them.
pi_result StreamQueue::fillBuffer(core::MemImpl &Buffer, size_t Offset, const void *Pattern,
                                  size_t PatternSize, size_t Size, const core::Enqueue &Request) {
  return usmFill(pointerOf(Buffer) + Offset, Pattern, PatternSize, Size, Request);
}

pi_result StreamQueue::rect(char *Dst, const char *Src, const core::RectCopy &Rect,
                            const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    Driver &D = driver();
    for (size_t Slice = 0; Slice < Rect.Region[2]; ++Slice)
      DGLINK_TRY(D.copy2D(Dst + Rect.dstOffset(0, Slice), Rect.DstRowPitch,
                          Src + Rect.srcOffset(0, Slice), Rect.SrcRowPitch, Rect.Region[0],
                          Rect.Region[1], Handle));
    return complete(D, Handle, Done, Request.Blocking);
  });
}

pi_result StreamQueue::readRect(void *Dst, core::MemImpl &Buffer, const core::RectCopy &Rect,
                                const core::Enqueue &Request) {
  return rect(static_cast<char *>(Dst), pointerOf(Buffer), Rect, Request);
}

pi_result StreamQueue::writeRect(core::MemImpl &Buffer, const void *Src, const core::RectCopy &Rect,
                                 const core::Enqueue &Request) {
  return rect(pointerOf(Buffer), static_cast<const char *>(Src), Rect, Request);
}

pi_result StreamQueue::copyRect(core::MemImpl &Src, core::MemImpl &Dst, const core::RectCopy &Rect,
                                const core::Enqueue &Request) {
  return rect(pointerOf(Dst), pointerOf(Src), Rect, Request);
}

// Image commands: the driver's copies with arrays (image.cpp).
pi_result StreamQueue::readImage(const char *, void *Dst, core::MemImpl &Image,
                                 const core::ImageRegion &Region, const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    DGLINK_TRY(copyImageLinear(static_cast<const StreamImage &>(Image), Region,
                               static_cast<char *>(Dst), false, On.Ordinal, Handle));
    return complete(driver(), Handle, Done, Request.Blocking);
  });
}

pi_result StreamQueue::writeImage(const char *, core::MemImpl &Image, const void *Src,
                                  const core::ImageRegion &Region, const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    // The driver only reads the caller's pixels.
    DGLINK_TRY(copyImageLinear(static_cast<const StreamImage &>(Image), Region,
                               const_cast<char *>(static_cast<const char *>(Src)), true, On.Ordinal,
                               Handle));
    return complete(driver(), Handle, Done, Request.Blocking);
  });
}

pi_result StreamQueue::copyImage(const char *, core::MemImpl &Src, core::MemImpl &Dst,
                                 const core::ImageRegion &Region, const core::Enqueue &Request) {
  return enqueue(Request, [&](Event Done) {
    DGLINK_TRY(copyImageToImage(static_cast<const StreamImage &>(Src),
                                static_cast<const StreamImage &>(Dst), Region, On.Ordinal, Handle));
    return complete(driver(), Handle, Done, Request.Blocking);
  });
}

} // namespace dglink::stream
