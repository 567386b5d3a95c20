// The copy engine and its host threads on the CPU: every size and alignment, heads and
// tails of streamed copies, many threads on many queues, teardown with copies in
// flight, and the knobs' parsing; over a driver whose streams run late (fake_driver.h).
#include "fake_driver.h"

#include <dglink/host_copy/host_copy.h>
#include <dglink/stream/copy_engine.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using dglink::host_copy::CopyTuning;
using dglink::host_copy::HostCopyPool;
using dglink::stream::CopyEngine;
using dglink::stream::HostMemory;
using dglink::stream::Stream;
using dglink::stream::testing::FakeDriver;

std::vector<unsigned char> pattern(size_t Size, unsigned Seed) {
  std::vector<unsigned char> Bytes(Size);
  std::mt19937 Random(Seed);
  for (unsigned char &Byte : Bytes)
    Byte = static_cast<unsigned char>(Random());
  return Bytes;
}

// Copies Count bytes to Dst + DstShift from Src + SrcShift with Copy and checks every
// byte, and that nothing around the destination changed.
template <typename CopyFunction>
void checkCopy(size_t Count, size_t DstShift, size_t SrcShift, CopyFunction &&Copy) {
  constexpr size_t Guard = 80;
  const std::vector<unsigned char> Source = pattern(Count + SrcShift, static_cast<unsigned>(Count));
  std::vector<unsigned char> Target(Count + DstShift + 2 * Guard, 0xA5);
  Copy(Target.data() + Guard + DstShift, Source.data() + SrcShift, Count);
  for (size_t I = 0; I < Guard + DstShift; ++I)
    ASSERT_EQ(Target[I], 0xA5) << "wrote before the destination: " << Count << " bytes";
  if (Count != 0) { // memcmp's pointers must be valid even for 0 bytes
    ASSERT_EQ(std::memcmp(Target.data() + Guard + DstShift, Source.data() + SrcShift, Count), 0)
        << Count << " bytes, destination +" << DstShift << ", source +" << SrcShift;
  }
  for (size_t I = Guard + DstShift + Count; I < Target.size(); ++I)
    ASSERT_EQ(Target[I], 0xA5) << "wrote past the destination: " << Count << " bytes";
}

TEST(CopyNonTemporal, EverySizeAndAlignment) {
  for (size_t Count = 0; Count <= 700; ++Count)
    for (size_t DstShift : {0, 1, 7, 16, 31, 33, 63})
      checkCopy(Count, DstShift, (Count * 7) % 64, [](void *D, const void *S, size_t N) {
        dglink::host_copy::copyNonTemporal(D, S, N);
      });
  for (size_t Count : {4096U, 65535U, 65536U, 65537U, 1000003U})
    for (size_t DstShift : {0, 5, 32})
      checkCopy(Count, DstShift, 3, [](void *D, const void *S, size_t N) {
        dglink::host_copy::copyNonTemporal(D, S, N);
      });
  EXPECT_NE(std::string(dglink::host_copy::nonTemporalKind()), "");
}

TEST(HostCopyPool, SplitsEverySizeAndAlignment) {
  for (unsigned Threads : {1U, 3U, 8U}) {
    HostCopyPool Pool(Threads, 20);
    for (bool Streaming : {false, true})
      for (unsigned Most : {0U, 2U}) // all the pool's threads, or at most two
        for (size_t Count : {0U, 1U, 63U, 64U, 65U, 1000U, 4095U, 4097U, 65536U, 65599U, 300001U,
                             (1U << 20) + 13U})
          for (size_t DstShift : {0, 1, 62})
            checkCopy(Count, DstShift, 5, [&](void *D, const void *S, size_t N) {
              Pool.copy(D, S, N, 1024, Streaming, Most);
            });
  }
}

TEST(HostCopyPool, StartsWorkersOnlyForLargeCopiesAndJoinsThem) {
  HostCopyPool Pool(4, 10);
  std::vector<char> Source(1 << 16, 'x'), Target(1 << 16);
  Pool.copy(Target.data(), Source.data(), 4096, 16384, true); // one piece: the caller alone
  EXPECT_EQ(Pool.runningWorkers(), 0U);
  Pool.copy(Target.data(), Source.data(), Target.size(), 4096, true);
  EXPECT_EQ(Pool.runningWorkers(), 3U);
  Pool.stop();
  EXPECT_EQ(Pool.runningWorkers(), 0U);
  Target.assign(Target.size(), 0);
  Pool.copy(Target.data(), Source.data(), Target.size(), 4096, false); // starts again
  EXPECT_EQ(Pool.runningWorkers(), 3U);
  EXPECT_EQ(Target, Source);
  // Workers asleep (spin over) still take the next job.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Target.assign(Target.size(), 0);
  Pool.copy(Target.data(), Source.data(), Target.size(), 4096, true);
  EXPECT_EQ(Target, Source);
}

TEST(HostCopyPool, ManyCallersShareTheWorkers) {
  HostCopyPool Pool(4, 50);
  std::vector<std::thread> Callers;
  std::atomic<int> Wrong{0};
  // More callers than the pool has job slots (8): the others copy alone.
  for (unsigned T = 0; T < 12; ++T)
    Callers.emplace_back([&, T] {
      const std::vector<unsigned char> Source = pattern(200000 + T * 977, T);
      std::vector<unsigned char> Target(Source.size());
      for (int Round = 0; Round < 30; ++Round) {
        std::fill(Target.begin(), Target.end(), 0);
        Pool.copy(Target.data(), Source.data(), Source.size(), 8192, Round % 2 == 0);
        if (Target != Source)
          ++Wrong;
      }
    });
  for (std::thread &T : Callers)
    T.join();
  EXPECT_EQ(Wrong.load(), 0);
}

