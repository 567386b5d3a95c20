// In-order command queues: every command of the core (copies, USM, markers) as one
// OpenCL command after the request's wait list, its cl_event handed to the core.
#include "backend.h"

#include <dglink/support/log.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

namespace dglink::opencl {
namespace {

// The ClMem a location names (a buffer, lowered storage or a named global).
const ClMem *memOf(const DeviceGlobalLocation &Location) {
  return static_cast<const ClMem *>(static_cast<const core::MemImpl *>(Location.Buffer));
}

// A location no OpenCL command reaches: no buffer, or an unreachable device global.
pi_result unreachable(const ClMem *Mem, const char *Function) {
  if (Mem == nullptr)
    return fail(PI_ERROR_INVALID_MEM_OBJECT,
                "{}: the OpenCL adapter copies only to and from buffers and device-global "
                "storage",
                Function);
  return fail(PI_ERROR_INVALID_OPERATION, "{}: {}", Function, Mem->Name);
}

} // namespace

// A guard: the core waits for other contexts' events on the host (core::submit) and
// hands a backend only events of the queue's context.
pi_result checkSameContext(const core::Enqueue &Request, const ClContext &Context) {
  for (pi_uint32 I = 0; I < Request.NumWaits; ++I)
    if (Request.Waits[I]->Context != &Context.Owner)
      return fail(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                  "event wait list: entry {} belongs to another context than the queue", I);
  return PI_SUCCESS;
}

template <typename SubmitFunction>
pi_result ClQueue::enqueue(const char *ClFunction, const core::Enqueue &Request,
                           SubmitFunction &&Submit) {
  DGLINK_TRY(checkSameContext(Request, Context));
  const WaitList Waits(Request);
  std::unique_ptr<ClEvent> Made;
  if (Request.Out != nullptr)
    Made = std::make_unique<ClEvent>(nullptr); // before the command: nothing fails after it
  const cl_int Error = Submit(Waits.size(), Waits.data(), Made != nullptr ? &Made->Event : nullptr);
  if (Error != CL_SUCCESS)
    return commandFailure(ClFunction, Error);
  if (Made != nullptr)
    *Request.Out = std::move(Made);
  return PI_SUCCESS;
}

pi_result ClQueue::commandFailure(const char *ClFunction, cl_int Error) const {
  return fail(toPiResult(Error), "{} failed with {} ({}) on device '{}'", ClFunction,
              clErrorName(Error), Error, Device.Description.Name);
}

ClQueue::~ClQueue() {
  if (Queue != nullptr) {
    Context.removeQueue(Queue);
    if (!CallersQueue)
      clFinish(Queue);
    std::lock_guard<std::mutex> Lock(Context.FreeOrReleaseMutex);
    clReleaseCommandQueue(Queue);
  }
  if (Stamp != nullptr)
    clReleaseMemObject(Stamp); // freed by OpenCL once the fills that use it are done
}

pi_result ClQueue::makeStamp(const char *Function) {
  cl_int Error = CL_SUCCESS;
  Stamp = clCreateBuffer(Context.Context, CL_MEM_READ_WRITE, 4, nullptr, &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clCreateBuffer");
  Profiling = true;
  return PI_SUCCESS;
}

pi_result ClQueue::finish() {
  const cl_int Error = clFinish(Queue);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piQueueFinish", "clFinish");
  return PI_SUCCESS;
}

template <typename Command>
pi_result ClQueue::hostToDevice(const char *ClFunction, const void *Src, size_t Size,
                                const core::Enqueue &Request, Command &Write, bool UsmChecked) {
  if (UsmChecked || stages(Src, Size)) {
    auto Chunk = [&](size_t Offset, size_t Count, void *Host, cl_uint NumWaits,
                     const cl_event *Waits, cl_event *Event) {
      return Write(Offset, Count, Host, CL_FALSE, NumWaits, Waits, Event);
    };
    bool Staged = false;
    DGLINK_TRY(stagedWrite(ClFunction, Src, Size, Request, ChunkCommand(Chunk), Staged));
    if (Staged)
      return PI_SUCCESS;
  }
  const cl_bool Blocking = Request.Blocking ? CL_TRUE : CL_FALSE;
  return enqueue(ClFunction, Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return Write(0, Size, Src, Blocking, NumWaits, Waits, Event);
                 });
}

template <typename Command>
pi_result ClQueue::deviceToHost(const char *ClFunction, void *Dst, size_t Size,
                                const core::Enqueue &Request, Command &Read, bool UsmChecked) {
  if (UsmChecked || stages(Dst, Size)) {
    auto Chunk = [&](size_t Offset, size_t Count, void *Host, cl_uint NumWaits,
                     const cl_event *Waits, cl_event *Event) {
      return Read(Offset, Count, Host, CL_FALSE, NumWaits, Waits, Event);
    };
    bool Staged = false;
    DGLINK_TRY(stagedRead(ClFunction, Dst, Size, Request, ChunkCommand(Chunk), Staged));
    if (Staged)
      return PI_SUCCESS;
  }
  const cl_bool Blocking = Request.Blocking ? CL_TRUE : CL_FALSE;
  return enqueue(ClFunction, Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return Read(0, Size, Dst, Blocking, NumWaits, Waits, Event);
                 });
}

