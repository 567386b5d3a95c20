// Kernels and launches: handles, argument and launch-shape checks; the backend sets
// arguments and submits.
#include "entry.h"

#include <algorithm>
#include <array>

using namespace dglink::core;

namespace dglink::core {

pi_result KernelImpl::checkGlobalOffset(const char *, pi_uint32, const size_t *) const {
  return PI_SUCCESS;
}

pi_result KernelImpl::maxCooperativeGroups(const char *Function, const _pi_device &Device, size_t,
                                           size_t, pi_uint32 &) const {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter cannot say how many work-groups of a kernel are "
                      "resident at once on device '{}'",
                      Function, adapterLabel(), Device.Description.Name);
}

pi_result enqueueLaunch(const char *Function, pi_queue Queue, pi_kernel Kernel, pi_uint32 WorkDim,
                        const size_t *GlobalWorkOffset, const size_t *GlobalWorkSize,
                        const size_t *LocalWorkSize, bool Cooperative, pi_uint32 NumWaits,
                        const pi_event *Waits, pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkHandle(Kernel, PI_ERROR_INVALID_KERNEL, Function, "Kernel"));
  if (!Kernel->Program->hasDevice(Queue->Device))
    return dglink::fail(PI_ERROR_INVALID_CONTEXT,
                        "{}: kernel '{}' is not built for device '{}' of the queue", Function,
                        dglink::clip(Kernel->Name), Queue->Device->Description.Name);
  if (Cooperative && !Queue->Device->Description.CooperativeLaunch)
    return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE, "{}: device '{}' has no cooperative launches",
                        Function, Queue->Device->Description.Name);
  LaunchShape Shape;
  DGLINK_TRY(checkLaunch(Function, *Queue->Device, *Kernel, WorkDim, GlobalWorkOffset,
                         GlobalWorkSize, LocalWorkSize, Shape));
  Shape.Cooperative = Cooperative;
  DGLINK_TRY(checkWaitList(NumWaits, Waits));
  return submit(
      *Queue, PI_COMMAND_TYPE_NDRANGE_KERNEL, NumWaits, Waits, false, Event,
      [&](const Enqueue &Request) { return Queue->Impl->launch(*Kernel, Shape, Request); });
}

pi_result suggestCooperativeGroups(const char *Function, pi_kernel Kernel, pi_device Device,
                                   pi_uint32 WorkDim, const size_t *LocalWorkSize,
                                   size_t DynamicLocalBytes, pi_uint32 &Out) {
  DGLINK_TRY(checkHandle(Kernel, PI_ERROR_INVALID_KERNEL, Function, "Kernel"));
  DGLINK_TRY(checkHandle(Device, PI_ERROR_INVALID_DEVICE, Function, "Device"));
  if (!Kernel->Program->hasDevice(Device))
    return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: kernel '{}' is not built for device '{}'",
                        Function, dglink::clip(Kernel->Name), Device->Description.Name);
  if (!Device->Description.CooperativeLaunch)
    return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE, "{}: device '{}' has no cooperative launches",
                        Function, Device->Description.Name);
  if (WorkDim < 1 || WorkDim > 3)
    return dglink::fail(PI_ERROR_INVALID_WORK_DIMENSION, "{}: work dimension {} is not 1, 2 or 3",
                        Function, WorkDim);
  size_t GroupSize = 1;
  for (pi_uint32 D = 0; D < WorkDim; ++D) {
    if (LocalWorkSize[D] == 0 || LocalWorkSize[D] > Device->Description.MaxWorkItemSizes[D])
      return dglink::fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                          "{}: local size {} in dimension {} (the device allows 1 to {})", Function,
                          LocalWorkSize[D], D, Device->Description.MaxWorkItemSizes[D]);
    GroupSize *= LocalWorkSize[D];
  }
  const size_t Limit = std::min(Kernel->Impl->maxGroupSize(), Device->Description.MaxWorkGroupSize);
  if (GroupSize > Limit)
    return dglink::fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                        "{}: {} work-items per group, kernel '{}' allows {} on device '{}'",
                        Function, GroupSize, dglink::clip(Kernel->Name), Limit,
                        Device->Description.Name);
  return Kernel->Impl->maxCooperativeGroups(Function, *Device, GroupSize, DynamicLocalBytes, Out);
}