TEST(HostCopyPool, DestroyedWhileWorkersSpinOrSleep) {
  for (unsigned Spin : {0U, 1000U}) {
    auto Pool = std::make_unique<HostCopyPool>(6, Spin);
    std::vector<char> Source(1 << 18, 'y'), Target(1 << 18);
    Pool->copy(Target.data(), Source.data(), Target.size(), 4096, true);
    Pool.reset(); // joins, whatever the workers are doing
  }
}

// A paced copy copies a piece only once its source is ready: the source is written here
// only as Progress opens it (a DMA landing), so a piece copied early would copy stale
// bytes. Progress's Copied must grow, every byte below it must already be in place, and
// its last call must say Count.
TEST(HostCopyPool, PacedCopyWaitsForTheSourceAndReportsWhatIsCopied) {
  for (unsigned Threads : {1U, 4U, 9U})
    for (size_t Count : {1U, 64U, 1000U, 65536U, 300001U, (2U << 20) + 13U})
      for (size_t Step : {size_t{4096}, size_t{65536}, size_t{1} << 20})
        for (bool Streaming : {false, true}) {
          HostCopyPool Pool(Threads, 20);
          const std::vector<unsigned char> Final = pattern(Count, static_cast<unsigned>(Count));
          std::vector<unsigned char> Source(Count, 0xEE), Target(Count + 1, 0);
          size_t Opened = 0, LastCopied = 0, Calls = 0;
          bool Ordered = true, InPlace = true, OnCaller = true;
          const std::thread::id Caller = std::this_thread::get_id();
          Pool.copyPaced(Target.data() + 1, Source.data(), Count, 1024, Streaming, 0,
                         [&](size_t Copied) {
                           ++Calls;
                           OnCaller = OnCaller && std::this_thread::get_id() == Caller;
                           Ordered = Ordered && Copied >= LastCopied && Copied <= Count;
                           LastCopied = Copied;
                           InPlace = InPlace && std::memcmp(Target.data() + 1, Final.data(),
                                                            std::min(Copied, Count)) == 0;
                           // Open one more step of the source each call.
                           const size_t Now = std::min(Opened + Step, Count);
                           std::memcpy(Source.data() + Opened, Final.data() + Opened, Now - Opened);
                           Opened = Now;
                           return Opened;
                         });
          ASSERT_TRUE(OnCaller) << "Progress ran on a helper";
          ASSERT_TRUE(Ordered) << Count << " bytes: Copied went back or past the end";
          ASSERT_TRUE(InPlace) << Count << " bytes: Copied named bytes not yet copied";
          ASSERT_EQ(LastCopied, Count) << "the last call did not say everything was copied";
          ASSERT_GE(Calls, 2U);
          ASSERT_EQ(std::memcmp(Target.data() + 1, Final.data(), Count), 0)
              << Count << " bytes, " << Threads << " threads, steps of " << Step
              << ": a piece was copied before its source was ready";
          ASSERT_EQ(Target[0], 0) << "wrote before the destination";
        }
}

