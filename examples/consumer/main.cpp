// A program built against an installed dglink: lists the devices the dispatch layer
// finds beside itself (no environment needed), then on every device with device-global
// access writes the device global of a bundle that dglink-post-link made at build time,
// runs a kernel that adds one to it and reads it back. Exit status 0 only when at least
// one device did all of that and none failed.
#include <dglink/compiler/bundle.h>
#include <dglink/dispatch.h>
#include <dglink/pi.h>
#include <dglink/runtime.h>
#include <dglink/version.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr const char *Counter = "consumer_counter";
constexpr const char *Bump = "consumer_bump";

std::string lastError() {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  return Message != nullptr ? Message : "";
}

std::string deviceName(pi_device Device) {
  size_t Size = 0;
  if (piDeviceGetInfo(Device, PI_DEVICE_INFO_NAME, 0, nullptr, &Size) != PI_SUCCESS || Size == 0)
    return "(unnamed)";
  std::string Name(Size, '\0');
  if (piDeviceGetInfo(Device, PI_DEVICE_INFO_NAME, Size, Name.data(), nullptr) != PI_SUCCESS)
    return "(unnamed)";
  Name.resize(Name.find('\0') == std::string::npos ? Name.size() : Name.find('\0'));
  return Name;
}

// Write 41, run the kernel, read 42; false with a message on stderr otherwise.
bool roundTrip(dglink::runtime::Runtime &Runtime, pi_device Device, const std::string &Name) {
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
  bool Ok = false;
  const auto Fail = [&Name](const char *What, pi_result Result) {
    std::fprintf(stderr, "consumer: %s: %s failed (%d): %s\n", Name.c_str(), What,
                 static_cast<int>(Result), lastError().c_str());
    return false;
  };
  if (pi_result R = piContextCreate(nullptr, 1, &Device, &Context); R != PI_SUCCESS)
    return Fail("piContextCreate", R);
  if (pi_result R = piQueueCreate(Context, Device, 0, &Queue); R != PI_SUCCESS) {
    piContextRelease(Context);
    return Fail("piQueueCreate", R);
  }
  {
    dglink::runtime::ProgramRequest Request;
    Request.Context = Context;
    Request.Device = Device;
    Request.Kernel = Bump;
    dglink::runtime::Expected<dglink::runtime::Kernel> Kernel = Runtime.createKernel(Request);
    if (!Kernel) {
      std::fprintf(stderr, "consumer: %s: createKernel(%s) failed (%d): %s\n", Name.c_str(), Bump,
                   static_cast<int>(Kernel.status().Code), Kernel.status().Message.c_str());
    } else {
      const pi_program Program = Kernel->program().get();
      const int Written = 41;
      int Read = -1;
      const size_t One = 1;
      if (pi_result R = piextEnqueueDeviceGlobalVariableWrite(
              Queue, Program, Counter, PI_TRUE, sizeof(Written), 0, &Written, 0, nullptr, nullptr);
          R != PI_SUCCESS)
        Fail("piextEnqueueDeviceGlobalVariableWrite", R);
      else if (R = piEnqueueKernelLaunch(Queue, Kernel->get(), 1, nullptr, &One, nullptr, 0,
                                         nullptr, nullptr);
               R != PI_SUCCESS)
        Fail("piEnqueueKernelLaunch", R);
      else if (R = piQueueFinish(Queue); R != PI_SUCCESS)
        Fail("piQueueFinish", R);
      else if (R = piextEnqueueDeviceGlobalVariableRead(
                   Queue, Program, Counter, PI_TRUE, sizeof(Read), 0, &Read, 0, nullptr, nullptr);
               R != PI_SUCCESS)
        Fail("piextEnqueueDeviceGlobalVariableRead", R);
      else if (Read != Written + 1)
        std::fprintf(stderr, "consumer: %s: wrote %d, ran %s, read %d (expected %d)\n",
                     Name.c_str(), Written, Bump, Read, Written + 1);
      else {
        std::printf("  %s: wrote %s = %d, ran %s, read %d\n", Name.c_str(), Counter, Written, Bump,
                    Read);
        Ok = true;
      }
    }
  }
  // The runtime's cache holds the program, which holds the context.
  Runtime.forgetContext(Context);
  piQueueRelease(Queue);
  piContextRelease(Context);
  return Ok;
}

} // namespace