// Pageable host memory goes through the context's pinned staging where the device stages
// (NVIDIA's OpenCL; staging.cpp), else to the driver, which stages it itself.
pi_result ClQueue::write(const DeviceGlobalLocation &Location, const void *Src, size_t Size,
                         const core::Enqueue &Request) {
  const ClMem *Target = memOf(Location);
  if (Target == nullptr || Target->What == ClMem::Kind::Unreachable)
    return unreachable(Target, "piextEnqueueDeviceGlobalVariableWrite");
  if (Target->What == ClMem::Kind::NamedGlobal) {
    const GlobalVariableFunctions &Functions = clDevice(Device).Platform->GlobalVariable;
    auto Write = [&](size_t Offset, size_t Count, const void *From, cl_bool Block, cl_uint NumWaits,
                     const cl_event *Waits, cl_event *Event) {
      return Functions.Write(Queue, Target->Program, Target->Name.c_str(), Block, Count,
                             Location.Address + Offset, From, NumWaits, Waits, Event);
    };
    return hostToDevice("clEnqueueWriteGlobalVariableINTEL", Src, Size, Request, Write);
  }
  auto Write = [&](size_t Offset, size_t Count, const void *From, cl_bool Block, cl_uint NumWaits,
                   const cl_event *Waits, cl_event *Event) {
    return clEnqueueWriteBuffer(Queue, Target->Mem, Block, Location.Address + Offset, Count, From,
                                NumWaits, Waits, Event);
  };
  return hostToDevice("clEnqueueWriteBuffer", Src, Size, Request, Write);
}

pi_result ClQueue::read(void *Dst, const DeviceGlobalLocation &Location, size_t Size,
                        const core::Enqueue &Request) {
  const ClMem *Source = memOf(Location);
  if (Source == nullptr || Source->What == ClMem::Kind::Unreachable)
    return unreachable(Source, "piextEnqueueDeviceGlobalVariableRead");
  if (Source->What == ClMem::Kind::NamedGlobal) {
    const GlobalVariableFunctions &Functions = clDevice(Device).Platform->GlobalVariable;
    auto Read = [&](size_t Offset, size_t Count, void *Into, cl_bool Block, cl_uint NumWaits,
                    const cl_event *Waits, cl_event *Event) {
      return Functions.Read(Queue, Source->Program, Source->Name.c_str(), Block, Count,
                            Location.Address + Offset, Into, NumWaits, Waits, Event);
    };
    return deviceToHost("clEnqueueReadGlobalVariableINTEL", Dst, Size, Request, Read);
  }
  auto Read = [&](size_t Offset, size_t Count, void *Into, cl_bool Block, cl_uint NumWaits,
                  const cl_event *Waits, cl_event *Event) {
    return clEnqueueReadBuffer(Queue, Source->Mem, Block, Location.Address + Offset, Count, Into,
                               NumWaits, Waits, Event);
  };
  return deviceToHost("clEnqueueReadBuffer", Dst, Size, Request, Read);
}

