// Kernels: creation from executables only, arguments (values, USM pointers, buffers), info,
// and the launch.
#include "opencl_adapter.h"

#include <dglink/support/info.h>

namespace {

pi_result kernelArgFailure(const char *Function, const char *ClFunction, cl_int Error,
                           pi_kernel Kernel, pi_uint32 ArgIndex) {
  return dglink::fail(dglink::opencl::toPiResult(Error),
                      "{}: {} failed with {} ({}) for argument {} of kernel '{}'", Function,
                      ClFunction, dglink::opencl::clErrorName(Error), Error, ArgIndex,
                      Kernel->Name);
}

// Arguments past NumArgs do not exist for the caller: the storage argument is dglink's.
pi_result checkArgIndex(const char *Function, pi_kernel Kernel, pi_uint32 ArgIndex) {
  if (Kernel->TakesStorage && ArgIndex >= Kernel->NumArgs)
    return dglink::fail(PI_ERROR_INVALID_ARG_INDEX, "{}: kernel '{}' has {} arguments; ArgIndex {}",
                        Function, Kernel->Name, Kernel->NumArgs, ArgIndex);
  return PI_SUCCESS;
}

} // namespace

using namespace dglink::opencl;

extern "C" {

PI_API_EXPORT pi_result piKernelCreate(pi_program Program, const char *KernelName,
                                       pi_kernel *RetKernel) try {
  DGLINK_OPENCL_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_CHECK_NOT_NULL(KernelName, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetKernel, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkExecutable(__func__, Program));
  auto Kernel = std::make_unique<_pi_kernel>();
  Kernel->Name = KernelName;
  cl_int Error = CL_SUCCESS;
  Kernel->Kernel = clCreateKernel(Program->Program, KernelName, &Error);
  if (Error != CL_SUCCESS)
    return dglink::fail(toPiResult(Error), "{}: clCreateKernel failed with {} ({}) for '{}' in {}",
                        __func__, clErrorName(Error), Error, KernelName, programLabel(Program));
  if (Program->Context->Usm == PI_USM_MECHANISM_NATIVE) {
    // USM reached through pointers stored in memory (not kernel arguments) must be declared
    // to the driver; DPC++ declares all three kinds for every kernel, and so does dglink.
    const cl_bool Enable = CL_TRUE;
    for (cl_kernel_exec_info Info : {CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                                     CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
                                     CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL})
      clSetKernelExecInfo(Kernel->Kernel, Info, sizeof(Enable), &Enable);
  }
  if (Program->Metadata.Lowered &&
      (Program->AllKernelsLowered || Program->LoweredKernels.count(KernelName) != 0)) {
    cl_uint NumArgs = 0;
    Error = clGetKernelInfo(Kernel->Kernel, CL_KERNEL_NUM_ARGS, sizeof(NumArgs), &NumArgs, nullptr);
    if (Error != CL_SUCCESS || NumArgs == 0) {
      clReleaseKernel(Kernel->Kernel);
      if (Error != CL_SUCCESS)
        return clFailure(Error, __func__, "clGetKernelInfo");
      return dglink::fail(PI_ERROR_INVALID_BINARY,
                          "{}: kernel '{}' of a lowered image has no device-global storage "
                          "argument",
                          __func__, KernelName);
    }
    Kernel->TakesStorage = true;
    Kernel->NumArgs = NumArgs - 1;
  }
  Kernel->Program = Program;
  ++Program->RefCount;
  *RetKernel = Kernel.release();
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piKernelSetArg(pi_kernel Kernel, pi_uint32 ArgIndex, size_t ArgSize,
                                       const void *ArgValue) try {
  DGLINK_OPENCL_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  DGLINK_TRY(checkArgIndex(__func__, Kernel, ArgIndex));
  // A null ArgValue with a size is a local-memory argument, as in OpenCL.
  cl_int Error = clSetKernelArg(Kernel->Kernel, ArgIndex, ArgSize, ArgValue);
  if (Error != CL_SUCCESS)
    return kernelArgFailure(__func__, "clSetKernelArg", Error, Kernel, ArgIndex);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextKernelSetArgPointer(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                 size_t ArgSize, const void *ArgValue) try {
  DGLINK_OPENCL_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  DGLINK_TRY(checkArgIndex(__func__, Kernel, ArgIndex));
  // As in DPC++, ArgValue points at the pointer value.
  DGLINK_CHECK_NOT_NULL(ArgValue, PI_ERROR_INVALID_VALUE);
  if (ArgSize != sizeof(void *))
    return dglink::fail(PI_ERROR_INVALID_ARG_SIZE, "{}: ArgSize is {}, a pointer has {} bytes",
                        __func__, ArgSize, sizeof(void *));
  void *Pointer = *static_cast<void *const *>(ArgValue);
  pi_context Context = Kernel->Program->Context;
  cl_int Error;
  const char *ClFunction;
  switch (Context->Usm) {
  case PI_USM_MECHANISM_NATIVE:
    ClFunction = "clSetKernelArgMemPointerINTEL";
    Error = Context->Platform->Usm.SetKernelArgMemPointer(Kernel->Kernel, ArgIndex, Pointer);
    break;
  case PI_USM_MECHANISM_SVM:
    ClFunction = "clSetKernelArgSVMPointer";
    Error = clSetKernelArgSVMPointer(Kernel->Kernel, ArgIndex, Pointer);
    break;
  default:
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "{}: the devices of this context have no USM path; pass memory buffers "
                        "with piextKernelSetArgMemObj",
                        __func__);
  }
  if (Error != CL_SUCCESS)
    return kernelArgFailure(__func__, ClFunction, Error, Kernel, ArgIndex);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextKernelSetArgMemObj(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                const pi_mem *ArgValue) try {
  DGLINK_OPENCL_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  DGLINK_TRY(checkArgIndex(__func__, Kernel, ArgIndex));
  DGLINK_CHECK_NOT_NULL(ArgValue, PI_ERROR_INVALID_VALUE);
  // A null buffer is a null global pointer, which OpenCL allows.
  cl_mem Mem = nullptr;
  if (*ArgValue != nullptr) {
    if (!dglink::ownedBy(*ArgValue, &DispatchTable))
      return dglink::fail(PI_ERROR_INVALID_MEM_OBJECT,
                          "{}: *ArgValue is not a memory object of the OpenCL adapter", __func__);
    Mem = (*ArgValue)->Mem;
  }
  cl_int Error = clSetKernelArg(Kernel->Kernel, ArgIndex, sizeof(cl_mem), &Mem);
  if (Error != CL_SUCCESS)
    return kernelArgFailure(__func__, "clSetKernelArg", Error, Kernel, ArgIndex);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piKernelGetInfo(pi_kernel Kernel, pi_kernel_info ParamName,
                                        size_t ParamValueSize, void *ParamValue,
                                        size_t *ParamValueSizeRet) try {
  DGLINK_OPENCL_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  switch (ParamName) {
  case PI_KERNEL_INFO_FUNCTION_NAME:
    return dglink::returnInfoString(Kernel->Name, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_KERNEL_INFO_NUM_ARGS: {
    if (Kernel->TakesStorage)
      return dglink::returnInfo(static_cast<pi_uint32>(Kernel->NumArgs), ParamValueSize,
                                ParamValue, ParamValueSizeRet);
    cl_uint NumArgs = 0;
    cl_int Error =
        clGetKernelInfo(Kernel->Kernel, CL_KERNEL_NUM_ARGS, sizeof(NumArgs), &NumArgs, nullptr);
    if (Error != CL_SUCCESS)
      return clFailure(Error, __func__, "clGetKernelInfo");
    return dglink::returnInfo(static_cast<pi_uint32>(NumArgs), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  case PI_KERNEL_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Kernel->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_KERNEL_INFO_CONTEXT:
    return dglink::returnInfo(Kernel->Program->Context, ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_KERNEL_INFO_PROGRAM:
    return dglink::returnInfo(Kernel->Program, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: unknown ParamName 0x{:x}", __func__,
                      static_cast<unsigned>(ParamName));
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piKernelRetain(pi_kernel Kernel) try {
  DGLINK_OPENCL_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  ++Kernel->RefCount;
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piKernelRelease(pi_kernel Kernel) try {
  DGLINK_OPENCL_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  if (--Kernel->RefCount == 0) {
    clReleaseKernel(Kernel->Kernel);
    releaseReference(Kernel->Program);
    delete Kernel;
  }
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueKernelLaunch(pi_queue Queue, pi_kernel Kernel, pi_uint32 WorkDim,
                                              const size_t *GlobalWorkOffset,
                                              const size_t *GlobalWorkSize,
                                              const size_t *LocalWorkSize,
                                              pi_uint32 NumEventsInWaitList,
                                              const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_OPENCL_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  if (Kernel->Program->Context != Queue->Context)
    return dglink::fail(PI_ERROR_INVALID_CONTEXT,
                        "{}: kernel '{}' and the queue belong to different contexts", __func__,
                        Kernel->Name);
  if (WorkDim < 1 || WorkDim > 3)
    return dglink::fail(PI_ERROR_INVALID_WORK_DIMENSION, "{}: WorkDim is {}, expected 1 to 3",
                        __func__, WorkDim);
  // OpenCL's code for a missing global size.
  DGLINK_CHECK_NOT_NULL(GlobalWorkSize, PI_ERROR_INVALID_GLOBAL_WORK_SIZE);
  DGLINK_TRY(checkQueueWaitList(Queue, NumEventsInWaitList, EventWaitList));
  if (Queue->Context->Usm == PI_USM_MECHANISM_SVM) {
    // SVM reached through pointers stored in memory (a pointer in a struct, a device
    // global holding a USM pointer) must be named to the driver before the launch;
    // arguments are covered by clSetKernelArgSVMPointer. Every allocation of the context
    // is named, as DPC++ does for indirect USM access.
    std::vector<void *> Allocations;
    {
      std::lock_guard<std::mutex> Lock(Queue->Context->UsmMutex);
      Allocations.reserve(Queue->Context->UsmAllocations.size());
      for (const auto &Allocation : Queue->Context->UsmAllocations)
        Allocations.push_back(Allocation.first);
    }
    if (!Allocations.empty()) {
      const cl_int InfoError =
          clSetKernelExecInfo(Kernel->Kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                              Allocations.size() * sizeof(void *), Allocations.data());
      if (InfoError != CL_SUCCESS)
        return dglink::fail(toPiResult(InfoError),
                            "{}: clSetKernelExecInfo(CL_KERNEL_EXEC_INFO_SVM_PTRS) failed with "
                            "{} ({}) for kernel '{}'",
                            __func__, clErrorName(InfoError), InfoError, Kernel->Name);
    }
  }
  ClEventList WaitList(NumEventsInWaitList, EventWaitList);
  PendingEvent Pending(Queue, Event);
  // A lowered kernel gets the storage of its program on the queue's device; the argument
  // and the enqueue happen under one lock, so that launches on two devices do not mix.
  std::unique_lock<std::mutex> Launch(Kernel->LaunchMutex, std::defer_lock);
  if (Kernel->TakesStorage) {
    if (!Kernel->Program->hasDevice(Queue->Device))
      return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                          "{}: kernel '{}' is of {}, which is not built for device '{}' (the "
                          "queue's device)",
                          __func__, Kernel->Name, programLabel(Kernel->Program),
                          Queue->Device->Name);
    cl_mem Storage = nullptr;
    DGLINK_TRY(loweredStorage(__func__, Kernel->Program, Queue->Device, Storage));
    Launch.lock();
    const cl_int ArgError = clSetKernelArg(Kernel->Kernel, Kernel->NumArgs, sizeof(cl_mem), &Storage);
    if (ArgError != CL_SUCCESS)
      return kernelArgFailure(__func__, "clSetKernelArg", ArgError, Kernel, Kernel->NumArgs);
  }
  cl_int Error = clEnqueueNDRangeKernel(Queue->Queue, Kernel->Kernel, WorkDim, GlobalWorkOffset,
                                        GlobalWorkSize, LocalWorkSize, WaitList.size(),
                                        WaitList.data(), Pending.clEvent());
  if (Error != CL_SUCCESS)
    return dglink::fail(toPiResult(Error),
                        "{}: clEnqueueNDRangeKernel failed with {} ({}) for kernel '{}' on "
                        "device '{}'",
                        __func__, clErrorName(Error), Error, Kernel->Name, Queue->Device->Name);
  Pending.commit();
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

} // extern "C"
