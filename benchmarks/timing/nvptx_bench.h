// What the CUDA benchmark programs share: the failure exit, the adapter they measure
// (DGLINK_BENCH_BACKEND) and the device image of their PTX with its one device global.
#pragma once

#include <dglink/pi.h>
#include <dglink/support/image.h>

#include <cuda.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace dglink::bench {

// Prints "<program>: <What> failed (<Code>): <the adapter's last error>" and exits 1.
[[noreturn]] inline void die(const char *What, int Code) {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  std::fprintf(stderr, "%s: %s failed (%d): %s\n", program_invocation_short_name, What, Code,
               Message ? Message : "");
  std::exit(1);
}
inline void check(pi_result Result, const char *What) {
  if (Result != PI_SUCCESS)
    die(What, Result);
}
inline void checkCu(CUresult Result, const char *What) {
  if (Result != CUDA_SUCCESS)
    die(What, Result);
}

// Which adapter the dglink rows go through: DGLINK_BENCH_BACKEND=cuda (default) or hip
// (HIP's NVIDIA build, libdglink_adapter_hip_nvidia), on the same devices and PTX.
inline std::string benchBackend() {
  const char *Name = std::getenv("DGLINK_BENCH_BACKEND");
  return Name != nullptr && *Name != '\0' ? Name : "cuda";
}
// The adapter's name, as its platform reports it (PI_EXT_PLATFORM_INFO_BACKEND).
inline std::string benchAdapter() {
  return benchBackend() == "hip" ? "hip_nvidia" : benchBackend();
}

// A PTX image with its one device global (image scope), as the shim would make it.
struct GlobalImage {
  GlobalImage(const unsigned char *Bytes, size_t Size, const char *Global, size_t GlobalSize)
      : Name(Global) {
    DeviceGlobalInfo Info;
    Info.UniqueId = Global;
    Info.Size = GlobalSize;
    Info.DeviceImageScope = true;
    Value = encodeDeviceGlobalValue(Info);
    Property.Name = Name.data();
    Property.ValAddr = Value.data();
    Property.Type = PI_PROPERTY_TYPE_BYTE_ARRAY;
    Property.ValSize = Value.size();
    Set.Name = SetName.data();
    Set.PropertiesBegin = &Property;
    Set.PropertiesEnd = &Property + 1;
    Binary.Version = PI_DEVICE_BINARY_VERSION;
    Binary.Kind = PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL;
    Binary.Format = PI_DEVICE_BINARY_TYPE_NATIVE;
    Binary.DeviceTargetSpec = PI_DEVICE_BINARY_TARGET_NVPTX64;
    Binary.BinaryStart = Bytes;
    Binary.BinaryEnd = Bytes + Size;
    Binary.PropertySetsBegin = &Set;
    Binary.PropertySetsEnd = &Set + 1;
  }
  GlobalImage(const GlobalImage &) = delete;
  GlobalImage &operator=(const GlobalImage &) = delete;

  std::string Name;
  std::string SetName = PI_PROPERTY_SET_DEVICE_GLOBALS;
  std::vector<uint8_t> Value;
  _pi_device_binary_property_struct Property{};
  _pi_device_binary_property_set_struct Set{};
  _pi_device_binary_struct Binary{};
};

} // namespace dglink::bench
