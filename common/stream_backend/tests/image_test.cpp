// Images through the adapter core and the stream backend over a driver whose arrays are
// host memory with the CUDA driver's addressing (a row's offset in bytes, then rows, then
// slices or layers; a layered 1-D array's images are its layers, one row each) and
// bounds (a copy past an array, a 2-D copy of a layered or 3-D array, a 1-D array of
// more than one row: refused). What it checks is the backend's part: pixels to bytes,
// the caller's pitches, the images of a 1-D array, host memory whose slices are no whole
// number of rows apart, copies between a 1-D array and a 2-D image, the formats an array
// holds, the initial pixels, and samplers as DPC++'s 32-bit word.
#include "fake_driver.h"

#include <dglink/core/backend.h>
#include <dglink/pi.h>
#include <dglink/stream/backend.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

namespace core = dglink::core;
using dglink::stream::ArrayCopy;
using dglink::stream::ArrayElement;
using dglink::stream::ArrayShape;
using dglink::stream::ArraySide;
using dglink::stream::DeviceInfo;
using dglink::stream::ImageArray;
using dglink::stream::Stream;

struct FakeArray {
  ArrayShape Shape;
  size_t RowBytes = 0, Rows = 0, Slices = 0;
  std::vector<unsigned char> Bytes;
};

size_t channelBytes(ArrayElement Element) {
  switch (Element) {
  case ArrayElement::Unsigned8:
  case ArrayElement::Signed8:
    return 1;
  case ArrayElement::Unsigned16:
  case ArrayElement::Signed16:
  case ArrayElement::Half:
    return 2;
  case ArrayElement::Unsigned32:
  case ArrayElement::Signed32:
  case ArrayElement::Float:
    break;
  }
  return 4;
}

class ImageDriver final : public dglink::stream::testing::FakeDriver {
public:
  pi_result deviceInfo(int, DeviceInfo &Info) override {
    Info.Name = "fake images";
    Info.Images.Supported = true;
    Info.Images.Width1D = 1024;
    Info.Images.Max2D[0] = Info.Images.Max2D[1] = 1024;
    Info.Images.Max3D[0] = Info.Images.Max3D[1] = Info.Images.Max3D[2] = 256;
    Info.Images.Layers = 64;
    return PI_SUCCESS;
  }
  // The default stream (null) of an image's initial pixels: nothing runs on it later.
  using FakeDriver::synchronize;
  pi_result synchronize(Stream S) override {
    return S == nullptr ? PI_SUCCESS : FakeDriver::synchronize(S);
  }
  pi_result createArray(const ArrayShape &Shape, ImageArray &Out) override {
    if (Shape.Channels != 1 && Shape.Channels != 2 && Shape.Channels != 4)
      return PI_ERROR_INVALID_VALUE;
    if (Shape.Layered && Shape.Depth == 0)
      return PI_ERROR_INVALID_VALUE;
    auto Made = std::make_unique<FakeArray>();
    Made->Shape = Shape;
    Made->RowBytes = Shape.Width * Shape.Channels * channelBytes(Shape.Element);
    Made->Rows = std::max<size_t>(Shape.Height, 1);
    Made->Slices = std::max<size_t>(Shape.Depth, 1);
    Made->Bytes.assign(Made->RowBytes * Made->Rows * Made->Slices, 0xEE);
    std::lock_guard<std::mutex> Lock(Mutex);
    Out = reinterpret_cast<ImageArray>(Made.get());
    Arrays.push_back(std::move(Made));
    return PI_SUCCESS;
  }
  void destroyArray(ImageArray Array) override {
    std::lock_guard<std::mutex> Lock(Mutex);
    Arrays.erase(std::remove_if(Arrays.begin(), Arrays.end(),
                                [&](const auto &Each) {
                                  return reinterpret_cast<ImageArray>(Each.get()) == Array;
                                }),
                 Arrays.end());
  }
  pi_result describeArray(ImageArray Array, ArrayShape &Out) override {
    std::lock_guard<std::mutex> Lock(Mutex);
    for (const auto &Each : Arrays)
      if (reinterpret_cast<ImageArray>(Each.get()) == Array) {
        Out = Each->Shape;
        return PI_SUCCESS;
      }
    return PI_ERROR_INVALID_VALUE;
  }
  // At the call (the tests' reads and writes block): the bytes as CUDA's copies address
  // them, refused where CUDA's would be.
  pi_result copyArray(const ArrayCopy &Copy, int, Stream) override {
    ++Copies;
    if (!Copy.Volume && Copy.Depth != 1)
      return PI_ERROR_INVALID_VALUE;
    for (const ArraySide *Side : {&Copy.Src, &Copy.Dst}) {
      if (Side->Array == nullptr) {
        if (Side->Pitch < Copy.WidthBytes || (Copy.Depth > 1 && Side->Rows < Copy.Height))
          return PI_ERROR_INVALID_VALUE;
        continue;
      }
      const FakeArray &A = *reinterpret_cast<const FakeArray *>(Side->Array);
      if (!Copy.Volume && (A.Shape.Layered || A.Shape.Depth != 0))
        return PI_ERROR_INVALID_VALUE; // a 2-D copy of a 3-D or layered array
      if (Side->Offset[0] + Copy.WidthBytes > A.RowBytes ||
          Side->Offset[1] + Copy.Height > A.Rows || Side->Offset[2] + Copy.Depth > A.Slices)
        return PI_ERROR_INVALID_VALUE;
    }
    const auto at = [&](const ArraySide &Side, size_t Row, size_t Slice) -> unsigned char * {
      if (Side.Array == nullptr)
        return static_cast<unsigned char *>(Side.Pointer) +
               (Slice * (Copy.Depth > 1 ? Side.Rows : 0) + Row) * Side.Pitch;
      auto &A = *reinterpret_cast<FakeArray *>(Side.Array);
      return A.Bytes.data() +
             ((Side.Offset[2] + Slice) * A.Rows + Side.Offset[1] + Row) * A.RowBytes +
             Side.Offset[0];
    };
    for (size_t Slice = 0; Slice < Copy.Depth; ++Slice)
      for (size_t Row = 0; Row < Copy.Height; ++Row)
        std::memmove(at(Copy.Dst, Row, Slice), at(Copy.Src, Row, Slice), Copy.WidthBytes);
    return PI_SUCCESS;
  }
  pi_result createSurface(ImageArray Array, uint64_t &Out) override {
    Out = reinterpret_cast<uintptr_t>(Array);
    return PI_SUCCESS;
  }
  void destroySurface(uint64_t) override {}

