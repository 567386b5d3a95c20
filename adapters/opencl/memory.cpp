// Memory: OpenCL buffers (always available) and USM, served by
// cl_intel_unified_shared_memory where every device of the context has it and by
// OpenCL 2.0 buffer SVM otherwise.
#include "backend.h"

namespace dglink::opencl {

ClMem::~ClMem() {
  if (Mem != nullptr)
    clReleaseMemObject(Mem);
  else if (Svm != nullptr)
    clSVMFree(SvmContext, Svm);
}

pi_result ClContext::createBuffer(size_t Size, const void *CopyFrom,
                                  std::unique_ptr<core::MemImpl> &Impl) {
  const cl_mem_flags Flags = CL_MEM_READ_WRITE | (CopyFrom != nullptr ? CL_MEM_COPY_HOST_PTR : 0);
  auto Made = std::make_unique<ClMem>(nullptr);
  cl_int Error = CL_SUCCESS;
  // CL_MEM_COPY_HOST_PTR only reads the host memory.
  Made->Mem = clCreateBuffer(Context, Flags, Size, const_cast<void *>(CopyFrom), &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piMemBufferCreate", "clCreateBuffer");
  Impl = std::move(Made);
  return PI_SUCCESS;
}

pi_result ClContext::callersMem(const char *Function, uintptr_t Native, const char *What,
                                cl_mem_object_type &Type) const {
  auto *Mem = reinterpret_cast<cl_mem>(Native);
  cl_context Of = nullptr;
  cl_int Error = clGetMemObjectInfo(Mem, CL_MEM_TYPE, sizeof(Type), &Type, nullptr);
  if (Error == CL_SUCCESS)
    Error = clGetMemObjectInfo(Mem, CL_MEM_CONTEXT,
                               sizeof(cl_context), // NOLINT(bugprone-sizeof-expression)
                               &Of, nullptr);
  if (Error != CL_SUCCESS)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no OpenCL memory object (clGetMemObjectInfo: {})",
                Function, Native, clErrorName(Error));
  if (Of != Context)
    return fail(PI_ERROR_INVALID_CONTEXT,
                "{}: the {} belongs to another OpenCL context than the context's", Function, What);
  return PI_SUCCESS;
}

pi_result ClContext::adoptBuffer(const char *Function, uintptr_t Native, bool Owned,
                                 const core::UsmAllocationInfo *UsmInfo, size_t &Size,
                                 std::unique_ptr<core::MemImpl> &Impl) {
  // A USM pointer is no cl_mem: the driver would read its bytes as an object's.
  if (UsmInfo != nullptr)
    return fail(PI_ERROR_INVALID_MEM_OBJECT,
                "{}: native handle {:#x} is a {} USM allocation of the context, not an OpenCL "
                "buffer (cl_mem)",
                Function, Native, core::usmKindName(UsmInfo->Kind));
  auto *Mem = reinterpret_cast<cl_mem>(Native);
  cl_mem_object_type Type = 0;
  DGLINK_TRY(callersMem(Function, Native, "buffer", Type));
  size_t Bytes = 0;
  cl_int Error = clGetMemObjectInfo(Mem, CL_MEM_SIZE, sizeof(Bytes), &Bytes, nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetMemObjectInfo");
  if (Type != CL_MEM_OBJECT_BUFFER)
    return fail(PI_ERROR_INVALID_MEM_OBJECT,
                "{}: the OpenCL memory object is no buffer (type {:#x}; an image is adopted with "
                "urMemImageCreateWithNativeHandle)",
                Function, Type);
  if (!Owned) {
    Error = clRetainMemObject(Mem);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clRetainMemObject");
  }
  Impl = std::make_unique<ClMem>(Mem); // released with the buffer
  Size = Bytes;
  return PI_SUCCESS;
}

namespace {

cl_mem_flags clAccess(pi_mem_flags Flags) {
  return (Flags & PI_MEM_FLAGS_ACCESS_READ_ONLY) != 0    ? CL_MEM_READ_ONLY
         : (Flags & PI_MEM_FLAGS_ACCESS_WRITE_ONLY) != 0 ? CL_MEM_WRITE_ONLY
                                                         : CL_MEM_READ_WRITE;
}

} // namespace

// CL_MEM_USE_HOST_PTR: the driver may cache the bytes, but what the host wrote before a
// command is what the command sees, and a read or map brings the device's bytes back.
pi_result ClContext::createHostBuffer(pi_mem_flags Flags, size_t Size, void *Host,
                                      std::unique_ptr<core::MemImpl> &Impl) {
  auto Made = std::make_unique<ClMem>(nullptr);
  cl_int Error = CL_SUCCESS;
  Made->Mem = clCreateBuffer(Context, clAccess(Flags) | CL_MEM_USE_HOST_PTR, Size, Host, &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piMemBufferCreate", "clCreateBuffer");
  Impl = std::move(Made);
  return PI_SUCCESS;
}

pi_result ClContext::createSubBuffer(_pi_mem &Parent, pi_mem_flags Flags, size_t Origin,
                                     size_t Size, std::unique_ptr<core::MemImpl> &Impl) {
  const cl_buffer_region Region{Origin, Size};
  auto Made = std::make_unique<ClMem>(nullptr);
  cl_int Error = CL_SUCCESS;
  Made->Mem = clCreateSubBuffer(static_cast<const ClMem &>(*Parent.Impl).Mem, clAccess(Flags),
                                CL_BUFFER_CREATE_TYPE_REGION, &Region, &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piMemBufferPartition", "clCreateSubBuffer");
  Impl = std::move(Made);
  return PI_SUCCESS;
}

pi_result ClContext::noUsmPath(const char *Function, const _pi_device *Device) const {
  if (SvmUnusable)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: NVIDIA's OpenCL serves SVM only in a context of one device (in one of {}, "
                "kernels given SVM pointers fail or write nothing); make a context of the "
                "device alone, or use memory buffers",
                Function, Owner.Devices.size());
  // Name a device that lacks a path; a host allocation has no device of its own.
  if (Device == nullptr) {
    Device = Owner.Devices.front();
    for (const _pi_device *Member : Owner.Devices)
      if (Member->Description.Usm == PI_USM_MECHANISM_NONE) {
        Device = Member;
        break;
      }
  }
  if (Device->Description.Usm != PI_USM_MECHANISM_NONE)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: the devices of this context have no USM path in common "
                "(cl_intel_unified_shared_memory on some, SVM on others); use memory buffers",
                Function);
  return fail(PI_ERROR_INVALID_OPERATION,
              "{}: device '{}' has no USM path (neither cl_intel_unified_shared_memory nor "
              "OpenCL 2.0 SVM); use memory buffers",
              Function, Device->Description.Name);
}

void ClContext::freeWith(void *Pointer) {
  std::lock_guard<std::mutex> Lock(FreeOrReleaseMutex);
  if (Usm == PI_USM_MECHANISM_NATIVE)
    IntelUsm->MemFree(Context, Pointer); // every queue waited for (freeUsm)
  else
    clSVMFree(Context, Pointer);
}

pi_result ClContext::allocateUsm(core::UsmKind Kind, _pi_device *Device, size_t Size,
                                 pi_uint32 Alignment, void *&Pointer) {
  const char *Function = Kind == core::UsmKind::Host     ? "piextUSMHostAlloc"
                         : Kind == core::UsmKind::Device ? "piextUSMDeviceAlloc"
                                                         : "piextUSMSharedAlloc";
  if (Usm == PI_USM_MECHANISM_NONE)
    return noUsmPath(Function, Device);
  void *Made = nullptr;
  cl_int Error = CL_SUCCESS;
  const char *ClFunction = nullptr;
  if (Usm == PI_USM_MECHANISM_NATIVE) {
    switch (Kind) {
    case core::UsmKind::Host:
      ClFunction = "clHostMemAllocINTEL";
      Made = IntelUsm->HostMemAlloc(Context, nullptr, Size, Alignment, &Error);
      break;
    case core::UsmKind::Device:
      ClFunction = "clDeviceMemAllocINTEL";
      Made = IntelUsm->DeviceMemAlloc(Context, clDevice(*Device).Device, nullptr, Size, Alignment,
                                      &Error);
      break;
    case core::UsmKind::Shared:
      ClFunction = "clSharedMemAllocINTEL";
      Made = IntelUsm->SharedMemAlloc(Context, clDevice(*Device).Device, nullptr, Size, Alignment,
                                      &Error);
      break;
    }
  } else {
    // Host and shared memory is touched by the host without map/unmap, which only
    // fine-grained SVM allows; device memory is reached only through copies, so
    // coarse-grained SVM serves it.
    cl_svm_mem_flags Flags = CL_MEM_READ_WRITE;
    if (Kind != core::UsmKind::Device) {
      if (!FineGrainSvm)
        return fail(PI_ERROR_INVALID_OPERATION,
                    "{}: {} USM needs fine-grained buffer SVM, which a device of this context "
                    "lacks; use device USM or memory buffers",
                    Function, core::usmKindName(Kind));
      Flags |= CL_MEM_SVM_FINE_GRAIN_BUFFER;
    }
    ClFunction = "clSVMAlloc";
    Made = clSVMAlloc(Context, Flags, Size, Alignment);
  }
  if (Made == nullptr) {
    if (Error == CL_SUCCESS)
      Error = CL_OUT_OF_RESOURCES;
    return fail(toPiResult(Error), "{}: {} of {} bytes failed with {} ({})", Function, ClFunction,
                Size, clErrorName(Error), Error);
  }
  try {
    core::allocationPoint();
    std::lock_guard<std::mutex> Lock(UsmMutex);
    UsmAllocations.emplace(reinterpret_cast<uintptr_t>(Made), UsmAllocation{Kind, Size});
  } catch (...) {
    freeWith(Made); // an allocation that cannot be recorded could never be freed
    throw;
  }
  Pointer = Made;
  return PI_SUCCESS;
}

pi_result ClContext::freeUsm(void *Pointer) {
  {
    // The record goes under the lock; the wait and the free do not hold it, so that a fill
    // or a launch on another thread (which looks allocations up) is not held back behind
    // a queue that waits for that thread, e.g. for a user event it is about to set.
    std::lock_guard<std::mutex> Lock(UsmMutex);
    auto Allocation = UsmAllocations.find(reinterpret_cast<uintptr_t>(Pointer));
    if (Allocation == UsmAllocations.end())
      return fail(PI_ERROR_INVALID_VALUE,
                  "piextUSMFree: {} is not the start of a USM allocation of this context", Pointer);
    UsmAllocations.erase(Allocation);
  }
  // A USM free waits for the commands that may use the memory (UR's adapters free
  // blocking): clSVMFree does not, and the driver would write freed memory (PoCL 3.1 did,
  // for a fill UR's CTS left running when it freed its pointer). clMemBlockingFreeINTEL
  // would, but PoCL 5's waits for its queues' last events unsafely: with other threads
  // running commands on a queue of the context, it crashed (SEGV in its wait, every run of
  // UrUsmPools.ConcurrentAllocationsAndFrees on the GPU host; Intel's driver waits for
  // every queue of the context too). Both paths wait for every queue of the context here,
  // then free without waiting.
  // The queues are taken (retained) under the lock and finished outside it: a queue that
  // waits for a user event must not hold back the thread that will set it, should that
  // thread make or release a queue of the context meanwhile.
  std::vector<cl_command_queue> Live;
  {
    std::lock_guard<std::mutex> QueuesLock(QueuesMutex);
    Live.reserve(Queues.size());
    for (cl_command_queue Queue : Queues)
      if (clRetainCommandQueue(Queue) == CL_SUCCESS)
        Live.push_back(Queue);
  }
  for (cl_command_queue Queue : Live) {
    clFinish(Queue);
    clReleaseCommandQueue(Queue);
  }
  freeWith(Pointer);
  return PI_SUCCESS;
}

} // namespace dglink::opencl
