// The objects behind the CUDA adapter's PI handles. Each starts with the
// dispatch pointer (pi_handle_header) so the dispatch layer can route calls.
#pragma once

#include "cuda_driver.h"
#include "device_global.h"
#include "jit_link.h"
#include "staging.h"

#include <dglink/support/error.h>
#include <dglink/support/image.h>
#include <dglink/support/kernel_launch.h>
#include <dglink/support/single_device.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace dglink::cuda {
// The table every handle's first field points at (plugin.cpp).
extern const pi_plugin_functions PluginFunctions;
// How messages name this adapter ("not a handle of the CUDA adapter").
inline constexpr const char *AdapterLabel = "CUDA";
} // namespace dglink::cuda

struct _pi_device {
  const pi_plugin_functions *Dispatch = &dglink::cuda::PluginFunctions;
  _pi_platform *Platform = nullptr;
  CUdevice Device = 0;
  int Ordinal = 0;
  std::string Name;
  int ComputeMajor = 0;
  int ComputeMinor = 0;
  int MultiprocessorCount = 0;
  int MaxThreadsPerBlock = 1024;
  int MaxBlockDim[3] = {1024, 1024, 64};
  int MaxGridDim[3] = {0x7FFFFFFF, 65535, 65535};
  size_t TotalMemory = 0;
  bool CanLink = false;
  std::string LinkFormats; // "nvptx64" when linking works, else empty
  std::string Extensions;
};

struct _pi_platform {
  const pi_plugin_functions *Dispatch = &dglink::cuda::PluginFunctions;
  std::vector<_pi_device *> Devices;
  std::string Version; // "CUDA 13.0"
  std::string DriverVersion; // "13.0"
};

struct _pi_context {
  const pi_plugin_functions *Dispatch = &dglink::cuda::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_device *Device = nullptr;
  CUcontext Context = nullptr; // the device's primary context

  // CUevents are recycled: creating one costs more than recording it.
  std::mutex EventPoolMutex;
  std::vector<CUevent> EventPool;
};

struct _pi_queue {
  const pi_plugin_functions *Dispatch = &dglink::cuda::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_context *Context = nullptr;
  _pi_device *Device = nullptr;
  CUstream Stream = nullptr; // non-blocking: no implicit sync with the legacy stream
  pi_queue_properties Properties = 0;
  dglink::cuda::HostStaging Staging;
};

struct _pi_mem {
  const pi_plugin_functions *Dispatch = &dglink::cuda::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_context *Context = nullptr;
  CUdeviceptr Pointer = 0;
  size_t Size = 0;
};

struct _pi_program {
  const pi_plugin_functions *Dispatch = &dglink::cuda::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_context *Context = nullptr;

  dglink::cuda::NativeFormat Format = dglink::cuda::NativeFormat::Ptx;
  std::vector<char> Binary; // PTX keeps its terminating NUL
  // Behind a pointer: std::map is not standard-layout, the handle must be.
  std::unique_ptr<dglink::ImageMetadata> Metadata = std::make_unique<dglink::ImageMetadata>();
  std::string Target = PI_DEVICE_BINARY_TARGET_NVPTX64;
  std::vector<std::string> KernelNames;

  std::mutex Mutex; // build, compile, log and module against each other
  std::string Options;
  std::string Log;
  pi_program_build_status BuildStatus = PI_PROGRAM_BUILD_STATUS_NONE;
  pi_program_binary_type BinaryType = PI_PROGRAM_BINARY_TYPE_NONE;
  // Set once by a successful build or link, then read without the mutex.
  std::atomic<CUmodule> Module{nullptr};

  dglink::cuda::DeviceGlobalCache Globals;
};

struct _pi_kernel {
  const pi_plugin_functions *Dispatch = &dglink::cuda::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_program *Program = nullptr;
  CUfunction Function = nullptr;
  std::string Name;
  int MaxThreadsPerBlock = 1024;
  // Parameter sizes from cuFuncGetParamInfo; empty where the driver cannot say.
  std::vector<size_t> ParamSizes;
  bool ParamSizesKnown = false;

  std::vector<dglink::KernelArgument> Arguments;
};

struct _pi_event {
  const pi_plugin_functions *Dispatch = &dglink::cuda::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_queue *Queue = nullptr; // retained
  _pi_context *Context = nullptr;
  CUevent Event = nullptr;
};

namespace dglink::cuda {

// Null or foreign handles are refused with Code and a message naming the
// function and argument.
template <typename Handle>
pi_result checkHandle(Handle H, pi_result Code, const char *Function, const char *Argument) {
  return checkAdapterHandle(H, &PluginFunctions, AdapterLabel, Code, Function, Argument);
}

using dglink::dropReference;
using dglink::retain;

void releaseContext(_pi_context *Context);
void releaseQueue(_pi_queue *Queue);
void releaseProgram(_pi_program *Program);

// Events of the context's pool (created with CU_EVENT_DISABLE_TIMING).
pi_result acquireEvent(_pi_context &Context, CUevent &Event);
void recycleEvent(_pi_context &Context, CUevent Event);

// Makes Queue's stream wait for the events of a validated wait list (events
// of the same in-order queue are already ordered and skipped).
pi_result waitForEvents(_pi_queue &Queue, pi_uint32 NumEvents, const pi_event *Events);

// The event an enqueue hands back: Prepare takes a CUevent from the pool when
// the caller asked for one (Out != nullptr), the enqueue records it, Finish
// wraps it into a pi_event on success or returns it to the pool on failure.
class EnqueueEvent {
public:
  EnqueueEvent(_pi_queue &TheQueue, pi_event *TheOut) : Queue(TheQueue), Out(TheOut) {}
  EnqueueEvent(const EnqueueEvent &) = delete;
  EnqueueEvent &operator=(const EnqueueEvent &) = delete;
  ~EnqueueEvent();
  pi_result prepare();
  CUevent event() const { return Event; }
  // Records the event on the queue's stream now (for enqueues that do not).
  pi_result recordNow();
  pi_result finish(pi_result Result);

private:
  _pi_queue &Queue;
  pi_event *Out;
  CUevent Event = nullptr;
};

} // namespace dglink::cuda

#define DGLINK_CUDA_CHECK_HANDLE(Arg, Code)                                                    \
  DGLINK_TRY(::dglink::cuda::checkHandle(Arg, Code, __func__, #Arg))
