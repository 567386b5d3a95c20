// Contexts, queues, buffers and USM allocations through UR: UR's arguments turned into
// the core's, checked and served by the core.
#include "entry_points.h"

#include <algorithm>

namespace dglink::ur {

// ---- context ----

ur_result_t urContextCreate(uint32_t DeviceCount, const ur_device_handle_t *phDevices,
                            const ur_context_properties_t *pProperties,
                            ur_context_handle_t *phContext) try {
  DGLINK_UR_NOT_NULL_POINTER(phDevices);
  DGLINK_UR_NOT_NULL_POINTER(phContext);
  if (DeviceCount == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: 'DeviceCount' is 0", __func__);
  if (pProperties != nullptr && pProperties->flags != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: context flags {:#x} are not defined",
                  __func__, static_cast<unsigned>(pProperties->flags));
  pi_context Context = nullptr;
  DGLINK_UR_TRY(piContextCreate(nullptr, DeviceCount, core(phDevices), &Context));
  *phContext = face(Context);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urContextRetain(ur_context_handle_t hContext) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_CORE(piContextRetain(core(hContext)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urContextRelease(ur_context_handle_t hContext) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_CORE(piContextRelease(core(hContext)));
}
DGLINK_UR_CATCH_ALL

// The deleter runs when the context is destroyed: at the last release, which a queue,
// buffer or program of the context may hold after the caller's (core::release).
ur_result_t urContextSetExtendedDeleter(ur_context_handle_t hContext,
                                        ur_context_extended_deleter_t pfnDeleter,
                                        void *pUserData) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pfnDeleter);
  DGLINK_UR_CORE(core::addContextDeleter(__func__, core(hContext), pfnDeleter, pUserData));
}
DGLINK_UR_CATCH_ALL

ur_result_t urContextGetInfo(ur_context_handle_t hContext, ur_context_info_t propName,
                             size_t propSize, void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_CHECK(hContext, PI_ERROR_INVALID_CONTEXT);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const _pi_context &Context = *core(hContext);
  switch (propName) {
  case UR_CONTEXT_INFO_NUM_DEVICES:
    return Answer.value(static_cast<uint32_t>(Context.Devices.size()));
  case UR_CONTEXT_INFO_DEVICES:
    return Answer.array(Context.Devices);
  case UR_CONTEXT_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{Context.RefCount.load()});
  case UR_CONTEXT_INFO_USM_MEMCPY2D_SUPPORT:
  case UR_CONTEXT_INFO_USM_FILL2D_SUPPORT:
    // The core serves 2D copies and fills on every backend (core::enqueueUsmCopy2D):
    // wherever a device of the context has USM to copy or fill.
    return Answer.boolean(
        std::any_of(Context.Devices.begin(), Context.Devices.end(), [](const _pi_device *Device) {
          return Device->Description.Usm != PI_USM_MECHANISM_NONE;
        }));
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// ---- queue ----

ur_result_t urQueueCreate(ur_context_handle_t hContext, ur_device_handle_t hDevice,
                          const ur_queue_properties_t *pProperties,
                          ur_queue_handle_t *phQueue) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_NOT_NULL_POINTER(phQueue);
  const ur_queue_flags_t Flags = pProperties != nullptr ? pProperties->flags : 0;
  if ((Flags & UR_QUEUE_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: queue flags {:#x} are not defined",
                  __func__, static_cast<unsigned>(Flags));
  if ((Flags & (UR_QUEUE_FLAG_ON_DEVICE | UR_QUEUE_FLAG_ON_DEVICE_DEFAULT)) != 0)
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE, "{}: no backend has on-device queues",
                  __func__);
  // Queues are in order, which serves an out-of-order request too; the other flags
  // (priorities, batching, streams, discarded events) are hints.
  const pi_queue_properties Properties =
      (Flags & UR_QUEUE_FLAG_PROFILING_ENABLE) != 0 ? PI_QUEUE_FLAG_PROFILING_ENABLE : 0;
  pi_queue Queue = nullptr;
  DGLINK_UR_TRY(piQueueCreate(core(hContext), core(hDevice), Properties, &Queue));
  *phQueue = face(Queue);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urQueueRetain(ur_queue_handle_t hQueue) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_CORE(piQueueRetain(core(hQueue)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urQueueRelease(ur_queue_handle_t hQueue) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_CORE(piQueueRelease(core(hQueue)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urQueueGetInfo(ur_queue_handle_t hQueue, ur_queue_info_t propName, size_t propSize,
                           void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_CHECK(hQueue, PI_ERROR_INVALID_QUEUE);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const _pi_queue &Queue = *core(hQueue);
  switch (propName) {
  case UR_QUEUE_INFO_CONTEXT:
    return Answer.value(face(Queue.Context));
  case UR_QUEUE_INFO_DEVICE:
    return Answer.value(face(Queue.Device));
  case UR_QUEUE_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{Queue.RefCount.load()});
  case UR_QUEUE_INFO_FLAGS:
    return Answer.value(static_cast<ur_queue_flags_t>(
        (Queue.Properties & PI_QUEUE_FLAG_PROFILING_ENABLE) != 0 ? UR_QUEUE_FLAG_PROFILING_ENABLE
                                                                 : 0));
  case UR_QUEUE_INFO_EMPTY: {
    pi_bool Empty = PI_FALSE;
    DGLINK_UR_TRY(
        piQueueGetInfo(core(hQueue), PI_EXT_QUEUE_INFO_EMPTY, sizeof(Empty), &Empty, nullptr));
    return Answer.boolean(Empty != PI_FALSE);
  }
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

ur_result_t urQueueFinish(ur_queue_handle_t hQueue) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_CORE(piQueueFinish(core(hQueue)));
}
DGLINK_UR_CATCH_ALL

// Commands are submitted when they are enqueued: a flush only checks the queue.
ur_result_t urQueueFlush(ur_queue_handle_t hQueue) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_CHECK(hQueue, PI_ERROR_INVALID_QUEUE);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

// ---- buffers ----

namespace {

// UR's access flags in PI's (OpenCL's) numbering; more than one is the core's to refuse.
pi_mem_flags accessFlags(ur_mem_flags_t Flags) {
  return ((Flags & UR_MEM_FLAG_READ_WRITE) != 0 ? PI_MEM_FLAGS_ACCESS_RW : 0) |
         ((Flags & UR_MEM_FLAG_READ_ONLY) != 0 ? PI_MEM_FLAGS_ACCESS_READ_ONLY : 0) |
         ((Flags & UR_MEM_FLAG_WRITE_ONLY) != 0 ? PI_MEM_FLAGS_ACCESS_WRITE_ONLY : 0);
}

} // namespace

ur_result_t urMemBufferCreate(ur_context_handle_t hContext, ur_mem_flags_t flags, size_t size,
                              const ur_buffer_properties_t *pProperties,
                              ur_mem_handle_t *phBuffer) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phBuffer);
  if ((flags & UR_MEM_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: memory flags {:#x} are not valid",
                  __func__, static_cast<unsigned>(flags));
  if (flags == 0) // what UR's adapters and its CTS (memory-migrate) take 0 for
    flags = UR_MEM_FLAG_READ_WRITE;
  if (size == 0)
    return failUr(UR_RESULT_ERROR_INVALID_BUFFER_SIZE, "{}: argument 'size' is 0", __func__);
  void *Host = pProperties != nullptr ? pProperties->pHost : nullptr;
  const bool CopyHost = (flags & UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER) != 0;
  const bool UseHost = (flags & UR_MEM_FLAG_USE_HOST_POINTER) != 0;
  if ((CopyHost || UseHost) != (Host != nullptr))
    return failUr(UR_RESULT_ERROR_INVALID_HOST_PTR,
                  "{}: 'pHost' must be given exactly when UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER or "
                  "UR_MEM_FLAG_USE_HOST_POINTER is set",
                  __func__);
  pi_mem Mem = nullptr;
  DGLINK_UR_TRY(piMemBufferCreate(core(hContext),
                                  accessFlags(flags) | (CopyHost ? PI_MEM_FLAGS_HOST_PTR_COPY : 0) |
                                      (UseHost ? PI_MEM_FLAGS_HOST_PTR_USE : 0),
                                  size, Host, &Mem));
  *phBuffer = face(Mem);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urMemBufferPartition(ur_mem_handle_t hBuffer, ur_mem_flags_t flags,
                                 ur_buffer_create_type_t bufferCreateType,
                                 const ur_buffer_region_t *pRegion, ur_mem_handle_t *phMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  if ((flags & UR_MEM_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: memory flags {:#x} are not valid",
                  __func__, static_cast<unsigned>(flags));
  if (bufferCreateType > UR_BUFFER_CREATE_TYPE_REGION)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: create type {:#x} is not defined",
                  __func__, static_cast<unsigned>(bufferCreateType));
  DGLINK_UR_NOT_NULL_POINTER(pRegion);
  DGLINK_UR_NOT_NULL_POINTER(phMem);
  if ((flags & ~(UR_MEM_FLAG_READ_WRITE | UR_MEM_FLAG_READ_ONLY | UR_MEM_FLAG_WRITE_ONLY)) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_VALUE,
                  "{}: flags {:#x}: a sub-buffer takes only an access flag (the host pointer and "
                  "allocation are its parent's)",
                  __func__, static_cast<unsigned>(flags));
  pi_buffer_region_struct Region{pRegion->origin, pRegion->size};
  pi_mem Mem = nullptr;
  DGLINK_UR_TRY(piMemBufferPartition(core(hBuffer), accessFlags(flags),
                                     PI_BUFFER_CREATE_TYPE_REGION, &Region, &Mem));
  *phMem = face(Mem);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urMemRetain(ur_mem_handle_t hMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hMem);
  DGLINK_UR_CORE(piMemRetain(core(hMem)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urMemRelease(ur_mem_handle_t hMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hMem);
  DGLINK_UR_CORE(piMemRelease(core(hMem)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urMemGetInfo(ur_mem_handle_t hMemory, ur_mem_info_t propName, size_t propSize,
                         void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hMemory);
  DGLINK_UR_CHECK(hMemory, PI_ERROR_INVALID_MEM_OBJECT);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const _pi_mem &Mem = *core(hMemory);
  switch (propName) {
  case UR_MEM_INFO_SIZE:
    return Answer.value(Mem.Size);
  case UR_MEM_INFO_CONTEXT:
    return Answer.value(face(Mem.Context));
  case UR_MEM_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{Mem.RefCount.load()});
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// ---- USM ----

namespace {

// What the core's allocation takes of a UR request: the alignment (the pool is the
// core's to check; hints are not served).
ur_result_t usmRequest(const char *Function, const ur_usm_desc_t *pUSMDesc, size_t size,
                       pi_uint32 &Alignment) {
  if (size == 0)
    return failUr(UR_RESULT_ERROR_INVALID_USM_SIZE, "{}: argument 'size' is 0", Function);
  Alignment = pUSMDesc != nullptr ? pUSMDesc->align : 0;
  if ((Alignment & (Alignment - 1)) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_VALUE, "{}: alignment {} is not a power of two", Function,
                  Alignment);
  return UR_RESULT_SUCCESS;
}

} // namespace

ur_result_t urUSMHostAlloc(ur_context_handle_t hContext, const ur_usm_desc_t *pUSMDesc,
                           ur_usm_pool_handle_t pool, size_t size, void **ppMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(ppMem);
  pi_uint32 Alignment = 0;
  if (const ur_result_t R = usmRequest(__func__, pUSMDesc, size, Alignment); R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_CORE(core::allocateUsm(__func__, ppMem, core(hContext), nullptr, core::UsmKind::Host,
                                   size, Alignment, core(pool)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urUSMDeviceAlloc(ur_context_handle_t hContext, ur_device_handle_t hDevice,
                             const ur_usm_desc_t *pUSMDesc, ur_usm_pool_handle_t pool, size_t size,
                             void **ppMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_NOT_NULL_POINTER(ppMem);
  pi_uint32 Alignment = 0;
  if (const ur_result_t R = usmRequest(__func__, pUSMDesc, size, Alignment); R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_CORE(core::allocateUsm(__func__, ppMem, core(hContext), core(hDevice),
                                   core::UsmKind::Device, size, Alignment, core(pool)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urUSMSharedAlloc(ur_context_handle_t hContext, ur_device_handle_t hDevice,
                             const ur_usm_desc_t *pUSMDesc, ur_usm_pool_handle_t pool, size_t size,
                             void **ppMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_NOT_NULL_POINTER(ppMem);
  pi_uint32 Alignment = 0;
  if (const ur_result_t R = usmRequest(__func__, pUSMDesc, size, Alignment); R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_CORE(core::allocateUsm(__func__, ppMem, core(hContext), core(hDevice),
                                   core::UsmKind::Shared, size, Alignment, core(pool)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urUSMFree(ur_context_handle_t hContext, void *pMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pMem);
  DGLINK_UR_CORE(piextUSMFree(core(hContext), pMem));
}
DGLINK_UR_CATCH_ALL

// The core's records of the context's allocations, else the driver's knowledge
// (core::findUsmAllocation); a pointer neither knows is UR_USM_TYPE_UNKNOWN with a null
// base and device and size 0, as the spec says. POOL: the pool that served the
// allocation, else null.
ur_result_t urUSMGetMemAllocInfo(ur_context_handle_t hContext, const void *pMem,
                                 ur_usm_alloc_info_t propName, size_t propSize, void *pPropValue,
                                 size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pMem);
  if (propName > UR_USM_ALLOC_INFO_POOL)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'propName' {:#x} is not defined",
                  __func__, static_cast<uint32_t>(propName));
  DGLINK_UR_CHECK(hContext, PI_ERROR_INVALID_CONTEXT);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  core::UsmAllocationInfo Allocation;
  const bool Known = core::findUsmAllocation(*core(hContext), pMem, Allocation);
  switch (propName) {
  case UR_USM_ALLOC_INFO_TYPE: {
    ur_usm_type_t Type = UR_USM_TYPE_UNKNOWN;
    if (Known)
      Type = Allocation.Kind == core::UsmKind::Host     ? UR_USM_TYPE_HOST
             : Allocation.Kind == core::UsmKind::Device ? UR_USM_TYPE_DEVICE
                                                        : UR_USM_TYPE_SHARED;
    return Answer.value(Type);
  }
  case UR_USM_ALLOC_INFO_BASE_PTR:
    return Answer.value(Allocation.Base);
  case UR_USM_ALLOC_INFO_SIZE:
    return Answer.value(Allocation.Size);
  case UR_USM_ALLOC_INFO_DEVICE:
    return Answer.value(face(Allocation.Device));
  case UR_USM_ALLOC_INFO_POOL:
    return Answer.value(face(Allocation.Pool));
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// ---- USM pools (the core's: common/adapter_core/usm_pool.cpp) ----

// The descriptor's flags and its pNext chain: UR_STRUCTURE_TYPE_USM_POOL_LIMITS_DESC at
// most once; the pool descriptor's own stype is not checked (UR's CTS passes a
// zeroed descriptor).
ur_result_t urUSMPoolCreate(ur_context_handle_t hContext, ur_usm_pool_desc_t *pPoolDesc,
                            ur_usm_pool_handle_t *ppPool) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pPoolDesc);
  DGLINK_UR_NOT_NULL_POINTER(ppPool);
  if ((pPoolDesc->flags & UR_USM_POOL_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: pool flags {:#x} are not defined",
                  __func__, static_cast<uint32_t>(pPoolDesc->flags & UR_USM_POOL_FLAGS_MASK));
  if ((pPoolDesc->flags & UR_USM_POOL_FLAG_USE_NATIVE_MEMORY_POOL_EXP) != 0)
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                  "{}: UR_USM_POOL_FLAG_USE_NATIVE_MEMORY_POOL_EXP: no driver's own pools are "
                  "served",
                  __func__);
  core::UsmPoolOptions Options;
  // READ_ONLY_EXP is a hint: accepted, nothing changes.
  Options.ZeroInitializeBlocks = (pPoolDesc->flags & UR_USM_POOL_FLAG_ZERO_INITIALIZE_BLOCK) != 0;
  bool HaveLimits = false;
  for (const auto *Next = static_cast<const ur_base_desc_t *>(pPoolDesc->pNext); Next != nullptr;
       Next = static_cast<const ur_base_desc_t *>(Next->pNext)) {
    switch (Next->stype) {
    case UR_STRUCTURE_TYPE_USM_POOL_LIMITS_DESC: {
      if (HaveLimits)
        return failUr(UR_RESULT_ERROR_INVALID_VALUE,
                      "{}: the pNext chain has UR_STRUCTURE_TYPE_USM_POOL_LIMITS_DESC twice",
                      __func__);
      HaveLimits = true;
      const auto *Limits = reinterpret_cast<const ur_usm_pool_limits_desc_t *>(Next);
      Options.MaxPoolableSize = Limits->maxPoolableSize;
      Options.MinDriverAllocSize = Limits->minDriverAllocSize;
      break;
    }
    case UR_STRUCTURE_TYPE_USM_POOL_BUFFER_DESC:
      return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                    "{}: pools over the caller's memory (UR_STRUCTURE_TYPE_USM_POOL_BUFFER_DESC) "
                    "are not served",
                    __func__);
    default:
      return failUr(UR_RESULT_ERROR_INVALID_VALUE,
                    "{}: the pNext chain has a structure of type {:#x}, which is no USM pool "
                    "descriptor",
                    __func__, static_cast<uint32_t>(Next->stype));
    }
  }
  core::UsmPool *Pool = nullptr;
  DGLINK_UR_TRY(core::createUsmPool(__func__, core(hContext), Options, &Pool));
  *ppPool = face(Pool);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urUSMPoolRetain(ur_usm_pool_handle_t pPool) try {
  DGLINK_UR_NOT_NULL_HANDLE(pPool);
  DGLINK_UR_CORE(core::retainUsmPool(__func__, core(pPool)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urUSMPoolRelease(ur_usm_pool_handle_t pPool) try {
  DGLINK_UR_NOT_NULL_HANDLE(pPool);
  DGLINK_UR_CORE(core::releaseUsmPool(__func__, core(pPool)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urUSMPoolGetInfo(ur_usm_pool_handle_t hPool, ur_usm_pool_info_t propName,
                             size_t propSize, void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hPool);
  if (propName > UR_USM_POOL_INFO_USED_HIGH_EXP)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'propName' {:#x} is not defined",
                  __func__, static_cast<uint32_t>(propName));
  DGLINK_UR_CHECK(hPool, PI_ERROR_INVALID_VALUE);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const core::UsmPool &Pool = *core(hPool);
  switch (propName) {
  case UR_USM_POOL_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{Pool.RefCount.load()});
  case UR_USM_POOL_INFO_CONTEXT:
    return Answer.value(face(Pool.Context));
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

} // namespace dglink::ur
