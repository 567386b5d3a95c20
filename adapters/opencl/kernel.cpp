// Kernels: made from executables, arguments as values, USM pointers (INTEL USM or SVM)
// and buffers; the storage argument of lowered kernels stays hidden from the caller.
#include "backend.h"

#include <algorithm>

namespace dglink::opencl {

pi_result ClProgram::createKernel(_pi_program &Owner, const char *Name,
                                  std::unique_ptr<core::KernelImpl> &Kernel) {
  auto Made = std::make_unique<ClKernel>(*this, Name, nullptr);
  cl_int Error = CL_SUCCESS;
  Made->Kernel = clCreateKernel(Program, Name, &Error);
  if (Error == CL_INVALID_KERNEL_NAME)
    return core::unknownKernel(Name, Owner);
  if (Error != CL_SUCCESS)
    return fail(toPiResult(Error), "piKernelCreate: clCreateKernel failed with {} ({}) for '{}'",
                clErrorName(Error), Error, clip(Name));
  if (Context.Usm == PI_USM_MECHANISM_NATIVE) {
    // USM reached through pointers stored in memory (not kernel arguments) must be declared
    // to the driver; DPC++ declares all three kinds for every kernel, and so does dglink.
    const cl_bool Enable = CL_TRUE;
    for (cl_kernel_exec_info Info : {CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                                     CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
                                     CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL})
      clSetKernelExecInfo(Made->Kernel, Info, sizeof(Enable), &Enable);
  }
  cl_uint NumArgs = 0;
  Error = clGetKernelInfo(Made->Kernel, CL_KERNEL_NUM_ARGS, sizeof(NumArgs), &NumArgs, nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piKernelCreate", "clGetKernelInfo");
  Made->NumArgs = NumArgs;
  if (takesStorage(Owner, Name)) {
    if (NumArgs == 0)
      return fail(PI_ERROR_INVALID_BINARY,
                  "piKernelCreate: kernel '{}' of a lowered image has no device-global storage "
                  "argument",
                  clip(Name));
    Made->TakesStorage = true;
    Made->NumArgs = NumArgs - 1;
  }
  for (const _pi_device *Device : Owner.Devices) {
    size_t GroupSize = 0;
    if (clGetKernelWorkGroupInfo(Made->Kernel, clDevice(*Device).Device, CL_KERNEL_WORK_GROUP_SIZE,
                                 sizeof(GroupSize), &GroupSize, nullptr) == CL_SUCCESS &&
        GroupSize != 0)
      Made->MaxGroupSize = std::min(Made->MaxGroupSize, GroupSize);
  }
  Kernel = std::move(Made);
  return PI_SUCCESS;
}

ClKernel::~ClKernel() {
  if (Kernel != nullptr)
    clReleaseKernel(Kernel);
}

pi_result ClKernel::checkIndex(const char *Function, pi_uint32 Index) const {
  if (TakesStorage && Index >= NumArgs)
    return fail(PI_ERROR_INVALID_ARG_INDEX, "{}: kernel '{}' has {} arguments; ArgIndex {}",
                Function, clip(Name), NumArgs, Index);
  return PI_SUCCESS;
}

pi_result ClKernel::argumentFailure(const char *Function, const char *ClFunction, cl_int Error,
                                    pi_uint32 Index) const {
  return fail(toPiResult(Error), "{}: {} failed with {} ({}) for argument {} of kernel '{}'",
              Function, ClFunction, clErrorName(Error), Error, Index, clip(Name));
}

// A null Value with a size is a local-memory argument, as in OpenCL.
pi_result ClKernel::setArgument(const char *Function, pi_uint32 Index, size_t Size,
                                const void *Value) {
  DGLINK_TRY(checkIndex(Function, Index));
  const cl_int Error = clSetKernelArg(Kernel, Index, Size, Value);
  if (Error != CL_SUCCESS)
    return argumentFailure(Function, "clSetKernelArg", Error, Index);
  return PI_SUCCESS;
}

pi_result ClKernel::setPointerArgument(const char *Function, pi_uint32 Index, size_t,
                                       const void *Value) {
  DGLINK_TRY(checkIndex(Function, Index));
  void *Pointer = *static_cast<void *const *>(Value);
  cl_int Error;
  const char *ClFunction;
  switch (Program.Context.Usm) {
  case PI_USM_MECHANISM_NATIVE:
    ClFunction = "clSetKernelArgMemPointerINTEL";
    Error = Program.Context.IntelUsm->SetKernelArgMemPointer(Kernel, Index, Pointer);
    break;
  case PI_USM_MECHANISM_SVM:
    ClFunction = "clSetKernelArgSVMPointer";
    Error = clSetKernelArgSVMPointer(Kernel, Index, Pointer);
    break;
  default:
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: the devices of this context have no USM path; pass memory buffers with "
                "piextKernelSetArgMemObj",
                Function);
  }
  if (Error != CL_SUCCESS)
    return argumentFailure(Function, ClFunction, Error, Index);
  return PI_SUCCESS;
}

// A null buffer is a null global pointer, which OpenCL allows.
pi_result ClKernel::setBufferArgument(const char *Function, pi_uint32 Index, _pi_mem *Buffer) {
  DGLINK_TRY(checkIndex(Function, Index));
  const cl_mem Mem = Buffer != nullptr ? static_cast<const ClMem &>(*Buffer->Impl).Mem : nullptr;
  const cl_int Error = clSetKernelArg(Kernel, Index, sizeof(cl_mem), &Mem);
  if (Error != CL_SUCCESS)
    return argumentFailure(Function, "clSetKernelArg", Error, Index);
  return PI_SUCCESS;
}

} // namespace dglink::opencl