// Stop ends a paced copy: nothing past what was opened is copied, every helper is out
// when the call returns (the buffers die right after), and the pool copies on.
TEST(HostCopyPool, PacedCopyStoppedCopiesNothingPastTheReadyBytes) {
  HostCopyPool Pool(6, 20);
  constexpr size_t Count = size_t{1} << 20;
  const std::vector<unsigned char> Source = pattern(Count, 3);
  for (size_t Opened : {size_t{0}, size_t{65536}, size_t{300000}}) {
    auto Target = std::make_unique<std::vector<unsigned char>>(Count, 0xA5);
    int Calls = 0;
    bool Untouched = true;
    Pool.copyPaced(Target->data(), Source.data(), Count, 4096, false, 0, [&](size_t) {
      // Helpers get time to run ahead if they would; nothing past Opened may change.
      if (Calls % 10 == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      for (size_t I = Opened; I < Count && Untouched; I += 997)
        Untouched = (*Target)[I] == 0xA5;
      return ++Calls < 50 ? Opened : HostCopyPool::Stop;
    });
    EXPECT_TRUE(Untouched) << "a piece past the " << Opened << " ready bytes was copied";
    EXPECT_EQ(Calls, 50); // asked on every turn while the source is not all there
    for (size_t I = Opened; I < Count; ++I)
      ASSERT_EQ((*Target)[I], 0xA5)
          << "byte " << I << " copied though only " << Opened << " were ready";
    for (size_t I = 0; I < Opened; ++I) // copied, or left as it was once the copy stopped
      ASSERT_TRUE((*Target)[I] == Source[I] || (*Target)[I] == 0xA5) << "byte " << I;
    Target.reset();
  }
  std::vector<unsigned char> Again(Count, 0);
  Pool.copy(Again.data(), Source.data(), Count, 4096, true);
  EXPECT_EQ(Again, Source);
  // Stopped before anything: no piece, no helper.
  EXPECT_EQ(Pool.copyPaced(Again.data(), Source.data(), Count, 4096, false, 0,
                           [](size_t) { return HostCopyPool::Stop; }),
            0U);
}

// A paced copy of the most pieces (four full words of copied bits), and one whose
// Progress throws: the exception reaches the caller once no helper touches the job.
TEST(HostCopyPool, PacedCopyOfTheMostPiecesAndAThrowingProgress) {
  HostCopyPool Pool(5, 20);
  const size_t Count = HostCopyPool::MaxPacedPieces * 1024;
  const std::vector<unsigned char> Source = pattern(Count, 5);
  std::vector<unsigned char> Target(Count, 0);
  size_t LastCopied = 0;
  Pool.copyPaced(Target.data(), Source.data(), Count, 1024, true, 0, [&](size_t Copied) {
    LastCopied = Copied;
    return Count;
  });
  EXPECT_EQ(LastCopied, Count);
  EXPECT_EQ(Target, Source);
  for (int Round = 0; Round < 20; ++Round) {
    auto Into = std::make_unique<std::vector<unsigned char>>(Count, 0);
    int Calls = 0;
    EXPECT_THROW(Pool.copyPaced(Into->data(), Source.data(), Count, 1024, false, 0,
                                [&](size_t) -> size_t {
                                  if (++Calls == 3)
                                    throw std::runtime_error("the source went away");
                                  return Count / 4;
                                }),
                 std::runtime_error);
    Into.reset(); // no helper may write into it now
  }
  std::fill(Target.begin(), Target.end(), 0);
  Pool.copy(Target.data(), Source.data(), Count, 4096, false);
  EXPECT_EQ(Target, Source);
}

// Paced and plain copies from many threads at once share the workers.
TEST(HostCopyPool, PacedAndPlainCopiesFromManyThreads) {
  HostCopyPool Pool(5, 50);
  std::atomic<int> Wrong{0};
  std::vector<std::thread> Callers;
  for (unsigned T = 0; T < 8; ++T)
    Callers.emplace_back([&, T] {
      const std::vector<unsigned char> Source = pattern(250000 + T * 4099, T);
      std::vector<unsigned char> Target(Source.size());
      for (int Round = 0; Round < 20; ++Round) {
        std::fill(Target.begin(), Target.end(), 0);
        if ((Round + T) % 2 == 0) {
          size_t Opened = 0;
          Pool.copyPaced(Target.data(), Source.data(), Source.size(), 2048, Round % 3 == 0, 0,
                         [&](size_t) { return Opened += 20000; });
        } else {
          Pool.copy(Target.data(), Source.data(), Source.size(), 8192, Round % 3 == 0);
        }
        if (Target != Source)
          ++Wrong;
      }
    });
  for (std::thread &T : Callers)
    T.join();
  EXPECT_EQ(Wrong.load(), 0);
}

TEST(HostCopyPool, FairShare) {
  // Alone: what the copy wants, the pool permitting.
  EXPECT_EQ(HostCopyPool::fairShare(15, 63, 1), 14U);
  EXPECT_EQ(HostCopyPool::fairShare(8, 63, 1), 7U);
  EXPECT_EQ(HostCopyPool::fairShare(15, 8, 1), 7U);
  // Four callers of a 63-thread pool: 15 threads each, their own included.
  EXPECT_EQ(HostCopyPool::fairShare(15, 63, 4), 14U);
  EXPECT_EQ(HostCopyPool::fairShare(15, 63, 8), 6U);
  // More callers than threads: each copies alone.
  EXPECT_EQ(HostCopyPool::fairShare(15, 15, 16), 0U);
  EXPECT_EQ(HostCopyPool::fairShare(15, 15, 0), 14U);
  EXPECT_EQ(HostCopyPool::fairShare(1, 63, 1), 0U);
}

TEST(HostCopyPool, HandsTheJobToIdleWorkersUpToItsShare) {
  HostCopyPool Pool(13, 1000); // 12 workers
  const std::vector<unsigned char> Source = pattern(1 << 20, 7);
  std::vector<unsigned char> Target(Source.size());
  // Alone: as many helpers as the copy wants (MaxThreads 8: 7), or the pool has.
  EXPECT_EQ(Pool.copy(Target.data(), Source.data(), Source.size(), 4096, true, 8), 7U);
  EXPECT_EQ(Target, Source);
  EXPECT_EQ(Pool.copy(Target.data(), Source.data(), Source.size(), 4096, false), 12U);
  EXPECT_EQ(Target, Source);
  EXPECT_EQ(Pool.callers(), 0U);
  // Beside a long copy (1 helper of 12), a second caller takes half the pool's 13
  // threads, its own place included: 5 helpers.
  const std::vector<unsigned char> LongSource(size_t{64} << 20, 0x5A);
  std::vector<unsigned char> LongTarget(LongSource.size());
  for (int Attempt = 0;; ++Attempt) {
    ASSERT_LT(Attempt, 20) << "the long copy never overlapped the short one";
    std::atomic<bool> LongDone{false};
    std::thread Long([&] {
      Pool.copy(LongTarget.data(), LongSource.data(), LongSource.size(), 4096, false, 2);
      LongDone = true;
    });
    while (Pool.callers() == 0 && !LongDone)
      std::this_thread::yield();
    std::fill(Target.begin(), Target.end(), 0);
    const bool Before = !LongDone;
    const unsigned Helpers = Pool.copy(Target.data(), Source.data(), Source.size(), 4096, true);
    const bool Overlapped = Before && !LongDone;
    Long.join();
    EXPECT_EQ(Target, Source);
    EXPECT_EQ(LongTarget, LongSource);
    if (!Overlapped)
      continue;
    EXPECT_EQ(Helpers, 5U);
    break;
  }
}

TEST(HostCopyPool, ThreadsThatCopyInTurnsShareThePoolEvenly) {
  // 12 workers, a window of 10 s (longer than the test). Two threads that copy one after
  // the other, never at once: without the window the second found itself alone and took
  // as many helpers as the first; with it, each copy after both were seen counts two
  // callers and takes half the pool.
  HostCopyPool Pool(13, 1000, 10'000'000);
  const std::vector<unsigned char> Source = pattern(1 << 20, 9);
  EXPECT_EQ(Pool.recentCallers(), 0U);
  auto CopyOnce = [&] {
    std::vector<unsigned char> Target(Source.size());
    const unsigned Helpers =
        Pool.copy(Target.data(), Source.data(), Source.size(), 4096, false, 13);
    EXPECT_EQ(Target, Source);
    return Helpers;
  };
  EXPECT_EQ(CopyOnce(), 12U); // alone: the whole pool
  EXPECT_EQ(Pool.recentCallers(), 1U);
  unsigned Other = 0;
  std::thread([&] { Other = CopyOnce(); }).join();
  EXPECT_LE(Other, 5U); // 13 / 2 = 6 threads, its own included
  EXPECT_EQ(Pool.recentCallers(), 2U);
  EXPECT_LE(CopyOnce(), 5U);
  // Without a window the same turns each take the whole pool.
  HostCopyPool Instant(13, 1000);
  std::vector<unsigned char> Target(Source.size());
  EXPECT_EQ(Instant.copy(Target.data(), Source.data(), Source.size(), 4096, false, 13), 12U);
  std::thread([&] {
    std::vector<unsigned char> Mine(Source.size());
    Other = Instant.copy(Mine.data(), Source.data(), Source.size(), 4096, false, 13);
  }).join();
  EXPECT_EQ(Other, 12U);
  EXPECT_EQ(Instant.recentCallers(), 0U);
}

TEST(HostCopyPool, TheShareWindowForgetsThreadsThatStopped) {
  // A window of 100 ms: a thread that copied once is counted for at most two windows.
  HostCopyPool Pool(13, 1000, 100'000);
  const std::vector<unsigned char> Source = pattern(1 << 20, 11);
  std::vector<unsigned char> Target(Source.size());
  std::thread([&] {
    std::vector<unsigned char> Mine(Source.size());
    Pool.copy(Mine.data(), Source.data(), Source.size(), 4096, false, 13);
  }).join();
  EXPECT_GE(Pool.recentCallers(), 1U);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(Pool.recentCallers(), 0U);
  EXPECT_EQ(Pool.copy(Target.data(), Source.data(), Source.size(), 4096, false, 13), 12U);
  EXPECT_EQ(Target, Source);
}

TEST(HostCopyPool, ManyCallersOfALargePoolTakeTheirShare) {
  // More threads than this host has cores, six callers at once.
  constexpr unsigned PoolThreads = 40;
  constexpr unsigned CallerCount = 6;
  HostCopyPool Pool(PoolThreads, 50);
  std::vector<std::thread> Callers;
  std::atomic<int> Wrong{0};
  std::atomic<unsigned> MostHelpers{0};
  std::atomic<unsigned> Handed{0};
  for (unsigned T = 0; T < CallerCount; ++T)
    Callers.emplace_back([&, T] {
      const std::vector<unsigned char> Source = pattern((1 << 20) + T * 4099, T + 100);
      std::vector<unsigned char> Target(Source.size());
      for (int Round = 0; Round < 40; ++Round) {
        std::fill(Target.begin(), Target.end(), 0);
        // Reads take up to 15 threads, writes 8, as the engine asks.
        const bool Read = (Round + T) % 2 == 0;
        const unsigned Helpers = Pool.copy(Target.data() + T % 3, Source.data(), Source.size() - 3,
                                           16384, !Read, Read ? 15 : 8);
        if (std::memcmp(Target.data() + T % 3, Source.data(), Source.size() - 3) != 0)
          ++Wrong;
        Handed += Helpers;
        unsigned Seen = MostHelpers.load();
        while (Helpers > Seen && !MostHelpers.compare_exchange_weak(Seen, Helpers)) {
        }
      }
    });
  for (std::thread &T : Callers)
    T.join();
  EXPECT_EQ(Wrong.load(), 0);
  EXPECT_LE(MostHelpers.load(), 14U); // never more than a read asks for
  EXPECT_GT(Handed.load(), 0U);
  EXPECT_EQ(Pool.callers(), 0U);
  EXPECT_EQ(Pool.runningWorkers(), PoolThreads - 1);
}

TEST(HostCopyPool, HeavyUseThenDestruction) {
  for (unsigned Spin : {0U, 200U}) {
    auto Pool = std::make_unique<HostCopyPool>(24, Spin);
    std::vector<std::thread> Callers;
    for (unsigned T = 0; T < 4; ++T)
      Callers.emplace_back([&, T] {
        std::vector<char> Source(300000 + T * 64, static_cast<char>('a' + T)),
            Target(Source.size());
        for (int Round = 0; Round < 25; ++Round)
          Pool->copy(Target.data(), Source.data(), Source.size(), 4096, Round % 2 == 0);
        EXPECT_EQ(Target, Source);
      });
    for (std::thread &T : Callers)
      T.join();
    Pool.reset(); // at once, some workers still holding the last jobs' ends
  }
}

// The tunings the engine tests run under: the defaults with threads, one thread, and
// small chunks and limits that make every slot and block be reused.
std::vector<CopyTuning> tunings() {
  CopyTuning Threaded;
  Threaded.Threads = 4;
  Threaded.ReadThreads = 6; // reads and writes use different numbers of the pool's threads
  Threaded.SpinMicroseconds = 20;
  CopyTuning OneThread = Threaded;
  OneThread.Threads = 1;
  OneThread.ReadThreads = 1;
  CopyTuning Tight = Threaded;
  Tight.ParallelBytes = 4096;
  Tight.PieceBytes = 1024;
  Tight.WriteChunkBytes = 8192;
  Tight.ReadChunkBytes = 4096;
  Tight.StagingLimitBytes = 65536;
  Tight.SmallBytes = 1024;
  Tight.ChunkBytes = 8192;
  Tight.MinChunkBytes = 4096;
  Tight.RingBytes = 8192;
  Tight.RingSegments = 2;
  CopyTuning Plain = Tight;
  Plain.NonTemporal = false;
  Plain.ReadNonTemporal = false;
  Plain.SmallWriteFill = false;
  Plain.AsyncRing = false;
  Plain.StagedNonBlockingReads = false;
  CopyTuning Unpaced = Tight; // the threads stopped after every chunk
  Unpaced.Paced = false;
  return {Threaded, OneThread, Tight, Plain, Unpaced};
}

class Engine : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(Driver.allocateDevice(Device, DeviceBytes), PI_SUCCESS);
    std::memset(Device, 0, DeviceBytes);
  }
  void TearDown() override {
    Driver.freeDevice(Device);
    EXPECT_EQ(Driver.pinnedBytes(), 0U) << "pinned memory left behind";
    EXPECT_EQ(Driver.liveEvents(), 0U) << "events left behind";
  }
  static constexpr size_t DeviceBytes = (size_t{5} << 20) + 4096;
  FakeDriver Driver;
  void *Device = nullptr;
};

