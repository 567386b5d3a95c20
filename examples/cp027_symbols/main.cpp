// The toy example at the end of SYCL proposal CP027 ("global device symbols",
// shared/seeds/cp027-global-device-symbols.md), with the dglink runtime and the symbol
// API (include/dglink/symbol.h) in place of a SYCL queue and handler, run on every
// device the dispatch layer finds (what `dglink ls` shows) that executes kernels.
// symbols_cuda.cu beside it is the proposal's CUDA version of the same steps.
//
// The device code is the proposal's (conformance/device_code/symbols_proposal.cl), made
// into a bundle by dglink-post-link at build time: cp027_symbols.bundle beside this
// program, or the bundle named by the first argument or by DGLINK_CP027_BUNDLE.
// Every step's result is checked; the program prints what it did per device and exits
// 1 if anything differed from the proposal's asserts on any device.
#include <dglink/pi.h>
#include <dglink/runtime.h>
#include <dglink/symbol.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace dglink::runtime;

// The host side of the proposal's symbols:
//   sycl::symbol<int> GV;
//   sycl::symbol<int, sycl::access::address_space::global_space> MutableGV;
//   sycl::symbol<int[42], sycl::access::address_space::global_space> GVArray;
// named by the unique ids of the device globals (symbols_proposal.cl).
symbol<int> GV("GV");
symbol<int> MutableGV("MutableGV");
symbol<int[42]> GVArray("cp027::GVArray");

namespace {

std::string lastError() {
  char *Message = nullptr; // piPluginGetLastError returns the failed call's code
  piPluginGetLastError(&Message);
  return Message == nullptr ? "" : Message;
}

std::string deviceString(pi_device Device, pi_device_info Name) {
  size_t Size = 0;
  if (piDeviceGetInfo(Device, Name, 0, nullptr, &Size) != PI_SUCCESS || Size == 0)
    return "";
  std::string Value(Size, '\0');
  if (piDeviceGetInfo(Device, Name, Size, Value.data(), nullptr) != PI_SUCCESS)
    return "";
  Value.resize(Value.find('\0'));
  return Value;
}

std::string defaultBundle() {
  if (const char *FromEnvironment = std::getenv("DGLINK_CP027_BUNDLE"))
    return FromEnvironment;
  std::vector<char> Path(4096, '\0');
  const ssize_t Length = readlink("/proc/self/exe", Path.data(), Path.size() - 1);
  if (Length <= 0)
    return "cp027_symbols.bundle";
  std::string Self(Path.data(), static_cast<size_t>(Length));
  return Self.substr(0, Self.rfind('/') + 1) + "cp027_symbols.bundle";
}

// One device's run: the PI objects it made, released in reverse order.
class DeviceRun {
public:
  DeviceRun(Runtime &With, ModuleId From, pi_device On) : Rt(With), Module(From), Device(On) {}
  DeviceRun(const DeviceRun &) = delete;
  DeviceRun &operator=(const DeviceRun &) = delete;
  ~DeviceRun() {
    Kernels.clear();
    Bound.reset();
    Example = Program();
    if (Result != nullptr)
      piMemRelease(Result);
    if (Queue != nullptr)
      piQueueRelease(Queue);
    if (Context != nullptr) {
      Rt.forgetContext(Context);
      piContextRelease(Context);
    }
  }

