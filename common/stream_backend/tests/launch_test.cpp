// Launches with a global offset through the adapter core and the stream backend over a
// driver in host memory that runs its "kernels" on the CPU: DPC++'s convention (UR's CUDA
// and HIP adapters) of a "<kernel>_with_offset" entry point whose last parameter is the
// offset as three 32-bit values, chosen for a non-zero offset only; kernels without one
// refuse a non-zero offset; command buffers carry offsets and their updates. Beside them
// what UR adds on the same queues: cooperative launches and their group count, 2D USM
// copies and fills on the stream, and recorded timestamps on a queue without profiling.
#include "fake_driver.h"

#include <dglink/core/command_buffer.h>
#include <dglink/pi.h>
#include <dglink/stream/backend.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using dglink::stream::CodeKind;
using dglink::stream::DeviceInfo;
using dglink::stream::FunctionHandle;
using dglink::stream::Module;
using dglink::stream::Stream;
namespace core = dglink::core;

// The code this driver takes: a first line "//fake", then "kernel NAME" lines. Every
// kernel writes, for each work-item, its global id (with the offset its entry point
// reads) at out[global id - offset] (argument 0, an int pointer): "ids" has an offset
// entry point, "ids_no_offset" has none (it reads the group, size and local id only).
constexpr const char *Code = "//fake\n"
                             "kernel ids\n"
                             "kernel ids_with_offset\n"
                             "kernel ids_no_offset\n";

// One launch as the driver saw it.
struct Launched {
  std::string Function;
  unsigned Grid[3] = {0, 0, 0};
  unsigned Block[3] = {0, 0, 0};
  bool HadOffset = false;
  uint32_t Offset[3] = {0, 0, 0};
  bool Cooperative = false;
};

