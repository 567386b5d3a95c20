// Discovery through the OpenCL ICD loader (platforms, their extension entry points,
// what each device can do, queried once), contexts of one or more devices of a
// platform, and the backend's factory.
#include "backend.h"

#include <dglink/device_code/translate.h>
#include <dglink/host_copy/tuning.h>
#include <dglink/support/device_code.h>
#include <dglink/support/extensions.h>
#include <dglink/support/log.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <sstream>
#include <utility>

namespace dglink::opencl {
namespace {

// Whether the device takes OpenCL C 3.0 and not 2.0 (OpenCL 3.0's version list; an
// older device has no such query and keeps what its CL_DEVICE_OPENCL_C_VERSION says).
bool openClC30Not20(cl_device_id Id) {
  size_t Bytes = 0;
  if (clGetDeviceInfo(Id, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, nullptr, &Bytes) != CL_SUCCESS ||
      Bytes == 0)
    return false;
  std::vector<cl_name_version> Versions(Bytes / sizeof(cl_name_version));
  if (clGetDeviceInfo(Id, CL_DEVICE_OPENCL_C_ALL_VERSIONS, Bytes, Versions.data(), nullptr) !=
      CL_SUCCESS)
    return false;
  bool Has20 = false, Has30 = false;
  for (const cl_name_version &Version : Versions) {
    Has20 = Has20 || CL_VERSION_MAJOR(Version.version) == 2;
    Has30 = Has30 || CL_VERSION_MAJOR(Version.version) == 3;
  }
  return Has30 && !Has20;
}

template <typename Function> Function resolve(cl_platform_id Platform, const char *Name) {
  return reinterpret_cast<Function>(clGetExtensionFunctionAddressForPlatform(Platform, Name));
}

void resolveExtensionFunctions(ClPlatform &Platform) {
  cl_platform_id Id = Platform.Platform;
  IntelUsmFunctions &Usm = Platform.Usm;
  Usm.HostMemAlloc = resolve<clHostMemAllocINTEL_fn>(Id, "clHostMemAllocINTEL");
  Usm.DeviceMemAlloc = resolve<clDeviceMemAllocINTEL_fn>(Id, "clDeviceMemAllocINTEL");
  Usm.SharedMemAlloc = resolve<clSharedMemAllocINTEL_fn>(Id, "clSharedMemAllocINTEL");
  Usm.MemFree = resolve<clMemFreeINTEL_fn>(Id, "clMemFreeINTEL");
  Usm.EnqueueMemcpy = resolve<clEnqueueMemcpyINTEL_fn>(Id, "clEnqueueMemcpyINTEL");
  Usm.EnqueueMemFill = resolve<clEnqueueMemFillINTEL_fn>(Id, "clEnqueueMemFillINTEL");
  Usm.SetKernelArgMemPointer =
      resolve<clSetKernelArgMemPointerINTEL_fn>(Id, "clSetKernelArgMemPointerINTEL");
  Usm.GetMemAllocInfo = resolve<clGetMemAllocInfoINTEL_fn>(Id, "clGetMemAllocInfoINTEL");
  Usm.EnqueueMigrateMem = resolve<clEnqueueMigrateMemINTEL_fn>(Id, "clEnqueueMigrateMemINTEL");
  Platform.GlobalVariable.Read =
      resolve<clEnqueueReadGlobalVariableINTEL_fn>(Id, "clEnqueueReadGlobalVariableINTEL");
  Platform.GlobalVariable.Write =
      resolve<clEnqueueWriteGlobalVariableINTEL_fn>(Id, "clEnqueueWriteGlobalVariableINTEL");
}

bool hasWord(const std::string &List, const char *Word) {
  std::istringstream Stream(List);
  for (std::string Item; Stream >> Item;)
    if (Item == Word)
      return true;
  return false;
}

std::string joinWords(const std::vector<std::string> &Words) {
  std::string Text;
  for (const std::string &Word : Words)
    Text += (Text.empty() ? "" : " ") + Word;
  return Text;
}

// The image formats a device links at run time, by the name of their target
// (PI_EXT_DEVICE_INFO_LINK_FORMATS, and pi_ext_<format>_linking in the extension string).
// A format is advertised only where the driver can both consume it and link it:
// - "spir64": SPIR (LLVM bitcode) through cl_khr_spir, linked by clLinkProgram after a
//   "-x spir -create-library" build; needs CL_DEVICE_LINKER_AVAILABLE.
// - "spirv64": SPIR-V through clCreateProgramWithIL (CL_DEVICE_IL_VERSION names SPIR-V),
//   compiled and linked by clCompileProgram/clLinkProgram; needs the linker too.
// Native driver binaries (PTX on NVIDIA's OpenCL) are left out until a conformance run
// on that driver proves that clLinkProgram links them.
std::vector<std::string> linkFormatsOf(const ClDevice &Device, bool LinkerAvailable) {
  std::vector<std::string> Formats;
  if (!LinkerAvailable)
    return Formats;
  if (Device.ConsumesSpir)
    Formats.emplace_back(deviceCodeName(DeviceCode::Spir));
  if (Device.ConsumesSpirV)
    Formats.emplace_back(deviceCodeName(DeviceCode::SpirV));
  return Formats;
}

// Whether SPIR-V reaches a device that takes no IL through translation (common/device_code)
// into SPIR bitcode (it takes SPIR) or PTX (NVIDIA's OpenCL), and the translator loads here.
bool takesSpirVTranslated(const ClDevice &Device) {
  if (Device.ConsumesSpirV || (!Device.ConsumesSpir && !Device.ConsumesPtx))
    return false;
  std::string Why;
  if (device_code::translatorAvailable(Why))
    return true;
  logger().info("opencl: SPIR-V is not translated for {} devices: {}",
                Device.ConsumesSpir ? "SPIR" : "PTX", Why);
  return false;
}

// The image formats a device builds and runs (PI_EXT_DEVICE_INFO_IMAGE_FORMATS): the
// link formats, plus native code for the platform's own hardware, which the driver builds
// with clBuildProgram but does not link (PTX on NVIDIA's OpenCL), and last SPIR-V the
// adapter translates for the driver (a runtime that takes the first format it has an
// image of gives the driver what it takes as it is).
std::vector<std::string> imageFormatsOf(const ClDevice &Device, const std::string &Vendor) {
  std::vector<std::string> Formats;
  if (Device.ConsumesSpir)
    Formats.emplace_back(deviceCodeName(DeviceCode::Spir));
  if (Device.ConsumesSpirV)
    Formats.emplace_back(deviceCodeName(DeviceCode::SpirV));
  if (Device.ConsumesPtx)
    Formats.emplace_back(deviceCodeName(DeviceCode::Ptx));
  if (Vendor.find("Advanced Micro Devices") != std::string::npos)
    Formats.emplace_back(deviceCodeName(DeviceCode::AmdCodeObject));
  if (takesSpirVTranslated(Device))
    Formats.emplace_back(deviceCodeName(DeviceCode::SpirV));
  return Formats;
}

pi_usm_mechanism usmMechanismOf(const ClDevice &Device, const std::string &Extensions) {
  if (hasWord(Extensions, "cl_intel_unified_shared_memory") && Device.Platform->Usm.complete())
    return PI_USM_MECHANISM_NATIVE;
  // OpenCL 1.2 devices answer CL_INVALID_VALUE here: no SVM.
  const auto Svm =
      deviceScalar<cl_device_svm_capabilities>(Device.Device, CL_DEVICE_SVM_CAPABILITIES, 0);
  if ((Svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0)
    return PI_USM_MECHANISM_NONE;
  return PI_USM_MECHANISM_SVM;
}

// What an allocation of one USM kind allows, as ClContext::allocateUsm serves it: the
// driver's answer under cl_intel_unified_shared_memory (its capability queries share
// PI's numbers); under SVM, device USM always and host/shared USM only with
// fine-grained SVM, because the host touches those without map/unmap.
pi_usm_capabilities usmCapabilities(const ClDevice &Device, pi_usm_mechanism Usm,
                                    pi_device_info Kind) {
  if (Usm == PI_USM_MECHANISM_NATIVE) {
    cl_bitfield Native = 0;
    if (clGetDeviceInfo(Device.Device, static_cast<cl_device_info>(Kind), sizeof(Native), &Native,
                        nullptr) != CL_SUCCESS)
      return 0;
    return Native & (PI_USM_ACCESS | PI_USM_ATOMIC_ACCESS);
  }
  if (Usm == PI_USM_MECHANISM_NONE)
    return 0;
  if (Kind == PI_DEVICE_INFO_USM_DEVICE_SUPPORT || Device.FineGrainSvm)
    return PI_USM_ACCESS;
  return 0;
}

// "OpenCL 3.0 PoCL ..." -> {3, 0}; {1, 0} where the text is not OpenCL's form.
std::pair<int, int> openClVersion(const std::string &Version) {
  int Major = 1, Minor = 0;
  if (std::sscanf(Version.c_str(), "OpenCL %d.%d", &Major, &Minor) != 2)
    return {1, 0};
  return {Major, Minor};
}

// OpenCL 3.0's atomic capability bits as PI's orders and scopes: acquire-release implies
// acquire and release, and a scope every narrower one (OpenCL has no sub-group bit).
void atomicCapabilities(cl_device_atomic_capabilities Cl, pi_memory_order_capabilities &Orders,
                        pi_memory_scope_capabilities &Scopes) {
  Orders = 0;
  if ((Cl & CL_DEVICE_ATOMIC_ORDER_RELAXED) != 0)
    Orders |= PI_MEMORY_ORDER_RELAXED;
  if ((Cl & CL_DEVICE_ATOMIC_ORDER_ACQ_REL) != 0)
    Orders |= PI_MEMORY_ORDER_ACQUIRE | PI_MEMORY_ORDER_RELEASE | PI_MEMORY_ORDER_ACQ_REL;
  if ((Cl & CL_DEVICE_ATOMIC_ORDER_SEQ_CST) != 0)
    Orders |= PI_MEMORY_ORDER_SEQ_CST;
  Scopes = 0;
  if ((Cl & CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM) != 0)
    Scopes |= PI_MEMORY_SCOPE_WORK_ITEM;
  if ((Cl & CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP) != 0)
    Scopes |= PI_MEMORY_SCOPE_WORK_ITEM | PI_MEMORY_SCOPE_SUB_GROUP | PI_MEMORY_SCOPE_WORK_GROUP;
  if ((Cl & CL_DEVICE_ATOMIC_SCOPE_DEVICE) != 0)
    Scopes |= PI_MEMORY_SCOPE_WORK_ITEM | PI_MEMORY_SCOPE_SUB_GROUP | PI_MEMORY_SCOPE_WORK_GROUP |
              PI_MEMORY_SCOPE_DEVICE;
  if ((Cl & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES) != 0)
    Scopes |= PI_MEMORY_SCOPE_WORK_ITEM | PI_MEMORY_SCOPE_SUB_GROUP | PI_MEMORY_SCOPE_WORK_GROUP |
              PI_MEMORY_SCOPE_DEVICE | PI_MEMORY_SCOPE_SYSTEM;
}

// What kernels' atomics can do: OpenCL 3.0 says (CL_DEVICE_ATOMIC_*_CAPABILITIES); 2.x
// mandates everything; 1.x only what OpenCL 3.0 calls the minimum (relaxed atomics,
// relaxed and acquire-release fences, at work-group scope), which the defaults hold.
void describeAtomics(cl_device_id Id, std::pair<int, int> Version, const std::string &Extensions,
                     core::DeviceAtomics &A) {
  A.Int64 = hasWord(Extensions, "cl_khr_int64_base_atomics") &&
            hasWord(Extensions, "cl_khr_int64_extended_atomics");
  constexpr pi_memory_scope_capabilities AllScopes =
      PI_MEMORY_SCOPE_WORK_ITEM | PI_MEMORY_SCOPE_SUB_GROUP | PI_MEMORY_SCOPE_WORK_GROUP |
      PI_MEMORY_SCOPE_DEVICE | PI_MEMORY_SCOPE_SYSTEM;
  constexpr pi_memory_order_capabilities AllOrders =
      PI_MEMORY_ORDER_RELAXED | PI_MEMORY_ORDER_ACQUIRE | PI_MEMORY_ORDER_RELEASE |
      PI_MEMORY_ORDER_ACQ_REL | PI_MEMORY_ORDER_SEQ_CST;
  if (Version.first >= 3) {
    atomicCapabilities(
        deviceScalar<cl_device_atomic_capabilities>(Id, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, 0),
        A.MemoryOrders, A.MemoryScopes);
    atomicCapabilities(
        deviceScalar<cl_device_atomic_capabilities>(Id, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, 0),
        A.FenceOrders, A.FenceScopes);
  } else if (Version.first == 2) {
    A.MemoryOrders = A.FenceOrders = AllOrders;
    A.MemoryScopes = A.FenceScopes = AllScopes;
  }
}

// The device's limits, memory and vector widths, each as clGetDeviceInfo states it.
void describeLimits(cl_device_id Id, std::pair<int, int> Version, const std::string &Extensions,
                    core::DeviceDescription &D) {
  core::DeviceLimits &L = D.Limits;
  L.MaxClockFrequency = deviceScalar<cl_uint>(Id, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  // OpenCL bounds a launch's work-groups by nothing but size_t.
  for (size_t &Each : L.MaxWorkGroups)
    Each = SIZE_MAX;
  L.MaxParameterSize = deviceScalar<size_t>(Id, CL_DEVICE_MAX_PARAMETER_SIZE);
  L.MaxConstantArgs = deviceScalar<cl_uint>(Id, CL_DEVICE_MAX_CONSTANT_ARGS);
  L.PrintfBufferSize = deviceScalar<size_t>(Id, CL_DEVICE_PRINTF_BUFFER_SIZE);
  L.ProfilingTimerResolution = deviceScalar<size_t>(Id, CL_DEVICE_PROFILING_TIMER_RESOLUTION);
  L.SingleFpConfig = deviceScalar<cl_device_fp_config>(Id, CL_DEVICE_SINGLE_FP_CONFIG);
  L.ExecutionCapabilities = deviceScalar<cl_device_exec_capabilities>(
      Id, CL_DEVICE_EXECUTION_CAPABILITIES, CL_EXEC_KERNEL);
  // Sub-groups: OpenCL 2.1+ counts them (0: none, where SYCL's minimum is one);
  // cl_intel_required_subgroup_size lists their sizes.
  if (Version >= std::make_pair(2, 1)) {
    L.MaxNumSubGroups =
        std::max<cl_uint>(1, deviceScalar<cl_uint>(Id, CL_DEVICE_MAX_NUM_SUB_GROUPS));
    L.SubGroupIndependentForwardProgress =
        deviceScalar<cl_bool>(Id, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS) == CL_TRUE;
  }
  if (hasWord(Extensions, "cl_intel_required_subgroup_size")) {
    size_t Bytes = 0;
    if (clGetDeviceInfo(Id, CL_DEVICE_SUB_GROUP_SIZES_INTEL, 0, nullptr, &Bytes) == CL_SUCCESS) {
      std::vector<size_t> Sizes(Bytes / sizeof(size_t));
      if (clGetDeviceInfo(Id, CL_DEVICE_SUB_GROUP_SIZES_INTEL, Bytes, Sizes.data(), nullptr) ==
          CL_SUCCESS)
        L.SubGroupSizes.assign(Sizes.begin(), Sizes.end());
    }
  }
  L.Bfloat16Conversions = hasWord(Extensions, "cl_intel_bfloat16_conversions");
  // ESIMD is Intel GPUs' explicit SIMD; no other device compiles it.
  L.Esimd = D.Type == PI_DEVICE_TYPE_GPU && D.VendorId == 0x8086;

  core::DeviceMemory &M = D.Memory;
  M.MaxAllocSize = deviceScalar<cl_ulong>(Id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  M.BaseAddressAlignBits = deviceScalar<cl_uint>(Id, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
  M.GlobalCacheType = deviceScalar<cl_device_mem_cache_type>(Id, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE);
  M.GlobalCacheLineSize = deviceScalar<cl_uint>(Id, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE);
  M.GlobalCacheSize = deviceScalar<cl_ulong>(Id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  M.MaxConstantBufferSize = deviceScalar<cl_ulong>(Id, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
  M.LocalMemType = deviceScalar<cl_device_local_mem_type>(Id, CL_DEVICE_LOCAL_MEM_TYPE);
  M.LocalMemSize = deviceScalar<cl_ulong>(Id, CL_DEVICE_LOCAL_MEM_SIZE);
  M.ErrorCorrection = deviceScalar<cl_bool>(Id, CL_DEVICE_ERROR_CORRECTION_SUPPORT) == CL_TRUE;
  // Deprecated in OpenCL 2.0 but still answered (3.0 keeps it).
  M.HostUnified = deviceScalar<cl_bool>(Id, CL_DEVICE_HOST_UNIFIED_MEMORY) == CL_TRUE;
  D.IntegratedGpu = D.Type == PI_DEVICE_TYPE_GPU && M.HostUnified;

  const cl_device_info Preferred[] = {
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR,  CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT,   CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG,
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
      CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF};
  const cl_device_info Native[] = {
      CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR,  CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT,
      CL_DEVICE_NATIVE_VECTOR_WIDTH_INT,   CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG,
      CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE,
      CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF};
  for (size_t I = 0; I < core::DeviceVectorWidths::Count; ++I) {
    D.VectorWidths.Preferred[I] = deviceScalar<cl_uint>(Id, Preferred[I]);
    D.VectorWidths.Native[I] = deviceScalar<cl_uint>(Id, Native[I]);
  }
  D.RuntimeVersion = std::to_string(Version.first) + "." + std::to_string(Version.second);
  describeAtomics(Id, Version, Extensions, D.Atomics);

  // Images (UR's urMemImage*, urSampler*: image.cpp), as the driver states them.
  core::DeviceImages &I = D.Images;
  I.Supported = deviceScalar<cl_bool>(Id, CL_DEVICE_IMAGE_SUPPORT) == CL_TRUE;
  if (I.Supported) {
    I.Max2D[0] = deviceScalar<size_t>(Id, CL_DEVICE_IMAGE2D_MAX_WIDTH);
    I.Max2D[1] = deviceScalar<size_t>(Id, CL_DEVICE_IMAGE2D_MAX_HEIGHT);
    I.Max3D[0] = deviceScalar<size_t>(Id, CL_DEVICE_IMAGE3D_MAX_WIDTH);
    I.Max3D[1] = deviceScalar<size_t>(Id, CL_DEVICE_IMAGE3D_MAX_HEIGHT);
    I.Max3D[2] = deviceScalar<size_t>(Id, CL_DEVICE_IMAGE3D_MAX_DEPTH);
    I.MaxBufferSize = deviceScalar<size_t>(Id, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE);
    I.MaxArraySize = deviceScalar<size_t>(Id, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE);
    I.MaxReadArgs = deviceScalar<cl_uint>(Id, CL_DEVICE_MAX_READ_IMAGE_ARGS);
    I.MaxWriteArgs = deviceScalar<cl_uint>(Id, CL_DEVICE_MAX_WRITE_IMAGE_ARGS);
    // OpenCL 2.0 added read-write images; before, none.
    I.MaxReadWriteArgs = deviceScalar<cl_uint>(Id, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, 0);
    I.MaxSamplers = deviceScalar<cl_uint>(Id, CL_DEVICE_MAX_SAMPLERS);
  }
}

// The device's UUID (cl_khr_device_uuid) and PCI address (cl_khr_pci_bus_info, as
// "DDDD:BB:DD.F" in hexadecimal), where the driver has the extension; a UUID of zeros is
// none.
void describeIdentity(cl_device_id Id, const std::string &Extensions, core::DeviceDescription &D) {
  if (hasWord(Extensions, "cl_khr_device_uuid")) {
    cl_uchar Uuid[CL_UUID_SIZE_KHR] = {};
    if (clGetDeviceInfo(Id, CL_DEVICE_UUID_KHR, sizeof(Uuid), Uuid, nullptr) == CL_SUCCESS &&
        std::any_of(std::begin(Uuid), std::end(Uuid), [](cl_uchar Byte) { return Byte != 0; }))
      D.Uuid.assign(std::begin(Uuid), std::end(Uuid));
  }
  if (hasWord(Extensions, "cl_khr_pci_bus_info")) {
    cl_device_pci_bus_info_khr Bus{};
    if (clGetDeviceInfo(Id, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(Bus), &Bus, nullptr) == CL_SUCCESS)
      D.PciAddress = fmt::format("{:04x}:{:02x}:{:02x}.{:x}", Bus.pci_domain, Bus.pci_bus,
                                 Bus.pci_device, Bus.pci_function);
  }
}

std::unique_ptr<_pi_device> makeDevice(_pi_platform &Platform, ClPlatform &PlatformImpl,
                                       cl_device_id Id) {
  auto Device = core::makeHandle<_pi_device>();
  auto Impl = std::make_unique<ClDevice>();
  Impl->Device = Id;
  Impl->Platform = &PlatformImpl;
  core::DeviceDescription &D = Device->Description;
  D.Type = static_cast<pi_device_type>(deviceScalar<cl_device_type>(Id, CL_DEVICE_TYPE, 0));
  D.VendorId = deviceScalar<cl_uint>(Id, CL_DEVICE_VENDOR_ID);
  D.ComputeUnits = deviceScalar<cl_uint>(Id, CL_DEVICE_MAX_COMPUTE_UNITS);
  D.MaxWorkGroupSize = deviceScalar<size_t>(Id, CL_DEVICE_MAX_WORK_GROUP_SIZE, 1);
  clGetDeviceInfo(Id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(D.MaxWorkItemSizes), D.MaxWorkItemSizes,
                  nullptr);
  D.GlobalMemSize = deviceScalar<cl_ulong>(Id, CL_DEVICE_GLOBAL_MEM_SIZE);
  // Devices without fp64 may refuse the query instead of answering 0.
  D.DoubleFpConfig = deviceScalar<cl_device_fp_config>(Id, CL_DEVICE_DOUBLE_FP_CONFIG, 0);
  D.CompilerAvailable = deviceScalar<cl_bool>(Id, CL_DEVICE_COMPILER_AVAILABLE) == CL_TRUE;
  D.LinkerAvailable = deviceScalar<cl_bool>(Id, CL_DEVICE_LINKER_AVAILABLE) == CL_TRUE;
  D.ExecutesKernels = true;
  D.Name = deviceString(Id, CL_DEVICE_NAME);
  D.Vendor = deviceString(Id, CL_DEVICE_VENDOR);
  D.DriverVersion = deviceString(Id, CL_DRIVER_VERSION);
  D.Version = deviceString(Id, CL_DEVICE_VERSION);
  D.IlVersion = deviceString(Id, CL_DEVICE_IL_VERSION);
  const std::string Native = deviceString(Id, CL_DEVICE_EXTENSIONS);
  // CL_DEVICE_HALF_FP_CONFIG belongs to cl_khr_fp16: without it, no half.
  if (hasWord(Native, "cl_khr_fp16"))
    D.HalfFpConfig = deviceScalar<cl_device_fp_config>(Id, CL_DEVICE_HALF_FP_CONFIG, 0);
  describeLimits(Id, openClVersion(D.Version), Native, D);
  describeIdentity(Id, Native, D);
  Impl->ConsumesSpir = hasWord(Native, "cl_khr_spir");
  Impl->ConsumesSpirV = D.IlVersion.find("SPIR-V") != std::string::npos;
  Impl->ConsumesPtx = Platform.Description.Vendor.find("NVIDIA") != std::string::npos;
  Impl->OpenClC30Not20 = openClC30Not20(Id);
  Impl->StagesFrom = stagingThreshold(Platform.Description.Vendor, D.Type);
  if (Impl->StagesFrom != SIZE_MAX)
    logger().debug("opencl: device '{}' stages copies of pageable memory from {} bytes", D.Name,
                   Impl->StagesFrom);
  Impl->LinkFormats = linkFormatsOf(*Impl, D.LinkerAvailable);
  D.LinkFormats = joinWords(Impl->LinkFormats);
  const std::vector<std::string> ImageFormats = imageFormatsOf(*Impl, Platform.Description.Vendor);
  D.ImageFormats = joinWords(ImageFormats);
  D.Usm = usmMechanismOf(*Impl, Native);
  if (D.Usm == PI_USM_MECHANISM_SVM)
    Impl->FineGrainSvm =
        (deviceScalar<cl_device_svm_capabilities>(Id, CL_DEVICE_SVM_CAPABILITIES, 0) &
         CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
  D.HostUsm = usmCapabilities(*Impl, D.Usm, PI_DEVICE_INFO_USM_HOST_SUPPORT);
  D.DeviceUsm = usmCapabilities(*Impl, D.Usm, PI_DEVICE_INFO_USM_DEVICE_SUPPORT);
  D.SharedUsm = usmCapabilities(*Impl, D.Usm, PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT);
  if (hasWord(Native, "cl_intel_global_variable_access") && PlatformImpl.GlobalVariable.complete())
    D.DeviceGlobal = PI_DEVICE_GLOBAL_MECHANISM_NATIVE;
  else if (!ImageFormats.empty())
    // Any device that runs an image format the shim emits runs its lowered images, whose
    // variables live in a buffer the adapter owns (docs/opencl-lowering.md).
    D.DeviceGlobal = PI_DEVICE_GLOBAL_MECHANISM_LOWERED;
  D.Extensions = buildExtensionString(Native, Impl->LinkFormats,
                                      D.DeviceGlobal != PI_DEVICE_GLOBAL_MECHANISM_NONE);
  Device->Platform = &Platform;
  Device->Impl = std::move(Impl);
  return Device;
}

class OpenClBackend final : public core::Backend {
public:
  OpenClBackend()
      : CopyThreads(host_copy::copyTuning().poolThreads(), host_copy::copyTuning().SpinMicroseconds,
                    host_copy::copyTuning().ShareWindowMicroseconds) {}
  const char *name() const override { return "opencl"; }
  const char *label() const override { return "OpenCL"; }
  bool multiDeviceContexts() const override { return true; }
  bool globalOffsets() const override { return true; }
  bool runsLoweredImages() const override { return true; }

  void discover(std::vector<std::unique_ptr<_pi_platform>> &Platforms) override {
    cl_uint Count = 0;
    cl_int Error = clGetPlatformIDs(0, nullptr, &Count);
    // The ICD loader says "no platform" with CL_PLATFORM_NOT_FOUND_KHR: not an error here.
    if (Error == CL_PLATFORM_NOT_FOUND_KHR || (Error == CL_SUCCESS && Count == 0))
      return;
    std::vector<cl_platform_id> Ids(Count);
    if (Error == CL_SUCCESS)
      Error = clGetPlatformIDs(Count, Ids.data(), nullptr);
    if (Error != CL_SUCCESS) {
      logger().warn("opencl: clGetPlatformIDs failed with {} ({}); zero platforms",
                    clErrorName(Error), Error);
      return;
    }
    for (cl_platform_id Id : Ids) {
      auto Platform = core::makeHandle<_pi_platform>();
      core::PlatformDescription &D = Platform->Description;
      D.Name = platformString(Id, CL_PLATFORM_NAME);
      D.Vendor = platformString(Id, CL_PLATFORM_VENDOR);
      D.Version = platformString(Id, CL_PLATFORM_VERSION);
      D.Profile = platformString(Id, CL_PLATFORM_PROFILE);
      D.Extensions = platformString(Id, CL_PLATFORM_EXTENSIONS);
      auto Impl = std::make_unique<ClPlatform>();
      Impl->Platform = Id;
      resolveExtensionFunctions(*Impl);
      cl_uint NumDevices = 0;
      Error = clGetDeviceIDs(Id, CL_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices);
      std::vector<cl_device_id> DeviceIds(Error == CL_SUCCESS ? NumDevices : 0);
      if (!DeviceIds.empty())
        Error = clGetDeviceIDs(Id, CL_DEVICE_TYPE_ALL, NumDevices, DeviceIds.data(), nullptr);
      if (Error != CL_SUCCESS && Error != CL_DEVICE_NOT_FOUND) {
        // One broken platform must not hide the others.
        logger().warn("opencl: platform '{}': clGetDeviceIDs failed with {} ({}); skipped", D.Name,
                      clErrorName(Error), Error);
        continue;
      }
      for (cl_device_id DeviceId : DeviceIds)
        Platform->Devices.push_back(
            makeDevice(*Platform, *Impl, DeviceId).release()); // root devices live for the process
      Platform->Impl = std::move(Impl);
      if (!Platform->Devices.empty())
        Platforms.push_back(std::move(Platform));
    }
  }

  pi_result createContext(_pi_context &Context, std::unique_ptr<core::ContextImpl> &Impl) override {
    std::vector<cl_device_id> Ids;
    for (const _pi_device *Device : Context.Devices)
      Ids.push_back(clDevice(*Device).Device);
    const ClPlatform &Platform = static_cast<const ClPlatform &>(*Context.Platform->Impl);
    // The platform is named explicitly, as OpenCL 1.x drivers want.
    const cl_context_properties Properties[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(Platform.Platform), 0};
    auto Made = std::make_unique<ClContext>(Context, nullptr);
    cl_int Error = CL_SUCCESS;
    Made->Context = clCreateContext(Properties, static_cast<cl_uint>(Ids.size()), Ids.data(),
                                    nullptr, nullptr, &Error);
    if (Error != CL_SUCCESS)
      return clFailure(Error, "piContextCreate", "clCreateContext");
    configureContext(*Made);
    Impl = std::move(Made);
    return PI_SUCCESS;
  }

  pi_result adoptContext(const char *Function, uintptr_t Native, bool Owned, _pi_context &Context,
                         std::unique_ptr<core::ContextImpl> &Impl) override {
    return adoptClContext(Function, Native, Owned, Context, Impl);
  }

  void tearDown() override { CopyThreads.stop(); }

  // The host side of staged copies (staging.cpp), shared by every queue.
  host_copy::HostCopyPool CopyThreads;
};

} // namespace

host_copy::HostCopyPool &copyThreads() {
  return static_cast<OpenClBackend &>(core::backend()).CopyThreads;
}

bool ClDevice::canLink(const char *LinkFormat) const {
  for (const std::string &Format : LinkFormats)
    if (Format == LinkFormat)
      return true;
  return false;
}

} // namespace dglink::opencl

std::unique_ptr<dglink::core::Backend> dglink::core::makeBackend() {
  return std::make_unique<dglink::opencl::OpenClBackend>();
}
