// Objects from the driver's own handles (UR's ur*CreateWithNativeHandle): platforms and
// devices are the discovered ones; contexts, queues, events, buffers, programs and
// kernels are adopted by the backend, after the core's checks of the handles given.
#include "entry.h"

#include <algorithm>

using namespace dglink::core;

namespace dglink::core {

pi_result ContextImpl::adoptQueue(const char *Function, uintptr_t /*Native*/, bool /*Owned*/,
                                  _pi_queue & /*Queue*/, std::unique_ptr<QueueImpl> & /*Impl*/) {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter makes no queue from a native handle (docs/ur.md)",
                      Function, adapterLabel());
}

pi_result ContextImpl::adoptEvent(const char *Function, uintptr_t /*Native*/, bool /*Owned*/,
                                  std::unique_ptr<EventImpl> & /*Impl*/,
                                  uintptr_t & /*NativeQueue*/) {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter makes no event from a native handle (docs/ur.md)",
                      Function, adapterLabel());
}

pi_result ContextImpl::adoptBuffer(const char *Function, uintptr_t /*Native*/, bool /*Owned*/,
                                   const UsmAllocationInfo * /*Usm*/, size_t & /*Size*/,
                                   std::unique_ptr<MemImpl> & /*Impl*/) {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter makes no buffer from a native handle (docs/ur.md)",
                      Function, adapterLabel());
}

pi_result ContextImpl::adoptProgram(const char *Function, uintptr_t /*Native*/, bool /*Owned*/,
                                    _pi_program & /*Program*/) {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter makes no program from a native handle (docs/ur.md)",
                      Function, adapterLabel());
}

pi_result ContextImpl::programOfKernel(const char *Function, uintptr_t /*Native*/,
                                       uintptr_t & /*Program*/) {
  return dglink::fail(PI_ERROR_INVALID_PROGRAM,
                      "{}: a {} kernel does not name its program: pass the program it belongs to",
                      Function, adapterLabel());
}

pi_result ProgramImpl::adoptKernel(const char *Function, uintptr_t /*Native*/, bool /*Owned*/,
                                   _pi_program & /*Program*/, std::string & /*Name*/,
                                   std::unique_ptr<KernelImpl> & /*Kernel*/) {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter makes no kernel from a native handle (docs/ur.md)",
                      Function, adapterLabel());
}

pi_result Backend::adoptContext(const char *Function, uintptr_t /*Native*/, bool /*Owned*/,
                                _pi_context & /*Context*/,
                                std::unique_ptr<ContextImpl> & /*Impl*/) {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter makes no context from a native handle (docs/ur.md)",
                      Function, adapterLabel());
}

pi_result platformFromNative(const char *Function, uintptr_t Native, pi_platform *Out) {
  for (const auto &Platform : platforms()) {
    uintptr_t Handle = 0;
    if (Platform->Impl != nullptr && Platform->Impl->nativeHandle(Handle) && Handle == Native) {
      *Out = Platform.get();
      return PI_SUCCESS;
    }
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE,
                      "{}: native handle {:#x} is none of the {} adapter's platforms", Function,
                      Native, adapterLabel());
}

pi_result deviceFromNative(const char *Function, uintptr_t Native, pi_platform Platform,
                           pi_device *Out) {
  if (Platform != nullptr)
    DGLINK_TRY(checkHandle(Platform, PI_ERROR_INVALID_PLATFORM, Function, "Platform"));
  for (const auto &Each : platforms()) {
    if (Platform != nullptr && Each.get() != Platform)
      continue;
    for (_pi_device *Device : Each->Devices) {
      uintptr_t Handle = 0;
      if (Device->Impl != nullptr && Device->Impl->nativeHandle(Handle) && Handle == Native) {
        *Out = Device;
        return PI_SUCCESS;
      }
    }
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE,
                      "{}: native handle {:#x} is none of the {} adapter's devices{}", Function,
                      Native, adapterLabel(), Platform != nullptr ? " of that platform" : "");
}

pi_result queueFromNative(const char *Function, uintptr_t Native, pi_context Context,
                          pi_device Device, bool Owned, pi_queue *Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  if (Device != nullptr) {
    DGLINK_TRY(checkHandle(Device, PI_ERROR_INVALID_DEVICE, Function, "Device"));
    if (!Context->hasDevice(Device))
      return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not in the context",
                          Function, Device->Description.Name);
  }
  std::unique_ptr<_pi_queue> Queue = makeHandle<_pi_queue>();
  Queue->Context = Context;
  Queue->Device = Device;
  DGLINK_TRY(Context->Impl->adoptQueue(Function, Native, Owned, *Queue, Queue->Impl));
  registerQueue(*Queue);
  retain(Context);
  *Out = Queue.release();
  return PI_SUCCESS;
}

pi_result eventFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                          pi_event *Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  std::unique_ptr<_pi_event> Event = makeHandle<_pi_event>();
  Event->Context = Context;
  Event->Command = PI_COMMAND_TYPE_MARKER; // of a command dglink did not enqueue
  uintptr_t NativeQueue = 0;
  if (Native != 0)
    DGLINK_TRY(Context->Impl->adoptEvent(Function, Native, Owned, Event->Impl, NativeQueue));
  // The event keeps the queue of its command, a dglink queue over the driver's, where
  // that queue can be one (an out-of-order queue cannot); else it is an event of no
  // queue, as a user event is. Nothing fails once the event is adopted: a failure would
  // release the caller's event, whose ownership a failed call does not take.
  pi_queue Queue = nullptr;
  if (NativeQueue != 0 &&
      queueFromNative(Function, NativeQueue, Context, nullptr, false, &Queue) == PI_SUCCESS) {
    Event->Queue = Queue; // the reference queueFromNative handed out is the event's
  } else {
    retain(Context);
  }
  *Out = Event.release();
  return PI_SUCCESS;
}

