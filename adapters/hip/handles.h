// The objects behind the HIP adapter's PI handles. Each starts with the dispatch
// pointer (pi_handle_header) so the dispatch layer can route calls. Every driver
// call goes through the HipApi table (hip_api.h), so this source builds for both
// of HIP's platforms.
#pragma once

#include "hip_api.h"
#include "native_code.h"

#include <dglink/support/device_global.h>
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

namespace dglink::hip {
// The table every handle's first field points at (plugin.cpp).
extern const pi_plugin_functions PluginFunctions;
// How messages name this adapter ("not a handle of the HIP adapter").
inline constexpr const char *AdapterLabel = "HIP";

using DeviceGlobalEntry = dglink::DeviceGlobalEntry<void *>;
using DeviceGlobalCache = dglink::DeviceGlobalCache<void *>;
} // namespace dglink::hip

struct _pi_device {
  const pi_plugin_functions *Dispatch = &dglink::hip::PluginFunctions;
  _pi_platform *Platform = nullptr;
  int Ordinal = 0;
  std::string Name;
  dglink::hip::HipDeviceInfo Info;
  bool CanLink = false;
  std::string LinkFormats; // imageTarget() when linking works, else empty
  std::string Extensions;
};

struct _pi_platform {
  const pi_plugin_functions *Dispatch = &dglink::hip::PluginFunctions;
  std::vector<_pi_device *> Devices;
  std::string Version;       // "HIP 5.2 (AMD)", "HIP over CUDA 13.0 (NVIDIA)"
  std::string DriverVersion; // the driver's version number as text
};

struct _pi_context {
  const pi_plugin_functions *Dispatch = &dglink::hip::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_device *Device = nullptr;

  // Events are recycled: creating one costs more than recording it.
  std::mutex EventPoolMutex;
  std::vector<dglink::hip::HipEvent> EventPool;
};

struct _pi_queue {
  const pi_plugin_functions *Dispatch = &dglink::hip::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_context *Context = nullptr;
  _pi_device *Device = nullptr;
  dglink::hip::HipStream Stream = nullptr; // non-blocking
  pi_queue_properties Properties = 0;
};

struct _pi_mem {
  const pi_plugin_functions *Dispatch = &dglink::hip::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_context *Context = nullptr;
  void *Pointer = nullptr;
  size_t Size = 0;
};

struct _pi_program {
  const pi_plugin_functions *Dispatch = &dglink::hip::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_context *Context = nullptr;

  dglink::hip::CodeKind Kind = dglink::hip::CodeKind::Ptx;
  std::vector<char> Binary; // PTX keeps its terminating NUL
  // Behind a pointer: std::map is not standard-layout, the handle must be.
  std::unique_ptr<dglink::ImageMetadata> Metadata = std::make_unique<dglink::ImageMetadata>();
  std::vector<std::string> KernelNames;

  std::mutex Mutex; // build, compile, log and module against each other
  std::string Options;
  std::string Log;
  pi_program_build_status BuildStatus = PI_PROGRAM_BUILD_STATUS_NONE;
  pi_program_binary_type BinaryType = PI_PROGRAM_BINARY_TYPE_NONE;
  // Set once by a successful build or link, then read without the mutex.
  std::atomic<dglink::hip::HipModule> Module{nullptr};

  dglink::hip::DeviceGlobalCache Globals;
};

struct _pi_kernel {
  const pi_plugin_functions *Dispatch = &dglink::hip::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_program *Program = nullptr;
  dglink::hip::HipFunction Function = nullptr;
  std::string Name;
  int MaxThreadsPerBlock = 1024;

  std::vector<dglink::KernelArgument> Arguments;
};

struct _pi_event {
  const pi_plugin_functions *Dispatch = &dglink::hip::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_queue *Queue = nullptr; // retained
  _pi_context *Context = nullptr;
  dglink::hip::HipEvent Event = nullptr;
};

namespace dglink::hip {

// Null or foreign handles are refused with Code and a message naming the
// function and argument.
template <typename Handle>
pi_result checkHandle(Handle H, pi_result Code, const char *Function, const char *Argument) {
  return checkAdapterHandle(H, &PluginFunctions, AdapterLabel, Code, Function, Argument);
}

using dglink::dropReference;
using dglink::retain;

// Makes Device current on this thread (hipSetDevice).
inline pi_result makeCurrent(const _pi_device &Device) {
  const HipError Result = hip().SetDevice(Device.Ordinal);
  return Result == HipSuccess ? PI_SUCCESS : hipError(Result, "hipSetDevice");
}

void releaseContext(_pi_context *Context);
void releaseQueue(_pi_queue *Queue);
void releaseProgram(_pi_program *Program);

// Events of the context's pool (created without timing).
pi_result acquireEvent(_pi_context &Context, HipEvent &Event);
void recycleEvent(_pi_context &Context, HipEvent Event);

// Makes Queue's stream wait for the events of a validated wait list (events of
// the same in-order queue are already ordered and skipped).
pi_result waitForEvents(_pi_queue &Queue, pi_uint32 NumEvents, const pi_event *Events);

// The event an enqueue hands back: prepare takes an event from the pool when the
// caller asked for one (Out != nullptr), the enqueue records it, finish wraps it
// into a pi_event on success or returns it to the pool on failure.
class EnqueueEvent {
public:
  EnqueueEvent(_pi_queue &TheQueue, pi_event *TheOut) : Queue(TheQueue), Out(TheOut) {}
  EnqueueEvent(const EnqueueEvent &) = delete;
  EnqueueEvent &operator=(const EnqueueEvent &) = delete;
  ~EnqueueEvent();
  pi_result prepare();
  pi_result recordNow();
  pi_result finish(pi_result Result);

private:
  _pi_queue &Queue;
  pi_event *Out;
  HipEvent Event = nullptr;
};

// Host<->device copies on the queue's stream; blocking ones return when done.
pi_result copyToDevice(_pi_queue &Queue, void *Dst, const void *Src, size_t Count, bool Blocking,
                       EnqueueEvent &Done);
pi_result copyToHost(_pi_queue &Queue, void *Dst, const void *Src, size_t Count, bool Blocking,
                     EnqueueEvent &Done);

} // namespace dglink::hip

#define DGLINK_HIP_CHECK_HANDLE(Arg, Code)                                                     \
  DGLINK_TRY(::dglink::hip::checkHandle(Arg, Code, __func__, #Arg))