TEST_F(Engine, EverySizeOffsetAndPathRoundTrips) {
  const size_t Sizes[] = {1,      2,    3,    4,     5,     63,    64,     1000,
                          4095,   4096, 4097, 65535, 65536, 65537, 200003, (1 << 20) + 13,
                          4 << 20};
  for (const CopyTuning &Tuning : tunings()) {
    HostCopyPool Pool(Tuning.poolThreads(), Tuning.SpinMicroseconds);
    CopyEngine Copies(Pool, Tuning);
    Stream S = nullptr;
    ASSERT_EQ(Driver.createStream(S), PI_SUCCESS);
    dglink::stream::Event Done = nullptr;
    ASSERT_EQ(Driver.createEvent(Done), PI_SUCCESS);
    const size_t DriverReadsBefore = Driver.pageableReads();
    char *Base = static_cast<char *>(Device);
    for (size_t Size : Sizes)
      for (size_t Offset : {size_t{0}, size_t{4}, size_t{4093}}) {
        const std::vector<unsigned char> Source = pattern(Size + 1, static_cast<unsigned>(Size));
        std::vector<unsigned char> Copy(Source.begin() + 1, Source.end()); // odd address
        ASSERT_EQ(Copies.write(Driver, S, Base + Offset, Copy.data(), Size, true, nullptr),
                  PI_SUCCESS);
        ASSERT_EQ(std::memcmp(Base + Offset, Copy.data(), Size), 0)
            << "blocking write of " << Size << " at " << Offset << " not on the device on return";
        std::vector<unsigned char> Back(Size + 3, 0);
        ASSERT_EQ(Copies.read(Driver, S, Back.data() + 3, Base + Offset, Size, true, nullptr),
                  PI_SUCCESS);
        ASSERT_EQ(std::memcmp(Back.data() + 3, Copy.data(), Size), 0)
            << "blocking read of " << Size << " at " << Offset;
        // Not blocking, into pageable memory: filled when the call returns (staged by the
        // engine, or by the driver, whose pageable reads complete before returning), and
        // its event completes.
        std::fill(Back.begin(), Back.end(), 0);
        ASSERT_EQ(Copies.read(Driver, S, Back.data() + 3, Base + Offset, Size, false, Done),
                  PI_SUCCESS);
        ASSERT_EQ(std::memcmp(Back.data() + 3, Copy.data(), Size), 0)
            << "non-blocking read of " << Size << " at " << Offset << " not filled on return";
        ASSERT_EQ(Driver.synchronize(Done), PI_SUCCESS);
        // Not blocking: the source may change as soon as the call returns.
        std::vector<unsigned char> Next = pattern(Size, static_cast<unsigned>(Size) + 7);
        const std::vector<unsigned char> Expected = Next;
        ASSERT_EQ(Copies.write(Driver, S, Base + Offset, Next.data(), Size, false, nullptr),
                  PI_SUCCESS);
        std::fill(Next.begin(), Next.end(), 0xEE);
        ASSERT_EQ(Driver.synchronize(S), PI_SUCCESS);
        ASSERT_EQ(std::memcmp(Base + Offset, Expected.data(), Size), 0)
            << "non-blocking write of " << Size << " at " << Offset;
      }
    // Staged non-blocking reads never hand pageable memory to the driver; without
    // staging they do.
    if (Tuning.StagedNonBlockingReads)
      EXPECT_EQ(Driver.pageableReads(), DriverReadsBefore);
    else
      EXPECT_GT(Driver.pageableReads(), DriverReadsBefore);
    Driver.destroyEvent(Done);
    Copies.release(Driver);
    Driver.destroyStream(S);
  }
}

