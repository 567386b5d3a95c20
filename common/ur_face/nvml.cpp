// NVML through dlopen: the library, its initialization and each GPU's handle, found
// once and kept for the process (NVML's handles stay valid until nvmlShutdown, which is
// never called: other libraries of the process may use NVML too).
#include "nvml.h"

#include "face.h"

#include <dglink/support/log.h>

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <mutex>

namespace dglink::ur::nvml {

namespace {

// NVML's ABI (nvml.h, not on this build's machines): results are an int enum, a device
// is an opaque pointer, and these codes and reason bits are its documented values.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque *;
constexpr NvmlReturn Success = 0;
constexpr NvmlReturn Uninitialized = 1;
constexpr NvmlReturn InvalidArgument = 2;
constexpr NvmlReturn NotSupported = 3;
constexpr NvmlReturn NoPermission = 4;
constexpr NvmlReturn NotFound = 6;
constexpr NvmlReturn GpuIsLost = 15;

constexpr unsigned long long ReasonGpuIdle = 0x1;
constexpr unsigned long long ReasonApplicationsClocksSetting = 0x2;
constexpr unsigned long long ReasonSwPowerCap = 0x4;
constexpr unsigned long long ReasonSwThermalSlowdown = 0x20;
constexpr unsigned long long ReasonHwThermalSlowdown = 0x40;
constexpr unsigned long long ReasonHwPowerBrakeSlowdown = 0x80;

struct Library {
  NvmlReturn (*Init)() = nullptr;
  NvmlReturn (*HandleByPciBusId)(const char *, NvmlDevice *) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons; its older name where the library predates it.
  NvmlReturn (*EventReasons)(NvmlDevice, unsigned long long *) = nullptr;
  NvmlReturn (*LimitConstraints)(NvmlDevice, unsigned int *, unsigned int *) = nullptr;
  NvmlReturn (*FanSpeed)(NvmlDevice, unsigned int *) = nullptr;
  const char *(*ErrorString)(NvmlReturn) = nullptr;
  bool Ready = false;
};

template <typename Function> void resolve(void *Handle, const char *Symbol, Function &Out) {
  void *Address = dlsym(Handle, Symbol);
  static_assert(sizeof(Function) == sizeof(void *), "function pointers are data-pointer sized");
  if (Address != nullptr)
    std::memcpy(&Out, &Address, sizeof(Out));
}

Library open() {
  Library Lib;
  void *Handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (Handle == nullptr) {
    const char *Error = dlerror();
    logger().debug("nvml: not loaded ({}); management queries are unsupported",
                   Error != nullptr ? Error : "unknown error");
    return Lib;
  }
  resolve(Handle, "nvmlInit_v2", Lib.Init);
  resolve(Handle, "nvmlDeviceGetHandleByPciBusId_v2", Lib.HandleByPciBusId);
  resolve(Handle, "nvmlDeviceGetCurrentClocksEventReasons", Lib.EventReasons);
  if (Lib.EventReasons == nullptr)
    resolve(Handle, "nvmlDeviceGetCurrentClocksThrottleReasons", Lib.EventReasons);
  resolve(Handle, "nvmlDeviceGetPowerManagementLimitConstraints", Lib.LimitConstraints);
  resolve(Handle, "nvmlDeviceGetFanSpeed", Lib.FanSpeed);
  resolve(Handle, "nvmlErrorString", Lib.ErrorString);
  if (Lib.Init == nullptr || Lib.HandleByPciBusId == nullptr) {
    logger().info("nvml: libnvidia-ml.so.1 lacks nvmlInit_v2 or "
                  "nvmlDeviceGetHandleByPciBusId_v2; management queries are unsupported");
    return Lib; // the library stays open: other code of the process may hold it too
  }
  const NvmlReturn Init = Lib.Init();
  if (Init != Success) {
    logger().info("nvml: nvmlInit_v2 failed ({}); management queries are unsupported", Init);
    return Lib;
  }
  Lib.Ready = true;
  return Lib;
}

const Library &library() {
  static const Library Lib = open();
  return Lib;
}

// The handle of the GPU at Address, looked up once per address (NotFound is kept too: a
// device that is no NVIDIA GPU asks again and again; so is an address NVML cannot read,
// InvalidArgument, which then answers as NotFound).
NvmlReturn deviceAt(const Library &Lib, const std::string &Address, NvmlDevice &Out) {
  static std::mutex Lock;
  static std::map<std::string, std::pair<NvmlReturn, NvmlDevice>> Known;
  const std::lock_guard<std::mutex> Guard(Lock);
  auto Found = Known.find(Address);
  if (Found == Known.end()) {
    NvmlDevice Device = nullptr;
    NvmlReturn Result = Lib.HandleByPciBusId(Address.c_str(), &Device);
    if (Result == InvalidArgument)
      Result = NotFound;
    // Only answers that stay true are kept; a transient failure is asked again.
    if (Result != Success && Result != NotFound)
      return Result;
    Found = Known.emplace(Address, std::make_pair(Result, Device)).first;
  }
  Out = Found->second.second;
  return Found->second.first;
}

const char *message(const Library &Lib, NvmlReturn Result) {
  const char *Text = Lib.ErrorString != nullptr ? Lib.ErrorString(Result) : nullptr;
  return Text != nullptr ? Text : "no message";
}

ur_result_t outcome(const Library &Lib, NvmlReturn Result, const char *Call) {
  switch (Result) {
  case Success:
    return UR_RESULT_SUCCESS;
  case NotSupported:
  case NotFound:
  case NoPermission:
  case Uninitialized:
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION,
                  "urDeviceGetInfo: unanswered: {} says '{}' ({})", Call, message(Lib, Result),
                  Result);
  case GpuIsLost:
    return failUr(UR_RESULT_ERROR_DEVICE_LOST, "urDeviceGetInfo: {} says the GPU is lost", Call);
  default:
    return failUr(UR_RESULT_ERROR_UNKNOWN, "urDeviceGetInfo: {} failed: {} ({})", Call,
                  message(Lib, Result), Result);
  }
}

} // namespace