  size_t liveArrays() {
    std::lock_guard<std::mutex> Lock(Mutex);
    return Arrays.size();
  }
  size_t Copies = 0;

private:
  std::mutex Mutex;
  std::vector<std::unique_ptr<FakeArray>> Arrays;
};

ImageDriver *TheDriver = nullptr;

std::string lastError() {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  return Message != nullptr ? Message : "";
}

// Distinct 4-float pixels.
std::vector<float> pixels(size_t Count, float Base) {
  std::vector<float> Values(Count * 4);
  for (size_t I = 0; I < Values.size(); ++I)
    Values[I] = Base + static_cast<float>(I);
  return Values;
}

class StreamImages : public ::testing::Test {
protected:
  void SetUp() override {
    pi_uint32 Count = 0;
    ASSERT_EQ(piPlatformsGet(1, &Platform, &Count), PI_SUCCESS) << lastError();
    ASSERT_EQ(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 1, &Device, nullptr), PI_SUCCESS);
    ASSERT_EQ(piContextCreate(nullptr, 1, &Device, &Context), PI_SUCCESS) << lastError();
    ASSERT_EQ(piQueueCreate(Context, Device, 0, &Queue), PI_SUCCESS) << lastError();
  }
  void TearDown() override {
    for (pi_mem Image : Images)
      EXPECT_EQ(piMemRelease(Image), PI_SUCCESS);
    if (Queue != nullptr)
      piQueueRelease(Queue);
    if (Context != nullptr)
      piContextRelease(Context);
    EXPECT_EQ(TheDriver->liveArrays(), 0u);
  }

  // An RGBA float image (or Format), released at the end.
  pi_mem make(core::ImageType Type, size_t Width, size_t Height, size_t Depth, size_t ArraySize,
              void *Host = nullptr, size_t RowPitch = 0, size_t SlicePitch = 0,
              core::PixelFormat Format = {core::ChannelOrder::RGBA, core::ChannelType::Float}) {
    core::ImageDescription Description;
    Description.Type = Type;
    Description.Format = Format;
    Description.Width = Width;
    Description.Height = Height;
    Description.Depth = Depth;
    Description.ArraySize = ArraySize;
    Description.RowPitch = RowPitch;
    Description.SlicePitch = SlicePitch;
    pi_mem Made = nullptr;
    const pi_mem_flags Flags =
        PI_MEM_FLAGS_ACCESS_RW | (Host != nullptr ? PI_MEM_FLAGS_HOST_PTR_COPY : 0);
    EXPECT_EQ(core::createImage("test", Context, Flags, Description, Host, &Made), PI_SUCCESS)
        << lastError();
    if (Made != nullptr)
      Images.push_back(Made);
    return Made;
  }
  pi_result write(pi_mem Image, const size_t Origin[3], const size_t Region[3], const void *Src,
                  size_t RowPitch = 0, size_t SlicePitch = 0) {
    return core::enqueueImageWrite("test", Queue, Image, true, Origin, Region, RowPitch, SlicePitch,
                                   Src, 0, nullptr, nullptr);
  }
  pi_result read(pi_mem Image, const size_t Origin[3], const size_t Region[3], void *Dst,
                 size_t RowPitch = 0, size_t SlicePitch = 0) {
    return core::enqueueImageRead("test", Queue, Image, true, Origin, Region, RowPitch, SlicePitch,
                                  Dst, 0, nullptr, nullptr);
  }

  pi_platform Platform = nullptr;
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
  std::vector<pi_mem> Images;
};

