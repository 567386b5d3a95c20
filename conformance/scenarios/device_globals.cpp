// Device globals through piextEnqueueDeviceGlobalVariableRead/Write: host and kernel
// round trips for each kind of variable, partial copies, events, host access modes,
// the error contract and CP027's example on devices with device-global access; on
// devices without it, that both entry points refuse and touch nothing. On a device
// that runs no kernels (a test driver) every host-side step still runs; a scenario
// skips where it would launch its first kernel.
#include "fixtures.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace dglink::conformance {
namespace {

// DeviceRecord of device_globals.cl.
struct DeviceRecord {
  int32_t Id;
  float Weight;
  int64_t Total;
  uint8_t Tag[8];
};
static_assert(sizeof(DeviceRecord) == 24 && alignof(DeviceRecord) == 8,
              "DeviceRecord must match the device's layout");

constexpr size_t QuadBytes = 4 * sizeof(int32_t);
constexpr size_t BigCount = 262144; // dg_big: 1 MiB of uint
// What a destination holds before a read, so that bytes the read did not write show
// up; no variable is ever given this value.
constexpr unsigned char Unwritten = 0xA5;
constexpr int32_t UnwrittenInt = int32_t(0xA5A5A5A5u);

int32_t bigPattern(size_t I) { return int32_t(uint32_t(I) * 0x9E3779B1u + 0x01234567u); }
int32_t bigTransformed(size_t I) { return int32_t(uint32_t(bigPattern(I)) * 3u + 1u); }

const char *mechanismName(pi_device_global_mechanism Mechanism) {
  switch (Mechanism) {
  case PI_DEVICE_GLOBAL_MECHANISM_NONE:
    return "none";
  case PI_DEVICE_GLOBAL_MECHANISM_NATIVE:
    return "native";
  case PI_DEVICE_GLOBAL_MECHANISM_LOWERED:
    return "lowered";
  }
  return "unknown";
}

pi_device_global_mechanism mechanismOf(pi_device Device) {
  pi_device_global_mechanism Mechanism = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  EXPECT_PI_SUCCESS(piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM,
                                    sizeof(Mechanism), &Mechanism, nullptr));
  return Mechanism;
}

// Every scenario gets a fresh program of device_globals, so each variable starts at
// its initializer (or zero).
class DeviceGlobals : public BuiltProgramTest {
protected:
  void SetUp() override {
    BuiltProgramTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    if (!hasExtension(PI_EXT_DEVICE_GLOBAL_ACCESS))
      GTEST_SKIP() << "device does not advertise " PI_EXT_DEVICE_GLOBAL_ACCESS " (mechanism "
                   << mechanismName(mechanismOf(Device)) << ")";
    ASSERT_NO_FATAL_FAILURE(buildProgram("device_globals", Program));
  }

  // Blocking copies without events.
  pi_result writeGlobal(pi_program On, const char *Name, const void *Src, size_t Count,
                        size_t Offset = 0) {
    return piextEnqueueDeviceGlobalVariableWrite(Queue.get(), On, Name, PI_TRUE, Count, Offset, Src,
                                                 0, nullptr, nullptr);
  }
  pi_result readGlobal(pi_program On, const char *Name, void *Dst, size_t Count,
                       size_t Offset = 0) {
    return piextEnqueueDeviceGlobalVariableRead(Queue.get(), On, Name, PI_TRUE, Count, Offset, Dst,
                                                0, nullptr, nullptr);
  }
  // The whole int variable Name, read into a destination that starts as Unwritten.
  void readInt(pi_program On, const char *Name, int32_t &Value) {
    Value = UnwrittenInt;
    ASSERT_PI_SUCCESS(readGlobal(On, Name, &Value, sizeof(Value)));
  }
  void readInts(pi_program On, const char *Name, size_t Count, std::vector<int32_t> &Values) {
    Values.assign(Count, UnwrittenInt);
    ASSERT_PI_SUCCESS(readGlobal(On, Name, Values.data(), Count * sizeof(int32_t)));
  }

  // Kernel Name of On over Global work-items, with its arguments (if any) set by SetArgs.
  void launch(pi_program On, const char *Name, size_t Global = 1,
              const std::function<void(pi_kernel)> &SetArgs = nullptr) {
    KernelHandle Kernel;
    ASSERT_NO_FATAL_FAILURE(createKernel(On, Name, Kernel));
    if (SetArgs) {
      ASSERT_NO_FATAL_FAILURE(SetArgs(Kernel.get()));
    }
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), Kernel.get(), 1, nullptr, &Global, nullptr,
                                            0, nullptr, nullptr));
  }
  // Kernel Name of On as one work-item whose argument 0 is a buffer of Count ints;
  // Values gets the buffer, which starts as Unwritten.
  void runOnce(pi_program On, const char *Name, size_t Count, std::vector<int32_t> &Values) {
    MemHandle Buffer;
    ASSERT_NO_FATAL_FAILURE(makeBuffer(Count * sizeof(int32_t), Buffer));
    ASSERT_NO_FATAL_FAILURE(launch(On, Name, 1, [&](pi_kernel Kernel) {
      const pi_mem Mem = Buffer.get();
      ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Kernel, 0, &Mem));
    }));
    Values.assign(Count, -1);
    ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_TRUE, 0,
                                             Count * sizeof(int32_t), Values.data(), 0, nullptr,
                                             nullptr));
  }
  // A buffer of Bytes bytes, all Unwritten.
  void makeBuffer(size_t Bytes, MemHandle &Out) {
    ASSERT_PI_SUCCESS(
        piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW, Bytes, nullptr, Out.out()));
    const std::vector<unsigned char> Fill(Bytes, Unwritten);
    ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Out.get(), PI_TRUE, 0, Bytes,
                                              Fill.data(), 0, nullptr, nullptr));
  }
  pi_int32 status(pi_event Event) {
    pi_int32 Status = -1;
    EXPECT_PI_SUCCESS(piEventGetInfo(Event, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status),
                                     &Status, nullptr));
    return Status;
  }

  ProgramHandle Program;
};
DGLINK_INSTANTIATE_FOR_DEVICES(DeviceGlobals);

