// Device globals on a CUDA device: round trips through every copy path
// (memset, staging, pipeline, ring, pinned), the error table, kernels that
// read what the host wrote and the other way round, and the lookup cache.
#include "test_support.h"

#include <dglink/support/log.h>

#include <spdlog/sinks/base_sink.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>

using namespace dglink::cuda::test;
using dglink::HostAccess;

#if DGLINK_TEST_NVCC_CODE
namespace {

constexpr size_t BigSize = 1 << 20;

class DeviceGlobals : public CudaDeviceTest {
protected:
  void SetUp() override {
    CudaDeviceTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    ImageBuilder Builder(CudaGlobalsPtx, CudaGlobalsPtxSize);
    Builder.deviceGlobal("dg_value", 4)
        .deviceGlobal("uid::array", 168, HostAccess::ReadWrite, "dg_array")
        .deviceGlobal("dg_readonly", 4, HostAccess::Read)
        .deviceGlobal("dg_writeonly", 4, HostAccess::Write)
        .deviceGlobal("dg_none", 4, HostAccess::None)
        .deviceGlobal("dg_big", BigSize);
    Program = buildImage(Builder.image());
    ASSERT_NE(Program, nullptr);
  }
  void TearDown() override {
    if (Program != nullptr) {
      EXPECT_PI(pi().piProgramRelease(Program));
    }
    CudaDeviceTest::TearDown();
  }

  pi_result write(const char *Name, const void *Src, size_t Count, size_t Offset = 0,
                  bool Blocking = true, pi_event *Event = nullptr) {
    return pi().piextEnqueueDeviceGlobalVariableWrite(
        Queue, Program, Name, Blocking ? PI_TRUE : PI_FALSE, Count, Offset, Src, 0, nullptr, Event);
  }
  pi_result read(const char *Name, void *Dst, size_t Count, size_t Offset = 0, bool Blocking = true,
                 pi_event *Event = nullptr) {
    return pi().piextEnqueueDeviceGlobalVariableRead(
        Queue, Program, Name, Blocking ? PI_TRUE : PI_FALSE, Count, Offset, Dst, 0, nullptr, Event);
  }
  pi_kernel kernel(const char *Name) {
    pi_kernel Kernel = nullptr;
    EXPECT_PI(pi().piKernelCreate(Program, Name, &Kernel));
    return Kernel;
  }
  // Runs a one-item kernel whose argument 0 is a device int, returns that int.
  int runWithOutput(pi_kernel Kernel) {
    void *Out = nullptr;
    EXPECT_PI(pi().piextUSMDeviceAlloc(&Out, Context, Device, nullptr, sizeof(int), 0));
    EXPECT_PI(pi().piextKernelSetArgPointer(Kernel, 0, sizeof(Out), &Out));
    const size_t Global = 1;
    EXPECT_PI(pi().piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &Global, nullptr, 0, nullptr,
                                         nullptr));
    int Value = -1;
    EXPECT_PI(
        pi().piextUSMEnqueueMemcpy(Queue, PI_TRUE, &Value, Out, sizeof(int), 0, nullptr, nullptr));
    EXPECT_PI(pi().piextUSMFree(Context, Out));
    return Value;
  }

  pi_program Program = nullptr;
};

TEST_F(DeviceGlobals, ScalarRoundTrip) {
  const int Value = 0x12345678;
  ASSERT_PI(write("dg_value", &Value, 4));
  int Back = 0;
  ASSERT_PI(read("dg_value", &Back, 4));
  EXPECT_EQ(Back, Value);
}

TEST_F(DeviceGlobals, PartialCopiesAtOffsets) {
  int Array[42];
  for (int I = 0; I < 42; ++I)
    Array[I] = I;
  ASSERT_PI(write("uid::array", Array, sizeof(Array)));
  const int Patch[3] = {-10, -11, -12};
  ASSERT_PI(write("uid::array", Patch, sizeof(Patch), 10 * sizeof(int)));
  int Back[5] = {};
  ASSERT_PI(read("uid::array", Back, sizeof(Back), 9 * sizeof(int)));
  EXPECT_EQ(Back[0], 9);
  EXPECT_EQ(Back[1], -10);
  EXPECT_EQ(Back[2], -11);
  EXPECT_EQ(Back[3], -12);
  EXPECT_EQ(Back[4], 13);
  // The last byte, and odd sizes at odd offsets.
  const unsigned char Byte = 0xAB;
  ASSERT_PI(write("uid::array", &Byte, 1, 167));
  const unsigned char Three[3] = {1, 2, 3};
  ASSERT_PI(write("uid::array", Three, 3, 5));
  unsigned char All[168] = {};
  ASSERT_PI(read("uid::array", All, 168));
  EXPECT_EQ(All[167], 0xAB);
  EXPECT_EQ(All[5], 1);
  EXPECT_EQ(All[6], 2);
  EXPECT_EQ(All[7], 3);
  EXPECT_EQ(All[4], 1); // Array[1] == 1, little-endian
}