int main(int Argc, char **Argv) {
  const std::string BundlePath = Argc > 1 ? Argv[1] : DGLINK_CONSUMER_BUNDLE;
  std::printf("built with dglink %s headers\n", DGLINK_VERSION_STRING);

  dglink::Bundle Bundle;
  if (dglink::readBundleFile(BundlePath, Bundle) != PI_SUCCESS) {
    std::fprintf(stderr, "consumer: %s: %s\n", BundlePath.c_str(), lastError().c_str());
    return 1;
  }
  std::printf("bundle %s: %zu images\n", BundlePath.c_str(), Bundle.Images.size());

  std::printf("adapters (from %s):\n",
              dglinkDispatchDirectoryCount() != 0 ? dglinkDispatchDirectory(0) : "nowhere");
  for (pi_uint32 I = 0; I < dglinkDispatchAdapterCount(); ++I) {
    dglink_adapter_info Info{};
    if (dglinkDispatchAdapterInfo(I, &Info) == PI_SUCCESS)
      std::printf("  %s: %s\n", Info.Name,
                  Info.Loaded != PI_FALSE ? "loaded"
                                          : (std::string("skipped: ") + Info.SkipReason).c_str());
  }

  pi_uint32 PlatformCount = 0;
  if (piPlatformsGet(0, nullptr, &PlatformCount) != PI_SUCCESS) {
    std::fprintf(stderr, "consumer: piPlatformsGet failed: %s\n", lastError().c_str());
    return 1;
  }
  std::vector<pi_platform> Platforms(PlatformCount);
  if (PlatformCount != 0 &&
      piPlatformsGet(PlatformCount, Platforms.data(), nullptr) != PI_SUCCESS) {
    std::fprintf(stderr, "consumer: piPlatformsGet failed: %s\n", lastError().c_str());
    return 1;
  }
  std::vector<pi_device> Devices;
  for (pi_platform Platform : Platforms) {
    pi_uint32 Count = 0;
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &Count) != PI_SUCCESS || Count == 0)
      continue;
    std::vector<pi_device> Found(Count);
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, Count, Found.data(), nullptr) == PI_SUCCESS)
      Devices.insert(Devices.end(), Found.begin(), Found.end());
  }
  std::printf("devices: %zu\n", Devices.size());
  for (pi_device Device : Devices)
    std::printf("  %s\n", deviceName(Device).c_str());
  if (Devices.empty()) {
    std::fprintf(stderr, "consumer: the dispatch layer found no device\n");
    return 1;
  }

  dglink::runtime::Runtime Runtime;
  dglink::runtime::Expected<dglink::runtime::ModuleId> Module =
      Runtime.registerBundleFile(BundlePath);
  if (!Module) {
    std::fprintf(stderr, "consumer: registerBundleFile: %s\n", Module.status().Message.c_str());
    return 1;
  }
  std::printf("device globals:\n");
  int Done = 0, Failed = 0;
  for (pi_device Device : Devices) {
    const std::string Name = deviceName(Device);
    pi_device_global_mechanism Mechanism = PI_DEVICE_GLOBAL_MECHANISM_NONE;
    if (piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM, sizeof(Mechanism),
                        &Mechanism, nullptr) != PI_SUCCESS ||
        Mechanism == PI_DEVICE_GLOBAL_MECHANISM_NONE) {
      std::printf("  %s: no device-global access, not tried\n", Name.c_str());
      continue;
    }
    (roundTrip(Runtime, Device, Name) ? Done : Failed)++;
  }
  std::printf("%d devices wrote and read the device global, %d failed\n", Done, Failed);
  return Done > 0 && Failed == 0 ? 0 : 1;
}
