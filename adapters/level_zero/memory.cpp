// Memory: buffers (device USM that every device of the context reaches, else host USM)
// and USM (zeMemAlloc{Device,Host,Shared} on the device asked for).
#include "backend.h"

#include <cstdint>

namespace dglink::level_zero {

ZeMem::~ZeMem() {
  if (Owned)
    ze().zeMemFree(Context.Context, Pointer);
  if (ImportedBy != nullptr)
    ImportedBy->unimport(Import);
}

bool ZeContext::usmPointerInfo(const void *Pointer, core::UsmAllocationInfo &Out) {
  ze_memory_allocation_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ze_device_handle_t Owner = nullptr;
  void *Base = nullptr;
  size_t Size = 0;
  if (ze().zeMemGetAllocProperties(Context, Pointer, &Properties, &Owner) != ZE_RESULT_SUCCESS ||
      ze().zeMemGetAddressRange(Context, Pointer, &Base, &Size) != ZE_RESULT_SUCCESS)
    return false;
  core::UsmKind Kind;
  switch (Properties.type) {
  case ZE_MEMORY_TYPE_HOST:
    Kind = core::UsmKind::Host;
    break;
  case ZE_MEMORY_TYPE_DEVICE:
    Kind = core::UsmKind::Device;
    break;
  case ZE_MEMORY_TYPE_SHARED:
    Kind = core::UsmKind::Shared;
    break;
  default:
    return false;
  }
  _pi_device *Device = nullptr;
  for (_pi_device *Each : Devices)
    if (Owner != nullptr && zeDevice(*Each).Device == Owner)
      Device = Each;
  if (Kind != core::UsmKind::Host && Device == nullptr)
    return false; // another context's device: not this context's USM
  Out = core::UsmAllocationInfo{Base, Size, Kind, Device, nullptr};
  return true;
}

pi_result ZeContext::adoptBuffer(const char *Function, uintptr_t Native, bool Owned,
                                 const core::UsmAllocationInfo *Usm, size_t &Size,
                                 std::unique_ptr<core::MemImpl> &Impl) {
  if (Usm == nullptr)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no USM allocation of the context (a Level Zero "
                "buffer is its memory's address)",
                Function, Native);
  Impl = std::make_unique<ZeMem>(*this, reinterpret_cast<void *>(Native), Owned);
  Size = static_cast<size_t>(static_cast<char *>(Usm->Base) + Usm->Size -
                             reinterpret_cast<char *>(Native));
  return PI_SUCCESS;
}

// The caller's memory itself, as a device address: host or shared USM of the context
// (the buffer is that memory), else memory the driver imports (Intel's
// zexDriverImportExternalPointer: Level Zero's core API has no such call).
pi_result ZeContext::createHostBuffer(pi_mem_flags, size_t Size, void *Host,
                                      std::unique_ptr<core::MemImpl> &Impl) {
  core::UsmAllocationInfo Usm;
  if (usmPointerInfo(Host, Usm) && Usm.Kind != core::UsmKind::Device &&
      static_cast<char *>(Host) + Size <= static_cast<char *>(Usm.Base) + Usm.Size) {
    Impl = std::make_unique<ZeMem>(*this, Host, false);
    return PI_SUCCESS;
  }
  const auto &Platform = static_cast<const ZePlatform &>(*first().Platform->Impl);
  if (Platform.ImportPointer == nullptr)
    return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                "piMemBufferCreate: this Level Zero driver cannot use the caller's memory "
                "(PI_MEM_FLAGS_HOST_PTR_USE): it is no host USM of the context and the driver "
                "has no zexDriverImportExternalPointer; PI_MEM_FLAGS_HOST_PTR_COPY copies it");
  auto Made = std::make_unique<ZeMem>(*this, Host, false);
  auto &Importer = static_cast<ZePlatform &>(*first().Platform->Impl);
  DGLINK_TRY(Importer.import(Host, Size, Made->Import));
  Made->ImportedBy = &Importer;
  Impl = std::move(Made);
  return PI_SUCCESS;
}

pi_result ZePlatform::import(void *Host, size_t Size, void *&Base) {
  const auto Start = reinterpret_cast<uintptr_t>(Host);
  std::lock_guard<std::mutex> Lock(ImportsMutex);
  auto After = Imports.upper_bound(Start);
  if (After != Imports.begin()) {
    auto Holder = std::prev(After);
    if (Start - Holder->first < Holder->second.Size) {
      if (Start + Size <= Holder->first + Holder->second.Size) {
        ++Holder->second.Users; // inside an import: one more buffer over it
        Base = reinterpret_cast<void *>(Holder->first);
        return PI_SUCCESS;
      }
      After = Holder; // overlaps its end
    }
  }
  if (After != Imports.end() && After->first < Start + Size)
    return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                "piMemBufferCreate: host memory [{:#x}, {:#x}) overlaps memory imported for "
                "another USE_HOST_POINTER buffer only in part, which the Level Zero driver "
                "cannot import",
                Start, Start + Size);
  const ze_result_t Result = ImportPointer(Driver, Host, Size);
  if (Result != ZE_RESULT_SUCCESS)
    return zeError(Result, "zexDriverImportExternalPointer");
  Imports[Start] = Import{Size, 1};
  Base = Host;
  return PI_SUCCESS;
}

void ZePlatform::unimport(void *Base) {
  std::lock_guard<std::mutex> Lock(ImportsMutex);
  auto It = Imports.find(reinterpret_cast<uintptr_t>(Base));
  if (It == Imports.end() || --It->second.Users != 0)
    return;
  Imports.erase(It);
  ReleaseImported(Driver, Base);
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
