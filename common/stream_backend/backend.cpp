// The stream backend's platform, devices and contexts: one platform with every device
// the driver reports (zero platforms where the driver or a device is missing), contexts
// of any of its devices on their primary contexts (peers enabled), buffers and USM,
// recycled events.
#include <dglink/stream/backend.h>

#include <dglink/support/error.h>
#include <dglink/support/extensions.h>
#include <dglink/support/log.h>

#include <cstring>

namespace dglink::stream {
namespace {

// What kernels' atomics and fences can do. NVIDIA (PTX's scoped atomics, sm_70+): every
// order and scope. AMD (as UR's HIP adapter describes it): relaxed, acquire and release
// atomics up to work-group scope; fences of every order and scope.
void describeAtomics(bool Nvidia, const DeviceInfo &Info, core::DeviceAtomics &A) {
  constexpr pi_memory_scope_capabilities AllScopes =
      PI_MEMORY_SCOPE_WORK_ITEM | PI_MEMORY_SCOPE_SUB_GROUP | PI_MEMORY_SCOPE_WORK_GROUP |
      PI_MEMORY_SCOPE_DEVICE | PI_MEMORY_SCOPE_SYSTEM;
  constexpr pi_memory_order_capabilities AllOrders =
      PI_MEMORY_ORDER_RELAXED | PI_MEMORY_ORDER_ACQUIRE | PI_MEMORY_ORDER_RELEASE |
      PI_MEMORY_ORDER_ACQ_REL | PI_MEMORY_ORDER_SEQ_CST;
  A.Int64 = Info.Int64Atomics;
  if (Nvidia && Info.ComputeMajor >= 7) {
    A.MemoryOrders = A.FenceOrders = AllOrders;
    A.MemoryScopes = A.FenceScopes = AllScopes;
  } else if (!Nvidia) {
    A.MemoryOrders = PI_MEMORY_ORDER_RELAXED | PI_MEMORY_ORDER_ACQUIRE | PI_MEMORY_ORDER_RELEASE;
    A.MemoryScopes =
        PI_MEMORY_SCOPE_WORK_ITEM | PI_MEMORY_SCOPE_SUB_GROUP | PI_MEMORY_SCOPE_WORK_GROUP;
    A.FenceOrders = AllOrders;
    A.FenceScopes = AllScopes;
  }
}

// Images where the driver has them (image.cpp): its arrays' limits. An image of a buffer
// is not made here, so its limit is the 1-D width UR's CUDA adapter reports for it. The
// driver states no limit on image and sampler arguments (a kernel's parameters are
// limited by their bytes), so these are UR's CUDA adapter's numbers.
void describeImages(const DeviceInfo::ImageLimits &Limits, core::DeviceImages &Out) {
  if (!Limits.Supported)
    return;
  Out.Supported = true;
  Out.Max2D[0] = Limits.Max2D[0];
  Out.Max2D[1] = Limits.Max2D[1];
  for (int I = 0; I < 3; ++I)
    Out.Max3D[I] = Limits.Max3D[I];
  Out.MaxBufferSize = Limits.Width1D;
  Out.MaxArraySize = Limits.Layers;
  Out.MaxReadArgs = Out.MaxWriteArgs = Out.MaxReadWriteArgs = Out.MaxSamplers = 128;
}

// Limits, memory and vector widths from what the driver states (DeviceInfo).
void describeLimits(Driver &D, const DeviceInfo &Info, core::DeviceDescription &Out) {
  const bool Nvidia = std::strcmp(D.target(), PI_DEVICE_BINARY_TARGET_NVPTX64) == 0;
  core::DeviceLimits &L = Out.Limits;
  L.MaxClockFrequency = static_cast<pi_uint32>(Info.ClockRateKHz / 1000);
  for (int I = 0; I < 3; ++I)
    L.MaxWorkGroups[I] = static_cast<size_t>(Info.MaxGridDim[I]);
  L.MaxParameterSize = D.maxParameterBytes();
  L.MaxConstantArgs = core::constantArgumentsIn(L.MaxParameterSize);
  L.ProfilingTimerResolution = Info.TimerResolutionNs;
  // One sub-group size: the warp (wavefront); a block holds this many of them.
  if (Info.WarpSize > 0) {
    L.SubGroupSizes = {static_cast<pi_uint32>(Info.WarpSize)};
    L.MaxNumSubGroups =
        static_cast<pi_uint32>((Info.MaxThreadsPerBlock + Info.WarpSize - 1) / Info.WarpSize);
  }
  // Volta's independent thread scheduling.
  L.SubGroupIndependentForwardProgress = Nvidia && Info.ComputeMajor >= 7;
  // denorm | inf_nan | round to nearest / zero / inf | fma | correctly rounded div/sqrt.
  L.SingleFpConfig = 0xBF;
  L.AsyncBarrier = Nvidia && Info.ComputeMajor >= 8; // PTX's mbarrier, sm_80+

  core::DeviceMemory &M = Out.Memory;
  M.MaxAllocSize = Info.TotalMemory;
  M.BaseAddressAlignBits = 256 * 8; // device allocations are 256-byte aligned
  M.GlobalCacheType = Info.L2CacheBytes > 0 ? PI_DEVICE_MEM_CACHE_TYPE_READ_WRITE_CACHE
                                            : PI_DEVICE_MEM_CACHE_TYPE_NONE;
  M.GlobalCacheSize = static_cast<pi_uint64>(Info.L2CacheBytes);
  M.GlobalCacheLineSize = static_cast<pi_uint32>(Info.CacheLineBytes);
  M.MaxConstantBufferSize = static_cast<pi_uint64>(Info.ConstantMemory);
  M.LocalMemType = PI_DEVICE_LOCAL_MEM_TYPE_LOCAL; // shared memory (LDS), on the chip
  // What one work-group may have: CUDA's opt-in maximum (a launch with more than 48 KiB
  // of local-memory arguments raises the kernel's limit, queue.cpp), as UR's CUDA adapter
  // reports it.
  M.LocalMemSize =
      static_cast<pi_uint64>(Info.SharedMemoryPerBlockOptIn > 0 ? Info.SharedMemoryPerBlockOptIn
                                                                : Info.SharedMemoryPerBlock);
  M.ErrorCorrection = Info.Ecc;
  M.HostUnified = Out.IntegratedGpu = Info.Integrated;
  Out.VirtualMemory = Info.VirtualMemory;
  Out.TimestampRecording = Info.TimedEvents;
  Out.CooperativeLaunch = Info.CooperativeLaunch;
  Out.Uuid.assign(Info.Uuid.begin(), Info.Uuid.end());
  Out.PciAddress = Info.PciAddress;
  Out.MemoryClockMHz = static_cast<pi_uint32>(Info.MemoryClockKHz / 1000);
  if (Info.MemoryClockKHz > 0 && Info.MemoryBusWidthBits > 0)
    Out.MaxMemoryBandwidth = pi_uint64{static_cast<pi_uint32>(Info.MemoryClockKHz)} * 1000 * 2 *
                             static_cast<pi_uint32>(Info.MemoryBusWidthBits / 8);
  Out.MemoryBusWidthBits = static_cast<pi_uint32>(Info.MemoryBusWidthBits);
  Out.MaxRegistersPerWorkGroup = static_cast<pi_uint32>(Info.RegistersPerBlock);

  // SIMT: each work-item computes scalars; no vector unit to prefer (half and double are
  // computed: HalfFpConfig and DoubleFpConfig are set above).
  for (size_t I = 0; I < core::DeviceVectorWidths::Count; ++I)
    Out.VectorWidths.Preferred[I] = Out.VectorWidths.Native[I] = 1;
  Out.RuntimeVersion = Info.Version;
  describeAtomics(Nvidia, Info, Out.Atomics);
  describeImages(Info.Images, Out.Images);
}

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
  describeLimits(D, Info, Out);
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
  auto Made = std::make_unique<StreamContext>(Context.Devices);
  Driver &D = *Api;
  for (const auto &On : Made->Devices)
    DGLINK_TRY(D.makeCurrent(On->Ordinal)); // retains the primary context on first use
  // Copies between the devices' memory (and kernels reading another device's USM) go
  // peer to peer where the hardware can; elsewhere the driver stages them through the host.
  for (const auto &From : Made->Devices)
    for (const auto &To : Made->Devices)
      if (From != To && D.canAccessPeer(From->Ordinal, To->Ordinal)) {
        // An optimisation only: a device out of peers (CUDA allows about 8) still copies.
        if (D.enablePeerAccess(From->Ordinal, To->Ordinal) != PI_SUCCESS)
          logger().warn("{}: no peer access from device {} to device {}: {}", Named.Name,
                        From->Ordinal, To->Ordinal, lastErrorMessage());
        else
          logger().debug("{}: peer access from device {} to device {}", Named.Name, From->Ordinal,
                         To->Ordinal);
      }
  Impl = std::move(Made);
  return PI_SUCCESS;
}

pi_result StreamBackend::adoptContext(const char *Function, uintptr_t Native, bool Owned,
                                      _pi_context &Context,
                                      std::unique_ptr<core::ContextImpl> &Impl) {
  if (!Api->hasNativeContexts())
    return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                "{}: the {} adapter's driver has no context handles (urContextGetNativeHandle "
                "answers none either)",
                Function, Named.Label);
  if (Owned)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: a {} context is a device's primary context, which the process shares: "
                "adopt it without ownership",
                Function, Named.Label);
  // The device whose primary context it is: among those whose primary context the adapter
  // retained already, else among all (retaining theirs).
  int Count = 0;
  DGLINK_TRY(Api->deviceCount(Count));
  int Ordinal = -1;
  for (int Pass = 0; Pass < 2 && Ordinal < 0; ++Pass)
    for (int Each = 0; Each < Count && Ordinal < 0; ++Each) {
      uintptr_t Handle = 0;
      if (Pass == 1 && Api->makeCurrent(Each) != PI_SUCCESS)
        continue;
      if (Api->nativeContext(Each, Handle) && Handle == Native)
        Ordinal = Each;
    }
  uintptr_t NativeDevice = 0;
  pi_device Found = nullptr;
  if (Ordinal >= 0 && Api->nativeDevice(Ordinal, NativeDevice))
    (void)core::deviceFromNative(Function, NativeDevice, nullptr, &Found);
  if (Found == nullptr)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no device's primary context (the {} adapter works "
                "in primary contexts only)",
                Function, Native, Named.Label);
  if (!Context.Devices.empty() && (Context.Devices.size() != 1 || Context.Devices[0] != Found))
    return fail(PI_ERROR_INVALID_DEVICE,
                "{}: the primary context is device '{}''s alone; the devices given differ",
                Function, Found->Description.Name);
  Context.Devices = {Found};
  Context.Platform = Found->Platform;
  return createContext(Context, Impl);
}

