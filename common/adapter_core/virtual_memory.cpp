// Virtual and physical memory (UR's urVirtualMem* / urPhysicalMem*, which PI has no
// words for), the context's own USM copy (urUSMContextMemcpyExp) and its deleters
// (urContextSetExtendedDeleter): the handles, the devices' support and the sizes checked
// once here, the driver's work in ContextImpl's hooks.
#include "entry.h"

#include <algorithm>
#include <utility>

using namespace dglink::core;

namespace dglink::core {

PhysicalMemImpl::~PhysicalMemImpl() = default;

namespace {

pi_result notServed(const char *Function) {
  return fail(PI_ERROR_UNSUPPORTED_FEATURE, "{}: the {} adapter serves no virtual memory", Function,
              adapterLabel());
}

// A device that must map virtual memory: one of the context's, with the driver's support.
pi_result checkVirtualDevice(const char *Function, const _pi_context &Context,
                             const _pi_device &Device) {
  if (!Context.hasDevice(&Device))
    return fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not a device of the context", Function,
                Device.Description.Name);
  if (!Device.Description.VirtualMemory)
    return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                "{}: device '{}' has no virtual memory (UR_DEVICE_INFO_VIRTUAL_MEMORY_SUPPORT "
                "is false)",
                Function, Device.Description.Name);
  return PI_SUCCESS;
}

// A context whose virtual ranges every device reaches: each device has virtual memory.
pi_result checkVirtualContext(const char *Function, pi_context Context) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "hContext"));
  for (const _pi_device *Device : Context->Devices)
    DGLINK_TRY(checkVirtualDevice(Function, *Context, *Device));
  return PI_SUCCESS;
}

// A virtual range's size: not 0 (the contract's BUFFER_SIZE; UR's face answers INVALID_SIZE).
pi_result checkRangeSize(const char *Function, size_t Size) {
  if (Size == 0)
    return fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: argument 'size' is 0", Function);
  return PI_SUCCESS;
}

} // namespace

pi_result ContextImpl::memoryGranularity(const char *Function, const _pi_device & /*Device*/,
                                         bool /*Recommended*/, size_t & /*Out*/) {
  return notServed(Function);
}
pi_result ContextImpl::reserveAddresses(const char *Function, const void * /*Hint*/,
                                        size_t /*Size*/, void *& /*Start*/) {
  return notServed(Function);
}
pi_result ContextImpl::freeAddresses(const char *Function, const void * /*Start*/,
                                     size_t /*Size*/) {
  return notServed(Function);
}
pi_result ContextImpl::createPhysicalMemory(const char *Function, _pi_device & /*Device*/,
                                            size_t /*Size*/, bool /*Shareable*/,
                                            std::unique_ptr<PhysicalMemImpl> & /*Impl*/) {
  return notServed(Function);
}
pi_result ContextImpl::mapAddresses(const char *Function, const void * /*Start*/, size_t /*Size*/,
                                    PhysicalMemImpl & /*Physical*/, size_t /*Offset*/) {
  return notServed(Function);
}
pi_result ContextImpl::unmapAddresses(const char *Function, const void * /*Start*/,
                                      size_t /*Size*/) {
  return notServed(Function);
}
pi_result ContextImpl::setAccess(const char *Function, const void * /*Start*/, size_t /*Size*/,
                                 VirtualAccess /*Access*/) {
  return notServed(Function);
}
pi_result ContextImpl::access(const char *Function, const void * /*Start*/,
                              VirtualAccess & /*Out*/) {
  return notServed(Function);
}

pi_result virtualMemGranularity(const char *Function, pi_context Context, pi_device Device,
                                bool Recommended, size_t &Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "hContext"));
  if (Device != nullptr) {
    DGLINK_TRY(checkHandle(Device, PI_ERROR_INVALID_DEVICE, Function, "hDevice"));
    DGLINK_TRY(checkVirtualDevice(Function, *Context, *Device));
    return Context->Impl->memoryGranularity(Function, *Device, Recommended, Out);
  }
  // Every device's granularity is a power of two: the largest is a multiple of each.
  DGLINK_TRY(checkVirtualContext(Function, Context));
  size_t Largest = 0;
  for (const _pi_device *Each : Context->Devices) {
    size_t Granularity = 0;
    DGLINK_TRY(Context->Impl->memoryGranularity(Function, *Each, Recommended, Granularity));
    Largest = std::max(Largest, Granularity);
  }
  Out = Largest;
  return PI_SUCCESS;
}

pi_result virtualMemReserve(const char *Function, pi_context Context, const void *Hint, size_t Size,
                            void *&Start) {
  DGLINK_TRY(checkVirtualContext(Function, Context));
  DGLINK_TRY(checkRangeSize(Function, Size));
  return Context->Impl->reserveAddresses(Function, Hint, Size, Start);
}

pi_result virtualMemFree(const char *Function, pi_context Context, const void *Start, size_t Size) {
  DGLINK_TRY(checkVirtualContext(Function, Context));
  DGLINK_TRY(checkRangeSize(Function, Size));
  return Context->Impl->freeAddresses(Function, Start, Size);
}

