// Kernels: cuModuleGetFunction, arguments kept by index in the kernel, launch
// with cuLaunchKernel on the queue's stream.
#include "handles.h"

#include <dglink/support/info.h>

#include <algorithm>
#include <cstring>

namespace dglink::cuda {
namespace {

// CUDA's limits on what a launch passes by value: 32764 bytes of parameters
// (compute capability 7.0+, CUDA 12.1+), which also bounds their number.
constexpr size_t MaxParameterBytes = 32764;

// Parameter sizes from the driver (CUDA 12.4+); false where it cannot say.
bool readParamSizes(CUfunction Function, std::vector<size_t> &Sizes) {
  if (cu().cuFuncGetParamInfo == nullptr)
    return false;
  for (size_t Index = 0;; ++Index) {
    size_t Offset = 0, Size = 0;
    const CUresult Result = cu().cuFuncGetParamInfo(Function, Index, &Offset, &Size);
    // Past the last parameter. A kernel said to take none is treated as unknown:
    // arguments are then passed as set, so a driver that cannot describe a
    // module's kernels costs checks, not launches.
    if (Result == CUDA_ERROR_INVALID_VALUE)
      return !Sizes.empty();
    if (Result != CUDA_SUCCESS) {
      Sizes.clear();
      return false;
    }
    Sizes.push_back(Size);
  }
}

pi_result setArgument(const char *Function, pi_kernel Kernel, pi_uint32 Index, size_t Size,
                      const void *Value) {
  DGLINK_TRY(checkHandle(Kernel, PI_ERROR_INVALID_KERNEL, Function, "Kernel"));
  if (Kernel->ParamSizesKnown && Index >= Kernel->ParamSizes.size())
    return fail(PI_ERROR_INVALID_ARG_INDEX, "{}: kernel '{}' has {} arguments, not index {}",
                Function, Kernel->Name, Kernel->ParamSizes.size(), Index);
  // Where the driver cannot describe the parameters, CUDA's own limits still hold.
  DGLINK_TRY(checkKernelArgument(Function, Kernel->Name, Index, Size, Value, MaxParameterBytes,
                                 AdapterLabel));
  size_t Room = Size;
  if (Kernel->ParamSizesKnown) {
    if (Size != Kernel->ParamSizes[Index])
      return fail(PI_ERROR_INVALID_ARG_SIZE,
                  "{}: argument {} of kernel '{}' is {} bytes, not {}", Function, Index,
                  Kernel->Name, Kernel->ParamSizes[Index], Size);
    Room = std::max(Size, Kernel->ParamSizes[Index]);
  }
  storeKernelArgument(Kernel->Arguments, Index, Size, Room, Value);
  return PI_SUCCESS;
}

} // namespace
} // namespace dglink::cuda

using namespace dglink::cuda;

extern "C" PI_API_EXPORT pi_result piKernelCreate(pi_program Program, const char *KernelName,
                                                  pi_kernel *RetKernel) try {
  DGLINK_CUDA_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_CHECK_NOT_NULL(KernelName, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetKernel, PI_ERROR_INVALID_VALUE);
  const CUmodule Module = Program->Module.load(std::memory_order_acquire);
  if (Module == nullptr)
    return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                        "piKernelCreate: program {} is not an executable for device '{}' (build "
                        "it, or link its compiled objects, first)",
                        fmt::ptr(Program), Program->Context->Device->Name);
  DGLINK_TRY(makeCurrent(Program->Context->Context));
  CUfunction Function = nullptr;
  const CUresult Result = cu().cuModuleGetFunction(&Function, Module, KernelName);
  if (Result == CUDA_ERROR_NOT_FOUND)
    return dglink::fail(PI_ERROR_INVALID_KERNEL_NAME,
                        "piKernelCreate: kernel '{}' is not in program {}", KernelName,
                        fmt::ptr(Program));
  if (Result != CUDA_SUCCESS)
    return cudaError(Result, "cuModuleGetFunction");
  auto *Kernel = new _pi_kernel();
  Kernel->Program = Program;
  Kernel->Function = Function;
  Kernel->Name = KernelName;
  int MaxThreads = 0;
  if (cu().cuFuncGetAttribute(&MaxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, Function) ==
          CUDA_SUCCESS &&
      MaxThreads > 0)
    Kernel->MaxThreadsPerBlock = MaxThreads;
  Kernel->ParamSizesKnown = readParamSizes(Function, Kernel->ParamSizes);
  Kernel->Arguments.resize(Kernel->ParamSizes.size());
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
  CUdeviceptr Pointer = 0; // a null buffer is a null pointer, as in OpenCL
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
  DGLINK_CUDA_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  auto Value = [&](auto V) {
    return dglink::returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  switch (ParamName) {
  case PI_KERNEL_INFO_FUNCTION_NAME:
    return dglink::returnInfoString(Kernel->Name, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_KERNEL_INFO_NUM_ARGS:
    // Without the driver's parameter info: the arguments set so far.
    return Value(static_cast<pi_uint32>(Kernel->ParamSizesKnown ? Kernel->ParamSizes.size()
                                                                : Kernel->Arguments.size()));
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
  DGLINK_CUDA_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  retain(Kernel);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piKernelRelease(pi_kernel Kernel) try {
  DGLINK_CUDA_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
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
  DGLINK_CUDA_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CUDA_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
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
                                       Device.MaxBlockDim, Device.MaxGridDim, Block, Grid));
  DGLINK_TRY(dglink::checkWaitList(NumEventsInWaitList, EventWaitList, &PluginFunctions));

  const size_t NumArgs =
      Kernel->ParamSizesKnown ? Kernel->ParamSizes.size() : Kernel->Arguments.size();
  std::vector<void *> Params;
  DGLINK_TRY(dglink::collectKernelArguments(Kernel->Arguments, NumArgs, Kernel->Name, Params));

  DGLINK_TRY(makeCurrent(Queue->Context->Context));
  DGLINK_TRY(waitForEvents(*Queue, NumEventsInWaitList, EventWaitList));
  EnqueueEvent Done(*Queue, Event);
  DGLINK_TRY(Done.prepare());
  auto Launch = [&]() -> pi_result {
    DGLINK_CU(cuLaunchKernel, Kernel->Function, Grid[0], Grid[1], Grid[2],
              static_cast<unsigned>(Block[0]), static_cast<unsigned>(Block[1]),
              static_cast<unsigned>(Block[2]), 0, Queue->Stream,
              Params.empty() ? nullptr : Params.data(), nullptr);
    return Done.recordNow();
  };
  return Done.finish(Launch());
}
DGLINK_CATCH_ALL
