// Commands and events through UR: kernel launches with their arguments, copies, fills,
// markers and the device-global copies, each one call into the core.
#include "entry_points.h"

namespace dglink::ur {

namespace {

// UR's wait list rules, checked before the core looks at the events.
ur_result_t checkWaitList(const char *Function, uint32_t Count, const ur_event_handle_t *List) {
  if ((Count == 0) != (List == nullptr))
    return failUr(UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST,
                  "{}: event wait list: {} events but the list pointer is {}", Function, Count,
                  List == nullptr ? "null" : "not null");
  return UR_RESULT_SUCCESS;
}

#define DGLINK_UR_WAIT_LIST(Count, List)                                                           \
  do {                                                                                             \
    if (const ur_result_t DglinkWait_ = checkWaitList(__func__, Count, List);                      \
        DglinkWait_ != UR_RESULT_SUCCESS)                                                          \
      return DglinkWait_;                                                                          \
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
      return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                    "urEnqueueKernelLaunchWithArgsExp: argument {}: samplers are not served",
                    Arg.index);
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
  if (launchPropList != nullptr && launchPropList->flags != 0)
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE, "{}: launch flags {:#x} are not served",
                  __func__, static_cast<unsigned>(launchPropList->flags));
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CHECK(hQueue, PI_ERROR_INVALID_QUEUE);
  DGLINK_UR_CHECK(hKernel, PI_ERROR_INVALID_KERNEL);
  if (const ur_result_t R = setArguments(core(hKernel), numArgs, pArgs); R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_CORE(piEnqueueKernelLaunch(core(hQueue), core(hKernel), workDim, pGlobalWorkOffset,
                                       pGlobalWorkSize, pLocalWorkSize, numEventsInWaitList,
                                       core(phEventWaitList), core(phEvent)));
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
  if (offset > core(hBuffer)->Size || size > core(hBuffer)->Size - offset)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE,
                  "{}: offset {} + size {} is past the buffer's {} bytes", __func__, offset, size,
                  core(hBuffer)->Size);
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
  if (offset > core(hBuffer)->Size || size > core(hBuffer)->Size - offset)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE,
                  "{}: offset {} + size {} is past the buffer's {} bytes", __func__, offset, size,
                  core(hBuffer)->Size);
  DGLINK_UR_CORE(piEnqueueMemBufferWrite(core(hQueue), core(hBuffer), blockingWrite, offset, size,
                                         pSrc, numEventsInWaitList, core(phEventWaitList),
                                         core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urEnqueueUSMFill(ur_queue_handle_t hQueue, void *pMem, size_t patternSize,
                             const void *pPattern, size_t size, uint32_t numEventsInWaitList,
                             const ur_event_handle_t *phEventWaitList,
                             ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(pMem);
  DGLINK_UR_NOT_NULL_POINTER(pPattern);
  if (patternSize == 0 || size == 0 || (patternSize & (patternSize - 1)) != 0 ||
      size % patternSize != 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE,
                  "{}: a pattern of {} bytes (a power of two is needed) does not tile {} bytes",
                  __func__, patternSize, size);
  DGLINK_UR_WAIT_LIST(numEventsInWaitList, phEventWaitList);
  DGLINK_UR_CORE(piextUSMEnqueueFill(core(hQueue), pMem, pPattern, patternSize, size,
                                     numEventsInWaitList, core(phEventWaitList), core(phEvent)));
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

// ---- events ----

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
  case UR_EVENT_INFO_COMMAND_EXECUTION_STATUS: {
    pi_int32 Status = PI_EVENT_COMPLETE;
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