pi_result StreamContext::adoptBuffer(const char *Function, uintptr_t Native, bool Owned,
                                     const core::UsmAllocationInfo *Usm, size_t &Size,
                                     std::unique_ptr<core::MemImpl> &Impl) {
  const void *Pointer = reinterpret_cast<const void *>(Native);
  PointerRange Range;
  if (Usm != nullptr) {
    Range.Base = Usm->Base;
    Range.Size = Usm->Size;
    Range.Memory = Usm->Kind == core::UsmKind::Host     ? PointerRange::Kind::Host
                   : Usm->Kind == core::UsmKind::Shared ? PointerRange::Kind::Managed
                                                        : PointerRange::Kind::Device;
    Range.Ordinal = Usm->Device != nullptr ? of(*Usm->Device).Ordinal : -1;
  } else if (Native == 0 || !driver().pointerRange(Pointer, Range)) {
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no memory the {} driver allocated (a buffer is a "
                "device address)",
                Function, Native, core::backend().label());
  }
  int Ordinal = first().Ordinal;
  if (Range.Memory == PointerRange::Kind::Device) {
    bool Ours = false;
    for (const auto &On : Devices)
      Ours = Ours || On->Ordinal == Range.Ordinal;
    if (!Ours)
      return fail(PI_ERROR_INVALID_CONTEXT,
                  "{}: native handle {:#x} is device memory of a device not in the context",
                  Function, Native);
    Ordinal = Range.Ordinal;
  }
  if (Owned && Range.Memory == PointerRange::Kind::Host)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: host memory is not handed over to a buffer: adopt it without ownership",
                Function);
  // The core checked that an owned pointer is its allocation's start (where it knew it).
  if (Owned && Range.Base != Pointer)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} lies inside an allocation: only its start can be "
                "handed over",
                Function, Native);
  Impl =
      std::make_unique<StreamMem>(Ordinal, const_cast<void *>(Pointer),
                                  Owned ? StreamMem::Owns::Allocation : StreamMem::Owns::Nothing);
  Size = static_cast<size_t>(static_cast<const char *>(Range.Base) + Range.Size -
                             static_cast<const char *>(Pointer));
  return PI_SUCCESS;
}