class LaunchDriver final : public dglink::stream::testing::FakeDriver {
public:
  pi_result deviceInfo(int, DeviceInfo &Info) override {
    Info.Name = "fake launcher";
    Info.Arch = "sm_90";
    Info.WarpSize = 32;
    Info.SharedMemoryPerBlock = 48 * 1024;
    Info.MultiprocessorCount = 4;
    Info.TimedEvents = true;
    Info.CooperativeLaunch = true;
    return PI_SUCCESS;
  }
  // Timed events: the host's clock when the stream reached the event.
  pi_result createTimedEvent(dglink::stream::Event &Out) override { return createEvent(Out); }
  pi_result record(dglink::stream::Event E, Stream S) override {
    enqueue(S, [this, E] {
      const std::lock_guard<std::mutex> Lock(Mutex);
      Reached[E] = std::chrono::steady_clock::now();
    });
    return FakeDriver::record(E, S);
  }
  pi_result elapsed(dglink::stream::Event From, dglink::stream::Event To,
                    float &Milliseconds) override {
    const std::lock_guard<std::mutex> Lock(Mutex);
    Milliseconds =
        std::chrono::duration<float, std::milli>(Reached.at(To) - Reached.at(From)).count();
    return PI_SUCCESS;
  }
  // Every multiprocessor holds 2048 threads and 48 KiB of shared memory.
  static constexpr size_t SharedMemory = size_t{48} * 1024;
  pi_result maxActiveBlocks(FunctionHandle, int BlockSize, size_t SharedBytes,
                            int &PerMultiprocessor) override {
    PerMultiprocessor = 2048 / BlockSize;
    if (SharedBytes != 0)
      PerMultiprocessor = std::min(PerMultiprocessor, static_cast<int>(SharedMemory / SharedBytes));
    return PI_SUCCESS;
  }
  pi_result launchCooperative(FunctionHandle F, const unsigned Grid[3], const unsigned Block[3],
                              size_t SharedBytes, Stream S, void **Params) override {
    NextCooperative = true;
    return launch(F, Grid, Block, SharedBytes, S, Params);
  }
  bool detectCode(const void *Data, size_t Size, CodeKind &Kind) override {
    Kind = CodeKind::Ptx;
    return Size >= 6 && std::memcmp(Data, "//fake", 6) == 0;
  }
  std::vector<std::string> codeKernelNames(CodeKind, const std::vector<char> &Bytes) override {
    const std::deque<std::string> Names = namesOf(std::string(Bytes.begin(), Bytes.end()));
    return {Names.begin(), Names.end()};
  }
  pi_result codeForLoad(CodeKind, const std::vector<char> &Bytes, const DeviceInfo &,
                        std::vector<char> &Out, std::string &) override {
    Out = Bytes;
    return PI_SUCCESS;
  }
  pi_result loadModule(Module &Out, const void *Image, std::string &) override {
    std::lock_guard<std::mutex> Lock(Mutex);
    Modules.push_back(namesOf(static_cast<const char *>(Image)));
    Out = reinterpret_cast<Module>(&Modules.back());
    return PI_SUCCESS;
  }
  pi_result function(Module M, const char *Name, FunctionHandle &Out, bool &Found) override {
    auto &Names = *reinterpret_cast<std::deque<std::string> *>(M);
    for (const std::string &Known : Names)
      if (Known == Name) {
        Out = reinterpret_cast<FunctionHandle>(const_cast<std::string *>(&Known));
        Found = true;
        return PI_SUCCESS;
      }
    Found = false;
    return PI_SUCCESS;
  }
  std::vector<std::string> kernelNames(Module M) override {
    const auto &Names = *reinterpret_cast<std::deque<std::string> *>(M);
    return {Names.begin(), Names.end()};
  }
  int maxThreadsPerBlock(FunctionHandle) override { return 1024; }
  bool parameterSizes(FunctionHandle F, std::vector<size_t> &Sizes) override {
    Sizes = {sizeof(void *)};
    if (isOffsetEntry(nameOf(F)))
      Sizes.push_back(3 * sizeof(uint32_t));
    return true;
  }
  size_t maxParameterBytes() const override { return 4096; }
  pi_result launch(FunctionHandle F, const unsigned Grid[3], const unsigned Block[3], size_t,
                   Stream S, void **Params) override {
    // The driver reads the parameters at the call, as cuLaunchKernel does.
    Launched Call;
    Call.Function = nameOf(F);
    Call.Cooperative = NextCooperative;
    NextCooperative = false;
    std::memcpy(Call.Grid, Grid, sizeof(Call.Grid));
    std::memcpy(Call.Block, Block, sizeof(Call.Block));
    int *Out = nullptr;
    std::memcpy(&Out, Params[0], sizeof(Out));
    if (isOffsetEntry(Call.Function)) {
      Call.HadOffset = true;
      std::memcpy(Call.Offset, Params[1], sizeof(Call.Offset));
    }
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Launches.push_back(Call);
    }
    enqueue(S, [Call, Out] {
      const size_t Items = size_t(Call.Grid[0]) * Call.Block[0];
      for (size_t Id = 0; Id < Items; ++Id)
        Out[Id] = static_cast<int>(Id + Call.Offset[0]);
    });
    return PI_SUCCESS;
  }

  std::vector<Launched> launches() {
    std::lock_guard<std::mutex> Lock(Mutex);
    return Launches;
  }

private:
  static std::string nameOf(FunctionHandle F) { return *reinterpret_cast<std::string *>(F); }
  static bool isOffsetEntry(const std::string &Name) {
    return Name.size() > 12 && Name.compare(Name.size() - 12, 12, "_with_offset") == 0;
  }
  static std::deque<std::string> namesOf(const std::string &Text) {
    std::deque<std::string> Names;
    std::istringstream Lines(Text);
    for (std::string Line; std::getline(Lines, Line);)
      if (Line.rfind("kernel ", 0) == 0)
        Names.push_back(Line.substr(7));
    return Names;
  }

  std::mutex Mutex;
  std::deque<std::deque<std::string>> Modules;
  std::vector<Launched> Launches;
  std::map<dglink::stream::Event, std::chrono::steady_clock::time_point> Reached;
  bool NextCooperative = false; // set by launchCooperative for the launch it makes
};

LaunchDriver *TheDriver = nullptr;

std::string lastError() {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  return Message != nullptr ? Message : "";
}

