// End to end: images the shim built (a bundle made at build time by dglink-post-link)
// run through the dispatch layer on every device that executes kernels: one image
// built alone, and two images linked through their imported/exported symbol sets.
#include <dglink/compiler/bundle.h>
#include <dglink/pi.h>
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

// The embedded form of the same bundle (generated, compiled into this test) registers
// itself at start-up through this hook, as with a SYCL runtime.
extern "C" pi_device_binaries dglinkShimEndToEndBinaries(void);
static pi_device_binaries RegisteredBinaries = nullptr;
extern "C" void __sycl_register_lib(pi_device_binaries Binaries) { RegisteredBinaries = Binaries; }
extern "C" void __sycl_unregister_lib(pi_device_binaries) {}

namespace dglink {
namespace {

std::string deviceString(pi_device Device, pi_device_info Name) {
  size_t Size = 0;
  if (piDeviceGetInfo(Device, Name, 0, nullptr, &Size) != PI_SUCCESS || Size == 0)
    return "";
  std::string Text(Size, '\0');
  if (piDeviceGetInfo(Device, Name, Size, Text.data(), nullptr) != PI_SUCCESS)
    return "";
  Text.resize(Text.find('\0'));
  return Text;
}

bool hasWord(const std::string &Words, const std::string &Word) {
  return (" " + Words + " ").find(" " + Word + " ") != std::string::npos;
}

// The format names of PI_EXT_DEVICE_INFO_IMAGE_FORMATS / _LINK_FORMATS.
std::string formatName(const BundleImage &Image) {
  if (Image.Format == PI_DEVICE_BINARY_TYPE_SPIRV)
    return "spirv64";
  return Image.Target;
}

struct Device {
  pi_device Handle;
  std::string Name, ImageFormats, LinkFormats;
};

std::vector<Device> kernelDevices() {
  std::vector<Device> Result;
  pi_uint32 PlatformCount = 0;
  if (piPlatformsGet(0, nullptr, &PlatformCount) != PI_SUCCESS || PlatformCount == 0)
    return Result;
  std::vector<pi_platform> Platforms(PlatformCount);
  EXPECT_EQ(piPlatformsGet(PlatformCount, Platforms.data(), nullptr), PI_SUCCESS);
  for (pi_platform Platform : Platforms) {
    pi_uint32 Count = 0;
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &Count) != PI_SUCCESS || Count == 0)
      continue;
    std::vector<pi_device> Devices(Count);
    EXPECT_EQ(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, Count, Devices.data(), nullptr),
              PI_SUCCESS);
    for (pi_device Handle : Devices) {
      pi_bool Executes = PI_FALSE;
      if (piDeviceGetInfo(Handle, PI_EXT_DEVICE_INFO_EXECUTES_KERNELS, sizeof(Executes), &Executes,
                          nullptr) != PI_SUCCESS ||
          Executes == PI_FALSE)
        continue;
      Result.push_back({Handle, deviceString(Handle, PI_DEVICE_INFO_NAME),
                        deviceString(Handle, PI_EXT_DEVICE_INFO_IMAGE_FORMATS),
                        deviceString(Handle, PI_EXT_DEVICE_INFO_LINK_FORMATS)});
    }
  }
  return Result;
}

const BundleImage *findImage(const Bundle &Input, const std::string &Name,
                             const std::string &Formats, size_t &Index) {
  for (Index = 0; Index < Input.Images.size(); ++Index)
    if (Input.Images[Index].Name == Name && hasWord(Formats, formatName(Input.Images[Index])))
      return &Input.Images[Index];
  return nullptr;
}