StreamContext::StreamContext(const std::vector<_pi_device *> &TheDevices) {
  Devices.reserve(TheDevices.size());
  for (_pi_device *Device : TheDevices)
    Devices.push_back(std::make_unique<ContextDevice>(*Device, streamDevice(*Device).Ordinal));
}

StreamContext::~StreamContext() {
  for (const auto &On : Devices) {
    if (driver().makeCurrent(On->Ordinal) != PI_SUCCESS)
      continue;
    for (Event E : On->FreeEvents)
      driver().destroyEvent(E);
  }
}

ContextDevice &StreamContext::of(const _pi_device &Device) const {
  for (const auto &On : Devices)
    if (&On->Device == &Device)
      return *On;
  return *Devices[0]; // unreachable: the core checks that Device is the context's
}

pi_result StreamContext::acquireEvent(ContextDevice &On, Event &Out) {
  {
    std::lock_guard<std::mutex> Lock(On.EventMutex);
    if (!On.FreeEvents.empty()) {
      Out = On.FreeEvents.back();
      On.FreeEvents.pop_back();
      return PI_SUCCESS;
    }
  }
  return driver().createEvent(Out);
}

void StreamContext::recycleEvent(ContextDevice &On, Event E) {
  std::lock_guard<std::mutex> Lock(On.EventMutex);
  On.FreeEvents.push_back(E);
}