ur_device_throttle_reasons_flags_t throttleFlags(unsigned long long NvmlReasons) {
  ur_device_throttle_reasons_flags_t Flags = 0;
  const std::pair<unsigned long long, ur_device_throttle_reasons_flags_t> Pairs[] = {
      {ReasonSwPowerCap, UR_DEVICE_THROTTLE_REASONS_FLAG_POWER_CAP},
      {ReasonHwThermalSlowdown | ReasonSwThermalSlowdown,
       UR_DEVICE_THROTTLE_REASONS_FLAG_THERMAL_LIMIT},
      {ReasonHwPowerBrakeSlowdown, UR_DEVICE_THROTTLE_REASONS_FLAG_PSU_ALERT},
      {ReasonApplicationsClocksSetting, UR_DEVICE_THROTTLE_REASONS_FLAG_SW_RANGE}};
  unsigned long long Rest = NvmlReasons & ~ReasonGpuIdle;
  for (const auto &[Bits, Flag] : Pairs) {
    if ((Rest & Bits) != 0)
      Flags |= Flag;
    Rest &= ~Bits;
  }
  if (Rest != 0)
    Flags |= UR_DEVICE_THROTTLE_REASONS_FLAG_OTHER;
  return Flags;
}

ur_result_t read(const std::string &PciAddress, Reading What, int64_t &Value) {
  const Library &Lib = library();
  if (PciAddress.empty())
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION,
                  "urDeviceGetInfo: unanswered: the device states no PCI address to find its "
                  "GPU in NVIDIA's management library by");
  if (!Lib.Ready)
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION,
                  "urDeviceGetInfo: unanswered: NVIDIA's management library (libnvidia-ml.so.1) "
                  "is not loaded or not initialized here");
  NvmlDevice Device = nullptr;
  if (const NvmlReturn Found = deviceAt(Lib, PciAddress, Device); Found != Success)
    return outcome(Lib, Found, "nvmlDeviceGetHandleByPciBusId_v2");
  switch (What) {
  case Reading::ThrottleReasons: {
    if (Lib.EventReasons == nullptr)
      return failUr(UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION,
                    "urDeviceGetInfo: unanswered: this NVML has no clocks event reasons");
    unsigned long long Reasons = 0;
    const ur_result_t Result =
        outcome(Lib, Lib.EventReasons(Device, &Reasons), "nvmlDeviceGetCurrentClocksEventReasons");
    if (Result == UR_RESULT_SUCCESS)
      Value = throttleFlags(Reasons);
    return Result;
  }
  case Reading::FanSpeedPercent: {
    if (Lib.FanSpeed == nullptr)
      return failUr(UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION,
                    "urDeviceGetInfo: unanswered: this NVML has no nvmlDeviceGetFanSpeed");
    unsigned int Speed = 0;
    const ur_result_t Result = outcome(Lib, Lib.FanSpeed(Device, &Speed), "nvmlDeviceGetFanSpeed");
    if (Result == UR_RESULT_SUCCESS)
      Value = Speed;
    return Result;
  }
  case Reading::MinPowerLimitMilliwatts:
  case Reading::MaxPowerLimitMilliwatts: {
    if (Lib.LimitConstraints == nullptr)
      return failUr(UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION,
                    "urDeviceGetInfo: unanswered: this NVML has no power limit constraints");
    unsigned int Min = 0, Max = 0;
    const ur_result_t Result = outcome(Lib, Lib.LimitConstraints(Device, &Min, &Max),
                                       "nvmlDeviceGetPowerManagementLimitConstraints");
    if (Result == UR_RESULT_SUCCESS)
      Value = What == Reading::MinPowerLimitMilliwatts ? Min : Max;
    return Result;
  }
  }
  return UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION;
}

} // namespace dglink::ur::nvml
