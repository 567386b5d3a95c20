// The Level Zero backend: the adapter core's hooks over the Level Zero loader. What
// the core does not do: driver handles, the context's recycled events, immediate
// command lists, modules (per device of a program: one per link input, joined by
// zeModuleDynamicLink) and kernels whose arguments are driver state.
#pragma once

#include "ze_loader.h"

#include <dglink/core/backend.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace dglink::level_zero {

// The driver extension by which dglink's test driver says it runs no kernels.
inline constexpr const char *NoKernelExecutionExtension = "dglink_test_driver_no_kernel_execution";

// Intel's driver extension that makes the caller's host memory reachable by the devices
// at its own address (zexDriverImportExternalPointer / zexDriverReleaseImportedPointer,
// through zeDriverGetExtensionFunctionAddress: the loader does not export them).
using ImportExternalPointerFn = ze_result_t(ZE_APICALL *)(ze_driver_handle_t Driver, void *Pointer,
                                                          size_t Size);
using ReleaseImportedPointerFn = ze_result_t(ZE_APICALL *)(ze_driver_handle_t Driver,
                                                           void *Pointer);

// One lock per driver handle, however many dglink objects are over it (a queue and the
// queues adopted from its list's native handle; a kernel and the kernels adopted from
// its native handle): entries go with the last object.
class HandleLocks {
public:
  std::shared_ptr<std::mutex> of(const void *Handle);
  // Whether a live object holds Handle's lock.
  bool held(const void *Handle);

private:
  std::mutex Mutex;
  std::map<const void *, std::weak_ptr<std::mutex>> Locks; // guarded by Mutex
  size_t SweepAt = 16;                                     // guarded by Mutex
};

class ZePlatform final : public core::PlatformImpl {
public:
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Driver, Out); }
  ze_driver_handle_t Driver = nullptr;
  // Null where the driver has not the import extension.
  ImportExternalPointerFn ImportPointer = nullptr;
  ReleaseImportedPointerFn ReleaseImported = nullptr;
  // Host memory imported for USE_HOST_POINTER buffers: Intel's driver counts no imports
  // (a range inside an import is success, a release ends the whole import containing the
  // pointer, a partial overlap is refused), so the adapter counts the buffers over each.
  // Size bytes at Host: an import that holds them gets one more user, else a new one
  // (PI_ERROR_UNSUPPORTED_FEATURE where they overlap an import only in part); unimport
  // ends the import at Base once its last user is gone.
  pi_result import(void *Host, size_t Size, void *&Base);
  void unimport(void *Base);

private:
  struct Import {
    size_t Size = 0;
    size_t Users = 0;
  };
  std::mutex ImportsMutex;
  std::map<uintptr_t, Import> Imports; // by start; guarded by ImportsMutex
};

class ZeDevice final : public core::DeviceImpl {
public:
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Device, Out); }
  ze_driver_handle_t Driver = nullptr;
  ze_device_handle_t Device = nullptr;
  // The device's timer (profiling): ticks a second, and the valid low bits of its global
  // timestamps (zeDeviceGetGlobalTimestamps) and of its kernel timestamps.
  uint64_t TicksPerSecond = 1000000000;
  uint32_t TimestampBits = 64;
  uint32_t KernelTimestampBits = 64;
  // zeDeviceGetGlobalTimestamps' device time in nanoseconds: the clock profiling uses.
  pi_result globalTimestamp(pi_uint64 &Nanoseconds) override;
};

inline ZeDevice &zeDevice(const _pi_device &Device) {
  return static_cast<ZeDevice &>(*Device.Impl);
}

// A context of one or several devices of one driver: one ze_context_handle_t, which
// Level Zero makes for every device of the driver.
class ZeContext final : public core::ContextImpl {
public:
  ZeContext(const std::vector<_pi_device *> &TheDevices, ze_context_handle_t TheContext)
      : Devices(TheDevices), Context(TheContext) {}
  ~ZeContext() override;