// Sizes and offsets that take each path: memset (1, 2, 4), one staged copy,
// the pipeline (above 64 KiB), blocking and not.
TEST_F(DeviceGlobals, EverySizeRoundTrips) {
  const size_t Sizes[] = {1, 2, 3, 4, 8, 64, 4096, 65536, 65537, 300000, BigSize};
  std::vector<unsigned char> Source(BigSize), Back(BigSize);
  unsigned Seed = 1;
  for (bool Blocking : {true, false}) {
    for (size_t Size : Sizes) {
      for (size_t Offset : {size_t(0), size_t(1), size_t(6)}) {
        if (Offset + Size > BigSize)
          continue;
        for (size_t I = 0; I < Size; ++I)
          Source[I] = static_cast<unsigned char>((Seed = Seed * 1103515245u + 12345u) >> 16);
        ASSERT_PI(write("dg_big", Source.data(), Size, Offset, Blocking));
        std::fill(Back.begin(), Back.end(), 0);
        ASSERT_PI(read("dg_big", Back.data(), Size, Offset, Blocking));
        ASSERT_PI(pi().piQueueFinish(Queue));
        ASSERT_EQ(0, std::memcmp(Source.data(), Back.data(), Size))
            << "size " << Size << " offset " << Offset << (Blocking ? " blocking" : " async");
      }
    }
  }
}

TEST_F(DeviceGlobals, PinnedHostMemoryRoundTrips) {
  void *Pinned = nullptr;
  ASSERT_PI(pi().piextUSMHostAlloc(&Pinned, Context, nullptr, BigSize, 0));
  auto *Bytes = static_cast<unsigned char *>(Pinned);
  for (size_t I = 0; I < BigSize; ++I)
    Bytes[I] = static_cast<unsigned char>(I * 31 + 7);
  ASSERT_PI(write("dg_big", Pinned, BigSize));
  std::vector<unsigned char> Back(BigSize);
  ASSERT_PI(read("dg_big", Back.data(), BigSize));
  EXPECT_EQ(0, std::memcmp(Pinned, Back.data(), BigSize));
  std::memset(Pinned, 0, BigSize);
  ASSERT_PI(read("dg_big", Pinned, BigSize));
  EXPECT_EQ(0, std::memcmp(Pinned, Back.data(), BigSize));
  EXPECT_PI(pi().piextUSMFree(Context, Pinned));
}

// A non-blocking write captures its source: the caller may overwrite it at
// once. Enough writes to wrap the pinned ring several times.
TEST_F(DeviceGlobals, NonBlockingWritesCaptureTheirSource) {
  for (size_t Chunk : {size_t(4), size_t(100), size_t(4096), size_t(70000)}) {
    const size_t Writes = std::min<size_t>(BigSize / Chunk, 200);
    std::vector<unsigned char> Source(Chunk);
    for (size_t W = 0; W < Writes; ++W) {
      std::fill(Source.begin(), Source.end(), static_cast<unsigned char>(W + 1));
      ASSERT_PI(write("dg_big", Source.data(), Chunk, W * Chunk, false));
      std::fill(Source.begin(), Source.end(), 0xEE); // reused at once
    }
    ASSERT_PI(pi().piQueueFinish(Queue));
    std::vector<unsigned char> Back(Writes * Chunk);
    ASSERT_PI(read("dg_big", Back.data(), Back.size()));
    for (size_t W = 0; W < Writes; ++W)
      for (size_t I = 0; I < Chunk; I += 997)
        ASSERT_EQ(Back[W * Chunk + I], static_cast<unsigned char>(W + 1))
            << "chunk " << Chunk << " write " << W;
  }
}

