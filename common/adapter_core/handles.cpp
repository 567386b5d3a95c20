// Handle checks, reference counting and the quarantine of released handles; the
// test-only allocation-failure hook.
#include <dglink/core/backend.h>
#include <dglink/core/command_buffer.h>

#include <dglink/support/log.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <new>

namespace dglink::core {
namespace {

// A released handle keeps its memory (and its dispatch pointer, so that the
// dispatch layer still routes it here) for the next QuarantineSize releases: a
// call with it is refused as released. Older ones are freed; a handle used that
// long after its release may then read memory that has another use, as with any
// pointer handle (documented in docs/architecture.md).
constexpr size_t QuarantineSize = 4096;

struct Quarantined {
  HandleHeader *Handle;
  void (*Destroy)(HandleHeader *);
};

class Quarantine {
public:
  template <typename Handle> void add(Handle *H) {
    H->Tag.store(ReleasedTag | static_cast<uint32_t>(Handle::Kind), std::memory_order_release);
    Quarantined Oldest{nullptr, nullptr};
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Entries.push_back({H, [](HandleHeader *P) { delete static_cast<Handle *>(P); }});
      if (Entries.size() > QuarantineSize) {
        Oldest = Entries.front();
        Entries.pop_front();
      }
    }
    if (Oldest.Handle != nullptr)
      Oldest.Destroy(Oldest.Handle);
  }

private:
  std::mutex Mutex;
  std::deque<Quarantined> Entries;
};

Quarantine &quarantine() {
  static Quarantine *const Instance = new Quarantine(); // outlives late releases at exit
  return *Instance;
}

std::atomic<bool> FaultArmed{false};
thread_local unsigned FaultCountdown = 0;

template <typename Handle> bool dropReference(Handle *H) {
  return H->RefCount.fetch_sub(1, std::memory_order_acq_rel) == 1;
}

} // namespace

const char *kindName(HandleKind Kind) {
  switch (Kind) {
  case HandleKind::Platform:
    return "platform";
  case HandleKind::Device:
    return "device";
  case HandleKind::Context:
    return "context";
  case HandleKind::Queue:
    return "queue";
  case HandleKind::Mem:
    return "memory object";
  case HandleKind::Program:
    return "program";
  case HandleKind::Kernel:
    return "kernel";
  case HandleKind::Event:
    return "event";
  case HandleKind::CommandBuffer:
    return "command buffer";
  case HandleKind::UsmPool:
    return "USM pool";
  case HandleKind::PhysicalMem:
    return "physical memory object";
  case HandleKind::Command:
    return "command-buffer command";
  case HandleKind::Sampler:
    return "sampler";
  }
  return "handle";
}

const char *usmKindName(UsmKind Kind) {
  switch (Kind) {
  case UsmKind::Host:
    return "host";
  case UsmKind::Device:
    return "device";
  case UsmKind::Shared:
    return "shared";
  }
  return "unknown";
}

HandleState inspectHandle(const void *Handle, HandleKind Expected, HandleKind *Actual) {
  if (Handle == nullptr)
    return HandleState::Null;
  const auto *Header = static_cast<const HandleHeader *>(Handle);
  if (Header->Dispatch != FaceTable)
    return HandleState::Foreign;
  const uint32_t Tag = Header->Tag.load(std::memory_order_acquire);
  const uint32_t Kind = Tag & TagKindMask;
  if (Actual != nullptr)
    *Actual = static_cast<HandleKind>(Kind);
  const bool KnownKind = Kind >= static_cast<uint32_t>(HandleKind::Platform) &&
                         Kind <= static_cast<uint32_t>(HandleKind::Sampler);
  if ((Tag & ~TagKindMask) == LiveTag && KnownKind)
    return Kind == static_cast<uint32_t>(Expected) ? HandleState::Live : HandleState::OtherKind;
  if ((Tag & ~TagKindMask) == ReleasedTag && KnownKind)
    return Kind == static_cast<uint32_t>(Expected) ? HandleState::Released : HandleState::OtherKind;
  return HandleState::Foreign;
}