// ---- initial values ----

TEST_P(DeviceGlobals, FreshVariableReadsZero) {
  int32_t Counter;
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_counter_uid", Counter));
  EXPECT_EQ(Counter, 0);
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_quad", 4, Values));
  EXPECT_EVERY_ELEMENT(Values, [](size_t) { return 0; });
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_record_uid", 6, Values));
  EXPECT_EVERY_ELEMENT(Values, [](size_t) { return 0; });
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_big", BigCount, Values));
  EXPECT_EVERY_ELEMENT(Values, [](size_t) { return 0; });
}

TEST_P(DeviceGlobals, VariableReadsAsItsInitializer) {
  const int32_t Quad[4] = {0x11, 0x2222, 0x333333, 0x44444444};
  int32_t Scalar;
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_initialized", Scalar));
  EXPECT_EQ(Scalar, 0x1234ABCD);
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_initialized_quad", 4, Values));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return Quad[I]; });
  // Kernels see the same initial values.
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_copy_initialized", 5, Values));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return I == 0 ? 0x1234ABCD : Quad[I - 1]; });
}

// ---- host and kernels ----

TEST_P(DeviceGlobals, KernelReadsHostWrite) {
  const int32_t Value = 42;
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_counter_uid", &Value, sizeof(Value)));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_read_counter", 1, Values));
  EXPECT_EQ(Values[0], 42);
}

TEST_P(DeviceGlobals, HostReadsKernelWrite) {
  const int32_t Value = 42;
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_counter_uid", &Value, sizeof(Value)));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_increment_counter"));
  int32_t Counter;
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_counter_uid", Counter));
  EXPECT_EQ(Counter, 43);
}

// One variable per program, not one per kernel (PoCL 3.1 gives each kernel its own).
TEST_P(DeviceGlobals, KernelsOfOneProgramShareIt) {
  const int32_t Value = 42;
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_counter_uid", &Value, sizeof(Value)));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_increment_counter"));
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_read_counter", 1, Values));
  EXPECT_EQ(Values[0], 43) << "dg_read_counter did not see dg_increment_counter's write";
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_increment_counter"));
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_read_counter", 1, Values));
  EXPECT_EQ(Values[0], 44);
}

// ---- blocking, non-blocking, events ----

TEST_P(DeviceGlobals, NonBlockingCopiesWithEvents) {
  const int32_t Value = 0x2468ACE;
  EventHandle Written;
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableWrite(Queue.get(), Program.get(),
                                                          "dg_counter_uid", PI_FALSE, sizeof(Value),
                                                          0, &Value, 0, nullptr, Written.out()));
  ASSERT_TRUE(Written) << "no event returned";
  int32_t Back = UnwrittenInt;
  EventHandle Read;
  const pi_event AfterWrite[] = {Written.get()};
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(),
                                                         "dg_counter_uid", PI_FALSE, sizeof(Back),
                                                         0, &Back, 1, AfterWrite, Read.out()));
  ASSERT_TRUE(Read) << "no event returned";
  const pi_event Raw = Read.get();
  ASSERT_PI_SUCCESS(piEventsWait(1, &Raw));
  EXPECT_EQ(status(Written.get()), PI_EVENT_COMPLETE);
  EXPECT_EQ(status(Read.get()), PI_EVENT_COMPLETE);
  EXPECT_EQ(Back, Value);

  // A blocking copy's event is complete when the call returns.
  const int32_t Next = 0x13579BD;
  EventHandle BlockingWrite;
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableWrite(
      Queue.get(), Program.get(), "dg_counter_uid", PI_TRUE, sizeof(Next), 0, &Next, 0, nullptr,
      BlockingWrite.out()));
  ASSERT_TRUE(BlockingWrite) << "no event returned";
  EXPECT_EQ(status(BlockingWrite.get()), PI_EVENT_COMPLETE);
  Back = UnwrittenInt;
  EventHandle BlockingRead;
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(),
                                                         "dg_counter_uid", PI_TRUE, sizeof(Back), 0,
                                                         &Back, 0, nullptr, BlockingRead.out()));
  ASSERT_TRUE(BlockingRead) << "no event returned";
  EXPECT_EQ(status(BlockingRead.get()), PI_EVENT_COMPLETE);
  EXPECT_EQ(Back, Next);
}

// write -> kernel -> read, each non-blocking and waiting on the one before.
TEST_P(DeviceGlobals, NonBlockingWriteThenDependentKernel) {
  const int32_t Value = 0x600D;
  EventHandle Written;
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableWrite(Queue.get(), Program.get(),
                                                          "dg_counter_uid", PI_FALSE, sizeof(Value),
                                                          0, &Value, 0, nullptr, Written.out()));
  ASSERT_TRUE(Written) << "no event returned";
  KernelHandle Increment;
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "dg_increment_counter", Increment));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  const size_t Global = 1;
  const pi_event AfterWrite[] = {Written.get()};
  EventHandle Incremented;
  ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), Increment.get(), 1, nullptr, &Global,
                                          nullptr, 1, AfterWrite, Incremented.out()));
  ASSERT_TRUE(Incremented) << "no event returned";
  int32_t Back = UnwrittenInt;
  const pi_event AfterKernel[] = {Incremented.get()};
  EventHandle Read;
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(),
                                                         "dg_counter_uid", PI_FALSE, sizeof(Back),
                                                         0, &Back, 1, AfterKernel, Read.out()));
  const pi_event Raw = Read.get();
  ASSERT_PI_SUCCESS(piEventsWait(1, &Raw));
  EXPECT_EQ(Back, 0x600D + 1);
}