TEST_F(DeviceGlobals, EventsAndWaitLists) {
  const int Value = 4242;
  pi_event Written = nullptr;
  ASSERT_PI(write("dg_value", &Value, 4, 0, false, &Written));
  ASSERT_NE(Written, nullptr);
  int Back = 0;
  pi_event Read = nullptr;
  ASSERT_PI(pi().piextEnqueueDeviceGlobalVariableRead(Queue, Program, "dg_value", PI_FALSE, 4, 0,
                                                      &Back, 1, &Written, &Read));
  ASSERT_PI(pi().piEventsWait(1, &Read));
  EXPECT_EQ(Back, Value);
  pi_int32 Status = -1;
  ASSERT_PI(pi().piEventGetInfo(Read, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status),
                                &Status, nullptr));
  EXPECT_EQ(Status, PI_EVENT_COMPLETE);
  pi_queue Owner = nullptr;
  ASSERT_PI(pi().piEventGetInfo(Read, PI_EVENT_INFO_COMMAND_QUEUE, sizeof(Owner), &Owner, nullptr));
  EXPECT_EQ(Owner, Queue);
  // A second queue waits for the first one's event.
  pi_queue Other = nullptr;
  ASSERT_PI(pi().piQueueCreate(Context, Device, 0, &Other));
  pi_event Barrier = nullptr;
  ASSERT_PI(pi().piEnqueueEventsWaitWithBarrier(Other, 1, &Written, &Barrier));
  ASSERT_PI(pi().piEventsWait(1, &Barrier));
  EXPECT_PI(pi().piEventRelease(Barrier));
  EXPECT_PI(pi().piQueueRelease(Other));
  EXPECT_PI(pi().piEventRelease(Written));
  EXPECT_PI(pi().piEventRelease(Read));
}

TEST_F(DeviceGlobals, ErrorTable) {
  int Value = 1;
  const char *Missing = "no_such_global";
  // Null arguments, in the order the contract checks them.
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE,
            pi().piextEnqueueDeviceGlobalVariableWrite(nullptr, Program, "dg_value", PI_TRUE, 4, 0,
                                                       &Value, 0, nullptr, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM,
            pi().piextEnqueueDeviceGlobalVariableWrite(Queue, nullptr, "dg_value", PI_TRUE, 4, 0,
                                                       &Value, 0, nullptr, nullptr));
  EXPECT_NE(lastError().find("'Program'"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_VALUE,
            pi().piextEnqueueDeviceGlobalVariableWrite(Queue, Program, nullptr, PI_TRUE, 4, 0,
                                                       &Value, 0, nullptr, nullptr));
  EXPECT_NE(lastError().find("'Name'"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, write("dg_value", nullptr, 4));
  EXPECT_NE(lastError().find("'Src'"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, read("dg_value", nullptr, 4));
  EXPECT_NE(lastError().find("'Dst'"), std::string::npos) << lastError();
  // Wait lists.
  EXPECT_EQ(PI_ERROR_INVALID_EVENT_WAIT_LIST,
            pi().piextEnqueueDeviceGlobalVariableWrite(Queue, Program, "dg_value", PI_TRUE, 4, 0,
                                                       &Value, 1, nullptr, nullptr));
  pi_event NullEvent = nullptr;
  EXPECT_EQ(PI_ERROR_INVALID_EVENT_WAIT_LIST,
            pi().piextEnqueueDeviceGlobalVariableRead(Queue, Program, "dg_value", PI_TRUE, 4, 0,
                                                      &Value, 1, &NullEvent, nullptr));
  // Unknown name: names the variable and the program.
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, write(Missing, &Value, 4));
  EXPECT_NE(lastError().find(Missing), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("program"), std::string::npos) << lastError();
  // A module symbol the image does not declare as a device global (here the symbol
  // behind uid::array) is not one either.
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, write("dg_array", &Value, 4));
  EXPECT_NE(lastError().find("dg_array"), std::string::npos) << lastError();
  // Ranges: offset + count past the end, and overflow.
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, write("dg_value", &Value, 4, 4));
  EXPECT_NE(lastError().find("offset 4"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, read("dg_value", &Value, 8));
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, write("dg_value", &Value, 2, SIZE_MAX));
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, read("uid::array", &Value, 4, 166));
  // Host access.
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION, write("dg_readonly", &Value, 4));
  EXPECT_NE(lastError().find("dg_readonly"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("'read'"), std::string::npos) << lastError();
  EXPECT_PI(read("dg_readonly", &Value, 4));
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION, read("dg_writeonly", &Value, 4));
  EXPECT_NE(lastError().find("'write'"), std::string::npos) << lastError();
  EXPECT_PI(write("dg_writeonly", &Value, 4));
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION, write("dg_none", &Value, 4));
  EXPECT_NE(lastError().find("'none'"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION, read("dg_none", &Value, 4));
  // A program that is not built for the queue's device.
  pi_program Unbuilt = nullptr;
  ImageBuilder Builder(CudaGlobalsPtx, CudaGlobalsPtxSize);
  ASSERT_PI(pi().piextProgramCreateWithImage(Context, 1, &Device, &Builder.image(), &Unbuilt));
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
            pi().piextEnqueueDeviceGlobalVariableWrite(Queue, Unbuilt, "dg_value", PI_TRUE, 4, 0,
                                                       &Value, 0, nullptr, nullptr));
  EXPECT_NE(lastError().find("device"), std::string::npos) << lastError();
  EXPECT_PI(pi().piProgramRelease(Unbuilt));
  // Nothing was half-written by the refused calls.
  const int Known = 31337;
  ASSERT_PI(write("dg_value", &Known, 4));
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, write("dg_value", &Value, 8));
  int Back = 0;
  ASSERT_PI(read("dg_value", &Back, 4));
  EXPECT_EQ(Back, Known);
}