class StreamLaunch : public ::testing::Test {
protected:
  void SetUp() override {
    pi_uint32 Count = 0;
    ASSERT_EQ(piPlatformsGet(1, &Platform, &Count), PI_SUCCESS) << lastError();
    ASSERT_EQ(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 1, &Device, nullptr), PI_SUCCESS);
    ASSERT_EQ(piContextCreate(nullptr, 1, &Device, &Context), PI_SUCCESS) << lastError();
    ASSERT_EQ(piQueueCreate(Context, Device, 0, &Queue), PI_SUCCESS) << lastError();
    const size_t Length = std::strlen(Code) + 1;
    const auto *Bytes = reinterpret_cast<const unsigned char *>(Code);
    pi_int32 Status = 0;
    ASSERT_EQ(piProgramCreateWithBinary(Context, 1, &Device, &Length, &Bytes, 0, nullptr, &Status,
                                        &Program),
              PI_SUCCESS)
        << lastError();
    ASSERT_EQ(piProgramBuild(Program, 1, &Device, "", nullptr, nullptr), PI_SUCCESS) << lastError();
    ASSERT_EQ(piextUSMDeviceAlloc(&Memory, Context, Device, nullptr, Items * sizeof(int), 0),
              PI_SUCCESS)
        << lastError();
    Before = TheDriver->launches().size();
  }
  void TearDown() override {
    if (Memory != nullptr)
      piextUSMFree(Context, Memory);
    if (Program != nullptr)
      piProgramRelease(Program);
    if (Queue != nullptr)
      piQueueRelease(Queue);
    if (Context != nullptr)
      piContextRelease(Context);
  }

  pi_kernel kernel(const char *Name) {
    pi_kernel Kernel = nullptr;
    EXPECT_EQ(piKernelCreate(Program, Name, &Kernel), PI_SUCCESS) << lastError();
    if (Kernel != nullptr) {
      EXPECT_EQ(piextKernelSetArgPointer(Kernel, 0, sizeof(Memory), &Memory), PI_SUCCESS)
          << lastError();
    }
    return Kernel;
  }
  std::vector<int> written() {
    std::vector<int> Out(Items, -1);
    EXPECT_EQ(piQueueFinish(Queue), PI_SUCCESS);
    std::memcpy(Out.data(), Memory, Items * sizeof(int)); // the fake's device memory
    return Out;
  }
  void expectIdsFrom(size_t First) {
    const std::vector<int> Out = written();
    for (size_t I = 0; I < Items; ++I)
      ASSERT_EQ(Out[I], static_cast<int>(First + I)) << "index " << I;
  }
  std::vector<Launched> newLaunches() {
    std::vector<Launched> All = TheDriver->launches();
    return {All.begin() + static_cast<std::ptrdiff_t>(Before), All.end()};
  }

  static constexpr size_t Items = 64;
  pi_platform Platform = nullptr;
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
  pi_program Program = nullptr;
  void *Memory = nullptr;
  size_t Before = 0;
};

TEST_F(StreamLaunch, NonZeroOffsetRunsTheOffsetEntryPointWithTheOffsetLast) {
  pi_kernel Kernel = kernel("ids");
  const size_t Offset[3] = {3, 0, 0};
  const size_t Global[3] = {Items, 1, 1};
  const size_t Local[3] = {16, 1, 1};
  ASSERT_EQ(piEnqueueKernelLaunch(Queue, Kernel, 1, Offset, Global, Local, 0, nullptr, nullptr),
            PI_SUCCESS)
      << lastError();
  expectIdsFrom(3);
  const std::vector<Launched> Seen = newLaunches();
  ASSERT_EQ(Seen.size(), 1u);
  EXPECT_EQ(Seen[0].Function, "ids_with_offset");
  ASSERT_TRUE(Seen[0].HadOffset);
  EXPECT_EQ(Seen[0].Offset[0], 3u);
  EXPECT_EQ(Seen[0].Offset[1], 0u);
  EXPECT_EQ(Seen[0].Offset[2], 0u);
  EXPECT_EQ(Seen[0].Grid[0], 4u);
  EXPECT_EQ(Seen[0].Block[0], 16u);
  piKernelRelease(Kernel);
}

