// dlopen of libze_loader.so.1 and the ze_result_t -> pi_result mapping.
#include "ze_loader.h"

#include <dglink/support/log.h>

#include <dlfcn.h>

#include <mutex>

namespace dglink::level_zero {
namespace {

ZeLoader Loader;

bool open(std::string &Reason) {
  // Never closed: handles of the driver may outlive any one user.
  void *Library = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
  if (Library == nullptr) {
    const char *Error = dlerror();
    Reason = std::string("libze_loader.so.1 not loadable: ") + (Error ? Error : "unknown error");
    return false;
  }
#define DGLINK_ZE_RESOLVE(Name)                                                                    \
  Loader.Name = reinterpret_cast<decltype(&::Name)>(dlsym(Library, #Name));                        \
  if (Loader.Name == nullptr) {                                                                    \
    Reason = "libze_loader.so.1 has no " #Name;                                                    \
    return false;                                                                                  \
  }
  DGLINK_ZE_FUNCTIONS(DGLINK_ZE_RESOLVE)
#undef DGLINK_ZE_RESOLVE
  const ze_result_t Result = Loader.zeInit(0);
  if (Result != ZE_RESULT_SUCCESS) {
    Reason = std::string("zeInit: ") + zeResultName(Result) + " (no Level Zero driver)";
    return false;
  }
  return true;
}

} // namespace

bool loadLevelZero(std::string *Reason) {
  static std::once_flag Once;
  static bool Loaded = false;
  static std::string Why;
  std::call_once(Once, [] {
    Loaded = open(Why);
    if (!Loaded)
      logger().info("level_zero: {}; zero platforms", Why);
  });
  if (!Loaded && Reason != nullptr)
    *Reason = Why;
  return Loaded;
}

const ZeLoader &ze() { return Loader; }

const char *zeResultName(ze_result_t Result) {
  switch (Result) {
#define DGLINK_ZE_NAME(Name)                                                                       \
  case Name:                                                                                       \
    return #Name;
    DGLINK_ZE_NAME(ZE_RESULT_SUCCESS)
    DGLINK_ZE_NAME(ZE_RESULT_NOT_READY)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_DEVICE_LOST)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_NOT_AVAILABLE)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_UNINITIALIZED)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_NULL_POINTER)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_SIZE)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_ENUMERATION)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
    DGLINK_ZE_NAME(ZE_RESULT_ERROR_UNKNOWN)
#undef DGLINK_ZE_NAME
  default:
    return "ZE_RESULT_(unknown)";
  }
}

pi_result zeError(ze_result_t Result, const char *Call, pi_result Code) {
  if (Code == PI_SUCCESS) {
    switch (Result) {
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
      Code = PI_ERROR_OUT_OF_HOST_MEMORY;
      break;
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
      Code = PI_ERROR_OUT_OF_RESOURCES;
      break;
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE:
      Code = PI_ERROR_BUILD_PROGRAM_FAILURE;
      break;
    case ZE_RESULT_ERROR_MODULE_LINK_FAILURE:
      Code = PI_ERROR_LINK_PROGRAM_FAILURE;
      break;
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY:
      Code = PI_ERROR_INVALID_BINARY;
      break;
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME:
      Code = PI_ERROR_INVALID_KERNEL_NAME;
      break;
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX:
      Code = PI_ERROR_INVALID_ARG_INDEX;
      break;
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE:
      Code = PI_ERROR_INVALID_ARG_SIZE;
      break;
    case ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION:
      Code = PI_ERROR_INVALID_WORK_GROUP_SIZE;
      break;
    case ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED:
      Code = PI_ERROR_INVALID_PROGRAM_EXECUTABLE;
      break;
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
      Code = PI_ERROR_UNSUPPORTED_FEATURE;
      break;
    case ZE_RESULT_ERROR_INVALID_ARGUMENT:
    case ZE_RESULT_ERROR_INVALID_NULL_POINTER:
    case ZE_RESULT_ERROR_INVALID_SIZE:
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE:
    case ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT:
    case ZE_RESULT_ERROR_INVALID_GLOBAL_NAME:
      Code = PI_ERROR_INVALID_VALUE;
      break;
    case ZE_RESULT_ERROR_DEVICE_LOST:
      Code = PI_ERROR_DEVICE_NOT_AVAILABLE;
      break;
    default:
      Code = PI_ERROR_UNKNOWN;
      break;
    }
  }
  return fail(Code, "{} failed: {} ({:#x})", Call, zeResultName(Result),
              static_cast<unsigned>(Result));
}

} // namespace dglink::level_zero
