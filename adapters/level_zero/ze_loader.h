// The Level Zero loader, opened with dlopen: the adapter builds with the
// headers only and reports zero platforms where libze_loader.so.1 or a driver
// is missing. Also the one place that turns a ze_result_t into a pi_result
// with a message.
#pragma once

#include <dglink/support/error.h>

#include <level_zero/ze_api.h>

namespace dglink::level_zero {

// Every loader function the adapter calls.
#define DGLINK_ZE_FUNCTIONS(X)                                                                     \
  X(zeInit)                                                                                        \
  X(zeDriverGet)                                                                                   \
  X(zeDriverGetApiVersion)                                                                         \
  X(zeDriverGetProperties)                                                                         \
  X(zeDriverGetExtensionProperties)                                                                \
  X(zeDeviceGet)                                                                                   \
  X(zeDeviceGetProperties)                                                                         \
  X(zeDeviceGetComputeProperties)                                                                  \
  X(zeDeviceGetModuleProperties)                                                                   \
  X(zeDeviceGetMemoryProperties)                                                                   \
  X(zeDeviceGetMemoryAccessProperties)                                                             \
  X(zeDeviceGetCacheProperties)                                                                    \
  X(zeDeviceCanAccessPeer)                                                                         \
  X(zeDriverGetExtensionFunctionAddress)                                                           \
  X(zeContextCreate)                                                                               \
  X(zeContextDestroy)                                                                              \
  X(zeContextGetStatus)                                                                            \
  X(zeCommandListCreateImmediate)                                                                  \
  X(zeCommandListDestroy)                                                                          \
  X(zeCommandListAppendBarrier)                                                                    \
  X(zeCommandListAppendMemoryCopy)                                                                 \
  X(zeCommandListAppendMemoryFill)                                                                 \
  X(zeCommandListAppendMemoryCopyRegion)                                                           \
  X(zeCommandListAppendLaunchKernel)                                                               \
  X(zeCommandListAppendWriteGlobalTimestamp)                                                       \
  X(zeEventPoolCreate)                                                                             \
  X(zeEventPoolDestroy)                                                                            \
  X(zeEventCreate)                                                                                 \
  X(zeEventDestroy)                                                                                \
  X(zeEventHostSynchronize)                                                                        \
  X(zeEventQueryStatus)                                                                            \
  X(zeEventHostReset)                                                                              \
  X(zeEventQueryKernelTimestamp)                                                                   \
  X(zeDeviceGetGlobalTimestamps)                                                                   \
  X(zeMemAllocHost)                                                                                \
  X(zeMemAllocDevice)                                                                              \
  X(zeMemAllocShared)                                                                              \
  X(zeMemFree)                                                                                     \
  X(zeMemGetAllocProperties)                                                                       \
  X(zeMemGetAddressRange)                                                                          \
  X(zeModuleCreate)                                                                                \
  X(zeModuleDestroy)                                                                               \
  X(zeModuleDynamicLink)                                                                           \
  X(zeModuleGetGlobalPointer)                                                                      \
  X(zeModuleGetKernelNames)                                                                        \
  X(zeModuleBuildLogGetString)                                                                     \
  X(zeModuleBuildLogDestroy)                                                                       \
  X(zeKernelCreate)                                                                                \
  X(zeKernelDestroy)                                                                               \
  X(zeKernelSetArgumentValue)                                                                      \
  X(zeKernelSetGroupSize)                                                                          \
  X(zeKernelSuggestGroupSize)                                                                      \
  X(zeKernelSetIndirectAccess)                                                                     \
  X(zeKernelGetProperties)                                                                         \
  X(zeKernelGetName)

struct ZeLoader {
#define DGLINK_ZE_MEMBER(Name) decltype(&::Name) Name = nullptr;
  DGLINK_ZE_FUNCTIONS(DGLINK_ZE_MEMBER)
#undef DGLINK_ZE_MEMBER
};

// Opens the loader and calls zeInit once; false (with Reason) where there is
// no loader, a function is missing or zeInit fails (no driver).
bool loadLevelZero(std::string *Reason);
// The loaded functions; only after loadLevelZero returned true.
const ZeLoader &ze();

const char *zeResultName(ze_result_t Result);

// Records a failed call as the last error: Code (default: mapped from Result)
// and "<Call> failed: ZE_RESULT_... (0x...)".
pi_result zeError(ze_result_t Result, const char *Call, pi_result Code = PI_SUCCESS);

} // namespace dglink::level_zero

// Calls a loader function; a failure returns the mapped pi_result.
#define DGLINK_ZE(Function, ...)                                                                   \
  do {                                                                                             \
    const ze_result_t DglinkZeResult_ = ::dglink::level_zero::ze().Function(__VA_ARGS__);          \
    if (DglinkZeResult_ != ZE_RESULT_SUCCESS)                                                      \
      return ::dglink::level_zero::zeError(DglinkZeResult_, #Function);                            \
  } while (0)
