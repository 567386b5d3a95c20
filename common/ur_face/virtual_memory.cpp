// Virtual and physical memory (urVirtualMem*, urPhysicalMem*) and the context's own USM
// copy (urUSMContextMemcpyExp) through UR: UR's argument checks, then the core's
// (common/adapter_core/virtual_memory.cpp), which calls the backend's hooks.
#include "entry_points.h"

namespace dglink::ur {

namespace {

// The core answers a size it refuses (0, not a multiple of the granularity, past the
// physical memory) with the contract's BUFFER_SIZE; UR's spec names it INVALID_SIZE here.
ur_result_t sizeResult(pi_result Result) {
  return Result == PI_ERROR_INVALID_BUFFER_SIZE ? UR_RESULT_ERROR_INVALID_SIZE : toUr(Result);
}

// UR's access flags, undefined bits refused before: READ_WRITE before READ_ONLY, NONE
// (or no bit) none.
core::VirtualAccess accessOf(ur_virtual_mem_access_flags_t Flags) {
  if ((Flags & UR_VIRTUAL_MEM_ACCESS_FLAG_READ_WRITE) != 0)
    return core::VirtualAccess::ReadWrite;
  if ((Flags & UR_VIRTUAL_MEM_ACCESS_FLAG_READ_ONLY) != 0)
    return core::VirtualAccess::ReadOnly;
  return core::VirtualAccess::None;
}

ur_virtual_mem_access_flags_t flagsOf(core::VirtualAccess Access) {
  switch (Access) {
  case core::VirtualAccess::ReadWrite:
    return UR_VIRTUAL_MEM_ACCESS_FLAG_READ_WRITE;
  case core::VirtualAccess::ReadOnly:
    return UR_VIRTUAL_MEM_ACCESS_FLAG_READ_ONLY;
  case core::VirtualAccess::None:
    break;
  }
  return UR_VIRTUAL_MEM_ACCESS_FLAG_NONE;
}

#define DGLINK_UR_ACCESS_FLAGS(Flags)                                                              \
  do {                                                                                             \
    if (((Flags)&UR_VIRTUAL_MEM_ACCESS_FLAGS_MASK) != 0)                                           \
      return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'flags' {:#x} has undefined bits",   \
                    __func__, static_cast<uint32_t>(Flags));                                       \
  } while (0)

} // namespace

ur_result_t urVirtualMemGranularityGetInfo(ur_context_handle_t hContext, ur_device_handle_t hDevice,
                                           size_t /*allocationSize*/,
                                           ur_virtual_mem_granularity_info_t propName,
                                           size_t propSize, void *pPropValue,
                                           size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  if (propName != UR_VIRTUAL_MEM_GRANULARITY_INFO_MINIMUM &&
      propName != UR_VIRTUAL_MEM_GRANULARITY_INFO_RECOMMENDED)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'propName' {:#x} is no granularity",
                  __func__, static_cast<uint32_t>(propName));
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  // The drivers' granularities do not depend on the size asked for.
  size_t Granularity = 0;
  DGLINK_UR_TRY(core::virtualMemGranularity(__func__, core(hContext), core(hDevice),
                                            propName == UR_VIRTUAL_MEM_GRANULARITY_INFO_RECOMMENDED,
                                            Granularity));
  return Answer.value(Granularity);
}
DGLINK_UR_CATCH_ALL

ur_result_t urVirtualMemReserve(ur_context_handle_t hContext, const void *pStart, size_t size,
                                void **ppStart) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(ppStart);
  void *Start = nullptr;
  if (const pi_result Result =
          core::virtualMemReserve(__func__, core(hContext), pStart, size, Start);
      Result != PI_SUCCESS)
    return sizeResult(Result);
  *ppStart = Start;
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urVirtualMemFree(ur_context_handle_t hContext, const void *pStart, size_t size) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pStart);
  return sizeResult(core::virtualMemFree(__func__, core(hContext), pStart, size));
}
DGLINK_UR_CATCH_ALL

ur_result_t urVirtualMemMap(ur_context_handle_t hContext, const void *pStart, size_t size,
                            ur_physical_mem_handle_t hPhysicalMem, size_t offset,
                            ur_virtual_mem_access_flags_t flags) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_HANDLE(hPhysicalMem);
  DGLINK_UR_NOT_NULL_POINTER(pStart);
  DGLINK_UR_ACCESS_FLAGS(flags);
  return sizeResult(core::virtualMemMap(__func__, core(hContext), pStart, size, core(hPhysicalMem),
                                        offset, flags != 0, accessOf(flags)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urVirtualMemUnmap(ur_context_handle_t hContext, const void *pStart, size_t size) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pStart);
  return sizeResult(core::virtualMemUnmap(__func__, core(hContext), pStart, size));
}
DGLINK_UR_CATCH_ALL

