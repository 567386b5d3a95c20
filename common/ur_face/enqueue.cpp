// Commands and events through UR: kernel launches with their arguments, copies, fills,
// markers and the device-global copies, each one call into the core.
#include "entry_points.h"

namespace dglink::ur {

ur_result_t checkWaitList(const char *Function, uint32_t Count, const ur_event_handle_t *List) {
  if ((Count == 0) != (List == nullptr))
    return failUr(UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST,
                  "{}: event wait list: {} events but the list pointer is {}", Function, Count,
                  List == nullptr ? "null" : "not null");
  return UR_RESULT_SUCCESS;
}

ur_result_t sizeProblem(pi_result Result) {
  return Result == PI_ERROR_INVALID_VALUE ? UR_RESULT_ERROR_INVALID_SIZE : toUr(Result);
}

pi_buff_rect_offset_struct rectOffset(ur_rect_offset_t Offset) {
  return {static_cast<size_t>(Offset.x), static_cast<size_t>(Offset.y),
          static_cast<size_t>(Offset.z)};
}

pi_buff_rect_region_struct rectRegion(ur_rect_region_t Region) {
  return {static_cast<size_t>(Region.width), static_cast<size_t>(Region.height),
          static_cast<size_t>(Region.depth)};
}

namespace {

// UR_RESULT_ERROR_INVALID_SIZE where [Begin, Begin + Count) leaves the (checked) buffer.
#define DGLINK_UR_BUFFER_RANGE(Buffer, Begin, Count)                                               \
  do {                                                                                             \
    if ((Begin) > core(Buffer)->Size || (Count) > core(Buffer)->Size - (Begin))                    \
      return failUr(UR_RESULT_ERROR_INVALID_SIZE,                                                  \
                    "{}: offset {} + size {} is past the buffer's {} bytes", __func__, Begin,      \
                    Count, core(Buffer)->Size);                                                    \
  } while (0)

ur_result_t setArguments(_pi_kernel *Kernel, uint32_t numArgs,
                         const ur_exp_kernel_arg_properties_t *pArgs) {
  for (uint32_t I = 0; I < numArgs; ++I) {
    const ur_exp_kernel_arg_properties_t &Arg = pArgs[I];
    switch (Arg.type) {
    case UR_EXP_KERNEL_ARG_TYPE_VALUE:
      DGLINK_UR_TRY(piKernelSetArg(Kernel, Arg.index, Arg.size, Arg.value.value));
      break;
    case UR_EXP_KERNEL_ARG_TYPE_POINTER:
      // UR passes the pointer itself; the core takes where it is.
      DGLINK_UR_TRY(
          piextKernelSetArgPointer(Kernel, Arg.index, sizeof(void *), &Arg.value.pointer));
      break;
    case UR_EXP_KERNEL_ARG_TYPE_MEM_OBJ: {
      const pi_mem Mem = core(Arg.value.memObjTuple.hMem);
      DGLINK_UR_TRY(piextKernelSetArgMemObj(Kernel, Arg.index, &Mem));
      break;
    }
    case UR_EXP_KERNEL_ARG_TYPE_LOCAL:
      DGLINK_UR_TRY(piKernelSetArg(Kernel, Arg.index, Arg.size, nullptr));
      break;
    case UR_EXP_KERNEL_ARG_TYPE_SAMPLER:
      DGLINK_UR_TRY(core::setSamplerArgument("urEnqueueKernelLaunchWithArgsExp", Kernel, Arg.index,
                                             core(Arg.value.sampler)));
      break;
    default:
      return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION,
                    "urEnqueueKernelLaunchWithArgsExp: argument {} has type {}", Arg.index,
                    static_cast<int>(Arg.type));
    }
  }
  return UR_RESULT_SUCCESS;
}

} // namespace

