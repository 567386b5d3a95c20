// The stream backend's platform, devices and contexts: one platform with every device
// the driver reports (zero platforms where the driver or a device is missing), one
// device per context on its primary context, buffers and USM, recycled events.
#include <dglink/stream/backend.h>

#include <dglink/support/error.h>
#include <dglink/support/extensions.h>
#include <dglink/support/log.h>

#include <cstring>

namespace dglink::stream {
namespace {

void describe(Driver &D, const DeviceInfo &Info, const std::string &DriverVersion,
              core::DeviceDescription &Out) {
  Out.Type = PI_DEVICE_TYPE_GPU;
  Out.VendorId = D.vendorId();
  Out.Vendor = D.vendor();
  Out.Name = Info.Name;
  Out.ComputeUnits = static_cast<pi_uint32>(Info.MultiprocessorCount);
  Out.MaxWorkGroupSize = static_cast<size_t>(Info.MaxThreadsPerBlock);
  for (int I = 0; I < 3; ++I)
    Out.MaxWorkItemSizes[I] = static_cast<size_t>(Info.MaxBlockDim[I]);
  Out.GlobalMemSize = Info.TotalMemory;
  // denorm | inf_nan | round to nearest / zero / inf | fma: every GPU of both vendors, in
  // double and in half (sm_60+, every AMD GPU HIP runs on: the runtime's fp16 too).
  Out.DoubleFpConfig = 0x3F;
  Out.HalfFpConfig = 0x3F;
  Out.CompilerAvailable = true; // native code; PTX is compiled by the driver's JIT
  Out.DriverVersion = DriverVersion;
  Out.Version = Info.Version;
  std::string Why;
  const bool HaveLinker = D.linkerAvailable(&Why);
  // Linking is for the device's ISA, which it must report.
  Out.LinkerAvailable = HaveLinker && !Info.Arch.empty();
  if (!Out.LinkerAvailable)
    logger().info("{}: device '{}' cannot link at run time: {}", streamBackend().name(), Info.Name,
                  HaveLinker ? "it reports no architecture name" : Why);
  std::vector<std::string> Formats;
  if (Out.LinkerAvailable) {
    Out.LinkFormats = D.target();
    Formats.push_back(Out.LinkFormats);
  }
  Out.ImageFormats = D.target(); // whether or not this device links
  // Module globals (cuModuleGetGlobal, hipModuleGetGlobal) and stream copies.
  Out.DeviceGlobal = PI_DEVICE_GLOBAL_MECHANISM_NATIVE;
  Out.Extensions = buildExtensionString("", Formats, true);
  // Host (pinned), device and managed allocations, with atomics.
  Out.HostUsm = Out.DeviceUsm = Out.SharedUsm = PI_USM_ACCESS | PI_USM_ATOMIC_ACCESS;
  Out.MaxDeviceUsmAlignment = 256;
  Out.MaxHostUsmAlignment = Out.MaxSharedUsmAlignment = 4096;
  Out.Usm = PI_USM_MECHANISM_NATIVE;
}

} // namespace

StreamBackend &streamBackend() { return static_cast<StreamBackend &>(core::backend()); }

void StreamBackend::discover(std::vector<std::unique_ptr<_pi_platform>> &Platforms) {
  Driver &D = *Api;
  std::string Reason;
  if (!D.open(Reason)) {
    logger().info("{}: no usable driver ({}); zero platforms", Named.Name, Reason);
    return;
  }
  int Count = 0;
  if (D.deviceCount(Count) != PI_SUCCESS || Count <= 0) {
    logger().info("{}: no device ({}); zero platforms", Named.Name,
                  Count <= 0 ? "the driver reports none" : lastErrorMessage());
    return;
  }
  std::string DriverVersion;
  if (D.driverVersion(DriverVersion) != PI_SUCCESS)
    DriverVersion = "unknown";
  auto Platform = core::makeHandle<_pi_platform>();
  Platform->Description.Name = Named.PlatformName;
  Platform->Description.Vendor = D.vendor();
  Platform->Description.Version = Named.PlatformVersion(DriverVersion);
  for (int Ordinal = 0; Ordinal < Count; ++Ordinal) {
    auto Impl = std::make_unique<StreamDevice>();
    Impl->Ordinal = Ordinal;
    if (D.deviceInfo(Ordinal, Impl->Info) != PI_SUCCESS) {
      logger().warn("{}: skipping device {}: {}", Named.Name, Ordinal, lastErrorMessage());
      continue;
    }
    auto Device = core::makeHandle<_pi_device>();
    Device->Platform = Platform.get();
    describe(D, Impl->Info, DriverVersion, Device->Description);
    logger().debug("{}: device {}: {} ({}), extensions '{}'", Named.Name, Ordinal, Impl->Info.Name,
                   Impl->Info.Arch, Device->Description.Extensions);
    Device->Impl = std::move(Impl);
    Platform->Devices.push_back(Device.release()); // root devices live for the process
  }
  if (!Platform->Devices.empty())
    Platforms.push_back(std::move(Platform));
}

pi_result StreamBackend::createContext(_pi_context &Context,
                                       std::unique_ptr<core::ContextImpl> &Impl) {
  auto Made = std::make_unique<StreamContext>(*Context.Devices[0]);
  DGLINK_TRY(Made->makeCurrent()); // retains the primary context on first use
  Impl = std::move(Made);
  return PI_SUCCESS;
}

StreamContext::~StreamContext() {
  if (makeCurrent() != PI_SUCCESS)
    return;
  for (Event E : FreeEvents)
    driver().destroyEvent(E);
}

pi_result StreamContext::acquireEvent(Event &Out) {
  {
    std::lock_guard<std::mutex> Lock(EventMutex);
    if (!FreeEvents.empty()) {
      Out = FreeEvents.back();
      FreeEvents.pop_back();
      return PI_SUCCESS;
    }
  }
  return driver().createEvent(Out);
}

void StreamContext::recycleEvent(Event E) {
  std::lock_guard<std::mutex> Lock(EventMutex);
  FreeEvents.push_back(E);
}

pi_result StreamContext::createQueue(_pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) {
  DGLINK_TRY(makeCurrent());
  Stream S = nullptr;
  DGLINK_TRY(driver().createStream(S));
  try {
    Impl = std::make_unique<StreamQueue>(Queue, *this, S);
  } catch (...) {
    driver().destroyStream(S);
    throw;
  }
  return PI_SUCCESS;
}

pi_result StreamContext::createBuffer(size_t Size, const void *CopyFrom,
                                      std::unique_ptr<core::MemImpl> &Impl) {
  Driver &D = driver();
  DGLINK_TRY(makeCurrent());
  void *Pointer = nullptr;
  DGLINK_TRY(D.allocateDevice(Pointer, Size));
  auto Made = std::make_unique<StreamMem>(*this, Pointer); // frees it on failure
  if (CopyFrom != nullptr)
    DGLINK_TRY(D.copyToDeviceNow(Pointer, CopyFrom, Size));
  Impl = std::move(Made);
  return PI_SUCCESS;
}

StreamMem::~StreamMem() {
  // The driver's free waits for work using the memory to finish.
  if (Context.makeCurrent() == PI_SUCCESS)
    (void)driver().freeDevice(Pointer);
}

pi_result StreamContext::allocateUsm(core::UsmKind Kind, _pi_device *, size_t Size, pi_uint32,
                                     void *&Pointer) {
  Driver &D = driver();
  DGLINK_TRY(makeCurrent());
  // The drivers align every allocation to at least the largest alignment accepted.
  switch (Kind) {
  case core::UsmKind::Device:
    return D.allocateDevice(Pointer, Size);
  case core::UsmKind::Shared:
    return D.allocateShared(Pointer, Size);
  case core::UsmKind::Host:
    break;
  }
  DGLINK_TRY(D.allocateHost(Pointer, Size));
  StreamBackend &Backend = streamBackend();
  try {
    Backend.HostAllocations.add(Pointer, Size);
  } catch (...) {
    (void)D.freeHost(Pointer);
    throw;
  }
  return PI_SUCCESS;
}

pi_result StreamContext::freeUsm(void *Pointer) {
  Driver &D = driver();
  DGLINK_TRY(makeCurrent());
  StreamBackend &Backend = streamBackend();
  if (Backend.HostAllocations.remove(Pointer))
    return D.freeHost(Pointer);
  const pi_result Result = D.freeDevice(Pointer);
  if (Result == PI_ERROR_INVALID_VALUE)
    return fail(PI_ERROR_INVALID_VALUE,
                "piextUSMFree: {} is not a USM allocation of the {} adapter", fmt::ptr(Pointer),
                Backend.label());
  return Result;
}

} // namespace dglink::stream
