// libdglink_ze_test_driver: a Level Zero driver for TESTS ONLY, loaded by the
// real Level Zero loader through ZE_ENABLE_ALT_DRIVERS. It keeps everything in
// host memory: one device (DGLINK_ZE_TEST_DEVICES=N: N devices of the one
// driver) that says in its name (and through the driver extension
// "dglink_test_driver_no_kernel_execution") that it executes no kernels;
// contexts of the driver, immediate command lists of one device that run copies
// and fills at once, events, USM owned by the device it was allocated on, and
// modules of one device read from SPIR-V with real storage for their
// program-scope variables (one segment per module), zeModuleGetGlobalPointer
// (HostAccessINTEL name first, then the export name) and zeModuleDynamicLink.
// Kernel launches are refused with ZE_RESULT_ERROR_UNSUPPORTED_FEATURE.
//
// Only the zeGet*ProcAddrTable functions are exported; the loader reaches
// everything else through the tables they fill.
#include "spirv_module.h"

#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

using dglink::ze_test::readSpirvModule;
using dglink::ze_test::SpirvGlobal;
using dglink::ze_test::SpirvKernel;
using dglink::ze_test::SpirvModule;

// The driver extension that tells an adapter this device runs no kernels.
#define DGLINK_TEST_DRIVER_EXTENSION "dglink_test_driver_no_kernel_execution"
#define DGLINK_TEST_DEVICE_NAME "dglink Level Zero test driver (host memory, executes no kernels)"
// Native binaries of this driver: this tag, then the module's SPIR-V.
static const char NativeTag[8] = {'D', 'G', 'L', 'Z', 'N', 'A', 'T', '1'};

struct _ze_driver_handle_t {};
struct _ze_device_handle_t {
  uint32_t Index = 0; // its place in zeDeviceGet's list
};
struct _ze_context_handle_t {};
struct _ze_command_list_handle_t {
  _ze_context_handle_t *Context = nullptr;
  _ze_device_handle_t *Device = nullptr; // the device its commands run on
  std::mutex Mutex;                      // commands of one list run one at a time, in order
};
struct _ze_event_pool_handle_t {
  _ze_context_handle_t *Context = nullptr;
  uint32_t Count = 0;
  std::mutex Mutex;
  std::vector<bool> Used;
  // The devices the pool is visible to (zeEventPoolCreate's list); empty: every device.
  std::vector<_ze_device_handle_t *> Devices;
  bool Timestamps = false; // ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP: its events record times
};
struct _ze_event_handle_t {
  _ze_event_pool_handle_t *Pool = nullptr;
  uint32_t Index = 0;
  // When the command that signaled it began and ended, on the device's clock (now()),
  // written before Signaled is set.
  uint64_t Start = 0;
  uint64_t End = 0;
  std::atomic<bool> Signaled{false};
};
struct _ze_module_build_log_handle_t {
  std::string Text;
};

namespace {

// Where one module global lives: its aligned place in the module's segment.
struct GlobalStorage {
  const SpirvGlobal *Declaration = nullptr;
  uint8_t *Bytes = nullptr;
};

} // namespace

struct _ze_module_handle_t {
  _ze_device_handle_t *Device = nullptr; // a module is code for one device
  SpirvModule Spirv;
  std::vector<uint8_t> Il;
  std::string BuildFlags;
  // The module's defined (not imported) globals share one allocation, as a real driver
  // keeps them in one segment: one entry in Allocations per module, not per global.
  uint8_t *Segment = nullptr;
  std::vector<GlobalStorage> Storage; // one per defined global, pointing into Segment
  // Storage by HostAccessINTEL name and by export name: a real driver finds a global
  // without a walk over all of them, and the scaling benchmarks measure dglink's cost.
  std::unordered_map<std::string, size_t> ByHostAccessName;
  std::unordered_map<std::string, size_t> ByExportName;
  std::set<std::string> Unresolved; // imports not yet linked
  ~_ze_module_handle_t();
};

struct _ze_kernel_handle_t {
  _ze_module_handle_t *Module = nullptr;
  const SpirvKernel *Kernel = nullptr;
  std::vector<bool> ArgumentSet;
  uint32_t GroupSize[3] = {1, 1, 1};
  ze_kernel_indirect_access_flags_t IndirectAccess = 0;
};

namespace {

_ze_driver_handle_t TheDriver;
// The driver's devices: DGLINK_ZE_TEST_DEVICES of them (1 where unset), read by zeInit.
constexpr uint32_t MaxDevices = 16;
_ze_device_handle_t TheDevices[MaxDevices];
uint32_t DeviceCount = 1;
// Whether the devices reach each other's memory (DGLINK_ZE_TEST_PEER_ACCESS).
bool PeerAccess = true;

// Whether Device is one of the driver's devices (and not null).
bool isDevice(ze_device_handle_t Device) {
  for (uint32_t I = 0; I < DeviceCount; ++I)
    if (Device == &TheDevices[I])
      return true;
  return false;
}

// Every allocation the driver made (USM, and each module's segment of globals), so
// that a copy touching one is checked against its end. Device memory, shared memory
// and a module's globals belong to one device (Owner); host memory to none.
struct Allocation {
  size_t Size = 0;
  ze_memory_type_t Type = ZE_MEMORY_TYPE_UNKNOWN;
  bool ModuleGlobal = false;
  _ze_device_handle_t *Owner = nullptr;
};
std::mutex AllocationsMutex;
std::map<const uint8_t *, Allocation> Allocations;

uint8_t *allocate(size_t Size, size_t Alignment, Allocation Info) {
  Alignment = std::max<size_t>(Alignment, 64);
  const size_t Rounded = (std::max<size_t>(Size, 1) + Alignment - 1) / Alignment * Alignment;
  auto *Bytes = static_cast<uint8_t *>(std::aligned_alloc(Alignment, Rounded));
  if (Bytes == nullptr)
    return nullptr;
  Info.Size = Size;
  std::lock_guard<std::mutex> Lock(AllocationsMutex);
  Allocations[Bytes] = Info;
  return Bytes;
}

bool release(void *Pointer, bool ModuleGlobal) {
  {
    std::lock_guard<std::mutex> Lock(AllocationsMutex);
    auto It = Allocations.find(static_cast<const uint8_t *>(Pointer));
    if (It == Allocations.end() || It->second.ModuleGlobal != ModuleGlobal)
      return false;
    Allocations.erase(It);
  }
  std::free(Pointer);
  return true;
}

// A range that a command of device On touches: where it starts inside a known
// allocation it must end inside it (else ZE_RESULT_ERROR_INVALID_SIZE), and memory of
// another device is reached only where the devices are peers (else
// ZE_RESULT_ERROR_INVALID_ARGUMENT).
ze_result_t checkRange(const _ze_device_handle_t *On, const void *Pointer, size_t Size) {
  const auto *Start = static_cast<const uint8_t *>(Pointer);
  std::lock_guard<std::mutex> Lock(AllocationsMutex);
  auto It = Allocations.upper_bound(Start);
  if (It == Allocations.begin())
    return ZE_RESULT_SUCCESS;
  --It;
  const size_t Offset = static_cast<size_t>(Start - It->first);
  if (Offset >= It->second.Size)
    return ZE_RESULT_SUCCESS; // host memory after that allocation: not the driver's to check
  if (Size > It->second.Size - Offset)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  if (It->second.Owner != nullptr && It->second.Owner != On && !PeerAccess)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  return ZE_RESULT_SUCCESS;
}

// Both sides of a copy, as checkRange.
ze_result_t checkRanges(const _ze_device_handle_t *On, const void *Dst, const void *Src,
                        size_t Size) {
  const ze_result_t Result = checkRange(On, Dst, Size);
  return Result != ZE_RESULT_SUCCESS ? Result : checkRange(On, Src, Size);
}

template <typename T> bool isPowerOfTwo(T Value) {
  return Value != 0 && (Value & (Value - 1)) == 0;
}

} // namespace

_ze_module_handle_t::~_ze_module_handle_t() {
  if (Segment != nullptr)
    release(Segment, true);
}

