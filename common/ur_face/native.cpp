// urXGetNativeHandle: the driver's own handle of a dglink object (cl_context,
// CUstream, ze_kernel_handle_t, a device address, ...), from the backend's hook
// (core::BackendObject::nativeHandle). The handle stays dglink's: the caller uses it
// while the dglink object lives and never releases it. urXCreateWithNativeHandle: the
// discovered platform or device of a driver handle; contexts, queues, events, buffers,
// programs and kernels adopted by the backend (core::*FromNative; docs/ur.md says what
// each backend takes).
#include "entry_points.h"

#include <mutex>

namespace dglink::ur {

namespace {

template <typename CoreObject>
ur_result_t answerNative(const char *Function, const char *What, const CoreObject &Object,
                         ur_native_handle_t *Out) {
  uintptr_t Handle = 0;
  if (Object.Impl == nullptr || !Object.Impl->nativeHandle(Handle))
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                  "{}: the {} driver has no handle of its own for this {} (docs/ur.md)", Function,
                  core::backend().label(), What);
  *Out = Handle;
  return UR_RESULT_SUCCESS;
}

} // namespace

ur_result_t urPlatformGetNativeHandle(ur_platform_handle_t hPlatform,
                                      ur_native_handle_t *phNativePlatform) try {
  DGLINK_UR_NOT_NULL_HANDLE(hPlatform);
  DGLINK_UR_NOT_NULL_POINTER(phNativePlatform);
  DGLINK_UR_CHECK(hPlatform, PI_ERROR_INVALID_PLATFORM);
  return answerNative(__func__, "platform", *core(hPlatform), phNativePlatform);
}
DGLINK_UR_CATCH_ALL

ur_result_t urDeviceGetNativeHandle(ur_device_handle_t hDevice,
                                    ur_native_handle_t *phNativeDevice) try {
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_NOT_NULL_POINTER(phNativeDevice);
  DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
  return answerNative(__func__, "device", *core(hDevice), phNativeDevice);
}
DGLINK_UR_CATCH_ALL

ur_result_t urContextGetNativeHandle(ur_context_handle_t hContext,
                                     ur_native_handle_t *phNativeContext) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phNativeContext);
  DGLINK_UR_CHECK(hContext, PI_ERROR_INVALID_CONTEXT);
  return answerNative(__func__, "context", *core(hContext), phNativeContext);
}
DGLINK_UR_CATCH_ALL

ur_result_t urQueueGetNativeHandle(ur_queue_handle_t hQueue, ur_queue_native_desc_t *pDesc,
                                   ur_native_handle_t *phNativeQueue) try {
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(phNativeQueue);
  DGLINK_UR_CHECK(hQueue, PI_ERROR_INVALID_QUEUE);
  if (pDesc != nullptr && pDesc->stype != UR_STRUCTURE_TYPE_QUEUE_NATIVE_DESC)
    return failUr(UR_RESULT_ERROR_INVALID_VALUE,
                  "{}: 'pDesc' is not a ur_queue_native_desc_t (stype {})", __func__,
                  static_cast<int>(pDesc->stype));
  return answerNative(__func__, "queue", *core(hQueue), phNativeQueue);
}
DGLINK_UR_CATCH_ALL

ur_result_t urMemGetNativeHandle(ur_mem_handle_t hMem, ur_device_handle_t hDevice,
                                 ur_native_handle_t *phNativeMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hMem);
  DGLINK_UR_NOT_NULL_POINTER(phNativeMem);
  DGLINK_UR_CHECK(hMem, PI_ERROR_INVALID_MEM_OBJECT);
  if (hDevice != nullptr) {
    DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
    if (!core(hMem)->Context->hasDevice(core(hDevice)))
      return failUr(UR_RESULT_ERROR_INVALID_DEVICE,
                    "{}: 'hDevice' is not a device of the buffer's context", __func__);
  }
  return answerNative(__func__, "buffer", *core(hMem), phNativeMem);
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramGetNativeHandle(ur_program_handle_t hProgram,
                                     ur_native_handle_t *phNativeProgram) try {
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_NOT_NULL_POINTER(phNativeProgram);
  DGLINK_UR_CHECK(hProgram, PI_ERROR_INVALID_PROGRAM);
  // Not while a build or a link fills in the backend's objects.
  const std::lock_guard<std::mutex> Lock(core(hProgram)->Mutex);
  return answerNative(__func__, "program", *core(hProgram), phNativeProgram);
}
DGLINK_UR_CATCH_ALL

ur_result_t urKernelGetNativeHandle(ur_kernel_handle_t hKernel,
                                    ur_native_handle_t *phNativeKernel) try {
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_NOT_NULL_POINTER(phNativeKernel);
  DGLINK_UR_CHECK(hKernel, PI_ERROR_INVALID_KERNEL);
  return answerNative(__func__, "kernel", *core(hKernel), phNativeKernel);
}
DGLINK_UR_CATCH_ALL

ur_result_t urEventGetNativeHandle(ur_event_handle_t hEvent,
                                   ur_native_handle_t *phNativeEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hEvent);
  DGLINK_UR_NOT_NULL_POINTER(phNativeEvent);
  DGLINK_UR_CHECK(hEvent, PI_ERROR_INVALID_EVENT);
  return answerNative(__func__, "event", *core(hEvent), phNativeEvent);
}
DGLINK_UR_CATCH_ALL