// Between pageable host memory and the context's device or shared USM, through staging
// where the device stages (as buffers); everything else to the driver.
pi_result ClQueue::usmCopy(void *Dst, const void *Src, size_t Size, const core::Enqueue &Request) {
  if (Context.Usm == PI_USM_MECHANISM_NONE)
    return Context.noUsmPath("piextUSMEnqueueMemcpy", &Device);
  const bool Native = Context.Usm == PI_USM_MECHANISM_NATIVE;
  const char *ClFunction = Native ? "clEnqueueMemcpyINTEL" : "clEnqueueSVMMemcpy";
  auto Copy = [&](cl_bool Block, void *To, const void *From, size_t Count, cl_uint NumWaits,
                  const cl_event *Waits, cl_event *Event) {
    return Native ? Context.IntelUsm->EnqueueMemcpy(Queue, Block, To, From, Count, NumWaits, Waits,
                                                    Event)
                  : clEnqueueSVMMemcpy(Queue, Block, To, From, Count, NumWaits, Waits, Event);
  };
  if (Size >= clDevice(Device).StagesFrom) {
    constexpr bool UsmChecked = true; // the pageable side is no USM of the context
    core::UsmAllocationInfo SrcInfo, DstInfo;
    const bool SrcUsm = core::findUsmAllocation(Context.Owner, Src, SrcInfo);
    const bool DstUsm = core::findUsmAllocation(Context.Owner, Dst, DstInfo);
    auto *To = static_cast<char *>(Dst);
    const auto *From = static_cast<const char *>(Src);
    if (!SrcUsm && DstUsm && DstInfo.Kind != core::UsmKind::Host) {
      auto Write = [&](size_t Offset, size_t Count, const void *Host, cl_bool Block,
                       cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
        return Copy(Block, To + Offset, Host, Count, NumWaits, Waits, Event);
      };
      return hostToDevice(ClFunction, Src, Size, Request, Write, UsmChecked);
    }
    if (SrcUsm && SrcInfo.Kind != core::UsmKind::Host && !DstUsm) {
      auto Read = [&](size_t Offset, size_t Count, void *Host, cl_bool Block, cl_uint NumWaits,
                      const cl_event *Waits, cl_event *Event) {
        return Copy(Block, Host, From + Offset, Count, NumWaits, Waits, Event);
      };
      return deviceToHost(ClFunction, Dst, Size, Request, Read, UsmChecked);
    }
  }
  const cl_bool Blocking = Request.Blocking ? CL_TRUE : CL_FALSE;
  return enqueue(ClFunction, Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return Copy(Blocking, Dst, Src, Size, NumWaits, Waits, Event);
                 });
}

// Both fills copy the pattern when the command is enqueued.
pi_result ClQueue::usmFill(void *Ptr, const void *Pattern, size_t PatternSize, size_t Size,
                           const core::Enqueue &Request) {
  if (Context.Usm == PI_USM_MECHANISM_NONE)
    return Context.noUsmPath("piextUSMEnqueueFill", &Device);
  if (Context.Usm == PI_USM_MECHANISM_NATIVE)
    return enqueue("clEnqueueMemFillINTEL", Request,
                   [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                     return Context.IntelUsm->EnqueueMemFill(Queue, Ptr, Pattern, PatternSize, Size,
                                                             NumWaits, Waits, Event);
                   });
  // NVIDIA's OpenCL (580.159, H200) never destroys a context in which
  // clEnqueueSVMMemFill ran, whatever the order of the free and the event's release:
  // each such context kept about 500 MiB of the GPU until the process ended, and UR's CTS
  // usm suite ran out of contexts (CL_OUT_OF_HOST_MEMORY) after about 1,100 tests. A fill
  // of a buffer made over the allocation (OpenCL 2.0: CL_MEM_USE_HOST_PTR with an SVM
  // pointer uses the SVM memory itself) leaves the context free to go, and is the path
  // on every SVM driver, so that CI runs it. The buffer goes when the fill is done.
  // (The core passes patterns of a power of two up to 128 bytes, at pointers aligned to
  // them, as clEnqueueFillBuffer takes them.)
  void *Base = nullptr;
  size_t BaseSize = 0;
  if (Context.svmAllocationOf(Ptr, Size, Base, BaseSize)) {
    const size_t At = static_cast<size_t>(static_cast<char *>(Ptr) - static_cast<char *>(Base));
    cl_int Error = CL_SUCCESS;
    cl_mem Over = clCreateBuffer(Context.Context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, BaseSize,
                                 Base, &Error);
    if (Over != nullptr && Error == CL_SUCCESS) {
      const pi_result Result =
          enqueue("clEnqueueFillBuffer", Request,
                  [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                    return clEnqueueFillBuffer(Queue, Over, Pattern, PatternSize, At, Size,
                                               NumWaits, Waits, Event);
                  });
      clReleaseMemObject(Over);
      return Result;
    }
    if (Over != nullptr)
      clReleaseMemObject(Over);
    logger().debug("opencl: no buffer over SVM allocation {} ({}); filling it with "
                   "clEnqueueSVMMemFill",
                   fmt::ptr(Base), clErrorName(Error));
  }
  return enqueue("clEnqueueSVMMemFill", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueSVMMemFill(Queue, Ptr, Pattern, PatternSize, Size, NumWaits,
                                              Waits, Event);
                 });
}

