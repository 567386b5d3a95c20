// The rule "image target + format -> what a device takes", written once.
#include <dglink/support/device_code.h>

namespace dglink {

DeviceCode deviceCodeOf(std::string_view Target, pi_device_binary_format Format) {
  if (Target == PI_DEVICE_BINARY_TARGET_SPIRV64) {
    if (Format == PI_DEVICE_BINARY_TYPE_SPIRV)
      return DeviceCode::SpirV;
    if (Format == PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE)
      return DeviceCode::Spir;
    return DeviceCode::Unknown;
  }
  if (Format != PI_DEVICE_BINARY_TYPE_NATIVE)
    return DeviceCode::Unknown;
  if (Target == PI_DEVICE_BINARY_TARGET_NVPTX64)
    return DeviceCode::Ptx;
  if (Target == PI_DEVICE_BINARY_TARGET_AMDGCN)
    return DeviceCode::AmdCodeObject;
  return DeviceCode::Unknown;
}

DeviceCode deviceCodeOf(ImageFormat Format) {
  switch (Format) {
  case ImageFormat::SpirV:
    return DeviceCode::SpirV;
  case ImageFormat::LlvmBitcode:
    return DeviceCode::Spir;
  case ImageFormat::Ptx:
    return DeviceCode::Ptx;
  case ImageFormat::Elf:
    return DeviceCode::AmdCodeObject;
  case ImageFormat::Unknown:
    break;
  }
  return DeviceCode::Unknown;
}

const char *deviceCodeName(DeviceCode Code) {
  switch (Code) {
  case DeviceCode::Spir:
    return "spir64";
  case DeviceCode::SpirV:
    return "spirv64";
  case DeviceCode::Ptx:
    return "nvptx64";
  case DeviceCode::AmdCodeObject:
    return "amdgcn";
  case DeviceCode::Unknown:
    break;
  }
  return "";
}

DeviceCode deviceCodeNamed(std::string_view Name) {
  for (DeviceCode Code :
       {DeviceCode::Spir, DeviceCode::SpirV, DeviceCode::Ptx, DeviceCode::AmdCodeObject})
    if (Name == deviceCodeName(Code))
      return Code;
  return DeviceCode::Unknown;
}

const char *targetOf(DeviceCode Code) {
  switch (Code) {
  case DeviceCode::Spir:
  case DeviceCode::SpirV:
    return PI_DEVICE_BINARY_TARGET_SPIRV64;
  case DeviceCode::Ptx:
    return PI_DEVICE_BINARY_TARGET_NVPTX64;
  case DeviceCode::AmdCodeObject:
    return PI_DEVICE_BINARY_TARGET_AMDGCN;
  case DeviceCode::Unknown:
    break;
  }
  return PI_DEVICE_BINARY_TARGET_UNKNOWN;
}

pi_device_binary_format formatOf(DeviceCode Code) {
  switch (Code) {
  case DeviceCode::Spir:
    return PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE;
  case DeviceCode::SpirV:
    return PI_DEVICE_BINARY_TYPE_SPIRV;
  case DeviceCode::Ptx:
  case DeviceCode::AmdCodeObject:
    return PI_DEVICE_BINARY_TYPE_NATIVE;
  case DeviceCode::Unknown:
    break;
  }
  return PI_DEVICE_BINARY_TYPE_NONE;
}

} // namespace dglink