ur_result_t urEnqueueKernelLaunchWithArgsExp(
    ur_queue_handle_t hQueue, ur_kernel_handle_t hKernel, uint32_t workDim,
    const size_t *pGlobalWorkOffset, const size_t *pGlobalWorkSize, const size_t *pLocalWorkSize,
    uint32_t numArgs, const ur_exp_kernel_arg_properties_t *pArgs,
    const ur_kernel_launch_ext_properties_t *launchPropList, uint32_t numEventsInWaitList,
    const ur_event_handle_t *phEventWaitList, ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_NOT_NULL_POINTER(pGlobalWorkSize);
  if (numArgs != 0 && pArgs == nullptr)
    return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER, "{}: {} arguments but 'pArgs' is null",
                  __func__, numArgs);
  // The one launch flag served: COOPERATIVE, where the device says so (the core checks).
  const ur_kernel_launch_flags_t Flags = launchPropList != nullptr ? launchPropList->flags : 0;
  if ((Flags & UR_KERNEL_LAUNCH_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: launch flags {:#x} are not defined",
                  __func__, static_cast<unsigned>(Flags));
  if ((Flags & ~ur_kernel_launch_flags_t{UR_KERNEL_LAUNCH_FLAG_COOPERATIVE}) != 0)
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE, "{}: launch flags {:#x} are not served",
                  __func__, static_cast<unsigned>(Flags));
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CHECK(hQueue, PI_ERROR_INVALID_QUEUE);
  DGLINK_UR_CHECK(hKernel, PI_ERROR_INVALID_KERNEL);
  if (const ur_result_t R = setArguments(core(hKernel), numArgs, pArgs); R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_CORE(core::enqueueLaunch(
      "urEnqueueKernelLaunchWithArgsExp", core(hQueue), core(hKernel), workDim, pGlobalWorkOffset,
      pGlobalWorkSize, pLocalWorkSize, (Flags & UR_KERNEL_LAUNCH_FLAG_COOPERATIVE) != 0,
      numEventsInWaitList, core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueEventsWait(ur_queue_handle_t hQueue, uint32_t numEventsInWaitList,
                                const ur_event_handle_t *phEventWaitList,
                                ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(
      piEnqueueEventsWait(core(hQueue), numEventsInWaitList, core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueEventsWaitWithBarrier(ur_queue_handle_t hQueue, uint32_t numEventsInWaitList,
                                           const ur_event_handle_t *phEventWaitList,
                                           ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(piEnqueueEventsWaitWithBarrier(core(hQueue), numEventsInWaitList,
                                                core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemBufferRead(ur_queue_handle_t hQueue, ur_mem_handle_t hBuffer,
                                   bool blockingRead, size_t offset, size_t size, void *pDst,
                                   uint32_t numEventsInWaitList,
                                   const ur_event_handle_t *phEventWaitList,
                                   ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CHECK(hBuffer, PI_ERROR_INVALID_MEM_OBJECT);
  DGLINK_UR_BUFFER_RANGE(hBuffer, offset, size);
  DGLINK_UR_CORE(piEnqueueMemBufferRead(core(hQueue), core(hBuffer), blockingRead, offset, size,
                                        pDst, numEventsInWaitList, core(phEventWaitList),
                                        core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemBufferWrite(ur_queue_handle_t hQueue, ur_mem_handle_t hBuffer,
                                    bool blockingWrite, size_t offset, size_t size,
                                    const void *pSrc, uint32_t numEventsInWaitList,
                                    const ur_event_handle_t *phEventWaitList,
                                    ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CHECK(hBuffer, PI_ERROR_INVALID_MEM_OBJECT);
  DGLINK_UR_BUFFER_RANGE(hBuffer, offset, size);
  DGLINK_UR_CORE(piEnqueueMemBufferWrite(core(hQueue), core(hBuffer), blockingWrite, offset, size,
                                         pSrc, numEventsInWaitList, core(phEventWaitList),
                                         core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemBufferCopy(ur_queue_handle_t hQueue, ur_mem_handle_t hBufferSrc,
                                   ur_mem_handle_t hBufferDst, size_t srcOffset, size_t dstOffset,
                                   size_t size, uint32_t numEventsInWaitList,
                                   const ur_event_handle_t *phEventWaitList,
                                   ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hBufferSrc);
  DGLINK_UR_NOT_NULL_HANDLE(hBufferDst);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  return sizeProblem(piEnqueueMemBufferCopy(core(hQueue), core(hBufferSrc), core(hBufferDst),
                                            srcOffset, dstOffset, size, numEventsInWaitList,
                                            core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemBufferFill(ur_queue_handle_t hQueue, ur_mem_handle_t hBuffer,
                                   const void *pPattern, size_t patternSize, size_t offset,
                                   size_t size, uint32_t numEventsInWaitList,
                                   const ur_event_handle_t *phEventWaitList,
                                   ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pPattern);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  return sizeProblem(piEnqueueMemBufferFill(core(hQueue), core(hBuffer), pPattern, patternSize,
                                            offset, size, numEventsInWaitList,
                                            core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemBufferReadRect(ur_queue_handle_t hQueue, ur_mem_handle_t hBuffer,
                                       bool blockingRead, ur_rect_offset_t bufferOrigin,
                                       ur_rect_offset_t hostOrigin, ur_rect_region_t region,
                                       size_t bufferRowPitch, size_t bufferSlicePitch,
                                       size_t hostRowPitch, size_t hostSlicePitch, void *pDst,
                                       uint32_t numEventsInWaitList,
                                       const ur_event_handle_t *phEventWaitList,
                                       ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  pi_buff_rect_offset_struct BufferOrigin = rectOffset(bufferOrigin);
  pi_buff_rect_offset_struct HostOrigin = rectOffset(hostOrigin);
  pi_buff_rect_region_struct Region = rectRegion(region);
  return sizeProblem(piEnqueueMemBufferReadRect(
      core(hQueue), core(hBuffer), blockingRead, &BufferOrigin, &HostOrigin, &Region,
      bufferRowPitch, bufferSlicePitch, hostRowPitch, hostSlicePitch, pDst, numEventsInWaitList,
      core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemBufferWriteRect(ur_queue_handle_t hQueue, ur_mem_handle_t hBuffer,
                                        bool blockingWrite, ur_rect_offset_t bufferOrigin,
                                        ur_rect_offset_t hostOrigin, ur_rect_region_t region,
                                        size_t bufferRowPitch, size_t bufferSlicePitch,
                                        size_t hostRowPitch, size_t hostSlicePitch, void *pSrc,
                                        uint32_t numEventsInWaitList,
                                        const ur_event_handle_t *phEventWaitList,
                                        ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  pi_buff_rect_offset_struct BufferOrigin = rectOffset(bufferOrigin);
  pi_buff_rect_offset_struct HostOrigin = rectOffset(hostOrigin);
  pi_buff_rect_region_struct Region = rectRegion(region);
  return sizeProblem(piEnqueueMemBufferWriteRect(
      core(hQueue), core(hBuffer), blockingWrite, &BufferOrigin, &HostOrigin, &Region,
      bufferRowPitch, bufferSlicePitch, hostRowPitch, hostSlicePitch, pSrc, numEventsInWaitList,
      core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemBufferCopyRect(ur_queue_handle_t hQueue, ur_mem_handle_t hBufferSrc,
                                       ur_mem_handle_t hBufferDst, ur_rect_offset_t srcOrigin,
                                       ur_rect_offset_t dstOrigin, ur_rect_region_t region,
                                       size_t srcRowPitch, size_t srcSlicePitch, size_t dstRowPitch,
                                       size_t dstSlicePitch, uint32_t numEventsInWaitList,
                                       const ur_event_handle_t *phEventWaitList,
                                       ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hBufferSrc);
  DGLINK_UR_NOT_NULL_HANDLE(hBufferDst);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  pi_buff_rect_offset_struct SrcOrigin = rectOffset(srcOrigin);
  pi_buff_rect_offset_struct DstOrigin = rectOffset(dstOrigin);
  pi_buff_rect_region_struct Region = rectRegion(region);
  return sizeProblem(piEnqueueMemBufferCopyRect(
      core(hQueue), core(hBufferSrc), core(hBufferDst), &SrcOrigin, &DstOrigin, &Region,
      srcRowPitch, srcSlicePitch, dstRowPitch, dstSlicePitch, numEventsInWaitList,
      core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

// The barrier with enqueue properties: the one flag UR defines
// (LOW_POWER_EVENTS_SUPPORT) is a hint.
ur_result_t urEnqueueEventsWaitWithBarrierExt(ur_queue_handle_t hQueue,
                                              const ur_exp_enqueue_ext_properties_t *pProperties,
                                              uint32_t numEventsInWaitList,
                                              const ur_event_handle_t *phEventWaitList,
                                              ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  if (pProperties != nullptr && (pProperties->flags & UR_EXP_ENQUEUE_EXT_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: enqueue flags {:#x} are not defined",
                  __func__, static_cast<unsigned>(pProperties->flags));
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(piEnqueueEventsWaitWithBarrier(core(hQueue), numEventsInWaitList,
                                                core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueUSMFill(ur_queue_handle_t hQueue, void *pMem, size_t patternSize,
                             const void *pPattern, size_t size, uint32_t numEventsInWaitList,
                             const ur_event_handle_t *phEventWaitList,
                             ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(pMem);
  DGLINK_UR_NOT_NULL_POINTER(pPattern);
  if (patternSize == 0 || size == 0 || size % patternSize != 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: a pattern of {} bytes does not tile {} bytes",
                  __func__, patternSize, size);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(piextUSMEnqueueFill(core(hQueue), pMem, pPattern, patternSize, size,
                                     numEventsInWaitList, core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t usmHintResult(pi_result Result) {
  return Result == PI_ERROR_INVALID_BUFFER_SIZE ? UR_RESULT_ERROR_INVALID_SIZE : toUr(Result);
}

// Hints: checked as UR's spec says, then what the driver offers (a migration) or a
// command that completes with its event (core::QueueImpl::usmPrefetch/usmAdvise).
ur_result_t urEnqueueUSMPrefetch(ur_queue_handle_t hQueue, const void *pMem, size_t size,
                                 ur_usm_migration_flags_t flags, uint32_t numEventsInWaitList,
                                 const ur_event_handle_t *phEventWaitList,
                                 ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(pMem);
  if ((flags & UR_USM_MIGRATION_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'flags' {:#x} has undefined bits",
                  __func__, static_cast<uint32_t>(flags));
  if (size == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'size' is 0", __func__);
  const core::UsmMigration To = (flags & UR_USM_MIGRATION_FLAG_DEVICE_TO_HOST) != 0
                                    ? core::UsmMigration::ToHost
                                    : core::UsmMigration::ToDevice;
  return usmHintResult(core::enqueueUsmPrefetch(__func__, core(hQueue), pMem, size, To,
                                                numEventsInWaitList, core(phEventWaitList),
                                                core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueUSMAdvise(ur_queue_handle_t hQueue, const void *pMem, size_t size,
                               ur_usm_advice_flags_t advice, ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(pMem);
  if ((advice & UR_USM_ADVICE_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'advice' {:#x} has undefined bits",
                  __func__, static_cast<uint32_t>(advice));
  if (size == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'size' is 0", __func__);
  return usmHintResult(
      core::enqueueUsmAdvise(__func__, core(hQueue), pMem, size, advice, core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueUSMMemcpy(ur_queue_handle_t hQueue, bool blocking, void *pDst,
                               const void *pSrc, size_t size, uint32_t numEventsInWaitList,
                               const ur_event_handle_t *phEventWaitList,
                               ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  if (size == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'size' is 0", __func__);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(piextUSMEnqueueMemcpy(core(hQueue), blocking, pDst, pSrc, size,
                                       numEventsInWaitList, core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

// 2D USM copies and fills, on every backend (core::enqueueUsmCopy2D / Fill2D): UR's
// null checks first, the core's size checks answer INVALID_SIZE.
ur_result_t urEnqueueUSMFill2D(ur_queue_handle_t hQueue, void *pMem, size_t pitch,
                               size_t patternSize, const void *pPattern, size_t width,
                               size_t height, uint32_t numEventsInWaitList,
                               const ur_event_handle_t *phEventWaitList,
                               ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(pMem);
  DGLINK_UR_NOT_NULL_POINTER(pPattern);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  return usmHintResult(core::enqueueUsmFill2D(__func__, core(hQueue), pMem, pitch, pPattern,
                                              patternSize, width, height, numEventsInWaitList,
                                              core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueUSMMemcpy2D(ur_queue_handle_t hQueue, bool blocking, void *pDst,
                                 size_t dstPitch, const void *pSrc, size_t srcPitch, size_t width,
                                 size_t height, uint32_t numEventsInWaitList,
                                 const ur_event_handle_t *phEventWaitList,
                                 ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  return usmHintResult(core::enqueueUsmCopy2D(__func__, core(hQueue), blocking, pDst, dstPitch,
                                              pSrc, srcPitch, width, height, numEventsInWaitList,
                                              core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

// The device's time as a command, where the device records it (core::enqueueTimestamp).
ur_result_t urEnqueueTimestampRecordingExp(ur_queue_handle_t hQueue, bool blocking,
                                           uint32_t numEventsInWaitList,
                                           const ur_event_handle_t *phEventWaitList,
                                           ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(phEvent);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(core::enqueueTimestamp(__func__, core(hQueue), blocking, numEventsInWaitList,
                                        core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

// The device-global copies: the core checks in the contract's order; UR's null checks
// come first.
ur_result_t urEnqueueDeviceGlobalVariableWrite(ur_queue_handle_t hQueue,
                                               ur_program_handle_t hProgram, const char *name,
                                               bool blockingWrite, size_t count, size_t offset,
                                               const void *pSrc, uint32_t numEventsInWaitList,
                                               const ur_event_handle_t *phEventWaitList,
                                               ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_NOT_NULL_POINTER(name);
  DGLINK_UR_NOT_NULL_POINTER(pSrc);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(piextEnqueueDeviceGlobalVariableWrite(
      core(hQueue), core(hProgram), name, blockingWrite, count, offset, pSrc, numEventsInWaitList,
      core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueDeviceGlobalVariableRead(ur_queue_handle_t hQueue,
                                              ur_program_handle_t hProgram, const char *name,
                                              bool blockingRead, size_t count, size_t offset,
                                              void *pDst, uint32_t numEventsInWaitList,
                                              const ur_event_handle_t *phEventWaitList,
                                              ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_NOT_NULL_POINTER(name);
  DGLINK_UR_NOT_NULL_POINTER(pDst);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(piextEnqueueDeviceGlobalVariableRead(
      core(hQueue), core(hProgram), name, blockingRead, count, offset, pDst, numEventsInWaitList,
      core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

// ---- maps ----

// UR's map flags are PI's (OpenCL's) bits; the core keeps the maps (docs/adapter-core.md).
ur_result_t urEnqueueMemBufferMap(ur_queue_handle_t hQueue, ur_mem_handle_t hBuffer,
                                  bool blockingMap, ur_map_flags_t mapFlags, size_t offset,
                                  size_t size, uint32_t numEventsInWaitList,
                                  const ur_event_handle_t *phEventWaitList,
                                  ur_event_handle_t *phEvent, void **ppRetMap) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hBuffer);
  if ((mapFlags & UR_MAP_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: map flags {:#x} are not valid",
                  __func__, static_cast<unsigned>(mapFlags));
  DGLINK_UR_NOT_NULL_POINTER(ppRetMap);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CHECK(hBuffer, PI_ERROR_INVALID_MEM_OBJECT);
  DGLINK_UR_BUFFER_RANGE(hBuffer, offset, size);
  DGLINK_UR_CORE(piEnqueueMemBufferMap(core(hQueue), core(hBuffer), blockingMap, mapFlags, offset,
                                       size, numEventsInWaitList, core(phEventWaitList),
                                       core(phEvent), ppRetMap));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueMemUnmap(ur_queue_handle_t hQueue, ur_mem_handle_t hMem, void *pMappedPtr,
                              uint32_t numEventsInWaitList,
                              const ur_event_handle_t *phEventWaitList,
                              ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_HANDLE(hMem);
  DGLINK_UR_NOT_NULL_POINTER(pMappedPtr);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(piEnqueueMemUnmap(core(hQueue), core(hMem), pMappedPtr, numEventsInWaitList,
                                   core(phEventWaitList), core(phEvent)));
}
DGLINK_UR_CATCH_ALL

// ---- events ----

namespace {

ur_command_t commandOf(pi_command_type Command) {
  switch (Command) {
  case PI_COMMAND_TYPE_NDRANGE_KERNEL:
    return UR_COMMAND_KERNEL_LAUNCH;
  case PI_COMMAND_TYPE_MEM_BUFFER_READ:
    return UR_COMMAND_MEM_BUFFER_READ;
  case PI_COMMAND_TYPE_MEM_BUFFER_WRITE:
    return UR_COMMAND_MEM_BUFFER_WRITE;
  case PI_COMMAND_TYPE_MEM_BUFFER_COPY:
    return UR_COMMAND_MEM_BUFFER_COPY;
  case PI_COMMAND_TYPE_MEM_BUFFER_READ_RECT:
    return UR_COMMAND_MEM_BUFFER_READ_RECT;
  case PI_COMMAND_TYPE_IMAGE_READ:
    return UR_COMMAND_MEM_IMAGE_READ;
  case PI_COMMAND_TYPE_IMAGE_WRITE:
    return UR_COMMAND_MEM_IMAGE_WRITE;
  case PI_COMMAND_TYPE_IMAGE_COPY:
    return UR_COMMAND_MEM_IMAGE_COPY;
  case PI_COMMAND_TYPE_MEM_BUFFER_WRITE_RECT:
    return UR_COMMAND_MEM_BUFFER_WRITE_RECT;
  case PI_COMMAND_TYPE_MEM_BUFFER_COPY_RECT:
    return UR_COMMAND_MEM_BUFFER_COPY_RECT;
  case PI_COMMAND_TYPE_MEM_BUFFER_FILL:
    return UR_COMMAND_MEM_BUFFER_FILL;
  case PI_COMMAND_TYPE_MEM_BUFFER_MAP:
    return UR_COMMAND_MEM_BUFFER_MAP;
  case PI_COMMAND_TYPE_MEM_BUFFER_UNMAP:
    return UR_COMMAND_MEM_UNMAP;
  case PI_COMMAND_TYPE_BARRIER:
    return UR_COMMAND_EVENTS_WAIT_WITH_BARRIER;
  case PI_COMMAND_TYPE_USM_FILL:
    return UR_COMMAND_USM_FILL;
  case PI_COMMAND_TYPE_USM_MEMCPY:
    return UR_COMMAND_USM_MEMCPY;
  case PI_COMMAND_TYPE_USM_PREFETCH:
    return UR_COMMAND_USM_PREFETCH;
  case PI_COMMAND_TYPE_USM_ADVISE:
    return UR_COMMAND_USM_ADVISE;
  case PI_COMMAND_TYPE_DEVICE_GLOBAL_VARIABLE_READ:
    return UR_COMMAND_DEVICE_GLOBAL_VARIABLE_READ;
  case PI_COMMAND_TYPE_DEVICE_GLOBAL_VARIABLE_WRITE:
    return UR_COMMAND_DEVICE_GLOBAL_VARIABLE_WRITE;
  case PI_COMMAND_TYPE_EXT_COMMAND_BUFFER:
    return UR_COMMAND_ENQUEUE_COMMAND_BUFFER_EXP;
  case PI_COMMAND_TYPE_USM_FILL_2D:
    return UR_COMMAND_USM_FILL_2D;
  case PI_COMMAND_TYPE_USM_MEMCPY_2D:
    return UR_COMMAND_USM_MEMCPY_2D;
  case PI_COMMAND_TYPE_TIMESTAMP_RECORDING:
    return UR_COMMAND_TIMESTAMP_RECORDING_EXP;
  case PI_COMMAND_TYPE_MARKER:
    break;
  }
  return UR_COMMAND_EVENTS_WAIT;
}

// A UR callback behind the core's (the same arguments, UR's types): made per
// registration, freed after its one call.
struct UrCallback {
  ur_event_callback_t Notify;
  void *UserData;
};

void callUr(pi_event Event, pi_int32 Status, void *Data) {
  const std::unique_ptr<UrCallback> Callback(static_cast<UrCallback *>(Data));
  Callback->Notify(face(Event), static_cast<ur_execution_info_t>(Status), Callback->UserData);
}

} // namespace

ur_result_t urEventGetProfilingInfo(ur_event_handle_t hEvent, ur_profiling_info_t propName,
                                    size_t propSize, void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hEvent);
  if (propName > UR_PROFILING_INFO_COMMAND_COMPLETE)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: profiling query {:#x} is not defined",
                  __func__, static_cast<unsigned>(propName));
  if (pPropValue != nullptr && propSize == 0)
    return failUr(UR_RESULT_ERROR_INVALID_VALUE, "{}: 'propSize' is 0 with a value to fill",
                  __func__);
  // UR's names are QUEUED = 0 ... COMPLETE = 4 in PI's order.
  const auto Point = static_cast<pi_profiling_info>(PI_PROFILING_INFO_COMMAND_QUEUED + propName);
  if (pPropValue == nullptr) {
    // Both pointers are optional: with no value to fill the call still answers whether the
    // value is there (PROFILING_INFO_NOT_AVAILABLE for an event of a queue without
    // profiling, as UR's CTS checks with both null), so the core is asked into a local.
    uint64_t Unused = 0;
    DGLINK_UR_CORE(
        piEventGetProfilingInfo(core(hEvent), Point, sizeof(Unused), &Unused, pPropSizeRet));
  }
  DGLINK_UR_CORE(piEventGetProfilingInfo(core(hEvent), Point, propSize, pPropValue, pPropSizeRet));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEventSetCallback(ur_event_handle_t hEvent, ur_execution_info_t execStatus,
                               ur_event_callback_t pfnNotify, void *pUserData) try {
  DGLINK_UR_NOT_NULL_HANDLE(hEvent);
  DGLINK_UR_NOT_NULL_POINTER(pfnNotify);
  if (execStatus > UR_EXECUTION_INFO_QUEUED)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: execution state {:#x} is not defined",
                  __func__, static_cast<unsigned>(execStatus));
  if (execStatus == UR_EXECUTION_INFO_QUEUED)
    return failUr(UR_RESULT_ERROR_INVALID_VALUE,
                  "{}: UR_EXECUTION_INFO_QUEUED: commands are submitted when they are enqueued, "
                  "so a callback takes SUBMITTED, RUNNING or COMPLETE",
                  __func__);
  DGLINK_UR_CHECK(hEvent, PI_ERROR_INVALID_EVENT);
  auto Callback = std::make_unique<UrCallback>(UrCallback{pfnNotify, pUserData});
  // UR's execution states have PI's event-status numbers (COMPLETE 0, RUNNING 1, ...).
  DGLINK_UR_TRY(
      piEventSetCallback(core(hEvent), static_cast<pi_int32>(execStatus), callUr, Callback.get()));
  (void)Callback.release(); // freed by its one call
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urEventWait(uint32_t numEvents, const ur_event_handle_t *phEventWaitList) try {
  DGLINK_UR_NOT_NULL_POINTER(phEventWaitList);
  if (numEvents == 0)
    return failUr(UR_RESULT_ERROR_INVALID_VALUE, "{}: 'numEvents' is 0", __func__);
  DGLINK_UR_CORE(piEventsWait(numEvents, core(phEventWaitList)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEventGetInfo(ur_event_handle_t hEvent, ur_event_info_t propName, size_t propSize,
                           void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hEvent);
  DGLINK_UR_CHECK(hEvent, PI_ERROR_INVALID_EVENT);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  _pi_event &Event = *core(hEvent);
  switch (propName) {
  case UR_EVENT_INFO_COMMAND_QUEUE:
    return Answer.value(face(Event.Queue));
  case UR_EVENT_INFO_CONTEXT:
    return Answer.value(face(Event.Context));
  case UR_EVENT_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{Event.RefCount.load()});
  case UR_EVENT_INFO_COMMAND_TYPE:
    return Answer.value(commandOf(Event.Command));
  case UR_EVENT_INFO_COMMAND_EXECUTION_STATUS: {
    pi_int32 Status = PI_EVENT_COMPLETE; // an event of no command (native handle 0)
    if (Event.Impl != nullptr)
      DGLINK_UR_TRY(Event.Impl->status(Status));
    return Answer.value(Status == PI_EVENT_COMPLETE ? UR_EVENT_STATUS_COMPLETE
                                                    : UR_EVENT_STATUS_SUBMITTED);
  }
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

ur_result_t urEventRetain(ur_event_handle_t hEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hEvent);
  DGLINK_UR_CORE(piEventRetain(core(hEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEventRelease(ur_event_handle_t hEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hEvent);
  DGLINK_UR_CORE(piEventRelease(core(hEvent)));
}
DGLINK_UR_CATCH_ALL

} // namespace dglink::ur