TEST_F(StreamImages, DeviceStatesTheDriversLimits) {
  const core::DeviceImages &Limits = Device->Description.Images;
  EXPECT_TRUE(Limits.Supported);
  EXPECT_EQ(Limits.Max2D[0], 1024u);
  EXPECT_EQ(Limits.Max3D[2], 256u);
  EXPECT_EQ(Limits.MaxArraySize, 64u);
  EXPECT_EQ(Limits.MaxBufferSize, 1024u);
  EXPECT_GT(Limits.MaxSamplers, 0u);
}

// Every type written, read back whole and one pixel, copied whole and read back.
TEST_F(StreamImages, EveryTypeWrittenReadAndCopied) {
  struct Case {
    core::ImageType Type;
    size_t Width, Height, Depth, ArraySize;
    size_t Region[3];
  };
  const Case Cases[] = {{core::ImageType::Image1D, 64, 1, 1, 1, {64, 1, 1}},
                        {core::ImageType::Image1DArray, 32, 1, 1, 3, {32, 3, 1}},
                        {core::ImageType::Image2D, 16, 8, 1, 1, {16, 8, 1}},
                        {core::ImageType::Image2DArray, 8, 4, 1, 3, {8, 4, 3}},
                        {core::ImageType::Image3D, 8, 4, 3, 1, {8, 4, 3}}};
  for (const Case &Each : Cases) {
    SCOPED_TRACE(testing::Message() << "image type " << static_cast<int>(Each.Type));
    pi_mem Src = make(Each.Type, Each.Width, Each.Height, Each.Depth, Each.ArraySize);
    pi_mem Dst = make(Each.Type, Each.Width, Each.Height, Each.Depth, Each.ArraySize);
    ASSERT_NE(Src, nullptr);
    ASSERT_NE(Dst, nullptr);
    const size_t Count = Each.Region[0] * Each.Region[1] * Each.Region[2];
    EXPECT_EQ(Src->Size, Count * 16);
    const std::vector<float> Input = pixels(Count, 1.0f);
    const size_t Zero[3] = {0, 0, 0};
    ASSERT_EQ(write(Src, Zero, Each.Region, Input.data()), PI_SUCCESS) << lastError();
    std::vector<float> Output(Input.size(), -1.0f);
    ASSERT_EQ(read(Src, Zero, Each.Region, Output.data()), PI_SUCCESS) << lastError();
    EXPECT_EQ(Output, Input);
    const size_t Last[3] = {Each.Region[0] - 1, Each.Region[1] - 1, Each.Region[2] - 1};
    const size_t One[3] = {1, 1, 1};
    float Pixel[4] = {0, 0, 0, 0};
    ASSERT_EQ(read(Src, Last, One, Pixel), PI_SUCCESS) << lastError();
    EXPECT_TRUE(std::equal(Pixel, Pixel + 4, Input.end() - 4));
    ASSERT_EQ(core::enqueueImageCopy("test", Queue, Src, Dst, Zero, Zero, Each.Region, 0, nullptr,
                                     nullptr),
              PI_SUCCESS)
        << lastError();
    std::fill(Output.begin(), Output.end(), -1.0f);
    ASSERT_EQ(read(Dst, Zero, Each.Region, Output.data()), PI_SUCCESS) << lastError();
    EXPECT_EQ(Output, Input);
  }
}