TEST(PinnedRanges, ContainsOnlyWholeRangesInsideOneAllocation) {
  dglink::host_copy::PinnedRanges Ranges;
  static char Memory[3000];
  char *A = Memory;        // [0, 1000)
  char *B = Memory + 1000; // [1000, 1500), right after A
  EXPECT_FALSE(Ranges.contains(A, 1)) << "nothing held yet";
  Ranges.add(A, 1000);
  Ranges.add(B, 500);
  EXPECT_TRUE(Ranges.contains(A, 1000));
  EXPECT_TRUE(Ranges.contains(A + 10, 990));
  EXPECT_TRUE(Ranges.contains(A + 999, 1));
  EXPECT_FALSE(Ranges.contains(A + 10, 991)) << "past A's end";
  EXPECT_FALSE(Ranges.contains(A + 999, 2)) << "spans A and B";
  EXPECT_TRUE(Ranges.contains(B, 500));
  EXPECT_FALSE(Ranges.contains(B + 500, 1)) << "one past B's end";
  EXPECT_FALSE(Ranges.contains(Memory + 2000, 4)) << "outside both";
  EXPECT_FALSE(Ranges.contains(A + 500, ~size_t{0})) << "a size that would wrap";
  EXPECT_TRUE(Ranges.remove(A));
  EXPECT_FALSE(Ranges.remove(A)) << "removed twice";
  EXPECT_FALSE(Ranges.contains(A + 10, 1)) << "after its removal";
  EXPECT_TRUE(Ranges.contains(B + 1, 4));
  EXPECT_TRUE(Ranges.remove(B));
  EXPECT_FALSE(Ranges.contains(B, 1));
}