pi_result virtualMemMap(const char *Function, pi_context Context, const void *Start, size_t Size,
                        PhysicalMemory *Physical, size_t Offset, bool Apply, VirtualAccess Access) {
  DGLINK_TRY(checkVirtualContext(Function, Context));
  DGLINK_TRY(checkHandle(Physical, PI_ERROR_INVALID_MEM_OBJECT, Function, "hPhysicalMem"));
  DGLINK_TRY(checkRangeSize(Function, Size));
  if (Physical->Context != Context)
    return fail(PI_ERROR_INVALID_CONTEXT,
                "{}: the physical memory was made in another context than 'hContext'", Function);
  if (Offset > Physical->Size || Size > Physical->Size - Offset)
    return fail(PI_ERROR_INVALID_BUFFER_SIZE,
                "{}: {} bytes at offset {} pass the end of the {}-byte physical memory", Function,
                Size, Offset, Physical->Size);
  DGLINK_TRY(Context->Impl->mapAddresses(Function, Start, Size, *Physical->Impl, Offset));
  if (!Apply)
    return PI_SUCCESS;
  const pi_result Result = Context->Impl->setAccess(Function, Start, Size, Access);
  if (Result != PI_SUCCESS) {
    // The access's message stays the one the caller reads: a copy, since the undo may
    // set another.
    std::string Message = lastErrorMessage();
    (void)Context->Impl->unmapAddresses(Function, Start, Size);
    setLastError(Result, std::move(Message));
  }
  return Result;
}

pi_result virtualMemUnmap(const char *Function, pi_context Context, const void *Start,
                          size_t Size) {
  DGLINK_TRY(checkVirtualContext(Function, Context));
  DGLINK_TRY(checkRangeSize(Function, Size));
  return Context->Impl->unmapAddresses(Function, Start, Size);
}

pi_result virtualMemSetAccess(const char *Function, pi_context Context, const void *Start,
                              size_t Size, VirtualAccess Access) {
  DGLINK_TRY(checkVirtualContext(Function, Context));
  DGLINK_TRY(checkRangeSize(Function, Size));
  return Context->Impl->setAccess(Function, Start, Size, Access);
}

pi_result virtualMemAccess(const char *Function, pi_context Context, const void *Start,
                           VirtualAccess &Out) {
  DGLINK_TRY(checkVirtualContext(Function, Context));
  return Context->Impl->access(Function, Start, Out);
}

pi_result physicalMemCreate(const char *Function, pi_context Context, pi_device Device, size_t Size,
                            bool Shareable, PhysicalMemory *&Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "hContext"));
  DGLINK_TRY(checkHandle(Device, PI_ERROR_INVALID_DEVICE, Function, "hDevice"));
  DGLINK_TRY(checkVirtualDevice(Function, *Context, *Device));
  size_t Granularity = 0;
  DGLINK_TRY(Context->Impl->memoryGranularity(Function, *Device, false, Granularity));
  if (Size == 0 || (Granularity != 0 && Size % Granularity != 0))
    return fail(PI_ERROR_INVALID_BUFFER_SIZE,
                "{}: size {} is not a multiple of the device's minimum granularity {}", Function,
                Size, Granularity);
  std::unique_ptr<PhysicalMemory> Physical = makeHandle<PhysicalMemory>();
  DGLINK_TRY(
      Context->Impl->createPhysicalMemory(Function, *Device, Size, Shareable, Physical->Impl));
  Physical->Context = Context;
  Physical->Device = Device;
  Physical->Size = Size;
  Physical->Shareable = Shareable;
  retain(Context);
  Out = Physical.release();
  return PI_SUCCESS;
}

pi_result addContextDeleter(const char *Function, pi_context Context, void (*Deleter)(void *),
                            void *Data) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "hContext"));
  const std::lock_guard<std::mutex> Lock(Context->DeleterMutex);
  Context->Deleters.emplace_back(Deleter, Data);
  return PI_SUCCESS;
}

pi_result usmContextCopy(const char *Function, pi_context Context, void *Dst, const void *Src,
                         size_t Size) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "hContext"));
  // The device whose memory is copied, where the core or the driver knows one.
  _pi_device *Device = Context->Devices.front();
  for (const void *Pointer : {static_cast<const void *>(Dst), Src}) {
    UsmAllocationInfo Allocation;
    if (findUsmAllocation(*Context, Pointer, Allocation) && Allocation.Device != nullptr &&
        Context->hasDevice(Allocation.Device)) {
      Device = Allocation.Device;
      break;
    }
  }
  pi_queue Queue = nullptr;
  DGLINK_TRY(piQueueCreate(Context, Device, 0, &Queue));
  const pi_result Result =
      piextUSMEnqueueMemcpy(Queue, PI_TRUE, Dst, Src, Size, 0, nullptr, nullptr);
  const std::string Message = Result != PI_SUCCESS ? lastErrorMessage() : std::string();
  release(Queue); // waits for nothing: the copy blocked
  if (Result != PI_SUCCESS)
    setLastError(Result, fmt::format("{}: {}", Function, Message));
  return Result;
}

} // namespace dglink::core