// The caller's pitches: padded rows, a 1-D array's images padded apart, and 3-D slices
// that are no whole number of rows apart (copied one slice at a time).
TEST_F(StreamImages, HostPitchesAreTheCallers) {
  const size_t Zero[3] = {0, 0, 0};
  {
    pi_mem Image = make(core::ImageType::Image1DArray, 4, 1, 1, 3);
    const size_t Region[3] = {4, 3, 1};
    // Each image 64 bytes in, 96 bytes apart.
    std::vector<float> Host(3 * 24, -5.0f);
    for (size_t Layer = 0; Layer < 3; ++Layer)
      for (size_t F = 0; F < 16; ++F)
        Host[Layer * 24 + F] = static_cast<float>(Layer * 100 + F);
    ASSERT_EQ(write(Image, Zero, Region, Host.data(), 64, 96), PI_SUCCESS) << lastError();
    std::vector<float> Tight(3 * 16, -1.0f);
    ASSERT_EQ(read(Image, Zero, Region, Tight.data()), PI_SUCCESS) << lastError();
    for (size_t Layer = 0; Layer < 3; ++Layer)
      for (size_t F = 0; F < 16; ++F)
        ASSERT_EQ(Tight[Layer * 16 + F], static_cast<float>(Layer * 100 + F)) << Layer << ", " << F;
  }
  {
    pi_mem Image = make(core::ImageType::Image3D, 2, 2, 3, 1);
    const size_t Region[3] = {2, 2, 3};
    const std::vector<float> Input = pixels(12, 0.0f);
    ASSERT_EQ(write(Image, Zero, Region, Input.data()), PI_SUCCESS) << lastError();
    // Rows of 48 bytes (32 used), slices 104 bytes apart: not a whole number of rows.
    const size_t RowPitch = 48, SlicePitch = 104;
    std::vector<unsigned char> Padded(SlicePitch * 3, 0xAB);
    const size_t CopiesBefore = TheDriver->Copies;
    ASSERT_EQ(read(Image, Zero, Region, Padded.data(), RowPitch, SlicePitch), PI_SUCCESS)
        << lastError();
    EXPECT_EQ(TheDriver->Copies - CopiesBefore, 3u) << "one copy per slice";
    for (size_t Slice = 0; Slice < 3; ++Slice)
      for (size_t Row = 0; Row < 2; ++Row) {
        const unsigned char *At = Padded.data() + Slice * SlicePitch + Row * RowPitch;
        EXPECT_EQ(std::memcmp(At, Input.data() + (Slice * 2 + Row) * 8, 32), 0)
            << Slice << ", " << Row;
        EXPECT_EQ(At[32], 0xAB);
      }
  }
}