// The same chain with the kernel on a second queue: only the wait lists order it.
TEST_P(DeviceGlobals, DependentKernelOnAnotherQueue) {
  QueueHandle Other;
  ASSERT_PI_SUCCESS(piQueueCreate(Context.get(), Device, 0, Other.out()));
  const int32_t Value = 0x7001;
  EventHandle Written;
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableWrite(Queue.get(), Program.get(),
                                                          "dg_counter_uid", PI_FALSE, sizeof(Value),
                                                          0, &Value, 0, nullptr, Written.out()));
  ASSERT_TRUE(Written) << "no event returned";
  KernelHandle Increment;
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "dg_increment_counter", Increment));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  const size_t Global = 1;
  const pi_event AfterWrite[] = {Written.get()};
  EventHandle Incremented;
  ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Other.get(), Increment.get(), 1, nullptr, &Global,
                                          nullptr, 1, AfterWrite, Incremented.out()));
  ASSERT_TRUE(Incremented) << "no event returned";
  int32_t Back = UnwrittenInt;
  const pi_event AfterKernel[] = {Incremented.get()};
  EventHandle Read;
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(),
                                                         "dg_counter_uid", PI_FALSE, sizeof(Back),
                                                         0, &Back, 1, AfterKernel, Read.out()));
  const pi_event Raw = Read.get();
  ASSERT_PI_SUCCESS(piEventsWait(1, &Raw));
  EXPECT_EQ(Back, 0x7001 + 1);
  EXPECT_PI_SUCCESS(piQueueFinish(Other.get()));
}

// ---- types ----

TEST_P(DeviceGlobals, IntRoundTrip) {
  for (const int32_t Value : {int32_t(-123456789), int32_t(0x7EADBEEF), int32_t(1)}) {
    ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_counter_uid", &Value, sizeof(Value)));
    int32_t Back;
    ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_counter_uid", Back));
    EXPECT_EQ(Back, Value);
  }
}

TEST_P(DeviceGlobals, DoubleRoundTrip) {
  pi_bitfield Fp64 = 0;
  ASSERT_PI_SUCCESS(
      piDeviceGetInfo(Device, PI_DEVICE_INFO_DOUBLE_FP_CONFIG, sizeof(Fp64), &Fp64, nullptr));
  if (Fp64 == 0)
    GTEST_SKIP() << "device has no fp64 (PI_DEVICE_INFO_DOUBLE_FP_CONFIG is 0)";
  ProgramHandle Fp64Program;
  ASSERT_NO_FATAL_FAILURE(buildProgram("device_globals_fp64", Fp64Program));
  const double Value = 3.141592653589793;
  ASSERT_PI_SUCCESS(writeGlobal(Fp64Program.get(), "dg_double", &Value, sizeof(Value)));
  double Back = -1.0;
  ASSERT_PI_SUCCESS(readGlobal(Fp64Program.get(), "dg_double", &Back, sizeof(Back)));
  EXPECT_EQ(Back, Value);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(launch(Fp64Program.get(), "dg_scale_double"));
  Back = -1.0;
  ASSERT_PI_SUCCESS(readGlobal(Fp64Program.get(), "dg_double", &Back, sizeof(Back)));
  EXPECT_EQ(Back, Value * 2.0 + 0.5);
  std::vector<int32_t> Words;
  ASSERT_NO_FATAL_FAILURE(runOnce(Fp64Program.get(), "dg_copy_double", 2, Words));
  double Copied = -1.0;
  std::memcpy(&Copied, Words.data(), sizeof(Copied));
  EXPECT_EQ(Copied, Value * 2.0 + 0.5);
}

TEST_P(DeviceGlobals, StructRoundTrip) {
  DeviceRecord Record{};
  Record.Id = 0x01020304;
  Record.Weight = 1.5f;
  Record.Total = 0x1122334455667788;
  for (int I = 0; I < 8; ++I)
    Record.Tag[I] = static_cast<uint8_t>(0x31 + I);
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_record_uid", &Record, sizeof(Record)));
  DeviceRecord Back;
  std::memset(&Back, Unwritten, sizeof(Back));
  ASSERT_PI_SUCCESS(readGlobal(Program.get(), "dg_record_uid", &Back, sizeof(Back)));
  EXPECT_EQ(std::memcmp(&Back, &Record, sizeof(Record)), 0) << "the record read back differs";
  DGLINK_REQUIRE_KERNEL_EXECUTION();

  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_update_record"));
  std::memset(&Back, Unwritten, sizeof(Back));
  ASSERT_PI_SUCCESS(readGlobal(Program.get(), "dg_record_uid", &Back, sizeof(Back)));
  EXPECT_EQ(Back.Id, 0x01020305);
  EXPECT_EQ(Back.Weight, 3.0f);
  EXPECT_EQ(Back.Total, 0x1122334455667788 + 0x01020305);
  for (int I = 0; I < 8; ++I)
    EXPECT_EQ(Back.Tag[I], static_cast<uint8_t>((0x31 + I) ^ 0x5A)) << "Tag[" << I << "]";
}

TEST_P(DeviceGlobals, IntArrayRoundTrip) {
  const int32_t Quad[4] = {0x10101010, 0x20202020, 0x30303030, 0x40404040};
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_quad", Quad, QuadBytes));
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_quad", 4, Values));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return Quad[I]; });
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_rotate_quad"));
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_quad", 4, Values));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return Quad[(I + 1) % 4] + int32_t(I); });
}

TEST_P(DeviceGlobals, OneMebibyteArray) {
  std::vector<int32_t> Pattern(BigCount);
  for (size_t I = 0; I < BigCount; ++I)
    Pattern[I] = bigPattern(I);
  ASSERT_PI_SUCCESS(
      writeGlobal(Program.get(), "dg_big", Pattern.data(), BigCount * sizeof(int32_t)));
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_big", BigCount, Values));
  EXPECT_EVERY_ELEMENT(Values, bigPattern);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_transform_big", BigCount));
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_big", BigCount, Values));
  EXPECT_EVERY_ELEMENT(Values, bigTransformed) << "after dg_transform_big";
}

// ---- USM host memory ----