TEST_F(StreamLaunch, ThreeDimensionalOffsetGoesAsThreeValues) {
  pi_kernel Kernel = kernel("ids");
  const size_t Offset[3] = {5, 7, 9};
  const size_t Global[3] = {Items, 1, 1};
  ASSERT_EQ(piEnqueueKernelLaunch(Queue, Kernel, 3, Offset, Global, nullptr, 0, nullptr, nullptr),
            PI_SUCCESS)
      << lastError();
  expectIdsFrom(5);
  const std::vector<Launched> Seen = newLaunches();
  ASSERT_EQ(Seen.size(), 1u);
  EXPECT_EQ(Seen[0].Function, "ids_with_offset");
  EXPECT_EQ(Seen[0].Offset[0], 5u);
  EXPECT_EQ(Seen[0].Offset[1], 7u);
  EXPECT_EQ(Seen[0].Offset[2], 9u);
  piKernelRelease(Kernel);
}

TEST_F(StreamLaunch, ZeroOrNoOffsetRunsTheKernelItself) {
  pi_kernel Kernel = kernel("ids");
  const size_t Zero[3] = {0, 0, 0};
  const size_t Global[3] = {Items, 1, 1};
  ASSERT_EQ(piEnqueueKernelLaunch(Queue, Kernel, 1, Zero, Global, nullptr, 0, nullptr, nullptr),
            PI_SUCCESS);
  ASSERT_EQ(piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, Global, nullptr, 0, nullptr, nullptr),
            PI_SUCCESS);
  expectIdsFrom(0);
  const std::vector<Launched> Seen = newLaunches();
  ASSERT_EQ(Seen.size(), 2u);
  for (const Launched &Call : Seen) {
    EXPECT_EQ(Call.Function, "ids");
    EXPECT_FALSE(Call.HadOffset);
  }
  piKernelRelease(Kernel);
}

TEST_F(StreamLaunch, KernelWithoutOffsetEntryRefusesANonZeroOffsetByName) {
  pi_kernel Kernel = kernel("ids_no_offset");
  const size_t Offset[3] = {3, 0, 0};
  const size_t Global[3] = {Items, 1, 1};
  EXPECT_EQ(piEnqueueKernelLaunch(Queue, Kernel, 1, Offset, Global, nullptr, 0, nullptr, nullptr),
            PI_ERROR_INVALID_VALUE);
  const std::string Message = lastError();
  EXPECT_NE(Message.find("'ids_no_offset'"), std::string::npos) << Message;
  EXPECT_NE(Message.find("ids_no_offset_with_offset"), std::string::npos) << Message;
  EXPECT_TRUE(newLaunches().empty());
  // Offset 0 runs as before.
  const size_t Zero[3] = {0, 0, 0};
  ASSERT_EQ(piEnqueueKernelLaunch(Queue, Kernel, 1, Zero, Global, nullptr, 0, nullptr, nullptr),
            PI_SUCCESS);
  expectIdsFrom(0);
  piKernelRelease(Kernel);
}

TEST_F(StreamLaunch, OffsetBeyond32BitsIsRefused) {
  pi_kernel Kernel = kernel("ids");
  const size_t Offset[3] = {size_t(1) << 32, 0, 0};
  const size_t Global[3] = {Items, 1, 1};
  EXPECT_EQ(piEnqueueKernelLaunch(Queue, Kernel, 1, Offset, Global, nullptr, 0, nullptr, nullptr),
            PI_ERROR_INVALID_GLOBAL_OFFSET);
  EXPECT_NE(lastError().find("32-bit"), std::string::npos) << lastError();
  EXPECT_TRUE(newLaunches().empty());
  piKernelRelease(Kernel);
}

TEST_F(StreamLaunch, KernelNamesLeaveOutOffsetEntryPoints) {
  size_t Size = 0;
  ASSERT_EQ(piProgramGetInfo(Program, PI_PROGRAM_INFO_KERNEL_NAMES, 0, nullptr, &Size), PI_SUCCESS);
  std::string Names(Size, '\0');
  ASSERT_EQ(piProgramGetInfo(Program, PI_PROGRAM_INFO_KERNEL_NAMES, Size, Names.data(), nullptr),
            PI_SUCCESS);
  EXPECT_EQ(std::string(Names.c_str()), "ids;ids_no_offset");
}