std::string describeHandle(HandleState State, HandleKind Expected, HandleKind Actual) {
  // "an event", "a queue"
  auto Named = [](HandleKind Kind) {
    const char *Name = kindName(Kind);
    return fmt::format("{} {}", std::strchr("aeiou", Name[0]) != nullptr ? "an" : "a", Name);
  };
  switch (State) {
  case HandleState::Null:
    return "null";
  case HandleState::Released:
    return fmt::format("{} that was released", Named(Expected));
  case HandleState::OtherKind:
    return fmt::format("{}, not {}", Named(Actual), Named(Expected));
  case HandleState::Foreign:
  case HandleState::Live:
    break;
  }
  return fmt::format("not a handle of the {} adapter", adapterLabel());
}

pi_result refuseHandle(HandleState State, HandleKind Expected, HandleKind Actual, pi_result Code,
                       const char *Function, const char *Argument) {
  if (State == HandleState::Live)
    return PI_SUCCESS;
  return fail(Code, "{}: argument '{}' is {}", Function, Argument,
              describeHandle(State, Expected, Actual));
}

void armAllocationFailure(unsigned N) {
  FaultCountdown = N;
  FaultArmed.store(N != 0, std::memory_order_relaxed);
}

void allocationPoint() {
  if (__builtin_expect(!FaultArmed.load(std::memory_order_relaxed), 1) || FaultCountdown == 0)
    return;
  if (--FaultCountdown == 0)
    throw std::bad_alloc();
}

template <typename Handle> std::unique_ptr<Handle> makeHandle() {
  allocationPoint();
  return std::make_unique<Handle>();
}
template std::unique_ptr<_pi_platform> makeHandle<_pi_platform>();
template std::unique_ptr<_pi_device> makeHandle<_pi_device>();
template std::unique_ptr<_pi_context> makeHandle<_pi_context>();
template std::unique_ptr<_pi_queue> makeHandle<_pi_queue>();
template std::unique_ptr<_pi_mem> makeHandle<_pi_mem>();
template std::unique_ptr<_pi_program> makeHandle<_pi_program>();
template std::unique_ptr<_pi_kernel> makeHandle<_pi_kernel>();
template std::unique_ptr<_pi_event> makeHandle<_pi_event>();
template std::unique_ptr<_pi_command_buffer> makeHandle<_pi_command_buffer>();
template std::unique_ptr<CommandHandle> makeHandle<CommandHandle>();
template std::unique_ptr<UsmPool> makeHandle<UsmPool>();
template std::unique_ptr<PhysicalMemory> makeHandle<PhysicalMemory>();
template std::unique_ptr<Sampler> makeHandle<Sampler>();

// Each release frees the backend part first (it may need its parents), then drops
// the references to the parents.
void release(_pi_context *Context) {
  if (!dropReference(Context))
    return;
  Context->Impl.reset();
  // The last reference is gone: no other thread adds a deleter now.
  for (const auto &[Deleter, Data] : Context->Deleters)
    Deleter(Data);
  quarantine().add(Context);
}

void release(_pi_queue *Queue) {
  if (!dropReference(Queue))
    return;
  {
    const std::lock_guard<std::mutex> Lock(Queue->Context->QueuesMutex);
    Queue->Context->Queues.erase(Queue);
  }
  Queue->Impl.reset();
  release(Queue->Context);
  quarantine().add(Queue);
}

void release(_pi_mem *Mem) {
  if (!dropReference(Mem))
    return;
  dropMappings(*Mem);
  Mem->Impl.reset(); // a sub-buffer's view goes before its parent
  if (Mem->Parent != nullptr)
    release(Mem->Parent);
  release(Mem->Context);
  quarantine().add(Mem);
}

