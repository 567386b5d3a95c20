// What the benchmarks need to time a device-global copy through the Unified Runtime
// loader (docs/ur.md): the loader pointed at a dglink UR adapter that lies beside the
// dispatch layer (unless UR_ADAPTERS_FORCE_LOAD says where), the device of a given name,
// and a context, queue and built program of a dglink image on it.
#pragma once

#include <dglink/pi.h>

#include "image_metadata.h"

#include <dlfcn.h>
#include <unified-runtime/ur_api.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace dglink::bench {

// Loads the UR loader's adapters once; AdapterFile ("libur_adapter_dglink_cuda.so") is
// looked for beside libdglink_pi.so when UR_ADAPTERS_FORCE_LOAD is not set.
inline bool initUrLoader(const char *AdapterFile) {
  static const bool Initialised = [AdapterFile] {
    Dl_info Info = {};
    if (std::getenv("UR_ADAPTERS_FORCE_LOAD") == nullptr &&
        dladdr(reinterpret_cast<void *>(&piPlatformsGet), &Info) != 0 &&
        Info.dli_fname != nullptr) {
      std::string Dir = Info.dli_fname;
      Dir.resize(Dir.rfind('/') + 1);
      setenv("UR_ADAPTERS_FORCE_LOAD", (Dir + AdapterFile).c_str(), 0);
    }
    return urLoaderInit(0, nullptr) == UR_RESULT_SUCCESS;
  }();
  return Initialised;
}

// The first device called Name among the UR loader's adapters, or null.
inline ur_device_handle_t findUrDevice(const std::string &Name) {
  uint32_t Count = 0;
  urAdapterGet(0, nullptr, &Count);
  std::vector<ur_adapter_handle_t> Adapters(Count);
  if (Count != 0)
    urAdapterGet(Count, Adapters.data(), nullptr);
  for (ur_adapter_handle_t Adapter : Adapters) {
    uint32_t NumPlatforms = 0;
    urPlatformGet(Adapter, 0, nullptr, &NumPlatforms);
    std::vector<ur_platform_handle_t> Platforms(NumPlatforms);
    if (NumPlatforms != 0)
      urPlatformGet(Adapter, NumPlatforms, Platforms.data(), nullptr);
    for (ur_platform_handle_t Platform : Platforms) {
      uint32_t NumDevices = 0;
      urDeviceGet(Platform, UR_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices);
      std::vector<ur_device_handle_t> Devices(NumDevices);
      if (NumDevices != 0)
        urDeviceGet(Platform, UR_DEVICE_TYPE_ALL, NumDevices, Devices.data(), nullptr);
      for (ur_device_handle_t Device : Devices) {
        size_t Size = 0;
        urDeviceGetInfo(Device, UR_DEVICE_INFO_NAME, 0, nullptr, &Size);
        std::string Text(Size, '\0');
        urDeviceGetInfo(Device, UR_DEVICE_INFO_NAME, Size, Text.data(), nullptr);
        Text.resize(Text.find('\0'));
        if (Text == Name)
          return Device;
      }
    }
  }
  return nullptr;
}

// A context, queue and built program of Image on one UR device.
struct UrSession {
  ur_context_handle_t Context = nullptr;
  ur_queue_handle_t Queue = nullptr;
  ur_program_handle_t Program = nullptr;

  // The failing call's name, or null when all is open.
  const char *open(ur_device_handle_t Device, const _pi_device_binary_struct &Image) {
    if (urContextCreate(1, &Device, nullptr, &Context) != UR_RESULT_SUCCESS)
      return "urContextCreate";
    if (urQueueCreate(Context, Device, nullptr, &Queue) != UR_RESULT_SUCCESS)
      return "urQueueCreate";
    const dglink::ur_image::Metadata Metadata = dglink::ur_image::fromImage(Image);
    const ur_program_properties_t Properties = Metadata.properties();
    size_t Length = static_cast<size_t>(Image.BinaryEnd - Image.BinaryStart);
    const uint8_t *Binary = Image.BinaryStart;
    if (urProgramCreateWithBinary(Context, 1, &Device, &Length, &Binary, &Properties, &Program) !=
        UR_RESULT_SUCCESS)
      return "urProgramCreateWithBinary";
    if (urProgramBuild(Context, Program, "") != UR_RESULT_SUCCESS)
      return "urProgramBuild";
    return nullptr;
  }
  void close() {
    if (Program != nullptr)
      urProgramRelease(Program);
    if (Queue != nullptr)
      urQueueRelease(Queue);
    if (Context != nullptr)
      urContextRelease(Context);
    Program = nullptr;
    Queue = nullptr;
    Context = nullptr;
  }
};

} // namespace dglink::bench
