// The OpenCL adapter's handle structs and the helpers its files share.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <dglink/pi.h>
#include <dglink/support/error.h>
#include <dglink/support/image.h>
#include <dglink/support/validate.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace dglink::opencl {

// The table every handle of this adapter points at (plugin.cpp).
extern const pi_plugin_functions DispatchTable;

// cl_intel_global_variable_access is not in the Khronos headers of Debian 12.
using clEnqueueReadGlobalVariableINTEL_fn = cl_int(CL_API_CALL *)(
    cl_command_queue Queue, cl_program Program, const char *Name, cl_bool Blocking, size_t Size,
    size_t Offset, void *Dst, cl_uint NumEvents, const cl_event *WaitList, cl_event *Event);
using clEnqueueWriteGlobalVariableINTEL_fn = cl_int(CL_API_CALL *)(
    cl_command_queue Queue, cl_program Program, const char *Name, cl_bool Blocking, size_t Size,
    size_t Offset, const void *Src, cl_uint NumEvents, const cl_event *WaitList, cl_event *Event);

// cl_intel_unified_shared_memory entry points, resolved once per platform.
struct IntelUsmFunctions {
  clHostMemAllocINTEL_fn HostMemAlloc = nullptr;
  clDeviceMemAllocINTEL_fn DeviceMemAlloc = nullptr;
  clSharedMemAllocINTEL_fn SharedMemAlloc = nullptr;
  clMemBlockingFreeINTEL_fn MemBlockingFree = nullptr;
  clEnqueueMemcpyINTEL_fn EnqueueMemcpy = nullptr;
  clEnqueueMemFillINTEL_fn EnqueueMemFill = nullptr;
  clSetKernelArgMemPointerINTEL_fn SetKernelArgMemPointer = nullptr;
  bool complete() const {
    return HostMemAlloc && DeviceMemAlloc && SharedMemAlloc && MemBlockingFree && EnqueueMemcpy &&
           EnqueueMemFill && SetKernelArgMemPointer;
  }
};

// cl_intel_global_variable_access entry points, resolved once per platform.
struct GlobalVariableFunctions {
  clEnqueueReadGlobalVariableINTEL_fn Read = nullptr;
  clEnqueueWriteGlobalVariableINTEL_fn Write = nullptr;
  bool complete() const { return Read && Write; }
};

// The symbolic name of an OpenCL error code ("CL_INVALID_VALUE").
const char *clErrorName(cl_int Error);
// OpenCL and PI share their numbering; codes PI does not name become
// PI_ERROR_PLUGIN_SPECIFIC_ERROR (the message keeps the OpenCL code).
pi_result toPiResult(cl_int Error);
// Records "<PiFunction>: <ClFunction> failed with <name> (<code>)" and returns the PI code.
pi_result clFailure(cl_int Error, const char *PiFunction, const char *ClFunction);

// Strings of clGetDeviceInfo / clGetPlatformInfo / clGetProgramBuildInfo; empty on error.
std::string deviceString(cl_device_id Device, cl_device_info Param);
std::string platformString(cl_platform_id Platform, cl_platform_info Param);

template <typename T> T deviceScalar(cl_device_id Device, cl_device_info Param, T Default = T{}) {
  T Value{};
  if (clGetDeviceInfo(Device, Param, sizeof(T), &Value, nullptr) != CL_SUCCESS)
    return Default;
  return Value;
}

// dglink::checkWaitList, and every event from Queue's context: OpenCL refuses others
// with CL_INVALID_CONTEXT, which the contract reports as a bad wait list.
pi_result checkQueueWaitList(pi_queue Queue, pi_uint32 NumEvents, const pi_event *WaitList);

// A wait list as cl_events; short lists (the common case) need no heap allocation.
class ClEventList {
public:
  // Events must have passed dglink::checkWaitList.
  ClEventList(pi_uint32 NumEvents, const pi_event *Events);
  const cl_event *data() const { return NumEvents == 0 ? nullptr : Data; }
  cl_uint size() const { return NumEvents; }

private:
  static constexpr pi_uint32 InlineCapacity = 16;
  cl_event Inline[InlineCapacity];
  std::unique_ptr<cl_event[]> Heap;
  cl_event *Data = Inline;
  cl_uint NumEvents = 0;
};