namespace {

// ---- driver, device, context ----

// What the device's module properties say it computes: DGLINK_ZE_TEST_MODULE_FLAGS, a
// comma-separated list of fp16, fp64 and int64_atomics ("none" or empty: none of them),
// so that tests see devices with and without each; unset: fp64,int64_atomics. False,
// naming the word in Bad, for a word that is none of these.
bool readModuleFlags(ze_device_module_flags_t &Flags, std::string &Bad) {
  const char *Text = std::getenv("DGLINK_ZE_TEST_MODULE_FLAGS");
  if (Text == nullptr) {
    Flags = ZE_DEVICE_MODULE_FLAG_FP64 | ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS;
    return true;
  }
  Flags = 0;
  const std::string List = std::string(Text) + ",";
  std::string Word;
  for (char C : List) {
    if (C != ',') {
      if (C != ' ')
        Word += C;
      continue;
    }
    if (Word == "fp16")
      Flags |= ZE_DEVICE_MODULE_FLAG_FP16;
    else if (Word == "fp64")
      Flags |= ZE_DEVICE_MODULE_FLAG_FP64;
    else if (Word == "int64_atomics")
      Flags |= ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS;
    else if (!Word.empty() && Word != "none") {
      Bad = Word;
      return false;
    }
    Word.clear();
  }
  return true;
}

ze_device_module_flags_t ModuleFlags = 0;

// How many devices the driver has: DGLINK_ZE_TEST_DEVICES, 1 to MaxDevices (unset: 1).
// False for anything else.
bool readDeviceCount(uint32_t &Count) {
  const char *Text = std::getenv("DGLINK_ZE_TEST_DEVICES");
  if (Text == nullptr) {
    Count = 1;
    return true;
  }
  char *End = nullptr;
  const unsigned long Value = std::strtoul(Text, &End, 10);
  if (End == Text || *End != '\0' || Value == 0 || Value > MaxDevices)
    return false;
  Count = static_cast<uint32_t>(Value);
  return true;
}

// Whether the devices reach each other's memory (zeDeviceCanAccessPeer):
// DGLINK_ZE_TEST_PEER_ACCESS=0 says they do not (unset or 1: they do, as GPUs joined by
// a fabric). False for another value.
bool readPeerAccess(bool &Access) {
  const char *Text = std::getenv("DGLINK_ZE_TEST_PEER_ACCESS");
  if (Text == nullptr || std::strcmp(Text, "1") == 0) {
    Access = true;
    return true;
  }
  Access = false;
  return std::strcmp(Text, "0") == 0;
}

// A flag list with a typo (or a device count, or a peer-access word, that is none)
// fails zeInit, so that no test passes on a device it did not ask for: the loader then
// has no driver, and the adapter reports no platform.
ze_result_t ZE_APICALL init(ze_init_flags_t Flags) {
  if (Flags > 3)
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  std::string Bad;
  if (!readModuleFlags(ModuleFlags, Bad)) {
    std::fprintf(stderr,
                 "dglink Level Zero test driver: DGLINK_ZE_TEST_MODULE_FLAGS: '%s' is not "
                 "fp16, fp64, int64_atomics or none\n",
                 Bad.c_str());
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  if (!readDeviceCount(DeviceCount)) {
    std::fprintf(stderr,
                 "dglink Level Zero test driver: DGLINK_ZE_TEST_DEVICES: '%s' is not a number "
                 "of devices from 1 to %u\n",
                 std::getenv("DGLINK_ZE_TEST_DEVICES"), MaxDevices);
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  if (!readPeerAccess(PeerAccess)) {
    std::fprintf(stderr,
                 "dglink Level Zero test driver: DGLINK_ZE_TEST_PEER_ACCESS: '%s' is not 0 or 1\n",
                 std::getenv("DGLINK_ZE_TEST_PEER_ACCESS"));
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  for (uint32_t I = 0; I < MaxDevices; ++I)
    TheDevices[I].Index = I;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL driverGet(uint32_t *Count, ze_driver_handle_t *Drivers) {
  if (Count == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Drivers != nullptr && *Count >= 1)
    Drivers[0] = &TheDriver;
  *Count = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL driverGetApiVersion(ze_driver_handle_t Driver, ze_api_version_t *Version) {
  if (Driver == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Version == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *Version = ZE_API_VERSION_1_4;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL driverGetProperties(ze_driver_handle_t Driver,
                                           ze_driver_properties_t *Properties) {
  if (Driver == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Properties == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  std::memset(&Properties->uuid, 0, sizeof(Properties->uuid));
  std::memcpy(Properties->uuid.id, "dglink-ze-test", 14);
  Properties->driverVersion = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL driverGetExtensionProperties(ze_driver_handle_t Driver, uint32_t *Count,
                                                    ze_driver_extension_properties_t *Properties) {
  if (Driver == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Count == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Properties != nullptr && *Count >= 1) {
    std::memset(Properties[0].name, 0, sizeof(Properties[0].name));
    std::strncpy(Properties[0].name, DGLINK_TEST_DRIVER_EXTENSION, ZE_MAX_EXTENSION_NAME - 1);
    Properties[0].version = 1;
  }
  *Count = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL deviceGet(ze_driver_handle_t Driver, uint32_t *Count,
                                 ze_device_handle_t *Devices) {
  if (Driver != &TheDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Count == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Devices != nullptr) {
    *Count = std::min(*Count, DeviceCount);
    for (uint32_t I = 0; I < *Count; ++I)
      Devices[I] = &TheDevices[I];
    return ZE_RESULT_SUCCESS;
  }
  *Count = DeviceCount;
  return ZE_RESULT_SUCCESS;
}

// Devices of the driver reach each other's memory unless DGLINK_ZE_TEST_PEER_ACCESS=0
// (a device always reaches its own).
ze_result_t ZE_APICALL deviceCanAccessPeer(ze_device_handle_t Device, ze_device_handle_t Peer,
                                           ze_bool_t *Value) {
  if (!isDevice(Device) || !isDevice(Peer))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Value == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *Value = Device == Peer || PeerAccess ? 1 : 0;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL deviceGetSubDevices(ze_device_handle_t Device, uint32_t *Count,
                                           ze_device_handle_t *) {
  if (Device == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Count == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *Count = 0;
  return ZE_RESULT_SUCCESS;
}

uint64_t steadyNanoseconds() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// The device's timer, which its timestamps and zeDeviceGetGlobalTimestamps read: the
// host's steady clock in nanoseconds (1 ns a tick, 64 valid bits); with
// DGLINK_ZE_TEST_TIMER="<ticks a second>,<valid bits>" a counter of that rate and width
// started when the driver loaded (Intel's GPUs count 19.2 or 12.5 MHz in 32 to 64 bits),
// so that an adapter's conversion and unwrap meet another timer than nanoseconds. The
// times are of this driver's host-side work, not of any hardware.
struct Timer {
  uint64_t PerSecond = 1000000000;
  uint32_t Bits = 64;
  uint64_t Origin = 0; // steady nanoseconds at tick 0 (a counter of the knob's)
};

const Timer &timer() {
  static const Timer Made = [] {
    Timer T;
    const char *Text = std::getenv("DGLINK_ZE_TEST_TIMER");
    if (Text == nullptr || *Text == '\0')
      return T;
    unsigned long long PerSecond = 0;
    unsigned Bits = 0;
    char Rest = 0;
    if (std::sscanf(Text, "%llu,%u%c", &PerSecond, &Bits, &Rest) != 2 || PerSecond == 0 ||
        PerSecond > 1000000000ULL || Bits < 16 || Bits > 64) {
      std::fprintf(stderr,
                   "dglink_ze_test_driver: DGLINK_ZE_TEST_TIMER='%s' is not '<ticks a second up "
                   "to 1e9>,<valid bits 16 to 64>'; 1 ns ticks of 64 bits\n",
                   Text);
      return T;
    }
    T.PerSecond = PerSecond;
    T.Bits = Bits;
    T.Origin = steadyNanoseconds();
    return T;
  }();
  return Made;
}

uint64_t now() {
  const Timer &T = timer();
  const uint64_t Elapsed = steadyNanoseconds() - T.Origin;
  // Whole seconds and the rest apart (the rest times at most 1e9 ticks fits 64 bits).
  const uint64_t Ticks =
      Elapsed / 1000000000U * T.PerSecond + Elapsed % 1000000000U * T.PerSecond / 1000000000U;
  return T.Bits >= 64 ? Ticks : Ticks & ((uint64_t{1} << T.Bits) - 1);
}

// Host and device timestamps at once: the host's in nanoseconds, the device's in ticks.
ze_result_t ZE_APICALL deviceGetGlobalTimestamps(ze_device_handle_t Device, uint64_t *Host,
                                                 uint64_t *DeviceTime) {
  if (!isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Host == nullptr || DeviceTime == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *DeviceTime = now();
  *Host = steadyNanoseconds();
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL deviceGetProperties(ze_device_handle_t Device,
                                           ze_device_properties_t *Properties) {
  if (!isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Properties == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const ze_structure_type_t Type = Properties->stype;
  void *Next = Properties->pNext;
  std::memset(Properties, 0, sizeof(*Properties));
  Properties->stype = Type;
  Properties->pNext = Next;
  // Not a GPU and not Intel's vendor id: nothing here may pass for hardware.
  Properties->type = ZE_DEVICE_TYPE_VPU;
  Properties->vendorId = 0;
  Properties->deviceId = 0;
  // One uuid per device, so that a runtime tells the devices apart.
  std::memcpy(Properties->uuid.id, "dglink-ze-test", 14);
  Properties->uuid.id[ZE_MAX_DEVICE_UUID_SIZE - 1] = static_cast<uint8_t>(Device->Index);
  Properties->maxMemAllocSize = uint64_t(1) << 30;
  Properties->numThreadsPerEU = 1;
  Properties->physicalEUSimdWidth = 1;
  Properties->numEUsPerSubslice = 1;
  Properties->numSubslicesPerSlice = 1;
  Properties->numSlices = 1;
  std::strncpy(Properties->name, DGLINK_TEST_DEVICE_NAME, ZE_MAX_DEVICE_NAME - 1);
  // now()'s timer: the 1.2 form states ticks a second, the 1.0 form whole nanoseconds a
  // tick (rounded down, as drivers do: 52 for 19.2 MHz).
  const Timer &T = timer();
  Properties->timerResolution = Type == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2
                                    ? T.PerSecond
                                    : std::max<uint64_t>(1, 1000000000U / T.PerSecond);
  Properties->timestampValidBits = T.Bits;
  Properties->kernelTimestampValidBits = T.Bits;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL deviceGetComputeProperties(ze_device_handle_t Device,
                                                  ze_device_compute_properties_t *Properties) {
  if (!isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Properties == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Properties->maxTotalGroupSize = 1024;
  Properties->maxGroupSizeX = 1024;
  Properties->maxGroupSizeY = 1024;
  Properties->maxGroupSizeZ = 64;
  Properties->maxGroupCountX = 0xFFFFFFFFu;
  Properties->maxGroupCountY = 0xFFFFu;
  Properties->maxGroupCountZ = 0xFFFFu;
  Properties->maxSharedLocalMemory = 65536;
  Properties->numSubGroupSizes = 0;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL deviceGetModuleProperties(ze_device_handle_t Device,
                                                 ze_device_module_properties_t *Properties) {
  if (!isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Properties == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Properties->spirvVersionSupported = ZE_MAKE_VERSION(1, 4);
  Properties->flags = ModuleFlags;
  // As a real driver: a precision's capabilities where its flag is set, else 0 (halves
  // and doubles are only stored here, never computed).
  const ze_device_fp_flags_t Fp =
      ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN | ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST |
      ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO | ZE_DEVICE_FP_FLAG_ROUND_TO_INF | ZE_DEVICE_FP_FLAG_FMA;
  Properties->fp16flags = (ModuleFlags & ZE_DEVICE_MODULE_FLAG_FP16) != 0 ? Fp : 0;
  Properties->fp32flags = Fp | ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT;
  Properties->fp64flags = (ModuleFlags & ZE_DEVICE_MODULE_FLAG_FP64) != 0
                              ? Fp | ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT
                              : 0;
  Properties->maxArgumentsSize = 2048;
  Properties->printfBufferSize = 0;
  std::memset(&Properties->nativeKernelSupported, 0, sizeof(Properties->nativeKernelSupported));
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL deviceGetCommandQueueGroupProperties(
    ze_device_handle_t Device, uint32_t *Count, ze_command_queue_group_properties_t *Properties) {
  if (!isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Count == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Properties != nullptr && *Count >= 1) {
    Properties[0].flags =
        ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
    Properties[0].maxMemoryFillPatternSize = 128;
    Properties[0].numQueues = 1;
  }
  *Count = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL deviceGetMemoryProperties(ze_device_handle_t Device, uint32_t *Count,
                                                 ze_device_memory_properties_t *Properties) {
  if (!isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Count == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Properties != nullptr && *Count >= 1) {
    Properties[0].flags = 0;
    Properties[0].maxClockRate = 0;
    Properties[0].maxBusWidth = 0;
    Properties[0].totalSize = uint64_t(1) << 30;
    std::strncpy(Properties[0].name, "host memory", ZE_MAX_DEVICE_NAME - 1);
  }
  *Count = 1;
  return ZE_RESULT_SUCCESS;
}

// Host memory and nothing of its own in front of it: no cache to list.
ze_result_t ZE_APICALL deviceGetCacheProperties(ze_device_handle_t Device, uint32_t *Count,
                                                ze_device_cache_properties_t *) {
  if (!isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Count == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *Count = 0;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL deviceGetMemoryAccessProperties(
    ze_device_handle_t Device, ze_device_memory_access_properties_t *Properties) {
  if (!isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Properties == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const ze_memory_access_cap_flags_t All =
      ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC;
  Properties->hostAllocCapabilities = All;
  Properties->deviceAllocCapabilities = All;
  Properties->sharedSingleDeviceAllocCapabilities = All;
  Properties->sharedCrossDeviceAllocCapabilities = 0;
  Properties->sharedSystemAllocCapabilities = 0;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL contextCreate(ze_driver_handle_t Driver, const ze_context_desc_t *Desc,
                                     ze_context_handle_t *Context) {
  if (Driver != &TheDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Desc == nullptr || Context == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *Context = new _ze_context_handle_t();
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL contextDestroy(ze_context_handle_t Context) {
  if (Context == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  delete Context;
  return ZE_RESULT_SUCCESS;
}

// Any context that is not null is live: a test driver's contexts hold nothing.
ze_result_t ZE_APICALL contextGetStatus(ze_context_handle_t Context) {
  return Context == nullptr ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE : ZE_RESULT_SUCCESS;
}

// ---- memory ----

ze_result_t allocateUsm(ze_context_handle_t Context, size_t Size, size_t Alignment,
                        ze_memory_type_t Type, ze_device_handle_t Owner, void **Out) {
  if (Context == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Out == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Size == 0 || Size > (size_t(1) << 30))
    return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
  if (Alignment != 0 && !isPowerOfTwo(Alignment))
    return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
  Allocation Info;
  Info.Type = Type;
  Info.Owner = Owner;
  uint8_t *Bytes = allocate(Size, Alignment, Info);
  if (Bytes == nullptr)
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  *Out = Bytes;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL memAllocDevice(ze_context_handle_t Context,
                                      const ze_device_mem_alloc_desc_t *Desc, size_t Size,
                                      size_t Alignment, ze_device_handle_t Device, void **Out) {
  if (!isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Desc == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  return allocateUsm(Context, Size, Alignment, ZE_MEMORY_TYPE_DEVICE, Device, Out);
}

ze_result_t ZE_APICALL memAllocHost(ze_context_handle_t Context,
                                    const ze_host_mem_alloc_desc_t *Desc, size_t Size,
                                    size_t Alignment, void **Out) {
  if (Desc == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  return allocateUsm(Context, Size, Alignment, ZE_MEMORY_TYPE_HOST, nullptr, Out);
}

ze_result_t ZE_APICALL memAllocShared(ze_context_handle_t Context,
                                      const ze_device_mem_alloc_desc_t *DeviceDesc,
                                      const ze_host_mem_alloc_desc_t *HostDesc, size_t Size,
                                      size_t Alignment, ze_device_handle_t Device, void **Out) {
  if (Device != nullptr && !isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (DeviceDesc == nullptr || HostDesc == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  return allocateUsm(Context, Size, Alignment, ZE_MEMORY_TYPE_SHARED, Device, Out);
}

ze_result_t ZE_APICALL memFree(ze_context_handle_t Context, void *Pointer) {
  if (Context == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Pointer == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  return release(Pointer, false) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

ze_result_t ZE_APICALL memGetAllocProperties(ze_context_handle_t Context, const void *Pointer,
                                             ze_memory_allocation_properties_t *Properties,
                                             ze_device_handle_t *Device) {
  if (Context == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Pointer == nullptr || Properties == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Properties->type = ZE_MEMORY_TYPE_UNKNOWN;
  Properties->id = 0;
  Properties->pageSize = 4096;
  ze_device_handle_t Owner = nullptr;
  {
    std::lock_guard<std::mutex> Lock(AllocationsMutex);
    const auto *Start = static_cast<const uint8_t *>(Pointer);
    auto It = Allocations.upper_bound(Start);
    if (It != Allocations.begin()) {
      --It;
      if (static_cast<size_t>(Start - It->first) < It->second.Size && !It->second.ModuleGlobal) {
        Properties->type = It->second.Type;
        Properties->id = reinterpret_cast<uintptr_t>(It->first);
        Owner = It->second.Owner;
      }
    }
  }
  // The device the memory was allocated on; none for host memory.
  if (Device != nullptr)
    *Device = Owner;
  return ZE_RESULT_SUCCESS;
}

// The allocation Pointer lies in: its start and size (ZE_RESULT_ERROR_INVALID_ARGUMENT
// where it lies in none, as for memory the driver did not allocate).
ze_result_t ZE_APICALL memGetAddressRange(ze_context_handle_t Context, const void *Pointer,
                                          void **Base, size_t *Size) {
  if (Context == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Pointer == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  std::lock_guard<std::mutex> Lock(AllocationsMutex);
  const auto *Start = static_cast<const uint8_t *>(Pointer);
  auto It = Allocations.upper_bound(Start);
  if (It == Allocations.begin())
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  --It;
  if (static_cast<size_t>(Start - It->first) >= It->second.Size || It->second.ModuleGlobal)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  if (Base != nullptr)
    *Base = const_cast<uint8_t *>(It->first);
  if (Size != nullptr)
    *Size = It->second.Size;
  return ZE_RESULT_SUCCESS;
}

// Intel's import extension (zexDriverImportExternalPointer): this driver's devices reach
// host memory anyway; imports are recorded and answered as Intel's driver answers them
// (it counts none): a range inside an import is success and adds nothing, a range that
// overlaps one in part is refused, and a release ends the whole import that holds the
// pointer (memory never imported: refused).
std::mutex ImportsMutex;
std::map<const uint8_t *, size_t> Imports; // start -> bytes; guarded by ImportsMutex

// The import holding Pointer, or Imports.end().
std::map<const uint8_t *, size_t>::iterator importHolding(const uint8_t *Pointer) {
  auto After = Imports.upper_bound(Pointer);
  if (After == Imports.begin())
    return Imports.end();
  auto Holder = std::prev(After);
  return static_cast<size_t>(Pointer - Holder->first) < Holder->second ? Holder : Imports.end();
}

ze_result_t ZE_APICALL importExternalPointer(ze_driver_handle_t Driver, void *Pointer,
                                             size_t Size) {
  if (Driver != &TheDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Pointer == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Size == 0)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  const auto *Start = static_cast<const uint8_t *>(Pointer);
  std::lock_guard<std::mutex> Lock(ImportsMutex);
  const auto Holder = importHolding(Start);
  if (Holder != Imports.end())
    return static_cast<size_t>(Start - Holder->first) + Size <= Holder->second
               ? ZE_RESULT_SUCCESS
               : ZE_RESULT_ERROR_INVALID_ARGUMENT;
  const auto Next = Imports.upper_bound(Start);
  if (Next != Imports.end() && Next->first < Start + Size)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  Imports.emplace(Start, Size);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL releaseImportedPointer(ze_driver_handle_t Driver, void *Pointer) {
  if (Driver != &TheDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  std::lock_guard<std::mutex> Lock(ImportsMutex);
  const auto Holder = importHolding(static_cast<const uint8_t *>(Pointer));
  if (Holder == Imports.end())
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  Imports.erase(Holder);
  return ZE_RESULT_SUCCESS;
}

// Whether Size bytes at Pointer are imported (for the adapter's tests, through the
// extension's third function: zexDriverGetHostPointerBaseAddress answers the import's
// start, ZE_RESULT_ERROR_INVALID_ARGUMENT where none holds the pointer).
ze_result_t ZE_APICALL hostPointerBaseAddress(ze_driver_handle_t Driver, void *Pointer,
                                              void **Base) {
  if (Driver != &TheDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Pointer == nullptr || Base == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  std::lock_guard<std::mutex> Lock(ImportsMutex);
  const auto Holder = importHolding(static_cast<const uint8_t *>(Pointer));
  if (Holder == Imports.end())
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  *Base = const_cast<uint8_t *>(Holder->first);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL driverGetExtensionFunctionAddress(ze_driver_handle_t Driver,
                                                         const char *Name, void **Address) {
  if (Driver != &TheDriver)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Name == nullptr || Address == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (std::strcmp(Name, "zexDriverImportExternalPointer") == 0)
    *Address = reinterpret_cast<void *>(&importExternalPointer);
  else if (std::strcmp(Name, "zexDriverReleaseImportedPointer") == 0)
    *Address = reinterpret_cast<void *>(&releaseImportedPointer);
  else if (std::strcmp(Name, "zexDriverGetHostPointerBaseAddress") == 0)
    *Address = reinterpret_cast<void *>(&hostPointerBaseAddress);
  else
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  return ZE_RESULT_SUCCESS;
}

// ---- events ----

// The pool is visible to the devices listed (none listed: every device of the driver);
// its events may be signaled and waited for only by command lists of those devices.
ze_result_t ZE_APICALL eventPoolCreate(ze_context_handle_t Context,
                                       const ze_event_pool_desc_t *Desc, uint32_t NumDevices,
                                       ze_device_handle_t *Devices, ze_event_pool_handle_t *Out) {
  if (Context == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Desc == nullptr || Out == nullptr || (NumDevices != 0 && Devices == nullptr))
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Desc->count == 0)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  for (uint32_t I = 0; I < NumDevices; ++I)
    if (!isDevice(Devices[I]))
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  auto *Pool = new _ze_event_pool_handle_t();
  Pool->Context = Context;
  Pool->Devices.assign(Devices, Devices + NumDevices);
  Pool->Count = Desc->count;
  Pool->Used.assign(Desc->count, false);
  Pool->Timestamps = (Desc->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP) != 0;
  *Out = Pool;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL eventPoolDestroy(ze_event_pool_handle_t Pool) {
  if (Pool == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  {
    std::lock_guard<std::mutex> Lock(Pool->Mutex);
    if (std::find(Pool->Used.begin(), Pool->Used.end(), true) != Pool->Used.end())
      return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
  }
  delete Pool;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL eventCreate(ze_event_pool_handle_t Pool, const ze_event_desc_t *Desc,
                                   ze_event_handle_t *Out) {
  if (Pool == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Desc == nullptr || Out == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  std::lock_guard<std::mutex> Lock(Pool->Mutex);
  if (Desc->index >= Pool->Count || Pool->Used[Desc->index])
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  Pool->Used[Desc->index] = true;
  auto *Event = new _ze_event_handle_t();
  Event->Pool = Pool;
  Event->Index = Desc->index;
  *Out = Event;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL eventDestroy(ze_event_handle_t Event) {
  if (Event == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  {
    std::lock_guard<std::mutex> Lock(Event->Pool->Mutex);
    Event->Pool->Used[Event->Index] = false;
  }
  delete Event;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL eventHostSignal(ze_event_handle_t Event) {
  if (Event == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  Event->Start = Event->End = now();
  Event->Signaled = true;
  return ZE_RESULT_SUCCESS;
}

// Commands run when they are appended, so an event that is not signaled now
// is signaled only by the host: waiting cannot make progress.
ze_result_t ZE_APICALL eventHostSynchronize(ze_event_handle_t Event, uint64_t) {
  if (Event == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  return Event->Signaled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

ze_result_t ZE_APICALL eventQueryStatus(ze_event_handle_t Event) {
  if (Event == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  return Event->Signaled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

// When the command that signaled Event ran (global and context alike: one clock). Only
// events of a timestamp pool record it; one not yet signaled is NOT_READY.
ze_result_t ZE_APICALL eventQueryKernelTimestamp(ze_event_handle_t Event,
                                                 ze_kernel_timestamp_result_t *Out) {
  if (Event == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Out == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (!Event->Pool->Timestamps)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  if (!Event->Signaled)
    return ZE_RESULT_NOT_READY;
  Out->global.kernelStart = Out->context.kernelStart = Event->Start;
  Out->global.kernelEnd = Out->context.kernelEnd = Event->End;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL eventHostReset(ze_event_handle_t Event) {
  if (Event == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  Event->Signaled = false;
  return ZE_RESULT_SUCCESS;
}

// ---- command lists (immediate only) ----

ze_result_t ZE_APICALL commandListCreateImmediate(ze_context_handle_t Context,
                                                  ze_device_handle_t Device,
                                                  const ze_command_queue_desc_t *Desc,
                                                  ze_command_list_handle_t *Out) {
  if (Context == nullptr || !isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Desc == nullptr || Out == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Desc->ordinal != 0 || Desc->index != 0)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  auto *List = new _ze_command_list_handle_t();
  List->Context = Context;
  List->Device = Device;
  *Out = List;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL commandListDestroy(ze_command_list_handle_t List) {
  if (List == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  delete List;
  return ZE_RESULT_SUCCESS;
}

// Whether a command of List may signal or wait for Event: the event's pool is of the
// list's context and visible to the list's device.
bool usableOn(const _ze_command_list_handle_t &List, const _ze_event_handle_t &Event) {
  const _ze_event_pool_handle_t &Pool = *Event.Pool;
  return Pool.Context == List.Context &&
         (Pool.Devices.empty() ||
          std::find(Pool.Devices.begin(), Pool.Devices.end(), List.Device) != Pool.Devices.end());
}

// The checks every append makes on its events before running.
ze_result_t checkEvents(const _ze_command_list_handle_t &List, ze_event_handle_t Signal,
                        uint32_t NumWait, ze_event_handle_t *Wait) {
  if (NumWait != 0 && Wait == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Signal != nullptr && !usableOn(List, *Signal))
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  for (uint32_t I = 0; I < NumWait; ++I) {
    if (Wait[I] == nullptr)
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!usableOn(List, *Wait[I]))
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    // Nothing will ever signal it but the host: running now would reorder.
    if (!Wait[I]->Signaled)
      return ZE_RESULT_ERROR_NOT_AVAILABLE;
  }
  return ZE_RESULT_SUCCESS;
}

// Signals Event (if any) for a command that began at Start and ends now.
void signal(ze_event_handle_t Event, uint64_t Start) {
  if (Event != nullptr) {
    Event->Start = Start;
    Event->End = now();
    Event->Signaled = true;
  }
}

ze_result_t ZE_APICALL appendBarrier(ze_command_list_handle_t List, ze_event_handle_t Signal,
                                     uint32_t NumWait, ze_event_handle_t *Wait) {
  if (List == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  std::lock_guard<std::mutex> Lock(List->Mutex);
  if (ze_result_t Result = checkEvents(*List, Signal, NumWait, Wait); Result != ZE_RESULT_SUCCESS)
    return Result;
  signal(Signal, now());
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL appendMemoryCopy(ze_command_list_handle_t List, void *Dst, const void *Src,
                                        size_t Size, ze_event_handle_t Signal, uint32_t NumWait,
                                        ze_event_handle_t *Wait) {
  if (List == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Dst == nullptr || Src == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  std::lock_guard<std::mutex> Lock(List->Mutex);
  if (ze_result_t Result = checkEvents(*List, Signal, NumWait, Wait); Result != ZE_RESULT_SUCCESS)
    return Result;
  if (ze_result_t Result = checkRanges(List->Device, Dst, Src, Size); Result != ZE_RESULT_SUCCESS)
    return Result;
  const uint64_t Start = now();
  if (Size != 0)
    std::memmove(Dst, Src, Size);
  signal(Signal, Start);
  return ZE_RESULT_SUCCESS;
}

// A rectangle: width bytes of height rows of depth slices, each side with its own
// origin and pitches (Level Zero's rule: a pitch is at least what it spans). Every row
// must be inside an allocation where it starts in one, as for a linear copy.
ze_result_t ZE_APICALL appendMemoryCopyRegion(ze_command_list_handle_t List, void *Dst,
                                              const ze_copy_region_t *DstRegion, uint32_t DstPitch,
                                              uint32_t DstSlicePitch, const void *Src,
                                              const ze_copy_region_t *SrcRegion, uint32_t SrcPitch,
                                              uint32_t SrcSlicePitch, ze_event_handle_t Signal,
                                              uint32_t NumWait, ze_event_handle_t *Wait) {
  if (List == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Dst == nullptr || Src == nullptr || DstRegion == nullptr || SrcRegion == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (DstRegion->width != SrcRegion->width || DstRegion->height != SrcRegion->height ||
      DstRegion->depth != SrcRegion->depth || DstPitch < DstRegion->width ||
      SrcPitch < SrcRegion->width ||
      uint64_t{DstSlicePitch} < uint64_t{DstPitch} * DstRegion->height ||
      uint64_t{SrcSlicePitch} < uint64_t{SrcPitch} * SrcRegion->height)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  std::lock_guard<std::mutex> Lock(List->Mutex);
  if (ze_result_t Result = checkEvents(*List, Signal, NumWait, Wait); Result != ZE_RESULT_SUCCESS)
    return Result;
  const auto at = [](const ze_copy_region_t &Region, uint64_t Pitch, uint64_t SlicePitch,
                     uint32_t Row, uint32_t Slice) {
    return Region.originX + (uint64_t{Region.originY} + Row) * Pitch +
           (uint64_t{Region.originZ} + Slice) * SlicePitch;
  };
  for (uint32_t Slice = 0; Slice < SrcRegion->depth; ++Slice)
    for (uint32_t Row = 0; Row < SrcRegion->height; ++Row) {
      auto *To = static_cast<uint8_t *>(Dst) + at(*DstRegion, DstPitch, DstSlicePitch, Row, Slice);
      const auto *From =
          static_cast<const uint8_t *>(Src) + at(*SrcRegion, SrcPitch, SrcSlicePitch, Row, Slice);
      if (ze_result_t Result = checkRanges(List->Device, To, From, SrcRegion->width);
          Result != ZE_RESULT_SUCCESS)
        return Result;
    }
  const uint64_t Start = now();
  for (uint32_t Slice = 0; Slice < SrcRegion->depth; ++Slice)
    for (uint32_t Row = 0; Row < SrcRegion->height; ++Row)
      std::memmove(
          static_cast<uint8_t *>(Dst) + at(*DstRegion, DstPitch, DstSlicePitch, Row, Slice),
          static_cast<const uint8_t *>(Src) + at(*SrcRegion, SrcPitch, SrcSlicePitch, Row, Slice),
          SrcRegion->width);
  signal(Signal, Start);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL appendMemoryFill(ze_command_list_handle_t List, void *Pointer,
                                        const void *Pattern, size_t PatternSize, size_t Size,
                                        ze_event_handle_t Signal, uint32_t NumWait,
                                        ze_event_handle_t *Wait) {
  if (List == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Pointer == nullptr || Pattern == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (!isPowerOfTwo(PatternSize) || PatternSize > 128 || Size % PatternSize != 0)
    return ZE_RESULT_ERROR_INVALID_SIZE;
  std::lock_guard<std::mutex> Lock(List->Mutex);
  if (ze_result_t Result = checkEvents(*List, Signal, NumWait, Wait); Result != ZE_RESULT_SUCCESS)
    return Result;
  if (ze_result_t Result = checkRange(List->Device, Pointer, Size); Result != ZE_RESULT_SUCCESS)
    return Result;
  const uint64_t Start = now();
  auto *Bytes = static_cast<uint8_t *>(Pointer);
  for (size_t Offset = 0; Offset < Size; Offset += PatternSize)
    std::memcpy(Bytes + Offset, Pattern, PatternSize);
  signal(Signal, Start);
  return ZE_RESULT_SUCCESS;
}

// The device's time (now()) as 64 bits at Dst, memory of 8-byte alignment the device
// reaches.
ze_result_t ZE_APICALL appendWriteGlobalTimestamp(ze_command_list_handle_t List, uint64_t *Dst,
                                                  ze_event_handle_t Signal, uint32_t NumWait,
                                                  ze_event_handle_t *Wait) {
  if (List == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Dst == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (reinterpret_cast<uintptr_t>(Dst) % sizeof(uint64_t) != 0)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> Lock(List->Mutex);
  if (ze_result_t Result = checkEvents(*List, Signal, NumWait, Wait); Result != ZE_RESULT_SUCCESS)
    return Result;
  if (ze_result_t Result = checkRanges(List->Device, Dst, Dst, sizeof(uint64_t));
      Result != ZE_RESULT_SUCCESS)
    return Result;
  const uint64_t Time = now();
  std::memcpy(Dst, &Time, sizeof(Time));
  signal(Signal, Time);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL appendSignalEvent(ze_command_list_handle_t List, ze_event_handle_t Event) {
  if (List == nullptr || Event == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!usableOn(*List, *Event))
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  std::lock_guard<std::mutex> Lock(List->Mutex);
  signal(Event, now());
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL appendWaitOnEvents(ze_command_list_handle_t List, uint32_t NumWait,
                                          ze_event_handle_t *Wait) {
  if (List == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  std::lock_guard<std::mutex> Lock(List->Mutex);
  return checkEvents(*List, nullptr, NumWait, Wait);
}

ze_result_t ZE_APICALL appendEventReset(ze_command_list_handle_t List, ze_event_handle_t Event) {
  if (List == nullptr || Event == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!usableOn(*List, *Event))
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  Event->Signaled = false;
  return ZE_RESULT_SUCCESS;
}

// The one thing this driver does not do. What it checks first: the kernel is code of
// the list's device (a module is built for one device), and the events.
ze_result_t ZE_APICALL appendLaunchKernel(ze_command_list_handle_t List, ze_kernel_handle_t Kernel,
                                          const ze_group_count_t *Groups, ze_event_handle_t Signal,
                                          uint32_t NumWait, ze_event_handle_t *Wait) {
  if (List == nullptr || Kernel == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Groups == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Kernel->Module->Device != List->Device)
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  if (Signal != nullptr && !usableOn(*List, *Signal))
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  for (uint32_t I = 0; I < NumWait && Wait != nullptr; ++I)
    if (Wait[I] != nullptr && !usableOn(*List, *Wait[I]))
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  // Said on stderr too, so that a test's output shows that a launch was refused (UR's CTS
  // prints result codes, not the adapter's messages): scripts/ur-cts.sh's known failures
  // of this driver require it.
  std::fprintf(stderr,
               "dglink_ze_test_driver: kernel '%s' not run: this driver executes no "
               "kernels\n",
               Kernel->Kernel->Name.c_str());
  return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

// ---- modules ----

ze_result_t makeLog(ze_module_build_log_handle_t *Out, std::string Text) {
  if (Out != nullptr) {
    auto *Log = new _ze_module_build_log_handle_t();
    Log->Text = std::move(Text);
    *Out = Log;
  }
  return ZE_RESULT_SUCCESS;
}

// Options are "-name" or "-name=value" words; anything else is refused, so
// that an adapter passing garbage is seen.
bool checkBuildFlags(const char *Flags, std::string &Log) {
  if (Flags == nullptr)
    return true;
  std::string Word;
  const std::string Text = std::string(Flags) + " ";
  for (char C : Text) {
    if (C != ' ' && C != '\t' && C != '\n') {
      Word += C;
      continue;
    }
    if (!Word.empty() && Word[0] != '-') {
      Log += "error: build option '" + Word + "' is not an option (options start with '-')\n";
      return false;
    }
    Word.clear();
  }
  return true;
}

// Lays the module's defined globals out in one segment, each at an offset aligned for
// its type (at least one byte each, so that no two share an address), zero or its
// initial value. False where the sizes overflow or the memory is not there.
bool allocateGlobals(_ze_module_handle_t &Module) {
  constexpr uint64_t Limit = uint64_t(1) << 32; // far more than a test module declares
  std::vector<std::pair<const SpirvGlobal *, uint64_t>> Layout; // global, offset
  uint64_t End = 0;
  size_t Alignment = 1;
  for (const SpirvGlobal &Global : Module.Spirv.Globals) {
    if (!Global.ImportName.empty())
      continue;
    const uint64_t Align = std::max<uint64_t>(Global.Alignment, 1);
    if (Align > Limit || Global.Size > Limit)
      return false;
    const uint64_t Offset = (End + Align - 1) / Align * Align;
    End = Offset + std::max<uint64_t>(Global.Size, 1);
    if (End > Limit)
      return false;
    while (Alignment < Align)
      Alignment *= 2;
    Layout.emplace_back(&Global, Offset);
  }
  if (Layout.empty())
    return true;
  Allocation Info;
  Info.ModuleGlobal = true;
  Info.Owner = Module.Device; // a module's globals are memory of its device
  Module.Segment = allocate(static_cast<size_t>(End), Alignment, Info);
  if (Module.Segment == nullptr)
    return false;
  std::memset(Module.Segment, 0, static_cast<size_t>(End));
  Module.Storage.reserve(Layout.size());
  for (const auto &[Global, Offset] : Layout) {
    uint8_t *Bytes = Module.Segment + Offset;
    if (!Global->Initializer.empty())
      std::memcpy(Bytes, Global->Initializer.data(), static_cast<size_t>(Global->Size));
    Module.Storage.push_back({Global, Bytes});
  }
  return true;
}

ze_result_t ZE_APICALL moduleCreate(ze_context_handle_t Context, ze_device_handle_t Device,
                                    const ze_module_desc_t *Desc, ze_module_handle_t *Out,
                                    ze_module_build_log_handle_t *BuildLog) {
  if (Context == nullptr || !isDevice(Device))
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Desc == nullptr || Out == nullptr || Desc->pInputModule == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Desc->format != ZE_MODULE_FORMAT_IL_SPIRV && Desc->format != ZE_MODULE_FORMAT_NATIVE)
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  const auto *Input = Desc->pInputModule;
  size_t Size = Desc->inputSize;
  if (Desc->format == ZE_MODULE_FORMAT_NATIVE) {
    if (Size < sizeof(NativeTag) || std::memcmp(Input, NativeTag, sizeof(NativeTag)) != 0) {
      makeLog(BuildLog, "error: not a native binary of the dglink test driver\n");
      return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    }
    Input += sizeof(NativeTag);
    Size -= sizeof(NativeTag);
  }
  std::string Log;
  if (!checkBuildFlags(Desc->pBuildFlags, Log)) {
    makeLog(BuildLog, Log);
    return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
  }
  auto Module = std::make_unique<_ze_module_handle_t>();
  Module->Device = Device;
  std::string Error;
  if (!readSpirvModule(Input, Size, Module->Spirv, Error)) {
    makeLog(BuildLog, "error: " + Error + "\n");
    return Desc->format == ZE_MODULE_FORMAT_NATIVE ? ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
                                                   : ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
  }
  Module->Il.assign(Input, Input + Size);
  Module->BuildFlags = Desc->pBuildFlags != nullptr ? Desc->pBuildFlags : "";
  if (!allocateGlobals(*Module))
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  for (size_t I = 0; I < Module->Storage.size(); ++I) {
    const SpirvGlobal &Global = *Module->Storage[I].Declaration;
    if (Global.HasHostAccess)
      Module->ByHostAccessName.emplace(Global.HostAccessName, I);
    if (!Global.ExportName.empty())
      Module->ByExportName.emplace(Global.ExportName, I);
  }
  for (const std::string &Import : Module->Spirv.imports())
    Module->Unresolved.insert(Import);
  Log += "dglink test driver: module of " + std::to_string(Module->Spirv.Globals.size()) +
         " globals and " + std::to_string(Module->Spirv.Kernels.size()) + " kernels";
  if (!Module->Unresolved.empty())
    Log += ", " + std::to_string(Module->Unresolved.size()) + " imports to link";
  Log += "\n";
  makeLog(BuildLog, Log);
  *Out = Module.release();
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL moduleDestroy(ze_module_handle_t Module) {
  if (Module == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  delete Module;
  return ZE_RESULT_SUCCESS;
}

// Imports resolved by name against the other modules' exports: an import that
// no module exports, or a symbol that two modules export, fails the link and
// the log names each one.
ze_result_t ZE_APICALL moduleDynamicLink(uint32_t NumModules, ze_module_handle_t *Modules,
                                         ze_module_build_log_handle_t *LinkLog) {
  if (NumModules == 0 || Modules == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  for (uint32_t I = 0; I < NumModules; ++I)
    if (Modules[I] == nullptr)
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  // Code of one device links with code of the same device only.
  for (uint32_t I = 1; I < NumModules; ++I)
    if (Modules[I]->Device != Modules[0]->Device) {
      makeLog(LinkLog, "error: module " + std::to_string(I) + " is code of device " +
                           std::to_string(Modules[I]->Device->Index) + ", module 0 of device " +
                           std::to_string(Modules[0]->Device->Index) + "\n");
      return ZE_RESULT_ERROR_MODULE_LINK_FAILURE;
    }
  std::map<std::string, std::vector<uint32_t>> Exporters;
  for (uint32_t I = 0; I < NumModules; ++I)
    for (const std::string &Name : Modules[I]->Spirv.exports())
      Exporters[Name].push_back(I);
  std::string Log;
  for (const auto &[Name, Which] : Exporters)
    if (Which.size() > 1)
      Log += "error: symbol '" + Name + "' is exported by modules " + std::to_string(Which[0]) +
             " and " + std::to_string(Which[1]) + "\n";
  for (uint32_t I = 0; I < NumModules; ++I)
    for (const std::string &Name : Modules[I]->Spirv.imports())
      if (Exporters.find(Name) == Exporters.end())
        Log += "error: unresolved import '" + Name + "' of module " + std::to_string(I) + "\n";
  if (!Log.empty()) {
    makeLog(LinkLog, Log);
    return ZE_RESULT_ERROR_MODULE_LINK_FAILURE;
  }
  for (uint32_t I = 0; I < NumModules; ++I)
    Modules[I]->Unresolved.clear();
  makeLog(LinkLog, "dglink test driver: linked " + std::to_string(NumModules) + " modules\n");
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL moduleGetNativeBinary(ze_module_handle_t Module, size_t *Size,
                                             uint8_t *Binary) {
  if (Module == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Size == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const size_t Needed = sizeof(NativeTag) + Module->Il.size();
  if (Binary != nullptr) {
    if (*Size < Needed)
      return ZE_RESULT_ERROR_INVALID_SIZE;
    std::memcpy(Binary, NativeTag, sizeof(NativeTag));
    std::memcpy(Binary + sizeof(NativeTag), Module->Il.data(), Module->Il.size());
  }
  *Size = Needed;
  return ZE_RESULT_SUCCESS;
}

// The seed's rule (device-global-design.md, Level Zero): the HostAccessINTEL
// name first, then the name the variable is exported under.
ze_result_t ZE_APICALL moduleGetGlobalPointer(ze_module_handle_t Module, const char *Name,
                                              size_t *Size, void **Pointer) {
  if (Module == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Name == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const GlobalStorage *Found = nullptr;
  if (auto It = Module->ByHostAccessName.find(Name); It != Module->ByHostAccessName.end())
    Found = &Module->Storage[It->second];
  else if (It = Module->ByExportName.find(Name); It != Module->ByExportName.end())
    Found = &Module->Storage[It->second];
  if (Found == nullptr)
    return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
  if (Size != nullptr)
    *Size = static_cast<size_t>(Found->Declaration->Size);
  if (Pointer != nullptr)
    *Pointer = Found->Bytes;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL moduleGetKernelNames(ze_module_handle_t Module, uint32_t *Count,
                                            const char **Names) {
  if (Module == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Count == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const auto &Kernels = Module->Spirv.Kernels;
  const uint32_t Total = static_cast<uint32_t>(Kernels.size());
  if (Names != nullptr)
    for (uint32_t I = 0; I < *Count && I < Total; ++I)
      Names[I] = Kernels[I].Name.c_str();
  *Count = Names != nullptr ? std::min(*Count, Total) : Total;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL moduleGetProperties(ze_module_handle_t Module,
                                           ze_module_properties_t *Properties) {
  if (Module == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Properties == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  Properties->flags = Module->Unresolved.empty() ? 0 : ZE_MODULE_PROPERTY_FLAG_IMPORTS;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL buildLogDestroy(ze_module_build_log_handle_t Log) {
  if (Log == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  delete Log;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL buildLogGetString(ze_module_build_log_handle_t Log, size_t *Size,
                                         char *Text) {
  if (Log == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Size == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (Text != nullptr && *Size > 0) {
    const size_t Copied = std::min(*Size - 1, Log->Text.size());
    std::memcpy(Text, Log->Text.data(), Copied);
    Text[Copied] = '\0';
  }
  *Size = Log->Text.size() + 1;
  return ZE_RESULT_SUCCESS;
}

// ---- kernels ----

ze_result_t ZE_APICALL kernelCreate(ze_module_handle_t Module, const ze_kernel_desc_t *Desc,
                                    ze_kernel_handle_t *Out) {
  if (Module == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Desc == nullptr || Desc->pKernelName == nullptr || Out == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const SpirvKernel *Found = nullptr;
  for (const SpirvKernel &Kernel : Module->Spirv.Kernels)
    if (Kernel.Name == Desc->pKernelName)
      Found = &Kernel;
  if (Found == nullptr)
    return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
  if (!Module->Unresolved.empty())
    return ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED;
  auto *Kernel = new _ze_kernel_handle_t();
  Kernel->Module = Module;
  Kernel->Kernel = Found;
  Kernel->ArgumentSet.assign(Found->ParameterSizes.size(), false);
  *Out = Kernel;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL kernelDestroy(ze_kernel_handle_t Kernel) {
  if (Kernel == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  delete Kernel;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL kernelSetGroupSize(ze_kernel_handle_t Kernel, uint32_t X, uint32_t Y,
                                          uint32_t Z) {
  if (Kernel == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (X == 0 || Y == 0 || Z == 0 || uint64_t(X) * Y * Z > 1024)
    return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
  Kernel->GroupSize[0] = X;
  Kernel->GroupSize[1] = Y;
  Kernel->GroupSize[2] = Z;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL kernelSuggestGroupSize(ze_kernel_handle_t Kernel, uint32_t X, uint32_t Y,
                                              uint32_t Z, uint32_t *OutX, uint32_t *OutY,
                                              uint32_t *OutZ) {
  if (Kernel == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (OutX == nullptr || OutY == nullptr || OutZ == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  auto Divisor = [](uint32_t Global, uint32_t Limit) {
    for (uint32_t Size = std::min(Global, Limit); Size > 1; --Size)
      if (Global % Size == 0)
        return Size;
    return 1u;
  };
  *OutX = Divisor(X, 256);
  *OutY = Divisor(Y, 256 / *OutX);
  *OutZ = Divisor(Z, 256 / (*OutX * *OutY));
  return ZE_RESULT_SUCCESS;
}

// A local-memory parameter takes a null value and the bytes of local memory to give it
// (the spec's pArgValue null); every other parameter its own size.
ze_result_t ZE_APICALL kernelSetArgumentValue(ze_kernel_handle_t Kernel, uint32_t Index,
                                              size_t Size, const void *Value) {
  if (Kernel == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Index >= Kernel->Kernel->ParameterSizes.size())
    return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
  const bool Local = Kernel->Kernel->LocalParameters[Index];
  if (Local && Value == nullptr ? Size == 0 : Size != Kernel->Kernel->ParameterSizes[Index])
    return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
  Kernel->ArgumentSet[Index] = true;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL kernelSetIndirectAccess(ze_kernel_handle_t Kernel,
                                               ze_kernel_indirect_access_flags_t Flags) {
  if (Kernel == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if ((Flags & ~ze_kernel_indirect_access_flags_t{0x7}) != 0)
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  Kernel->IndirectAccess = Flags;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL kernelGetIndirectAccess(ze_kernel_handle_t Kernel,
                                               ze_kernel_indirect_access_flags_t *Flags) {
  if (Kernel == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Flags == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *Flags = Kernel->IndirectAccess;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL kernelGetProperties(ze_kernel_handle_t Kernel,
                                           ze_kernel_properties_t *Properties) {
  if (Kernel == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Properties == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const ze_structure_type_t Type = Properties->stype;
  void *Next = Properties->pNext;
  std::memset(Properties, 0, sizeof(*Properties));
  Properties->stype = Type;
  Properties->pNext = Next;
  Properties->numKernelArgs = static_cast<uint32_t>(Kernel->Kernel->ParameterSizes.size());
  // The module's identity (its handle's bytes), as a driver fills uuid.mid: every kernel
  // of one module has the same, kernels of another module another.
  const ze_module_handle_t Module = Kernel->Module;
  static_assert(sizeof(Module) <= sizeof(Properties->uuid.mid), "a handle fits the uuid");
  std::memcpy(Properties->uuid.mid, &Module, sizeof(Module));
  Properties->maxSubgroupSize = 1;
  Properties->maxNumSubgroups = 1024;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL kernelGetName(ze_kernel_handle_t Kernel, size_t *Size, char *Name) {
  if (Kernel == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (Size == nullptr)
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const std::string &Text = Kernel->Kernel->Name;
  if (Name != nullptr) {
    if (*Size < Text.size() + 1)
      return ZE_RESULT_ERROR_INVALID_SIZE;
    std::memcpy(Name, Text.c_str(), Text.size() + 1);
  }
  *Size = Text.size() + 1;
  return ZE_RESULT_SUCCESS;
}

bool versionSupported(ze_api_version_t Version) {
  return ZE_MAJOR_VERSION(Version) == ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT);
}

} // namespace

// ---- the tables the loader asks for ----

#define DGLINK_TEST_DRIVER_EXPORT extern "C" __attribute__((visibility("default")))

// A table this driver fills (Fill gets the zeroed table).
#define DGLINK_TABLE(Function, TableType, Fill)                                                    \
  DGLINK_TEST_DRIVER_EXPORT ze_result_t ZE_APICALL Function(ze_api_version_t Version,              \
                                                            TableType *Table) {                    \
    if (Table == nullptr)                                                                          \
      return ZE_RESULT_ERROR_INVALID_NULL_POINTER;                                                 \
    if (!versionSupported(Version))                                                                \
      return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;                                                  \
    *Table = TableType{};                                                                          \
    Fill;                                                                                          \
    return ZE_RESULT_SUCCESS;                                                                      \
  }
// A table the loader requires but this driver leaves empty.
#define DGLINK_EMPTY_TABLE(Function, TableType) DGLINK_TABLE(Function, TableType, (void)0)

DGLINK_TABLE(zeGetGlobalProcAddrTable, ze_global_dditable_t, Table->pfnInit = init)
DGLINK_TABLE(zeGetDriverProcAddrTable, ze_driver_dditable_t, {
  Table->pfnGet = driverGet;
  Table->pfnGetApiVersion = driverGetApiVersion;
  Table->pfnGetProperties = driverGetProperties;
  Table->pfnGetExtensionProperties = driverGetExtensionProperties;
  Table->pfnGetExtensionFunctionAddress = driverGetExtensionFunctionAddress;
})
DGLINK_TABLE(zeGetDeviceProcAddrTable, ze_device_dditable_t, {
  Table->pfnGet = deviceGet;
  Table->pfnGetSubDevices = deviceGetSubDevices;
  Table->pfnGetProperties = deviceGetProperties;
  Table->pfnGetComputeProperties = deviceGetComputeProperties;
  Table->pfnGetModuleProperties = deviceGetModuleProperties;
  Table->pfnGetCommandQueueGroupProperties = deviceGetCommandQueueGroupProperties;
  Table->pfnGetMemoryProperties = deviceGetMemoryProperties;
  Table->pfnGetCacheProperties = deviceGetCacheProperties;
  Table->pfnGetMemoryAccessProperties = deviceGetMemoryAccessProperties;
  Table->pfnCanAccessPeer = deviceCanAccessPeer;
  Table->pfnGetGlobalTimestamps = deviceGetGlobalTimestamps;
})
DGLINK_TABLE(zeGetContextProcAddrTable, ze_context_dditable_t, {
  Table->pfnCreate = contextCreate;
  Table->pfnDestroy = contextDestroy;
  Table->pfnGetStatus = contextGetStatus;
})
DGLINK_TABLE(zeGetCommandListProcAddrTable, ze_command_list_dditable_t, {
  Table->pfnCreateImmediate = commandListCreateImmediate;
  Table->pfnDestroy = commandListDestroy;
  Table->pfnAppendBarrier = appendBarrier;
  Table->pfnAppendMemoryCopy = appendMemoryCopy;
  Table->pfnAppendMemoryFill = appendMemoryFill;
  Table->pfnAppendMemoryCopyRegion = appendMemoryCopyRegion;
  Table->pfnAppendSignalEvent = appendSignalEvent;
  Table->pfnAppendWriteGlobalTimestamp = appendWriteGlobalTimestamp;
  Table->pfnAppendWaitOnEvents = appendWaitOnEvents;
  Table->pfnAppendEventReset = appendEventReset;
  Table->pfnAppendLaunchKernel = appendLaunchKernel;
})
DGLINK_TABLE(zeGetEventPoolProcAddrTable, ze_event_pool_dditable_t, {
  Table->pfnCreate = eventPoolCreate;
  Table->pfnDestroy = eventPoolDestroy;
})
DGLINK_TABLE(zeGetEventProcAddrTable, ze_event_dditable_t, {
  Table->pfnCreate = eventCreate;
  Table->pfnDestroy = eventDestroy;
  Table->pfnHostSignal = eventHostSignal;
  Table->pfnHostSynchronize = eventHostSynchronize;
  Table->pfnQueryStatus = eventQueryStatus;
  Table->pfnHostReset = eventHostReset;
  Table->pfnQueryKernelTimestamp = eventQueryKernelTimestamp;
})
DGLINK_TABLE(zeGetMemProcAddrTable, ze_mem_dditable_t, {
  Table->pfnAllocShared = memAllocShared;
  Table->pfnAllocDevice = memAllocDevice;
  Table->pfnAllocHost = memAllocHost;
  Table->pfnFree = memFree;
  Table->pfnGetAllocProperties = memGetAllocProperties;
  Table->pfnGetAddressRange = memGetAddressRange;
})
DGLINK_TABLE(zeGetModuleProcAddrTable, ze_module_dditable_t, {
  Table->pfnCreate = moduleCreate;
  Table->pfnDestroy = moduleDestroy;
  Table->pfnDynamicLink = moduleDynamicLink;
  Table->pfnGetNativeBinary = moduleGetNativeBinary;
  Table->pfnGetGlobalPointer = moduleGetGlobalPointer;
  Table->pfnGetKernelNames = moduleGetKernelNames;
  Table->pfnGetProperties = moduleGetProperties;
})
DGLINK_TABLE(zeGetModuleBuildLogProcAddrTable, ze_module_build_log_dditable_t, {
  Table->pfnDestroy = buildLogDestroy;
  Table->pfnGetString = buildLogGetString;
})
DGLINK_TABLE(zeGetKernelProcAddrTable, ze_kernel_dditable_t, {
  Table->pfnCreate = kernelCreate;
  Table->pfnDestroy = kernelDestroy;
  Table->pfnSetGroupSize = kernelSetGroupSize;
  Table->pfnSuggestGroupSize = kernelSuggestGroupSize;
  Table->pfnSetArgumentValue = kernelSetArgumentValue;
  Table->pfnSetIndirectAccess = kernelSetIndirectAccess;
  Table->pfnGetIndirectAccess = kernelGetIndirectAccess;
  Table->pfnGetProperties = kernelGetProperties;
  Table->pfnGetName = kernelGetName;
})

DGLINK_EMPTY_TABLE(zeGetCommandQueueProcAddrTable, ze_command_queue_dditable_t)
DGLINK_EMPTY_TABLE(zeGetFenceProcAddrTable, ze_fence_dditable_t)
DGLINK_EMPTY_TABLE(zeGetImageProcAddrTable, ze_image_dditable_t)
DGLINK_EMPTY_TABLE(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t)
DGLINK_EMPTY_TABLE(zeGetSamplerProcAddrTable, ze_sampler_dditable_t)
DGLINK_EMPTY_TABLE(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t)
DGLINK_EMPTY_TABLE(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t)
DGLINK_EMPTY_TABLE(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t)
DGLINK_EMPTY_TABLE(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t)
DGLINK_EMPTY_TABLE(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t)
DGLINK_EMPTY_TABLE(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t)
DGLINK_EMPTY_TABLE(zeGetKernelExpProcAddrTable, ze_kernel_exp_dditable_t)

DGLINK_EMPTY_TABLE(zetGetCommandListProcAddrTable, zet_command_list_dditable_t)
DGLINK_EMPTY_TABLE(zetGetContextProcAddrTable, zet_context_dditable_t)
DGLINK_EMPTY_TABLE(zetGetDebugProcAddrTable, zet_debug_dditable_t)
DGLINK_EMPTY_TABLE(zetGetDeviceProcAddrTable, zet_device_dditable_t)
DGLINK_EMPTY_TABLE(zetGetKernelProcAddrTable, zet_kernel_dditable_t)
DGLINK_EMPTY_TABLE(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t)
DGLINK_EMPTY_TABLE(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t)
DGLINK_EMPTY_TABLE(zetGetMetricProcAddrTable, zet_metric_dditable_t)
DGLINK_EMPTY_TABLE(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t)
DGLINK_EMPTY_TABLE(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t)
DGLINK_EMPTY_TABLE(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t)
DGLINK_EMPTY_TABLE(zetGetModuleProcAddrTable, zet_module_dditable_t)
DGLINK_EMPTY_TABLE(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t)

DGLINK_EMPTY_TABLE(zesGetDeviceProcAddrTable, zes_device_dditable_t)
DGLINK_EMPTY_TABLE(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t)
DGLINK_EMPTY_TABLE(zesGetDriverProcAddrTable, zes_driver_dditable_t)
DGLINK_EMPTY_TABLE(zesGetEngineProcAddrTable, zes_engine_dditable_t)
DGLINK_EMPTY_TABLE(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t)
DGLINK_EMPTY_TABLE(zesGetFanProcAddrTable, zes_fan_dditable_t)
DGLINK_EMPTY_TABLE(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t)
DGLINK_EMPTY_TABLE(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t)
DGLINK_EMPTY_TABLE(zesGetLedProcAddrTable, zes_led_dditable_t)
DGLINK_EMPTY_TABLE(zesGetMemoryProcAddrTable, zes_memory_dditable_t)
DGLINK_EMPTY_TABLE(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t)
DGLINK_EMPTY_TABLE(zesGetPowerProcAddrTable, zes_power_dditable_t)
DGLINK_EMPTY_TABLE(zesGetPsuProcAddrTable, zes_psu_dditable_t)
DGLINK_EMPTY_TABLE(zesGetRasProcAddrTable, zes_ras_dditable_t)
DGLINK_EMPTY_TABLE(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t)
DGLINK_EMPTY_TABLE(zesGetStandbyProcAddrTable, zes_standby_dditable_t)
DGLINK_EMPTY_TABLE(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t)