// USM host memory (pinned where the device has it) as the source and the destination
// of device-global copies, from inside an allocation, blocking and not, 4 B to 1 MiB:
// the stream adapters hand it to the driver directly, without staging and, not
// blocking, without waiting; every adapter must land the bytes.
TEST_P(DeviceGlobals, CopiesThroughUsmHostMemory) {
  pi_usm_capabilities HostUsm = 0;
  ASSERT_PI_SUCCESS(
      piDeviceGetInfo(Device, PI_DEVICE_INFO_USM_HOST_SUPPORT, sizeof(HostUsm), &HostUsm, nullptr));
  if (HostUsm == 0)
    GTEST_SKIP() << "device has no host USM (PI_DEVICE_INFO_USM_HOST_SUPPORT is 0)";
  const size_t Bytes = BigCount * sizeof(int32_t);
  UsmPointer Usm;
  ASSERT_PI_SUCCESS(
      piextUSMHostAlloc(Usm.out(Context.get()), Context.get(), nullptr, 2 * Bytes + 64, 0));
  ASSERT_NE(Usm.get(), nullptr);
  // Interior pointers: the source 64 bytes in, the destination right after it.
  auto *Source = reinterpret_cast<int32_t *>(static_cast<char *>(Usm.get()) + 64);
  int32_t *Back = Source + BigCount;
  for (const size_t Count : {size_t{1}, size_t{16}, size_t{1024}, size_t{16384}, BigCount})
    for (const bool Blocking : {true, false}) {
      const size_t Seed = Count * 2 + (Blocking ? 1 : 0);
      const auto Expected = [Seed](size_t I) { return bigPattern(I + Seed); };
      for (size_t I = 0; I < Count; ++I)
        Source[I] = Expected(I);
      std::fill(Back, Back + Count, UnwrittenInt);
      const pi_bool Block = Blocking ? PI_TRUE : PI_FALSE;
      pi_event Wrote = nullptr;
      pi_event Read = nullptr;
      ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableWrite(Queue.get(), Program.get(), "dg_big",
                                                              Block, Count * sizeof(int32_t), 0,
                                                              Source, 0, nullptr, &Wrote));
      const pi_result ReadResult =
          piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(), "dg_big", Block,
                                               Count * sizeof(int32_t), 0, Back, 1, &Wrote, &Read);
      // Nothing may still use the USM memory when the scenario leaves, even on failure.
      EXPECT_PI_SUCCESS(piEventsWait(1, &Wrote));
      EXPECT_PI_SUCCESS(piEventRelease(Wrote));
      ASSERT_PI_SUCCESS(ReadResult);
      EXPECT_PI_SUCCESS(piEventsWait(1, &Read));
      EXPECT_PI_SUCCESS(piEventRelease(Read));
      const std::vector<int32_t> Values(Back, Back + Count);
      EXPECT_EVERY_ELEMENT(Values, Expected)
          << Count * sizeof(int32_t) << " bytes, " << (Blocking ? "blocking" : "not blocking");
    }
}

// ---- concurrency ----

// Large copies from several threads on several queues at once (the copy engine's
// threads and staging shared by all of them): each thread owns a quarter of dg_big,
// writes it (blocking, or not blocking with an event it waits on) from a buffer it
// scribbles over right after the call, and reads it back (blocking, or not blocking
// with an event it waits on, every other round of each kind).
TEST_P(DeviceGlobals, ConcurrentLargeCopiesOnSeveralQueues) {
  constexpr size_t Queues = 4;
  constexpr size_t Rounds = 6;
  constexpr size_t Quarter = BigCount / Queues;
  std::vector<QueueHandle> Extra(Queues);
  for (QueueHandle &Q : Extra)
    ASSERT_PI_SUCCESS(piQueueCreate(Context.get(), Device, 0, Q.out()));
  std::vector<std::string> Failures(Queues);
  std::vector<std::thread> Threads;
  const pi_program On = Program.get();
  for (size_t T = 0; T < Queues; ++T)
    Threads.emplace_back([&, T] {
      const pi_queue Q = Extra[T].get();
      const size_t Offset = T * Quarter * sizeof(int32_t);
      const size_t Bytes = Quarter * sizeof(int32_t);
      for (size_t Round = 0; Round < Rounds && Failures[T].empty(); ++Round) {
        std::vector<int32_t> Source(Quarter);
        for (size_t I = 0; I < Quarter; ++I)
          Source[I] = static_cast<int32_t>(I * 2654435761U + T * 97 + Round);
        const std::vector<int32_t> Expected = Source;
        const bool Blocking = Round % 2 == 0;
        pi_event Done = nullptr;
        pi_result Result = piextEnqueueDeviceGlobalVariableWrite(
            Q, On, "dg_big", Blocking ? PI_TRUE : PI_FALSE, Bytes, Offset, Source.data(), 0,
            nullptr, Blocking ? nullptr : &Done);
        if (Result == PI_SUCCESS && Done != nullptr) {
          Result = piEventsWait(1, &Done);
          piEventRelease(Done);
        }
        std::fill(Source.begin(), Source.end(), -1); // PI lets the caller reuse it now
        std::vector<int32_t> Back(Quarter, UnwrittenInt);
        const bool BlockingRead = Round % 4 < 2;
        pi_event Read = nullptr;
        if (Result == PI_SUCCESS)
          Result = piextEnqueueDeviceGlobalVariableRead(
              Q, On, "dg_big", BlockingRead ? PI_TRUE : PI_FALSE, Bytes, Offset, Back.data(), 0,
              nullptr, BlockingRead ? nullptr : &Read);
        if (Result == PI_SUCCESS && Read != nullptr) {
          Result = piEventsWait(1, &Read);
          piEventRelease(Read);
        }
        if (Result != PI_SUCCESS)
          Failures[T] = "queue " + std::to_string(T) + " round " + std::to_string(Round) +
                        ": result " + std::to_string(Result);
        else if (Back != Expected)
          Failures[T] = "queue " + std::to_string(T) + " round " + std::to_string(Round) +
                        ": read back differs";
      }
    });
  for (std::thread &T : Threads)
    T.join();
  for (const std::string &Failure : Failures)
    EXPECT_TRUE(Failure.empty()) << Failure;
}

// ---- partial copies ----

