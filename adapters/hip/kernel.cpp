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
  if (Index >= MaxParameterBytes)
    return fail(PI_ERROR_INVALID_ARG_INDEX,
                "{}: argument index {} of kernel '{}' is beyond what a HIP launch can pass",
                Function, Index, Kernel->Name);
  if (Value == nullptr)
    return fail(PI_ERROR_INVALID_ARG_VALUE,
                "{}: argument {} of kernel '{}': the value is null (local-memory arguments are "
                "not supported by the HIP adapter)",
                Function, Index, Kernel->Name);
  if (Size == 0 || Size > MaxParameterBytes)
    return fail(PI_ERROR_INVALID_ARG_SIZE,
                "{}: argument {} of kernel '{}' has size {} (1..{} bytes)", Function, Index,
                Kernel->Name, Size, MaxParameterBytes);
  const size_t Room = Size;
  if (Index >= Kernel->Arguments.size())
    Kernel->Arguments.resize(Index + 1);
  _pi_kernel::Argument &Argument = Kernel->Arguments[Index];
  Argument.Storage.assign((Room + 7) / 8, 0);
  std::memcpy(Argument.Storage.data(), Value, Size);
  Argument.Set = true;
  return PI_SUCCESS;
}

// The largest divisor of Global not above Limit (at least 1).
size_t blockSizeFor(size_t Global, size_t Limit) {
  for (size_t Block = std::min(Global, Limit); Block > 1; --Block)
    if (Global % Block == 0)
      return Block;
  return 1;
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
                          "piextKernelSetArgMemObj: argument {} is not a buffer of the CUDA "
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
  size_t Global[3] = {1, 1, 1};
  size_t Block[3] = {1, 1, 1};
  for (pi_uint32 D = 0; D < WorkDim; ++D) {
    Global[D] = GlobalWorkSize[D];
    if (Global[D] == 0)
      return dglink::fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE,
                          "piEnqueueKernelLaunch: global size 0 in dimension {}", D);
  }
  if (LocalWorkSize != nullptr) {
    size_t Threads = 1;
    for (pi_uint32 D = 0; D < WorkDim; ++D) {
      Block[D] = LocalWorkSize[D];
      if (Block[D] == 0 || Global[D] % Block[D] != 0)
        return dglink::fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                            "piEnqueueKernelLaunch: local size {} does not divide global size "
                            "{} in dimension {}",
                            Block[D], Global[D], D);
      if (Block[D] > static_cast<size_t>(Device.Info.MaxBlockDim[D]))
        return dglink::fail(PI_ERROR_INVALID_WORK_ITEM_SIZE,
                            "piEnqueueKernelLaunch: local size {} exceeds {} in dimension {}",
                            Block[D], Device.Info.MaxBlockDim[D], D);
      Threads *= Block[D];
    }
    if (Threads > static_cast<size_t>(Kernel->MaxThreadsPerBlock))
      return dglink::fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                          "piEnqueueKernelLaunch: {} work-items per group, kernel '{}' allows {}",
                          Threads, Kernel->Name, Kernel->MaxThreadsPerBlock);
  } else {
    // The largest blocks that divide the global size (OpenCL's uniform groups),
    // filling dimension 0 first.
    size_t Budget = static_cast<size_t>(Kernel->MaxThreadsPerBlock);
    for (pi_uint32 D = 0; D < WorkDim; ++D) {
      Block[D] = blockSizeFor(Global[D], std::min(Budget, static_cast<size_t>(Device.Info.MaxBlockDim[D])));
      Budget /= Block[D];
    }
  }
  unsigned Grid[3];
  for (int D = 0; D < 3; ++D) {
    const size_t Blocks = Global[D] / Block[D];
    if (Blocks > static_cast<size_t>(Device.Info.MaxGridDim[D]))
      return dglink::fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE,
                          "piEnqueueKernelLaunch: {} groups in dimension {} exceed the device's "
                          "{}",
                          Blocks, D, Device.Info.MaxGridDim[D]);
    Grid[D] = static_cast<unsigned>(Blocks);
  }
  DGLINK_TRY(dglink::checkWaitList(NumEventsInWaitList, EventWaitList, &PluginFunctions));

  const size_t NumArgs = Kernel->Arguments.size();
  std::vector<void *> Params(NumArgs);
  for (size_t I = 0; I < NumArgs; ++I) {
    if (I >= Kernel->Arguments.size() || !Kernel->Arguments[I].Set)
      return dglink::fail(PI_ERROR_INVALID_KERNEL_ARGS,
                          "piEnqueueKernelLaunch: argument {} of kernel '{}' is not set", I,
                          Kernel->Name);
    Params[I] = Kernel->Arguments[I].Storage.data();
  }

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