// Initial pixels with the caller's row pitch; a part copied to an offset; a 1-D array's
// images into a 2-D image's rows, row by row.
TEST_F(StreamImages, InitialPixelsOffsetsAndMixedTypes) {
  constexpr size_t W = 8, H = 4;
  // Rows of 10 pixels in the caller's memory.
  std::vector<float> Host(10 * 4 * H, -3.0f);
  for (size_t Y = 0; Y < H; ++Y)
    for (size_t F = 0; F < W * 4; ++F)
      Host[Y * 40 + F] = static_cast<float>(Y * 1000 + F);
  pi_mem A = make(core::ImageType::Image2D, W, H, 1, 1, Host.data(), 10 * 16);
  const size_t Zero[3] = {0, 0, 0};
  const size_t Whole[3] = {W, H, 1};
  std::vector<float> Out(W * H * 4, -1.0f);
  ASSERT_EQ(read(A, Zero, Whole, Out.data()), PI_SUCCESS) << lastError();
  for (size_t Y = 0; Y < H; ++Y)
    for (size_t F = 0; F < W * 4; ++F)
      ASSERT_EQ(Out[Y * W * 4 + F], static_cast<float>(Y * 1000 + F));
  const std::vector<float> Zeros(W * H * 4, 0.0f);
  pi_mem B = make(core::ImageType::Image2D, W, H, 1, 1, const_cast<float *>(Zeros.data()));
  const size_t DstAt[3] = {2, 1, 0};
  const size_t Quarter[3] = {W / 2, H / 2, 1};
  ASSERT_EQ(core::enqueueImageCopy("test", Queue, A, B, Zero, DstAt, Quarter, 0, nullptr, nullptr),
            PI_SUCCESS)
      << lastError();
  ASSERT_EQ(read(B, Zero, Whole, Out.data()), PI_SUCCESS) << lastError();
  for (size_t Y = 0; Y < H; ++Y)
    for (size_t X = 0; X < W; ++X) {
      const bool Inside = X >= 2 && X < 2 + W / 2 && Y >= 1 && Y < 1 + H / 2;
      for (size_t C = 0; C < 4; ++C)
        ASSERT_EQ(Out[(Y * W + X) * 4 + C],
                  Inside ? static_cast<float>((Y - 1) * 1000 + (X - 2) * 4 + C) : 0.0f)
            << X << ", " << Y;
    }
  // The 1-D array's 3 images become rows 1-3 of a 2-D image.
  pi_mem Rows = make(core::ImageType::Image1DArray, W, 1, 1, 3);
  const std::vector<float> Input = pixels(W * 3, 7.0f);
  const size_t ThreeRows[3] = {W, 3, 1};
  ASSERT_EQ(write(Rows, Zero, ThreeRows, Input.data()), PI_SUCCESS) << lastError();
  const size_t RowOne[3] = {0, 1, 0};
  ASSERT_EQ(
      core::enqueueImageCopy("test", Queue, Rows, B, Zero, RowOne, ThreeRows, 0, nullptr, nullptr),
      PI_SUCCESS)
      << lastError();
  ASSERT_EQ(read(B, Zero, Whole, Out.data()), PI_SUCCESS) << lastError();
  EXPECT_TRUE(std::equal(Input.begin(), Input.end(), Out.begin() + W * 4));
}

// R, RG and RGBA of every unpacked type; no other order, no packed type.
TEST_F(StreamImages, FormatsAnArrayHolds) {
  const std::pair<core::ChannelType, size_t> Types[] = {
      {core::ChannelType::SnormInt8, 1},     {core::ChannelType::SnormInt16, 2},
      {core::ChannelType::UnormInt8, 1},     {core::ChannelType::UnormInt16, 2},
      {core::ChannelType::SignedInt8, 1},    {core::ChannelType::SignedInt16, 2},
      {core::ChannelType::SignedInt32, 4},   {core::ChannelType::UnsignedInt8, 1},
      {core::ChannelType::UnsignedInt16, 2}, {core::ChannelType::UnsignedInt32, 4},
      {core::ChannelType::HalfFloat, 2},     {core::ChannelType::Float, 4}};
  const std::pair<core::ChannelOrder, size_t> Orders[] = {
      {core::ChannelOrder::R, 1}, {core::ChannelOrder::RG, 2}, {core::ChannelOrder::RGBA, 4}};
  for (const auto &[Order, Channels] : Orders)
    for (const auto &[Type, Bytes] : Types) {
      pi_mem Image = make(core::ImageType::Image2D, 4, 4, 1, 1, nullptr, 0, 0, {Order, Type});
      ASSERT_NE(Image, nullptr);
      EXPECT_EQ(Image->Image->ElementSize, Channels * Bytes);
      EXPECT_EQ(Image->Image->RowPitch, 4 * Channels * Bytes);
      EXPECT_EQ(Image->Image->SlicePitch, 0u);
    }
  core::ImageDescription Description;
  Description.Width = Description.Height = 4;
  pi_mem Made = nullptr;
  Description.Format = {core::ChannelOrder::BGRA, core::ChannelType::UnormInt8};
  EXPECT_EQ(core::createImage("test", Context, PI_MEM_FLAGS_ACCESS_RW, Description, nullptr, &Made),
            PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED);
  EXPECT_NE(lastError().find("channel order"), std::string::npos) << lastError();
  Description.Format = {core::ChannelOrder::RGBA, core::ChannelType::UnormShort565};
  EXPECT_EQ(core::createImage("test", Context, PI_MEM_FLAGS_ACCESS_RW, Description, nullptr, &Made),
            PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED);
  EXPECT_EQ(Made, nullptr);
}

