// Devices: what each OpenCL device can do (queried once), the link-format rule, and the
// answers of piDeviceGetInfo including dglink's extension string.
#include "opencl_adapter.h"

#include <dglink/support/extensions.h>
#include <dglink/support/info.h>

#include <sstream>

namespace dglink::opencl {
namespace {

// The image formats a device links at run time, by the name of their target
// (PI_EXT_DEVICE_INFO_LINK_FORMATS, and pi_ext_<format>_linking in the extension string).
// A format is advertised only where the driver can both consume it and link it:
// - "spir64": SPIR (LLVM bitcode) through cl_khr_spir, linked by clLinkProgram after a
//   "-x spir -create-library" build; needs CL_DEVICE_LINKER_AVAILABLE.
// - "spirv64": SPIR-V through clCreateProgramWithIL (CL_DEVICE_IL_VERSION names SPIR-V),
//   compiled and linked by clCompileProgram/clLinkProgram; needs the linker too.
// Native driver binaries (PTX on NVIDIA's OpenCL) are left out until a conformance run
// on that driver proves that clLinkProgram links them.
std::vector<std::string> linkFormatsOf(const _pi_device &Device) {
  std::vector<std::string> Formats;
  if (!Device.LinkerAvailable)
    return Formats;
  if (Device.ConsumesSpir)
    Formats.push_back("spir64");
  if (Device.ConsumesSpirV)
    Formats.push_back("spirv64");
  return Formats;
}

// The image formats a device builds and runs (PI_EXT_DEVICE_INFO_IMAGE_FORMATS): the
// link formats, plus native code for the platform's own hardware, which the driver builds
// with clBuildProgram but does not link (PTX on NVIDIA's OpenCL).
std::vector<std::string> imageFormatsOf(const _pi_device &Device) {
  std::vector<std::string> Formats;
  if (Device.ConsumesSpir)
    Formats.push_back("spir64");
  if (Device.ConsumesSpirV)
    Formats.push_back("spirv64");
  if (Device.Platform->Vendor.find("NVIDIA") != std::string::npos)
    Formats.push_back("nvptx64");
  if (Device.Platform->Vendor.find("Advanced Micro Devices") != std::string::npos)
    Formats.push_back("amdgcn");
  return Formats;
}

pi_usm_mechanism usmMechanismOf(const _pi_device &Device, bool &FineGrainSvm) {
  FineGrainSvm = false;
  if (Device.hasNativeExtension("cl_intel_unified_shared_memory") &&
      Device.Platform->Usm.complete())
    return PI_USM_MECHANISM_NATIVE;
  // OpenCL 1.2 devices answer CL_INVALID_VALUE here: no SVM.
  const auto Svm =
      deviceScalar<cl_device_svm_capabilities>(Device.Device, CL_DEVICE_SVM_CAPABILITIES, 0);
  if ((Svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0)
    return PI_USM_MECHANISM_NONE;
  FineGrainSvm = (Svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
  return PI_USM_MECHANISM_SVM;
}

// What an allocation of one USM kind allows, as memory.cpp serves it: the driver's
// answer under cl_intel_unified_shared_memory (its capability queries share PI's
// numbers); under SVM, device USM always and host/shared USM only with fine-grained SVM,
// because the host touches those without map/unmap.
pi_usm_capabilities usmCapabilities(const _pi_device &Device, pi_device_info Kind) {
  if (Device.Usm == PI_USM_MECHANISM_NATIVE) {
    cl_bitfield Native = 0;
    if (clGetDeviceInfo(Device.Device, static_cast<cl_device_info>(Kind), sizeof(Native), &Native,
                        nullptr) != CL_SUCCESS)
      return 0;
    return Native & (PI_USM_ACCESS | PI_USM_ATOMIC_ACCESS);
  }
  if (Device.Usm == PI_USM_MECHANISM_NONE)
    return 0;
  if (Kind == PI_DEVICE_INFO_USM_DEVICE_SUPPORT || Device.FineGrainSvm)
    return PI_USM_ACCESS;
  return 0;
}

pi_device_global_mechanism deviceGlobalMechanismOf(const _pi_device &Device) {
  if (Device.hasNativeExtension("cl_intel_global_variable_access") &&
      Device.Platform->GlobalVariable.complete())
    return PI_DEVICE_GLOBAL_MECHANISM_NATIVE;
  // Any device that runs an image format the shim emits runs its lowered images, whose
  // variables live in a buffer the adapter owns (docs/opencl-lowering.md).
  if (!Device.ImageFormats.empty())
    return PI_DEVICE_GLOBAL_MECHANISM_LOWERED;
  return PI_DEVICE_GLOBAL_MECHANISM_NONE;
}

std::string joinWords(const std::vector<std::string> &Words) {
  std::string Text;
  for (const std::string &Word : Words) {
    if (!Text.empty())
      Text += ' ';
    Text += Word;
  }
  return Text;
}

template <typename T>
pi_result answerScalar(pi_device Device, cl_device_info Param, size_t ParamValueSize,
                       void *ParamValue, size_t *ParamValueSizeRet) {
  T Value{};
  cl_int Error = clGetDeviceInfo(Device->Device, Param, sizeof(T), &Value, nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piDeviceGetInfo", "clGetDeviceInfo");
  return returnInfo(Value, ParamValueSize, ParamValue, ParamValueSizeRet);
}

} // namespace

std::unique_ptr<_pi_device> makeDevice(pi_platform Platform, cl_device_id Id) {
  auto Device = std::make_unique<_pi_device>();
  Device->Device = Id;
  Device->Platform = Platform;
  Device->Type = deviceScalar<cl_device_type>(Id, CL_DEVICE_TYPE, 0);
  Device->Name = deviceString(Id, CL_DEVICE_NAME);
  Device->NativeExtensions = deviceString(Id, CL_DEVICE_EXTENSIONS);
  Device->IlVersion = deviceString(Id, CL_DEVICE_IL_VERSION);
  Device->CompilerAvailable = deviceScalar<cl_bool>(Id, CL_DEVICE_COMPILER_AVAILABLE) == CL_TRUE;
  Device->LinkerAvailable = deviceScalar<cl_bool>(Id, CL_DEVICE_LINKER_AVAILABLE) == CL_TRUE;
  Device->ConsumesSpir = Device->hasNativeExtension("cl_khr_spir");
  Device->ConsumesSpirV = Device->IlVersion.find("SPIR-V") != std::string::npos;
  Device->LinkFormats = linkFormatsOf(*Device);
  Device->ImageFormats = imageFormatsOf(*Device);
  Device->Usm = usmMechanismOf(*Device, Device->FineGrainSvm);
  Device->DeviceGlobal = deviceGlobalMechanismOf(*Device);
  Device->ExtensionString =
      buildExtensionString(Device->NativeExtensions, Device->LinkFormats,
                           Device->DeviceGlobal != PI_DEVICE_GLOBAL_MECHANISM_NONE);
  return Device;
}

} // namespace dglink::opencl

bool _pi_device::hasNativeExtension(const char *Extension) const {
  std::istringstream Stream(NativeExtensions);
  for (std::string Word; Stream >> Word;)
    if (Word == Extension)
      return true;
  return false;
}

bool _pi_device::canLink(const char *LinkFormat) const {
  for (const std::string &Format : LinkFormats)
    if (Format == LinkFormat)
      return true;
  return false;
}

using namespace dglink::opencl;

extern "C" {

PI_API_EXPORT pi_result piDeviceGetInfo(pi_device Device, pi_device_info ParamName,
                                        size_t ParamValueSize, void *ParamValue,
                                        size_t *ParamValueSizeRet) try {
  DGLINK_OPENCL_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  using dglink::returnInfo;
  using dglink::returnInfoString;
  switch (ParamName) {
  case PI_DEVICE_INFO_TYPE:
    return returnInfo(static_cast<pi_device_type>(Device->Type), ParamValueSize, ParamValue,
                      ParamValueSizeRet);
  case PI_DEVICE_INFO_VENDOR_ID:
    return answerScalar<cl_uint>(Device, CL_DEVICE_VENDOR_ID, ParamValueSize, ParamValue,
                                 ParamValueSizeRet);
  case PI_DEVICE_INFO_MAX_COMPUTE_UNITS:
    return answerScalar<cl_uint>(Device, CL_DEVICE_MAX_COMPUTE_UNITS, ParamValueSize, ParamValue,
                                 ParamValueSizeRet);
  case PI_DEVICE_INFO_MAX_WORK_GROUP_SIZE:
    return answerScalar<size_t>(Device, CL_DEVICE_MAX_WORK_GROUP_SIZE, ParamValueSize, ParamValue,
                                ParamValueSizeRet);
  case PI_DEVICE_INFO_GLOBAL_MEM_SIZE:
    return answerScalar<cl_ulong>(Device, CL_DEVICE_GLOBAL_MEM_SIZE, ParamValueSize, ParamValue,
                                  ParamValueSizeRet);
  case PI_DEVICE_INFO_DOUBLE_FP_CONFIG: {
    // Devices without fp64 may refuse the query instead of answering 0.
    const auto Config =
        deviceScalar<cl_device_fp_config>(Device->Device, CL_DEVICE_DOUBLE_FP_CONFIG, 0);
    return returnInfo(static_cast<pi_bitfield>(Config), ParamValueSize, ParamValue,
                      ParamValueSizeRet);
  }
  case PI_DEVICE_INFO_AVAILABLE:
    return answerScalar<cl_bool>(Device, CL_DEVICE_AVAILABLE, ParamValueSize, ParamValue,
                                 ParamValueSizeRet);
  case PI_DEVICE_INFO_COMPILER_AVAILABLE:
    return returnInfo(static_cast<pi_bool>(Device->CompilerAvailable), ParamValueSize, ParamValue,
                      ParamValueSizeRet);
  case PI_DEVICE_INFO_LINKER_AVAILABLE:
    return returnInfo(static_cast<pi_bool>(Device->LinkerAvailable), ParamValueSize, ParamValue,
                      ParamValueSizeRet);
  case PI_DEVICE_INFO_NAME:
    return returnInfoString(Device->Name, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_DEVICE_INFO_VENDOR:
    return returnInfoString(deviceString(Device->Device, CL_DEVICE_VENDOR), ParamValueSize,
                            ParamValue, ParamValueSizeRet);
  case PI_DEVICE_INFO_DRIVER_VERSION:
    return returnInfoString(deviceString(Device->Device, CL_DRIVER_VERSION), ParamValueSize,
                            ParamValue, ParamValueSizeRet);
  case PI_DEVICE_INFO_VERSION:
    return returnInfoString(deviceString(Device->Device, CL_DEVICE_VERSION), ParamValueSize,
                            ParamValue, ParamValueSizeRet);
  case PI_DEVICE_INFO_EXTENSIONS:
    return returnInfoString(Device->ExtensionString, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_DEVICE_INFO_PLATFORM:
    return returnInfo(Device->Platform, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_DEVICE_INFO_IL_VERSION:
    return returnInfoString(Device->IlVersion, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_DEVICE_INFO_REFERENCE_COUNT:
    return returnInfo(Device->RefCount.load(), ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_EXT_DEVICE_INFO_LINK_FORMATS:
    return returnInfoString(joinWords(Device->LinkFormats), ParamValueSize, ParamValue,
                            ParamValueSizeRet);
  case PI_DEVICE_INFO_USM_HOST_SUPPORT:
  case PI_DEVICE_INFO_USM_DEVICE_SUPPORT:
  case PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT:
    return returnInfo(usmCapabilities(*Device, ParamName), ParamValueSize, ParamValue,
                      ParamValueSizeRet);
  case PI_EXT_DEVICE_INFO_IMAGE_FORMATS:
    return returnInfoString(joinWords(Device->ImageFormats), ParamValueSize, ParamValue,
                            ParamValueSizeRet);
  case PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM:
    return returnInfo(Device->DeviceGlobal, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_EXT_DEVICE_INFO_USM_MECHANISM:
    return returnInfo(Device->Usm, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_EXT_DEVICE_INFO_EXECUTES_KERNELS:
    return returnInfo(static_cast<pi_bool>(PI_TRUE), ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_EXT_DEVICE_INFO_BACKEND_NAME:
    return returnInfoString(DGLINK_ADAPTER_NAME, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: unknown ParamName 0x{:x}", __func__,
                      static_cast<unsigned>(ParamName));
}
DGLINK_OPENCL_CATCH_ALL

// Root devices are never destroyed (as in OpenCL); the count is kept so that
// REFERENCE_COUNT reflects the caller's retains, and never drops below one.
PI_API_EXPORT pi_result piDeviceRetain(pi_device Device) try {
  DGLINK_OPENCL_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  ++Device->RefCount;
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piDeviceRelease(pi_device Device) try {
  DGLINK_OPENCL_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  pi_uint32 Count = Device->RefCount.load();
  while (Count > 1 && !Device->RefCount.compare_exchange_weak(Count, Count - 1)) {
  }
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

} // extern "C"