TEST_F(StreamLaunch, CommandBufferCarriesItsOffsetAndItsUpdate) {
  pi_kernel Kernel = kernel("ids");
  _pi_command_buffer *Buffer = nullptr;
  ASSERT_EQ(core::createCommandBuffer("test", Context, Device, true, false, true, &Buffer),
            PI_SUCCESS)
      << lastError();
  const size_t Offset[3] = {3, 0, 0};
  const size_t Global[3] = {Items, 1, 1};
  const size_t Local[3] = {8, 1, 1};
  core::CommandHandle *Command = nullptr;
  core::SyncPoints Waits;
  Waits.Command = &Command;
  ASSERT_EQ(core::appendKernelLaunch("test", Buffer, Kernel, 1, Offset, Global, Local, nullptr, 0,
                                     nullptr, Waits),
            PI_SUCCESS)
      << lastError();
  ASSERT_EQ(core::finalizeCommandBuffer("test", Buffer), PI_SUCCESS) << lastError();
  ASSERT_EQ(core::enqueueCommandBuffer("test", Queue, Buffer, 0, nullptr, nullptr), PI_SUCCESS)
      << lastError();
  expectIdsFrom(3);

  core::KernelLaunchUpdate Update;
  Update.Command = Command;
  Update.WorkDim = 1;
  const size_t NewOffset[3] = {11, 0, 0};
  Update.GlobalWorkOffset = NewOffset;
  ASSERT_EQ(core::updateKernelLaunches("test", Buffer, {Update}), PI_SUCCESS) << lastError();
  ASSERT_EQ(core::enqueueCommandBuffer("test", Queue, Buffer, 0, nullptr, nullptr), PI_SUCCESS)
      << lastError();
  expectIdsFrom(11);

  const size_t NoOffset[3] = {0, 0, 0};
  Update.GlobalWorkOffset = NoOffset;
  ASSERT_EQ(core::updateKernelLaunches("test", Buffer, {Update}), PI_SUCCESS) << lastError();
  ASSERT_EQ(core::enqueueCommandBuffer("test", Queue, Buffer, 0, nullptr, nullptr), PI_SUCCESS)
      << lastError();
  expectIdsFrom(0);

  const std::vector<Launched> Seen = newLaunches();
  ASSERT_EQ(Seen.size(), 3u);
  EXPECT_EQ(Seen[0].Function, "ids_with_offset");
  EXPECT_EQ(Seen[0].Offset[0], 3u);
  EXPECT_EQ(Seen[1].Function, "ids_with_offset");
  EXPECT_EQ(Seen[1].Offset[0], 11u);
  EXPECT_EQ(Seen[2].Function, "ids");
  ASSERT_EQ(core::releaseCommandBuffer("test", Buffer), PI_SUCCESS);
  piKernelRelease(Kernel);
}

TEST_F(StreamLaunch, CommandBufferRefusesAnOffsetForAKernelWithoutOffsetEntry) {
  namespace core = dglink::core;
  pi_kernel Kernel = kernel("ids_no_offset");
  _pi_command_buffer *Buffer = nullptr;
  ASSERT_EQ(core::createCommandBuffer("test", Context, Device, true, false, true, &Buffer),
            PI_SUCCESS);
  const size_t Offset[3] = {3, 0, 0};
  const size_t Global[3] = {Items, 1, 1};
  core::SyncPoints Waits;
  EXPECT_EQ(core::appendKernelLaunch("test", Buffer, Kernel, 1, Offset, Global, nullptr, nullptr, 0,
                                     nullptr, Waits),
            PI_ERROR_INVALID_VALUE);
  EXPECT_NE(lastError().find("'ids_no_offset'"), std::string::npos) << lastError();
  // Recorded with offset 0, then updated to a non-zero one: refused, the command unchanged.
  core::CommandHandle *Command = nullptr;
  Waits.Command = &Command;
  ASSERT_EQ(core::appendKernelLaunch("test", Buffer, Kernel, 1, nullptr, Global, nullptr, nullptr,
                                     0, nullptr, Waits),
            PI_SUCCESS)
      << lastError();
  ASSERT_EQ(core::finalizeCommandBuffer("test", Buffer), PI_SUCCESS);
  core::KernelLaunchUpdate Update;
  Update.Command = Command;
  Update.GlobalWorkOffset = Offset;
  EXPECT_EQ(core::updateKernelLaunches("test", Buffer, {Update}), PI_ERROR_INVALID_VALUE);
  ASSERT_EQ(core::enqueueCommandBuffer("test", Queue, Buffer, 0, nullptr, nullptr), PI_SUCCESS);
  expectIdsFrom(0);
  ASSERT_EQ(core::releaseCommandBuffer("test", Buffer), PI_SUCCESS);
  piKernelRelease(Kernel);
}