  pi_result createQueue(_pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) override;
  pi_result createBuffer(size_t Size, const void *CopyFrom,
                         std::unique_ptr<core::MemImpl> &Impl) override;
  pi_result createHostBuffer(pi_mem_flags Flags, size_t Size, void *Host,
                             std::unique_ptr<core::MemImpl> &Impl) override;
  pi_result createSubBuffer(_pi_mem &Parent, pi_mem_flags Flags, size_t Origin, size_t Size,
                            std::unique_ptr<core::MemImpl> &Impl) override;
  pi_result allocateUsm(core::UsmKind Kind, _pi_device *Device, size_t Size, pi_uint32 Alignment,
                        void *&Pointer) override;
  pi_result freeUsm(void *Pointer) override;
  pi_result createProgram(const char *Function, const core::ProgramSource &Source,
                          _pi_program &Program) override;
  pi_result link(core::LinkRequest &Request) override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Context, Out); }
  // A queue over the caller's immediate command list (a queue's native handle).
  pi_result adoptQueue(const char *Function, uintptr_t Native, bool Owned, _pi_queue &Queue,
                       std::unique_ptr<core::QueueImpl> &Impl) override;
  // The caller's ze_event_handle_t, checked with zeEventQueryStatus; it names no list.
  pi_result adoptEvent(const char *Function, uintptr_t Native, bool Owned,
                       std::unique_ptr<core::EventImpl> &Impl, uintptr_t &NativeQueue) override;
  // A USM pointer of the context (the driver's own allocations too), where the core has
  // no record of it: zeMemGetAllocProperties and zeMemGetAddressRange.
  bool usmPointerInfo(const void *Pointer, core::UsmAllocationInfo &Out) override;
  // A buffer over the caller's USM (Level Zero's buffers are device addresses): from
  // Native to the end of its allocation; freed at the end only where Owned.
  pi_result adoptBuffer(const char *Function, uintptr_t Native, bool Owned,
                        const core::UsmAllocationInfo *Usm, size_t &Size,
                        std::unique_ptr<core::MemImpl> &Impl) override;
  // The caller's module, built for the context's only device (a module names no device).
  pi_result adoptProgram(const char *Function, uintptr_t Native, bool Owned,
                         _pi_program &Program) override;
  // The lock of an immediate command list's appends, one per list however many queues
  // are over it (a queue and the queues adopted from its native handle).
  std::shared_ptr<std::mutex> listMutex(ze_command_list_handle_t List);

  // Host-visible events of the context's pools (reset when recycled), visible to every
  // device of the context, so that an event of one device's queue orders another's.
  // Timestamps: from pools with ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP (profiling queues).
  pi_result acquireEvent(ze_event_handle_t &Event, bool Timestamps = false);
  void recycleEvent(ze_event_handle_t Event, bool Timestamps = false);
  // The device messages name for the context (its first).
  _pi_device &first() const { return *Devices.front(); }

  const std::vector<_pi_device *> Devices; // the context's, as the core has them
  ze_context_handle_t Context = nullptr;
  // False for the caller's context adopted without its ownership: not destroyed here.
  bool OwnsContext = true;
  // Where buffers live: device memory of the first device when every device of the
  // context reaches it (zeDeviceCanAccessPeer), else host memory (null), which every
  // device reaches.
  ze_device_handle_t BufferDevice = nullptr;
  // An immediate command list (of the first device) for copies that belong to no queue
  // (a buffer's initial contents).
  std::mutex InitMutex;
  ze_command_list_handle_t InitList = nullptr;

private:
  std::mutex EventMutex;
  std::vector<ze_event_pool_handle_t> EventPools;
  std::vector<ze_event_handle_t> FreeEvents[2]; // [Timestamps]
  std::vector<ze_event_handle_t> AllEvents;
  HandleLocks ListLocks;

public:
  // The lock of a kernel's arguments and group size, one per ze_kernel_handle_t (a kernel
  // and the kernels adopted from its native handle share it).
  HandleLocks KernelLocks;
};

inline ZeContext &zeContext(const _pi_context &Context) {
  return static_cast<ZeContext &>(*Context.Impl);
}

class ZeEvent final : public core::EventImpl {
public:
  ZeEvent(ZeContext &TheContext, ze_event_handle_t TheEvent)
      : Context(TheContext), Event(TheEvent) {}
  // An event of a profiling queue's command: a timestamp event, and the device's time
  // when the command was submitted.
  ZeEvent(ZeContext &TheContext, ze_event_handle_t TheEvent, const ZeDevice &TheDevice,
          uint64_t TheSubmitTicks)
      : Context(TheContext), Event(TheEvent), Device(&TheDevice), SubmitTicks(TheSubmitTicks) {}
  // An event of the caller's (urEventCreateWithNativeHandle): never waited for at the end
  // nor recycled; destroyed with this one only where the caller handed it over.
  struct Callers {
    bool Owned;
  };
  ZeEvent(ZeContext &TheContext, ze_event_handle_t TheEvent, Callers How)
      : Context(TheContext), Event(TheEvent), FromCaller(true), CallerOwned(How.Owned) {}
  ~ZeEvent() override;
  pi_result wait() override;
  pi_result status(pi_int32 &Status) override;
  pi_result profilingInfo(pi_profiling_info Point, pi_uint64 &Nanoseconds) override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Event, Out); }
  // For an event no command will signal: the destructor then does not wait.
  void forget() { Submitted = false; }
  // A recorded timestamp (urEnqueueTimestampRecordingExp): the device's time its command
  // writes into Stamp (host USM, freed with the event), placed after SubmitTicks, the
  // device's time at the append (QUEUED and SUBMIT).
  void recordsInto(uint64_t *TheStamp, const ZeDevice &TheDevice, uint64_t TheSubmitTicks) {
    Stamp = TheStamp;
    StampDevice = &TheDevice;
    SubmitTicks = TheSubmitTicks;
  }

  ZeContext &Context;
  ze_event_handle_t Event;