pi_result StreamContext::createQueue(_pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) {
  ContextDevice &On = of(*Queue.Device);
  DGLINK_TRY(driver().makeCurrent(On.Ordinal));
  Stream S = nullptr;
  DGLINK_TRY(driver().createStream(S));
  std::unique_ptr<StreamQueue> Made;
  try {
    Made = std::make_unique<StreamQueue>(Queue, On, S);
  } catch (...) {
    driver().destroyStream(S);
    throw;
  }
  if ((Queue.Properties & PI_QUEUE_FLAG_PROFILING_ENABLE) != 0)
    DGLINK_TRY(Made->startClock()); // the queue's destructor frees the stream on failure
  Impl = std::move(Made);
  return PI_SUCCESS;
}

// The stream must belong to the primary context of a device of this context (the only
// driver contexts dglink works in); the device named, if any, must be that one. A
// driver that cannot say whose a stream is (HIP on AMD) takes the device named, or the
// context's only one.
pi_result StreamContext::adoptQueue(const char *Function, uintptr_t Native, bool Owned,
                                    _pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) {
  Driver &D = driver();
  const char *Label = streamBackend().label();
  ContextDevice *On = Queue.Device != nullptr ? &of(*Queue.Device)
                      : Devices.size() == 1   ? Devices[0].get()
                                              : nullptr;
  DGLINK_TRY(D.makeCurrent(On != nullptr ? On->Ordinal : first().Ordinal));
  const auto S = reinterpret_cast<Stream>(Native);
  int Ordinal = -1;
  bool Known = false;
  DGLINK_TRY(D.streamDevice(S, Ordinal, Known));
  if (Known) {
    ContextDevice *Owner = nullptr;
    for (const auto &Each : Devices)
      if (Each->Ordinal == Ordinal)
        Owner = Each.get();
    if (Owner == nullptr && Ordinal < 0)
      return fail(PI_ERROR_INVALID_CONTEXT,
                  "{}: the {} stream {:#x} belongs to a driver context that is no device's "
                  "primary context (dglink works in primary contexts only)",
                  Function, Label, Native);
    if (Owner == nullptr)
      return fail(PI_ERROR_INVALID_CONTEXT,
                  "{}: the {} stream {:#x} belongs to device {} of the driver, which is not in "
                  "the context",
                  Function, Label, Native, Ordinal);
    if (On != nullptr && On != Owner)
      return fail(PI_ERROR_INVALID_DEVICE,
                  "{}: the {} stream {:#x} belongs to device '{}', not to device '{}'", Function,
                  Label, Native, Owner->Device.Description.Name, On->Device.Description.Name);
    On = Owner;
  } else if (On == nullptr) {
    return fail(PI_ERROR_INVALID_DEVICE,
                "{}: the {} driver cannot tell which device the stream {:#x} belongs to, and "
                "the context has {} devices: name the device",
                Function, Label, Native, Devices.size());
  }
  DGLINK_TRY(D.makeCurrent(On->Ordinal));
  Queue.Device = &On->Device;
  Impl = std::make_unique<StreamQueue>(Queue, *On, S, Owned);
  return PI_SUCCESS;
}

