// CP027's symbol API (include/dglink/symbol.h), per device, on the conformance suite's
// copy of the proposal's device code (conformance/device_code/symbols_proposal.cl: GV,
// MutableGV, cp027::GVArray[42] and the kernels that read and write them), built by the
// runtime: host -> device -> kernel -> host round trips, update_host after a kernel
// wrote, fill, element offsets, every out-of-range copy refused with its exact error and
// nothing written, a host value of the wrong size, two programs of the same module with
// two device instances, two devices of one context with an instance each, and 16 threads
// copying at once.
#include "runtime_fixture.h"

#include <dglink/symbol.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

namespace dglink::runtime {
namespace {

using conformance::ContextHandle;
using conformance::lastErrorMessage;
using conformance::MemHandle;
using conformance::QueueHandle;

// The proposal's host symbols, with its initial host values.
symbol<int32_t> GV("GV", 42);
symbol<int32_t> MutableGV("MutableGV", 21);
symbol<int32_t[42]> GVArray("cp027::GVArray");

constexpr size_t ArrayLength = 42;
constexpr int32_t Sentinel = 0x5EE5EE5;

std::vector<int32_t> distinctValues(int32_t Seed) {
  std::vector<int32_t> Values(ArrayLength);
  for (size_t I = 0; I < ArrayLength; ++I)
    Values[I] = Seed + int32_t(I * I) + 7;
  return Values;
}

std::vector<int32_t> hostArray() { return {GVArray.begin(), GVArray.end()}; }

class Symbols : public RuntimeBuildTest {
protected:
  void SetUp() override {
    RuntimeBuildTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    if (deviceGlobalMechanism() == PI_DEVICE_GLOBAL_MECHANISM_NONE)
      GTEST_SKIP() << "the device has no device-global access (PI_DEVICE_GLOBAL_MECHANISM_NONE)";
    GV = 42;
    MutableGV = 21;
    for (int32_t &Element : GVArray)
      Element = 0;
    ASSERT_NO_FATAL_FAILURE(registerConformance("symbols_proposal", Module));
    Expected<Program> Built = Rt->getOrBuildProgram(request("kernel1", Module));
    ASSERT_TRUE(Built.ok()) << Built.status().Message;
    Example = *Built;
    Q = std::make_unique<SymbolQueue>(Queue.get(), Example);
  }
  void TearDown() override {
    Q.reset();
    Example = Program();
    RuntimeBuildTest::TearDown();
  }

  // A kernel of the program of Module (the fixture's by default).
  void kernel(const std::string &Name, Kernel &Out, ModuleId From = 0) {
    Expected<Kernel> Made = Rt->createKernel(request(Name, From == 0 ? Module : From));
    ASSERT_TRUE(Made.ok()) << Made.status().Message;
    Out = std::move(*Made);
  }
  // kernel1 (or kernel2): the value of GV that the device sees.
  void deviceGV(const char *Name, int32_t &Out, ModuleId From = 0) {
    Kernel K;
    ASSERT_NO_FATAL_FAILURE(kernel(Name, K, From));
    std::vector<int32_t> Values;
    ASSERT_NO_FATAL_FAILURE(runOnBuffer(K.get(), 1, Values));
    Out = Values[0];
  }
  // kernel3: MutableGV = Value on the device.
  void setMutable(int32_t Value, ModuleId From = 0) {
    Kernel K;
    ASSERT_NO_FATAL_FAILURE(kernel("kernel3", K, From));
    ASSERT_PI_SUCCESS(piKernelSetArg(K.get(), 0, sizeof(Value), &Value));
    const size_t One = 1;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), K.get(), 1, nullptr, &One, nullptr, 0,
                                            nullptr, nullptr));
    ASSERT_PI_SUCCESS(piQueueFinish(Queue.get()));
  }
  // sum_gv_array: the sum of the device's GVArray.
  void deviceSum(int32_t &Out, ModuleId From = 0) {
    Kernel K;
    ASSERT_NO_FATAL_FAILURE(kernel("sum_gv_array", K, From));
    std::vector<int32_t> Values;
    ASSERT_NO_FATAL_FAILURE(runOnBuffer(K.get(), 1, Values));
    Out = Values[0];
  }
  // The device's GVArray, read through the API.
  void deviceArray(SymbolQueue &Through, std::vector<int32_t> &Out) {
    Out.assign(ArrayLength, Sentinel);
    const Status Read = Through.copy_from_symbol(GVArray, Out.data());
    ASSERT_TRUE(Read.ok()) << Read.Message;
  }

  ModuleId Module = 0;
  Program Example;
  std::unique_ptr<SymbolQueue> Q;
};
DGLINK_INSTANTIATE_FOR_DEVICES(Symbols);