  // 0: the example ran as the proposal says; 1: something differed; 2: skipped.
  int run(int V1, int V2);

private:
  bool fail(const std::string &What) {
    std::printf("  FAILED: %s\n", What.c_str());
    Failed = true;
    return false;
  }
  bool pi(pi_result Returned, const char *What) {
    return Returned == PI_SUCCESS ||
           fail(std::string(What) + " returned " + std::to_string(Returned) + ": " + lastError());
  }
  bool ok(const Status &Done, const char *What) {
    return Done.ok() || fail(std::string(What) + ": " + Done.Message);
  }
  bool expect(bool Holds, const std::string &What) {
    if (Holds)
      std::printf("  ok: %s\n", What.c_str());
    return Holds || fail(What);
  }
  ProgramRequest request(const char *Kernel) const {
    ProgramRequest Request;
    Request.Context = Context;
    Request.Device = Device;
    Request.Kernel = Kernel;
    Request.Module = Module;
    return Request;
  }
  // parallel_for over one work-item of kernel Name: Arg as its argument 0 (the result
  // buffer when Arg is null), then res read back.
  bool launch(const char *KernelName, const int *Arg, int &Res) {
    Expected<Kernel> K = Rt.createKernel(request(KernelName));
    if (!K.ok())
      return fail(std::string("kernel ") + KernelName + ": " + K.status().Message);
    if (K->program().get() != Example.get())
      return fail(std::string("kernel ") + KernelName + " is not in the program of the symbols");
    if (Arg != nullptr) {
      if (!pi(piKernelSetArg(K->get(), 0, sizeof(*Arg), Arg), "piKernelSetArg"))
        return false;
    } else if (!pi(piextKernelSetArgMemObj(K->get(), 0, &Result), "piextKernelSetArgMemObj")) {
      return false;
    }
    const size_t One = 1;
    if (!pi(piEnqueueKernelLaunch(Queue, K->get(), 1, nullptr, &One, nullptr, 0, nullptr, nullptr),
            "piEnqueueKernelLaunch"))
      return false;
    Kernels.push_back(std::move(*K));
    if (Arg != nullptr) // ev.wait()
      return pi(piQueueFinish(Queue), "piQueueFinish");
    return pi(
        piEnqueueMemBufferRead(Queue, Result, PI_TRUE, 0, sizeof(Res), &Res, 0, nullptr, nullptr),
        "piEnqueueMemBufferRead");
  }

  Runtime &Rt;
  ModuleId Module;
  pi_device Device;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
  pi_mem Result = nullptr;
  Program Example;
  std::unique_ptr<SymbolQueue> Bound;
  std::vector<Kernel> Kernels;
  bool Failed = false;
};

int DeviceRun::run(int V1, int V2) {
  if (!pi(piContextCreate(nullptr, 1, &Device, &Context), "piContextCreate") ||
      !pi(piQueueCreate(Context, Device, 0, &Queue), "piQueueCreate") ||
      !pi(piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, sizeof(int), nullptr, &Result),
          "piMemBufferCreate"))
    return 1;
  // The executable module of the proposal: the runtime builds the image for the device.
  Expected<Program> Built = Rt.getOrBuildProgram(request("kernel1"));
  if (!Built.ok()) {
    if (Built.status().Code == PI_ERROR_INVALID_KERNEL_NAME) {
      std::printf("  skipped: the bundle has no image this device takes: %s\n",
                  Built.status().Message.c_str());
      return 2;
    }
    fail("building the example: " + Built.status().Message);
    return 1;
  }
  Example = *Built;
  std::printf("  program %s, image %s\n",
              Example.images().front().Lowered ? "lowered for OpenCL" : "native",
              Example.images().front().Name.c_str());
  Bound = std::make_unique<SymbolQueue>(Queue, Example);
  SymbolQueue &H = *Bound; // the handler
  int Res = 0;

  GV = 42;
  MutableGV = 21;

  // Set device side GV: h.copy_to_symbol<GV>(v1);
  if (!ok(H.copy_to_symbol(GV, V1), "copy_to_symbol(GV, v1)"))
    return 1;
  // acc[0] = GV in a kernel
  if (!launch("kernel1", nullptr, Res))
    return 1;
  // Check that we copied back the device value
  expect(Res == V1, "kernel1 read GV == v1 (" + std::to_string(Res) + ")");
  // Check that the host GV was not affected by the initial copy
  expect(GV == 42, "host GV is still 42 (" + std::to_string(GV) + ")");

  if (!ok(H.copy_to_symbol(GV, V2), "copy_to_symbol(GV, v2)") || !launch("kernel2", nullptr, Res))
    return 1;
  expect(Res == V2, "kernel2 read GV == v2 (" + std::to_string(Res) + ")");

  if (!ok(H.copy_to_symbol(MutableGV, V1), "copy_to_symbol(MutableGV, v1)"))
    return 1;
  // MutableGV = v2 in a kernel; ev.wait()
  if (!launch("kernel3", &V2, Res))
    return 1;
  expect(MutableGV == 21, "host MutableGV is still 21 (" + std::to_string(MutableGV) + ")");
  // Copy the host symbol value using the device value: h.update_host<MutableGV>();
  if (!ok(H.update_host(MutableGV), "update_host(MutableGV)"))
    return 1;
  expect(MutableGV == V2, "after update_host, MutableGV == v2 (" + std::to_string(MutableGV) + ")");

