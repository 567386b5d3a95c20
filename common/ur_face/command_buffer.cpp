// UR's command-buffer extension over the core's command buffers
// (dglink/core/command_buffer.h): UR's null, list and feature checks first, then one
// call into the core. Commands take events, and those of an updatable command buffer
// are updated by the core: docs/ur.md.
#include "entry_points.h"

#include <cstring>

namespace dglink::ur {

namespace {

// What every append checks before the core: the sync-point list and the event list
// against their counts.
ur_result_t checkAppend(const char *Function, uint32_t NumSyncPoints,
                        const ur_exp_command_buffer_sync_point_t *SyncPoints, uint32_t NumEvents,
                        const ur_event_handle_t *Events) {
  if ((NumSyncPoints == 0) != (SyncPoints == nullptr))
    return failUr(UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_SYNC_POINT_WAIT_LIST_EXP,
                  "{}: sync-point wait list: {} sync points but the list pointer is {}", Function,
                  NumSyncPoints, SyncPoints == nullptr ? "null" : "not null");
  return checkWaitList(Function, NumEvents, Events);
}

#define DGLINK_UR_APPEND_CHECKS()                                                                  \
  do {                                                                                             \
    if (const ur_result_t DglinkAppend_ =                                                          \
            checkAppend(__func__, numSyncPointsInWaitList, pSyncPointWaitList,                     \
                        numEventsInWaitList, phEventWaitList);                                     \
        DglinkAppend_ != UR_RESULT_SUCCESS)                                                        \
      return DglinkAppend_;                                                                        \
  } while (0)

// A command's dependencies and outputs in the core's words.
core::SyncPoints syncPoints(uint32_t Count, const ur_exp_command_buffer_sync_point_t *List,
                            ur_exp_command_buffer_sync_point_t *Out, uint32_t NumEvents,
                            const ur_event_handle_t *Events, ur_event_handle_t *Event,
                            ur_exp_command_buffer_command_handle_t *Command) {
  static_assert(sizeof(ur_exp_command_buffer_sync_point_t) == sizeof(pi_uint32));
  static_assert(sizeof(ur_exp_command_buffer_command_handle_t) == sizeof(core::CommandHandle *));
  return core::SyncPoints{Count,
                          List,
                          Out,
                          NumEvents,
                          core(Events),
                          core(Event),
                          reinterpret_cast<core::CommandHandle **>(Command)};
}

#define DGLINK_UR_SYNC_POINTS()                                                                    \
  syncPoints(numSyncPointsInWaitList, pSyncPointWaitList, pSyncPoint, numEventsInWaitList,         \
             phEventWaitList, phEvent, phCommand)

// The kernel alternatives (kept by the core for updates), checked as UR says.
ur_result_t checkAlternatives(const char *Function, ur_kernel_handle_t Kernel, uint32_t Count,
                              const ur_kernel_handle_t *Alternatives) {
  if ((Count == 0) != (Alternatives == nullptr))
    return failUr(UR_RESULT_ERROR_INVALID_VALUE,
                  "{}: {} kernel alternatives but the list pointer is {}", Function, Count,
                  Alternatives == nullptr ? "null" : "not null");
  for (uint32_t I = 0; I < Count; ++I)
    if (Alternatives[I] == Kernel)
      return failUr(UR_RESULT_ERROR_INVALID_VALUE,
                    "{}: kernel alternative {} is the kernel of the command itself", Function, I);
  return UR_RESULT_SUCCESS;
}

// UR's launch arguments in the core's words: every index from 0 to the kernel's last
// argument once.
ur_result_t launchArguments(const char *Function, _pi_kernel &Kernel, uint32_t Count,
                            const ur_exp_kernel_arg_properties_t *Args,
                            std::map<pi_uint32, core::KernelArgument> &Out) {
  // Where the driver does not describe the kernel's parameters (HIP), the arguments set
  // so far are the least it has.
  const pi_uint32 Expected = Kernel.Impl->numArguments();
  if (Kernel.Impl->knowsArguments() ? Count != Expected : Count < Expected)
    return failUr(UR_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX,
                  "{}: {} arguments given, kernel '{}' has {}", Function, Count,
                  dglink::clip(Kernel.Name), Expected);
  for (uint32_t I = 0; I < Count; ++I) {
    const ur_exp_kernel_arg_properties_t &Arg = Args[I];
    if (Arg.index >= Count || Out.count(Arg.index) != 0)
      return failUr(UR_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX,
                    "{}: argument indices must be 0 to {} once each; entry {} has index {}",
                    Function, Count - 1, I, Arg.index);
    core::KernelArgument Argument;
    switch (Arg.type) {
    case UR_EXP_KERNEL_ARG_TYPE_VALUE: {
      if (Arg.value.value == nullptr)
        return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER, "{}: argument {} has no value",
                      Function, Arg.index);
      const auto *Bytes = static_cast<const uint8_t *>(Arg.value.value);
      Argument.Bytes.assign(Bytes, Bytes + Arg.size);
      break;
    }
    case UR_EXP_KERNEL_ARG_TYPE_POINTER: {
      Argument.Type = core::KernelArgument::Kind::Pointer;
      const auto *Bytes = reinterpret_cast<const uint8_t *>(&Arg.value.pointer);
      Argument.Bytes.assign(Bytes, Bytes + sizeof(void *));
      break;
    }
    case UR_EXP_KERNEL_ARG_TYPE_MEM_OBJ:
      Argument.Type = core::KernelArgument::Kind::Buffer;
      Argument.Buffer = core(Arg.value.memObjTuple.hMem);
      break;
    case UR_EXP_KERNEL_ARG_TYPE_LOCAL:
      Argument.Type = core::KernelArgument::Kind::Local;
      Argument.LocalSize = Arg.size;
      break;
    case UR_EXP_KERNEL_ARG_TYPE_SAMPLER:
      return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE, "{}: argument {}: samplers are not served",
                    Function, Arg.index);
    default:
      return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: argument {} has type {}", Function,
                    Arg.index, static_cast<int>(Arg.type));
    }
    Out.emplace(Arg.index, std::move(Argument));
  }
  return UR_RESULT_SUCCESS;
}

