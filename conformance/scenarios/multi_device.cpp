// One context of two devices of a platform, as a SYCL runtime's default context holds
// every device: a buffer written on one device's queue is what the other's queue and
// kernels see, device USM copied from one device to the other, an event of one device's
// queue ordering the other's. PoCL offers two devices with POCL_DEVICES="pthread pthread"
// (ctest conformance_two_devices); a GPU host with several GPUs runs them on each backend.
#include "fixtures.h"

#include <numeric>
#include <utility>

namespace dglink::conformance {
namespace {

constexpr size_t Count = 4096;
int32_t pattern(size_t I) { return int32_t(I) * 3 + 1; }

class TwoDevices : public BuiltProgramTest {
protected:
  void SetUp() override {
    BuiltProgramTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    ASSERT_NO_FATAL_FAILURE(twoDeviceContext(Both, Shared));
    if (IsSkipped())
      return;
    for (int I = 0; I < 2; ++I)
      ASSERT_PI_SUCCESS(piQueueCreate(Shared.get(), Both[I], 0, Queues[I].out()));
  }

  // The pattern program built for both devices of the shared context.
  void buildPatternForBoth(ProgramHandle &Out) {
    const EmbeddedImage *Image = findImage("pattern", Format);
    ASSERT_NE(Image, nullptr) << "no pattern image in " << Format;
    Images.push_back(std::make_unique<DeviceImage>(*Image, *findLinkFormat(Format)));
    ASSERT_PI_SUCCESS(
        piextProgramCreateWithImage(Shared.get(), 2, Both, Images.back()->get(), Out.out()));
    ASSERT_PI_SUCCESS(piProgramBuild(Out.get(), 2, Both, "", nullptr, nullptr));
  }

  // Device USM of the shared context on device D, or a skip naming why the context has
  // none (NVIDIA's OpenCL serves SVM in a context of one GPU only: docs/opencl.md).
  void deviceUsm(int D, size_t Bytes, void *&Out) {
    if (usmMechanism() == PI_USM_MECHANISM_NONE)
      GTEST_SKIP() << "device has no USM (PI_EXT_DEVICE_INFO_USM_MECHANISM is NONE)";
    const pi_result Result = piextUSMDeviceAlloc(&Out, Shared.get(), Both[D], nullptr, Bytes, 0);
    if (noUsmInSeveralGpus(Result))
      GTEST_SKIP() << "the context of two devices has no USM: " << lastErrorMessage();
    ASSERT_PI_SUCCESS(Result);
  }

  pi_device Both[2] = {nullptr, nullptr};
  ContextHandle Shared;
  QueueHandle Queues[2];
  std::vector<std::unique_ptr<DeviceImage>> Images;
};
DGLINK_INSTANTIATE_FOR_DEVICES(TwoDevices);

// A buffer belongs to the context, not to a device: what one device's queue wrote, the
// other's reads, and a kernel on the second device writes what the first device's
// queue then reads.
TEST_P(TwoDevices, BufferIsSharedByTheDevicesOfItsContext) {
  MemHandle Buffer;
  ASSERT_PI_SUCCESS(piMemBufferCreate(Shared.get(), PI_MEM_FLAGS_ACCESS_RW, Count * sizeof(int32_t),
                                      nullptr, Buffer.out()));
  std::vector<int32_t> Source(Count);
  for (size_t I = 0; I < Count; ++I)
    Source[I] = int32_t(I) ^ 0x2C2C;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queues[0].get(), Buffer.get(), PI_TRUE, 0,
                                            Count * sizeof(int32_t), Source.data(), 0, nullptr,
                                            nullptr));
  std::vector<int32_t> Back(Count, -1);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queues[1].get(), Buffer.get(), PI_TRUE, 0,
                                           Count * sizeof(int32_t), Back.data(), 0, nullptr,
                                           nullptr));
  EXPECT_EVERY_ELEMENT(Back, [&](size_t I) { return Source[I]; });
  ProgramHandle Program;
  ASSERT_NO_FATAL_FAILURE(buildPatternForBoth(Program));
  KernelHandle Fill;
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", Fill));
  pi_mem Argument = Buffer.get();
  ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Fill.get(), 0, &Argument));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  const size_t Global = Count;
  ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queues[1].get(), Fill.get(), 1, nullptr, &Global, nullptr,
                                          0, nullptr, nullptr));
  ASSERT_PI_SUCCESS(piQueueFinish(Queues[1].get()));
  std::fill(Back.begin(), Back.end(), -1);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queues[0].get(), Buffer.get(), PI_TRUE, 0,
                                           Count * sizeof(int32_t), Back.data(), 0, nullptr,
                                           nullptr));
  EXPECT_EVERY_ELEMENT(Back, pattern);
}