// Pinned host memory (the driver's own) from DGLINK_COPY_PINNED_CHECK_BYTES on is copied
// by the driver directly; below it, staged like pageable memory. Both land.
TEST_F(Engine, PinnedHostMemoryAboveAndBelowTheCheckRoundTrips) {
  CopyTuning Tuning = tunings().front();
  Tuning.PinnedCheckBytes = 65536;
  HostCopyPool Pool(Tuning.poolThreads(), Tuning.SpinMicroseconds);
  CopyEngine Copies(Pool, Tuning);
  Stream S = nullptr;
  ASSERT_EQ(Driver.createStream(S), PI_SUCCESS);
  for (size_t Size : {size_t{8192}, size_t{300000}}) {
    void *Host = nullptr;
    ASSERT_EQ(Driver.allocateHost(Host, 2 * Size), PI_SUCCESS);
    auto *Source = static_cast<unsigned char *>(Host);
    unsigned char *Back = Source + Size;
    const std::vector<unsigned char> Expected = pattern(Size, static_cast<unsigned>(Size));
    std::memcpy(Source, Expected.data(), Size);
    ASSERT_EQ(Copies.write(Driver, S, Device, Source, Size, true, nullptr), PI_SUCCESS);
    EXPECT_EQ(std::memcmp(Device, Expected.data(), Size), 0) << Size;
    std::memset(Back, 0, Size);
    ASSERT_EQ(Copies.read(Driver, S, Back, Device, Size, true, nullptr), PI_SUCCESS);
    EXPECT_EQ(std::memcmp(Back, Expected.data(), Size), 0) << Size;
    ASSERT_EQ(Driver.freeHost(Host), PI_SUCCESS);
  }
  Copies.release(Driver);
  Driver.destroyStream(S);
}

// Host memory the caller vouches for as pinned (the adapter's USM host allocations) is
// copied by the driver directly at every size, blocking or not: no staging is taken,
// and a non-blocking copy lands when its event completes.
TEST_F(Engine, HostPinnedMemoryIsCopiedDirectlyAtEverySize) {
  const CopyTuning Tuning = tunings().front(); // pinned check only from 256 KiB
  HostCopyPool Pool(Tuning.poolThreads(), Tuning.SpinMicroseconds);
  CopyEngine Copies(Pool, Tuning);
  Stream S = nullptr;
  ASSERT_EQ(Driver.createStream(S), PI_SUCCESS);
  dglink::stream::Event Done = nullptr;
  ASSERT_EQ(Driver.createEvent(Done), PI_SUCCESS);
  constexpr size_t Most = 300000;
  void *Host = nullptr;
  ASSERT_EQ(Driver.allocateHost(Host, 2 * Most), PI_SUCCESS);
  const size_t Allocated = Driver.pinnedBytes();
  auto *Source = static_cast<unsigned char *>(Host);
  unsigned char *Back = Source + Most;
  for (size_t Size : {size_t{3}, size_t{64}, size_t{4096}, size_t{65536}, Most})
    for (bool Blocking : {true, false}) {
      const std::vector<unsigned char> Expected =
          pattern(Size, static_cast<unsigned>(Size) + (Blocking ? 1 : 0));
      std::memcpy(Source, Expected.data(), Size);
      std::memset(Device, 0, Size);
      ASSERT_EQ(Copies.write(Driver, S, Device, Source, Size, Blocking, Done, HostMemory::Pinned),
                PI_SUCCESS);
      ASSERT_EQ(Driver.synchronize(Done), PI_SUCCESS);
      EXPECT_EQ(std::memcmp(Device, Expected.data(), Size), 0) << "write of " << Size;
      std::memset(Back, 0, Size);
      ASSERT_EQ(Copies.read(Driver, S, Back, Device, Size, Blocking, Done, HostMemory::Pinned),
                PI_SUCCESS);
      ASSERT_EQ(Driver.synchronize(Done), PI_SUCCESS);
      EXPECT_EQ(std::memcmp(Back, Expected.data(), Size), 0) << "read of " << Size;
    }
  EXPECT_EQ(Driver.pinnedBytes(), Allocated) << "pinned memory was staged";
  ASSERT_EQ(Driver.freeHost(Host), PI_SUCCESS);
  Driver.destroyEvent(Done);
  Copies.release(Driver);
  Driver.destroyStream(S);
}

TEST_F(Engine, DoneEventCompletesAfterTheCopy) {
  HostCopyPool Pool(4, 20);
  CopyEngine Copies(Pool, tunings()[2]);
  Stream S = nullptr;
  ASSERT_EQ(Driver.createStream(S), PI_SUCCESS);
  dglink::stream::Event Done = nullptr;
  ASSERT_EQ(Driver.createEvent(Done), PI_SUCCESS);
  const std::vector<unsigned char> Source = pattern(300000, 3);
  for (bool Blocking : {false, true}) {
    std::memset(Device, 0, Source.size());
    ASSERT_EQ(Copies.write(Driver, S, Device, Source.data(), Source.size(), Blocking, Done),
              PI_SUCCESS);
    ASSERT_EQ(Driver.synchronize(Done), PI_SUCCESS);
    EXPECT_EQ(std::memcmp(Device, Source.data(), Source.size()), 0);
  }
  Driver.destroyEvent(Done);
  ASSERT_EQ(Driver.synchronize(S), PI_SUCCESS);
  Copies.release(Driver);
  Driver.destroyStream(S);
}