// The pi_event an enqueue hands back. It is allocated before the command is submitted, so
// that nothing can fail once the driver has accepted the command.
class PendingEvent {
public:
  PendingEvent(pi_queue Queue, pi_event *Out);
  ~PendingEvent();
  PendingEvent(const PendingEvent &) = delete;
  PendingEvent &operator=(const PendingEvent &) = delete;
  // Where the driver writes the command's cl_event; null when the caller wants no event.
  cl_event *clEvent();
  // Hands the event to the caller; call only after the driver accepted the command.
  void commit();

private:
  pi_event *Out;
  pi_event Event = nullptr;
};

enum class UsmKind { Host, Device, Shared };
const char *usmKindName(UsmKind Kind);

// Reference counting shared by every handle: the cl_ object is released when the last
// PI reference goes. Children hold a reference on their parent handles.
void releaseReference(pi_context Context);
void releaseReference(pi_queue Queue);
void releaseReference(pi_program Program);
void releaseReference(pi_event Event);

// Platform state (platform.cpp).
void tearDownPlatforms(); // keeps the platforms: handles may outlive piTearDown

// Devices (device.cpp): the handle of a root device, its capabilities queried once.
std::unique_ptr<_pi_device> makeDevice(pi_platform Platform, cl_device_id Device);

// Programs (program.cpp).
bool programBuiltFor(pi_program Program, pi_device Device);
// Forgets what programBuiltFor cached; called as a build or compile of Program starts.
void forgetBuild(pi_program Program);
// PI_ERROR_INVALID_PROGRAM_EXECUTABLE with a message unless some device has an executable.
pi_result checkExecutable(const char *Function, pi_program Program);
std::string programLabel(pi_program Program);
// The storage of Program's lowered device globals on Device (docs/opencl-lowering.md),
// made with its initial contents on first use; Program->Metadata.Lowered must be set.
pi_result loweredStorage(const char *Function, pi_program Program, pi_device Device, cl_mem &Out);
const char *formatLabel(dglink::ImageFormat Format);

// Frees every USM allocation a context still owns (memory.cpp).
void freeRemainingUsm(pi_context Context);

} // namespace dglink::opencl

// Catches what the C++ library can throw (std::bad_alloc) at the C boundary, so that no
// exception crosses into the caller. Used as a function-try-block handler.
#define DGLINK_OPENCL_CATCH_ALL DGLINK_CATCH_ALL

