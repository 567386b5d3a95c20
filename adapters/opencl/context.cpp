// Contexts: the OpenCL context of one or more devices, the queues made in it, and the
// USM allocations it still owns when it goes.
#include "backend.h"

namespace dglink::opencl {

ClContext::~ClContext() {
  for (const auto &Allocation : UsmAllocations)
    freeWith(Allocation.first);
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
  Made->Profiling = WantsProfiling;
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
  Queues.erase(Queue);
}

std::vector<void *> ClContext::usmAllocations() {
  std::vector<void *> Pointers;
  std::lock_guard<std::mutex> Lock(UsmMutex);
  Pointers.reserve(UsmAllocations.size());
  for (const auto &Allocation : UsmAllocations)
    Pointers.push_back(Allocation.first);
  return Pointers;
}

} // namespace dglink::opencl