TEST_P(Symbols, ScalarCopiedToTheDeviceIsWhatKernelsRead) {
  const int32_t V1 = 1234, V2 = 5678;
  ASSERT_TRUE(Q->copy_to_symbol(GV, V1).ok());
  EXPECT_EQ(int32_t(GV), 42) << "copy_to_symbol changed the host value";
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  int32_t Seen = 0;
  ASSERT_NO_FATAL_FAILURE(deviceGV("kernel1", Seen));
  EXPECT_EQ(Seen, V1);
  ASSERT_TRUE(Q->copy_to_symbol(GV, V2).ok());
  ASSERT_NO_FATAL_FAILURE(deviceGV("kernel2", Seen));
  EXPECT_EQ(Seen, V2);
  // update_device sends the host value.
  GV = -17;
  ASSERT_TRUE(Q->update_device(GV).ok());
  ASSERT_NO_FATAL_FAILURE(deviceGV("kernel1", Seen));
  EXPECT_EQ(Seen, -17);
  EXPECT_EQ(*GV.host(), -17);
}

// GV's device global is declared host_access write: reading it back is the adapter's
// refusal, passed on with the symbol's name, and the host value stays as it was.
TEST_P(Symbols, HostAccessOfTheDeviceGlobalIsKept) {
  int32_t Destination = Sentinel;
  const Status Read = Q->copy_from_symbol(GV, Destination);
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "symbol 'GV': ", Read);
  EXPECT_NE(Read.Message.find("host_access 'write'"), std::string::npos) << Read.Message;
  EXPECT_EQ(Destination, Sentinel);
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "symbol 'GV': ", Q->update_host(GV));
  EXPECT_EQ(int32_t(GV), 42);
}

TEST_P(Symbols, UpdateHostAfterAKernelWrote) {
  const int32_t V1 = 1234, V2 = 5678;
  ASSERT_TRUE(Q->copy_to_symbol(MutableGV, V1).ok());
  int32_t Back = Sentinel;
  ASSERT_TRUE(Q->copy_from_symbol(MutableGV, Back).ok());
  EXPECT_EQ(Back, V1);
  EXPECT_EQ(int32_t(MutableGV), 21);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(setMutable(V2));
  EXPECT_EQ(int32_t(MutableGV), 21) << "a kernel's write reached the host value by itself";
  const Status Updated = Q->update_host(MutableGV);
  ASSERT_TRUE(Updated.ok()) << Updated.Message;
  EXPECT_EQ(int32_t(MutableGV), V2);
}

TEST_P(Symbols, ArrayRoundTrip) {
  const std::vector<int32_t> Values = distinctValues(3);
  std::copy(Values.begin(), Values.end(), GVArray.begin());
  ASSERT_TRUE(Q->update_device(GVArray).ok());
  for (int32_t &Element : GVArray)
    Element = Sentinel;
  std::vector<int32_t> Back;
  ASSERT_NO_FATAL_FAILURE(deviceArray(*Q, Back));
  EXPECT_EQ(Back, Values);
  const Status Updated = Q->update_host(GVArray);
  ASSERT_TRUE(Updated.ok()) << Updated.Message;
  EXPECT_EQ(hostArray(), Values);
  EXPECT_EQ(GVArray[41], Values[41]);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  int32_t Sum = 0;
  ASSERT_NO_FATAL_FAILURE(deviceSum(Sum));
  EXPECT_EQ(Sum, std::accumulate(Values.begin(), Values.end(), 0));
}