// The launch's shape checked against the device and the kernel: dimensions, global
// sizes, offsets (where the backend or the kernel takes none), local sizes (given, or the kernel's
// required size) that divide the global ones within the device's work-item sizes and
// the kernel's group size.
pi_result checkLaunch(const char *Function, const _pi_device &Device, const _pi_kernel &Kernel,
                      pi_uint32 WorkDim, const size_t *GlobalWorkOffset,
                      const size_t *GlobalWorkSize, const size_t *LocalWorkSize,
                      LaunchShape &Shape) {
  if (WorkDim < 1 || WorkDim > 3)
    return dglink::fail(PI_ERROR_INVALID_WORK_DIMENSION, "{}: work dimension {} is not 1, 2 or 3",
                        Function, WorkDim);
  if (GlobalWorkSize == nullptr)
    return dglink::fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE, "{}: argument 'GlobalWorkSize' is null",
                        Function);
  Shape.Dimensions = WorkDim;
  for (pi_uint32 D = 0; D < WorkDim; ++D) {
    if (GlobalWorkSize[D] == 0)
      return dglink::fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE, "{}: global size 0 in dimension {}",
                          Function, D);
    Shape.Global[D] = GlobalWorkSize[D];
    if (GlobalWorkOffset == nullptr || GlobalWorkOffset[D] == 0)
      continue;
    if (!backend().globalOffsets())
      return dglink::fail(PI_ERROR_INVALID_GLOBAL_OFFSET,
                          "{}: global offset {} in dimension {}: the {} adapter launches with "
                          "offset 0 only",
                          Function, GlobalWorkOffset[D], D, adapterLabel());
    Shape.Offset[D] = GlobalWorkOffset[D];
  }
  if (Shape.hasOffset())
    DGLINK_TRY(Kernel.Impl->checkGlobalOffset(Function, WorkDim, Shape.Offset));
  // A kernel with UR's "<kernel>@reqd_work_group_size" metadata runs with that size: a
  // launch without a local size gets it, a launch with another is refused (as UR's CUDA
  // and HIP adapters refuse it); 0 in a dimension requires nothing there.
  const auto &Required = Kernel.Program->Metadata.RequiredGroupSizes;
  const auto Requirement = Required.find(Kernel.Name);
  size_t FromMetadata[3] = {0, 0, 0};
  if (Requirement != Required.end()) {
    const std::array<uint32_t, 3> &Sizes = Requirement->second;
    bool Complete = true;
    for (pi_uint32 D = 0; D < WorkDim; ++D) {
      FromMetadata[D] = Sizes[D];
      Complete = Complete && Sizes[D] != 0;
      if (LocalWorkSize != nullptr && Sizes[D] != 0 && LocalWorkSize[D] != Sizes[D])
        return dglink::fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                            "{}: local size {} in dimension {}, but kernel '{}' requires "
                            "reqd_work_group_size ({}, {}, {})",
                            Function, LocalWorkSize[D], D, dglink::clip(Kernel.Name), Sizes[0],
                            Sizes[1], Sizes[2]);
    }
    if (LocalWorkSize == nullptr && Complete)
      LocalWorkSize = FromMetadata;
  }
  if (LocalWorkSize == nullptr)
    return PI_SUCCESS;
  const char *Origin = LocalWorkSize == FromMetadata ? " (the kernel's reqd_work_group_size)" : "";
  Shape.LocalGiven = true;
  size_t Threads = 1;
  for (pi_uint32 D = 0; D < WorkDim; ++D) {
    if (LocalWorkSize[D] == 0 || Shape.Global[D] % LocalWorkSize[D] != 0)
      return dglink::fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                          "{}: local size {}{} does not divide global size {} in dimension {}",
                          Function, LocalWorkSize[D], Origin, Shape.Global[D], D);
    if (LocalWorkSize[D] > Device.Description.MaxWorkItemSizes[D])
      return dglink::fail(PI_ERROR_INVALID_WORK_ITEM_SIZE,
                          "{}: local size {} exceeds {} in dimension {}", Function,
                          LocalWorkSize[D], Device.Description.MaxWorkItemSizes[D], D);
    Shape.Local[D] = LocalWorkSize[D];
    Threads *= LocalWorkSize[D];
  }
  const size_t Limit = std::min(Kernel.Impl->maxGroupSize(), Device.Description.MaxWorkGroupSize);
  if (Threads > Limit)
    return dglink::fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                        "{}: {} work-items per group, kernel '{}' allows {} on device '{}'",
                        Function, Threads, dglink::clip(Kernel.Name), Limit,
                        Device.Description.Name);
  return PI_SUCCESS;
}

