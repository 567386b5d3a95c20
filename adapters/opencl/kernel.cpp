// Kernels: made from executables, arguments as values, USM pointers (INTEL USM or SVM)
// and buffers; the storage argument of lowered kernels stays hidden from the caller.
#include "backend.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

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
  DGLINK_TRY(describeKernel("piKernelCreate", Owner, *Made));
  Kernel = std::move(Made);
  return PI_SUCCESS;
}

pi_result ClProgram::describeKernel(const char *Function, const _pi_program &Owner,
                                    ClKernel &Made) {
  if (Context.Usm == PI_USM_MECHANISM_NATIVE) {
    // USM reached through pointers stored in memory (not kernel arguments) must be declared
    // to the driver; DPC++ declares all three kinds for every kernel, and so does dglink.
    const cl_bool Enable = CL_TRUE;
    for (cl_kernel_exec_info Info : {CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                                     CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
                                     CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL})
      clSetKernelExecInfo(Made.Kernel, Info, sizeof(Enable), &Enable);
  }
  cl_uint NumArgs = 0;
  const cl_int Error =
      clGetKernelInfo(Made.Kernel, CL_KERNEL_NUM_ARGS, sizeof(NumArgs), &NumArgs, nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetKernelInfo");
  Made.NumArgs = NumArgs;
  if (takesStorage(Owner, Made.Name)) {
    if (NumArgs == 0)
      return fail(PI_ERROR_INVALID_BINARY,
                  "{}: kernel '{}' of a lowered image has no device-global storage argument",
                  Function, clip(Made.Name));
    Made.TakesStorage = true;
    Made.NumArgs = NumArgs - 1;
  }
  for (const _pi_device *Device : Owner.Devices) {
    size_t GroupSize = 0;
    if (clGetKernelWorkGroupInfo(Made.Kernel, clDevice(*Device).Device, CL_KERNEL_WORK_GROUP_SIZE,
                                 sizeof(GroupSize), &GroupSize, nullptr) == CL_SUCCESS &&
        GroupSize != 0)
      Made.MaxGroupSize = std::min(Made.MaxGroupSize, GroupSize);
  }
  return PI_SUCCESS;
}

pi_result ClContext::programOfKernel(const char *Function, uintptr_t Native, uintptr_t &Out) {
  cl_program Program = nullptr;
  const cl_int Error = clGetKernelInfo(reinterpret_cast<cl_kernel>(Native), CL_KERNEL_PROGRAM,
                                       sizeof(cl_program), // NOLINT(bugprone-sizeof-expression)
                                       &Program, nullptr);
  if (Error != CL_SUCCESS)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no OpenCL kernel (clGetKernelInfo: {})", Function,
                Native, clErrorName(Error));
  Out = reinterpret_cast<uintptr_t>(Program);
  return PI_SUCCESS;
}