ur_result_t urVirtualMemSetAccess(ur_context_handle_t hContext, const void *pStart, size_t size,
                                  ur_virtual_mem_access_flags_t flags) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pStart);
  DGLINK_UR_ACCESS_FLAGS(flags);
  return sizeResult(
      core::virtualMemSetAccess(__func__, core(hContext), pStart, size, accessOf(flags)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urVirtualMemGetInfo(ur_context_handle_t hContext, const void *pStart, size_t /*size*/,
                                ur_virtual_mem_info_t propName, size_t propSize, void *pPropValue,
                                size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pStart);
  if (propName != UR_VIRTUAL_MEM_INFO_ACCESS_MODE)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION,
                  "{}: 'propName' {:#x} is no virtual memory query", __func__,
                  static_cast<uint32_t>(propName));
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  core::VirtualAccess Access = core::VirtualAccess::None;
  DGLINK_UR_TRY(core::virtualMemAccess(__func__, core(hContext), pStart, Access));
  return Answer.value(flagsOf(Access));
}
DGLINK_UR_CATCH_ALL

ur_result_t urPhysicalMemCreate(ur_context_handle_t hContext, ur_device_handle_t hDevice,
                                size_t size, const ur_physical_mem_properties_t *pProperties,
                                ur_physical_mem_handle_t *phPhysicalMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_NOT_NULL_POINTER(phPhysicalMem);
  const ur_physical_mem_flags_t Flags = pProperties != nullptr ? pProperties->flags : 0;
  if ((Flags & UR_PHYSICAL_MEM_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION,
                  "{}: 'pProperties->flags' {:#x} has undefined bits", __func__, Flags);
  core::PhysicalMemory *Physical = nullptr;
  if (const pi_result Result =
          core::physicalMemCreate(__func__, core(hContext), core(hDevice), size,
                                  (Flags & UR_PHYSICAL_MEM_FLAG_ENABLE_IPC) != 0, Physical);
      Result != PI_SUCCESS)
    return sizeResult(Result);
  *phPhysicalMem = face(Physical);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urPhysicalMemRetain(ur_physical_mem_handle_t hPhysicalMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hPhysicalMem);
  DGLINK_UR_CHECK(hPhysicalMem, PI_ERROR_INVALID_MEM_OBJECT);
  core::retain(core(hPhysicalMem));
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urPhysicalMemRelease(ur_physical_mem_handle_t hPhysicalMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hPhysicalMem);
  DGLINK_UR_CHECK(hPhysicalMem, PI_ERROR_INVALID_MEM_OBJECT);
  core::release(core(hPhysicalMem));
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urPhysicalMemGetInfo(ur_physical_mem_handle_t hPhysicalMem,
                                 ur_physical_mem_info_t propName, size_t propSize, void *pPropValue,
                                 size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hPhysicalMem);
  DGLINK_UR_CHECK(hPhysicalMem, PI_ERROR_INVALID_MEM_OBJECT);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const core::PhysicalMemory &Physical = *core(hPhysicalMem);
  switch (propName) {
  case UR_PHYSICAL_MEM_INFO_CONTEXT:
    return Answer.value(face(Physical.Context));
  case UR_PHYSICAL_MEM_INFO_DEVICE:
    return Answer.value(face(Physical.Device));
  case UR_PHYSICAL_MEM_INFO_SIZE:
    return Answer.value(Physical.Size);
  case UR_PHYSICAL_MEM_INFO_PROPERTIES: {
    // What the caller's properties said: their flags (the chain is not kept).
    const ur_physical_mem_properties_t Properties{
        UR_STRUCTURE_TYPE_PHYSICAL_MEM_PROPERTIES, nullptr,
        Physical.Shareable ? ur_physical_mem_flags_t{UR_PHYSICAL_MEM_FLAG_ENABLE_IPC} : 0};
    return Answer.value(Properties);
  }
  case UR_PHYSICAL_MEM_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{Physical.RefCount.load()});
  default:
    break;
  }
  if (propName > UR_PHYSICAL_MEM_INFO_REFERENCE_COUNT)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION,
                  "{}: 'propName' {:#x} is no physical memory query", __func__,
                  static_cast<uint32_t>(propName));
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// A blocking copy with no queue of the caller's: the core's, on every backend
// (core::usmContextCopy). UR_DEVICE_INFO_USM_CONTEXT_MEMCPY_SUPPORT_EXP is true everywhere.
ur_result_t urUSMContextMemcpyExp(ur_context_handle_t hContext, void *pDst, const void *pSrc,
                                  size_t size) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  if (size == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'size' is 0", __func__);
  DGLINK_UR_CORE(core::usmContextCopy(__func__, core(hContext), pDst, pSrc, size));
}
DGLINK_UR_CATCH_ALL

} // namespace dglink::ur