// A cooperative launch runs through the driver's cooperative call; the group count is
// the driver's occupancy times the multiprocessors, fewer with local memory; 4 dimensions
// are refused.
TEST_F(StreamLaunch, CooperativeLaunchAndItsGroupCount) {
  pi_kernel Kernel = kernel("ids");
  ASSERT_NE(Kernel, nullptr);
  const size_t Global[1] = {Items};
  const size_t Local[1] = {32};
  ASSERT_EQ(core::enqueueLaunch("test", Queue, Kernel, 1, nullptr, Global, Local, true, 0, nullptr,
                                nullptr),
            PI_SUCCESS)
      << lastError();
  expectIdsFrom(0);
  const std::vector<Launched> Calls = newLaunches();
  ASSERT_EQ(Calls.size(), 1u);
  EXPECT_TRUE(Calls[0].Cooperative);
  pi_uint32 Groups = 0;
  ASSERT_EQ(core::suggestCooperativeGroups("test", Kernel, Device, 1, Local, 0, Groups), PI_SUCCESS)
      << lastError();
  EXPECT_EQ(Groups, 2048u / 32 * 4);
  ASSERT_EQ(
      core::suggestCooperativeGroups("test", Kernel, Device, 1, Local, size_t{16} * 1024, Groups),
      PI_SUCCESS);
  EXPECT_EQ(Groups, 3u * 4);
  EXPECT_EQ(core::suggestCooperativeGroups("test", Kernel, Device, 4, Local, 0, Groups),
            PI_ERROR_INVALID_WORK_DIMENSION);
  piKernelRelease(Kernel);
}

