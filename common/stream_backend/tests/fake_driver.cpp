// The copy engine tests' driver: streams as threads over host memory (fake_driver.h).
#include "fake_driver.h"

#include <dglink/support/error.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace dglink::stream::testing {

struct FakeDriver::FakeStream {
  std::mutex Mutex;
  std::condition_variable Changed;
  std::deque<std::function<void()>> Commands;
  uint64_t Enqueued = 0;
  uint64_t Completed = 0;
  bool Stop = false;
  std::thread Runner;

  FakeStream() {
    Runner = std::thread([this] { run(); });
  }
  ~FakeStream() {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Stop = true;
    }
    Changed.notify_all();
    Runner.join();
  }
  void run() {
    unsigned Count = 0;
    for (;;) {
      std::function<void()> Command;
      {
        std::unique_lock<std::mutex> Lock(Mutex);
        Changed.wait(Lock, [&] { return Stop || !Commands.empty(); });
        if (Commands.empty())
          return;
        Command = std::move(Commands.front());
        Commands.pop_front();
      }
      // Late on purpose, now and then: the host runs ahead of the "device".
      if (++Count % 4 == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      Command();
      {
        std::lock_guard<std::mutex> Lock(Mutex);
        ++Completed;
      }
      Changed.notify_all();
    }
  }
  uint64_t push(std::function<void()> Command) {
    uint64_t Ticket = 0;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Commands.push_back(std::move(Command));
      Ticket = ++Enqueued;
    }
    Changed.notify_all();
    return Ticket;
  }
  void waitFor(uint64_t Ticket) {
    std::unique_lock<std::mutex> Lock(Mutex);
    Changed.wait(Lock, [&] { return Completed >= Ticket; });
  }
  bool reached(uint64_t Ticket) {
    std::lock_guard<std::mutex> Lock(Mutex);
    return Completed >= Ticket;
  }
  uint64_t tail() {
    std::lock_guard<std::mutex> Lock(Mutex);
    return Enqueued;
  }
};

struct FakeDriver::FakeEvent {
  std::mutex Mutex;
  FakeStream *On = nullptr;
  uint64_t Ticket = 0;
};

namespace {
FakeDriver::FakeEvent *fakeEvent(Event E) { return reinterpret_cast<FakeDriver::FakeEvent *>(E); }
} // namespace

FakeDriver::FakeDriver() = default;
FakeDriver::~FakeDriver() = default;

pi_result FakeDriver::deviceCount(int &Count) {
  Count = 1;
  return PI_SUCCESS;
}
pi_result FakeDriver::driverVersion(std::string &Version) {
  Version = "1.0";
  return PI_SUCCESS;
}
pi_result FakeDriver::deviceInfo(int, DeviceInfo &Info) {
  Info.Name = "fake";
  return PI_SUCCESS;
}

pi_result FakeDriver::createStream(Stream &Out) {
  Out = reinterpret_cast<Stream>(new FakeStream());
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Streams;
  return PI_SUCCESS;
}
void FakeDriver::destroyStream(Stream S) {
  delete &stream(S);
  std::lock_guard<std::mutex> Lock(Mutex);
  --Streams;
}
pi_result FakeDriver::synchronize(Stream S) {
  FakeStream &On = stream(S);
  On.waitFor(On.tail());
  return PI_SUCCESS;
}
pi_result FakeDriver::waitEvent(Stream S, Event E) {
  FakeEvent *Waited = fakeEvent(E);
  FakeStream *On = nullptr;
  uint64_t Ticket = 0;
  {
    std::lock_guard<std::mutex> Lock(Waited->Mutex);
    On = Waited->On;
    Ticket = Waited->Ticket;
  }
  if (On != nullptr)
    enqueue(S, [On, Ticket] { On->waitFor(Ticket); });
  return PI_SUCCESS;
}
pi_result FakeDriver::createEvent(Event &Out) {
  Out = reinterpret_cast<Event>(new FakeEvent());
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Events;
  return PI_SUCCESS;
}
void FakeDriver::destroyEvent(Event E) {
  delete fakeEvent(E);
  std::lock_guard<std::mutex> Lock(Mutex);
  --Events;
}
pi_result FakeDriver::record(Event E, Stream S) {
  FakeEvent *Recorded = fakeEvent(E);
  FakeStream &On = stream(S);
  std::lock_guard<std::mutex> Lock(Recorded->Mutex);
  Recorded->On = &On;
  Recorded->Ticket = On.tail();
  return PI_SUCCESS;
}
pi_result FakeDriver::synchronize(Event E) {
  FakeEvent *Waited = fakeEvent(E);
  FakeStream *On = nullptr;
  uint64_t Ticket = 0;
  {
    std::lock_guard<std::mutex> Lock(Waited->Mutex);
    On = Waited->On;
    Ticket = Waited->Ticket;
  }
  if (On != nullptr)
    On->waitFor(Ticket);
  return PI_SUCCESS;
}
bool FakeDriver::failsNow(std::atomic<int> &Before) {
  int Left = Before.load();
  while (Left > 0 && !Before.compare_exchange_weak(Left, Left - 1)) {
  }
  return Left == 0;
}