// The USM commands: a size problem is UR's INVALID_SIZE.
ur_result_t usmResult(pi_result Result) { return usmHintResult(Result); }

} // namespace

ur_result_t urCommandBufferCreateExp(ur_context_handle_t hContext, ur_device_handle_t hDevice,
                                     const ur_exp_command_buffer_desc_t *pCommandBufferDesc,
                                     ur_exp_command_buffer_handle_t *phCommandBuffer) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_NOT_NULL_POINTER(pCommandBufferDesc);
  DGLINK_UR_NOT_NULL_POINTER(phCommandBuffer);
  DGLINK_UR_CHECK(hContext, PI_ERROR_INVALID_CONTEXT);
  DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
  _pi_command_buffer *CommandBuffer = nullptr;
  DGLINK_UR_TRY(core::createCommandBuffer(
      __func__, core(hContext), core(hDevice), pCommandBufferDesc->isInOrder,
      pCommandBufferDesc->enableProfiling, pCommandBufferDesc->isUpdatable, &CommandBuffer));
  *phCommandBuffer = face(CommandBuffer);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferRetainExp(ur_exp_command_buffer_handle_t hCommandBuffer) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_CORE(core::retainCommandBuffer(__func__, core(hCommandBuffer)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferReleaseExp(ur_exp_command_buffer_handle_t hCommandBuffer) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_CORE(core::releaseCommandBuffer(__func__, core(hCommandBuffer)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferFinalizeExp(ur_exp_command_buffer_handle_t hCommandBuffer) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_CORE(core::finalizeCommandBuffer(__func__, core(hCommandBuffer)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferGetInfoExp(ur_exp_command_buffer_handle_t hCommandBuffer,
                                      ur_exp_command_buffer_info_t propName, size_t propSize,
                                      void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  if (propName > UR_EXP_COMMAND_BUFFER_INFO_DESCRIPTOR)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: query {:#x} is not defined", __func__,
                  static_cast<unsigned>(propName));
  if (pPropValue == nullptr && propSize != 0)
    return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER,
                  "{}: 'propSize' {} but 'pPropValue' is null", __func__, propSize);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  DGLINK_UR_TRY(core::checkHandle(core(hCommandBuffer), PI_ERROR_INVALID_COMMAND_BUFFER_KHR,
                                  __func__, "hCommandBuffer"));
  const _pi_command_buffer &CommandBuffer = *core(hCommandBuffer);
  switch (propName) {
  case UR_EXP_COMMAND_BUFFER_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{CommandBuffer.RefCount.load()});
  case UR_EXP_COMMAND_BUFFER_INFO_DESCRIPTOR: {
    const ur_exp_command_buffer_desc_t Descriptor{UR_STRUCTURE_TYPE_EXP_COMMAND_BUFFER_DESC,
                                                  nullptr, CommandBuffer.Updatable,
                                                  CommandBuffer.InOrder, CommandBuffer.Profiling};
    return Answer.value(Descriptor);
  }
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendKernelLaunchExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, ur_kernel_handle_t hKernel, uint32_t workDim,
    const size_t *pGlobalWorkOffset, const size_t *pGlobalWorkSize, const size_t *pLocalWorkSize,
    uint32_t numKernelAlternatives, ur_kernel_handle_t *phKernelAlternatives,
    uint32_t numSyncPointsInWaitList, const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList,
    uint32_t numEventsInWaitList, const ur_event_handle_t *phEventWaitList,
    ur_exp_command_buffer_sync_point_t *pSyncPoint, ur_event_handle_t *phEvent,
    ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_NOT_NULL_POINTER(pGlobalWorkSize);
  if (const ur_result_t R =
          checkAlternatives(__func__, hKernel, numKernelAlternatives, phKernelAlternatives);
      R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_APPEND_CHECKS();
  DGLINK_UR_CORE(core::appendKernelLaunch(__func__, core(hCommandBuffer), core(hKernel), workDim,
                                          pGlobalWorkOffset, pGlobalWorkSize, pLocalWorkSize,
                                          nullptr, numKernelAlternatives,
                                          core(phKernelAlternatives), DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendKernelLaunchWithArgsExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, ur_kernel_handle_t hKernel, uint32_t workDim,
    const size_t *pGlobalWorkOffset, const size_t *pGlobalWorkSize, const size_t *pLocalWorkSize,
    uint32_t numArgs, const ur_exp_kernel_arg_properties_t *pArgs, uint32_t numKernelAlternatives,
    ur_kernel_handle_t *phKernelAlternatives, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_NOT_NULL_POINTER(pGlobalWorkSize);
  if (numArgs != 0 && pArgs == nullptr)
    return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER, "{}: {} arguments but 'pArgs' is null",
                  __func__, numArgs);
  if (const ur_result_t R =
          checkAlternatives(__func__, hKernel, numKernelAlternatives, phKernelAlternatives);
      R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_APPEND_CHECKS();
  DGLINK_UR_TRY(core::checkHandle(core(hCommandBuffer), PI_ERROR_INVALID_COMMAND_BUFFER_KHR,
                                  __func__, "hCommandBuffer"));
  DGLINK_UR_CHECK(hKernel, PI_ERROR_INVALID_KERNEL);
  std::map<pi_uint32, core::KernelArgument> Arguments;
  if (const ur_result_t R = launchArguments(__func__, *core(hKernel), numArgs, pArgs, Arguments);
      R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_CORE(core::appendKernelLaunch(__func__, core(hCommandBuffer), core(hKernel), workDim,
                                          pGlobalWorkOffset, pGlobalWorkSize, pLocalWorkSize,
                                          &Arguments, numKernelAlternatives,
                                          core(phKernelAlternatives), DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendUSMMemcpyExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, void *pDst, const void *pSrc, size_t size,
    uint32_t numSyncPointsInWaitList, const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList,
    uint32_t numEventsInWaitList, const ur_event_handle_t *phEventWaitList,
    ur_exp_command_buffer_sync_point_t *pSyncPoint, ur_event_handle_t *phEvent,
    ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  if (size == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'size' is 0", __func__);
  DGLINK_UR_APPEND_CHECKS();
  return usmResult(core::appendUsmCopy(__func__, core(hCommandBuffer), pDst, pSrc, size,
                                       DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendUSMFillExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, void *pMemory, const void *pPattern,
    size_t patternSize, size_t size, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pMemory);
  DGLINK_UR_NOT_NULL_POINTER(pPattern);
  if (patternSize == 0 || size == 0 || patternSize > size || size % patternSize != 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: a pattern of {} bytes does not tile {} bytes",
                  __func__, patternSize, size);
  DGLINK_UR_APPEND_CHECKS();
  return usmResult(core::appendUsmFill(__func__, core(hCommandBuffer), pMemory, pPattern,
                                       patternSize, size, DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendUSMPrefetchExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, const void *pMemory, size_t size,
    ur_usm_migration_flags_t flags, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pMemory);
  if ((flags & UR_USM_MIGRATION_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'flags' {:#x} has undefined bits",
                  __func__, static_cast<uint32_t>(flags));
  if (size == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'size' is 0", __func__);
  DGLINK_UR_APPEND_CHECKS();
  const core::UsmMigration To = (flags & UR_USM_MIGRATION_FLAG_DEVICE_TO_HOST) != 0
                                    ? core::UsmMigration::ToHost
                                    : core::UsmMigration::ToDevice;
  return usmResult(core::appendUsmPrefetch(__func__, core(hCommandBuffer), pMemory, size, To,
                                           DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendUSMAdviseExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, const void *pMemory, size_t size,
    ur_usm_advice_flags_t advice, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pMemory);
  if ((advice & UR_USM_ADVICE_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'advice' {:#x} has undefined bits",
                  __func__, static_cast<uint32_t>(advice));
  if (size == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'size' is 0", __func__);
  DGLINK_UR_APPEND_CHECKS();
  return usmResult(core::appendUsmAdvise(__func__, core(hCommandBuffer), pMemory, size, advice,
                                         DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendMemBufferCopyExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, ur_mem_handle_t hSrcMem, ur_mem_handle_t hDstMem,
    size_t srcOffset, size_t dstOffset, size_t size, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_HANDLE(hSrcMem);
  DGLINK_UR_NOT_NULL_HANDLE(hDstMem);
  DGLINK_UR_APPEND_CHECKS();
  return sizeProblem(core::appendBufferCopy(__func__, core(hCommandBuffer), core(hSrcMem),
                                            core(hDstMem), srcOffset, dstOffset, size,
                                            DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendMemBufferWriteExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, ur_mem_handle_t hBuffer, size_t offset,
    size_t size, const void *pSrc, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  DGLINK_UR_APPEND_CHECKS();
  return sizeProblem(core::appendBufferWrite(__func__, core(hCommandBuffer), core(hBuffer), offset,
                                             size, pSrc, DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendMemBufferReadExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, ur_mem_handle_t hBuffer, size_t offset,
    size_t size, void *pDst, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_APPEND_CHECKS();
  return sizeProblem(core::appendBufferRead(__func__, core(hCommandBuffer), core(hBuffer), offset,
                                            size, pDst, DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendMemBufferCopyRectExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, ur_mem_handle_t hSrcMem, ur_mem_handle_t hDstMem,
    ur_rect_offset_t srcOrigin, ur_rect_offset_t dstOrigin, ur_rect_region_t region,
    size_t srcRowPitch, size_t srcSlicePitch, size_t dstRowPitch, size_t dstSlicePitch,
    uint32_t numSyncPointsInWaitList, const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList,
    uint32_t numEventsInWaitList, const ur_event_handle_t *phEventWaitList,
    ur_exp_command_buffer_sync_point_t *pSyncPoint, ur_event_handle_t *phEvent,
    ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_HANDLE(hSrcMem);
  DGLINK_UR_NOT_NULL_HANDLE(hDstMem);
  DGLINK_UR_APPEND_CHECKS();
  return sizeProblem(core::appendBufferCopyRect(
      __func__, core(hCommandBuffer), core(hSrcMem), core(hDstMem), rectOffset(srcOrigin),
      rectOffset(dstOrigin), rectRegion(region), srcRowPitch, srcSlicePitch, dstRowPitch,
      dstSlicePitch, DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendMemBufferWriteRectExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, ur_mem_handle_t hBuffer,
    ur_rect_offset_t bufferOffset, ur_rect_offset_t hostOffset, ur_rect_region_t region,
    size_t bufferRowPitch, size_t bufferSlicePitch, size_t hostRowPitch, size_t hostSlicePitch,
    void *pSrc, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  DGLINK_UR_APPEND_CHECKS();
  return sizeProblem(core::appendBufferWriteRect(
      __func__, core(hCommandBuffer), core(hBuffer), rectOffset(bufferOffset),
      rectOffset(hostOffset), rectRegion(region), bufferRowPitch, bufferSlicePitch, hostRowPitch,
      hostSlicePitch, pSrc, DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendMemBufferReadRectExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, ur_mem_handle_t hBuffer,
    ur_rect_offset_t bufferOffset, ur_rect_offset_t hostOffset, ur_rect_region_t region,
    size_t bufferRowPitch, size_t bufferSlicePitch, size_t hostRowPitch, size_t hostSlicePitch,
    void *pDst, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_APPEND_CHECKS();
  return sizeProblem(core::appendBufferReadRect(
      __func__, core(hCommandBuffer), core(hBuffer), rectOffset(bufferOffset),
      rectOffset(hostOffset), rectRegion(region), bufferRowPitch, bufferSlicePitch, hostRowPitch,
      hostSlicePitch, pDst, DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferAppendMemBufferFillExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, ur_mem_handle_t hBuffer, const void *pPattern,
    size_t patternSize, size_t offset, size_t size, uint32_t numSyncPointsInWaitList,
    const ur_exp_command_buffer_sync_point_t *pSyncPointWaitList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_exp_command_buffer_sync_point_t *pSyncPoint,
    ur_event_handle_t *phEvent, ur_exp_command_buffer_command_handle_t *phCommand) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pPattern);
  DGLINK_UR_APPEND_CHECKS();
  return sizeProblem(core::appendBufferFill(__func__, core(hCommandBuffer), core(hBuffer), pPattern,
                                            patternSize, offset, size, DGLINK_UR_SYNC_POINTS()));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueCommandBufferExp(ur_queue_handle_t hQueue,
                                      ur_exp_command_buffer_handle_t hCommandBuffer,
                                      uint32_t numEventsInWaitList,
                                      const ur_event_handle_t *phEventWaitList,
                                      ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(core::enqueueCommandBuffer(__func__, core(hQueue), core(hCommandBuffer),
                                            numEventsInWaitList, core(phEventWaitList),
                                            core(phEvent)));
}
DGLINK_UR_CATCH_ALL

namespace {

// One update descriptor's arguments in the core's words: memory objects, USM pointers
// (pNewPointerArg points at the pointer), values and local memory (a null value).
ur_result_t updateArguments(const char *Function, uint32_t Which,
                            const ur_exp_command_buffer_update_kernel_launch_desc_t &Desc,
                            core::KernelLaunchUpdate &Out) {
  if ((Desc.numNewMemObjArgs != 0 && Desc.pNewMemObjArgList == nullptr) ||
      (Desc.numNewPointerArgs != 0 && Desc.pNewPointerArgList == nullptr) ||
      (Desc.numNewValueArgs != 0 && Desc.pNewValueArgList == nullptr))
    return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER,
                  "{}: update {}: an argument list is null but its count is not 0", Function,
                  Which);
  Out.Arguments.reserve(Desc.numNewMemObjArgs + Desc.numNewPointerArgs + Desc.numNewValueArgs);
  for (uint32_t I = 0; I < Desc.numNewMemObjArgs; ++I) {
    const ur_exp_command_buffer_update_memobj_arg_desc_t &Arg = Desc.pNewMemObjArgList[I];
    core::KernelArgument Argument;
    Argument.Type = core::KernelArgument::Kind::Buffer;
    Argument.Buffer = core(Arg.hNewMemObjArg);
    Out.Arguments.emplace_back(Arg.argIndex, std::move(Argument));
  }
  for (uint32_t I = 0; I < Desc.numNewPointerArgs; ++I) {
    const ur_exp_command_buffer_update_pointer_arg_desc_t &Arg = Desc.pNewPointerArgList[I];
    core::KernelArgument Argument;
    Argument.Type = core::KernelArgument::Kind::Pointer;
    const void *Pointer = nullptr;
    if (Arg.pNewPointerArg != nullptr)
      std::memcpy(&Pointer, Arg.pNewPointerArg, sizeof(Pointer));
    const auto *Bytes = reinterpret_cast<const uint8_t *>(&Pointer);
    Argument.Bytes.assign(Bytes, Bytes + sizeof(Pointer));
    Out.Arguments.emplace_back(Arg.argIndex, std::move(Argument));
  }
  for (uint32_t I = 0; I < Desc.numNewValueArgs; ++I) {
    const ur_exp_command_buffer_update_value_arg_desc_t &Arg = Desc.pNewValueArgList[I];
    core::KernelArgument Argument;
    if (Arg.pNewValueArg == nullptr) {
      Argument.Type = core::KernelArgument::Kind::Local;
      Argument.LocalSize = Arg.argSize;
    } else {
      const auto *Bytes = static_cast<const uint8_t *>(Arg.pNewValueArg);
      Argument.Bytes.assign(Bytes, Bytes + Arg.argSize);
    }
    Out.Arguments.emplace_back(Arg.argIndex, std::move(Argument));
  }
  return UR_RESULT_SUCCESS;
}

} // namespace

ur_result_t urCommandBufferUpdateKernelLaunchExp(
    ur_exp_command_buffer_handle_t hCommandBuffer, uint32_t numKernelUpdates,
    const ur_exp_command_buffer_update_kernel_launch_desc_t *pUpdateKernelLaunch) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommandBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pUpdateKernelLaunch);
  if (numKernelUpdates == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'numKernelUpdates' is 0", __func__);
  for (uint32_t I = 0; I < numKernelUpdates; ++I)
    if (pUpdateKernelLaunch[I].hCommand == nullptr)
      return failUr(UR_RESULT_ERROR_INVALID_NULL_HANDLE, "{}: update {}: 'hCommand' is null",
                    __func__, I);
  std::vector<core::KernelLaunchUpdate> Updates(numKernelUpdates);
  for (uint32_t I = 0; I < numKernelUpdates; ++I) {
    const ur_exp_command_buffer_update_kernel_launch_desc_t &Desc = pUpdateKernelLaunch[I];
    core::KernelLaunchUpdate &Update = Updates[I];
    Update.Command = core(Desc.hCommand);
    Update.NewKernel = core(Desc.hNewKernel);
    Update.WorkDim = Desc.newWorkDim;
    Update.GlobalWorkOffset = Desc.pNewGlobalWorkOffset;
    Update.GlobalWorkSize = Desc.pNewGlobalWorkSize;
    Update.LocalWorkSize = Desc.pNewLocalWorkSize;
    if (const ur_result_t R = updateArguments(__func__, I, Desc, Update); R != UR_RESULT_SUCCESS)
      return R;
  }
  DGLINK_UR_CORE(core::updateKernelLaunches(__func__, core(hCommandBuffer), Updates));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferUpdateSignalEventExp(ur_exp_command_buffer_command_handle_t hCommand,
                                                ur_event_handle_t *phSignalEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommand);
  DGLINK_UR_NOT_NULL_POINTER(phSignalEvent);
  DGLINK_UR_CORE(core::updateSignalEvent(__func__, core(hCommand), core(phSignalEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urCommandBufferUpdateWaitEventsExp(ur_exp_command_buffer_command_handle_t hCommand,
                                               uint32_t numEventsInWaitList,
                                               const ur_event_handle_t *phEventWaitList) try {
  DGLINK_UR_NOT_NULL_HANDLE(hCommand);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(
      core::updateWaitEvents(__func__, core(hCommand), numEventsInWaitList, core(phEventWaitList)));
}
DGLINK_UR_CATCH_ALL

} // namespace dglink::ur