TEST_P(Symbols, FillSetsEveryElementOnTheDeviceOnly) {
  const std::vector<int32_t> HostValues = distinctValues(100);
  std::copy(HostValues.begin(), HostValues.end(), GVArray.begin());
  ASSERT_TRUE(Q->fill(GVArray, 42).ok());
  EXPECT_EQ(hostArray(), HostValues) << "fill changed the host value";
  std::vector<int32_t> Back;
  ASSERT_NO_FATAL_FAILURE(deviceArray(*Q, Back));
  EXPECT_EQ(Back, std::vector<int32_t>(ArrayLength, 42));
  // A part: elements [5, 15).
  ASSERT_TRUE(Q->fill(GVArray, -1, 10, 5).ok());
  ASSERT_NO_FATAL_FAILURE(deviceArray(*Q, Back));
  for (size_t I = 0; I < ArrayLength; ++I)
    EXPECT_EQ(Back[I], I >= 5 && I < 15 ? -1 : 42) << "element " << I;
  // A scalar symbol: fill is a copy of the value.
  ASSERT_TRUE(Q->fill(MutableGV, 99).ok());
  int32_t Scalar = 0;
  ASSERT_TRUE(Q->copy_from_symbol(MutableGV, Scalar).ok());
  EXPECT_EQ(Scalar, 99);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  int32_t Sum = 0;
  ASSERT_NO_FATAL_FAILURE(deviceSum(Sum));
  EXPECT_EQ(Sum, 32 * 42 - 10);
}

TEST_P(Symbols, ElementOffsets) {
  const std::vector<int32_t> Base = distinctValues(0);
  ASSERT_TRUE(Q->copy_to_symbol(GVArray, Base.data()).ok());
  const int32_t Tail[3] = {-7, -8, -9};
  ASSERT_TRUE(Q->copy_to_symbol(GVArray, Tail, 3, 39).ok());
  const int32_t Middle = 555;
  ASSERT_TRUE(Q->copy_to_symbol(GVArray, &Middle, 1, 20).ok());
  std::vector<int32_t> Expected = Base;
  Expected[39] = -7;
  Expected[40] = -8;
  Expected[41] = -9;
  Expected[20] = 555;
  std::vector<int32_t> Back;
  ASSERT_NO_FATAL_FAILURE(deviceArray(*Q, Back));
  EXPECT_EQ(Back, Expected);
  // Reads at an offset land at the start of the destination.
  int32_t Two[3] = {Sentinel, Sentinel, Sentinel};
  ASSERT_TRUE(Q->copy_from_symbol(GVArray, Two, 2, 40).ok());
  EXPECT_EQ(Two[0], -8);
  EXPECT_EQ(Two[1], -9);
  EXPECT_EQ(Two[2], Sentinel);
  // Nothing at the end, and nothing at all, are copies of no element.
  ASSERT_TRUE(Q->copy_to_symbol(GVArray, Tail, 0, 42).ok());
  ASSERT_TRUE(Q->copy_from_symbol(GVArray, Two, 0, 0).ok());
  EXPECT_EQ(Two[0], -8);
  ASSERT_NO_FATAL_FAILURE(deviceArray(*Q, Back));
  EXPECT_EQ(Back, Expected);
}

// Every range that leaves the array: the exact error, and the device instance and the
// destination untouched.
TEST_P(Symbols, OutOfRangeCopiesAreRefusedAndWriteNothing) {
  const std::vector<int32_t> Base = distinctValues(50);
  ASSERT_TRUE(Q->copy_to_symbol(GVArray, Base.data()).ok());
  const std::vector<int32_t> Source(64, -3);
  constexpr size_t Max = std::numeric_limits<size_t>::max();
  struct Case {
    size_t Count, Offset;
    std::string Message;
  };
  const std::string Name = "symbol 'cp027::GVArray': ";
  const std::vector<Case> Cases = {
      {1, 42, Name + "offset 42 + count 1 is past its 42 elements"},
      {0, 43, Name + "offset 43 is past its 42 elements"},
      {1, 43, Name + "offset 43 is past its 42 elements"},
      {3, 40, Name + "offset 40 + count 3 is past its 42 elements"},
      {43, 0, Name + "offset 0 + count 43 is past its 42 elements"},
      {Max, 1, Name + "offset 1 + count " + std::to_string(Max) + " is past its 42 elements"},
      {1, Max, Name + "offset " + std::to_string(Max) + " is past its 42 elements"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE("count " + std::to_string(C.Count) + " offset " + std::to_string(C.Offset));
    const Status Written = Q->copy_to_symbol(GVArray, Source.data(), C.Count, C.Offset);
    EXPECT_EQ(Written.Code, PI_ERROR_INVALID_VALUE);
    EXPECT_EQ(Written.Message, C.Message);
    const Status Filled = Q->fill(GVArray, -4, C.Count, C.Offset);
    EXPECT_EQ(Filled.Code, PI_ERROR_INVALID_VALUE);
    EXPECT_EQ(Filled.Message, C.Message);
    std::vector<int32_t> Destination(64, Sentinel);
    const Status Read = Q->copy_from_symbol(GVArray, Destination.data(), C.Count, C.Offset);
    EXPECT_EQ(Read.Code, PI_ERROR_INVALID_VALUE);
    EXPECT_EQ(Read.Message, C.Message);
    EXPECT_EQ(Destination, std::vector<int32_t>(64, Sentinel)) << "a refused read wrote";
  }
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "symbol 'cp027::GVArray': the source is null",
                Q->copy_to_symbol(GVArray, nullptr, 1, 0));
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "symbol 'cp027::GVArray': the destination is null",
                Q->copy_from_symbol(GVArray, nullptr, 1, 0));
  std::vector<int32_t> Back;
  ASSERT_NO_FATAL_FAILURE(deviceArray(*Q, Back));
  EXPECT_EQ(Back, Base) << "a refused copy reached the device";
}