// On an in-order queue a marker already orders after everything before it; the barrier
// form also holds back what comes later, as PI's WithBarrier promises.
pi_result ClQueue::marker(bool Barrier, const core::Enqueue &Request) {
  DGLINK_TRY(enqueueMarker(Barrier, Request));
  // A blocking marker (a blocking map that reads nothing) returns when it is complete:
  // the queue is in order, so when everything in it is.
  if (Request.Blocking)
    return finish();
  return PI_SUCCESS;
}

pi_result ClQueue::empty(bool &Empty) {
  ClEvent Marker(nullptr); // released with its event on every way out
  const cl_int Error = clEnqueueMarkerWithWaitList(Queue, 0, nullptr, &Marker.Event);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "the queue's emptiness probe", "clEnqueueMarkerWithWaitList");
  // A marker enqueued this instant completes once the driver has seen it: flushed, and
  // given a moment (PoCL's worker thread), so that a queue whose work is done answers
  // empty instead of "the marker is still queued".
  clFlush(Queue);
  pi_int32 Status = PI_EVENT_SUBMITTED;
  const auto Deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
  do {
    DGLINK_TRY(Marker.status(Status));
    if (Status == PI_EVENT_COMPLETE)
      break;
    std::this_thread::yield();
  } while (std::chrono::steady_clock::now() < Deadline);
  Empty = Status == PI_EVENT_COMPLETE;
  return PI_SUCCESS;
}

pi_result ClQueue::enqueueMarker(bool Barrier, const core::Enqueue &Request) {
  if (Profiling && Request.Out != nullptr) {
    // NVIDIA's OpenCL answers 0 for every profiling point of a marker's or a barrier's
    // event (measured on the H200 host); DPC++ asks a barrier's event for its times. On a
    // profiling queue the event is that of a 4-byte fill of the queue's own buffer after
    // the wait list, which completes after everything before it as the marker would
    // (the queue is in order) and carries the driver's real times. The buffer is made
    // with the queue (makeStamp), so that markers from many threads share it.
    const cl_uint Zero = 0;
    return enqueue("clEnqueueFillBuffer", Request,
                   [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                     return clEnqueueFillBuffer(Queue, Stamp, &Zero, sizeof(Zero), 0, sizeof(Zero),
                                                NumWaits, Waits, Event);
                   });
  }
  if (Barrier)
    return enqueue("clEnqueueBarrierWithWaitList", Request,
                   [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                     return clEnqueueBarrierWithWaitList(Queue, NumWaits, Waits, Event);
                   });
  return enqueue("clEnqueueMarkerWithWaitList", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueMarkerWithWaitList(Queue, NumWaits, Waits, Event);
                 });
}