pi_result StreamContext::adoptEvent(const char *Function, uintptr_t Native, bool Owned,
                                    std::unique_ptr<core::EventImpl> &Impl,
                                    uintptr_t &NativeQueue) {
  Driver &D = driver();
  DGLINK_TRY(D.makeCurrent(first().Ordinal));
  const auto E = reinterpret_cast<Event>(Native);
  bool Complete = false;
  if (D.query(E, Complete) != PI_SUCCESS)
    return fail(PI_ERROR_INVALID_VALUE, "{}: native handle {:#x} is no {} event ({})", Function,
                Native, streamBackend().label(), lastErrorMessage());
  // Waits and queries work in any device's context; the event is no device's to recycle.
  Impl = std::make_unique<StreamEvent>(first(), E, StreamEvent::Callers{Owned});
  NativeQueue = 0;
  return PI_SUCCESS;
}

pi_result StreamContext::createBuffer(size_t Size, const void *CopyFrom,
                                      std::unique_ptr<core::MemImpl> &Impl) {
  Driver &D = driver();
  const int Ordinal = first().Ordinal;
  DGLINK_TRY(D.makeCurrent(Ordinal));
  void *Pointer = nullptr;
  // A buffer is valid on every device of its context: with several, the driver's
  // managed memory moves it to the device that uses it.
  if (Devices.size() == 1)
    DGLINK_TRY(D.allocateDevice(Pointer, Size));
  else
    DGLINK_TRY(D.allocateShared(Pointer, Size));
  auto Made = std::make_unique<StreamMem>(Ordinal, Pointer); // frees it on failure
  if (CopyFrom != nullptr)
    DGLINK_TRY(D.copyToDeviceNow(Pointer, CopyFrom, Size));
  Impl = std::move(Made);
  return PI_SUCCESS;
}

// The caller's memory, registered with the driver: every device reaches the same bytes
// (no copy), so the host sees what kernels wrote once they completed.
pi_result StreamContext::createHostBuffer(pi_mem_flags, size_t Size, void *Host,
                                          std::unique_ptr<core::MemImpl> &Impl) {
  Driver &D = driver();
  const int Ordinal = first().Ordinal;
  DGLINK_TRY(D.makeCurrent(Ordinal));
  // Host USM the adapter pinned, or managed memory, is a device address already (unified
  // addressing), and the driver refuses to register pinned memory again: the buffer is
  // that memory.
  PointerRange Range;
  if (streamBackend().HostAllocations.contains(Host, Size) ||
      (D.pointerRange(Host, Range) && Range.Memory == PointerRange::Kind::Managed &&
       static_cast<char *>(Host) + Size <= static_cast<char *>(Range.Base) + Range.Size)) {
    Impl = std::make_unique<StreamMem>(Ordinal, Host, StreamMem::Owns::Nothing);
    return PI_SUCCESS;
  }
  void *Device = nullptr;
  const pi_result Result = D.registerHost(Host, Size, Device);
  if (Result == PI_ERROR_UNSUPPORTED_FEATURE)
    return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                "piMemBufferCreate: {} cannot register host memory (PI_MEM_FLAGS_HOST_PTR_USE)",
                streamBackend().label());
  DGLINK_TRY(Result);
  auto Made = std::make_unique<StreamMem>(Ordinal, Device, StreamMem::Owns::Registration);
  Made->Host = Host;
  Impl = std::move(Made);
  return PI_SUCCESS;
}