pi_result FakeDriver::query(Event E, bool &Complete) {
  if (failsNow(QueriesBeforeFailure))
    return PI_ERROR_OUT_OF_RESOURCES;
  FakeEvent *Asked = fakeEvent(E);
  std::lock_guard<std::mutex> Lock(Asked->Mutex);
  Complete = Asked->On == nullptr || Asked->On->reached(Asked->Ticket);
  return PI_SUCCESS;
}

pi_result FakeDriver::allocateDevice(void *&Pointer, size_t Size) {
  Pointer = std::malloc(Size);
  return Pointer != nullptr ? PI_SUCCESS : PI_ERROR_OUT_OF_RESOURCES;
}
pi_result FakeDriver::freeDevice(void *Pointer) {
  std::free(Pointer);
  return PI_SUCCESS;
}
pi_result FakeDriver::allocateHost(void *&Pointer, size_t Size) {
  Pointer = std::aligned_alloc(4096, (Size + 4095) & ~size_t(4095));
  if (Pointer == nullptr)
    return PI_ERROR_OUT_OF_HOST_MEMORY;
  std::lock_guard<std::mutex> Lock(Mutex);
  Pinned[static_cast<const char *>(Pointer)] = Size;
  return PI_SUCCESS;
}
pi_result FakeDriver::freeHost(void *Pointer) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Pinned.erase(static_cast<const char *>(Pointer)) == 0)
      return fail(PI_ERROR_INVALID_VALUE, "fake freeHost: {} is not pinned", Pointer);
  }
  std::free(Pointer);
  return PI_SUCCESS;
}
pi_result FakeDriver::allocateShared(void *&Pointer, size_t Size) {
  return allocateHost(Pointer, Size);
}
bool FakeDriver::knowsHostPointer(const void *Host) {
  const auto *Address = static_cast<const char *>(Host);
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Pinned.upper_bound(Address);
  if (It == Pinned.begin())
    return false;
  --It;
  return Address < It->first + It->second;
}
pi_result FakeDriver::copy(void *Dst, const void *Src, size_t Size, Stream S) {
  enqueue(S, [=] { std::memcpy(Dst, Src, Size); });
  return PI_SUCCESS;
}
pi_result FakeDriver::copyToDevice(void *Dst, const void *Src, size_t Size, Stream S) {
  if (failsNow(CopiesBeforeFailure))
    return PI_ERROR_OUT_OF_RESOURCES;
  if (knowsHostPointer(Src)) {
    enqueue(S, [=] { std::memcpy(Dst, Src, Size); });
    return PI_SUCCESS;
  }
  // Pageable: captured now, as the real drivers do.
  auto Captured = std::make_shared<std::vector<char>>(static_cast<const char *>(Src),
                                                      static_cast<const char *>(Src) + Size);
  enqueue(S, [=] { std::memcpy(Dst, Captured->data(), Size); });
  return PI_SUCCESS;
}
pi_result FakeDriver::copyToHost(void *Dst, const void *Src, size_t Size, Stream S) {
  enqueue(S, [=] { std::memcpy(Dst, Src, Size); });
  if (!knowsHostPointer(Dst)) { // into pageable memory: complete on return
    ++PageableReads;
    return synchronize(S);
  }
  return PI_SUCCESS;
}
pi_result FakeDriver::copyToDeviceNow(void *Dst, const void *Src, size_t Size) {
  std::memcpy(Dst, Src, Size);
  return PI_SUCCESS;
}
pi_result FakeDriver::fill(void *Dst, uint32_t Value, unsigned ElementSize, size_t Count,
                           Stream S) {
  enqueue(S, [=] {
    for (size_t I = 0; I < Count; ++I)
      std::memcpy(static_cast<char *>(Dst) + I * ElementSize, &Value, ElementSize);
  });
  return PI_SUCCESS;
}

pi_result FakeDriver::loadModule(Module &, const void *, std::string &) {
  return PI_ERROR_BUILD_PROGRAM_FAILURE;
}
pi_result FakeDriver::function(Module, const char *, FunctionHandle &, bool &Found) {
  Found = false;
  return PI_SUCCESS;
}
pi_result FakeDriver::global(Module, const char *, void *&, size_t &, bool &Found) {
  Found = false;
  return PI_SUCCESS;
}
pi_result FakeDriver::launch(FunctionHandle, const unsigned[3], const unsigned[3], size_t, Stream,
                             void **) {
  return PI_ERROR_INVALID_OPERATION;
}
pi_result FakeDriver::codeForLoad(CodeKind, const std::vector<char> &, const DeviceInfo &,
                                  std::vector<char> &, std::string &) {
  return PI_ERROR_INVALID_BINARY;
}
pi_result FakeDriver::link(const std::vector<LinkSource> &, const DeviceInfo &, std::vector<char> &,
                           CodeKind &, std::string &) {
  return PI_ERROR_LINKER_NOT_AVAILABLE;
}

void FakeDriver::enqueue(Stream S, std::function<void()> Command) {
  stream(S).push(std::move(Command));
}

size_t FakeDriver::pinnedBytes() {
  std::lock_guard<std::mutex> Lock(Mutex);
  size_t Total = 0;
  for (const auto &Entry : Pinned)
    Total += Entry.second;
  return Total;
}
size_t FakeDriver::liveEvents() {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Events;
}
size_t FakeDriver::liveStreams() {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Streams;
}

} // namespace dglink::stream::testing