pi_result ClQueue::launch(_pi_kernel &Kernel, const core::LaunchShape &Shape,
                          const core::Enqueue &Request) {
  ClKernel &Launched = static_cast<ClKernel &>(*Kernel.Impl);
  if (Context.Usm == PI_USM_MECHANISM_SVM) {
    // SVM reached through pointers stored in memory (a pointer in a struct, a device
    // global holding a USM pointer) must be named to the driver before the launch;
    // arguments are covered by clSetKernelArgSVMPointer. Every allocation of the context
    // is named, as DPC++ does for indirect USM access.
    const std::vector<void *> Allocations = Context.usmAllocations();
    if (!Allocations.empty()) {
      const cl_int Error =
          clSetKernelExecInfo(Launched.Kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                              Allocations.size() * sizeof(void *), Allocations.data());
      if (Error != CL_SUCCESS)
        return fail(toPiResult(Error),
                    "piEnqueueKernelLaunch: clSetKernelExecInfo(CL_KERNEL_EXEC_INFO_SVM_PTRS) "
                    "failed with {} ({}) for kernel '{}'",
                    clErrorName(Error), Error, clip(Launched.Name));
    }
  }
  // A lowered kernel gets the storage of its program on the queue's device; the argument
  // and the enqueue happen under one lock, so that launches on two devices do not mix.
  std::unique_lock<std::mutex> Lock(Launched.LaunchMutex, std::defer_lock);
  if (Launched.TakesStorage) {
    ClMem *Storage = nullptr;
    DGLINK_TRY(Launched.Program.storage("piEnqueueKernelLaunch", *Kernel.Program, Device, Storage));
    Lock.lock();
    const cl_int Error =
        clSetKernelArg(Launched.Kernel, Launched.NumArgs, sizeof(cl_mem), &Storage->Mem);
    if (Error != CL_SUCCESS)
      return Launched.argumentFailure("piEnqueueKernelLaunch", "clSetKernelArg", Error,
                                      Launched.NumArgs);
  }
  const bool Offset = Shape.Offset[0] != 0 || Shape.Offset[1] != 0 || Shape.Offset[2] != 0;
  return enqueue("clEnqueueNDRangeKernel", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueNDRangeKernel(Queue, Launched.Kernel, Shape.Dimensions,
                                                 Offset ? Shape.Offset : nullptr, Shape.Global,
                                                 Shape.LocalGiven ? Shape.Local : nullptr, NumWaits,
                                                 Waits, Event);
                 });
}

namespace {

cl_mem bufferOf(const core::MemImpl &Buffer) { return static_cast<const ClMem &>(Buffer).Mem; }

} // namespace

pi_result ClQueue::copyBuffer(core::MemImpl &Src, size_t SrcOffset, core::MemImpl &Dst,
                              size_t DstOffset, size_t Size, const core::Enqueue &Request) {
  return enqueue("clEnqueueCopyBuffer", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueCopyBuffer(Queue, bufferOf(Src), bufferOf(Dst), SrcOffset,
                                              DstOffset, Size, NumWaits, Waits, Event);
                 });
}

// clEnqueueFillBuffer copies the pattern when the command is enqueued.
pi_result ClQueue::fillBuffer(core::MemImpl &Buffer, size_t Offset, const void *Pattern,
                              size_t PatternSize, size_t Size, const core::Enqueue &Request) {
  return enqueue("clEnqueueFillBuffer", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueFillBuffer(Queue, bufferOf(Buffer), Pattern, PatternSize, Offset,
                                              Size, NumWaits, Waits, Event);
                 });
}

pi_result ClQueue::readRect(void *Dst, core::MemImpl &Buffer, const core::RectCopy &Rect,
                            const core::Enqueue &Request) {
  const cl_bool Blocking = Request.Blocking ? CL_TRUE : CL_FALSE;
  return enqueue("clEnqueueReadBufferRect", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueReadBufferRect(Queue, bufferOf(Buffer), Blocking, Rect.SrcOrigin,
                                                  Rect.DstOrigin, Rect.Region, Rect.SrcRowPitch,
                                                  Rect.SrcSlicePitch, Rect.DstRowPitch,
                                                  Rect.DstSlicePitch, Dst, NumWaits, Waits, Event);
                 });
}

pi_result ClQueue::writeRect(core::MemImpl &Buffer, const void *Src, const core::RectCopy &Rect,
                             const core::Enqueue &Request) {
  const cl_bool Blocking = Request.Blocking ? CL_TRUE : CL_FALSE;
  return enqueue("clEnqueueWriteBufferRect", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueWriteBufferRect(
                       Queue, bufferOf(Buffer), Blocking, Rect.DstOrigin, Rect.SrcOrigin,
                       Rect.Region, Rect.DstRowPitch, Rect.DstSlicePitch, Rect.SrcRowPitch,
                       Rect.SrcSlicePitch, Src, NumWaits, Waits, Event);
                 });
}

pi_result ClQueue::copyRect(core::MemImpl &Src, core::MemImpl &Dst, const core::RectCopy &Rect,
                            const core::Enqueue &Request) {
  return enqueue("clEnqueueCopyBufferRect", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueCopyBufferRect(
                       Queue, bufferOf(Src), bufferOf(Dst), Rect.SrcOrigin, Rect.DstOrigin,
                       Rect.Region, Rect.SrcRowPitch, Rect.SrcSlicePitch, Rect.DstRowPitch,
                       Rect.DstSlicePitch, NumWaits, Waits, Event);
                 });
}

} // namespace dglink::opencl

