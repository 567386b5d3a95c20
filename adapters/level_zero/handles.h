// The objects behind the Level Zero adapter's PI handles. Each starts with the
// dispatch pointer (pi_handle_header) so the dispatch layer can route calls.
#pragma once

#include "device_global.h"
#include "ze_loader.h"

#include <dglink/support/error.h>
#include <dglink/support/image.h>
#include <dglink/support/single_device.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace dglink::level_zero {
// The table every handle's first field points at (plugin.cpp).
extern const pi_plugin_functions PluginFunctions;
// How messages name this adapter ("not a handle of the Level Zero adapter").
inline constexpr const char *AdapterLabel = "Level Zero";
// The driver extension by which dglink's test driver says it runs no kernels.
inline constexpr const char *NoKernelExecutionExtension = "dglink_test_driver_no_kernel_execution";
} // namespace dglink::level_zero

struct _pi_device {
  const pi_plugin_functions *Dispatch = &dglink::level_zero::PluginFunctions;
  _pi_platform *Platform = nullptr;
  ze_device_handle_t Device = nullptr;
  std::string Name;
  ze_device_type_t Type = ZE_DEVICE_TYPE_GPU;
  uint32_t VendorId = 0;
  uint32_t ComputeUnits = 0;
  size_t MaxGroupSize = 1;
  uint32_t MaxGroupSizes[3] = {1, 1, 1};
  uint64_t GlobalMemory = 0;
  bool Fp64 = false;
  pi_usm_capabilities HostUsm = 0, DeviceUsm = 0, SharedUsm = 0;
  bool ExecutesKernels = true;
  bool CanLink = false;
  std::string LinkFormats; // "spirv64" when zeModuleDynamicLink works, else empty
  std::string Extensions;
  std::string IlVersion;
};

struct _pi_platform {
  const pi_plugin_functions *Dispatch = &dglink::level_zero::PluginFunctions;
  ze_driver_handle_t Driver = nullptr;
  std::vector<_pi_device *> Devices;
  std::string Version;       // "Level Zero 1.4"
  std::string DriverVersion; // the driver's version number
  std::string Extensions;    // the driver's extension names
};

struct _pi_context {
  const pi_plugin_functions *Dispatch = &dglink::level_zero::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_device *Device = nullptr;
  ze_context_handle_t Context = nullptr;

  // Host-visible events, recycled: pools of PoolSize events each.
  std::mutex EventMutex;
  std::vector<ze_event_pool_handle_t> EventPools;
  std::vector<ze_event_handle_t> FreeEvents;
  std::vector<ze_event_handle_t> AllEvents;

  // An immediate command list for copies that belong to no queue
  // (piMemBufferCreate with a host pointer).
  std::mutex InitMutex;
  ze_command_list_handle_t InitList = nullptr;
};

struct _pi_queue {
  const pi_plugin_functions *Dispatch = &dglink::level_zero::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_context *Context = nullptr;
  _pi_device *Device = nullptr;
  pi_queue_properties Properties = 0;
  std::mutex Mutex;                        // appends to the immediate list, one at a time
  ze_command_list_handle_t List = nullptr; // in order (no relaxed ordering)
};

struct _pi_mem {
  const pi_plugin_functions *Dispatch = &dglink::level_zero::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_context *Context = nullptr;
  void *Pointer = nullptr; // device USM
  size_t Size = 0;
};

struct _pi_program {
  const pi_plugin_functions *Dispatch = &dglink::level_zero::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_context *Context = nullptr;

  bool Native = false; // ZE_MODULE_FORMAT_NATIVE, else SPIR-V
  std::vector<uint8_t> Binary;
  // Behind a pointer: std::map is not standard-layout, the handle must be.
  std::unique_ptr<dglink::ImageMetadata> Metadata = std::make_unique<dglink::ImageMetadata>();
  std::string Target = PI_DEVICE_BINARY_TARGET_SPIRV64;

  std::mutex Mutex; // build, compile, log and modules against each other
  std::string Options;
  std::string Log;
  pi_program_build_status BuildStatus = PI_PROGRAM_BUILD_STATUS_NONE;
  pi_program_binary_type BinaryType = PI_PROGRAM_BINARY_TYPE_NONE;
  // The modules of an executable (one, or one per input of a link) and which
  // module holds each kernel; written once, before Executable is set.
  std::vector<ze_module_handle_t> Modules;
  std::vector<std::pair<std::string, ze_module_handle_t>> Kernels;
  std::atomic<bool> Executable{false};

  dglink::level_zero::DeviceGlobalCache Globals;
};

struct _pi_kernel {
  const pi_plugin_functions *Dispatch = &dglink::level_zero::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_program *Program = nullptr;
  ze_kernel_handle_t Kernel = nullptr;
  std::string Name;
  uint32_t NumArgs = 0;
  std::mutex Mutex; // arguments and group size are kernel state in Level Zero
};

struct _pi_event {
  const pi_plugin_functions *Dispatch = &dglink::level_zero::PluginFunctions;
  std::atomic<pi_uint32> RefCount{1};
  _pi_queue *Queue = nullptr; // retained
  _pi_context *Context = nullptr;
  ze_event_handle_t Event = nullptr;
};

namespace dglink::level_zero {

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

// Host-visible events of the context's pools (reset when recycled).
pi_result acquireEvent(_pi_context &Context, ze_event_handle_t &Event);
void recycleEvent(_pi_context &Context, ze_event_handle_t Event);

// The driver events of a validated wait list.
std::vector<ze_event_handle_t> waitEvents(pi_uint32 NumEvents, const pi_event *Events);

// The event of one enqueue: Prepare takes a driver event when the caller
// asked for one or the enqueue blocks; the append signals it; Finish waits
// for it when blocking and wraps it into a pi_event, or recycles it.
class EnqueueEvent {
public:
  EnqueueEvent(_pi_queue &TheQueue, pi_event *TheOut) : Queue(TheQueue), Out(TheOut) {}
  EnqueueEvent(const EnqueueEvent &) = delete;
  EnqueueEvent &operator=(const EnqueueEvent &) = delete;
  ~EnqueueEvent();
  pi_result prepare(bool Blocking);
  ze_event_handle_t event() const { return Event; }
  pi_result finish(pi_result Result, bool Blocking);

private:
  _pi_queue &Queue;
  pi_event *Out;
  ze_event_handle_t Event = nullptr;
};

// One append to Queue's list after a validated wait list: Append(Signal,
// NumWaits, Waits) makes the Level Zero call (Call names it in errors).
template <typename AppendFunction>
pi_result enqueue(_pi_queue &Queue, const char *Call, bool Blocking, pi_uint32 NumEvents,
                  const pi_event *Events, pi_event *Out, AppendFunction &&Append) {
  std::vector<ze_event_handle_t> Waits = waitEvents(NumEvents, Events);
  EnqueueEvent Done(Queue, Out);
  DGLINK_TRY(Done.prepare(Blocking));
  ze_result_t Result = ZE_RESULT_SUCCESS;
  {
    std::lock_guard<std::mutex> Lock(Queue.Mutex);
    Result = Append(Done.event(), NumEvents, Waits.empty() ? nullptr : Waits.data());
  }
  return Done.finish(Result == ZE_RESULT_SUCCESS ? PI_SUCCESS : zeError(Result, Call), Blocking);
}

} // namespace dglink::level_zero

#define DGLINK_ZE_CHECK_HANDLE(Arg, Code)                                                          \
  DGLINK_TRY(::dglink::level_zero::checkHandle(Arg, Code, __func__, #Arg))