TEST_P(DeviceGlobals, PartialCopies) {
  const int32_t Quad[4] = {0x10101010, 0x20202020, 0x30303030, 0x40404040};
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_quad", Quad, QuadBytes));
  // The first two elements.
  const int32_t Head[2] = {0x51515151, 0x52525252};
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_quad", Head, 2 * sizeof(int32_t)));
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_quad", 4, Values));
  const int32_t AfterHead[4] = {Head[0], Head[1], Quad[2], Quad[3]};
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return AfterHead[I]; });
  // The last element alone.
  const int32_t Last = 0x63636363;
  ASSERT_PI_SUCCESS(
      writeGlobal(Program.get(), "dg_quad", &Last, sizeof(Last), 3 * sizeof(int32_t)));
  const int32_t Expected[4] = {Head[0], Head[1], Quad[2], Last};
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_quad", 4, Values));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return Expected[I]; });
  // Partial reads write exactly Count bytes.
  Values.assign(4, UnwrittenInt);
  ASSERT_PI_SUCCESS(readGlobal(Program.get(), "dg_quad", Values.data(), 2 * sizeof(int32_t)));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return I < 2 ? Expected[I] : UnwrittenInt; });
  Values.assign(4, UnwrittenInt);
  ASSERT_PI_SUCCESS(
      readGlobal(Program.get(), "dg_quad", Values.data(), sizeof(int32_t), 3 * sizeof(int32_t)));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return I == 0 ? Last : UnwrittenInt; });

  // A kernel sees what the partial writes left.
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_copy_quad", 4, Values));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return Expected[I]; });
}

// ---- programs and variables ----

TEST_P(DeviceGlobals, TwoProgramsHaveTheirOwnInstances) {
  ProgramHandle Second;
  ASSERT_NO_FATAL_FAILURE(buildProgram("device_globals", Second));
  const int32_t First = 0x1111, Other = 0x2222;
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_counter_uid", &First, sizeof(First)));
  ASSERT_PI_SUCCESS(writeGlobal(Second.get(), "dg_counter_uid", &Other, sizeof(Other)));
  int32_t Back;
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_counter_uid", Back));
  EXPECT_EQ(Back, First) << "the second program's write reached the first program";
  ASSERT_NO_FATAL_FAILURE(readInt(Second.get(), "dg_counter_uid", Back));
  EXPECT_EQ(Back, Other);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_increment_counter"));
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_counter_uid", Back));
  EXPECT_EQ(Back, 0x1112);
  ASSERT_NO_FATAL_FAILURE(readInt(Second.get(), "dg_counter_uid", Back));
  EXPECT_EQ(Back, 0x2222) << "the second program saw the first one's write or kernel";
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(runOnce(Second.get(), "dg_read_counter", 1, Values));
  EXPECT_EQ(Values[0], 0x2222);
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_read_counter", 1, Values));
  EXPECT_EQ(Values[0], 0x1112);
}

// One program built for two devices of a platform (one context) keeps one instance per
// device: a write and a kernel on one device leave the other device's value alone. PoCL
// offers two devices with POCL_DEVICES="pthread pthread" (ctest conformance_two_devices).
TEST_P(DeviceGlobals, TwoDevicesHaveTheirOwnInstances) {
  pi_device Both[2] = {nullptr, nullptr};
  ContextHandle Shared;
  ASSERT_NO_FATAL_FAILURE(twoDeviceContext(Both, Shared));
  if (IsSkipped())
    return;
  QueueHandle Queues[2];
  for (int I = 0; I < 2; ++I)
    ASSERT_PI_SUCCESS(piQueueCreate(Shared.get(), Both[I], 0, Queues[I].out()));
  const EmbeddedImage *Image = nullptr;
  if (deviceGlobalMechanism() == PI_DEVICE_GLOBAL_MECHANISM_LOWERED)
    Image = findImage("device_globals", Format, true);
  if (Image == nullptr)
    Image = findImage("device_globals", Format);
  ASSERT_NE(Image, nullptr);
  DeviceImage Binary(*Image, *findLinkFormat(Format));
  ProgramHandle TwoDeviceProgram;
  ASSERT_PI_SUCCESS(
      piextProgramCreateWithImage(Shared.get(), 2, Both, Binary.get(), TwoDeviceProgram.out()));
  ASSERT_PI_SUCCESS(piProgramBuild(TwoDeviceProgram.get(), 2, Both, "", nullptr, nullptr));
  const int32_t Values[2] = {0x3100, 0x3200};
  for (int I = 0; I < 2; ++I)
    ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableWrite(
        Queues[I].get(), TwoDeviceProgram.get(), "dg_counter_uid", PI_TRUE, sizeof(int32_t), 0,
        &Values[I], 0, nullptr, nullptr));
  int32_t Back[2] = {UnwrittenInt, UnwrittenInt};
  for (int I = 0; I < 2; ++I)
    ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(
        Queues[I].get(), TwoDeviceProgram.get(), "dg_counter_uid", PI_TRUE, sizeof(int32_t), 0,
        &Back[I], 0, nullptr, nullptr));
  EXPECT_EQ(Back[0], Values[0]) << "the second device's write reached the first device";
  EXPECT_EQ(Back[1], Values[1]);
  KernelHandle Increment;
  ASSERT_NO_FATAL_FAILURE(createKernel(TwoDeviceProgram.get(), "dg_increment_counter", Increment));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  const size_t One = 1;
  ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queues[0].get(), Increment.get(), 1, nullptr, &One,
                                          nullptr, 0, nullptr, nullptr));
  for (int I = 0; I < 2; ++I)
    ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(
        Queues[I].get(), TwoDeviceProgram.get(), "dg_counter_uid", PI_TRUE, sizeof(int32_t), 0,
        &Back[I], 0, nullptr, nullptr));
  EXPECT_EQ(Back[0], Values[0] + 1);
  EXPECT_EQ(Back[1], Values[1]) << "the kernel on the first device changed the second's value";
}

// No kernel names dg_unreferenced; it must not be optimised away or unknown.
TEST_P(DeviceGlobals, UnreferencedVariable) {
  const int32_t Pair[2] = {0x0BADF00D, 0x0CAFE123};
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_unreferenced", Pair, sizeof(Pair)));
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_unreferenced", 2, Values));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return Pair[I]; });
}

