// Images and samplers through UR (urMemImage*, urSampler*, urEnqueueMemImage*): UR's
// own checks (null handles and pointers, enumerations, the descriptor's rules), then
// the core's (common/adapter_core/image.cpp), which checks what the devices can do and
// calls the backend's hooks. docs/ur.md, "Images and samplers".
#include "entry_points.h"

namespace dglink::ur {

namespace {

pi_mem_flags imageFlags(ur_mem_flags_t Flags) {
  return ((Flags & UR_MEM_FLAG_READ_WRITE) != 0 ? PI_MEM_FLAGS_ACCESS_RW : 0) |
         ((Flags & UR_MEM_FLAG_READ_ONLY) != 0 ? PI_MEM_FLAGS_ACCESS_READ_ONLY : 0) |
         ((Flags & UR_MEM_FLAG_WRITE_ONLY) != 0 ? PI_MEM_FLAGS_ACCESS_WRITE_ONLY : 0) |
         ((Flags & UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER) != 0 ? PI_MEM_FLAGS_HOST_PTR_COPY : 0) |
         ((Flags & UR_MEM_FLAG_USE_HOST_POINTER) != 0 ? PI_MEM_FLAGS_HOST_PTR_USE : 0);
}

// UR's image format and descriptor as the core's (the enumerations share UR's numbering).
ur_result_t imageOf(const char *Function, const ur_image_format_t &Format,
                    const ur_image_desc_t &Desc, core::ImageDescription &Out) {
  if (Desc.stype != UR_STRUCTURE_TYPE_IMAGE_DESC)
    return failUr(UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                  "{}: the descriptor's stype {:#x} is not UR_STRUCTURE_TYPE_IMAGE_DESC", Function,
                  static_cast<uint32_t>(Desc.stype));
  if (Desc.type > UR_MEM_TYPE_IMAGE1D_ARRAY)
    return failUr(UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                  "{}: image type {:#x} is none of UR_MEM_TYPE_IMAGE1D/1D_ARRAY/2D/2D_ARRAY/3D",
                  Function, static_cast<uint32_t>(Desc.type));
  if (Desc.numMipLevel != 0 || Desc.numSamples != 0)
    return failUr(UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                  "{}: {} MIP levels and {} samples: both must be 0", Function, Desc.numMipLevel,
                  Desc.numSamples);
  if (static_cast<uint32_t>(Format.channelOrder) >= core::ChannelOrderCount ||
      static_cast<uint32_t>(Format.channelType) >= core::ChannelTypeCount)
    return failUr(UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                  "{}: channel order {:#x} or channel type {:#x} is not defined", Function,
                  static_cast<uint32_t>(Format.channelOrder),
                  static_cast<uint32_t>(Format.channelType));
  Out.Type = static_cast<core::ImageType>(Desc.type);
  Out.Format.Order = static_cast<core::ChannelOrder>(Format.channelOrder);
  Out.Format.Type = static_cast<core::ChannelType>(Format.channelType);
  Out.Width = Desc.width;
  Out.Height = Desc.height;
  Out.Depth = Desc.depth;
  Out.ArraySize = Desc.arraySize;
  Out.RowPitch = Desc.rowPitch;
  Out.SlicePitch = Desc.slicePitch;
  return UR_RESULT_SUCCESS;
}

const size_t *offsetOf(const ur_rect_offset_t &Offset, size_t (&Out)[3]) {
  Out[0] = Offset.x;
  Out[1] = Offset.y;
  Out[2] = Offset.z;
  return Out;
}

const size_t *regionOf(const ur_rect_region_t &Region, size_t (&Out)[3]) {
  Out[0] = Region.width;
  Out[1] = Region.height;
  Out[2] = Region.depth;
  return Out;
}

} // namespace

ur_result_t urMemImageCreate(ur_context_handle_t hContext, ur_mem_flags_t flags,
                             const ur_image_format_t *pImageFormat,
                             const ur_image_desc_t *pImageDesc, void *pHost,
                             ur_mem_handle_t *phMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  if ((flags & UR_MEM_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: memory flags {:#x} are not valid",
                  __func__, static_cast<unsigned>(flags));
  DGLINK_UR_NOT_NULL_POINTER(pImageFormat);
  DGLINK_UR_NOT_NULL_POINTER(pImageDesc);
  DGLINK_UR_NOT_NULL_POINTER(phMem);
  core::ImageDescription Image;
  if (const ur_result_t R = imageOf(__func__, *pImageFormat, *pImageDesc, Image);
      R != UR_RESULT_SUCCESS)
    return R;
  if (pHost == nullptr && (pImageDesc->rowPitch != 0 || pImageDesc->slicePitch != 0))
    return failUr(UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                  "{}: row pitch {} and slice pitch {} describe host memory, but 'pHost' is null "
                  "(both must be 0)",
                  __func__, pImageDesc->rowPitch, pImageDesc->slicePitch);
  const bool CopyHost = (flags & UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER) != 0;
  const bool UseHost = (flags & UR_MEM_FLAG_USE_HOST_POINTER) != 0;
  if ((CopyHost || UseHost) != (pHost != nullptr))
    return failUr(UR_RESULT_ERROR_INVALID_HOST_PTR,
                  "{}: 'pHost' must be given exactly when UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER or "
                  "UR_MEM_FLAG_USE_HOST_POINTER is set",
                  __func__);
  if (CopyHost && UseHost)
    return failUr(UR_RESULT_ERROR_INVALID_VALUE,
                  "{}: UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER and UR_MEM_FLAG_USE_HOST_POINTER "
                  "exclude each other",
                  __func__);
  if (flags == 0 ||
      (flags & (UR_MEM_FLAG_READ_WRITE | UR_MEM_FLAG_READ_ONLY | UR_MEM_FLAG_WRITE_ONLY)) == 0)
    flags |= UR_MEM_FLAG_READ_WRITE;
  const pi_mem_flags Flags = imageFlags(flags);
  if (__builtin_popcount(Flags & (PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_ACCESS_READ_ONLY |
                                  PI_MEM_FLAGS_ACCESS_WRITE_ONLY)) > 1)
    return failUr(UR_RESULT_ERROR_INVALID_VALUE, "{}: flags {:#x} name more than one access",
                  __func__, static_cast<unsigned>(flags));
  pi_mem Mem = nullptr;
  DGLINK_UR_TRY(core::createImage(__func__, core(hContext), Flags, Image, pHost, &Mem));
  *phMem = face(Mem);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

// The driver's image; its format and size are the driver's where the driver states them
// (OpenCL: the caller's description is not compared with them); where it does not (CUDA's
// arrays) the backend takes the caller's, checked against what the driver states.
ur_result_t urMemImageCreateWithNativeHandle(ur_native_handle_t hNativeMem,
                                             ur_context_handle_t hContext,
                                             const ur_image_format_t *pImageFormat,
                                             const ur_image_desc_t *pImageDesc,
                                             const ur_mem_native_properties_t *pProperties,
                                             ur_mem_handle_t *phMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pImageFormat);
  DGLINK_UR_NOT_NULL_POINTER(pImageDesc);
  DGLINK_UR_NOT_NULL_POINTER(phMem);
  const bool Owned = pProperties != nullptr && pProperties->isNativeHandleOwned;
  core::ImageDescription Declared;
  const bool Valid = imageOf(__func__, *pImageFormat, *pImageDesc, Declared) == UR_RESULT_SUCCESS;
  pi_mem Mem = nullptr;
  DGLINK_UR_TRY(core::imageFromNative(__func__, hNativeMem, core(hContext), Owned,
                                      Valid ? &Declared : nullptr, &Mem));
  *phMem = face(Mem);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urMemImageGetInfo(ur_mem_handle_t hMemory, ur_image_info_t propName, size_t propSize,
                              void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hMemory);
  if (propName > UR_IMAGE_INFO_NUM_SAMPLES)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'propName' {:#x} is not defined",
                  __func__, static_cast<uint32_t>(propName));
  DGLINK_UR_CHECK(hMemory, PI_ERROR_INVALID_MEM_OBJECT);
  const _pi_mem &Mem = *core(hMemory);
  if (!Mem.Image)
    return failUr(UR_RESULT_ERROR_INVALID_MEM_OBJECT, "{}: 'hMemory' is a buffer, not an image",
                  __func__);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const core::ImageDescription &Image = *Mem.Image;
  switch (propName) {
  case UR_IMAGE_INFO_FORMAT:
    return Answer.value(ur_image_format_t{static_cast<ur_image_channel_order_t>(Image.Format.Order),
                                          static_cast<ur_image_channel_type_t>(Image.Format.Type)});
  case UR_IMAGE_INFO_ELEMENT_SIZE:
    return Answer.value(Image.ElementSize);
  case UR_IMAGE_INFO_ROW_PITCH:
    return Answer.value(Image.RowPitch);
  case UR_IMAGE_INFO_SLICE_PITCH:
    return Answer.value(Image.SlicePitch);
  case UR_IMAGE_INFO_WIDTH:
    return Answer.value(Image.Width);
  case UR_IMAGE_INFO_HEIGHT:
    return Answer.value(Image.Height);
  case UR_IMAGE_INFO_DEPTH:
    return Answer.value(Image.Depth);
  case UR_IMAGE_INFO_ARRAY_SIZE:
    return Answer.value(Image.ArraySize);
  case UR_IMAGE_INFO_NUM_MIP_LEVELS:
  case UR_IMAGE_INFO_NUM_SAMPLES:
    return Answer.value(uint32_t{0}); // creation takes none
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// ---- image commands (pixels; UR names a region outside the image INVALID_SIZE) ----

ur_result_t urEnqueueMemImageRead(ur_queue_handle_t hQueue, ur_mem_handle_t hImage,
                                  bool blockingRead, ur_rect_offset_t origin,
                                  ur_rect_region_t region, size_t rowPitch, size_t slicePitch,
                                  void *pDst, uint32_t numEventsInWaitList,
                                  const ur_event_handle_t *phEventWaitList,
                                  ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hImage);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  size_t Origin[3], Region[3];
  return sizeProblem(core::enqueueImageRead(__func__, core(hQueue), core(hImage), blockingRead,
                                            offsetOf(origin, Origin), regionOf(region, Region),
                                            rowPitch, slicePitch, pDst, numEventsInWaitList,
                                            core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemImageWrite(ur_queue_handle_t hQueue, ur_mem_handle_t hImage,
                                   bool blockingWrite, ur_rect_offset_t origin,
                                   ur_rect_region_t region, size_t rowPitch, size_t slicePitch,
                                   void *pSrc, uint32_t numEventsInWaitList,
                                   const ur_event_handle_t *phEventWaitList,
                                   ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hImage);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  size_t Origin[3], Region[3];
  return sizeProblem(core::enqueueImageWrite(__func__, core(hQueue), core(hImage), blockingWrite,
                                             offsetOf(origin, Origin), regionOf(region, Region),
                                             rowPitch, slicePitch, pSrc, numEventsInWaitList,
                                             core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemImageCopy(ur_queue_handle_t hQueue, ur_mem_handle_t hImageSrc,
                                  ur_mem_handle_t hImageDst, ur_rect_offset_t srcOrigin,
                                  ur_rect_offset_t dstOrigin, ur_rect_region_t region,
                                  uint32_t numEventsInWaitList,
                                  const ur_event_handle_t *phEventWaitList,
                                  ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hImageSrc);
  DGLINK_UR_NOT_NULL_HANDLE(hImageDst);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  size_t Src[3], Dst[3], Region[3];
  return sizeProblem(core::enqueueImageCopy(
      __func__, core(hQueue), core(hImageSrc), core(hImageDst), offsetOf(srcOrigin, Src),
      offsetOf(dstOrigin, Dst), regionOf(region, Region), numEventsInWaitList,
      core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

// ---- samplers ----

ur_result_t urSamplerCreate(ur_context_handle_t hContext, const ur_sampler_desc_t *pDesc,
                            ur_sampler_handle_t *phSampler) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pDesc);
  DGLINK_UR_NOT_NULL_POINTER(phSampler);
  if (pDesc->addressingMode > UR_SAMPLER_ADDRESSING_MODE_MIRRORED_REPEAT)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: addressing mode {:#x} is not defined",
                  __func__, static_cast<uint32_t>(pDesc->addressingMode));
  if (pDesc->filterMode > UR_SAMPLER_FILTER_MODE_LINEAR)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: filter mode {:#x} is not defined",
                  __func__, static_cast<uint32_t>(pDesc->filterMode));
  if (pDesc->pNext != nullptr)
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                  "{}: the descriptor's pNext chain (mipmap or per-dimension addressing of "
                  "bindless images) is not served",
                  __func__);
  core::SamplerDescription Description;
  Description.Normalized = pDesc->normalizedCoords;
  Description.Addressing = static_cast<core::SamplerAddressing>(pDesc->addressingMode);
  Description.Filter = static_cast<core::SamplerFilter>(pDesc->filterMode);
  core::Sampler *Made = nullptr;
  DGLINK_UR_TRY(core::createSampler(__func__, core(hContext), Description, &Made));
  *phSampler = face(Made);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urSamplerRetain(ur_sampler_handle_t hSampler) try {
  DGLINK_UR_NOT_NULL_HANDLE(hSampler);
  DGLINK_UR_CHECK(hSampler, PI_ERROR_INVALID_SAMPLER);
  core::retain(core(hSampler));
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urSamplerRelease(ur_sampler_handle_t hSampler) try {
  DGLINK_UR_NOT_NULL_HANDLE(hSampler);
  DGLINK_UR_CHECK(hSampler, PI_ERROR_INVALID_SAMPLER);
  core::release(core(hSampler));
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urSamplerGetInfo(ur_sampler_handle_t hSampler, ur_sampler_info_t propName,
                             size_t propSize, void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hSampler);
  if (propName > UR_SAMPLER_INFO_FILTER_MODE)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'propName' {:#x} is not defined",
                  __func__, static_cast<uint32_t>(propName));
  DGLINK_UR_CHECK(hSampler, PI_ERROR_INVALID_SAMPLER);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const core::Sampler &Sampler = *core(hSampler);
  switch (propName) {
  case UR_SAMPLER_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{Sampler.RefCount.load()});
  case UR_SAMPLER_INFO_CONTEXT:
    return Answer.value(face(Sampler.Context));
  case UR_SAMPLER_INFO_NORMALIZED_COORDS:
    return Answer.boolean(Sampler.Description.Normalized);
  case UR_SAMPLER_INFO_ADDRESSING_MODE:
    return Answer.value(static_cast<ur_sampler_addressing_mode_t>(Sampler.Description.Addressing));
  case UR_SAMPLER_INFO_FILTER_MODE:
    return Answer.value(static_cast<ur_sampler_filter_mode_t>(Sampler.Description.Filter));
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

ur_result_t urSamplerGetNativeHandle(ur_sampler_handle_t hSampler,
                                     ur_native_handle_t *phNativeSampler) try {
  DGLINK_UR_NOT_NULL_HANDLE(hSampler);
  DGLINK_UR_NOT_NULL_POINTER(phNativeSampler);
  DGLINK_UR_CHECK(hSampler, PI_ERROR_INVALID_SAMPLER);
  uintptr_t Native = 0;
  if (core(hSampler)->Impl == nullptr || !core(hSampler)->Impl->nativeHandle(Native))
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                  "{}: the driver has no handle of the sampler", __func__);
  *phNativeSampler = Native;
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urSamplerCreateWithNativeHandle(ur_native_handle_t hNativeSampler,
                                            ur_context_handle_t hContext,
                                            const ur_sampler_native_properties_t *pProperties,
                                            ur_sampler_handle_t *phSampler) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phSampler);
  const bool Owned = pProperties != nullptr && pProperties->isNativeHandleOwned;
  core::Sampler *Made = nullptr;
  DGLINK_UR_TRY(core::samplerFromNative(__func__, hNativeSampler, core(hContext), Owned, &Made));
  *phSampler = face(Made);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

} // namespace dglink::ur