private:
  bool Submitted = true;
  const ZeDevice *Device = nullptr; // a profiling queue's (its event has timestamps)
  uint64_t SubmitTicks = 0;
  uint64_t *Stamp = nullptr; // a recorded timestamp's, and its device
  const ZeDevice *StampDevice = nullptr;
  const bool FromCaller = false;
  const bool CallerOwned = false;
};

class ZeQueue final : public core::QueueImpl {
public:
  // Over List (destroyed with the queue where OwnsList), appending under ListMutex;
  // Profiling: the queue's commands carry timestamps (PI_QUEUE_FLAG_PROFILING_ENABLE).
  ZeQueue(ZeContext &TheContext, _pi_device &TheDevice, ze_command_list_handle_t TheList,
          std::shared_ptr<std::mutex> TheListMutex, bool TheProfiling, bool TheOwnsList = true)
      : Context(TheContext), Device(TheDevice), ListMutex(std::move(TheListMutex)), List(TheList),
        Profiling(TheProfiling), OwnsList(TheOwnsList) {}
  ~ZeQueue() override;
  pi_result finish() override;
  pi_result write(const DeviceGlobalLocation &Location, const void *Src, size_t Size,
                  const core::Enqueue &Request) override;
  pi_result read(void *Dst, const DeviceGlobalLocation &Location, size_t Size,
                 const core::Enqueue &Request) override;
  pi_result usmCopy(void *Dst, const void *Src, size_t Size, const core::Enqueue &Request) override;
  pi_result usmFill(void *Ptr, const void *Pattern, size_t PatternSize, size_t Size,
                    const core::Enqueue &Request) override;
  pi_result launch(_pi_kernel &Kernel, const core::LaunchShape &Shape,
                   const core::Enqueue &Request) override;
  pi_result marker(bool Barrier, const core::Enqueue &Request) override;
  // zeCommandListAppendWriteGlobalTimestamp into host USM the event keeps.
  pi_result timestamp(const core::Enqueue &Request) override;
  pi_result copyBuffer(core::MemImpl &Src, size_t SrcOffset, core::MemImpl &Dst, size_t DstOffset,
                       size_t Size, const core::Enqueue &Request) override;
  pi_result fillBuffer(core::MemImpl &Buffer, size_t Offset, const void *Pattern,
                       size_t PatternSize, size_t Size, const core::Enqueue &Request) override;
  pi_result readRect(void *Dst, core::MemImpl &Buffer, const core::RectCopy &Rect,
                     const core::Enqueue &Request) override;
  pi_result writeRect(core::MemImpl &Buffer, const void *Src, const core::RectCopy &Rect,
                      const core::Enqueue &Request) override;
  pi_result copyRect(core::MemImpl &Src, core::MemImpl &Dst, const core::RectCopy &Rect,
                     const core::Enqueue &Request) override;
  // The rectangle between two pointers: zeCommandListAppendMemoryCopyRegion, whose
  // offsets and pitches are 32-bit.
  pi_result rect(char *Dst, const char *Src, const core::RectCopy &Rect,
                 const core::Enqueue &Request);
  // The immediate command list the queue appends to.
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(List, Out); }

  // One append to the list after the request's wait list: Append(Signal, NumWaits,
  // Waits) makes the Level Zero call (Call names it in errors). Blocking overrides
  // the request's (a fill must not outlive the caller's pattern).
  template <typename AppendFunction>
  pi_result append(const char *Call, const core::Enqueue &Request, bool Blocking,
                   AppendFunction &&Append);

  ZeContext &Context;
  _pi_device &Device; // the queue's: its list runs there, its launches use its modules
  // Appends to the immediate list, one at a time (shared by every queue over the list).
  std::shared_ptr<std::mutex> ListMutex;
  ze_command_list_handle_t List = nullptr;
  const bool Profiling;
  const bool OwnsList;
};