// One kernel stores &dg_target in dg_pointer, another dereferences it.
TEST_P(DeviceGlobals, PointerStoredInAGlobal) {
  const int32_t Target = 500;
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_target", &Target, sizeof(Target)));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_store_address"));
  uint64_t Address = 0;
  ASSERT_PI_SUCCESS(readGlobal(Program.get(), "dg_pointer", &Address, sizeof(Address)));
  EXPECT_NE(Address, 0u) << "dg_store_address left dg_pointer null";
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_bump_through_global", 1, Values));
  EXPECT_EQ(Values[0], 500);
  int32_t Back;
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_target", Back));
  EXPECT_EQ(Back, 501);
}

// The address travels through a buffer between kernels, then through the host into
// dg_pointer.
TEST_P(DeviceGlobals, PointerStoredInABuffer) {
  const int32_t Target = 0x3000;
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_target", &Target, sizeof(Target)));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  MemHandle Addresses, Out;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(sizeof(uint64_t), Addresses));
  ASSERT_NO_FATAL_FAILURE(makeBuffer(sizeof(int32_t), Out));
  const pi_mem AddressesMem = Addresses.get(), OutMem = Out.get();
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_store_address_in_buffer", 1, [&](pi_kernel K) {
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(K, 0, &AddressesMem));
  }));
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_bump_through_buffer", 1, [&](pi_kernel K) {
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(K, 0, &AddressesMem));
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(K, 1, &OutMem));
  }));
  int32_t Seen = UnwrittenInt;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Out.get(), PI_TRUE, 0, sizeof(Seen), &Seen,
                                           0, nullptr, nullptr));
  EXPECT_EQ(Seen, 0x3000);
  int32_t Back;
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_target", Back));
  EXPECT_EQ(Back, 0x300A);

  // The host writes the kernel's address into dg_pointer; a kernel follows it.
  uint64_t Address = 0;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Addresses.get(), PI_TRUE, 0,
                                           sizeof(Address), &Address, 0, nullptr, nullptr));
  ASSERT_NE(Address, 0u);
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_pointer", &Address, sizeof(Address)));
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_bump_through_global", 1, Values));
  EXPECT_EQ(Values[0], 0x300A);
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_target", Back));
  EXPECT_EQ(Back, 0x300B);
  // And the device's own store of the address agrees with the buffer's.
  ASSERT_NO_FATAL_FAILURE(launch(Program.get(), "dg_store_address"));
  uint64_t Stored = 0;
  ASSERT_PI_SUCCESS(readGlobal(Program.get(), "dg_pointer", &Stored, sizeof(Stored)));
  EXPECT_EQ(Stored, Address);
}

// ---- host access ----

TEST_P(DeviceGlobals, WriteToReadOnlyIsRefused) {
  int32_t Back;
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_read_only", Back));
  EXPECT_EQ(Back, 0x0DDBA11);
  const int32_t Value = 0x0BAD;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_OPERATION, "dg_read_only",
                         writeGlobal(Program.get(), "dg_read_only", &Value, sizeof(Value)));
  ASSERT_NO_FATAL_FAILURE(readInt(Program.get(), "dg_read_only", Back));
  EXPECT_EQ(Back, 0x0DDBA11) << "the refused write changed the variable";
}

TEST_P(DeviceGlobals, ReadOfWriteOnlyIsRefused) {
  const int32_t Value = 0x7777;
  ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_write_only", &Value, sizeof(Value)));
  int32_t Back = UnwrittenInt;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_OPERATION, "dg_write_only",
                         readGlobal(Program.get(), "dg_write_only", &Back, sizeof(Back)));
  EXPECT_EQ(Back, UnwrittenInt) << "the refused read wrote its destination";
  // A kernel sees the host's write.
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_copy_access_modes", 3, Values));
  EXPECT_EQ(Values[1], 0x7777);
}

TEST_P(DeviceGlobals, NoHostAccessRefusesBoth) {
  const int32_t Value = 0x0BAD;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_OPERATION, "dg_no_host_access",
                         writeGlobal(Program.get(), "dg_no_host_access", &Value, sizeof(Value)));
  int32_t Back = UnwrittenInt;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_OPERATION, "dg_no_host_access",
                         readGlobal(Program.get(), "dg_no_host_access", &Back, sizeof(Back)));
  EXPECT_EQ(Back, UnwrittenInt) << "the refused read wrote its destination";
  // The refused write left the initializer, as a kernel sees.
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(runOnce(Program.get(), "dg_copy_access_modes", 3, Values));
  EXPECT_EQ(Values[0], 0x0DDBA11);
  EXPECT_EQ(Values[2], 0x5EC2E7) << "the refused write changed the variable";
}

// ---- the error contract ----

// dg_quad with a known value, so that each refused call can be shown to leave it.
class DeviceGlobalErrors : public DeviceGlobals {
protected:
  void SetUp() override {
    DeviceGlobals::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    ASSERT_PI_SUCCESS(writeGlobal(Program.get(), "dg_quad", Known, QuadBytes));
  }
  void expectUnchanged() {
    std::vector<int32_t> Values;
    ASSERT_NO_FATAL_FAILURE(readInts(Program.get(), "dg_quad", 4, Values));
    EXPECT_EVERY_ELEMENT(Values, [&](size_t I) { return Known[I]; })
        << "a refused call changed dg_quad";
  }
  static bool untouched(const int32_t (&Destination)[4]) {
    for (int32_t Value : Destination)
      if (Value != UnwrittenInt)
        return false;
    return true;
  }

  const int32_t Known[4] = {0x0A0B0C0D, 0x1A1B1C1D, 0x2A2B2C2D, 0x3A3B3C3D};
  const int32_t Other[4] = {0x71727374, 0x75767778, 0x797A7B7C, 0x7D7E7F70};
  int32_t Destination[4] = {UnwrittenInt, UnwrittenInt, UnwrittenInt, UnwrittenInt};
};
DGLINK_INSTANTIATE_FOR_DEVICES(DeviceGlobalErrors);

