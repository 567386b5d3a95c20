// Contexts: the OpenCL context of one or more devices, the queues made in it, and the
// USM allocations it still owns when it goes.
#include "backend.h"

#include <algorithm>
#include <iterator>

namespace dglink::opencl {

ClContext::~ClContext() {
  Stagings.clear(); // its blocks are buffers of the context
  for (const auto &Allocation : UsmAllocations)
    freeWith(reinterpret_cast<void *>(Allocation.first));
  if (Context != nullptr)
    clReleaseContext(Context);
}

pi_result ClContext::createQueue(_pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) {
  // Queues are in order; profiling is the only property dglink defines (checked by the
  // core).
  const cl_queue_properties Profiling[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  const bool WantsProfiling = (Queue.Properties & PI_QUEUE_FLAG_PROFILING_ENABLE) != 0;
  auto Made = std::make_unique<ClQueue>(*this, *Queue.Device, nullptr);
  cl_int Error = CL_SUCCESS;
  Made->Queue = clCreateCommandQueueWithProperties(Context, clDevice(*Queue.Device).Device,
                                                   WantsProfiling ? Profiling : nullptr, &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piQueueCreate", "clCreateCommandQueueWithProperties");
  if (WantsProfiling)
    DGLINK_TRY(Made->makeStamp("piQueueCreate"));
  addQueue(Made->Queue);
  Impl = std::move(Made);
  return PI_SUCCESS;
}

void ClContext::addQueue(cl_command_queue Queue) {
  std::lock_guard<std::mutex> Lock(QueuesMutex);
  Queues.insert(Queue);
}

void ClContext::removeQueue(cl_command_queue Queue) {
  std::lock_guard<std::mutex> Lock(QueuesMutex);
  if (const auto Found = Queues.find(Queue); Found != Queues.end())
    Queues.erase(Found);
}

std::vector<void *> ClContext::usmAllocations() {
  std::vector<void *> Pointers;
  std::lock_guard<std::mutex> Lock(UsmMutex);
  Pointers.reserve(UsmAllocations.size());
  for (const auto &Allocation : UsmAllocations)
    Pointers.push_back(reinterpret_cast<void *>(Allocation.first));
  return Pointers;
}

bool ClContext::svmAllocationOf(const void *Pointer, size_t Size, void *&Base, size_t &BaseSize) {
  if (Usm != PI_USM_MECHANISM_SVM)
    return false;
  const auto Address = reinterpret_cast<uintptr_t>(Pointer);
  std::lock_guard<std::mutex> Lock(UsmMutex);
  // The caller's allocations, then the device-global storage's (whose addresses callers
  // get from urProgramGetGlobalVariablePointer).
  const auto holds = [&](uintptr_t Start, size_t Bytes) {
    if (Address - Start > Bytes || Size > Bytes - (Address - Start))
      return false;
    Base = reinterpret_cast<void *>(Start);
    BaseSize = Bytes;
    return true;
  };
  if (auto After = UsmAllocations.upper_bound(Address); After != UsmAllocations.begin()) {
    const auto &[Start, Allocation] = *std::prev(After);
    if (holds(Start, Allocation.Size))
      return true;
  }
  if (auto After = StorageAllocations.upper_bound(Address); After != StorageAllocations.begin()) {
    const auto &[Start, Bytes] = *std::prev(After);
    return holds(Start, Bytes);
  }
  return false;
}

void ClContext::addStorageAllocation(void *Pointer, size_t Size) {
  std::lock_guard<std::mutex> Lock(UsmMutex);
  StorageAllocations[reinterpret_cast<uintptr_t>(Pointer)] = Size;
}

void ClContext::removeStorageAllocation(void *Pointer) {
  std::lock_guard<std::mutex> Lock(UsmMutex);
  StorageAllocations.erase(reinterpret_cast<uintptr_t>(Pointer));
}

} // namespace dglink::opencl

namespace dglink::opencl {

namespace {

// One answer of clGet*Info of an OpenCL object into Out (a handle or a scalar).
template <typename T, typename Object, typename Param, typename Query>
cl_int infoOf(Query &&Get, Object Of, Param Name, T &Out) {
  return Get(Of, Name, sizeof(T), &Out, nullptr); // NOLINT(bugprone-sizeof-expression)
}

} // namespace

void configureContext(ClContext &Made) {
  const _pi_context &Context = Made.Owner;
  // One USM mechanism for the whole context, so that a pointer is freed the way it was
  // made: the weakest of its devices'.
  bool AllNative = true, AllSvm = true, AllFineGrain = true;
  for (const _pi_device *Device : Context.Devices) {
    AllNative = AllNative && Device->Description.Usm == PI_USM_MECHANISM_NATIVE;
    AllSvm = AllSvm && Device->Description.Usm == PI_USM_MECHANISM_SVM;
    AllFineGrain = AllFineGrain && clDevice(*Device).FineGrainSvm;
  }
  Made.Usm =
      AllNative ? PI_USM_MECHANISM_NATIVE : (AllSvm ? PI_USM_MECHANISM_SVM : PI_USM_MECHANISM_NONE);
  // NVIDIA's OpenCL (580.159, 4 H200s) takes SVM pointers in a context of one GPU only:
  // in a context of several, a kernel given one is refused (CL_INVALID_KERNEL_ARGS) on
  // the first GPU and writes nothing on the second, and naming the allocations
  // (CL_KERNEL_EXEC_INFO_SVM_PTRS) crashes the driver. Such a context has no USM, and
  // says why (docs/opencl.md).
  if (Made.Usm == PI_USM_MECHANISM_SVM && Context.Devices.size() > 1 &&
      Context.Platform->Description.Vendor.find("NVIDIA") != std::string::npos) {
    Made.Usm = PI_USM_MECHANISM_NONE;
    Made.SvmUnusable = true;
  }
  Made.FineGrainSvm = AllSvm && AllFineGrain;
  Made.IntelUsm = &static_cast<const ClPlatform &>(*Context.Platform->Impl).Usm;
}

pi_result adoptClContext(const char *Function, uintptr_t Native, bool Owned, _pi_context &Context,
                         std::unique_ptr<core::ContextImpl> &Impl) {
  auto *NativeContext = reinterpret_cast<cl_context>(Native);
  cl_uint Count = 0;
  cl_int Error = infoOf(clGetContextInfo, NativeContext, CL_CONTEXT_NUM_DEVICES, Count);
  if (Error != CL_SUCCESS || Count == 0)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no OpenCL context (clGetContextInfo: {})", Function,
                Native, Error != CL_SUCCESS ? clErrorName(Error) : "no devices");
  std::vector<cl_device_id> Ids(Count);
  Error = clGetContextInfo(NativeContext, CL_CONTEXT_DEVICES, Count * sizeof(cl_device_id),
                           Ids.data(), nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetContextInfo");
  std::vector<_pi_device *> Held;
  for (cl_device_id Id : Ids) {
    pi_device Device = nullptr;
    if (core::deviceFromNative(Function, reinterpret_cast<uintptr_t>(Id), nullptr, &Device) !=
        PI_SUCCESS)
      return fail(PI_ERROR_INVALID_VALUE,
                  "{}: the OpenCL context holds a device ({}) that is none of the adapter's",
                  Function, fmt::ptr(Id));
    Held.push_back(Device);
  }
  for (const _pi_device *Given : Context.Devices)
    if (std::find(Held.begin(), Held.end(), Given) == Held.end())
      return fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not in the OpenCL context", Function,
                  Given->Description.Name);
  if (Context.Devices.empty()) {
    Context.Devices = Held;
    Context.Platform = Held[0]->Platform;
  }
  auto Made = std::make_unique<ClContext>(Context, nullptr);
  configureContext(*Made);
  if (!Owned) {
    Error = clRetainContext(NativeContext);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clRetainContext");
  }
  Made->Context = NativeContext; // released with the context
  Impl = std::move(Made);
  return PI_SUCCESS;
}

// Memory the core has no record of: cl_intel_unified_shared_memory's driver knows every
// USM allocation of the context (SVM has no such query).
bool ClContext::usmPointerInfo(const void *Pointer, core::UsmAllocationInfo &Out) {
  if (IntelUsm == nullptr || IntelUsm->GetMemAllocInfo == nullptr)
    return false;
  cl_unified_shared_memory_type_intel Type = CL_MEM_TYPE_UNKNOWN_INTEL;
  void *Base = nullptr;
  size_t Size = 0;
  cl_device_id Device = nullptr;
  if (IntelUsm->GetMemAllocInfo(Context, Pointer, CL_MEM_ALLOC_TYPE_INTEL, sizeof(Type), &Type,
                                nullptr) != CL_SUCCESS ||
      IntelUsm->GetMemAllocInfo(Context, Pointer, CL_MEM_ALLOC_BASE_PTR_INTEL, sizeof(Base), &Base,
                                nullptr) != CL_SUCCESS ||
      IntelUsm->GetMemAllocInfo(Context, Pointer, CL_MEM_ALLOC_SIZE_INTEL, sizeof(Size), &Size,
                                nullptr) != CL_SUCCESS ||
      IntelUsm->GetMemAllocInfo(Context, Pointer, CL_MEM_ALLOC_DEVICE_INTEL,
                                sizeof(cl_device_id), // NOLINT(bugprone-sizeof-expression)
                                &Device, nullptr) != CL_SUCCESS)
    return false;
  switch (Type) {
  case CL_MEM_TYPE_HOST_INTEL:
    Out.Kind = core::UsmKind::Host;
    break;
  case CL_MEM_TYPE_DEVICE_INTEL:
    Out.Kind = core::UsmKind::Device;
    break;
  case CL_MEM_TYPE_SHARED_INTEL:
    Out.Kind = core::UsmKind::Shared;
    break;
  default:
    return false;
  }
  Out.Base = Base;
  Out.Size = Size;
  Out.Device = nullptr;
  for (_pi_device *Each : Owner.Devices)
    if (clDevice(*Each).Device == Device)
      Out.Device = Each;
  return true;
}

// The caller's cl_command_queue: of this context, on one of its devices, in order (the
// core's queues are); its profiling property is kept. Owned: dglink releases the
// caller's reference at the end; otherwise it takes one of its own.
pi_result ClContext::adoptQueue(const char *Function, uintptr_t Native, bool Owned,
                                _pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) {
  auto *NativeQueue = reinterpret_cast<cl_command_queue>(Native);
  cl_context Of = nullptr;
  cl_int Error = infoOf(clGetCommandQueueInfo, NativeQueue, CL_QUEUE_CONTEXT, Of);
  if (Error != CL_SUCCESS)
    return fail(toPiResult(Error) == PI_ERROR_INVALID_QUEUE ? PI_ERROR_INVALID_VALUE
                                                            : toPiResult(Error),
                "{}: native handle {:#x} is no OpenCL command queue (clGetCommandQueueInfo: "
                "{})",
                Function, Native, clErrorName(Error));
  if (Of != Context)
    return fail(PI_ERROR_INVALID_CONTEXT,
                "{}: the command queue belongs to another OpenCL context than the context's",
                Function);
  cl_device_id DeviceId = nullptr;
  cl_command_queue_properties Properties = 0;
  Error = infoOf(clGetCommandQueueInfo, NativeQueue, CL_QUEUE_DEVICE, DeviceId);
  if (Error == CL_SUCCESS)
    Error = clGetCommandQueueInfo(NativeQueue, CL_QUEUE_PROPERTIES, sizeof(Properties), &Properties,
                                  nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetCommandQueueInfo");
  _pi_device *Device = nullptr;
  for (_pi_device *Each : Owner.Devices)
    if (clDevice(*Each).Device == DeviceId)
      Device = Each;
  if (Device == nullptr || (Queue.Device != nullptr && Queue.Device != Device))
    return fail(PI_ERROR_INVALID_DEVICE, "{}: the command queue is on {} device", Function,
                Device == nullptr ? "no context" : "another");
  if ((Properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0)
    return fail(PI_ERROR_INVALID_QUEUE_PROPERTIES,
                "{}: the command queue executes out of order; dglink's queues are in order",
                Function);
  // Made (and its stamp buffer) before the queue is taken: a failure leaves the caller's
  // queue as it was.
  auto Made = std::make_unique<ClQueue>(*this, *Device, nullptr);
  if ((Properties & CL_QUEUE_PROFILING_ENABLE) != 0)
    DGLINK_TRY(Made->makeStamp(Function));
  if (!Owned) {
    Error = clRetainCommandQueue(NativeQueue);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clRetainCommandQueue");
  }
  Made->Queue = NativeQueue;
  Made->CallersQueue = !Owned;
  Queue.Device = Device;
  if (Made->Profiling)
    Queue.Properties |= PI_QUEUE_FLAG_PROFILING_ENABLE;
  Impl = std::move(Made);
  addQueue(NativeQueue);
  return PI_SUCCESS;
}

// The caller's cl_event, of this context; NativeQueue its command's queue (null for a
// user event).
pi_result ClContext::adoptEvent(const char *Function, uintptr_t Native, bool Owned,
                                std::unique_ptr<core::EventImpl> &Impl, uintptr_t &NativeQueue) {
  auto *NativeEvent = reinterpret_cast<cl_event>(Native);
  cl_context Of = nullptr;
  cl_int Error = infoOf(clGetEventInfo, NativeEvent, CL_EVENT_CONTEXT, Of);
  if (Error != CL_SUCCESS)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no OpenCL event (clGetEventInfo: {})", Function, Native,
                clErrorName(Error));
  if (Of != Context)
    return fail(PI_ERROR_INVALID_CONTEXT,
                "{}: the event belongs to another OpenCL context than the context's", Function);
  cl_command_queue Queue = nullptr;
  Error = infoOf(clGetEventInfo, NativeEvent, CL_EVENT_COMMAND_QUEUE, Queue);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetEventInfo");
  if (!Owned) {
    Error = clRetainEvent(NativeEvent);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clRetainEvent");
  }
  Impl = std::make_unique<ClEvent>(NativeEvent);
  NativeQueue = reinterpret_cast<uintptr_t>(Queue);
  return PI_SUCCESS;
}

} // namespace dglink::opencl