ur_result_t urPlatformCreateWithNativeHandle(ur_native_handle_t hNativePlatform,
                                             ur_adapter_handle_t hAdapter,
                                             const ur_platform_native_properties_t *,
                                             ur_platform_handle_t *phPlatform) try {
  DGLINK_UR_NOT_NULL_HANDLE(hAdapter);
  DGLINK_UR_NOT_NULL_POINTER(phPlatform);
  DGLINK_UR_CORE(core::platformFromNative(__func__, hNativePlatform,
                                          reinterpret_cast<pi_platform *>(phPlatform)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urDeviceCreateWithNativeHandle(ur_native_handle_t hNativeDevice,
                                           ur_adapter_handle_t hAdapter,
                                           const ur_device_native_properties_t *,
                                           ur_device_handle_t *phDevice) try {
  DGLINK_UR_NOT_NULL_HANDLE(hAdapter);
  DGLINK_UR_NOT_NULL_POINTER(phDevice);
  DGLINK_UR_CORE(core::deviceFromNative(__func__, hNativeDevice, nullptr,
                                        reinterpret_cast<pi_device *>(phDevice)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urQueueCreateWithNativeHandle(ur_native_handle_t hNativeQueue,
                                          ur_context_handle_t hContext, ur_device_handle_t hDevice,
                                          const ur_queue_native_properties_t *pProperties,
                                          ur_queue_handle_t *phQueue) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phQueue);
  const bool Owned = pProperties != nullptr && pProperties->isNativeHandleOwned;
  DGLINK_UR_CORE(core::queueFromNative(__func__, hNativeQueue, core(hContext), core(hDevice), Owned,
                                       reinterpret_cast<pi_queue *>(phQueue)));
}
DGLINK_UR_CATCH_ALL

// The native handle 0 (no driver event: UR's CTS makes its dummy wait-list events so)
// is an event of no command, complete from the start.
ur_result_t urEventCreateWithNativeHandle(ur_native_handle_t hNativeEvent,
                                          ur_context_handle_t hContext,
                                          const ur_event_native_properties_t *pProperties,
                                          ur_event_handle_t *phEvent) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phEvent);
  const bool Owned = pProperties != nullptr && pProperties->isNativeHandleOwned;
  DGLINK_UR_CORE(
      core::eventFromNative(__func__, hNativeEvent, core(hContext), Owned, core(phEvent)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urContextCreateWithNativeHandle(ur_native_handle_t hNativeContext,
                                            ur_adapter_handle_t hAdapter, uint32_t numDevices,
                                            const ur_device_handle_t *phDevices,
                                            const ur_context_native_properties_t *pProperties,
                                            ur_context_handle_t *phContext) try {
  DGLINK_UR_NOT_NULL_HANDLE(hAdapter);
  DGLINK_UR_NOT_NULL_POINTER(phContext);
  const bool Owned = pProperties != nullptr && pProperties->isNativeHandleOwned;
  DGLINK_UR_CORE(core::contextFromNative(__func__, hNativeContext, numDevices,
                                         reinterpret_cast<const pi_device *>(phDevices), Owned,
                                         reinterpret_cast<pi_context *>(phContext)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urMemBufferCreateWithNativeHandle(ur_native_handle_t hNativeMem,
                                              ur_context_handle_t hContext,
                                              const ur_mem_native_properties_t *pProperties,
                                              ur_mem_handle_t *phMem) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phMem);
  const bool Owned = pProperties != nullptr && pProperties->isNativeHandleOwned;
  DGLINK_UR_CORE(core::bufferFromNative(__func__, hNativeMem, core(hContext), Owned,
                                        reinterpret_cast<pi_mem *>(phMem)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramCreateWithNativeHandle(ur_native_handle_t hNativeProgram,
                                            ur_context_handle_t hContext,
                                            const ur_program_native_properties_t *pProperties,
                                            ur_program_handle_t *phProgram) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phProgram);
  const bool Owned = pProperties != nullptr && pProperties->isNativeHandleOwned;
  DGLINK_UR_CORE(core::programFromNative(__func__, hNativeProgram, core(hContext), Owned,
                                         reinterpret_cast<pi_program *>(phProgram)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urKernelCreateWithNativeHandle(ur_native_handle_t hNativeKernel,
                                           ur_context_handle_t hContext,
                                           ur_program_handle_t hProgram,
                                           const ur_kernel_native_properties_t *pProperties,
                                           ur_kernel_handle_t *phKernel) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phKernel);
  const bool Owned = pProperties != nullptr && pProperties->isNativeHandleOwned;
  const pi_result Result =
      core::kernelFromNative(__func__, hNativeKernel, core(hContext), core(hProgram), Owned,
                             reinterpret_cast<pi_kernel *>(phKernel));
  // A backend whose kernels do not name their program needs hProgram: UR's code for the
  // missing handle (the message says so).
  if (hProgram == nullptr && Result == PI_ERROR_INVALID_PROGRAM)
    return UR_RESULT_ERROR_INVALID_NULL_HANDLE;
  return toUr(Result);
}
DGLINK_UR_CATCH_ALL

} // namespace dglink::ur
