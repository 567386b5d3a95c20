// What USM pointers are (piextUSMGetMemAllocInfo, urUSMGetMemAllocInfo) and the USM
// hints (urEnqueueUSMPrefetch, urEnqueueUSMAdvise): the core's records of the
// allocations made through each context first, then what the driver knows.
#include "entry.h"

#include <iterator>

using namespace dglink::core;

namespace dglink::core {

void recordUsmAllocation(_pi_context &Context, void *Pointer, size_t Size, UsmKind Kind,
                         _pi_device *Device) {
  const std::lock_guard<std::mutex> Lock(Context.UsmMutex);
  Context.UsmAllocations[reinterpret_cast<uintptr_t>(Pointer)] = UsmRecord{Size, Kind, Device};
}

std::optional<UsmRecord> forgetUsmAllocation(_pi_context &Context, void *Pointer) {
  const std::lock_guard<std::mutex> Lock(Context.UsmMutex);
  auto Node = Context.UsmAllocations.extract(reinterpret_cast<uintptr_t>(Pointer));
  if (Node.empty())
    return std::nullopt;
  return Node.mapped();
}

void restoreUsmAllocation(_pi_context &Context, void *Pointer, const UsmRecord &Record) {
  const std::lock_guard<std::mutex> Lock(Context.UsmMutex);
  Context.UsmAllocations.emplace(reinterpret_cast<uintptr_t>(Pointer), Record);
}

bool findUsmAllocation(_pi_context &Context, const void *Pointer, UsmAllocationInfo &Out) {
  const auto Address = reinterpret_cast<uintptr_t>(Pointer);
  {
    const std::lock_guard<std::mutex> Lock(Context.UsmMutex);
    auto After = Context.UsmAllocations.upper_bound(Address);
    if (After != Context.UsmAllocations.begin()) {
      const auto &[Start, Record] = *std::prev(After);
      if (Address - Start < Record.Size) {
        Out = UsmAllocationInfo{reinterpret_cast<void *>(Start), Record.Size, Record.Kind,
                                Record.Device, Record.Pool};
        return true;
      }
    }
    // Memory a pool holds but has not handed out: no allocation, whatever the driver
    // says of the block.
    auto Block = Context.UsmPoolBlocks.upper_bound(Address);
    if (Block != Context.UsmPoolBlocks.begin() &&
        Address - std::prev(Block)->first < std::prev(Block)->second.Size)
      return false;
  }
  return Context.Impl->usmPointerInfo(Pointer, Out);
}

bool ContextImpl::usmPointerInfo(const void * /*Pointer*/, UsmAllocationInfo & /*Out*/) {
  return false;
}

pi_result QueueImpl::usmPrefetch(const void * /*Ptr*/, size_t /*Size*/, UsmMigration /*To*/,
                                 const Enqueue &Request) {
  return marker(false, Request);
}

pi_result QueueImpl::usmAdvise(const void * /*Ptr*/, size_t /*Size*/, uint32_t /*Advice*/,
                               const Enqueue &Request) {
  return marker(false, Request);
}

// The range of a USM hint: inside one allocation of the context.
pi_result checkUsmRange(const char *Function, _pi_context &Context, const void *Ptr, size_t Size) {
  if (Ptr == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument 'Ptr' is null", Function);
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: argument 'Size' is 0", Function);
  UsmAllocationInfo Allocation;
  if (!findUsmAllocation(Context, Ptr, Allocation))
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: pointer {} is no USM allocation of the context", Function,
                        fmt::ptr(Ptr));
  const size_t Offset =
      reinterpret_cast<uintptr_t>(Ptr) - reinterpret_cast<uintptr_t>(Allocation.Base);
  if (Size > Allocation.Size - Offset)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE,
                        "{}: {} bytes at offset {} pass the end of the {}-byte {} allocation at {}",
                        Function, Size, Offset, Allocation.Size, usmKindName(Allocation.Kind),
                        fmt::ptr(Allocation.Base));
  return PI_SUCCESS;
}

pi_result enqueueUsmPrefetch(const char *Function, pi_queue Queue, const void *Ptr, size_t Size,
                             UsmMigration To, pi_uint32 NumWaits, const pi_event *Waits,
                             pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkUsmRange(Function, *Queue->Context, Ptr, Size));
  DGLINK_TRY(checkWaitList(NumWaits, Waits));
  // OpenCL's numbering has no prefetch command: UR's USM_PREFETCH comes from the face.
  return submit(
      *Queue, PI_COMMAND_TYPE_USM_PREFETCH, NumWaits, Waits, false, Event,
      [&](const Enqueue &Request) { return Queue->Impl->usmPrefetch(Ptr, Size, To, Request); });
}

pi_result enqueueUsmAdvise(const char *Function, pi_queue Queue, const void *Ptr, size_t Size,
                           uint32_t Advice, pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkUsmRange(Function, *Queue->Context, Ptr, Size));
  return submit(
      *Queue, PI_COMMAND_TYPE_USM_ADVISE, 0, nullptr, false, Event,
      [&](const Enqueue &Request) { return Queue->Impl->usmAdvise(Ptr, Size, Advice, Request); });
}

} // namespace dglink::core

extern "C" {

// A pointer that is no USM of the context answers PI_MEM_TYPE_UNKNOWN (a null base and
// device, size 0), as DPC++'s get_pointer_type expects; it is no error.
PI_API_EXPORT pi_result piextUSMGetMemAllocInfo(pi_context Context, const void *Ptr,
                                                pi_mem_alloc_info ParamName, size_t ParamValueSize,
                                                void *ParamValue, size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  if (ParamName < PI_MEM_ALLOC_TYPE || ParamName > PI_MEM_ALLOC_DEVICE)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piextUSMGetMemAllocInfo: unknown parameter {:#x}",
                        static_cast<unsigned>(ParamName));
  UsmAllocationInfo Allocation;
  const bool Known = findUsmAllocation(*Context, Ptr, Allocation);
  auto Value = [&](auto V) {
    return dglink::returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  switch (ParamName) {
  case PI_MEM_ALLOC_TYPE: {
    pi_usm_type Type = PI_MEM_TYPE_UNKNOWN;
    if (Known)
      Type = Allocation.Kind == UsmKind::Host     ? PI_MEM_TYPE_HOST
             : Allocation.Kind == UsmKind::Device ? PI_MEM_TYPE_DEVICE
                                                  : PI_MEM_TYPE_SHARED;
    return Value(Type);
  }
  case PI_MEM_ALLOC_BASE_PTR:
    return Value(Allocation.Base);
  case PI_MEM_ALLOC_SIZE:
    return Value(Allocation.Size);
  case PI_MEM_ALLOC_DEVICE:
    return Value(static_cast<pi_device>(Allocation.Device));
  }
  return PI_ERROR_INVALID_VALUE; // unreachable: checked above
}
DGLINK_CATCH_ALL

} // extern "C"
