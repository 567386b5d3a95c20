// Kernels: zeKernelCreate in the module that holds the name, arguments set on
// the Level Zero kernel, launches appended to the queue's immediate list.
#include "handles.h"

#include <dglink/support/info.h>

#include <algorithm>

namespace dglink::level_zero {
namespace {

pi_result setArgument(const char *Function, pi_kernel Kernel, pi_uint32 Index, size_t Size,
                      const void *Value) {
  DGLINK_TRY(checkHandle(Kernel, PI_ERROR_INVALID_KERNEL, Function, "Kernel"));
  if (Index >= Kernel->NumArgs)
    return fail(PI_ERROR_INVALID_ARG_INDEX, "{}: kernel '{}' has {} arguments, not index {}",
                Function, Kernel->Name, Kernel->NumArgs, Index);
  if (Size == 0)
    return fail(PI_ERROR_INVALID_ARG_SIZE, "{}: argument {} of kernel '{}' has size 0", Function,
                Index, Kernel->Name);
  std::lock_guard<std::mutex> Lock(Kernel->Mutex);
  // A null value with a size is local memory of that size, as in OpenCL.
  const ze_result_t Result = ze().zeKernelSetArgumentValue(Kernel->Kernel, Index, Size, Value);
  if (Result != ZE_RESULT_SUCCESS) {
    zeError(Result, "zeKernelSetArgumentValue");
    return fail(lastErrorCode(), "{}: argument {} ({} bytes) of kernel '{}': {}", Function, Index,
                Size, Kernel->Name, lastErrorMessage());
  }
  return PI_SUCCESS;
}

} // namespace
} // namespace dglink::level_zero

using namespace dglink::level_zero;

extern "C" PI_API_EXPORT pi_result piKernelCreate(pi_program Program, const char *KernelName,
                                                  pi_kernel *RetKernel) {
  DGLINK_ZE_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_CHECK_NOT_NULL(KernelName, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetKernel, PI_ERROR_INVALID_VALUE);
  if (!Program->Executable.load(std::memory_order_acquire))
    return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                        "piKernelCreate: program {} is not an executable for device '{}' (build "
                        "it, or link its compiled objects, first)",
                        fmt::ptr(Program), Program->Context->Device->Name);
  auto Found = std::find_if(Program->Kernels.begin(), Program->Kernels.end(),
                            [&](const auto &Entry) { return Entry.first == KernelName; });
  if (Found == Program->Kernels.end())
    return dglink::fail(PI_ERROR_INVALID_KERNEL_NAME,
                        "piKernelCreate: kernel '{}' is not in program {}", KernelName,
                        fmt::ptr(Program));
  ze_kernel_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
  Desc.pKernelName = KernelName;
  ze_kernel_handle_t Handle = nullptr;
  const ze_result_t Result = ze().zeKernelCreate(Found->second, &Desc, &Handle);
  if (Result == ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
    return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                        "piKernelCreate: kernel '{}': program {} has unresolved imports (link "
                        "it with the images that define them)",
                        KernelName, fmt::ptr(Program));
  if (Result != ZE_RESULT_SUCCESS)
    return zeError(Result, "zeKernelCreate");
  ze_kernel_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  if (const ze_result_t Queried = ze().zeKernelGetProperties(Handle, &Properties);
      Queried != ZE_RESULT_SUCCESS) {
    ze().zeKernelDestroy(Handle);
    return zeError(Queried, "zeKernelGetProperties");
  }
  auto *Kernel = new _pi_kernel();
  Kernel->Program = Program;
  Kernel->Kernel = Handle;
  Kernel->Name = KernelName;
  Kernel->NumArgs = Properties.numKernelArgs;
  retain(Program);
  *RetKernel = Kernel;
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piKernelSetArg(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                  size_t ArgSize, const void *ArgValue) {
  return setArgument(__func__, Kernel, ArgIndex, ArgSize, ArgValue);
}

extern "C" PI_API_EXPORT pi_result piextKernelSetArgPointer(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                            size_t ArgSize, const void *ArgValue) {
  // ArgValue points at the pointer value, like any by-value argument.
  return setArgument(__func__, Kernel, ArgIndex, ArgSize, ArgValue);
}

extern "C" PI_API_EXPORT pi_result piextKernelSetArgMemObj(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                           const pi_mem *ArgValue) {
  void *Pointer = nullptr; // a null buffer is a null pointer, as in OpenCL
  if (ArgValue != nullptr && *ArgValue != nullptr) {
    if (!dglink::ownedBy(*ArgValue, &PluginFunctions))
      return dglink::fail(PI_ERROR_INVALID_MEM_OBJECT,
                          "piextKernelSetArgMemObj: argument {} is not a buffer of the Level "
                          "Zero adapter",
                          ArgIndex);
    Pointer = (*ArgValue)->Pointer;
  }
  return setArgument(__func__, Kernel, ArgIndex, sizeof(Pointer), &Pointer);
}