// A driver that fails in the middle of a paced copy: the copy returns the driver's error,
// every helper is out (the caller's buffers die at once), nothing stays in flight, and the
// next copies of the same queue are right.
TEST_F(Engine, DriverFailureInThePacedCopyIsReturnedAndTheQueueGoesOn) {
  CopyTuning Tuning = tunings()[0];
  Tuning.WriteChunkBytes = 65536; // 8 chunks in a 512 KiB copy, every one in flight
  Tuning.ReadChunkBytes = 65536;
  ASSERT_TRUE(Tuning.Paced);
  HostCopyPool Pool(Tuning.poolThreads(), Tuning.SpinMicroseconds);
  CopyEngine Copies(Pool, Tuning);
  Stream S = nullptr;
  ASSERT_EQ(Driver.createStream(S), PI_SUCCESS);
  constexpr size_t Count = 512 * 1024;
  const std::vector<unsigned char> Source = pattern(Count, 11);
  for (int Before : {0, 1, 3, 7}) {
    Driver.failCopiesToDeviceAfter(Before);
    // Other bytes than the next write's: a failed copy that landed late would show.
    auto Scratch = std::make_unique<std::vector<unsigned char>>(pattern(Count, 12));
    EXPECT_EQ(Copies.write(Driver, S, Device, Scratch->data(), Count, true, nullptr),
              PI_ERROR_OUT_OF_RESOURCES)
        << "the write's chunk " << Before << " failed";
    Scratch.reset();
    Driver.failQueriesAfter(Before);
    auto Into = std::make_unique<std::vector<unsigned char>>(Count, 0);
    EXPECT_EQ(Copies.read(Driver, S, Into->data(), Device, Count, true, nullptr),
              PI_ERROR_OUT_OF_RESOURCES)
        << "the read's query " << Before << " failed";
    Into.reset();
    Driver.failCopiesToDeviceAfter(-1);
    Driver.failQueriesAfter(-1);
    ASSERT_EQ(Copies.write(Driver, S, Device, Source.data(), Count, true, nullptr), PI_SUCCESS);
    std::vector<unsigned char> Back(Count, 0);
    ASSERT_EQ(Copies.read(Driver, S, Back.data(), Device, Count, true, nullptr), PI_SUCCESS);
    ASSERT_EQ(Back, Source) << "after a failure at " << Before;
  }
  Copies.release(Driver);
  Driver.destroyStream(S);
}

TEST_F(Engine, ManyThreadsOnManyQueues) {
  constexpr unsigned Queues = 4;
  constexpr unsigned ThreadsPerQueue = 3;
  constexpr size_t Region = 400000; // each thread owns one region of the device
  for (const CopyTuning &Tuning : {tunings()[0], tunings()[2]}) {
    HostCopyPool Pool(Tuning.poolThreads(), Tuning.SpinMicroseconds);
    std::vector<std::unique_ptr<CopyEngine>> Engines;
    std::vector<Stream> Streams(Queues);
    for (unsigned Q = 0; Q < Queues; ++Q) {
      Engines.push_back(std::make_unique<CopyEngine>(Pool, Tuning));
      ASSERT_EQ(Driver.createStream(Streams[Q]), PI_SUCCESS);
    }
    std::atomic<int> Wrong{0};
    std::vector<std::thread> Threads;
    for (unsigned Q = 0; Q < Queues; ++Q)
      for (unsigned T = 0; T < ThreadsPerQueue; ++T)
        Threads.emplace_back([&, Q, T] {
          const unsigned Index = Q * ThreadsPerQueue + T;
          char *Mine = static_cast<char *>(Device) + Index * Region;
          for (unsigned Round = 0; Round < 6; ++Round) {
            const size_t Size = Round % 3 == 0 ? Region : Round % 3 == 1 ? 70001 : 3000;
            std::vector<unsigned char> Source = pattern(Size, Index * 100 + Round);
            const std::vector<unsigned char> Expected = Source;
            const bool Blocking = Round % 2 == 0;
            if (Engines[Q]->write(Driver, Streams[Q], Mine, Source.data(), Size, Blocking,
                                  nullptr) != PI_SUCCESS)
              ++Wrong;
            std::fill(Source.begin(), Source.end(), 0);
            std::vector<unsigned char> Back(Size);
            // In order on the queue: the read sees the write, blocking or not, and a
            // non-blocking read has filled Back once the queue is done.
            const bool BlockingRead = Round % 4 < 2;
            if (Engines[Q]->read(Driver, Streams[Q], Back.data(), Mine, Size, BlockingRead,
                                 nullptr) != PI_SUCCESS ||
                (!BlockingRead && Driver.synchronize(Streams[Q]) != PI_SUCCESS) || Back != Expected)
              ++Wrong;
          }
        });
    for (std::thread &T : Threads)
      T.join();
    EXPECT_EQ(Wrong.load(), 0);
    for (unsigned Q = 0; Q < Queues; ++Q) {
      ASSERT_EQ(Driver.synchronize(Streams[Q]), PI_SUCCESS);
      Engines[Q]->release(Driver);
      Driver.destroyStream(Streams[Q]);
    }
  }
}