void release(_pi_program *Program) {
  if (!dropReference(Program))
    return;
  Program->Impl.reset();
  release(Program->Context);
  quarantine().add(Program);
}

void release(_pi_kernel *Kernel) {
  if (!dropReference(Kernel))
    return;
  Kernel->Impl.reset();
  release(Kernel->Program);
  quarantine().add(Kernel);
}

void release(_pi_event *Event) {
  if (!dropReference(Event))
    return;
  Event->Impl.reset();
  if (Event->Queue != nullptr)
    release(Event->Queue);
  else
    release(Event->Context); // an event made from a native handle
  quarantine().add(Event);
}

// Waits for the command buffer's last submission (UR's release blocks on it), then
// frees its commands and what they hold.
void release(_pi_command_buffer *CommandBuffer) {
  if (!dropReference(CommandBuffer))
    return;
  dropCommands(*CommandBuffer);
  release(CommandBuffer->Context);
  quarantine().add(CommandBuffer);
}

void release(CommandHandle *Handle) {
  if (!dropReference(Handle))
    return;
  quarantine().add(Handle);
}

void release(UsmPool *Pool) {
  if (!dropReference(Pool))
    return;
  dropUsmPoolMemory(*Pool);
  release(Pool->Context);
  quarantine().add(Pool);
}

void release(PhysicalMemory *Physical) {
  if (!dropReference(Physical))
    return;
  Physical->Impl.reset(); // the driver frees the memory once no range maps it
  release(Physical->Context);
  quarantine().add(Physical);
}

void release(Sampler *TheSampler) {
  if (!dropReference(TheSampler))
    return;
  TheSampler->Impl.reset();
  release(TheSampler->Context);
  quarantine().add(TheSampler);
}

BackendObject::~BackendObject() = default;
bool BackendObject::nativeHandle(uintptr_t & /*Handle*/) const { return false; }
PlatformImpl::~PlatformImpl() = default;
DeviceImpl::~DeviceImpl() = default;
ContextImpl::~ContextImpl() = default;
QueueImpl::~QueueImpl() = default;

// A marker completes after everything enqueued before it: complete now means empty.
pi_result QueueImpl::empty(bool &Empty) {
  std::unique_ptr<EventImpl> Marker;
  Enqueue Request;
  Request.Out = &Marker;
  DGLINK_TRY(marker(false, Request));
  pi_int32 Status = PI_EVENT_SUBMITTED;
  DGLINK_TRY(Marker->status(Status));
  Empty = Status == PI_EVENT_COMPLETE;
  return PI_SUCCESS;
}
MemImpl::~MemImpl() = default;
ProgramImpl::~ProgramImpl() = default;

pi_result ProgramImpl::completeMetadata(const char * /*Function*/,
                                        dglink::ImageMetadata & /*Metadata*/) {
  return PI_SUCCESS;
}

pi_result ProgramImpl::binaries(const _pi_program &Program,
                                std::vector<std::vector<uint8_t>> &Out) {
  Out.assign(Program.Devices.size(), Program.Binary);
  return PI_SUCCESS;
}
KernelImpl::~KernelImpl() = default;
EventImpl::~EventImpl() = default;
Backend::~Backend() = default;

Backend &backend() {
  // Made once and never destroyed: a runtime may call in while the process exits.
  static Backend *const Instance = makeBackend().release();
  return *Instance;
}

const char *adapterLabel() { return backend().label(); }

pi_result unknownKernel(const char *Name, const _pi_program &Program) {
  return fail(PI_ERROR_INVALID_KERNEL_NAME, "piKernelCreate: kernel '{}' is not in program {}",
              clip(Name), fmt::ptr(&Program));
}

} // namespace dglink::core

bool _pi_context::hasDevice(const _pi_device *Device) const {
  return std::find(Devices.begin(), Devices.end(), Device) != Devices.end();
}

bool _pi_program::hasDevice(const _pi_device *Device) const {
  return std::find(Devices.begin(), Devices.end(), Device) != Devices.end();
}