extern "C" PI_API_EXPORT pi_result piKernelGetInfo(pi_kernel Kernel, pi_kernel_info ParamName,
                                                   size_t ParamValueSize, void *ParamValue,
                                                   size_t *ParamValueSizeRet) {
  DGLINK_ZE_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  auto Value = [&](auto V) {
    return dglink::returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  switch (ParamName) {
  case PI_KERNEL_INFO_FUNCTION_NAME:
    return dglink::returnInfoString(Kernel->Name, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_KERNEL_INFO_NUM_ARGS:
    return Value(pi_uint32{Kernel->NumArgs});
  case PI_KERNEL_INFO_REFERENCE_COUNT:
    return Value(Kernel->RefCount.load());
  case PI_KERNEL_INFO_CONTEXT:
    return Value(static_cast<pi_context>(Kernel->Program->Context));
  case PI_KERNEL_INFO_PROGRAM:
    return Value(static_cast<pi_program>(Kernel->Program));
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piKernelGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}

extern "C" PI_API_EXPORT pi_result piKernelRetain(pi_kernel Kernel) {
  DGLINK_ZE_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  retain(Kernel);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piKernelRelease(pi_kernel Kernel) {
  DGLINK_ZE_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  if (dropReference(Kernel)) {
    ze().zeKernelDestroy(Kernel->Kernel);
    releaseProgram(Kernel->Program);
    delete Kernel;
  }
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piEnqueueKernelLaunch(
    pi_queue Queue, pi_kernel Kernel, pi_uint32 WorkDim, const size_t *GlobalWorkOffset,
    const size_t *GlobalWorkSize, const size_t *LocalWorkSize, pi_uint32 NumEventsInWaitList,
    const pi_event *EventWaitList, pi_event *Event) {
  DGLINK_ZE_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_ZE_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  const _pi_device &Device = *Queue->Device;
  if (Kernel->Program->Context->Device != Queue->Device)
    return dglink::fail(PI_ERROR_INVALID_CONTEXT,
                        "piEnqueueKernelLaunch: kernel '{}' is not built for device '{}' of the "
                        "queue",
                        Kernel->Name, Device.Name);
  DGLINK_TRY(dglink::checkLaunchShape("piEnqueueKernelLaunch", WorkDim, GlobalWorkOffset,
                                      GlobalWorkSize, AdapterLabel));
  uint32_t Global[3] = {1, 1, 1};
  uint32_t Group[3] = {1, 1, 1};
  for (pi_uint32 D = 0; D < WorkDim; ++D) {
    if (GlobalWorkSize[D] == 0 || GlobalWorkSize[D] > UINT32_MAX)
      return dglink::fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE,
                          "piEnqueueKernelLaunch: global size {} in dimension {} is 0 or above "
                          "2^32 - 1",
                          GlobalWorkSize[D], D);
    Global[D] = static_cast<uint32_t>(GlobalWorkSize[D]);
  }
  if (LocalWorkSize != nullptr) {
    size_t Threads = 1;
    for (pi_uint32 D = 0; D < WorkDim; ++D) {
      if (LocalWorkSize[D] == 0 || Global[D] % LocalWorkSize[D] != 0)
        return dglink::fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                            "piEnqueueKernelLaunch: local size {} does not divide global size "
                            "{} in dimension {}",
                            LocalWorkSize[D], Global[D], D);
      if (LocalWorkSize[D] > Device.MaxGroupSizes[D])
        return dglink::fail(PI_ERROR_INVALID_WORK_ITEM_SIZE,
                            "piEnqueueKernelLaunch: local size {} exceeds {} in dimension {}",
                            LocalWorkSize[D], Device.MaxGroupSizes[D], D);
      Group[D] = static_cast<uint32_t>(LocalWorkSize[D]);
      Threads *= LocalWorkSize[D];
    }
    if (Threads > Device.MaxGroupSize)
      return dglink::fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                          "piEnqueueKernelLaunch: {} work-items per group, device '{}' allows {}",
                          Threads, Device.Name, Device.MaxGroupSize);
  }
  DGLINK_TRY(dglink::checkWaitList(NumEventsInWaitList, EventWaitList, &PluginFunctions));

  // Group size and arguments are state of the Level Zero kernel: held until
  // the launch is appended.
  std::lock_guard<std::mutex> Lock(Kernel->Mutex);
  if (LocalWorkSize == nullptr)
    DGLINK_ZE(zeKernelSuggestGroupSize, Kernel->Kernel, Global[0], Global[1], Global[2], &Group[0],
              &Group[1], &Group[2]);
  DGLINK_ZE(zeKernelSetGroupSize, Kernel->Kernel, Group[0], Group[1], Group[2]);
  const ze_group_count_t Groups = {Global[0] / Group[0], Global[1] / Group[1],
                                   Global[2] / Group[2]};
  const pi_result Result =
      enqueue(*Queue, "zeCommandListAppendLaunchKernel", false, NumEventsInWaitList, EventWaitList,
              Event, [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                return ze().zeCommandListAppendLaunchKernel(Queue->List, Kernel->Kernel, &Groups,
                                                            Signal, NumWaits, Waits);
              });
  if (Result == PI_ERROR_UNSUPPORTED_FEATURE && !Device.ExecutesKernels)
    return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                        "piEnqueueKernelLaunch: kernel '{}' not run: device '{}' executes no "
                        "kernels (driver extension {}): {}",
                        Kernel->Name, Device.Name, NoKernelExecutionExtension,
                        dglink::lastErrorMessage());
  return Result;
}