// Runs Kernel over Count items with one buffer argument; returns the buffer.
std::vector<int32_t> run(pi_context Context, pi_queue Queue, pi_program Program,
                         const char *KernelName, size_t Count) {
  std::vector<int32_t> Values(Count, -1);
  pi_kernel Kernel = nullptr;
  EXPECT_EQ(piKernelCreate(Program, KernelName, &Kernel), PI_SUCCESS) << lastErrorMessage();
  pi_mem Buffer = nullptr;
  EXPECT_EQ(
      piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, Count * sizeof(int32_t), nullptr, &Buffer),
      PI_SUCCESS);
  if (Kernel != nullptr && Buffer != nullptr) {
    EXPECT_EQ(piextKernelSetArgMemObj(Kernel, 0, &Buffer), PI_SUCCESS);
    EXPECT_EQ(
        piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &Count, nullptr, 0, nullptr, nullptr),
        PI_SUCCESS)
        << lastErrorMessage();
    EXPECT_EQ(piEnqueueMemBufferRead(Queue, Buffer, PI_TRUE, 0, Count * sizeof(int32_t),
                                     Values.data(), 0, nullptr, nullptr),
              PI_SUCCESS);
  }
  if (Buffer != nullptr)
    piMemRelease(Buffer);
  if (Kernel != nullptr)
    piKernelRelease(Kernel);
  return Values;
}

class ShimEndToEnd : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(readBundleFile(DGLINK_SHIM_E2E_BUNDLE, Input), PI_SUCCESS) << lastErrorMessage();
    View = std::make_unique<DeviceBinaries>(Input);
    Devices = kernelDevices();
    if (Devices.empty())
      GTEST_SKIP() << "no device that executes kernels was found";
  }
  Bundle Input;
  std::unique_ptr<DeviceBinaries> View;
  std::vector<Device> Devices;
};

TEST(ShimEmbedded, RegistersTheBundleAtStartUp) {
  Bundle Input;
  ASSERT_EQ(readBundleFile(DGLINK_SHIM_E2E_BUNDLE, Input), PI_SUCCESS) << lastErrorMessage();
  ASSERT_NE(RegisteredBinaries, nullptr);
  ASSERT_EQ(RegisteredBinaries, dglinkShimEndToEndBinaries());
  EXPECT_EQ(RegisteredBinaries->Version, PI_DEVICE_BINARIES_VERSION);
  ASSERT_EQ(RegisteredBinaries->NumDeviceBinaries, Input.Images.size());
  DeviceBinaries View(Input);
  for (size_t I = 0; I < Input.Images.size(); ++I) {
    const _pi_device_binary_struct &Embedded = RegisteredBinaries->DeviceBinaries[I];
    const BundleImage &Image = Input.Images[I];
    EXPECT_EQ(Embedded.Version, PI_DEVICE_BINARY_VERSION);
    EXPECT_EQ(Embedded.Kind, PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL);
    EXPECT_EQ(Embedded.Format, Image.Format);
    EXPECT_EQ(std::string(Embedded.DeviceTargetSpec), Image.Target);
    EXPECT_EQ(std::string(Embedded.CompileOptions), Image.CompileOptions);
    EXPECT_EQ(std::vector<uint8_t>(Embedded.BinaryStart, Embedded.BinaryEnd), Image.Binary);
    ASSERT_EQ(static_cast<size_t>(Embedded.EntriesEnd - Embedded.EntriesBegin),
              Image.Entries.size());
    for (size_t E = 0; E < Image.Entries.size(); ++E)
      EXPECT_EQ(std::string(Embedded.EntriesBegin[E].name), Image.Entries[E]);
    ImageMetadata FromEmbedded, FromFile;
    ASSERT_EQ(readImageMetadata(Embedded, FromEmbedded), PI_SUCCESS) << lastErrorMessage();
    ASSERT_EQ(readImageMetadata(View.image(I), FromFile), PI_SUCCESS);
    EXPECT_EQ(FromEmbedded.RawSets, FromFile.RawSets);
    EXPECT_EQ(FromEmbedded.Exported, FromFile.Exported);
    EXPECT_EQ(FromEmbedded.Imported, FromFile.Imported);
  }
  // The caller imports what the callee exports.
  EXPECT_EQ(Input.Images[0].Name, "shim_fill");
  ImageMetadata Caller;
  ASSERT_EQ(readImageMetadata(RegisteredBinaries->DeviceBinaries[3], Caller), PI_SUCCESS);
  EXPECT_EQ(Caller.Imported, std::vector<std::string>{"shim_callee"});
}

