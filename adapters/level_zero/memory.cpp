// Memory: buffers (device USM that every device of the context reaches, else host USM)
// and USM (zeMemAlloc{Device,Host,Shared} on the device asked for).
#include "backend.h"

#include <cstdint>

namespace dglink::level_zero {

ZeMem::~ZeMem() {
  if (Owned)
    ze().zeMemFree(Context.Context, Pointer);
}

// Level Zero 1.8 has no core call that makes the caller's memory reachable by a device
// (Intel's drivers have the zexDriverImportExternalPointer extension, which the loader
// does not export).
pi_result ZeContext::createHostBuffer(pi_mem_flags, size_t, void *,
                                      std::unique_ptr<core::MemImpl> &) {
  return fail(PI_ERROR_UNSUPPORTED_FEATURE,
              "piMemBufferCreate: Level Zero has no way to use the caller's memory "
              "(PI_MEM_FLAGS_HOST_PTR_USE); PI_MEM_FLAGS_HOST_PTR_COPY copies it");
}

pi_result ZeContext::createSubBuffer(_pi_mem &Parent, pi_mem_flags, size_t Origin, size_t,
                                     std::unique_ptr<core::MemImpl> &Impl) {
  Impl = std::make_unique<ZeMem>(
      *this, static_cast<char *>(static_cast<ZeMem &>(*Parent.Impl).Pointer) + Origin, false);
  return PI_SUCCESS;
}

pi_result ZeContext::createBuffer(size_t Size, const void *CopyFrom,
                                  std::unique_ptr<core::MemImpl> &Impl) {
  void *Pointer = nullptr;
  if (BufferDevice != nullptr) {
    ze_device_mem_alloc_desc_t Desc = {};
    Desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
    DGLINK_ZE(zeMemAllocDevice, Context, &Desc, Size, 0, BufferDevice, &Pointer);
  } else {
    ze_host_mem_alloc_desc_t Desc = {};
    Desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    DGLINK_ZE(zeMemAllocHost, Context, &Desc, Size, 0, &Pointer);
  }
  auto Mem = std::make_unique<ZeMem>(*this, Pointer); // frees the memory on failure
  if (CopyFrom != nullptr) {
    ze_event_handle_t Done = nullptr;
    DGLINK_TRY(acquireEvent(Done));
    ze_result_t Copied = ZE_RESULT_SUCCESS;
    {
      std::lock_guard<std::mutex> Lock(InitMutex);
      Copied =
          ze().zeCommandListAppendMemoryCopy(InitList, Pointer, CopyFrom, Size, Done, 0, nullptr);
      if (Copied == ZE_RESULT_SUCCESS)
        Copied = ze().zeEventHostSynchronize(Done, UINT64_MAX);
    }
    recycleEvent(Done);
    if (Copied != ZE_RESULT_SUCCESS)
      return zeError(Copied, "zeCommandListAppendMemoryCopy (buffer initial contents)");
  }
  Impl = std::move(Mem);
  return PI_SUCCESS;
}

pi_result ZeContext::allocateUsm(core::UsmKind Kind, _pi_device *For, size_t Size,
                                 pi_uint32 Alignment, void *&Pointer) {
  ze_device_mem_alloc_desc_t DeviceDesc = {};
  DeviceDesc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  ze_host_mem_alloc_desc_t HostDesc = {};
  HostDesc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  switch (Kind) {
  case core::UsmKind::Host:
    DGLINK_ZE(zeMemAllocHost, Context, &HostDesc, Size, Alignment, &Pointer);
    break;
  case core::UsmKind::Device:
    DGLINK_ZE(zeMemAllocDevice, Context, &DeviceDesc, Size, Alignment, zeDevice(*For).Device,
              &Pointer);
    break;
  case core::UsmKind::Shared:
    DGLINK_ZE(zeMemAllocShared, Context, &DeviceDesc, &HostDesc, Size, Alignment,
              zeDevice(*For).Device, &Pointer);
    break;
  }
  return PI_SUCCESS;
}

pi_result ZeContext::freeUsm(void *Pointer) {
  const ze_result_t Result = ze().zeMemFree(Context, Pointer);
  if (Result == ZE_RESULT_ERROR_INVALID_ARGUMENT)
    return fail(PI_ERROR_INVALID_VALUE,
                "piextUSMFree: {} is not a USM allocation of the Level Zero adapter",
                fmt::ptr(Pointer));
  if (Result != ZE_RESULT_SUCCESS)
    return zeError(Result, "zeMemFree");
  return PI_SUCCESS;
}

} // namespace dglink::level_zero
