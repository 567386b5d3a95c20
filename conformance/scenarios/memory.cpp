// Kernels that write memory the host then reads back in full: a memory buffer
// on every device, and USM (device and shared allocations) where the device
// serves it.
#include "fixtures.h"

#include <algorithm>
#include <vector>

namespace dglink::conformance {
namespace {

constexpr size_t Count = 1024;
int32_t pattern(size_t I) { return int32_t(I) * 3 + 1; }

class Memory : public BuiltProgramTest {
protected:
  void SetUp() override {
    BuiltProgramTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Program));
    ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", FillPattern));
  }
  void skipWithoutUsm() {
    if (usmMechanism() == PI_USM_MECHANISM_NONE)
      GTEST_SKIP() << "device has no USM (PI_EXT_DEVICE_INFO_USM_MECHANISM is NONE)";
  }
  pi_usm_capabilities usmSupport(pi_device_info Kind) {
    pi_usm_capabilities Support = 0;
    EXPECT_PI_SUCCESS(piDeviceGetInfo(Device, Kind, sizeof(Support), &Support, nullptr));
    return Support;
  }
  // Runs fill_pattern on a USM allocation and copies it back to the host.
  void fillUsm(void *Pointer, std::vector<int32_t> &Values) {
    ASSERT_PI_SUCCESS(piextKernelSetArgPointer(FillPattern.get(), 0, sizeof(Pointer), &Pointer));
    const size_t Global = Count;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), FillPattern.get(), 1, nullptr, &Global,
                                            nullptr, 0, nullptr, nullptr));
    Values.assign(Count, -1);
    ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queue.get(), PI_TRUE, Values.data(), Pointer,
                                            Count * sizeof(int32_t), 0, nullptr, nullptr));
  }

  ProgramHandle Program;
  KernelHandle FillPattern;
};
DGLINK_INSTANTIATE_FOR_DEVICES(Memory);

TEST_P(Memory, BufferKernelWrite) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(runOnBuffer(FillPattern.get(), Count, Values));
  EXPECT_EVERY_ELEMENT(Values, pattern);
}

TEST_P(Memory, BufferWriteRead) {
  MemHandle Buffer;
  ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW,
                                      Count * sizeof(int32_t), nullptr, Buffer.out()));
  std::vector<int32_t> Source(Count);
  for (size_t I = 0; I < Count; ++I)
    Source[I] = int32_t(I) ^ 0x5A5A;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_TRUE, 0,
                                            Count * sizeof(int32_t), Source.data(), 0, nullptr,
                                            nullptr));
  std::vector<int32_t> Values(Count, -1);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_TRUE, 0,
                                           Count * sizeof(int32_t), Values.data(), 0, nullptr,
                                           nullptr));
  EXPECT_EVERY_ELEMENT(Values, [](size_t I) { return int32_t(I) ^ 0x5A5A; });
}

TEST_P(Memory, UsmDeviceKernelWrite) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(skipWithoutUsm());
  if (IsSkipped())
    return;
  UsmPointer Pointer;
  ASSERT_PI_SUCCESS(piextUSMDeviceAlloc(Pointer.out(Context.get()), Context.get(), Device, nullptr,
                                        Count * sizeof(int32_t), 0));
  ASSERT_NE(Pointer.get(), nullptr);
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(fillUsm(Pointer.get(), Values));
  EXPECT_EVERY_ELEMENT(Values, pattern);
}

TEST_P(Memory, UsmSharedKernelWrite) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(skipWithoutUsm());
  if (IsSkipped())
    return;
  if (usmSupport(PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT) == 0)
    GTEST_SKIP() << "device has no shared USM (PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT is 0; "
                    "Memory.UsmKindsReportedAsMissingAreRefused checks the refusal)";
  UsmPointer Pointer;
  ASSERT_PI_SUCCESS(piextUSMSharedAlloc(Pointer.out(Context.get()), Context.get(), Device, nullptr,
                                        Count * sizeof(int32_t), 0));
  ASSERT_NE(Pointer.get(), nullptr);
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(fillUsm(Pointer.get(), Values));
  EXPECT_EVERY_ELEMENT(Values, pattern);
}

