// A test-only adapter ("testfake"): it hands out handles that point at its own
// function table and counts every call, so the tests can see where the dispatch
// layer routed a call. Compile definitions turn it into the broken variants:
//   DGLINK_FAKE_PLUGIN_VERSION="2.0"  reports another ABI version from piPluginInit
//   DGLINK_FAKE_REFUSE_INIT           fails piPluginInit like an adapter of PI 2.x
//   DGLINK_FAKE_MISSING_ENTRY         leaves piQueueFinish out of its table
#include <dglink/support/error.h>
#include <dglink/support/plugin.h>

#include <atomic>
#include <cstdio>
#include <cstring>

struct _pi_platform {
  pi_handle_header Header;
};
struct _pi_device {
  pi_handle_header Header;
};
struct _pi_context {
  pi_handle_header Header;
};
struct _pi_queue {
  pi_handle_header Header;
};
struct _pi_mem {
  pi_handle_header Header;
};
struct _pi_program {
  pi_handle_header Header;
};
struct _pi_kernel {
  pi_handle_header Header;
};
struct _pi_event {
  pi_handle_header Header;
};

namespace {

enum EntryIndex {
#define DGLINK_FAKE_INDEX(Name, Ret, Params) Index_##Name,
  PI_ENTRY_POINTS(DGLINK_FAKE_INDEX)
#undef DGLINK_FAKE_INDEX
      EntryCount
};

const char *const EntryNames[] = {
#define DGLINK_FAKE_NAME(Name, Ret, Params) #Name,
    PI_ENTRY_POINTS(DGLINK_FAKE_NAME)
#undef DGLINK_FAKE_NAME
};

std::atomic<unsigned> CallCounts[EntryCount];

pi_plugin_functions Table{};

// One handle of each kind is enough: the tests only look at where calls land.
_pi_platform ThePlatform{{&Table}};
_pi_device TheDevice{{&Table}};
_pi_context TheContext{{&Table}};
_pi_queue TheQueue{{&Table}};
_pi_mem TheMem{{&Table}};
_pi_program TheProgram{{&Table}};
_pi_kernel TheKernel{{&Table}};
_pi_event TheEvent{{&Table}};

template <typename Handle> void hand(Handle *Out, Handle Value) {
  if (Out != nullptr)
    *Out = Value;
}

// Every entry point counts its call and succeeds, unless overridden below.
#define DGLINK_FAKE_DEFAULT(Name, Ret, Params)                                                     \
  Ret PI_CALL fake_##Name Params {                                                                 \
    ++CallCounts[Index_##Name];                                                                    \
    return PI_SUCCESS;                                                                             \
  }
PI_ENTRY_POINTS(DGLINK_FAKE_DEFAULT)
#undef DGLINK_FAKE_DEFAULT

pi_result platformsGet(pi_uint32 NumEntries, pi_platform *Platforms, pi_uint32 *NumPlatforms) {
  ++CallCounts[Index_piPlatformsGet];
  if (Platforms != nullptr && NumEntries > 0)
    Platforms[0] = &ThePlatform;
  hand(NumPlatforms, 1u);
  return PI_SUCCESS;
}

pi_result devicesGet(pi_platform, pi_device_type, pi_uint32 NumEntries, pi_device *Devices,
                     pi_uint32 *NumDevices) {
  ++CallCounts[Index_piDevicesGet];
  if (Devices != nullptr && NumEntries > 0)
    Devices[0] = &TheDevice;
  hand(NumDevices, 1u);
  return PI_SUCCESS;
}

pi_result contextCreate(const pi_context_properties *, pi_uint32, const pi_device *,
                        pi_context *RetContext) {
  ++CallCounts[Index_piContextCreate];
  hand(RetContext, &TheContext);
  return PI_SUCCESS;
}

pi_result queueCreate(pi_context, pi_device, pi_queue_properties, pi_queue *RetQueue) {
  ++CallCounts[Index_piQueueCreate];
  hand(RetQueue, &TheQueue);
  return PI_SUCCESS;
}

pi_result memBufferCreate(pi_context, pi_mem_flags, size_t, void *, pi_mem *RetMem) {
  ++CallCounts[Index_piMemBufferCreate];
  hand(RetMem, &TheMem);
  return PI_SUCCESS;
}

pi_result programCreate(pi_context, const void *, size_t, pi_program *RetProgram) {
  ++CallCounts[Index_piProgramCreate];
  hand(RetProgram, &TheProgram);
  return PI_SUCCESS;
}

// Fails with a message of its own, to show that it reaches piPluginGetLastError.
pi_result programBuild(pi_program, pi_uint32, const pi_device *, const char *,
                       void (*)(pi_program, void *), void *) {
  ++CallCounts[Index_piProgramBuild];
  return dglink::fail(PI_ERROR_BUILD_PROGRAM_FAILURE, "testfake: the build always fails");
}

pi_result kernelCreate(pi_program, const char *, pi_kernel *RetKernel) {
  ++CallCounts[Index_piKernelCreate];
  hand(RetKernel, &TheKernel);
  return PI_SUCCESS;
}

pi_result enqueueEventsWait(pi_queue, pi_uint32, const pi_event *, pi_event *RetEvent) {
  ++CallCounts[Index_piEnqueueEventsWait];
  hand(RetEvent, &TheEvent);
  return PI_SUCCESS;
}

pi_plugin_functions makeTable() {
  pi_plugin_functions Functions{};
#define DGLINK_FAKE_FILL(Name, Ret, Params) Functions.Name = &fake_##Name;
  PI_ENTRY_POINTS(DGLINK_FAKE_FILL)
#undef DGLINK_FAKE_FILL
  Functions.piPlatformsGet = platformsGet;
  Functions.piDevicesGet = devicesGet;
  Functions.piContextCreate = contextCreate;
  Functions.piQueueCreate = queueCreate;
  Functions.piMemBufferCreate = memBufferCreate;
  Functions.piProgramCreate = programCreate;
  Functions.piProgramBuild = programBuild;
  Functions.piKernelCreate = kernelCreate;
  Functions.piEnqueueEventsWait = enqueueEventsWait;
#ifdef DGLINK_FAKE_MISSING_ENTRY
  Functions.piQueueFinish = nullptr;
#endif
  return Functions;
}

} // namespace

