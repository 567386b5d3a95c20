// A stream driver in host memory for the copy engine's tests: each stream runs its
// commands on a thread of its own, a little late, so that a copy engine that reuses
// staging memory before the "device" has read it, or returns before the bytes arrived,
// gets wrong bytes. Device memory is host memory; pinned memory is host memory the
// driver knows. Copies from pageable memory capture the bytes before returning and
// reads into pageable memory complete before returning, as CUDA's do.
#pragma once

#include <dglink/stream/driver.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace dglink::stream::testing {

class FakeDriver : public Driver {
public:
  FakeDriver();
  ~FakeDriver() override;

  bool open(std::string &) override { return true; }
  pi_result deviceCount(int &Count) override;
  pi_result driverVersion(std::string &Version) override;
  pi_result deviceInfo(int, DeviceInfo &Info) override;
  const char *vendor() const override { return "dglink tests"; }
  pi_uint32 vendorId() const override { return 0; }
  pi_result makeCurrent(int) override { return PI_SUCCESS; }

  pi_result createStream(Stream &Out) override;
  void destroyStream(Stream S) override;
  pi_result synchronize(Stream S) override;
  pi_result waitEvent(Stream S, Event E) override;
  pi_result createEvent(Event &Out) override;
  void destroyEvent(Event E) override;
  pi_result record(Event E, Stream S) override;
  pi_result synchronize(Event E) override;
  pi_result query(Event E, bool &Complete) override;

  pi_result allocateDevice(void *&Pointer, size_t Size) override;
  pi_result freeDevice(void *Pointer) override;
  pi_result allocateHost(void *&Pointer, size_t Size) override;
  pi_result freeHost(void *Pointer) override;
  pi_result allocateShared(void *&Pointer, size_t Size) override;
  bool knowsHostPointer(const void *Host) override;
  pi_result copy(void *Dst, const void *Src, size_t Size, Stream S) override;
  pi_result copyToDevice(void *Dst, const void *Src, size_t Size, Stream S) override;
  pi_result copyToHost(void *Dst, const void *Src, size_t Size, Stream S) override;
  pi_result copyToDeviceNow(void *Dst, const void *Src, size_t Size) override;
  pi_result fill(void *Dst, uint32_t Value, unsigned ElementSize, size_t Count, Stream S) override;

  pi_result loadModule(Module &, const void *, std::string &) override;
  void unloadModule(Module) override {}
  pi_result function(Module, const char *, FunctionHandle &, bool &Found) override;
  pi_result global(Module, const char *, void *&, size_t &, bool &Found) override;
  std::vector<std::string> kernelNames(Module) override { return {}; }
  int maxThreadsPerBlock(FunctionHandle) override { return 1; }
  bool parameterSizes(FunctionHandle, std::vector<size_t> &) override { return false; }
  size_t maxParameterBytes() const override { return 0; }
  pi_result launch(FunctionHandle, const unsigned[3], const unsigned[3], size_t, Stream,
                   void **) override;
  const char *target() const override { return "fake"; }
  const char *codeDescription() const override { return "none"; }
  bool detectCode(const void *, size_t, CodeKind &) override { return false; }
  std::vector<std::string> codeKernelNames(CodeKind, const std::vector<char> &) override {
    return {};
  }
  pi_result codeForLoad(CodeKind, const std::vector<char> &, const DeviceInfo &,
                        std::vector<char> &, std::string &) override;
  bool linkerAvailable(std::string *) override { return false; }
  pi_result link(const std::vector<LinkSource> &, const DeviceInfo &, std::vector<char> &,
                 CodeKind &, std::string &) override;

  // A driver that fails mid-copy: the next N calls of copyToDevice (or query) succeed,
  // the one after fails with PI_ERROR_OUT_OF_RESOURCES, and so does every later one
  // until the count is set to -1 again (the default: never fail).
  void failCopiesToDeviceAfter(int N) { CopiesBeforeFailure.store(N); }
  void failQueriesAfter(int N) { QueriesBeforeFailure.store(N); }

  // Bookkeeping the tests check: pinned bytes held now, and leaks at the end.
  size_t pinnedBytes();
  // Reads into pageable memory the driver was asked for (each completes before
  // returning, as CUDA's does).
  size_t pageableReads() const { return PageableReads.load(); }
  size_t liveEvents();
  size_t liveStreams();

  struct FakeStream;
  struct FakeEvent;

protected:
  // Runs Command on the stream's thread after what was enqueued before.
  void enqueue(Stream S, std::function<void()> Command);

private:
  // Whether this call of a failing kind fails (see failCopiesToDeviceAfter).
  static bool failsNow(std::atomic<int> &Before);
  std::atomic<int> CopiesBeforeFailure{-1};
  std::atomic<int> QueriesBeforeFailure{-1};
  FakeStream &stream(Stream S) { return *reinterpret_cast<FakeStream *>(S); }

  std::mutex Mutex;
  std::map<const char *, size_t> Pinned; // start -> size
  std::atomic<size_t> PageableReads{0};
  size_t Events = 0;
  size_t Streams = 0;
};

} // namespace dglink::stream::testing