TEST_F(Engine, ReleaseAfterManyCopiesInFlight) {
  HostCopyPool Pool(4, 20);
  CopyTuning Tuning = tunings()[2];
  auto Copies = std::make_unique<CopyEngine>(Pool, Tuning);
  Stream S = nullptr;
  ASSERT_EQ(Driver.createStream(S), PI_SUCCESS);
  std::vector<unsigned char> Source = pattern(40000, 9);
  for (int I = 0; I < 50; ++I)
    ASSERT_EQ(Copies->write(Driver, S, static_cast<char *>(Device) + I * 40000, Source.data(),
                            Source.size(), false, nullptr),
              PI_SUCCESS);
  EXPECT_LE(Driver.pinnedBytes(), Tuning.StagingLimitBytes + Tuning.RingBytes + 65536)
      << "the pool of non-blocking blocks outgrew its limit";
  // What a queue does at release: drain the stream, then free.
  ASSERT_EQ(Driver.synchronize(S), PI_SUCCESS);
  Copies->release(Driver);
  Copies.reset();
  Driver.destroyStream(S);
  for (int I = 0; I < 50; ++I)
    ASSERT_EQ(std::memcmp(static_cast<char *>(Device) + I * 40000, Source.data(), Source.size()),
              0);
  Pool.stop();
}

TEST(CopyKnobs, BadValuesAreRejectedWithTheReason) {
  size_t Value = 0;
  std::string Problem;
  EXPECT_TRUE(dglink::host_copy::parseKnob("12", 1, 64, Value, Problem));
  EXPECT_EQ(Value, 12U);
  EXPECT_TRUE(dglink::host_copy::parseKnob("0", 0, 10, Value, Problem));
  EXPECT_EQ(Value, 0U);
  for (const char *Bad : {"", "abc", "-1", "12x", " 3", "1e3", "0x10"}) {
    Problem.clear();
    EXPECT_FALSE(dglink::host_copy::parseKnob(Bad, 1, 64, Value, Problem)) << Bad;
    EXPECT_FALSE(Problem.empty()) << Bad;
  }
  EXPECT_FALSE(dglink::host_copy::parseKnob("0", 1, 64, Value, Problem));
  EXPECT_NE(Problem.find("1..64"), std::string::npos) << Problem;
  EXPECT_FALSE(dglink::host_copy::parseKnob("65", 1, 64, Value, Problem));
  EXPECT_FALSE(dglink::host_copy::parseKnob("99999999999999999999999", 1, 64, Value, Problem));
}

TEST(CopyKnobs, EnvironmentSetsGoodValuesAndKeepsDefaultsForBadOnes) {
  const CopyTuning Defaults = dglink::host_copy::copyTuningFromEnvironment();
  EXPECT_GE(Defaults.Threads, 1U);
  EXPECT_LE(Defaults.Threads, 8U);
  setenv("DGLINK_COPY_THREADS", "3", 1);
  setenv("DGLINK_COPY_SPIN_US", "0", 1);
  setenv("DGLINK_COPY_PARALLEL_BYTES", "lots", 1);
  setenv("DGLINK_COPY_NONTEMPORAL", "maybe", 1);
  setenv("DGLINK_COPY_READ_NONTEMPORAL", "off", 1);
  setenv("DGLINK_COPY_WRITE_CHUNK_BYTES", "100", 1); // below 4 KiB
  setenv("DGLINK_COPY_STAGED_NONBLOCKING_READS", "0", 1);
  setenv("DGLINK_COPY_READ_THREADS", "5", 1);
  const CopyTuning Set = dglink::host_copy::copyTuningFromEnvironment();
  EXPECT_EQ(Set.Threads, 3U);
  EXPECT_EQ(Set.SpinMicroseconds, 0U);
  EXPECT_EQ(Set.ParallelBytes, Defaults.ParallelBytes);
  EXPECT_EQ(Set.NonTemporal, Defaults.NonTemporal);
  EXPECT_FALSE(Set.ReadNonTemporal);
  EXPECT_EQ(Set.WriteChunkBytes, Defaults.WriteChunkBytes);
  EXPECT_TRUE(Defaults.StagedNonBlockingReads);
  EXPECT_GE(Defaults.ReadThreads, 1U);
  EXPECT_LE(Defaults.ReadThreads, 31U);
  EXPECT_EQ(Set.ReadThreads, 5U);
  // The pool: by default as many threads as one copy uses.
  EXPECT_EQ(Defaults.PoolThreads, 0U);
  EXPECT_EQ(Defaults.poolThreads(), std::max(Defaults.Threads, Defaults.ReadThreads));
  EXPECT_EQ(Set.poolThreads(), 5U); // 5: the larger of 3 and 5
  setenv("DGLINK_COPY_POOL_THREADS", "12", 1);
  EXPECT_EQ(dglink::host_copy::copyTuningFromEnvironment().poolThreads(), 12U);
  setenv("DGLINK_COPY_POOL_THREADS", "2", 1); // fewer than one read may use: the read's
  EXPECT_EQ(dglink::host_copy::copyTuningFromEnvironment().poolThreads(), 5U);
  setenv("DGLINK_COPY_POOL_THREADS", "0", 1); // the old size: what one copy uses
  EXPECT_EQ(dglink::host_copy::copyTuningFromEnvironment().poolThreads(), 5U);
  setenv("DGLINK_COPY_POOL_THREADS", "999", 1); // out of range: the default
  EXPECT_EQ(dglink::host_copy::copyTuningFromEnvironment().PoolThreads, Defaults.PoolThreads);
  EXPECT_FALSE(Set.StagedNonBlockingReads);
  for (const char *Knob :
       {"DGLINK_COPY_THREADS", "DGLINK_COPY_SPIN_US", "DGLINK_COPY_PARALLEL_BYTES",
        "DGLINK_COPY_NONTEMPORAL", "DGLINK_COPY_READ_NONTEMPORAL", "DGLINK_COPY_WRITE_CHUNK_BYTES",
        "DGLINK_COPY_STAGED_NONBLOCKING_READS", "DGLINK_COPY_READ_THREADS",
        "DGLINK_COPY_POOL_THREADS"})
    unsetenv(Knob);
}

} // namespace