class ZeMem final : public core::MemImpl {
public:
  ZeMem(ZeContext &TheContext, void *ThePointer, bool TheOwned = true)
      : Context(TheContext), Pointer(ThePointer), Owned(TheOwned) {}
  ~ZeMem() override;
  // The device allocation.
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Pointer, Out); }
  ZeContext &Context;
  void *Pointer; // device USM (a sub-buffer: its place in the parent's)
  bool Owned;    // false for a sub-buffer's view
  // The caller's memory of a USE_HOST_POINTER buffer, imported into the driver: the
  // import (its start) the buffer is a user of, released with the buffer.
  ZePlatform *ImportedBy = nullptr;
  void *Import = nullptr;
};

// The device pointer of a location: a device address, or an offset into a buffer.
inline char *devicePointer(const DeviceGlobalLocation &Location) {
  if (Location.Buffer != nullptr)
    return static_cast<char *>(static_cast<ZeMem *>(Location.Buffer)->Pointer) + Location.Address;
  return core::locationAddress<char *>(Location);
}

// A program's code for one device: Level Zero builds a module for one device, so a
// program of several devices has modules (and device-global instances) per device.
struct DeviceCode {
  _pi_device *Device = nullptr;
  // The modules (one, or one per input of a link) and which module holds each kernel.
  std::vector<ze_module_handle_t> Modules;
  std::vector<std::pair<std::string, ze_module_handle_t>> Kernels;
};

class ZeProgram final : public core::ProgramImpl {
public:
  explicit ZeProgram(ZeContext &TheContext) : Context(TheContext) {}
  ~ZeProgram() override;
  pi_result build(_pi_program &Program, const std::string &Options, std::string &Log) override;
  pi_result compile(_pi_program &Program, const std::string &Options, std::string &Log) override;
  pi_result findGlobal(_pi_program &Program, _pi_device &Device, const std::string &Name,
                       const std::string &Symbol, core::GlobalLookup &Result) override;
  pi_result createKernel(_pi_program &Program, const char *Name,
                         std::unique_ptr<core::KernelImpl> &Kernel) override;
  // The module of an executable of one device made of one (a link's output keeps one
  // per input).
  bool nativeHandle(uintptr_t &Out) const override {
    return Code.size() == 1 && Code.front().Modules.size() == 1 &&
           core::nativeHandleOf(Code.front().Modules.front(), Out);
  }
  // The code for Device; null where the program has none for it.
  const DeviceCode *codeOf(const _pi_device &Device) const;
  // The caller's kernel of this program's module (one device, one module).
  pi_result adoptKernel(const char *Function, uintptr_t Native, bool Owned, _pi_program &Program,
                        std::string &Name, std::unique_ptr<core::KernelImpl> &Kernel) override;

  ZeContext &Context;
  // One per device of the executable, in the program's device order; written once,
  // before the program is marked executable.
  std::vector<DeviceCode> Code;
  // False for the caller's module adopted without its ownership: not destroyed here.
  bool OwnsModules = true;
};

// A kernel of every device of its program: one ze_kernel_handle_t per device, whose
// arguments are set alike.
class ZeKernel final : public core::KernelImpl {
public:
  explicit ZeKernel(std::string TheName) : Name(std::move(TheName)) {}
  ~ZeKernel() override;
  pi_uint32 numArguments() const override { return NumArgs; }
  size_t maxGroupSize() const override { return SIZE_MAX; } // the device's limit applies
  pi_result setArgument(const char *Function, pi_uint32 Index, size_t Size,
                        const void *Value) override;
  pi_result setBufferArgument(const char *Function, pi_uint32 Index, _pi_mem *Buffer) override;
  pi_result properties(const _pi_device &Device, core::KernelDeviceProperties &Out) const override;
  // The kernel of a program of one device.
  bool nativeHandle(uintptr_t &Out) const override {
    return Kernels.size() == 1 && core::nativeHandleOf(Kernels.front().second, Out);
  }
  // The kernel in Device's module; null where the program has no code for Device.
  ze_kernel_handle_t kernelOf(const _pi_device &Device) const;

  std::string Name;
  std::vector<std::pair<_pi_device *, ze_kernel_handle_t>> Kernels; // one per device
  uint32_t NumArgs = 0;
  // False for the caller's kernel adopted without its ownership: not destroyed here.
  bool OwnsKernels = true;
  // Arguments and group size are kernel state in Level Zero: held while they are set and
  // until a launch is appended (ZeContext::KernelLocks).
  std::shared_ptr<std::mutex> Mutex = std::make_shared<std::mutex>();
};

} // namespace dglink::level_zero