// Null or foreign handles give the handle's INVALID_<kind> code, naming the argument.
#define DGLINK_OPENCL_CHECK_HANDLE(Handle, Code)                                                   \
  do {                                                                                             \
    if ((Handle) == nullptr)                                                                       \
      return ::dglink::fail(Code, "{}: argument '{}' is null", __func__, #Handle);                 \
    if (!::dglink::ownedBy((Handle), &::dglink::opencl::DispatchTable))                            \
      return ::dglink::fail(Code, "{}: argument '{}' is not a handle of the OpenCL adapter",       \
                            __func__, #Handle);                                                    \
  } while (0)

struct _pi_device;

struct _pi_platform {
  const pi_plugin_functions *Dispatch = &dglink::opencl::DispatchTable;
  cl_platform_id Platform = nullptr;
  std::string Name, Vendor, Version, Profile, Extensions;
  dglink::opencl::IntelUsmFunctions Usm;
  dglink::opencl::GlobalVariableFunctions GlobalVariable;
  std::vector<std::unique_ptr<_pi_device>> Devices;
};

struct _pi_device {
  const pi_plugin_functions *Dispatch = &dglink::opencl::DispatchTable;
  cl_device_id Device = nullptr;
  pi_platform Platform = nullptr;
  // Root devices live as long as their platform; the count only answers REFERENCE_COUNT.
  std::atomic<pi_uint32> RefCount{1};
  cl_device_type Type = 0;
  std::string Name;
  std::string NativeExtensions;
  std::string IlVersion;
  bool CompilerAvailable = false;
  bool LinkerAvailable = false;
  bool ConsumesSpir = false;  // cl_khr_spir: SPIR bitcode loads with clCreateProgramWithBinary
  bool ConsumesSpirV = false; // CL_DEVICE_IL_VERSION names SPIR-V
  std::vector<std::string> LinkFormats;
  std::vector<std::string> ImageFormats; // built and run, linked or not
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  bool FineGrainSvm = false;
  pi_device_global_mechanism DeviceGlobal = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  std::string ExtensionString;

  bool hasNativeExtension(const char *Extension) const;
  bool canLink(const char *LinkFormat) const;
};

struct _pi_context {
  const pi_plugin_functions *Dispatch = &dglink::opencl::DispatchTable;
  cl_context Context = nullptr;
  std::atomic<pi_uint32> RefCount{1};
  pi_platform Platform = nullptr;
  std::vector<pi_device> Devices;
  // The USM path every allocation of this context takes: the weakest of its devices'.
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  bool FineGrainSvm = false;
  std::mutex UsmMutex;
  std::unordered_map<void *, dglink::opencl::UsmKind> UsmAllocations; // guarded by UsmMutex

  bool hasDevice(pi_device Device) const;
};

struct _pi_queue {
  const pi_plugin_functions *Dispatch = &dglink::opencl::DispatchTable;
  cl_command_queue Queue = nullptr;
  std::atomic<pi_uint32> RefCount{1};
  pi_context Context = nullptr;
  pi_device Device = nullptr;
};

struct _pi_mem {
  const pi_plugin_functions *Dispatch = &dglink::opencl::DispatchTable;
  cl_mem Mem = nullptr;
  std::atomic<pi_uint32> RefCount{1};
  pi_context Context = nullptr;
  size_t Size = 0;
};

struct _pi_program {
  const pi_plugin_functions *Dispatch = &dglink::opencl::DispatchTable;
  // Null for the result of a failed link, which exists only to carry its build log.
  cl_program Program = nullptr;
  std::atomic<pi_uint32> RefCount{1};
  pi_context Context = nullptr;
  std::vector<pi_device> Devices;
  dglink::ImageFormat Format = dglink::ImageFormat::Unknown;
  dglink::ImageMetadata Metadata;
  std::string ImageCompileOptions;
  std::string ImageLinkOptions;
  bool LinkFailed = false;

  mutable std::mutex Mutex;
  std::string Options;    // guarded by Mutex: the options last given to the driver
  std::string AdapterLog; // guarded by Mutex: dglink's part of the build log

  // Lowered device globals (Metadata.Lowered): the kernels that take the storage as their
  // last argument (every kernel when the image listed none), and the storage per device.
  std::set<std::string> LoweredKernels;
  bool AllKernelsLowered = false;
  std::vector<std::pair<pi_device, cl_mem>> Storage; // guarded by Mutex
  // The last device the driver said this program is an executable for, so that every
  // device-global copy does not ask again; cleared when the program is built again.
  mutable std::atomic<pi_device> ExecutableFor{nullptr};
  std::atomic<uint64_t> BuildGeneration{0}; // bumped (under Mutex) when a build starts

  bool hasDevice(pi_device Device) const;
};

struct _pi_kernel {
  const pi_plugin_functions *Dispatch = &dglink::opencl::DispatchTable;
  cl_kernel Kernel = nullptr;
  std::atomic<pi_uint32> RefCount{1};
  pi_program Program = nullptr;
  std::string Name;
  // A kernel of a lowered image: its last OpenCL argument is the device-global storage,
  // which the launch sets; callers see NumArgs arguments.
  bool TakesStorage = false;
  cl_uint NumArgs = 0;
  std::mutex LaunchMutex; // the storage argument and the enqueue go together
};

struct _pi_event {
  const pi_plugin_functions *Dispatch = &dglink::opencl::DispatchTable;
  cl_event Event = nullptr;
  std::atomic<pi_uint32> RefCount{1};
  pi_queue Queue = nullptr;
};