pi_result StreamContext::createSubBuffer(_pi_mem &Parent, pi_mem_flags, size_t Origin, size_t,
                                         std::unique_ptr<core::MemImpl> &Impl) {
  const auto &Whole = static_cast<const StreamMem &>(*Parent.Impl);
  Impl = std::make_unique<StreamMem>(Whole.Ordinal, static_cast<char *>(Whole.Pointer) + Origin,
                                     StreamMem::Owns::Nothing);
  return PI_SUCCESS;
}

StreamMem::~StreamMem() {
  if (Ownership == Owns::Nothing || driver().makeCurrent(Ordinal) != PI_SUCCESS)
    return;
  // The driver's free waits for work using the memory to finish.
  if (Ownership == Owns::Allocation)
    (void)driver().freeDevice(Pointer);
  else
    driver().unregisterHost(Host);
}

pi_result StreamContext::allocateUsm(core::UsmKind Kind, _pi_device *Device, size_t Size, pi_uint32,
                                     void *&Pointer) {
  Driver &D = driver();
  const int Ordinal = Device != nullptr ? of(*Device).Ordinal : first().Ordinal;
  DGLINK_TRY(D.makeCurrent(Ordinal));
  // The drivers align every allocation to at least the largest alignment accepted.
  void *Made = nullptr;
  switch (Kind) {
  case core::UsmKind::Device:
    DGLINK_TRY(D.allocateDevice(Made, Size));
    break;
  case core::UsmKind::Shared:
    DGLINK_TRY(D.allocateShared(Made, Size));
    break;
  case core::UsmKind::Host:
    DGLINK_TRY(D.allocateHost(Made, Size)); // portable: pinned for every device
    break;
  }
  StreamBackend &Backend = streamBackend();
  try {
    PinnedRanges &Ranges =
        Kind == core::UsmKind::Host ? Backend.HostAllocations : Backend.DeviceAllocations;
    Ranges.add(Made, Size);
    std::lock_guard<std::mutex> Lock(UsmMutex);
    UsmOwners.insert_or_assign(Made, Ordinal); // an address freed elsewhere may come back
  } catch (...) {
    if (Kind == core::UsmKind::Host) {
      (void)Backend.HostAllocations.remove(Made);
      (void)D.freeHost(Made);
    } else {
      (void)Backend.DeviceAllocations.remove(Made);
      (void)D.freeDevice(Made);
    }
    throw;
  }
  Pointer = Made;
  return PI_SUCCESS;
}

pi_result StreamContext::freeUsm(void *Pointer) {
  Driver &D = driver();
  int Ordinal = first().Ordinal;
  {
    // Another context's allocation is still the driver's to judge (as it was before
    // contexts kept their owners): freed in this context's first device.
    std::lock_guard<std::mutex> Lock(UsmMutex);
    if (auto Found = UsmOwners.find(Pointer); Found != UsmOwners.end()) {
      Ordinal = Found->second;
      UsmOwners.erase(Found);
    }
  }
  DGLINK_TRY(D.makeCurrent(Ordinal));
  StreamBackend &Backend = streamBackend();
  if (Backend.HostAllocations.remove(Pointer))
    return D.freeHost(Pointer);
  const bool Registered = Backend.DeviceAllocations.remove(Pointer);
  const pi_result Result = D.freeDevice(Pointer);
  if (Result != PI_SUCCESS && Registered)
    logger().warn("{}: freeing USM {} failed: {}", Backend.name(), fmt::ptr(Pointer),
                  lastErrorMessage());
  if (Result == PI_ERROR_INVALID_VALUE)
    return fail(PI_ERROR_INVALID_VALUE,
                "piextUSMFree: {} is not a USM allocation of the {} adapter", fmt::ptr(Pointer),
                Backend.label());
  return Result;
}

} // namespace dglink::stream