TEST_P(DeviceGlobalErrors, UnknownName) {
  const char *Missing = "dg_no_such_variable";
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, Missing,
                         writeGlobal(Program.get(), Missing, Other, QuadBytes));
  EXPECT_TRUE(containsIgnoringCase(lastErrorMessage(), "program"))
      << "the message does not name the program: " << lastErrorMessage();
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, Missing,
                         readGlobal(Program.get(), Missing, Destination, QuadBytes));
  EXPECT_TRUE(untouched(Destination)) << "the refused read wrote its destination";
  expectUnchanged();
}

TEST_P(DeviceGlobalErrors, RangePastTheEnd) {
  // {Offset, Count}: one byte too many, ranges ending past the end, an offset at
  // and past the end, and sums that wrap around.
  const std::pair<size_t, size_t> Ranges[] = {{0, QuadBytes + 1}, {12, 8},       {QuadBytes, 4},
                                              {QuadBytes + 4, 4}, {SIZE_MAX, 2}, {4, SIZE_MAX}};
  // Large enough for every finite range, so that a wrong copy is seen, not a crash.
  const std::vector<int32_t> Source(16, 0x7F7F7F7F);
  std::vector<int32_t> Sink(16, UnwrittenInt);
  for (const auto &[Offset, Count] : Ranges) {
    SCOPED_TRACE(testing::Message() << "offset " << Offset << ", count " << Count);
    EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "dg_quad",
                           writeGlobal(Program.get(), "dg_quad", Source.data(), Count, Offset));
    EXPECT_TRUE(containsIgnoringCase(lastErrorMessage(), std::to_string(QuadBytes)))
        << "the message does not give the size: " << lastErrorMessage();
    EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "dg_quad",
                           readGlobal(Program.get(), "dg_quad", Sink.data(), Count, Offset));
    EXPECT_EVERY_ELEMENT(Sink, [](size_t) { return UnwrittenInt; })
        << "the refused read wrote its destination";
  }
  expectUnchanged();
}

TEST_P(DeviceGlobalErrors, NullNameOrPointer) {
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Name",
                         writeGlobal(Program.get(), nullptr, Other, QuadBytes));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Name",
                         readGlobal(Program.get(), nullptr, Destination, QuadBytes));
  EXPECT_TRUE(untouched(Destination)) << "the refused read wrote its destination";
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Src",
                         writeGlobal(Program.get(), "dg_quad", nullptr, QuadBytes));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Dst",
                         readGlobal(Program.get(), "dg_quad", nullptr, QuadBytes));
  expectUnchanged();
}

TEST_P(DeviceGlobalErrors, NullQueue) {
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "Queue",
                         piextEnqueueDeviceGlobalVariableWrite(nullptr, Program.get(), "dg_quad",
                                                               PI_TRUE, QuadBytes, 0, Other, 0,
                                                               nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "Queue",
                         piextEnqueueDeviceGlobalVariableRead(nullptr, Program.get(), "dg_quad",
                                                              PI_TRUE, QuadBytes, 0, Destination, 0,
                                                              nullptr, nullptr));
  EXPECT_TRUE(untouched(Destination)) << "the refused read wrote its destination";
  expectUnchanged();
}

TEST_P(DeviceGlobalErrors, NullProgram) {
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM, "Program",
                         writeGlobal(nullptr, "dg_quad", Other, QuadBytes));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM, "Program",
                         readGlobal(nullptr, "dg_quad", Destination, QuadBytes));
  EXPECT_TRUE(untouched(Destination)) << "the refused read wrote its destination";
  expectUnchanged();
}

// A program that was only created has no variables yet.
TEST_P(DeviceGlobalErrors, ProgramNotBuilt) {
  ProgramHandle Unbuilt;
  ASSERT_NO_FATAL_FAILURE(createProgram("device_globals", Format, Unbuilt));
  const std::string DeviceName = deviceString(PI_DEVICE_INFO_NAME);
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM_EXECUTABLE, DeviceName.c_str(),
                         writeGlobal(Unbuilt.get(), "dg_quad", Other, QuadBytes));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM_EXECUTABLE, DeviceName.c_str(),
                         readGlobal(Unbuilt.get(), "dg_quad", Destination, QuadBytes));
  EXPECT_TRUE(untouched(Destination)) << "the refused read wrote its destination";
  expectUnchanged();
  // Once built, the program's dg_quad starts at zero: the refused write left nothing.
  ASSERT_PI_SUCCESS(piProgramBuild(Unbuilt.get(), 1, &Device, "", nullptr, nullptr));
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(readInts(Unbuilt.get(), "dg_quad", 4, Values));
  EXPECT_EVERY_ELEMENT(Values, [](size_t) { return 0; });
}

TEST_P(DeviceGlobalErrors, BadWaitList) {
  EventHandle Event;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                  piextEnqueueDeviceGlobalVariableWrite(Queue.get(), Program.get(), "dg_quad",
                                                        PI_TRUE, QuadBytes, 0, Other, 1, nullptr,
                                                        Event.out()));
  EXPECT_FALSE(Event) << "the refused write returned an event";
  EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                  piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(), "dg_quad",
                                                       PI_TRUE, QuadBytes, 0, Destination, 1,
                                                       nullptr, Event.out()));
  EXPECT_FALSE(Event) << "the refused read returned an event";
  EXPECT_TRUE(untouched(Destination)) << "the refused read wrote its destination";
  expectUnchanged();
}

// ---- CP027's example ----

// shared/seeds/cp027-global-device-symbols.md, end of the document, step by step.
class SymbolsProposal : public DeviceGlobals {
protected:
  void SetUp() override {
    DeviceGlobals::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    ASSERT_NO_FATAL_FAILURE(buildProgram("symbols_proposal", Example));
  }
  ProgramHandle Example;
};
DGLINK_INSTANTIATE_FOR_DEVICES(SymbolsProposal);