pi_result ClProgram::adoptKernel(const char *Function, uintptr_t Native, bool Owned,
                                 _pi_program &Owner, std::string &Name,
                                 std::unique_ptr<core::KernelImpl> &Kernel) {
  auto *NativeKernel = reinterpret_cast<cl_kernel>(Native);
  uintptr_t Of = 0;
  DGLINK_TRY(Context.programOfKernel(Function, Native, Of));
  if (reinterpret_cast<cl_program>(Of) != Program)
    return fail(PI_ERROR_INVALID_PROGRAM,
                "{}: the OpenCL kernel belongs to another program than the one given", Function);
  size_t Size = 0;
  cl_int Error = clGetKernelInfo(NativeKernel, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &Size);
  std::string Found(Size, '\0');
  if (Error == CL_SUCCESS)
    Error = clGetKernelInfo(NativeKernel, CL_KERNEL_FUNCTION_NAME, Size, Found.data(), nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetKernelInfo");
  Found.resize(std::strlen(Found.c_str()));
  auto Made = std::make_unique<ClKernel>(*this, Found, NativeKernel);
  pi_result Result = describeKernel(Function, Owner, *Made);
  if (Result == PI_SUCCESS && !Owned) {
    Error = clRetainKernel(NativeKernel);
    if (Error != CL_SUCCESS)
      Result = clFailure(Error, Function, "clRetainKernel");
  }
  if (Result != PI_SUCCESS) {
    Made->Kernel = nullptr; // the caller's kernel stays the caller's
    return Result;
  }
  Name = std::move(Found);
  Kernel = std::move(Made);
  return PI_SUCCESS;
}

ClKernel::~ClKernel() {
  if (Kernel != nullptr)
    clReleaseKernel(Kernel);
}

pi_result ClKernel::checkGlobalOffset(const char *Function, pi_uint32, const size_t *) const {
  if (Program.DriverFormat != ImageFormat::Ptx)
    return PI_SUCCESS;
  return fail(PI_ERROR_INVALID_VALUE,
              "{}: kernel '{}' runs as PTX ({}), whose work-item ids come from PTX's special "
              "registers without the launch's global offset: the OpenCL adapter launches it "
              "with global offset 0 only",
              Function, clip(Name),
              Program.Format == ImageFormat::SpirV ? "SPIR-V translated for a device without IL"
                                                   : "a PTX image");
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

namespace dglink::opencl {

namespace {

// The device runs OpenCL 2.1 or later: clGetKernelSubGroupInfo is core there.
bool hasKernelSubGroupQueries(const _pi_device &Device) {
  int Major = 0, Minor = 0;
  if (std::sscanf(Device.Description.Version.c_str(), "OpenCL %d.%d", &Major, &Minor) != 2)
    return false;
  return std::make_pair(Major, Minor) >= std::make_pair(2, 1);
}

} // namespace

// clGetKernelWorkGroupInfo for the resources; clGetKernelSubGroupInfo (OpenCL 2.1+) for
// the sub-groups, where the device has them: a device without sub-groups answers
// CL_INVALID_OPERATION and keeps the device's facts the core filled in.
pi_result ClKernel::properties(const _pi_device &Device, core::KernelDeviceProperties &Out) const {
  const cl_device_id Id = clDevice(Device).Device;
  auto GroupInfo = [&](cl_kernel_work_group_info Param, size_t &Value) -> pi_result {
    const cl_int Error =
        clGetKernelWorkGroupInfo(Kernel, Id, Param, sizeof(Value), &Value, nullptr);
    if (Error != CL_SUCCESS)
      return clFailure(Error, "urKernelGetGroupInfo", "clGetKernelWorkGroupInfo");
    return PI_SUCCESS;
  };
  cl_ulong Local = 0, Private = 0;
  const cl_int LocalError = clGetKernelWorkGroupInfo(Kernel, Id, CL_KERNEL_LOCAL_MEM_SIZE,
                                                     sizeof(Local), &Local, nullptr);
  if (LocalError != CL_SUCCESS)
    return clFailure(LocalError, "urKernelGetGroupInfo", "clGetKernelWorkGroupInfo");
  const cl_int PrivateError = clGetKernelWorkGroupInfo(Kernel, Id, CL_KERNEL_PRIVATE_MEM_SIZE,
                                                       sizeof(Private), &Private, nullptr);
  if (PrivateError != CL_SUCCESS)
    return clFailure(PrivateError, "urKernelGetGroupInfo", "clGetKernelWorkGroupInfo");
  size_t Multiple = 1;
  DGLINK_TRY(GroupInfo(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, Multiple));
  Out.LocalMemSize = static_cast<size_t>(Local);
  Out.PrivateMemSize = static_cast<size_t>(Private);
  Out.PreferredGroupSizeMultiple = Multiple;
  if (!hasKernelSubGroupQueries(Device))
    return PI_SUCCESS;
  auto SubGroupInfo = [&](cl_kernel_sub_group_info Param, const size_t *Input, size_t InputBytes,
                          pi_uint32 &Value) {
    size_t Answer = 0;
    if (clGetKernelSubGroupInfo(Kernel, Id, Param, InputBytes, Input, sizeof(Answer), &Answer,
                                nullptr) == CL_SUCCESS)
      Value = static_cast<pi_uint32>(Answer);
  };
  // The largest sub-group of a launch of the kernel's largest group, in one dimension.
  const size_t Range[3] = {std::min(MaxGroupSize, Device.Description.MaxWorkGroupSize), 1, 1};
  SubGroupInfo(CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, Range, sizeof(Range), Out.MaxSubGroupSize);
  SubGroupInfo(CL_KERNEL_MAX_NUM_SUB_GROUPS, nullptr, 0, Out.MaxNumSubGroups);
  // A group holds at least one sub-group of at least one item (SYCL's floor, as the
  // device's own count): PoCL 5 answers 0 for both (H200 host).
  Out.MaxSubGroupSize = std::max<pi_uint32>(Out.MaxSubGroupSize, 1);
  Out.MaxNumSubGroups = std::max<pi_uint32>(Out.MaxNumSubGroups, 1);
  SubGroupInfo(CL_KERNEL_COMPILE_NUM_SUB_GROUPS, nullptr, 0, Out.CompileNumSubGroups);
  if (Device.Description.Extensions.find("cl_intel_required_subgroup_size") != std::string::npos)
    SubGroupInfo(CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, nullptr, 0, Out.RequiredSubGroupSize);
  return PI_SUCCESS;
}

} // namespace dglink::opencl