// 2D USM on the stream: rows between pitches of their own, and fills of a narrow pattern
// (the driver's 2D fill) and a wide one (rows of the 1D fill); padding stays.
TEST_F(StreamLaunch, Usm2DCopiesAndFillsRunOnTheStream) {
  constexpr size_t Size = 512, Width = 24, Height = 6, SrcPitch = 40, DstPitch = 56;
  void *Src = nullptr, *Dst = nullptr;
  ASSERT_EQ(piextUSMDeviceAlloc(&Src, Context, Device, nullptr, Size, 0), PI_SUCCESS);
  ASSERT_EQ(piextUSMDeviceAlloc(&Dst, Context, Device, nullptr, Size, 0), PI_SUCCESS);
  std::vector<unsigned char> Bytes(Size);
  for (size_t I = 0; I < Size; ++I)
    Bytes[I] = static_cast<unsigned char>(I * 7 + 1);
  const unsigned char Padding = 0xEE;
  ASSERT_EQ(piextUSMEnqueueMemcpy(Queue, PI_TRUE, Src, Bytes.data(), Size, 0, nullptr, nullptr),
            PI_SUCCESS);
  ASSERT_EQ(piextUSMEnqueueFill(Queue, Dst, &Padding, 1, Size, 0, nullptr, nullptr), PI_SUCCESS);
  pi_event Done = nullptr;
  ASSERT_EQ(core::enqueueUsmCopy2D("test", Queue, false, Dst, DstPitch, Src, SrcPitch, Width,
                                   Height, 0, nullptr, &Done),
            PI_SUCCESS)
      << lastError();
  ASSERT_EQ(piEventsWait(1, &Done), PI_SUCCESS);
  std::vector<unsigned char> Expected(Size, Padding);
  for (size_t Row = 0; Row < Height; ++Row)
    std::memcpy(&Expected[Row * DstPitch], &Bytes[Row * SrcPitch], Width);
  EXPECT_EQ(0, std::memcmp(Dst, Expected.data(), Size)); // the fake's device memory
  piEventRelease(Done);

  for (const size_t PatternSize : {size_t{4}, size_t{8}}) {
    SCOPED_TRACE(PatternSize);
    ASSERT_EQ(piextUSMEnqueueFill(Queue, Dst, &Padding, 1, Size, 0, nullptr, nullptr), PI_SUCCESS);
    const unsigned char Pattern[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ASSERT_EQ(core::enqueueUsmFill2D("test", Queue, Dst, DstPitch, Pattern, PatternSize, Width,
                                     Height, 0, nullptr, nullptr),
              PI_SUCCESS)
        << lastError();
    ASSERT_EQ(piQueueFinish(Queue), PI_SUCCESS);
    Expected.assign(Size, Padding);
    for (size_t Row = 0; Row < Height; ++Row)
      for (size_t X = 0; X < Width; ++X)
        Expected[Row * DstPitch + X] = Pattern[X % PatternSize];
    EXPECT_EQ(0, std::memcmp(Dst, Expected.data(), Size));
  }
  piextUSMFree(Context, Src);
  piextUSMFree(Context, Dst);
}

// A timestamp on a queue without profiling: QUEUED = SUBMIT, START = END, in order; the
// queue's other commands stay untimed.
TEST_F(StreamLaunch, TimestampsOnAQueueWithoutProfiling) {
  pi_event First = nullptr, Copy = nullptr, Second = nullptr;
  ASSERT_EQ(core::enqueueTimestamp("test", Queue, false, 0, nullptr, &First), PI_SUCCESS)
      << lastError();
  const int Written = 5;
  ASSERT_EQ(
      piextUSMEnqueueMemcpy(Queue, PI_FALSE, Memory, &Written, sizeof(Written), 0, nullptr, &Copy),
      PI_SUCCESS);
  ASSERT_EQ(core::enqueueTimestamp("test", Queue, true, 1, &Copy, &Second), PI_SUCCESS)
      << lastError();
  const auto point = [](pi_event Event, pi_profiling_info Name) {
    pi_uint64 Value = 0;
    EXPECT_EQ(piEventGetProfilingInfo(Event, Name, sizeof(Value), &Value, nullptr), PI_SUCCESS)
        << lastError();
    return Value;
  };
  pi_uint64 Previous = 0;
  for (pi_event Event : {First, Second}) {
    const pi_uint64 Queued = point(Event, PI_PROFILING_INFO_COMMAND_QUEUED);
    const pi_uint64 Start = point(Event, PI_PROFILING_INFO_COMMAND_START);
    EXPECT_GT(Queued, 0u);
    EXPECT_EQ(point(Event, PI_PROFILING_INFO_COMMAND_SUBMIT), Queued);
    EXPECT_EQ(point(Event, PI_PROFILING_INFO_COMMAND_END), Start);
    EXPECT_GE(Start, Queued);
    EXPECT_GE(Start, Previous);
    Previous = Start;
  }
  pi_uint64 Untimed = 0;
  EXPECT_EQ(piEventGetProfilingInfo(Copy, PI_PROFILING_INFO_COMMAND_START, sizeof(Untimed),
                                    &Untimed, nullptr),
            PI_ERROR_PROFILING_INFO_NOT_AVAILABLE);
  EXPECT_EQ(core::enqueueTimestamp("test", Queue, false, 0, nullptr, nullptr),
            PI_ERROR_INVALID_VALUE);
  for (pi_event Event : {First, Copy, Second})
    piEventRelease(Event);
}

} // namespace

namespace dglink::core {

std::unique_ptr<Backend> makeBackend() {
  stream::Personality Fake;
  Fake.Name = "stream_fake";
  Fake.Label = "fake stream";
  Fake.PlatformName = "dglink fake stream platform";
  Fake.PlatformVersion = [](const std::string &Driver) { return "fake " + Driver; };
  auto Driver = std::make_unique<LaunchDriver>();
  TheDriver = Driver.get();
  return std::make_unique<stream::StreamBackend>(Fake, std::move(Driver));
}

} // namespace dglink::core