TEST_P(SymbolsProposal, Example) {
  const int32_t V1 = 1234, V2 = 5678;
  std::vector<int32_t> Result;
  // copy_to_symbol<GV>(v1); a kernel stores GV; res == v1.
  ASSERT_PI_SUCCESS(writeGlobal(Example.get(), "GV", &V1, sizeof(V1)));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(runOnce(Example.get(), "kernel1", 1, Result));
  EXPECT_EQ(Result[0], V1);
  // copy_to_symbol<GV>(v2); another kernel; res == v2.
  ASSERT_PI_SUCCESS(writeGlobal(Example.get(), "GV", &V2, sizeof(V2)));
  ASSERT_NO_FATAL_FAILURE(runOnce(Example.get(), "kernel2", 1, Result));
  EXPECT_EQ(Result[0], V2);
  // copy_to_symbol<MutableGV>(v1); a kernel sets MutableGV = v2; update_host gives v2.
  ASSERT_PI_SUCCESS(writeGlobal(Example.get(), "MutableGV", &V1, sizeof(V1)));
  ASSERT_NO_FATAL_FAILURE(launch(Example.get(), "kernel3", 1, [&](pi_kernel Kernel) {
    ASSERT_PI_SUCCESS(piKernelSetArg(Kernel, 0, sizeof(V2), &V2));
  }));
  int32_t Mutable;
  ASSERT_NO_FATAL_FAILURE(readInt(Example.get(), "MutableGV", Mutable));
  EXPECT_EQ(Mutable, V2);
  // fill<GVArray>(42), then distinct values; a kernel sums the 42 elements each time.
  const std::vector<int32_t> Filled(42, 42);
  ASSERT_PI_SUCCESS(
      writeGlobal(Example.get(), "cp027::GVArray", Filled.data(), 42 * sizeof(int32_t)));
  ASSERT_NO_FATAL_FAILURE(runOnce(Example.get(), "sum_gv_array", 1, Result));
  EXPECT_EQ(Result[0], 42 * 42);
  std::vector<int32_t> Distinct(42);
  int32_t Sum = 0;
  for (int32_t I = 0; I < 42; ++I)
    Sum += Distinct[I] = I * I + 7;
  ASSERT_PI_SUCCESS(
      writeGlobal(Example.get(), "cp027::GVArray", Distinct.data(), 42 * sizeof(int32_t)));
  ASSERT_NO_FATAL_FAILURE(runOnce(Example.get(), "sum_gv_array", 1, Result));
  EXPECT_EQ(Result[0], Sum);
  std::vector<int32_t> Back;
  ASSERT_NO_FATAL_FAILURE(readInts(Example.get(), "cp027::GVArray", 42, Back));
  EXPECT_EQ(Back, Distinct);
}

// ---- devices without device-global access, and images they cannot serve ----

// Both entry points refuse with PI_ERROR_INVALID_OPERATION and a message, return no
// event and leave the host memory alone, for a variable that exists and a valid range:
// on a device without device-global access, and on a "lowered" device (OpenCL) given
// the image whose device globals were not lowered.
class DeviceGlobalsUnsupported : public QueueTest {};
DGLINK_INSTANTIATE_FOR_DEVICES(DeviceGlobalsUnsupported);

TEST_P(DeviceGlobalsUnsupported, ReadAndWriteRefused) {
  const pi_device_global_mechanism Mechanism = mechanismOf(Device);
  if (Mechanism == PI_DEVICE_GLOBAL_MECHANISM_NATIVE)
    GTEST_SKIP() << "device finds device globals by name (mechanism native): the DeviceGlobals "
                    "scenarios cover it";
  std::string Format, WhyNot;
  if (!chooseFormat(Format, WhyNot))
    GTEST_SKIP() << WhyNot;
  if (Mechanism == PI_DEVICE_GLOBAL_MECHANISM_LOWERED && Format == "spirv64")
    GTEST_SKIP() << "the OpenCL adapter lowers the device globals of SPIR-V that was not lowered "
                    "itself (the DeviceGlobals scenarios with DGLINK_CONFORMANCE_UNLOWERED=1 "
                    "cover it)";
  ProgramHandle Program;
  if (Mechanism == PI_DEVICE_GLOBAL_MECHANISM_LOWERED) {
    // The image that keeps its device globals at program scope needs OpenCL C 2.0, which
    // some OpenCL devices (newer PoCL) do not build at all.
    ASSERT_NO_FATAL_FAILURE(createProgram("device_globals", Format, Program, false));
    if (piProgramBuild(Program.get(), 1, &Device, "", nullptr, nullptr) != PI_SUCCESS)
      GTEST_SKIP() << "the device does not build the device_globals image that was not lowered "
                      "(program-scope variables): "
                   << lastErrorMessage();
  } else {
    ASSERT_NO_FATAL_FAILURE(buildProgram("device_globals", Format, Program));
  }

  int32_t Destination[4] = {UnwrittenInt, UnwrittenInt, UnwrittenInt, UnwrittenInt};
  EventHandle Event;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_OPERATION,
                  piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(), "dg_quad",
                                                       PI_TRUE, QuadBytes, 0, Destination, 0,
                                                       nullptr, Event.out()));
  EXPECT_FALSE(Event) << "the refused read returned an event";
  for (int32_t Value : Destination)
    EXPECT_EQ(Value, UnwrittenInt) << "the refused read wrote its destination";

  const int32_t Source[4] = {0x01010101, 0x02020202, 0x03030303, 0x04040404};
  EXPECT_PI_ERROR(PI_ERROR_INVALID_OPERATION, piextEnqueueDeviceGlobalVariableWrite(
                                                  Queue.get(), Program.get(), "dg_quad", PI_FALSE,
                                                  QuadBytes, 0, Source, 0, nullptr, Event.out()));
  EXPECT_FALSE(Event) << "the refused write returned an event";
  // The unique id that differs from its symbol is refused the same way.
  EXPECT_PI_ERROR(PI_ERROR_INVALID_OPERATION,
                  piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(), "dg_counter_uid",
                                                       PI_TRUE, sizeof(int32_t), 0, Destination, 0,
                                                       nullptr, nullptr));
  EXPECT_EQ(Destination[0], UnwrittenInt) << "the refused read wrote its destination";
  EXPECT_PI_SUCCESS(piQueueFinish(Queue.get()));
}

} // namespace
} // namespace dglink::conformance