// One program built for both devices runs on each: the kernel of either device writes
// its own USM, allocated on that device. (Where no kernel runs, the program is still
// built for both devices, the kernel made and its argument set on each.)
TEST_P(TwoDevices, ProgramRunsOnEachDeviceIntoItsUsm) {
  ProgramHandle Program;
  ASSERT_NO_FATAL_FAILURE(buildPatternForBoth(Program));
  KernelHandle Fill;
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", Fill));
  for (int D = 0; D < 2; ++D) {
    void *Usm = nullptr;
    ASSERT_NO_FATAL_FAILURE(deviceUsm(D, Count * sizeof(int32_t), Usm));
    if (IsSkipped())
      return;
    ASSERT_PI_SUCCESS(piextKernelSetArgPointer(Fill.get(), 0, sizeof(Usm), &Usm));
    if (!executesKernels()) {
      ASSERT_PI_SUCCESS(piextUSMFree(Shared.get(), Usm));
      continue;
    }
    const size_t Global = Count;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queues[D].get(), Fill.get(), 1, nullptr, &Global,
                                            nullptr, 0, nullptr, nullptr));
    std::vector<int32_t> Back(Count, -1);
    ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queues[D].get(), PI_TRUE, Back.data(), Usm,
                                            Count * sizeof(int32_t), 0, nullptr, nullptr));
    EXPECT_EVERY_ELEMENT(Back, pattern) << "device " << D;
    ASSERT_PI_SUCCESS(piextUSMFree(Shared.get(), Usm));
  }
  DGLINK_REQUIRE_KERNEL_EXECUTION();
}

// Device USM of the first device copied into the second's (peer to peer where the
// hardware has it, else through the host): the bytes arrive, in both directions and on
// either device's queue, at sizes below and above the copy engine's thresholds.
TEST_P(TwoDevices, UsmCopiedFromOneDeviceToTheOther) {
  for (const size_t Bytes : {size_t{4}, size_t{4096}, size_t{1} << 20}) {
    void *Usm[2] = {nullptr, nullptr};
    for (int D = 0; D < 2; ++D) {
      ASSERT_NO_FATAL_FAILURE(deviceUsm(D, Bytes, Usm[D]));
      if (IsSkipped())
        return;
    }
    std::vector<unsigned char> Source(Bytes), Back(Bytes);
    for (size_t I = 0; I < Bytes; ++I)
      Source[I] = static_cast<unsigned char>(I * 7 + Bytes);
    // Each direction, on the destination's queue and on the source's.
    for (const auto &[From, On] :
         {std::pair{0, 1}, std::pair{0, 0}, std::pair{1, 0}, std::pair{1, 1}}) {
      const int To = 1 - From;
      ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queues[From].get(), PI_TRUE, Usm[From], Source.data(),
                                              Bytes, 0, nullptr, nullptr));
      ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queues[On].get(), PI_TRUE, Usm[To], Usm[From], Bytes,
                                              0, nullptr, nullptr));
      std::fill(Back.begin(), Back.end(), 0);
      ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queues[To].get(), PI_TRUE, Back.data(), Usm[To],
                                              Bytes, 0, nullptr, nullptr));
      EXPECT_EQ(Back, Source) << Bytes << " bytes from device " << From << " to " << To
                              << " on device " << On << "'s queue";
      std::reverse(Source.begin(), Source.end());
    }
    for (int D = 0; D < 2; ++D)
      ASSERT_PI_SUCCESS(piextUSMFree(Shared.get(), Usm[D]));
  }
}

// A non-blocking write on the first device's queue, then a read on the second device's
// queue that waits for its event: the read sees every byte.
TEST_P(TwoDevices, EventOfOneDeviceOrdersTheOther) {
  constexpr size_t Large = size_t{1} << 20;
  MemHandle Buffer;
  ASSERT_PI_SUCCESS(
      piMemBufferCreate(Shared.get(), PI_MEM_FLAGS_ACCESS_RW, Large, nullptr, Buffer.out()));
  std::vector<unsigned char> Source(Large), Back(Large, 0);
  std::iota(Source.begin(), Source.end(), static_cast<unsigned char>(3));
  EventHandle Written;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queues[0].get(), Buffer.get(), PI_FALSE, 0, Large,
                                            Source.data(), 0, nullptr, Written.out()));
  pi_event Wait = Written.get();
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queues[1].get(), Buffer.get(), PI_TRUE, 0, Large,
                                           Back.data(), 1, &Wait, nullptr));
  EXPECT_EQ(Back, Source);
}

} // namespace
} // namespace dglink::conformance