// An array of the caller's (here one of an image's) becomes an image with the caller's
// format where that agrees with the array; it stays the caller's.
TEST_F(StreamImages, NativeArrayTakesTheCallersFormat) {
  const std::vector<float> Input = pixels(16 * 3, 2.0f);
  pi_mem Made = make(core::ImageType::Image1DArray, 16, 1, 1, 3, const_cast<float *>(Input.data()));
  uintptr_t Native = 0;
  ASSERT_TRUE(Made->Impl->nativeHandle(Native));
  core::ImageDescription Declared = *Made->Image;
  pi_mem Adopted = nullptr;
  ASSERT_EQ(core::imageFromNative("test", Native, Context, false, &Declared, &Adopted), PI_SUCCESS)
      << lastError();
  EXPECT_EQ(Adopted->Image->Type, core::ImageType::Image1DArray);
  EXPECT_EQ(Adopted->Image->Width, 16u);
  EXPECT_EQ(Adopted->Image->ArraySize, 3u);
  EXPECT_EQ(Adopted->Image->ElementSize, 16u);
  std::vector<float> Output(Input.size(), -1.0f);
  const size_t Zero[3] = {0, 0, 0};
  const size_t Region[3] = {16, 3, 1};
  ASSERT_EQ(read(Adopted, Zero, Region, Output.data()), PI_SUCCESS) << lastError();
  EXPECT_EQ(Output, Input);
  EXPECT_EQ(piMemRelease(Adopted), PI_SUCCESS);
  EXPECT_EQ(TheDriver->liveArrays(), 1u) << "the adopted array is not the image's to destroy";

  pi_mem Refused = nullptr;
  core::ImageDescription Wrong = Declared;
  Wrong.Format.Type = core::ChannelType::HalfFloat; // the array holds 32-bit floats
  EXPECT_EQ(core::imageFromNative("test", Native, Context, false, &Wrong, &Refused),
            PI_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  Wrong = Declared;
  Wrong.Type = core::ImageType::Image2D; // it is a 1-D array
  EXPECT_EQ(core::imageFromNative("test", Native, Context, false, &Wrong, &Refused),
            PI_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  EXPECT_EQ(core::imageFromNative("test", Native, Context, false, nullptr, &Refused),
            PI_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  EXPECT_EQ(core::imageFromNative("test", 0x1234, Context, false, &Declared, &Refused),
            PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(Refused, nullptr);
}

// A sampler is DPC++'s word, which is also its native handle.
TEST_F(StreamImages, SamplersAreDpcppsWord) {
  core::SamplerDescription Description;
  Description.Normalized = true;
  Description.Addressing = core::SamplerAddressing::Repeat;
  Description.Filter = core::SamplerFilter::Linear;
  core::Sampler *Made = nullptr;
  ASSERT_EQ(core::createSampler("test", Context, Description, &Made), PI_SUCCESS) << lastError();
  uintptr_t Native = 0;
  ASSERT_TRUE(Made->Impl->nativeHandle(Native));
  EXPECT_EQ(Native, 1u | (1u << 1) | (3u << 2));
  core::Sampler *Adopted = nullptr;
  ASSERT_EQ(core::samplerFromNative("test", Native, Context, false, &Adopted), PI_SUCCESS)
      << lastError();
  EXPECT_TRUE(Adopted->Description.Normalized);
  EXPECT_EQ(Adopted->Description.Addressing, core::SamplerAddressing::Repeat);
  EXPECT_EQ(Adopted->Description.Filter, core::SamplerFilter::Linear);
  core::Sampler *Bad = nullptr;
  EXPECT_EQ(core::samplerFromNative("test", 5u << 2, Context, false, &Bad), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(core::samplerFromNative("test", 1u << 5, Context, false, &Bad), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(Bad, nullptr);
  core::release(Made);
  core::release(Adopted);
}

} // namespace

namespace dglink::core {

std::unique_ptr<Backend> makeBackend() {
  stream::Personality Fake;
  Fake.Name = "stream_fake";
  Fake.Label = "fake stream";
  Fake.PlatformName = "dglink fake stream platform";
  Fake.PlatformVersion = [](const std::string &Driver) { return "fake " + Driver; };
  auto Driver = std::make_unique<ImageDriver>();
  TheDriver = Driver.get();
  return std::make_unique<stream::StreamBackend>(Fake, std::move(Driver));
}

} // namespace dglink::core