// A plain CUDA module: no metadata, the symbol name is the name.
TEST_F(DeviceGlobals, ModuleGlobalsWithoutMetadata) {
  const unsigned char *Binary = CudaGlobalsPtx;
  const size_t Length = CudaGlobalsPtxSize;
  pi_program Plain = nullptr;
  pi_int32 Status = -1;
  ASSERT_PI(pi().piProgramCreateWithBinary(Context, 1, &Device, &Length, &Binary, 0, nullptr,
                                           &Status, &Plain));
  EXPECT_EQ(Status, PI_SUCCESS);
  ASSERT_PI(pi().piProgramBuild(Plain, 1, &Device, nullptr, nullptr, nullptr));
  const int Value = 99;
  ASSERT_PI(pi().piextEnqueueDeviceGlobalVariableWrite(Queue, Plain, "dg_none", PI_TRUE, 4, 0,
                                                       &Value, 0, nullptr, nullptr));
  int Back = 0;
  ASSERT_PI(pi().piextEnqueueDeviceGlobalVariableRead(Queue, Plain, "dg_none", PI_TRUE, 4, 0, &Back,
                                                      0, nullptr, nullptr));
  EXPECT_EQ(Back, 99);
  EXPECT_EQ(PI_ERROR_INVALID_VALUE,
            pi().piextEnqueueDeviceGlobalVariableRead(Queue, Plain, "dg_array", PI_TRUE, 172, 0,
                                                      &Back, 0, nullptr, nullptr));
  EXPECT_PI(pi().piProgramRelease(Plain));
}

TEST_F(DeviceGlobals, KernelsReadWhatTheHostWrote) {
  int Array[42];
  int Sum = 0;
  for (int I = 0; I < 42; ++I)
    Sum += (Array[I] = I * I - 5);
  ASSERT_PI(write("uid::array", Array, sizeof(Array)));
  pi_kernel SumArray = kernel("sum_array");
  ASSERT_NE(SumArray, nullptr);
  EXPECT_EQ(runWithOutput(SumArray), Sum);
  // Written again from the host, read again by a kernel.
  for (int &Element : Array)
    Element = 1;
  ASSERT_PI(write("uid::array", Array, sizeof(Array), 0, false));
  EXPECT_EQ(runWithOutput(SumArray), 42);
  EXPECT_PI(pi().piKernelRelease(SumArray));
}

TEST_F(DeviceGlobals, HostReadsWhatAKernelWrote) {
  pi_kernel SetValue = kernel("set_value");
  ASSERT_NE(SetValue, nullptr);
  const int Value = 77;
  ASSERT_PI(pi().piKernelSetArg(SetValue, 0, sizeof(Value), &Value));
  const size_t Global = 1;
  ASSERT_PI(pi().piEnqueueKernelLaunch(Queue, SetValue, 1, nullptr, &Global, nullptr, 0, nullptr,
                                       nullptr));
  int Back = 0;
  ASSERT_PI(read("dg_value", &Back, 4));
  EXPECT_EQ(Back, 77);
  // And the host's write is what the next kernel reads.
  const int Next = -3;
  ASSERT_PI(write("dg_value", &Next, 4));
  pi_kernel ReadValue = kernel("read_value");
  EXPECT_EQ(runWithOutput(ReadValue), -3);
  EXPECT_PI(pi().piKernelRelease(SetValue));
  EXPECT_PI(pi().piKernelRelease(ReadValue));
}