extern "C" {

pi_result piPluginInit(pi_plugin *PluginInfo) {
  Table = makeTable();
#ifdef DGLINK_FAKE_REFUSE_INIT
  return dglink::fail(PI_ERROR_INVALID_OPERATION,
                      "piPluginInit({}): caller speaks PI {}, this adapter implements PI 2.0; "
                      "major versions must match",
                      DGLINK_ADAPTER_NAME, PluginInfo->PiVersion);
#else
  const pi_result Result = dglink::initPlugin(PluginInfo, DGLINK_ADAPTER_NAME, Table);
#ifdef DGLINK_FAKE_PLUGIN_VERSION
  if (Result == PI_SUCCESS)
    std::snprintf(PluginInfo->PluginVersion, sizeof(PluginInfo->PluginVersion), "%s",
                  DGLINK_FAKE_PLUGIN_VERSION);
#endif
  return Result;
#endif
}

// Test hooks, found with dlsym: calls of EntryPoint since the last reset.
PI_API_EXPORT unsigned dglinkTestFakeCallCount(const char *EntryPoint) {
  for (int I = 0; I < EntryCount; ++I)
    if (std::strcmp(EntryNames[I], EntryPoint) == 0)
      return CallCounts[I].load();
  return ~0u;
}

PI_API_EXPORT void dglinkTestFakeResetCallCounts() {
  for (std::atomic<unsigned> &Count : CallCounts)
    Count = 0;
}

} // extern "C"