// What a command buffer captures of the kernel at append time; made before the
// backend is called, so that nothing can fail once it accepted the argument.
void recordArgument(_pi_kernel &Kernel, pi_uint32 Index, KernelArgument &&Argument) {
  const std::lock_guard<std::mutex> Lock(Kernel.ArgumentsMutex);
  Kernel.Arguments.insert_or_assign(Index, std::move(Argument));
}

void forgetArgument(_pi_kernel &Kernel, pi_uint32 Index) {
  const std::lock_guard<std::mutex> Lock(Kernel.ArgumentsMutex);
  Kernel.Arguments.erase(Index);
}

pi_result kernelProperties(const char *Function, _pi_kernel &Kernel, _pi_device &Device,
                           KernelDeviceProperties &Out) {
  DGLINK_TRY(checkHandle(&Kernel, PI_ERROR_INVALID_KERNEL, Function, "Kernel"));
  DGLINK_TRY(checkHandle(&Device, PI_ERROR_INVALID_DEVICE, Function, "Device"));
  if (!Kernel.Program->hasDevice(&Device))
    return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: kernel '{}' is not built for device '{}'",
                        Function, dglink::clip(Kernel.Name), Device.Description.Name);
  // The device's sub-groups, where the driver says nothing of the kernel's: the largest
  // size it runs (1 without sub-groups: each work-item its own), as many as a group of
  // the device's largest size holds of them.
  KernelDeviceProperties Properties;
  const DeviceLimits &Limits = Device.Description.Limits;
  for (const pi_uint32 Size : Limits.SubGroupSizes)
    Properties.MaxSubGroupSize = std::max(Properties.MaxSubGroupSize, Size);
  Properties.MaxNumSubGroups = std::max<pi_uint32>(Limits.MaxNumSubGroups, 1);
  DGLINK_TRY(Kernel.Impl->properties(Device, Properties));
  Out = Properties;
  return PI_SUCCESS;
}

pi_result suggestLocalSize(const char *Function, _pi_queue &Queue, _pi_kernel &Kernel,
                           pi_uint32 WorkDim, const size_t *GlobalWorkSize, size_t *Local) {
  DGLINK_TRY(checkHandle(&Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkHandle(&Kernel, PI_ERROR_INVALID_KERNEL, Function, "Kernel"));
  if (Kernel.Program->Context != Queue.Context)
    return dglink::fail(PI_ERROR_INVALID_KERNEL,
                        "{}: kernel '{}' is of another context than the queue", Function,
                        dglink::clip(Kernel.Name));
  const _pi_device &Device = *Queue.Device;
  if (!Kernel.Program->hasDevice(&Device))
    return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: kernel '{}' is not built for device '{}'",
                        Function, dglink::clip(Kernel.Name), Device.Description.Name);
  LaunchShape Shape;
  DGLINK_TRY(
      checkLaunch(Function, Device, Kernel, WorkDim, nullptr, GlobalWorkSize, nullptr, Shape));
  if (Shape.LocalGiven) { // the kernel's reqd_work_group_size
    std::copy(Shape.Local, Shape.Local + WorkDim, Local);
    return PI_SUCCESS;
  }
  // The largest groups that divide the global size, dimension 0 first, within the
  // kernel's and the device's limits (the stream backend launches so without a local
  // size).
  size_t Budget = std::min(Kernel.Impl->maxGroupSize(), Device.Description.MaxWorkGroupSize);
  for (pi_uint32 D = 0; D < WorkDim; ++D) {
    size_t Size = std::min({Shape.Global[D], Budget, Device.Description.MaxWorkItemSizes[D]});
    while (Size > 1 && Shape.Global[D] % Size != 0)
      --Size;
    Local[D] = std::max<size_t>(Size, 1);
    Budget /= Local[D];
  }
  return PI_SUCCESS;
}

} // namespace dglink::core

