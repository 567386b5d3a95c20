// The Level Zero backend and its platforms: one per driver, each with its root
// devices described once; zero platforms where the loader or a driver is missing.
#include "backend.h"

#include <dglink/support/extensions.h>
#include <dglink/support/log.h>

#include <algorithm>
#include <cstring>

namespace dglink::level_zero {
namespace {

// The smallest module there is: header, the capabilities of OpenCL kernels and
// the memory model. Linking it alone tells whether the driver links at all.
const uint32_t ProbeModule[] = {0x07230203,
                                0x00010000,
                                0,
                                1,
                                0,
                                0x00020011,
                                4 /* Addresses */,
                                0x00020011,
                                5 /* Linkage */,
                                0x00020011,
                                6 /* Kernel */,
                                0x0003000E,
                                2 /* Physical64 */,
                                2 /* OpenCL */};

bool probeLinking(ze_context_handle_t Context, ze_device_handle_t Device) {
  ze_module_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  Desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
  Desc.inputSize = sizeof(ProbeModule);
  Desc.pInputModule = reinterpret_cast<const uint8_t *>(ProbeModule);
  Desc.pBuildFlags = "";
  ze_module_handle_t Module = nullptr;
  if (ze().zeModuleCreate(Context, Device, &Desc, &Module, nullptr) != ZE_RESULT_SUCCESS)
    return false;
  const bool Linked = ze().zeModuleDynamicLink(1, &Module, nullptr) == ZE_RESULT_SUCCESS;
  ze().zeModuleDestroy(Module);
  return Linked;
}

pi_usm_capabilities usmCapabilities(ze_memory_access_cap_flags_t Flags) {
  pi_usm_capabilities Capabilities = 0;
  if ((Flags & ZE_MEMORY_ACCESS_CAP_FLAG_RW) != 0)
    Capabilities |= PI_USM_ACCESS;
  if ((Flags & ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC) != 0)
    Capabilities |= PI_USM_ATOMIC_ACCESS;
  return Capabilities;
}

pi_device_type deviceType(ze_device_type_t Type) {
  switch (Type) {
  case ZE_DEVICE_TYPE_GPU:
    return PI_DEVICE_TYPE_GPU;
  case ZE_DEVICE_TYPE_CPU:
    return PI_DEVICE_TYPE_CPU;
  default: // FPGA, MCA, VPU (and the test driver)
    return PI_DEVICE_TYPE_ACC;
  }
}

// Level Zero's fp capability flags as OpenCL's cl_device_fp_config bits (PI's
// DOUBLE_FP_CONFIG and HALF_FP_CONFIG): the first six are the same bits, the last two
// swap places.
pi_bitfield clFpConfig(ze_device_fp_flags_t Flags) {
  pi_bitfield Config = Flags & 0x3F; // denorm, inf/nan, round to nearest/zero/inf, fma
  if ((Flags & ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT) != 0)
    Config |= 1U << 7; // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
  if ((Flags & ZE_DEVICE_FP_FLAG_SOFT_FLOAT) != 0)
    Config |= 1U << 6; // CL_FP_SOFT_FLOAT
  return Config;
}

// What the module properties say the device computes, as the OpenCL extension names a
// SYCL runtime reads its aspects from (fp16, fp64, atomic64), and the fp configs that
// go with them. A precision counts where its flag is set and its capabilities are
// given, so that the extension and the config never disagree.
std::string describeModuleFeatures(const ze_device_module_properties_t &Module,
                                   core::DeviceDescription &D) {
  std::string Extensions;
  if ((Module.flags & ZE_DEVICE_MODULE_FLAG_FP16) != 0 && Module.fp16flags != 0) {
    D.HalfFpConfig = clFpConfig(Module.fp16flags);
    Extensions += " cl_khr_fp16";
  }
  if ((Module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0 && Module.fp64flags != 0) {
    D.DoubleFpConfig = clFpConfig(Module.fp64flags);
    Extensions += " cl_khr_fp64";
  }
  // Level Zero has one flag for both 64-bit atomics extensions.
  if ((Module.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS) != 0)
    Extensions += " cl_khr_int64_base_atomics cl_khr_int64_extended_atomics";
  return Extensions;
}

// Limits, memory, atomics and vector widths from the properties the driver gave
// (Level Zero 1.4 has no query for vector widths, the constant-memory limit or the cache
// line: widths of 1, the one allocation's limit since __constant data lives in global
// memory, and no line size).
void describeLimits(const ze_device_properties_t &Properties,
                    const ze_device_compute_properties_t &Compute,
                    const ze_device_module_properties_t &Module, core::DeviceDescription &D) {
  core::DeviceLimits &L = D.Limits;
  L.MaxClockFrequency = Properties.coreClockRate;
  L.MaxWorkGroups[0] = Compute.maxGroupCountX;
  L.MaxWorkGroups[1] = Compute.maxGroupCountY;
  L.MaxWorkGroups[2] = Compute.maxGroupCountZ;
  L.MaxParameterSize = Module.maxArgumentsSize;
  L.MaxConstantArgs = core::constantArgumentsIn(L.MaxParameterSize);
  L.PrintfBufferSize = Module.printfBufferSize;
  // ze_device_properties_t (not its 1.2 form): the timer's resolution in nanoseconds.
  L.ProfilingTimerResolution = Properties.timerResolution;
  const uint32_t Sizes = std::min<uint32_t>(Compute.numSubGroupSizes, ZE_SUBGROUPSIZE_COUNT);
  L.SubGroupSizes.assign(Compute.subGroupSizes, Compute.subGroupSizes + Sizes);
  if (!L.SubGroupSizes.empty() && Compute.maxTotalGroupSize != 0) {
    const uint32_t Smallest = *std::min_element(L.SubGroupSizes.begin(), L.SubGroupSizes.end());
    if (Smallest != 0)
      L.MaxNumSubGroups = Compute.maxTotalGroupSize / Smallest;
  }
  L.SingleFpConfig = clFpConfig(Module.fp32flags);
  L.ExecutionCapabilities = D.ExecutesKernels ? PI_EXEC_KERNEL : 0;
  L.Esimd = D.Type == PI_DEVICE_TYPE_GPU && D.VendorId == 0x8086;

  core::DeviceMemory &M = D.Memory;
  M.MaxAllocSize = Properties.maxMemAllocSize;
  M.MaxConstantBufferSize = Properties.maxMemAllocSize;
  M.LocalMemType = Compute.maxSharedLocalMemory != 0 ? PI_DEVICE_LOCAL_MEM_TYPE_LOCAL
                                                     : PI_DEVICE_LOCAL_MEM_TYPE_NONE;
  M.LocalMemSize = Compute.maxSharedLocalMemory;
  M.ErrorCorrection = (Properties.flags & ZE_DEVICE_PROPERTY_FLAG_ECC) != 0;
  M.HostUnified = (Properties.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;
  D.IntegratedGpu = M.HostUnified && D.Type == PI_DEVICE_TYPE_GPU;

  // Scalars of every type the module properties name; half and double only with them.
  for (size_t I = 0; I < core::DeviceVectorWidths::Count; ++I)
    D.VectorWidths.Preferred[I] = D.VectorWidths.Native[I] = 1;
  const auto Half = static_cast<size_t>(core::VectorType::Half);
  const auto Double = static_cast<size_t>(core::VectorType::Double);
  D.VectorWidths.Preferred[Half] = D.VectorWidths.Native[Half] = D.HalfFpConfig != 0 ? 1 : 0;
  D.VectorWidths.Preferred[Double] = D.VectorWidths.Native[Double] = D.DoubleFpConfig != 0 ? 1 : 0;

  // SPIR-V kernels under OpenCL 2.0's memory model, which mandates every order and scope.
  core::DeviceAtomics &A = D.Atomics;
  A.Int64 = (Module.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS) != 0;
  A.MemoryOrders = A.FenceOrders = PI_MEMORY_ORDER_RELAXED | PI_MEMORY_ORDER_ACQUIRE |
                                   PI_MEMORY_ORDER_RELEASE | PI_MEMORY_ORDER_ACQ_REL |
                                   PI_MEMORY_ORDER_SEQ_CST;
  A.MemoryScopes = A.FenceScopes = PI_MEMORY_SCOPE_WORK_ITEM | PI_MEMORY_SCOPE_SUB_GROUP |
                                   PI_MEMORY_SCOPE_WORK_GROUP | PI_MEMORY_SCOPE_DEVICE |
                                   PI_MEMORY_SCOPE_SYSTEM;
}

// The device's caches: the first (the one next to memory) as the global memory cache;
// none where the driver lists none or cannot say.
void describeCaches(ze_device_handle_t Handle, core::DeviceMemory &M) {
  uint32_t Count = 0;
  if (ze().zeDeviceGetCacheProperties(Handle, &Count, nullptr) != ZE_RESULT_SUCCESS || Count == 0)
    return;
  std::vector<ze_device_cache_properties_t> Caches(Count);
  for (ze_device_cache_properties_t &Cache : Caches)
    Cache.stype = ZE_STRUCTURE_TYPE_DEVICE_CACHE_PROPERTIES;
  if (ze().zeDeviceGetCacheProperties(Handle, &Count, Caches.data()) != ZE_RESULT_SUCCESS)
    return;
  M.GlobalCacheType = PI_DEVICE_MEM_CACHE_TYPE_READ_WRITE_CACHE;
  M.GlobalCacheSize = Caches[0].cacheSize;
}

struct DriverInfo {
  std::string Version;       // "Level Zero 1.4"
  std::string DriverVersion; // the driver's version number
  std::string Extensions;    // the driver's extension names
};

// The timer profiling reads: ze_device_properties_t's 1.2 form states ticks a second
// exactly (the 1.0 form's whole nanoseconds a tick would round 83.3 ns to 83); a driver
// without it answers the 1.0 form. One that states no resolution or no valid bits is
// taken as 1 ns and 64 bits.
void describeTimer(ZeDevice &Device) {
  ze_device_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2;
  if (ze().zeDeviceGetProperties(Device.Device, &Properties) == ZE_RESULT_SUCCESS &&
      Properties.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 &&
      Properties.timerResolution != 0) {
    Device.TicksPerSecond = Properties.timerResolution;
  } else {
    Properties = {};
    Properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    if (ze().zeDeviceGetProperties(Device.Device, &Properties) != ZE_RESULT_SUCCESS)
      return;
    if (Properties.timerResolution != 0)
      Device.TicksPerSecond = 1000000000 / Properties.timerResolution;
  }
  if (Properties.timestampValidBits != 0)
    Device.TimestampBits = Properties.timestampValidBits;
  if (Properties.kernelTimestampValidBits != 0)
    Device.KernelTimestampBits = Properties.kernelTimestampValidBits;
}

pi_result describeDevice(ze_driver_handle_t Driver, const DriverInfo &Info,
                         ze_device_handle_t Handle, core::DeviceDescription &D) {
  ze_device_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  DGLINK_ZE(zeDeviceGetProperties, Handle, &Properties);
  D.Name = Properties.name;
  D.Type = deviceType(Properties.type);
  D.VendorId = Properties.vendorId;
  D.Vendor = Properties.vendorId == 0x8086 ? "Intel(R) Corporation"
                                           : "vendor " + std::to_string(Properties.vendorId);
  D.ComputeUnits =
      Properties.numSlices * Properties.numSubslicesPerSlice * Properties.numEUsPerSubslice;
  D.DriverVersion = Info.DriverVersion;
  D.Version = Info.Version;

  ze_device_compute_properties_t Compute = {};
  Compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  DGLINK_ZE(zeDeviceGetComputeProperties, Handle, &Compute);
  D.MaxWorkGroupSize = Compute.maxTotalGroupSize;
  D.MaxWorkItemSizes[0] = Compute.maxGroupSizeX;
  D.MaxWorkItemSizes[1] = Compute.maxGroupSizeY;
  D.MaxWorkItemSizes[2] = Compute.maxGroupSizeZ;

  ze_device_module_properties_t Module = {};
  Module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  DGLINK_ZE(zeDeviceGetModuleProperties, Handle, &Module);
  const std::string ModuleExtensions = describeModuleFeatures(Module, D);
  D.IlVersion = "SPIR-V_" + std::to_string(ZE_MAJOR_VERSION(Module.spirvVersionSupported)) + "." +
                std::to_string(ZE_MINOR_VERSION(Module.spirvVersionSupported));

  uint32_t MemoryCount = 0;
  DGLINK_ZE(zeDeviceGetMemoryProperties, Handle, &MemoryCount, nullptr);
  std::vector<ze_device_memory_properties_t> Memories(MemoryCount);
  for (ze_device_memory_properties_t &Memory : Memories)
    Memory.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  if (MemoryCount != 0)
    DGLINK_ZE(zeDeviceGetMemoryProperties, Handle, &MemoryCount, Memories.data());
  for (const ze_device_memory_properties_t &Memory : Memories) {
    D.GlobalMemSize += Memory.totalSize;
    // UR's MEMORY_CLOCK_RATE and MEMORY_BUS_WIDTH: the fastest memory's, where the driver
    // states them (0: not stated, the query unanswered).
    D.MemoryClockMHz = std::max<pi_uint32>(D.MemoryClockMHz, Memory.maxClockRate);
    D.MemoryBusWidthBits = std::max<pi_uint32>(D.MemoryBusWidthBits, Memory.maxBusWidth);
  }
  // The device's UUID (a driver that states none leaves it zero: UUID unanswered).
  const uint8_t *Uuid = Properties.uuid.id;
  if (std::any_of(Uuid, Uuid + ZE_MAX_DEVICE_UUID_SIZE, [](uint8_t Byte) { return Byte != 0; }))
    D.Uuid.assign(Uuid, Uuid + ZE_MAX_DEVICE_UUID_SIZE);

  ze_device_memory_access_properties_t Access = {};
  Access.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES;
  DGLINK_ZE(zeDeviceGetMemoryAccessProperties, Handle, &Access);
  D.HostUsm = usmCapabilities(Access.hostAllocCapabilities);
  D.DeviceUsm = usmCapabilities(Access.deviceAllocCapabilities);
  D.SharedUsm = usmCapabilities(Access.sharedSingleDeviceAllocCapabilities);
  D.Usm = PI_USM_MECHANISM_NATIVE;

  D.ExecutesKernels = Info.Extensions.find(NoKernelExecutionExtension) == std::string::npos;
  // zeCommandListAppendWriteGlobalTimestamp is core Level Zero (ZeQueue::timestamp).
  D.TimestampRecording = true;
  describeLimits(Properties, Compute, Module, D);
  describeCaches(Handle, D.Memory);
  D.RuntimeVersion = Info.DriverVersion;

  ze_context_desc_t ContextDesc = {};
  ContextDesc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
  ze_context_handle_t Context = nullptr;
  DGLINK_ZE(zeContextCreate, Driver, &ContextDesc, &Context);
  D.LinkerAvailable = probeLinking(Context, Handle);
  ze().zeContextDestroy(Context);

  std::vector<std::string> Formats;
  if (D.LinkerAvailable) {
    D.LinkFormats = "spirv64"; // SPIR-V images (docs/extension-strings.md)
    Formats.push_back(D.LinkFormats);
  }
  D.ImageFormats = "spirv64"; // SPIR-V modules, linked or not
  // zeModuleGetGlobalPointer is core Level Zero: every driver has it.
  D.DeviceGlobal = PI_DEVICE_GLOBAL_MECHANISM_NATIVE;
  // The driver's extension names, then cl_khr_il_program (every Level Zero device takes
  // SPIR-V modules, and DPC++ looks for the name before it gives a device SPIR-V), then
  // what the device computes, then dglink's.
  D.Extensions = buildExtensionString(Info.Extensions + " cl_khr_il_program" + ModuleExtensions,
                                      Formats, true);
  return PI_SUCCESS;
}

pi_result describeDriver(ze_driver_handle_t Driver, DriverInfo &Info) {
  ze_api_version_t Api = ZE_API_VERSION_1_0;
  DGLINK_ZE(zeDriverGetApiVersion, Driver, &Api);
  Info.Version = "Level Zero " + std::to_string(ZE_MAJOR_VERSION(Api)) + "." +
                 std::to_string(ZE_MINOR_VERSION(Api));
  ze_driver_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  DGLINK_ZE(zeDriverGetProperties, Driver, &Properties);
  Info.DriverVersion = std::to_string(Properties.driverVersion);
  uint32_t Count = 0;
  DGLINK_ZE(zeDriverGetExtensionProperties, Driver, &Count, nullptr);
  std::vector<ze_driver_extension_properties_t> Extensions(Count);
  if (Count != 0)
    DGLINK_ZE(zeDriverGetExtensionProperties, Driver, &Count, Extensions.data());
  for (const ze_driver_extension_properties_t &Extension : Extensions)
    Info.Extensions += std::string(Info.Extensions.empty() ? "" : " ") +
                       std::string(Extension.name, strnlen(Extension.name, sizeof(Extension.name)));
  return PI_SUCCESS;
}

class LevelZeroBackend final : public core::Backend {
public:
  const char *name() const override { return "level_zero"; }
  const char *label() const override { return "Level Zero"; }

  void discover(std::vector<std::unique_ptr<_pi_platform>> &Platforms) override {
    if (!loadLevelZero(nullptr))
      return;
    uint32_t Count = 0;
    if (ze_result_t Result = ze().zeDriverGet(&Count, nullptr); Result != ZE_RESULT_SUCCESS) {
      logger().info("level_zero: zeDriverGet: {}; zero platforms", zeResultName(Result));
      return;
    }
    std::vector<ze_driver_handle_t> Drivers(Count);
    if (Count != 0 && ze().zeDriverGet(&Count, Drivers.data()) != ZE_RESULT_SUCCESS)
      return;
    for (ze_driver_handle_t Driver : Drivers) {
      DriverInfo Info;
      uint32_t NumDevices = 0;
      if (describeDriver(Driver, Info) != PI_SUCCESS ||
          ze().zeDeviceGet(Driver, &NumDevices, nullptr) != ZE_RESULT_SUCCESS) {
        logger().warn("level_zero: skipping a driver: {}", lastErrorMessage());
        continue;
      }
      std::vector<ze_device_handle_t> Handles(NumDevices);
      if (NumDevices != 0 &&
          ze().zeDeviceGet(Driver, &NumDevices, Handles.data()) != ZE_RESULT_SUCCESS)
        NumDevices = 0;
      auto Platform = core::makeHandle<_pi_platform>();
      Platform->Description.Name = "Level Zero";
      // The loader does not say who made a driver; the devices' vendor ids do.
      Platform->Description.Vendor = "Level Zero driver " + Info.DriverVersion;
      Platform->Description.Version = Info.Version;
      Platform->Description.Extensions = Info.Extensions;
      auto PlatformImpl = std::make_unique<ZePlatform>();
      PlatformImpl->Driver = Driver;
      resolveImport(*PlatformImpl);
      Platform->Impl = std::move(PlatformImpl);
      for (uint32_t I = 0; I < NumDevices; ++I) {
        auto Device = core::makeHandle<_pi_device>();
        if (describeDevice(Driver, Info, Handles[I], Device->Description) != PI_SUCCESS) {
          logger().warn("level_zero: skipping device {}: {}", I, lastErrorMessage());
          continue;
        }
        auto DeviceImpl = std::make_unique<ZeDevice>();
        DeviceImpl->Driver = Driver;
        DeviceImpl->Device = Handles[I];
        describeTimer(*DeviceImpl);
        Device->Impl = std::move(DeviceImpl);
        Device->Platform = Platform.get();
        logger().debug("level_zero: device '{}', executes kernels: {}, extensions '{}'",
                       Device->Description.Name, Device->Description.ExecutesKernels,
                       Device->Description.Extensions);
        Platform->Devices.push_back(Device.release()); // root devices live for the process
      }
      if (!Platform->Devices.empty())
        Platforms.push_back(std::move(Platform));
    }
  }

  // Devices of one driver (the core checked that they share a platform) share one
  // ze_context_handle_t: zeContextCreate makes a context for every device of the driver.
  bool multiDeviceContexts() const override { return true; }

  pi_result createContext(_pi_context &Context, std::unique_ptr<core::ContextImpl> &Impl) override {
    _pi_device &First = *Context.Devices[0];
    ze_context_desc_t Desc = {};
    Desc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
    ze_context_handle_t Handle = nullptr;
    DGLINK_ZE(zeContextCreate, zeDevice(First).Driver, &Desc, &Handle);
    std::unique_ptr<ZeContext> Made;
    try {
      Made = std::make_unique<ZeContext>(Context.Devices, Handle); // destroys the handle
    } catch (...) {
      ze().zeContextDestroy(Handle);
      throw;
    }
    DGLINK_TRY(setUp(*Made));
    Impl = std::move(Made);
    return PI_SUCCESS;
  }

  // A Level Zero context does not say which devices it is for, nor that it is one: the
  // caller names the devices, and the driver's status query must answer.
  pi_result adoptContext(const char *Function, uintptr_t Native, bool Owned, _pi_context &Context,
                         std::unique_ptr<core::ContextImpl> &Impl) override {
    auto *Handle = reinterpret_cast<ze_context_handle_t>(Native);
    if (Context.Devices.empty())
      return fail(PI_ERROR_INVALID_VALUE,
                  "{}: a Level Zero context does not list its devices: name them (numDevices, "
                  "phDevices)",
                  Function);
    const ze_result_t Status = ze().zeContextGetStatus(Handle);
    if (Status != ZE_RESULT_SUCCESS)
      return fail(PI_ERROR_INVALID_VALUE,
                  "{}: native handle {:#x} is no live Level Zero context "
                  "(zeContextGetStatus: {})",
                  Function, Native, zeResultName(Status));
    auto Made = std::make_unique<ZeContext>(Context.Devices, Handle);
    Made->OwnsContext = false; // until everything below is made
    DGLINK_TRY(setUp(*Made));
    Made->OwnsContext = Owned;
    Impl = std::move(Made);
    return PI_SUCCESS;
  }

private:
  // The import extension's functions, where the driver has both.
  static void resolveImport(ZePlatform &Platform) {
    void *Import = nullptr, *Release = nullptr;
    if (ze().zeDriverGetExtensionFunctionAddress(Platform.Driver, "zexDriverImportExternalPointer",
                                                 &Import) != ZE_RESULT_SUCCESS ||
        ze().zeDriverGetExtensionFunctionAddress(Platform.Driver, "zexDriverReleaseImportedPointer",
                                                 &Release) != ZE_RESULT_SUCCESS ||
        Import == nullptr || Release == nullptr)
      return;
    static_assert(sizeof(ImportExternalPointerFn) == sizeof(void *), "function pointer size");
    std::memcpy(&Platform.ImportPointer, &Import, sizeof(Import));
    std::memcpy(&Platform.ReleaseImported, &Release, sizeof(Release));
    logger().debug("level_zero: the driver imports host memory (zexDriverImportExternalPointer)");
  }

  // What every context has beside its driver context: where its buffers live, and the
  // list its buffers' initial contents go through.
  static pi_result setUp(ZeContext &Made) {
    DGLINK_TRY(chooseBufferDevice(Made));
    ze_command_queue_desc_t ListDesc = {};
    ListDesc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    ListDesc.mode = ZE_COMMAND_QUEUE_MODE_DEFAULT;
    DGLINK_ZE(zeCommandListCreateImmediate, Made.Context, zeDevice(Made.first()).Device, &ListDesc,
              &Made.InitList);
    return PI_SUCCESS;
  }

  // A buffer belongs to the context, not to a device: device memory of the first device
  // where every other device of the context reaches it as a peer, else host memory.
  static pi_result chooseBufferDevice(ZeContext &Context) {
    const ze_device_handle_t First = zeDevice(Context.first()).Device;
    Context.BufferDevice = First;
    for (const _pi_device *Device : Context.Devices) {
      const ze_device_handle_t Other = zeDevice(*Device).Device;
      if (Other == First)
        continue;
      ze_bool_t Reaches = 0;
      DGLINK_ZE(zeDeviceCanAccessPeer, Other, First, &Reaches);
      if (Reaches == 0) {
        logger().debug("level_zero: device '{}' cannot reach '{}''s memory: buffers of the "
                       "context in host memory",
                       Device->Description.Name, Context.first().Description.Name);
        Context.BufferDevice = nullptr;
        return PI_SUCCESS;
      }
    }
    return PI_SUCCESS;
  }
};

} // namespace
} // namespace dglink::level_zero

std::unique_ptr<dglink::core::Backend> dglink::core::makeBackend() {
  return std::make_unique<dglink::level_zero::LevelZeroBackend>();
}