// Host values of another size than the device instance's, and a name no program has.
TEST_P(Symbols, HostValueOfAnotherSizeIsRefused) {
  const std::vector<int32_t> Base = distinctValues(7);
  ASSERT_TRUE(Q->copy_to_symbol(GVArray, Base.data()).ok());
  Expected<size_t> Size = Q->device_size(GVArray);
  ASSERT_TRUE(Size.ok()) << Size.status().Message;
  EXPECT_EQ(*Size, 42 * sizeof(int32_t));
  symbol<int32_t[41]> Short("cp027::GVArray", 1);
  symbol<int32_t[43]> Long("cp027::GVArray", 2);
  symbol<int64_t> Wide("MutableGV", 3);
  const std::vector<std::pair<Status, size_t>> Refusals = {
      {Q->update_device(Short), 164},
      {Q->update_device(Long), 172},
      {Q->fill(Short, 5), 164},
      {Q->update_host(Long), 172},
      {Q->copy_to_symbol(Long, Base.data(), 1, 0), 172}};
  for (const auto &[Refused, HostBytes] : Refusals) {
    EXPECT_EQ(Refused.Code, PI_ERROR_INVALID_BUFFER_SIZE) << Refused.Message;
    EXPECT_EQ(Refused.Message.rfind("symbol 'cp027::GVArray': the host value has " +
                                        std::to_string(HostBytes) +
                                        " bytes but its device instance in program ",
                                    0),
              0u)
        << Refused.Message;
    EXPECT_NE(Refused.Message.find(" has 168 bytes"), std::string::npos) << Refused.Message;
  }
  EXPECT_STATUS(PI_ERROR_INVALID_BUFFER_SIZE,
                "symbol 'MutableGV': the host value has 8 bytes but its device instance",
                Q->update_device(Wide));
  EXPECT_EQ(int64_t(Wide), 3);
  EXPECT_EQ(Long[42], 2) << "a refused update_host wrote the host value";
  std::vector<int32_t> Back;
  ASSERT_NO_FATAL_FAILURE(deviceArray(*Q, Back));
  EXPECT_EQ(Back, Base) << "a refused copy reached the device";
  int32_t Mutable = Sentinel;
  ASSERT_TRUE(Q->copy_from_symbol(MutableGV, Mutable).ok());
  EXPECT_NE(Mutable, 3);

  symbol<int32_t> Missing("no_such_global", 1);
  const Status Unknown = Q->update_device(Missing);
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "symbol 'no_such_global': ", Unknown);
  EXPECT_NE(Unknown.Message.find("is not in program"), std::string::npos) << Unknown.Message;
}

TEST_P(Symbols, BindingWithoutQueueOrProgram) {
  SymbolQueue NoQueue(nullptr, Example);
  EXPECT_STATUS(PI_ERROR_INVALID_QUEUE, "symbol 'GV': the binding has no queue",
                NoQueue.update_device(GV));
  SymbolQueue NoProgram(Queue.get(), Program());
  EXPECT_STATUS(PI_ERROR_INVALID_PROGRAM, "symbol 'cp027::GVArray': the binding has no program",
                NoProgram.fill(GVArray, 1));
  // A binding to the raw pi_program is the same binding.
  SymbolQueue Raw(Queue.get(), Example.get());
  ASSERT_TRUE(Raw.copy_to_symbol(MutableGV, 808).ok());
  int32_t Back = 0;
  ASSERT_TRUE(Q->copy_from_symbol(MutableGV, Back).ok());
  EXPECT_EQ(Back, 808);
}