namespace dglink::opencl {

// The driver's migration where it has one: cl_intel_unified_shared_memory's
// clEnqueueMigrateMemINTEL, OpenCL 2.1's clEnqueueSVMMigrateMem for SVM; else a marker
// (the memory is where every access reaches it).
pi_result ClQueue::usmPrefetch(const void *Ptr, size_t Size, core::UsmMigration To,
                               const core::Enqueue &Request) {
  const bool ToHost = To == core::UsmMigration::ToHost;
  if (Context.Usm == PI_USM_MECHANISM_NATIVE && Context.IntelUsm->EnqueueMigrateMem != nullptr)
    return enqueue("clEnqueueMigrateMemINTEL", Request,
                   [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                     return Context.IntelUsm->EnqueueMigrateMem(
                         Queue, Ptr, Size, ToHost ? CL_MIGRATE_MEM_OBJECT_HOST : 0, NumWaits, Waits,
                         Event);
                   });
  int Major = 0, Minor = 0;
  const bool Svm21 =
      std::sscanf(Device.Description.Version.c_str(), "OpenCL %d.%d", &Major, &Minor) == 2 &&
      std::make_pair(Major, Minor) >= std::make_pair(2, 1);
  if (Context.Usm == PI_USM_MECHANISM_SVM && Svm21)
    return enqueue("clEnqueueSVMMigrateMem", Request,
                   [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                     const void *Pointers[] = {Ptr};
                     const size_t Sizes[] = {Size};
                     return clEnqueueSVMMigrateMem(Queue, 1, Pointers, Sizes,
                                                   ToHost ? CL_MIGRATE_MEM_OBJECT_HOST : 0,
                                                   NumWaits, Waits, Event);
                   });
  return marker(false, Request);
}

// ---- images (checked by the core: common/adapter_core/image.cpp) ----

pi_result ClQueue::readImage(const char *, void *Dst, core::MemImpl &Image,
                             const core::ImageRegion &Region, const core::Enqueue &Request) {
  const auto &Mem = static_cast<ClMem &>(Image);
  // OpenCL takes a slice pitch only where an image has slices (3-D, arrays).
  const bool Slices =
      Mem.ObjectType != CL_MEM_OBJECT_IMAGE1D && Mem.ObjectType != CL_MEM_OBJECT_IMAGE2D;
  const cl_bool Blocking = Request.Blocking ? CL_TRUE : CL_FALSE;
  return enqueue("clEnqueueReadImage", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueReadImage(Queue, Mem.Mem, Blocking, Region.Origin, Region.Region,
                                             Region.RowPitch, Slices ? Region.SlicePitch : 0, Dst,
                                             NumWaits, Waits, Event);
                 });
}

pi_result ClQueue::writeImage(const char *, core::MemImpl &Image, const void *Src,
                              const core::ImageRegion &Region, const core::Enqueue &Request) {
  const auto &Mem = static_cast<ClMem &>(Image);
  const bool Slices =
      Mem.ObjectType != CL_MEM_OBJECT_IMAGE1D && Mem.ObjectType != CL_MEM_OBJECT_IMAGE2D;
  const cl_bool Blocking = Request.Blocking ? CL_TRUE : CL_FALSE;
  return enqueue("clEnqueueWriteImage", Request,
                 [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
                   return clEnqueueWriteImage(
                       Queue, Mem.Mem, Blocking, Region.Origin, Region.Region, Region.RowPitch,
                       Slices ? Region.SlicePitch : 0, Src, NumWaits, Waits, Event);
                 });
}

pi_result ClQueue::copyImage(const char *, core::MemImpl &Src, core::MemImpl &Dst,
                             const core::ImageRegion &Region, const core::Enqueue &Request) {
  return enqueue(
      "clEnqueueCopyImage", Request, [&](cl_uint NumWaits, const cl_event *Waits, cl_event *Event) {
        return clEnqueueCopyImage(Queue, static_cast<ClMem &>(Src).Mem,
                                  static_cast<ClMem &>(Dst).Mem, Region.Origin, Region.DstOrigin,
                                  Region.Region, NumWaits, Waits, Event);
      });
}

} // namespace dglink::opencl