// The capability answers are the truth: device USM wherever there is USM at all, and
// a kind reported missing is refused, with no allocation left behind.
TEST_P(Memory, UsmKindsReportedAsMissingAreRefused) {
  const pi_usm_capabilities Host = usmSupport(PI_DEVICE_INFO_USM_HOST_SUPPORT);
  const pi_usm_capabilities Dev = usmSupport(PI_DEVICE_INFO_USM_DEVICE_SUPPORT);
  const pi_usm_capabilities Shared = usmSupport(PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT);
  const bool HasUsm = usmMechanism() != PI_USM_MECHANISM_NONE;
  EXPECT_EQ(Dev != 0, HasUsm) << "device USM support must follow the USM mechanism";
  if (!HasUsm) {
    EXPECT_EQ(Host, 0u);
    EXPECT_EQ(Shared, 0u);
  }
  const size_t Bytes = Count * sizeof(int32_t);
  if (Host == 0) {
    void *Pointer = reinterpret_cast<void *>(0x1);
    EXPECT_PI_ERROR(PI_ERROR_INVALID_OPERATION,
                    piextUSMHostAlloc(&Pointer, Context.get(), nullptr, Bytes, 0));
  }
  if (Dev == 0) {
    void *Pointer = nullptr;
    EXPECT_PI_ERROR(PI_ERROR_INVALID_OPERATION,
                    piextUSMDeviceAlloc(&Pointer, Context.get(), Device, nullptr, Bytes, 0));
  }
  if (Shared == 0) {
    void *Pointer = nullptr;
    EXPECT_PI_ERROR(PI_ERROR_INVALID_OPERATION,
                    piextUSMSharedAlloc(&Pointer, Context.get(), Device, nullptr, Bytes, 0));
  }
  if (Host != 0 && Dev != 0 && Shared != 0)
    GTEST_SKIP() << "device serves every USM kind; nothing to refuse";
}

TEST_P(Memory, UsmFillAndCopy) {
  ASSERT_NO_FATAL_FAILURE(skipWithoutUsm());
  if (IsSkipped())
    return;
  UsmPointer Pointer;
  ASSERT_PI_SUCCESS(piextUSMDeviceAlloc(Pointer.out(Context.get()), Context.get(), Device, nullptr,
                                        Count * sizeof(int32_t), 0));
  const int32_t Pattern = 0x12345678;
  ASSERT_PI_SUCCESS(piextUSMEnqueueFill(Queue.get(), Pointer.get(), &Pattern, sizeof(Pattern),
                                        Count * sizeof(int32_t), 0, nullptr, nullptr));
  std::vector<int32_t> Values(Count, -1);
  ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queue.get(), PI_TRUE, Values.data(), Pointer.get(),
                                          Count * sizeof(int32_t), 0, nullptr, nullptr));
  EXPECT_EVERY_ELEMENT(Values, [&](size_t) { return Pattern; });
}

// Patterns no driver fill takes (OpenCL's: a power of two up to 128 bytes) as UR's CTS
// and DPC++ pass them: 10 and 256 bytes tile the range exactly; a pattern that does not
// tile the size is refused and writes nothing.
TEST_P(Memory, UsmFillWithWidePatterns) {
  ASSERT_NO_FATAL_FAILURE(skipWithoutUsm());
  if (IsSkipped())
    return;
  constexpr size_t Bytes = 2560;
  UsmPointer Pointer;
  ASSERT_PI_SUCCESS(
      piextUSMDeviceAlloc(Pointer.out(Context.get()), Context.get(), Device, nullptr, Bytes, 0));
  for (const size_t PatternSize :
       {size_t{10}, size_t{256}, size_t{3}, size_t{128}, size_t{8}, size_t{16}, size_t{64}}) {
    SCOPED_TRACE("pattern of " + std::to_string(PatternSize) + " bytes");
    const size_t Size = Bytes - Bytes % PatternSize;
    std::vector<uint8_t> Pattern(PatternSize);
    for (size_t I = 0; I < PatternSize; ++I)
      Pattern[I] = static_cast<uint8_t>(I * 13 + PatternSize);
    EventHandle Filled;
    ASSERT_PI_SUCCESS(piextUSMEnqueueFill(Queue.get(), Pointer.get(), Pattern.data(), PatternSize,
                                          Size, 0, nullptr, Filled.out()));
    // The pattern may go away once the call returns (PI, as OpenCL's fill).
    const std::vector<uint8_t> Expected = Pattern;
    std::fill(Pattern.begin(), Pattern.end(), uint8_t{0xEE});
    const pi_event Raw = Filled.get();
    ASSERT_PI_SUCCESS(piEventsWait(1, &Raw));
    std::vector<uint8_t> Back(Size, 0);
    ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queue.get(), PI_TRUE, Back.data(), Pointer.get(), Size,
                                            0, nullptr, nullptr));
    for (size_t I = 0; I < Size; ++I)
      ASSERT_EQ(Back[I], Expected[I % PatternSize]) << "byte " << I;
  }
  const uint8_t Three[3] = {1, 2, 3};
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "does not tile 64 bytes",
      piextUSMEnqueueFill(Queue.get(), Pointer.get(), Three, 3, 64, 0, nullptr, nullptr));
}

} // namespace
} // namespace dglink::conformance
