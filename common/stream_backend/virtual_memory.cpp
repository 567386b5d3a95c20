// Virtual memory of the stream backend (UR's urVirtualMem* / urPhysicalMem*): the
// driver's calls, with a device's primary context current, access given to every device
// of the context. The core checked the handles, the devices' support and the sizes.
#include <dglink/stream/backend.h>

#include <dglink/support/error.h>

namespace dglink::stream {

namespace {

// A driver without the call answers UNSUPPORTED_FEATURE with no message: give it one.
// Other failures carry the driver's message, which names its call.
pi_result named(pi_result Result, const char *Function) {
  if (Result == PI_ERROR_UNSUPPORTED_FEATURE)
    return fail(Result, "{}: the {} driver has no virtual memory call for it", Function,
                streamBackend().label());
  return Result;
}

VirtualAccess driverAccess(core::VirtualAccess Access) {
  switch (Access) {
  case core::VirtualAccess::ReadWrite:
    return VirtualAccess::ReadWrite;
  case core::VirtualAccess::ReadOnly:
    return VirtualAccess::ReadOnly;
  case core::VirtualAccess::None:
    break;
  }
  return VirtualAccess::None;
}

} // namespace

StreamPhysicalMem::~StreamPhysicalMem() { driver().releasePhysical(Handle); }

pi_result StreamContext::memoryGranularity(const char *Function, const _pi_device &Device,
                                           bool Recommended, size_t &Out) {
  const int Ordinal = of(Device).Ordinal;
  DGLINK_TRY(driver().makeCurrent(Ordinal));
  return named(driver().memoryGranularity(Ordinal, Recommended, Out), Function);
}

pi_result StreamContext::reserveAddresses(const char *Function, const void *Hint, size_t Size,
                                          void *&Start) {
  DGLINK_TRY(driver().makeCurrent(first().Ordinal));
  return named(driver().reserveAddresses(Hint, Size, Start), Function);
}

pi_result StreamContext::freeAddresses(const char *Function, const void *Start, size_t Size) {
  DGLINK_TRY(driver().makeCurrent(first().Ordinal));
  return named(driver().freeAddresses(Start, Size), Function);
}

pi_result StreamContext::createPhysicalMemory(const char *Function, _pi_device &Device, size_t Size,
                                              bool Shareable,
                                              std::unique_ptr<core::PhysicalMemImpl> &Impl) {
  const int Ordinal = of(Device).Ordinal;
  DGLINK_TRY(driver().makeCurrent(Ordinal));
  PhysicalHandle Handle = 0;
  DGLINK_TRY(named(driver().createPhysical(Ordinal, Size, Shareable, Handle), Function));
  try {
    Impl = std::make_unique<StreamPhysicalMem>(Handle);
  } catch (...) {
    driver().releasePhysical(Handle);
    throw;
  }
  return PI_SUCCESS;
}

pi_result StreamContext::mapAddresses(const char *Function, const void *Start, size_t Size,
                                      core::PhysicalMemImpl &Physical, size_t Offset) {
  DGLINK_TRY(driver().makeCurrent(first().Ordinal));
  return named(
      driver().mapAddresses(Start, Size, static_cast<StreamPhysicalMem &>(Physical).Handle, Offset),
      Function);
}

pi_result StreamContext::unmapAddresses(const char *Function, const void *Start, size_t Size) {
  DGLINK_TRY(driver().makeCurrent(first().Ordinal));
  return named(driver().unmapAddresses(Start, Size), Function);
}

pi_result StreamContext::setAccess(const char *Function, const void *Start, size_t Size,
                                   core::VirtualAccess Access) {
  std::vector<int> Ordinals;
  Ordinals.reserve(Devices.size());
  for (const auto &On : Devices)
    Ordinals.push_back(On->Ordinal);
  DGLINK_TRY(driver().makeCurrent(first().Ordinal));
  return named(driver().setAccess(Start, Size, Ordinals, driverAccess(Access)), Function);
}

pi_result StreamContext::access(const char *Function, const void *Start, core::VirtualAccess &Out) {
  DGLINK_TRY(driver().makeCurrent(first().Ordinal));
  VirtualAccess Access = VirtualAccess::None;
  DGLINK_TRY(named(driver().access(Start, first().Ordinal, Access), Function));
  Out = Access == VirtualAccess::ReadWrite  ? core::VirtualAccess::ReadWrite
        : Access == VirtualAccess::ReadOnly ? core::VirtualAccess::ReadOnly
                                            : core::VirtualAccess::None;
  return PI_SUCCESS;
}

} // namespace dglink::stream