TEST_F(DeviceGlobals, KernelLaunchChecks) {
  pi_kernel SetValue = kernel("set_value");
  const size_t Global = 64, Offset = 1, Local = 48;
  EXPECT_EQ(PI_ERROR_INVALID_KERNEL_ARGS,
            pi().piEnqueueKernelLaunch(Queue, SetValue, 1, nullptr, &Global, nullptr, 0, nullptr,
                                       nullptr));
  const int Value = 1;
  ASSERT_PI(pi().piKernelSetArg(SetValue, 0, sizeof(Value), &Value));
  // set_value has no "set_value_with_offset" entry point (DPC++'s form of a kernel that
  // reads the global offset): a non-zero offset is refused by name.
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piEnqueueKernelLaunch(Queue, SetValue, 1, &Offset, &Global,
                                                               nullptr, 0, nullptr, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_WORK_GROUP_SIZE,
            pi().piEnqueueKernelLaunch(Queue, SetValue, 1, nullptr, &Global, &Local, 0, nullptr,
                                       nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_WORK_DIMENSION,
            pi().piEnqueueKernelLaunch(Queue, SetValue, 4, nullptr, &Global, nullptr, 0, nullptr,
                                       nullptr));
  pi_kernel Missing = nullptr;
  EXPECT_EQ(PI_ERROR_INVALID_KERNEL_NAME, pi().piKernelCreate(Program, "no_kernel", &Missing));
  EXPECT_PI(pi().piKernelRelease(SetValue));
}

TEST_F(DeviceGlobals, KernelWithBufferArgument) {
  pi_mem Buffer = nullptr;
  ASSERT_PI(pi().piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, 1000 * sizeof(int), nullptr,
                                   &Buffer));
  pi_kernel Fill = kernel("fill_index");
  ASSERT_PI(pi().piextKernelSetArgMemObj(Fill, 0, &Buffer));
  const size_t Global = 1000; // no local size: the adapter picks a divisor
  ASSERT_PI(
      pi().piEnqueueKernelLaunch(Queue, Fill, 1, nullptr, &Global, nullptr, 0, nullptr, nullptr));
  std::vector<int> Back(1000, -1);
  ASSERT_PI(pi().piEnqueueMemBufferRead(Queue, Buffer, PI_TRUE, 0, 4000, Back.data(), 0, nullptr,
                                        nullptr));
  for (int I = 0; I < 1000; ++I)
    ASSERT_EQ(Back[I], I);
  EXPECT_PI(pi().piKernelRelease(Fill));
  EXPECT_PI(pi().piMemRelease(Buffer));
}

// Counts the adapter's lookup trace lines.
class LookupCounter : public spdlog::sinks::base_sink<std::mutex> {
public:
  std::atomic<int> Lookups{0};

protected:
  void sink_it_(const spdlog::details::log_msg &Message) override {
    if (std::string_view(Message.payload.data(), Message.payload.size())
            .find("device global lookup") != std::string_view::npos)
      ++Lookups;
  }
  void flush_() override {}
};

TEST_F(DeviceGlobals, WarmAccessMakesNoLookup) {
  auto Counter = std::make_shared<LookupCounter>();
  spdlog::logger &Logger = dglink::logger();
  const auto Level = Logger.level();
  Logger.sinks().push_back(Counter);
  Logger.set_level(spdlog::level::trace);
  int Value = 5;
  std::string Name = "dg_value"; // a fresh buffer each call: lookups go by content
  for (int I = 0; I < 10; ++I) {
    const std::string Copy = Name;
    EXPECT_PI(write(Copy.c_str(), &Value, 4));
    EXPECT_PI(read(Copy.c_str(), &Value, 4));
  }
  EXPECT_PI(read("uid::array", &Value, 4));
  EXPECT_PI(read("uid::array", &Value, 4));
  Logger.sinks().pop_back();
  Logger.set_level(Level);
  EXPECT_EQ(Counter->Lookups.load(), 2); // one per name
}

} // namespace
#endif