extern "C" {

PI_API_EXPORT pi_result piKernelCreate(pi_program Program, const char *KernelName,
                                       pi_kernel *RetKernel) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_CHECK_NOT_NULL(KernelName, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetKernel, PI_ERROR_INVALID_VALUE);
  if (!Program->Executable.load(std::memory_order_acquire))
    return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                        "piKernelCreate: program {} is not an executable (build it, or link its "
                        "compiled objects, first)",
                        fmt::ptr(Program));
  std::unique_ptr<_pi_kernel> Kernel = makeHandle<_pi_kernel>();
  Kernel->Program = Program;
  Kernel->Name = KernelName;
  DGLINK_TRY(Program->Impl->createKernel(*Program, KernelName, Kernel->Impl));
  retain(Program);
  *RetKernel = Kernel.release();
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piKernelSetArg(pi_kernel Kernel, pi_uint32 ArgIndex, size_t ArgSize,
                                       const void *ArgValue) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  // No argument has 0 bytes; a local array of 0 bytes is refused on every backend here
  // (NVIDIA's OpenCL takes one for a kernel of translated SPIR-V).
  if (ArgSize == 0)
    return dglink::fail(PI_ERROR_INVALID_ARG_SIZE,
                        "piKernelSetArg: argument {} of kernel '{}': ArgSize is 0{}", ArgIndex,
                        dglink::clip(Kernel->Name),
                        ArgValue == nullptr ? " (a local array needs at least one byte)" : "");
  KernelArgument Argument;
  if (ArgValue == nullptr) {
    Argument.Type = KernelArgument::Kind::Local;
    Argument.LocalSize = ArgSize;
  } else {
    const auto *Bytes = static_cast<const uint8_t *>(ArgValue);
    Argument.Bytes.assign(Bytes, Bytes + ArgSize);
  }
  DGLINK_TRY(Kernel->Impl->setArgument(__func__, ArgIndex, ArgSize, ArgValue));
  recordArgument(*Kernel, ArgIndex, std::move(Argument));
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

// ArgValue points at the pointer value, like any by-value argument.
PI_API_EXPORT pi_result piextKernelSetArgPointer(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                 size_t ArgSize, const void *ArgValue) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  DGLINK_CHECK_NOT_NULL(ArgValue, PI_ERROR_INVALID_VALUE);
  if (ArgSize != sizeof(void *))
    return dglink::fail(PI_ERROR_INVALID_ARG_SIZE,
                        "piextKernelSetArgPointer: argument {} of kernel '{}': ArgSize is {}, a "
                        "pointer has {} bytes",
                        ArgIndex, dglink::clip(Kernel->Name), ArgSize, sizeof(void *));
  KernelArgument Argument;
  Argument.Type = KernelArgument::Kind::Pointer;
  const auto *Bytes = static_cast<const uint8_t *>(ArgValue);
  Argument.Bytes.assign(Bytes, Bytes + ArgSize);
  DGLINK_TRY(Kernel->Impl->setPointerArgument(__func__, ArgIndex, ArgSize, ArgValue));
  recordArgument(*Kernel, ArgIndex, std::move(Argument));
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

// A null buffer is a null pointer, as in OpenCL.
PI_API_EXPORT pi_result piextKernelSetArgMemObj(pi_kernel Kernel, pi_uint32 ArgIndex,
                                                const pi_mem *ArgValue) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  _pi_mem *Buffer = ArgValue != nullptr ? *ArgValue : nullptr;
  if (Buffer != nullptr)
    DGLINK_TRY(checkHandle(Buffer, PI_ERROR_INVALID_MEM_OBJECT, __func__, "*ArgValue"));
  KernelArgument Argument;
  Argument.Type = KernelArgument::Kind::Buffer;
  Argument.Buffer = Buffer;
  DGLINK_TRY(Kernel->Impl->setBufferArgument(__func__, ArgIndex, Buffer));
  recordArgument(*Kernel, ArgIndex, std::move(Argument));
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piKernelGetInfo(pi_kernel Kernel, pi_kernel_info ParamName,
                                        size_t ParamValueSize, void *ParamValue,
                                        size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  auto Value = [&](auto V) {
    return dglink::returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  switch (ParamName) {
  case PI_KERNEL_INFO_FUNCTION_NAME:
    return dglink::returnInfoString(Kernel->Name, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_KERNEL_INFO_NUM_ARGS:
    return Value(Kernel->Impl->numArguments());
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

PI_API_EXPORT pi_result piKernelRetain(pi_kernel Kernel) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  retain(Kernel);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piKernelRelease(pi_kernel Kernel) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  release(Kernel);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueKernelLaunch(pi_queue Queue, pi_kernel Kernel, pi_uint32 WorkDim,
                                              const size_t *GlobalWorkOffset,
                                              const size_t *GlobalWorkSize,
                                              const size_t *LocalWorkSize,
                                              pi_uint32 NumEventsInWaitList,
                                              const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  return enqueueLaunch(__func__, Queue, Kernel, WorkDim, GlobalWorkOffset, GlobalWorkSize,
                       LocalWorkSize, false, NumEventsInWaitList, EventWaitList, Event);
}
DGLINK_CATCH_ALL

} // extern "C"