  // Fill the global array with a given value: h.fill<GVArray>(42);
  if (!ok(H.fill(GVArray, 42), "fill(GVArray, 42)"))
    return 1;
  // Beyond the proposal's asserts: a kernel sums the device's array, and it comes back.
  if (!launch("sum_gv_array", nullptr, Res))
    return 1;
  expect(Res == 42 * 42, "sum of the device's GVArray == 42 * 42 (" + std::to_string(Res) + ")");
  if (!ok(H.update_host(GVArray), "update_host(GVArray)"))
    return 1;
  int Filled = 0;
  for (int Element : GVArray)
    Filled += Element == 42 ? 1 : 0;
  expect(Filled == 42,
         "after update_host, 42 elements of GVArray are 42 (" + std::to_string(Filled) + ")");
  return Failed ? 1 : 0;
}

} // namespace

int main(int Argc, char **Argv) {
  const std::string BundlePath = Argc > 1 ? Argv[1] : defaultBundle();
  Runtime Rt;
  Expected<ModuleId> Module = Rt.registerBundleFile(BundlePath);
  if (!Module.ok()) {
    std::fprintf(stderr, "cp027_symbols: %s: %s\n", BundlePath.c_str(),
                 Module.status().Message.c_str());
    return 1;
  }

  pi_uint32 NumPlatforms = 0;
  if (piPlatformsGet(0, nullptr, &NumPlatforms) != PI_SUCCESS)
    NumPlatforms = 0;
  std::vector<pi_platform> Platforms(NumPlatforms);
  if (NumPlatforms > 0 && piPlatformsGet(NumPlatforms, Platforms.data(), nullptr) != PI_SUCCESS)
    Platforms.clear();
  int Ran = 0, Skipped = 0, Failed = 0;
  int V1 = 1234, V2 = 5678;
  for (pi_platform Platform : Platforms) {
    pi_uint32 NumDevices = 0;
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices) != PI_SUCCESS)
      continue;
    std::vector<pi_device> Devices(NumDevices);
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, NumDevices, Devices.data(), nullptr) !=
        PI_SUCCESS)
      continue;
    for (pi_device Device : Devices) {
      const std::string Name = deviceString(Device, PI_EXT_DEVICE_INFO_BACKEND_NAME) + ": " +
                               deviceString(Device, PI_DEVICE_INFO_NAME);
      std::printf("%s\n", Name.c_str());
      pi_bool Executes = PI_FALSE;
      if (piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_EXECUTES_KERNELS, sizeof(Executes), &Executes,
                          nullptr) != PI_SUCCESS ||
          Executes == PI_FALSE) {
        std::printf("  skipped: the device executes no kernels "
                    "(PI_EXT_DEVICE_INFO_EXECUTES_KERNELS is false)\n");
        ++Skipped;
        continue;
      }
      pi_device_global_mechanism Mechanism = PI_DEVICE_GLOBAL_MECHANISM_NONE;
      if (piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM, sizeof(Mechanism),
                          &Mechanism, nullptr) != PI_SUCCESS ||
          Mechanism == PI_DEVICE_GLOBAL_MECHANISM_NONE) {
        std::printf("  skipped: the device has no device-global access "
                    "(PI_DEVICE_GLOBAL_MECHANISM_NONE)\n");
        ++Skipped;
        continue;
      }
      // Other values on every device, so that one device's state cannot pass for another's.
      V1 += 11;
      V2 += 13;
      DeviceRun Run(Rt, *Module, Device);
      const int Outcome = Run.run(V1, V2);
      Ran += Outcome == 0 ? 1 : 0;
      Failed += Outcome == 1 ? 1 : 0;
      Skipped += Outcome == 2 ? 1 : 0;
    }
  }
  std::printf("cp027_symbols: %d device(s) ran the example, %d failed, %d skipped\n", Ran, Failed,
              Skipped);
  return Failed == 0 ? 0 : 1;
}