// CP027: loading and building the same module twice materialises two distinct symbols.
TEST_P(Symbols, TwoProgramsOfOneModuleHoldTwoInstances) {
  ModuleId Again = 0;
  ASSERT_NO_FATAL_FAILURE(registerConformance("symbols_proposal", Again));
  Expected<Program> Second = Rt->getOrBuildProgram(request("kernel1", Again));
  ASSERT_TRUE(Second.ok()) << Second.status().Message;
  ASSERT_NE(Second->get(), Example.get()) << "the second load gave the first program";
  SymbolQueue Q2(Queue.get(), *Second);
  ASSERT_TRUE(Q->copy_to_symbol(MutableGV, 111).ok());
  ASSERT_TRUE(Q2.copy_to_symbol(MutableGV, 222).ok());
  ASSERT_TRUE(Q->fill(GVArray, 1).ok());
  ASSERT_TRUE(Q2.fill(GVArray, 2).ok());
  ASSERT_TRUE(Q->copy_to_symbol(GV, 10).ok());
  ASSERT_TRUE(Q2.copy_to_symbol(GV, 20).ok());
  ASSERT_TRUE(Q->update_host(MutableGV).ok());
  EXPECT_EQ(int32_t(MutableGV), 111);
  ASSERT_TRUE(Q2.update_host(MutableGV).ok());
  EXPECT_EQ(int32_t(MutableGV), 222);
  std::vector<int32_t> First, Other;
  ASSERT_NO_FATAL_FAILURE(deviceArray(*Q, First));
  ASSERT_NO_FATAL_FAILURE(deviceArray(Q2, Other));
  EXPECT_EQ(First, std::vector<int32_t>(ArrayLength, 1));
  EXPECT_EQ(Other, std::vector<int32_t>(ArrayLength, 2));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  int32_t Seen = 0;
  ASSERT_NO_FATAL_FAILURE(deviceGV("kernel1", Seen, Module));
  EXPECT_EQ(Seen, 10);
  ASSERT_NO_FATAL_FAILURE(deviceGV("kernel1", Seen, Again));
  EXPECT_EQ(Seen, 20);
  // A kernel of the second program writes its instance only.
  ASSERT_NO_FATAL_FAILURE(setMutable(333, Again));
  ASSERT_TRUE(Q->update_host(MutableGV).ok());
  EXPECT_EQ(int32_t(MutableGV), 111);
  ASSERT_TRUE(Q2.update_host(MutableGV).ok());
  EXPECT_EQ(int32_t(MutableGV), 333);
  int32_t Sum = 0;
  ASSERT_NO_FATAL_FAILURE(deviceSum(Sum, Again));
  EXPECT_EQ(Sum, 2 * 42);
}

