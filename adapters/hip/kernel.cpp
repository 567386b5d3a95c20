// Kernels: hipModuleGetFunction, arguments kept by index in the kernel, launch
// with hipModuleLaunchKernel on the queue's stream.
#include "handles.h"

#include <dglink/support/info.h>

#include <algorithm>
#include <cstring>

namespace dglink::hip {
namespace {

// What a launch passes by value: HIP's NVIDIA platform inherits CUDA's 32764
// bytes of parameters (compute capability 7.0+), AMD's kernarg segment is no
// smaller; the bound also limits their number. HIP cannot describe a kernel's
// parameters, so arguments are passed as set.
constexpr size_t MaxParameterBytes = 32764;

pi_result setArgument(const char *Function, pi_kernel Kernel, pi_uint32 Index, size_t Size,
                      const void *Value) {
  DGLINK_TRY(checkHandle(Kernel, PI_ERROR_INVALID_KERNEL, Function, "Kernel"));
  DGLINK_TRY(checkKernelArgument(Function, Kernel->Name, Index, Size, Value, MaxParameterBytes,
                                 AdapterLabel));
  const size_t Room = Size;
  storeKernelArgument(Kernel->Arguments, Index, Size, Room, Value);
  return PI_SUCCESS;
}

} // namespace
} // namespace dglink::hip

using namespace dglink::hip;

extern "C" PI_API_EXPORT pi_result piKernelCreate(pi_program Program, const char *KernelName,
                                                  pi_kernel *RetKernel) try {
  DGLINK_HIP_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_CHECK_NOT_NULL(KernelName, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetKernel, PI_ERROR_INVALID_VALUE);
  const HipModule Module = Program->Module.load(std::memory_order_acquire);
  if (Module == nullptr)
    return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                        "piKernelCreate: program {} is not an executable for device '{}' (build "
                        "it, or link its compiled objects, first)",
                        fmt::ptr(Program), Program->Context->Device->Name);
  DGLINK_TRY(makeCurrent(*Program->Context->Device));
  HipFunction Function = nullptr;
  const HipError Result = hip().ModuleGetFunction(&Function, Module, KernelName);
  if (Result == HipErrorNotFound || Result == HipErrorInvalidValue)
    return dglink::fail(PI_ERROR_INVALID_KERNEL_NAME,
                        "piKernelCreate: kernel '{}' is not in program {}", KernelName,
                        fmt::ptr(Program));
  if (Result != HipSuccess)
    return hipError(Result, "hipModuleGetFunction");
  auto *Kernel = new _pi_kernel();
  Kernel->Program = Program;
  Kernel->Function = Function;
  Kernel->Name = KernelName;
  int MaxThreads = 0;
  if (hip().FuncMaxThreadsPerBlock(&MaxThreads, Function) == HipSuccess &&
      MaxThreads > 0)
    Kernel->MaxThreadsPerBlock = MaxThreads;
  retain(Program);
  *RetKernel = Kernel;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piKernelSetArg(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                  size_t ArgSize, const void *ArgValue) try {
  return setArgument(__func__, Kernel, ArgIndex, ArgSize, ArgValue);
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextKernelSetArgPointer(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                            size_t ArgSize,
                                                            const void *ArgValue) try {
  // ArgValue points at the pointer value, like any by-value argument.
  return setArgument(__func__, Kernel, ArgIndex, ArgSize, ArgValue);
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextKernelSetArgMemObj(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                           const pi_mem *ArgValue) try {
  void *Pointer = nullptr; // a null buffer is a null pointer, as in OpenCL
  if (ArgValue != nullptr && *ArgValue != nullptr) {
    if (!dglink::ownedBy(*ArgValue, &PluginFunctions))
      return dglink::fail(PI_ERROR_INVALID_MEM_OBJECT,
                          "piextKernelSetArgMemObj: argument {} is not a buffer of the HIP "
                          "adapter",
                          ArgIndex);
    Pointer = (*ArgValue)->Pointer;
  }
  return setArgument(__func__, Kernel, ArgIndex, sizeof(Pointer), &Pointer);
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piKernelGetInfo(pi_kernel Kernel, pi_kernel_info ParamName,
                                                   size_t ParamValueSize, void *ParamValue,
                                                   size_t *ParamValueSizeRet) try {
  DGLINK_HIP_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  auto Value = [&](auto V) {
    return dglink::returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  switch (ParamName) {
  case PI_KERNEL_INFO_FUNCTION_NAME:
    return dglink::returnInfoString(Kernel->Name, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_KERNEL_INFO_NUM_ARGS:
    // HIP cannot describe the parameters: the arguments set so far.
    return Value(static_cast<pi_uint32>(Kernel->Arguments.size()));
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
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piKernelRetain(pi_kernel Kernel) try {
  DGLINK_HIP_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  retain(Kernel);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piKernelRelease(pi_kernel Kernel) try {
  DGLINK_HIP_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  if (dropReference(Kernel)) {
    releaseProgram(Kernel->Program);
    delete Kernel;
  }
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piEnqueueKernelLaunch(
    pi_queue Queue, pi_kernel Kernel, pi_uint32 WorkDim, const size_t *GlobalWorkOffset,
    const size_t *GlobalWorkSize, const size_t *LocalWorkSize, pi_uint32 NumEventsInWaitList,
    const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_HIP_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_HIP_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  const _pi_device &Device = *Queue->Device;
  if (Kernel->Program->Context->Device != Queue->Device)
    return dglink::fail(PI_ERROR_INVALID_CONTEXT,
                        "piEnqueueKernelLaunch: kernel '{}' is not built for device '{}' of the "
                        "queue",
                        Kernel->Name, Device.Name);
  DGLINK_TRY(dglink::checkLaunchShape("piEnqueueKernelLaunch", WorkDim, GlobalWorkOffset,
                                      GlobalWorkSize, AdapterLabel));
  size_t Block[3];
  unsigned Grid[3];
  DGLINK_TRY(dglink::computeLaunchGrid(WorkDim, GlobalWorkSize, LocalWorkSize,
                                       Kernel->MaxThreadsPerBlock, Kernel->Name,
                                       Device.Info.MaxBlockDim, Device.Info.MaxGridDim, Block, Grid));
  DGLINK_TRY(dglink::checkWaitList(NumEventsInWaitList, EventWaitList, &PluginFunctions));

  const size_t NumArgs = Kernel->Arguments.size();
  std::vector<void *> Params;
  DGLINK_TRY(dglink::collectKernelArguments(Kernel->Arguments, NumArgs, Kernel->Name, Params));

  DGLINK_TRY(makeCurrent(*Queue->Device));
  DGLINK_TRY(waitForEvents(*Queue, NumEventsInWaitList, EventWaitList));
  EnqueueEvent Done(*Queue, Event);
  DGLINK_TRY(Done.prepare());
  auto Launch = [&]() -> pi_result {
    const unsigned Blocks[3] = {static_cast<unsigned>(Block[0]), static_cast<unsigned>(Block[1]),
                                static_cast<unsigned>(Block[2])};
    DGLINK_HIP(ModuleLaunchKernel, Kernel->Function, Grid, Blocks, Queue->Stream,
               Params.empty() ? nullptr : Params.data());
    return Done.recordNow();
  };
  return Done.finish(Launch());
}
DGLINK_CATCH_ALL
