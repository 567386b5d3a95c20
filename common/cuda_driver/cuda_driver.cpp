// Loading libcuda.so.1 with dlopen and turning CUresult into pi_result.
#include "cuda_driver.h"

#include <dglink/support/log.h>

#include <dlfcn.h>

#include <cstring>
#include <mutex>

namespace dglink::cuda {

CudaDriver Driver;

namespace {

#define DGLINK_CUDA_STRINGIFY_EXPANDED(Name) DGLINK_CUDA_STRINGIFY(Name)
#define DGLINK_CUDA_STRINGIFY(Name) #Name

// dlsym into a function pointer without a pointer-to-object cast.
template <typename Function> bool resolve(void *Library, const char *Symbol, Function &Out) {
  void *Address = dlsym(Library, Symbol);
  if (Address == nullptr)
    return false;
  static_assert(sizeof(Function) == sizeof(void *), "function pointers are data-pointer sized");
  std::memcpy(&Out, &Address, sizeof(Out));
  return true;
}

struct LoadState {
  bool Loaded = false;
  std::string Reason;
};

LoadState load() {
  LoadState State;
  void *Library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (Library == nullptr) {
    const char *Error = dlerror();
    State.Reason = std::string("cannot open libcuda.so.1: ") + (Error ? Error : "unknown error");
    return State;
  }
  CudaDriver Table;
#define DGLINK_CUDA_RESOLVE_REQUIRED(Name)                                                         \
  if (!resolve(Library, DGLINK_CUDA_STRINGIFY_EXPANDED(Name), Table.Name)) {                       \
    State.Reason = "libcuda.so.1 lacks " DGLINK_CUDA_STRINGIFY_EXPANDED(Name);                     \
    dlclose(Library);                                                                              \
    return State;                                                                                  \
  }
  DGLINK_CUDA_REQUIRED_FUNCTIONS(DGLINK_CUDA_RESOLVE_REQUIRED)
#undef DGLINK_CUDA_RESOLVE_REQUIRED
#define DGLINK_CUDA_RESOLVE_OPTIONAL(Name)                                                         \
  resolve(Library, DGLINK_CUDA_STRINGIFY_EXPANDED(Name), Table.Name);
  DGLINK_CUDA_OPTIONAL_FUNCTIONS(DGLINK_CUDA_RESOLVE_OPTIONAL)
#undef DGLINK_CUDA_RESOLVE_OPTIONAL

  const CUresult Init = Table.cuInit(0);
  if (Init != CUDA_SUCCESS) {
    const char *Name = nullptr;
    Table.cuGetErrorName(Init, &Name);
    State.Reason = std::string("cuInit failed: ") + (Name ? Name : "unknown error") + " (" +
                   std::to_string(static_cast<int>(Init)) + ")";
    // The library stays open: closing a driver library after cuInit is not safe.
    return State;
  }
  Driver = Table; // written once, before any handle exists
  State.Loaded = true;
  return State;
}

} // namespace

bool loadCudaDriver(std::string *Reason) {
  static const LoadState State = [] {
    LoadState Result = load();
    if (Result.Loaded)
      logger().debug("cuda: driver loaded");
    else
      logger().info("cuda: no CUDA driver: {}; the adapter reports zero platforms", Result.Reason);
    return Result;
  }();
  if (Reason != nullptr)
    *Reason = State.Reason;
  return State.Loaded;
}

static pi_result defaultCode(CUresult Result) {
  switch (Result) {
  case CUDA_ERROR_INVALID_VALUE:
    return PI_ERROR_INVALID_VALUE;
  case CUDA_ERROR_OUT_OF_MEMORY:
    return PI_ERROR_OUT_OF_RESOURCES;
  case CUDA_ERROR_NO_DEVICE:
    return PI_ERROR_DEVICE_NOT_FOUND;
  case CUDA_ERROR_INVALID_DEVICE:
    return PI_ERROR_INVALID_DEVICE;
  case CUDA_ERROR_INVALID_CONTEXT:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    return PI_ERROR_INVALID_CONTEXT;
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_INVALID_SOURCE:
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    return PI_ERROR_INVALID_BINARY;
  case CUDA_ERROR_NOT_FOUND:
    return PI_ERROR_INVALID_VALUE;
  case CUDA_ERROR_INVALID_HANDLE:
    return PI_ERROR_INVALID_VALUE;
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
    return PI_ERROR_COMMAND_EXECUTION_FAILURE;
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return PI_ERROR_OUT_OF_RESOURCES;
  default:
    return PI_ERROR_UNKNOWN;
  }
}

pi_result cudaError(CUresult Result, const char *Call, pi_result Code) {
  const char *Name = nullptr;
  const char *Text = nullptr;
  if (Driver.cuGetErrorName != nullptr)
    Driver.cuGetErrorName(Result, &Name);
  if (Driver.cuGetErrorString != nullptr)
    Driver.cuGetErrorString(Result, &Text);
  return fail(Code, "{} failed: {} ({}): {}", Call, Name ? Name : "CUDA_ERROR_<unknown>",
              static_cast<int>(Result), Text ? Text : "no description");
}

pi_result cudaError(CUresult Result, const char *Call) {
  return cudaError(Result, Call, defaultCode(Result));
}

} // namespace dglink::cuda