pi_result contextFromNative(const char *Function, uintptr_t Native, pi_uint32 NumDevices,
                            const pi_device *Devices, bool Owned, pi_context *Out) {
  if (NumDevices != 0 && Devices == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: {} devices, but the device list is null",
                        Function, NumDevices);
  std::unique_ptr<_pi_context> Context = makeHandle<_pi_context>();
  for (pi_uint32 I = 0; I < NumDevices; ++I) {
    DGLINK_TRY(checkHandle(Devices[I], PI_ERROR_INVALID_DEVICE, Function, "a device"));
    if (std::find(Context->Devices.begin(), Context->Devices.end(), Devices[I]) ==
        Context->Devices.end())
      Context->Devices.push_back(Devices[I]);
  }
  for (_pi_device *Device : Context->Devices)
    if (Device->Platform != Context->Devices[0]->Platform)
      return dglink::fail(PI_ERROR_INVALID_DEVICE,
                          "{}: devices '{}' and '{}' belong to different platforms", Function,
                          Context->Devices[0]->Description.Name, Device->Description.Name);
  if (!Context->Devices.empty())
    Context->Platform = Context->Devices[0]->Platform;
  DGLINK_TRY(backend().adoptContext(Function, Native, Owned, *Context, Context->Impl));
  *Out = Context.release();
  return PI_SUCCESS;
}

pi_result bufferFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                           pi_mem *Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  UsmAllocationInfo Usm;
  const bool IsUsm =
      Native != 0 && findUsmAllocation(*Context, reinterpret_cast<const void *>(Native), Usm);
  if (IsUsm && Owned) {
    // Ownership is of a whole allocation the caller made through the driver: one made
    // through the adapter stays the adapter's (urUSMFree frees it).
    bool Adapters = false;
    {
      const std::lock_guard<std::mutex> Lock(Context->UsmMutex);
      Adapters = Context->UsmAllocations.count(reinterpret_cast<uintptr_t>(Usm.Base)) != 0;
    }
    if (Adapters || Usm.Base != reinterpret_cast<void *>(Native))
      return dglink::fail(PI_ERROR_INVALID_VALUE,
                          "{}: native handle {:#x} {}: only the start of an allocation made "
                          "through the driver can be handed over (adopt it without ownership)",
                          Function, Native,
                          Adapters ? "is USM allocated through the adapter"
                                   : "lies inside a USM allocation");
  }
  std::unique_ptr<_pi_mem> Mem = makeHandle<_pi_mem>();
  Mem->Context = Context;
  Mem->Flags = PI_MEM_FLAGS_ACCESS_RW;
  DGLINK_TRY(Context->Impl->adoptBuffer(Function, Native, Owned, IsUsm ? &Usm : nullptr, Mem->Size,
                                        Mem->Impl));
  retain(Context);
  *Out = Mem.release();
  return PI_SUCCESS;
}

pi_result programFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                            pi_program *Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  std::unique_ptr<_pi_program> Program = makeHandle<_pi_program>();
  Program->Context = Context;
  DGLINK_TRY(Context->Impl->adoptProgram(Function, Native, Owned, *Program));
  // The driver's program as built as the hook found it: executable, a compiled object,
  // or (NONE) a program to build; its bytes are the driver's own.
  if (Program->BinaryType != PI_PROGRAM_BINARY_TYPE_NONE)
    Program->BuildStatus = PI_PROGRAM_BUILD_STATUS_SUCCESS;
  Program->Format = PI_DEVICE_BINARY_TYPE_NATIVE;
  if (Program->BinaryType == PI_PROGRAM_BINARY_TYPE_EXECUTABLE)
    Program->Executable.store(true, std::memory_order_release);
  retain(Context);
  *Out = Program.release();
  return PI_SUCCESS;
}

pi_result kernelFromNative(const char *Function, uintptr_t Native, pi_context Context,
                           pi_program Program, bool Owned, pi_kernel *Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  // Where the caller names no program, the driver's program of the kernel becomes one,
  // whose reference the kernel takes over below.
  pi_program Adopted = nullptr;
  if (Program == nullptr) {
    uintptr_t NativeProgram = 0;
    DGLINK_TRY(Context->Impl->programOfKernel(Function, Native, NativeProgram));
    DGLINK_TRY(programFromNative(Function, NativeProgram, Context, false, &Adopted));
    Program = Adopted;
  }
  pi_result Result = [&]() -> pi_result {
    DGLINK_TRY(checkHandle(Program, PI_ERROR_INVALID_PROGRAM, Function, "Program"));
    if (Program->Context != Context)
      return dglink::fail(PI_ERROR_INVALID_CONTEXT, "{}: the program belongs to another context",
                          Function);
    if (!Program->Executable.load(std::memory_order_acquire))
      return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                          "{}: program {} is not an executable (build it first)", Function,
                          fmt::ptr(Program));
    std::unique_ptr<_pi_kernel> Kernel = makeHandle<_pi_kernel>();
    Kernel->Program = Program;
    DGLINK_TRY(
        Program->Impl->adoptKernel(Function, Native, Owned, *Program, Kernel->Name, Kernel->Impl));
    if (Adopted == nullptr)
      retain(Program);
    Adopted = nullptr; // the kernel holds the adopted program's only reference
    *Out = Kernel.release();
    return PI_SUCCESS;
  }();
  if (Adopted != nullptr)
    release(Adopted);
  return Result;
}

} // namespace dglink::core