// Two devices of one context (CUDA/HIP/OpenCL with several GPUs; two PoCL devices in CI):
// the program the runtime builds for each device holds its own instance of every symbol,
// and each device's kernels read their own.
TEST_P(Symbols, TwoDevicesOfOneContextHoldTwoInstances) {
  pi_device Both[2] = {nullptr, nullptr};
  ContextHandle Two;
  ASSERT_NO_FATAL_FAILURE(twoDeviceContext(Both, Two));
  if (IsSkipped())
    return;
  QueueHandle Queues[2];
  std::vector<Program> Programs;
  std::vector<std::unique_ptr<SymbolQueue>> Through;
  for (int I = 0; I < 2; ++I) {
    ASSERT_PI_SUCCESS(piQueueCreate(Two.get(), Both[I], 0, Queues[I].out()));
    ProgramRequest Request = request("kernel1");
    Request.Context = Two.get();
    Request.Device = Both[I];
    Expected<Program> Built = Rt->getOrBuildProgram(Request);
    ASSERT_TRUE(Built.ok()) << Built.status().Message;
    Programs.push_back(*Built);
    Through.push_back(std::make_unique<SymbolQueue>(Queues[I].get(), Programs.back()));
  }
  ASSERT_NE(Programs[0].get(), Programs[1].get()) << "one program for both devices";
  for (int I = 0; I < 2; ++I) {
    ASSERT_TRUE(Through[I]->copy_to_symbol(GV, 1000 + I).ok());
    ASSERT_TRUE(Through[I]->copy_to_symbol(MutableGV, 2000 + I).ok());
    ASSERT_TRUE(Through[I]->fill(GVArray, 30 + I).ok());
  }
  for (int I = 0; I < 2; ++I) {
    ASSERT_TRUE(Through[I]->update_host(MutableGV).ok());
    EXPECT_EQ(int32_t(MutableGV), 2000 + I) << "device " << I;
    std::vector<int32_t> Array;
    ASSERT_NO_FATAL_FAILURE(deviceArray(*Through[I], Array));
    EXPECT_EQ(Array, std::vector<int32_t>(ArrayLength, 30 + I)) << "device " << I;
  }
  for (int I = 0; I < 2; ++I) {
    ProgramRequest Request = request("kernel1");
    Request.Context = Two.get();
    Request.Device = Both[I];
    Expected<Kernel> Read = Rt->createKernel(Request);
    ASSERT_TRUE(Read.ok()) << Read.status().Message;
    MemHandle Buffer;
    ASSERT_PI_SUCCESS(piMemBufferCreate(Two.get(), PI_MEM_FLAGS_ACCESS_RW, sizeof(int32_t), nullptr,
                                        Buffer.out()));
    const pi_mem Mem = Buffer.get();
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Read->get(), 0, &Mem));
    if (!executesKernels())
      continue; // the kernel is made and its argument set on each device; nothing runs
    const size_t One = 1;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queues[I].get(), Read->get(), 1, nullptr, &One, nullptr,
                                            0, nullptr, nullptr));
    int32_t Seen = Sentinel;
    ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queues[I].get(), Mem, PI_TRUE, 0, sizeof(Seen), &Seen,
                                             0, nullptr, nullptr));
    EXPECT_EQ(Seen, 1000 + I) << "kernel1 on device " << I << " read another device's GV";
  }
  Through.clear();
  Programs.clear();
  Rt->forgetContext(Two.get());
  DGLINK_REQUIRE_KERNEL_EXECUTION();
}

// 16 threads, each on its own two elements, write and read back at once: half share the
// fixture's binding, half make their own (each learns the device size itself).
TEST_P(Symbols, SixteenThreadsCopyAtOnce) {
  ASSERT_TRUE(Q->fill(GVArray, -1).ok());
  constexpr int Threads = 16, Rounds = 25;
  constexpr size_t Written = size_t(Threads) * 2; // elements [0, 32): two per thread
  std::atomic<int> Mismatches{0};
  std::mutex FirstMutex;
  std::string First;
  auto record = [&](const std::string &What) {
    ++Mismatches;
    std::lock_guard<std::mutex> Lock(FirstMutex);
    if (First.empty())
      First = What;
  };
  std::vector<std::thread> Workers;
  Workers.reserve(Threads);
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([&, T] {
      std::unique_ptr<SymbolQueue> Own;
      if (T % 2 == 1)
        Own = std::make_unique<SymbolQueue>(Queue.get(), Example);
      SymbolQueue &Through = Own ? *Own : *Q;
      for (int R = 0; R < Rounds; ++R) {
        const int32_t Pair[2] = {T * 1000 + R * 2, T * 1000 + R * 2 + 1};
        Status Done = Through.copy_to_symbol(GVArray, Pair, 2, size_t(T) * 2);
        if (!Done.ok())
          return record(Done.Message);
        int32_t Back[2] = {Sentinel, Sentinel};
        Done = Through.copy_from_symbol(GVArray, Back, 2, size_t(T) * 2);
        if (!Done.ok())
          return record(Done.Message);
        if (Back[0] != Pair[0] || Back[1] != Pair[1])
          return record("thread " + std::to_string(T) + " round " + std::to_string(R) +
                        " read back " + std::to_string(Back[0]) + ", " + std::to_string(Back[1]));
      }
    });
  for (std::thread &Worker : Workers)
    Worker.join();
  EXPECT_EQ(Mismatches.load(), 0) << First;
  std::vector<int32_t> Back;
  ASSERT_NO_FATAL_FAILURE(deviceArray(*Q, Back));
  for (size_t I = 0; I < ArrayLength; ++I) {
    const int32_t T = int32_t(I / 2);
    const int32_t Expected = I < Written ? T * 1000 + (Rounds - 1) * 2 + int32_t(I % 2) : -1;
    EXPECT_EQ(Back[I], Expected) << "element " << I;
  }
}

} // namespace
} // namespace dglink::runtime