TEST_F(ShimEndToEnd, ImageBuildsAndRuns) {
  int Ran = 0;
  for (const Device &Target : Devices) {
    size_t Index = 0;
    if (findImage(Input, "shim_fill", Target.ImageFormats, Index) == nullptr)
      continue;
    SCOPED_TRACE(Target.Name + " " + formatName(Input.Images[Index]));
    pi_context Context = nullptr;
    ASSERT_EQ(piContextCreate(nullptr, 1, &Target.Handle, &Context), PI_SUCCESS);
    pi_queue Queue = nullptr;
    ASSERT_EQ(piQueueCreate(Context, Target.Handle, 0, &Queue), PI_SUCCESS);
    pi_program Program = nullptr;
    ASSERT_EQ(
        piextProgramCreateWithImage(Context, 1, &Target.Handle, &View->image(Index), &Program),
        PI_SUCCESS)
        << lastErrorMessage();
    ASSERT_EQ(piProgramBuild(Program, 1, &Target.Handle, "", nullptr, nullptr), PI_SUCCESS)
        << lastErrorMessage();
    const std::vector<int32_t> Values = run(Context, Queue, Program, "shim_fill", 64);
    for (int32_t I = 0; I < 64; ++I)
      ASSERT_EQ(Values[I], I * 3 + 1) << "element " << I;
    std::printf("[   shim   ] shim_fill (%s) ran on %s\n", formatName(Input.Images[Index]).c_str(),
                Target.Name.c_str());
    ++Ran;
    piProgramRelease(Program);
    piQueueRelease(Queue);
    piContextRelease(Context);
  }
  if (Ran == 0)
    GTEST_SKIP() << "no device builds any of the bundle's formats";
}

TEST_F(ShimEndToEnd, ImagesLinkThroughTheirSymbolSets) {
  int Ran = 0;
  for (const Device &Target : Devices) {
    size_t Caller = 0, Callee = 0;
    if (findImage(Input, "shim_caller", Target.LinkFormats, Caller) == nullptr ||
        findImage(Input, "shim_callee", Target.LinkFormats, Callee) == nullptr)
      continue;
    ASSERT_EQ(formatName(Input.Images[Caller]), formatName(Input.Images[Callee]));
    SCOPED_TRACE(Target.Name + " " + formatName(Input.Images[Caller]));
    pi_context Context = nullptr;
    ASSERT_EQ(piContextCreate(nullptr, 1, &Target.Handle, &Context), PI_SUCCESS);
    pi_queue Queue = nullptr;
    ASSERT_EQ(piQueueCreate(Context, Target.Handle, 0, &Queue), PI_SUCCESS);
    pi_program Inputs[2] = {nullptr, nullptr};
    const size_t Indices[2] = {Caller, Callee};
    for (int I = 0; I < 2; ++I) {
      ASSERT_EQ(piextProgramCreateWithImage(Context, 1, &Target.Handle, &View->image(Indices[I]),
                                            &Inputs[I]),
                PI_SUCCESS)
          << lastErrorMessage();
      ASSERT_EQ(
          piProgramCompile(Inputs[I], 1, &Target.Handle, "", 0, nullptr, nullptr, nullptr, nullptr),
          PI_SUCCESS)
          << lastErrorMessage();
    }
    pi_program Linked = nullptr;
    ASSERT_EQ(piProgramLink(Context, 1, &Target.Handle, "", 2, Inputs, nullptr, nullptr, &Linked),
              PI_SUCCESS)
        << lastErrorMessage();
    const std::vector<int32_t> Values = run(Context, Queue, Linked, "shim_caller", 32);
    for (int32_t I = 0; I < 32; ++I)
      ASSERT_EQ(Values[I], I * I + 7) << "element " << I;
    std::printf("[   shim   ] shim_caller + shim_callee (%s) linked and ran on %s\n",
                formatName(Input.Images[Caller]).c_str(), Target.Name.c_str());
    ++Ran;
    piProgramRelease(Linked);
    piProgramRelease(Inputs[0]);
    piProgramRelease(Inputs[1]);
    piQueueRelease(Queue);
    piContextRelease(Context);
  }
  if (Ran == 0)
    GTEST_SKIP() << "no device links any of the bundle's formats";
}

} // namespace
} // namespace dglink
