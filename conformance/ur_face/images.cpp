// Images and samplers through UR (urMemImage*, urSampler*, urEnqueueMemImage*, image and
// sampler kernel arguments; docs/ur.md, "Images and samplers"). On a device with images
// (PoCL, CUDA, HIP's NVIDIA platform) the pixels are written, read back, copied and
// compared, a kernel copies one image into another through a sampler, the answers are
// compared with the driver's, bad input gets UR's exact codes and changes nothing, and
// threads use images at once. On a device without them (the Level Zero test driver, HIP on
// AMD) the device says so and every creation is refused with UNSUPPORTED_FEATURE and a
// message; the other scenarios skip naming why. A scenario of dglink_conformance_ur only:
// PI has no images.
#include "fixtures.h"
#include "ur_handles.h"

#include <unified-runtime/ur_api.h>

#ifdef DGLINK_NATIVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#endif
#ifdef DGLINK_NATIVE_CUDA
#include "cuda_driver.h"
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

namespace dglink::conformance {
namespace {

constexpr const char *NoImagesReason =
    "the device has no images (UR_DEVICE_INFO_IMAGE_SUPPORT is false): "
    "ImagesRefused.WhereTheDeviceHasNone checks its refusals";

bool imageSupport(ur_device_handle_t Device) {
  ur_bool_t Value = false;
  EXPECT_EQ(urDeviceGetInfo(Device, UR_DEVICE_INFO_IMAGE_SUPPORT, sizeof(Value), &Value, nullptr),
            UR_RESULT_SUCCESS);
  return Value != 0;
}

template <typename T> T deviceValue(ur_device_handle_t Device, ur_device_info_t Name) {
  T Value{};
  EXPECT_EQ(urDeviceGetInfo(Device, Name, sizeof(Value), &Value, nullptr), UR_RESULT_SUCCESS)
      << "query " << Name;
  return Value;
}

constexpr ur_image_format_t RgbaFloat{UR_IMAGE_CHANNEL_ORDER_RGBA, UR_IMAGE_CHANNEL_TYPE_FLOAT};

ur_image_desc_t describe(ur_mem_type_t Type, size_t Width, size_t Height, size_t Depth,
                         size_t ArraySize) {
  ur_image_desc_t Desc{};
  Desc.stype = UR_STRUCTURE_TYPE_IMAGE_DESC;
  Desc.type = Type;
  Desc.width = Width;
  Desc.height = Height;
  Desc.depth = Depth;
  Desc.arraySize = ArraySize;
  return Desc;
}

// An image handle released at the end of its scope.
struct Image {
  ur_mem_handle_t Handle = nullptr;
  Image() = default;
  Image(const Image &) = delete;
  Image &operator=(const Image &) = delete;
  ~Image() {
    if (Handle != nullptr) {
      EXPECT_EQ(urMemRelease(Handle), UR_RESULT_SUCCESS);
    }
  }
};

struct SamplerHandle {
  ur_sampler_handle_t Handle = nullptr;
  SamplerHandle() = default;
  SamplerHandle(const SamplerHandle &) = delete;
  SamplerHandle &operator=(const SamplerHandle &) = delete;
  ~SamplerHandle() {
    if (Handle != nullptr) {
      EXPECT_EQ(urSamplerRelease(Handle), UR_RESULT_SUCCESS);
    }
  }
};

// Distinct pixel values, 4 floats a pixel.
std::vector<float> pixels(size_t Count, float Base) {
  std::vector<float> Values(Count * 4);
  for (size_t I = 0; I < Values.size(); ++I)
    Values[I] = Base + static_cast<float>(I);
  return Values;
}

class UrImages : public QueueTest {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(QueueTest::SetUp());
    if (IsSkipped())
      return;
    if (!imageSupport(asUr(Device)))
      GTEST_SKIP() << NoImagesReason;
  }
  ur_context_handle_t C() { return asUr(Context.get()); }
  ur_queue_handle_t Q() { return asUr(Queue.get()); }
};

// ---- devices without images ----

class ImagesRefused : public QueueTest {};

TEST_P(ImagesRefused, WhereTheDeviceHasNone) {
  const ur_device_handle_t D = asUr(Device);
  if (imageSupport(D))
    GTEST_SKIP() << "the device has images (UrImages.* run them)";
  for (const ur_device_info_t Limit :
       {UR_DEVICE_INFO_IMAGE2D_MAX_WIDTH, UR_DEVICE_INFO_IMAGE2D_MAX_HEIGHT,
        UR_DEVICE_INFO_IMAGE3D_MAX_WIDTH, UR_DEVICE_INFO_IMAGE3D_MAX_HEIGHT,
        UR_DEVICE_INFO_IMAGE3D_MAX_DEPTH, UR_DEVICE_INFO_IMAGE_MAX_BUFFER_SIZE,
        UR_DEVICE_INFO_IMAGE_MAX_ARRAY_SIZE})
    EXPECT_EQ(deviceValue<size_t>(D, Limit), 0u) << "query " << Limit;
  for (const ur_device_info_t Count :
       {UR_DEVICE_INFO_MAX_READ_IMAGE_ARGS, UR_DEVICE_INFO_MAX_WRITE_IMAGE_ARGS,
        UR_DEVICE_INFO_MAX_READ_WRITE_IMAGE_ARGS, UR_DEVICE_INFO_MAX_SAMPLERS})
    EXPECT_EQ(deviceValue<uint32_t>(D, Count), 0u) << "query " << Count;
  const ur_image_desc_t Desc = describe(UR_MEM_TYPE_IMAGE2D, 4, 4, 1, 1);
  ur_mem_handle_t Made = nullptr;
  EXPECT_EQ(urMemImageCreate(asUr(Context.get()), UR_MEM_FLAG_READ_WRITE, &RgbaFloat, &Desc,
                             nullptr, &Made),
            UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(Made, nullptr);
  EXPECT_NE(urLastError(Platform).find("has no images"), std::string::npos)
      << urLastError(Platform);
  const ur_sampler_desc_t SamplerDesc{UR_STRUCTURE_TYPE_SAMPLER_DESC, nullptr, true,
                                      UR_SAMPLER_ADDRESSING_MODE_CLAMP,
                                      UR_SAMPLER_FILTER_MODE_NEAREST};
  ur_sampler_handle_t Sampler = nullptr;
  EXPECT_EQ(urSamplerCreate(asUr(Context.get()), &SamplerDesc, &Sampler),
            UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(Sampler, nullptr);
  EXPECT_NE(urLastError(Platform).find("has no images"), std::string::npos)
      << urLastError(Platform);
}

DGLINK_INSTANTIATE_FOR_DEVICES(ImagesRefused);

// ---- devices with images ----

// The device's limits are the driver's, asked through the native device handle: OpenCL's
// clGetDeviceInfo; CUDA's cuDeviceGetAttribute, for HIP's NVIDIA platform too (the smaller of a
// texture's and a surface's limit: an image is both; the layers of a layered 1-D or 2-D array for
// the array size; CUDA states no limit on image and sampler arguments, so those are not compared).
TEST_P(UrImages, DeviceAnswersFromTheDriver) {
  const ur_device_handle_t D = asUr(Device);
  const size_t Width2D = deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE2D_MAX_WIDTH);
  EXPECT_GT(Width2D, 0u);
  EXPECT_GT(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE3D_MAX_DEPTH), 0u);
  EXPECT_GT(deviceValue<uint32_t>(D, UR_DEVICE_INFO_MAX_SAMPLERS), 0u);
  const std::string &Backend = GetParam().Backend;
  ur_native_handle_t Native = 0;
  ASSERT_EQ(urDeviceGetNativeHandle(D, &Native), UR_RESULT_SUCCESS);
  if (Backend == "opencl") {
#ifdef DGLINK_NATIVE_OPENCL
    auto *Id = reinterpret_cast<cl_device_id>(Native);
    const auto clSize = [&](cl_device_info Name) {
      size_t Value = 0;
      EXPECT_EQ(clGetDeviceInfo(Id, Name, sizeof(Value), &Value, nullptr), CL_SUCCESS);
      return Value;
    };
    const auto clUint = [&](cl_device_info Name) {
      cl_uint Value = 0;
      EXPECT_EQ(clGetDeviceInfo(Id, Name, sizeof(Value), &Value, nullptr), CL_SUCCESS);
      return Value;
    };
    EXPECT_EQ(Width2D, clSize(CL_DEVICE_IMAGE2D_MAX_WIDTH));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE2D_MAX_HEIGHT),
              clSize(CL_DEVICE_IMAGE2D_MAX_HEIGHT));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE3D_MAX_WIDTH),
              clSize(CL_DEVICE_IMAGE3D_MAX_WIDTH));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE3D_MAX_HEIGHT),
              clSize(CL_DEVICE_IMAGE3D_MAX_HEIGHT));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE3D_MAX_DEPTH),
              clSize(CL_DEVICE_IMAGE3D_MAX_DEPTH));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE_MAX_BUFFER_SIZE),
              clSize(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE_MAX_ARRAY_SIZE),
              clSize(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE));
    EXPECT_EQ(deviceValue<uint32_t>(D, UR_DEVICE_INFO_MAX_READ_IMAGE_ARGS),
              clUint(CL_DEVICE_MAX_READ_IMAGE_ARGS));
    EXPECT_EQ(deviceValue<uint32_t>(D, UR_DEVICE_INFO_MAX_WRITE_IMAGE_ARGS),
              clUint(CL_DEVICE_MAX_WRITE_IMAGE_ARGS));
    EXPECT_EQ(deviceValue<uint32_t>(D, UR_DEVICE_INFO_MAX_SAMPLERS),
              clUint(CL_DEVICE_MAX_SAMPLERS));
    return;
#endif
  } else if (Backend == "cuda" || Backend == "hip_nvidia") {
#ifdef DGLINK_NATIVE_CUDA
    using dglink::cuda::cu;
    std::string Why;
    ASSERT_TRUE(dglink::cuda::loadCudaDriver(&Why)) << Why;
    // HIP's native device is the ordinal (hipDevice_t), CUDA's the CUdevice.
    auto Id = static_cast<CUdevice>(Native);
    if (Backend == "hip_nvidia") {
      ASSERT_EQ(cu().cuDeviceGet(&Id, static_cast<int>(Native)), CUDA_SUCCESS);
    }
    const auto cuBoth = [&](CUdevice_attribute Texture, CUdevice_attribute Surface) {
      int T = 0, S = 0;
      EXPECT_EQ(cu().cuDeviceGetAttribute(&T, Texture, Id), CUDA_SUCCESS);
      EXPECT_EQ(cu().cuDeviceGetAttribute(&S, Surface, Id), CUDA_SUCCESS);
      return static_cast<size_t>(std::min(T, S));
    };
    EXPECT_EQ(Width2D, cuBoth(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
                              CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE2D_MAX_HEIGHT),
              cuBoth(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT,
                     CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE3D_MAX_WIDTH),
              cuBoth(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
                     CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE3D_MAX_HEIGHT),
              cuBoth(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
                     CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE3D_MAX_DEPTH),
              cuBoth(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH,
                     CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE_MAX_BUFFER_SIZE),
              cuBoth(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH,
                     CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH));
    EXPECT_EQ(deviceValue<size_t>(D, UR_DEVICE_INFO_IMAGE_MAX_ARRAY_SIZE),
              std::min(cuBoth(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS,
                              CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS),
                       cuBoth(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS,
                              CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS)));
    return;
#endif
  }
  RecordProperty("driver_comparison", "none: this build cannot call the " + Backend +
                                          " driver, or the backend has no such query here");
}

// Every image type: pixels written, read back whole and in part, copied into a second
// image (whole and to an offset), compared; the image's info as created.
TEST_P(UrImages, WrittenReadBackAndCopied) {
  struct Case {
    ur_mem_type_t Type;
    size_t Width, Height, Depth, ArraySize;
  };
  const Case Cases[] = {{UR_MEM_TYPE_IMAGE1D, 64, 1, 1, 1},
                        {UR_MEM_TYPE_IMAGE1D_ARRAY, 32, 1, 1, 3},
                        {UR_MEM_TYPE_IMAGE2D, 16, 8, 1, 1},
                        {UR_MEM_TYPE_IMAGE2D_ARRAY, 8, 4, 1, 3},
                        {UR_MEM_TYPE_IMAGE3D, 8, 4, 3, 1}};
  for (const Case &Each : Cases) {
    // UR 0.12's validation layer bounds a region by the image's width, height and depth
    // alone (ur_validation_layer.cpp, boundsImage), so it refuses every region over an
    // array's images; the arrays run without the layer.
    const bool Array =
        Each.Type == UR_MEM_TYPE_IMAGE1D_ARRAY || Each.Type == UR_MEM_TYPE_IMAGE2D_ARRAY;
    if (Array && leakCheckerOn())
      continue;
    SCOPED_TRACE(testing::Message() << "image type " << Each.Type);
    const ur_image_desc_t Desc =
        describe(Each.Type, Each.Width, Each.Height, Each.Depth, Each.ArraySize);
    // The region in pixels: width, then rows (or a 1-D array's images), then slices (or a
    // 2-D array's images).
    const bool OneDArray = Each.Type == UR_MEM_TYPE_IMAGE1D_ARRAY;
    const bool TwoDArray = Each.Type == UR_MEM_TYPE_IMAGE2D_ARRAY;
    const ur_rect_region_t Region{Each.Width, OneDArray ? Each.ArraySize : Each.Height,
                                  TwoDArray ? Each.ArraySize : Each.Depth};
    const size_t Count = Region.width * Region.height * Region.depth;
    Image Src, Dst;
    ASSERT_EQ(
        urMemImageCreate(C(), UR_MEM_FLAG_READ_WRITE, &RgbaFloat, &Desc, nullptr, &Src.Handle),
        UR_RESULT_SUCCESS)
        << urLastError(Platform);
    ASSERT_EQ(urMemImageCreate(C(), 0, &RgbaFloat, &Desc, nullptr, &Dst.Handle), UR_RESULT_SUCCESS)
        << urLastError(Platform);
    std::vector<float> Input = pixels(Count, 1.0f);
    ASSERT_EQ(urEnqueueMemImageWrite(Q(), Src.Handle, true, {0, 0, 0}, Region, 0, 0, Input.data(),
                                     0, nullptr, nullptr),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    std::vector<float> Output(Input.size(), -1.0f);
    ASSERT_EQ(urEnqueueMemImageRead(Q(), Src.Handle, true, {0, 0, 0}, Region, 0, 0, Output.data(),
                                    0, nullptr, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(Output, Input);

    // The last pixel alone, at its origin.
    const ur_rect_offset_t Last{Region.width - 1, Region.height - 1, Region.depth - 1};
    float Pixel[4] = {0, 0, 0, 0};
    ASSERT_EQ(urEnqueueMemImageRead(Q(), Src.Handle, true, Last, {1, 1, 1}, 0, 0, Pixel, 0, nullptr,
                                    nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_TRUE(std::equal(Pixel, Pixel + 4, Input.end() - 4));

    // A copy through an event, then a blocking read after it.
    ur_event_handle_t Copied = nullptr;
    ASSERT_EQ(urEnqueueMemImageCopy(Q(), Src.Handle, Dst.Handle, {0, 0, 0}, {0, 0, 0}, Region, 0,
                                    nullptr, &Copied),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    ur_command_t Command{};
    EXPECT_EQ(
        urEventGetInfo(Copied, UR_EVENT_INFO_COMMAND_TYPE, sizeof(Command), &Command, nullptr),
        UR_RESULT_SUCCESS);
    EXPECT_EQ(Command, UR_COMMAND_MEM_IMAGE_COPY);
    std::fill(Output.begin(), Output.end(), -1.0f);
    ASSERT_EQ(urEnqueueMemImageRead(Q(), Dst.Handle, true, {0, 0, 0}, Region, 0, 0, Output.data(),
                                    1, &Copied, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(urEventRelease(Copied), UR_RESULT_SUCCESS);
    EXPECT_EQ(Output, Input);

    // Info: the description as created, 16-byte pixels, at least that many bytes.
    ur_image_format_t Format{};
    ASSERT_EQ(urMemImageGetInfo(Src.Handle, UR_IMAGE_INFO_FORMAT, sizeof(Format), &Format, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(Format.channelOrder, RgbaFloat.channelOrder);
    EXPECT_EQ(Format.channelType, RgbaFloat.channelType);
    size_t Value = 0;
    ASSERT_EQ(
        urMemImageGetInfo(Src.Handle, UR_IMAGE_INFO_ELEMENT_SIZE, sizeof(Value), &Value, nullptr),
        UR_RESULT_SUCCESS);
    EXPECT_EQ(Value, 16u);
    ASSERT_EQ(urMemImageGetInfo(Src.Handle, UR_IMAGE_INFO_WIDTH, sizeof(Value), &Value, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(Value, Each.Width);
    ASSERT_EQ(
        urMemImageGetInfo(Src.Handle, UR_IMAGE_INFO_ARRAY_SIZE, sizeof(Value), &Value, nullptr),
        UR_RESULT_SUCCESS);
    EXPECT_EQ(Value, Each.ArraySize);
    ASSERT_EQ(urMemGetInfo(Src.Handle, UR_MEM_INFO_SIZE, sizeof(Value), &Value, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_GE(Value, Count * 16);
    ur_context_handle_t Of = nullptr;
    ASSERT_EQ(urMemGetInfo(Src.Handle, UR_MEM_INFO_CONTEXT, handleBytes<ur_context_handle_t>(), &Of,
                           nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(Of, C());
  }
}

// Host pitches of the caller's own (a padded row), a partial copy to an offset, and the
// host memory images: USE_HOST_POINTER reads the caller's pixels, ALLOC_COPY copies them.
TEST_P(UrImages, PitchesOffsetsAndHostMemory) {
  constexpr size_t W = 8, H = 4;
  const ur_image_desc_t Desc = describe(UR_MEM_TYPE_IMAGE2D, W, H, 1, 1);
  std::vector<float> Host = pixels(W * H, 100.0f);
  for (const ur_mem_flags_t Flag :
       {UR_MEM_FLAG_USE_HOST_POINTER, UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER}) {
    Image FromHost;
    ASSERT_EQ(urMemImageCreate(C(), UR_MEM_FLAG_READ_WRITE | Flag, &RgbaFloat, &Desc, Host.data(),
                               &FromHost.Handle),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    // Read with rows padded to 12 pixels: the padding stays as it was.
    constexpr size_t PaddedRow = size_t{12} * 16;
    std::vector<float> Padded(size_t{12} * 4 * H, -7.0f);
    ASSERT_EQ(urEnqueueMemImageRead(Q(), FromHost.Handle, true, {0, 0, 0}, {W, H, 1}, PaddedRow, 0,
                                    Padded.data(), 0, nullptr, nullptr),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    for (size_t Y = 0; Y < H; ++Y)
      for (size_t X = 0; X < size_t{12} * 4; ++X)
        ASSERT_EQ(Padded[Y * 48 + X], X < W * 4 ? Host[Y * W * 4 + X] : -7.0f)
            << "row " << Y << ", float " << X;
  }
  // A quarter of one image copied into the middle of another.
  Image A, B;
  ASSERT_EQ(urMemImageCreate(C(), UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER, &RgbaFloat, &Desc,
                             Host.data(), &A.Handle),
            UR_RESULT_SUCCESS);
  const std::vector<float> Zero(W * H * 4, 0.0f);
  ASSERT_EQ(urMemImageCreate(C(), UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER, &RgbaFloat, &Desc,
                             const_cast<float *>(Zero.data()), &B.Handle),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urEnqueueMemImageCopy(Q(), A.Handle, B.Handle, {0, 0, 0}, {2, 1, 0}, {W / 2, H / 2, 1},
                                  0, nullptr, nullptr),
            UR_RESULT_SUCCESS);
  std::vector<float> Out(W * H * 4, -1.0f);
  ASSERT_EQ(urEnqueueMemImageRead(Q(), B.Handle, true, {0, 0, 0}, {W, H, 1}, 0, 0, Out.data(), 0,
                                  nullptr, nullptr),
            UR_RESULT_SUCCESS);
  for (size_t Y = 0; Y < H; ++Y)
    for (size_t X = 0; X < W; ++X) {
      const bool Inside = X >= 2 && X < 2 + W / 2 && Y >= 1 && Y < 1 + H / 2;
      for (size_t Channel = 0; Channel < 4; ++Channel)
        ASSERT_EQ(Out[(Y * W + X) * 4 + Channel],
                  Inside ? Host[((Y - 1) * W + (X - 2)) * 4 + Channel] : 0.0f)
            << "pixel " << X << ", " << Y;
    }
}

// UR's codes for bad input, and nothing changed: no handle, the host memory untouched.
TEST_P(UrImages, BadInputGetsExactCodesAndChangesNothing) {
  ur_image_desc_t Desc = describe(UR_MEM_TYPE_IMAGE2D, 8, 8, 1, 1);
  ur_mem_handle_t Made = nullptr;
  // (Null handles: the loader routes by the handle, so with several adapters loaded it
  // cannot pass a null one on; UR's CTS checks them with one adapter.)
  EXPECT_EQ(urMemImageCreate(C(), UR_MEM_FLAG_FORCE_UINT32, &RgbaFloat, &Desc, nullptr, &Made),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urMemImageCreate(C(), UR_MEM_FLAG_READ_WRITE, nullptr, &Desc, nullptr, &Made),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urMemImageCreate(C(), UR_MEM_FLAG_READ_WRITE, &RgbaFloat, nullptr, nullptr, &Made),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  const auto refused = [&](ur_image_desc_t Bad, ur_result_t Expected, void *Host = nullptr,
                           ur_mem_flags_t Flags = UR_MEM_FLAG_READ_WRITE) {
    EXPECT_EQ(urMemImageCreate(C(), Flags, &RgbaFloat, &Bad, Host, &Made), Expected)
        << urLastError(Platform);
    if (!leakCheckerOn()) { // the layer answers these checks itself: no adapter message
      EXPECT_FALSE(urLastError(Platform).empty());
    }
  };
  ur_image_desc_t Bad = Desc;
  Bad.stype = UR_STRUCTURE_TYPE_FORCE_UINT32;
  refused(Bad, UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  Bad = Desc;
  Bad.type = UR_MEM_TYPE_IMAGE_CUBEMAP_EXP;
  refused(Bad, UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  Bad = Desc;
  Bad.numMipLevel = 1;
  refused(Bad, UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  Bad = Desc;
  Bad.rowPitch = 256; // without host memory
  refused(Bad, UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  Bad = Desc;
  Bad.width = std::numeric_limits<size_t>::max();
  refused(Bad, UR_RESULT_ERROR_INVALID_IMAGE_SIZE);
  Bad = Desc;
  Bad.height = 0;
  refused(Bad, UR_RESULT_ERROR_INVALID_IMAGE_SIZE);
  std::vector<float> Host(size_t{8} * 8 * 4, 3.0f);
  refused(Desc, UR_RESULT_ERROR_INVALID_HOST_PTR, Host.data(), UR_MEM_FLAG_READ_WRITE);
  refused(Desc, UR_RESULT_ERROR_INVALID_HOST_PTR, nullptr, UR_MEM_FLAG_USE_HOST_POINTER);
  EXPECT_EQ(Made, nullptr);

  // Every format: created or UNSUPPORTED_IMAGE_FORMAT (never another code); the 12 that
  // UR requires of every adapter are created, except on an OpenCL device whose driver does
  // not list one (NVIDIA's OpenCL lists no RGBA SNORM_INT8): the adapter answers for the
  // driver's formats, it does not emulate others.
  const auto driverLacks = [&](uint32_t Type) {
#ifdef DGLINK_NATIVE_OPENCL
    if (GetParam().Backend != "opencl")
      return false;
    ur_native_handle_t Native = 0;
    if (urContextGetNativeHandle(C(), &Native) != UR_RESULT_SUCCESS)
      return false;
    auto *ClContext = reinterpret_cast<cl_context>(Native);
    cl_uint Count = 0;
    clGetSupportedImageFormats(ClContext, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, nullptr,
                               &Count);
    std::vector<cl_image_format> Listed(Count);
    clGetSupportedImageFormats(ClContext, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, Count,
                               Listed.data(), nullptr);
    // UR's channel types are OpenCL's in the same order, from CL_SNORM_INT8.
    const cl_channel_type Wanted = CL_SNORM_INT8 + static_cast<cl_channel_type>(Type);
    return std::none_of(Listed.begin(), Listed.end(), [&](const cl_image_format &F) {
      return F.image_channel_order == CL_RGBA && F.image_channel_data_type == Wanted;
    });
#else
    (void)Type;
    return false;
#endif
  };
  size_t Created = 0, Refused = 0;
  for (uint32_t Order = UR_IMAGE_CHANNEL_ORDER_A; Order <= UR_IMAGE_CHANNEL_ORDER_SRGBA; ++Order)
    for (uint32_t Type = UR_IMAGE_CHANNEL_TYPE_SNORM_INT8; Type <= UR_IMAGE_CHANNEL_TYPE_FLOAT;
         ++Type) {
      const ur_image_format_t Format{static_cast<ur_image_channel_order_t>(Order),
                                     static_cast<ur_image_channel_type_t>(Type)};
      ur_mem_handle_t Each = nullptr;
      const ur_result_t Result =
          urMemImageCreate(C(), UR_MEM_FLAG_READ_WRITE, &Format, &Desc, nullptr, &Each);
      const bool Primary =
          Order == UR_IMAGE_CHANNEL_ORDER_RGBA && Type != UR_IMAGE_CHANNEL_TYPE_UNORM_SHORT_565 &&
          Type != UR_IMAGE_CHANNEL_TYPE_UNORM_SHORT_555 && Type != UR_IMAGE_CHANNEL_TYPE_INT_101010;
      if (Primary && !driverLacks(Type))
        EXPECT_EQ(Result, UR_RESULT_SUCCESS) << "format " << Order << ", " << Type;
      else
        EXPECT_TRUE(Result == UR_RESULT_SUCCESS ||
                    Result == UR_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)
            << "format " << Order << ", " << Type << ": " << Result;
      if (Result == UR_RESULT_SUCCESS) {
        ++Created;
        EXPECT_EQ(urMemRelease(Each), UR_RESULT_SUCCESS);
      } else {
        ++Refused;
        EXPECT_EQ(Each, nullptr);
      }
    }
  EXPECT_GE(Created, 12u);
  RecordProperty("formats_created", static_cast<int>(Created));
  RecordProperty("formats_refused", static_cast<int>(Refused));

  // Commands: a region past the image, a pitch below the region's row, a buffer given
  // as an image and an image as a buffer, formats that differ; the host memory unchanged.
  Image Img, Other;
  ASSERT_EQ(urMemImageCreate(C(), UR_MEM_FLAG_READ_WRITE, &RgbaFloat, &Desc, nullptr, &Img.Handle),
            UR_RESULT_SUCCESS);
  const ur_image_format_t RgbaInt{UR_IMAGE_CHANNEL_ORDER_RGBA, UR_IMAGE_CHANNEL_TYPE_SIGNED_INT32};
  ASSERT_EQ(urMemImageCreate(C(), UR_MEM_FLAG_READ_WRITE, &RgbaInt, &Desc, nullptr, &Other.Handle),
            UR_RESULT_SUCCESS);
  const std::vector<float> Before = Host;
  EXPECT_EQ(urEnqueueMemImageRead(Q(), Img.Handle, true, {1, 0, 0}, {8, 8, 1}, 0, 0, Host.data(), 0,
                                  nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urEnqueueMemImageRead(Q(), Img.Handle, true, {0, 0, 1}, {8, 8, 1}, 0, 0, Host.data(), 0,
                                  nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urEnqueueMemImageRead(Q(), Img.Handle, true, {0, 0, 0}, {8, 8, 0}, 0, 0, Host.data(), 0,
                                  nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urEnqueueMemImageRead(Q(), Img.Handle, true, {0, 0, 0}, {8, 8, 1}, 8, 0, Host.data(), 0,
                                  nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urEnqueueMemImageRead(Q(), Img.Handle, true, {0, 0, 0}, {8, 8, 1}, 0, 0, nullptr, 0,
                                  nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(Host, Before);
  EXPECT_EQ(urEnqueueMemImageCopy(Q(), Img.Handle, Other.Handle, {0, 0, 0}, {0, 0, 0}, {8, 8, 1}, 0,
                                  nullptr, nullptr),
            UR_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT);
  EXPECT_EQ(urEnqueueMemImageCopy(Q(), Img.Handle, Img.Handle, {0, 0, 0}, {2, 2, 0}, {4, 4, 1}, 0,
                                  nullptr, nullptr),
            UR_RESULT_ERROR_OVERLAPPING_REGIONS);
  ur_mem_handle_t Buffer = nullptr;
  ASSERT_EQ(urMemBufferCreate(C(), UR_MEM_FLAG_READ_WRITE, 1024, nullptr, &Buffer),
            UR_RESULT_SUCCESS);
  if (!leakCheckerOn()) { // the layer asks the buffer for its image width first, and says so
    EXPECT_EQ(urEnqueueMemImageRead(Q(), Buffer, true, {0, 0, 0}, {1, 1, 1}, 0, 0, Host.data(), 0,
                                    nullptr, nullptr),
              UR_RESULT_ERROR_INVALID_MEM_OBJECT);
  }
  EXPECT_EQ(urEnqueueMemBufferRead(Q(), Img.Handle, true, 0, 16, Host.data(), 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_MEM_OBJECT);
  ur_image_format_t Format{};
  EXPECT_EQ(urMemImageGetInfo(Buffer, UR_IMAGE_INFO_FORMAT, sizeof(Format), &Format, nullptr),
            UR_RESULT_ERROR_INVALID_MEM_OBJECT);
  EXPECT_EQ(
      urMemImageGetInfo(Img.Handle, UR_IMAGE_INFO_FORCE_UINT32, sizeof(Format), &Format, nullptr),
      UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urMemImageGetInfo(Img.Handle, UR_IMAGE_INFO_FORMAT, 3, &Format, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urMemRelease(Buffer), UR_RESULT_SUCCESS);
  EXPECT_EQ(Host, Before);
}

// Samplers: every combination made and answered as made; native handles both ways;
// reference counts; bad input.
TEST_P(UrImages, Samplers) {
  for (const bool Normalized : {true, false})
    for (uint32_t Mode = UR_SAMPLER_ADDRESSING_MODE_NONE;
         Mode <= UR_SAMPLER_ADDRESSING_MODE_MIRRORED_REPEAT; ++Mode)
      for (const ur_sampler_filter_mode_t Filter :
           {UR_SAMPLER_FILTER_MODE_NEAREST, UR_SAMPLER_FILTER_MODE_LINEAR}) {
        const auto Addressing = static_cast<ur_sampler_addressing_mode_t>(Mode);
        const ur_sampler_desc_t Desc{UR_STRUCTURE_TYPE_SAMPLER_DESC, nullptr, Normalized,
                                     Addressing, Filter};
        SamplerHandle S;
        ASSERT_EQ(urSamplerCreate(C(), &Desc, &S.Handle), UR_RESULT_SUCCESS)
            << urLastError(Platform);
        ur_bool_t IsNormalized = !Normalized;
        ur_sampler_addressing_mode_t GotMode{};
        ur_sampler_filter_mode_t GotFilter{};
        ASSERT_EQ(urSamplerGetInfo(S.Handle, UR_SAMPLER_INFO_NORMALIZED_COORDS,
                                   sizeof(IsNormalized), &IsNormalized, nullptr),
                  UR_RESULT_SUCCESS);
        ASSERT_EQ(urSamplerGetInfo(S.Handle, UR_SAMPLER_INFO_ADDRESSING_MODE, sizeof(GotMode),
                                   &GotMode, nullptr),
                  UR_RESULT_SUCCESS);
        ASSERT_EQ(urSamplerGetInfo(S.Handle, UR_SAMPLER_INFO_FILTER_MODE, sizeof(GotFilter),
                                   &GotFilter, nullptr),
                  UR_RESULT_SUCCESS);
        EXPECT_EQ(IsNormalized != 0, Normalized);
        EXPECT_EQ(GotMode, Addressing);
        EXPECT_EQ(GotFilter, Filter);
      }
  const ur_sampler_desc_t Desc{UR_STRUCTURE_TYPE_SAMPLER_DESC, nullptr, true,
                               UR_SAMPLER_ADDRESSING_MODE_CLAMP_TO_EDGE,
                               UR_SAMPLER_FILTER_MODE_LINEAR};
  SamplerHandle S;
  ASSERT_EQ(urSamplerCreate(C(), &Desc, &S.Handle), UR_RESULT_SUCCESS);
  ASSERT_EQ(urSamplerRetain(S.Handle), UR_RESULT_SUCCESS);
  uint32_t References = 0;
  ASSERT_EQ(urSamplerGetInfo(S.Handle, UR_SAMPLER_INFO_REFERENCE_COUNT, sizeof(References),
                             &References, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(References, 2u);
  ASSERT_EQ(urSamplerRelease(S.Handle), UR_RESULT_SUCCESS);
  ur_context_handle_t Of = nullptr;
  ASSERT_EQ(urSamplerGetInfo(S.Handle, UR_SAMPLER_INFO_CONTEXT, handleBytes<ur_context_handle_t>(),
                             &Of, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Of, C());
  ur_native_handle_t Native = 0;
  ASSERT_EQ(urSamplerGetNativeHandle(S.Handle, &Native), UR_RESULT_SUCCESS);
  SamplerHandle Adopted;
  ASSERT_EQ(urSamplerCreateWithNativeHandle(Native, C(), nullptr, &Adopted.Handle),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ur_sampler_addressing_mode_t GotMode{};
  ASSERT_EQ(urSamplerGetInfo(Adopted.Handle, UR_SAMPLER_INFO_ADDRESSING_MODE, sizeof(GotMode),
                             &GotMode, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(GotMode, UR_SAMPLER_ADDRESSING_MODE_CLAMP_TO_EDGE);

  ur_sampler_handle_t Made = nullptr;
  ur_sampler_desc_t Bad = Desc;
  Bad.addressingMode = UR_SAMPLER_ADDRESSING_MODE_FORCE_UINT32;
  EXPECT_EQ(urSamplerCreate(C(), &Bad, &Made), UR_RESULT_ERROR_INVALID_ENUMERATION);
  Bad = Desc;
  Bad.filterMode = UR_SAMPLER_FILTER_MODE_FORCE_UINT32;
  EXPECT_EQ(urSamplerCreate(C(), &Bad, &Made), UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urSamplerCreate(C(), nullptr, &Made), UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(Made, nullptr);
  size_t InfoSize = 0;
  EXPECT_EQ(urSamplerGetInfo(S.Handle, UR_SAMPLER_INFO_FORCE_UINT32, 0, nullptr, &InfoSize),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urSamplerGetInfo(S.Handle, UR_SAMPLER_INFO_ADDRESSING_MODE, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  if (!leakCheckerOn()) { // the layer reads a released handle as misuse
    ur_sampler_handle_t Released = nullptr;
    ASSERT_EQ(urSamplerCreate(C(), &Desc, &Released), UR_RESULT_SUCCESS);
    ASSERT_EQ(urSamplerRelease(Released), UR_RESULT_SUCCESS);
    EXPECT_EQ(urSamplerRetain(Released), UR_RESULT_ERROR_INVALID_SAMPLER);
    EXPECT_NE(urLastError(Platform).find("released"), std::string::npos) << urLastError(Platform);
  }
}

// Threads make, write, read and release images and samplers of one context at once.
TEST_P(UrImages, ConcurrentUse) {
  constexpr int Threads = 8, Rounds = 6;
  std::atomic<int> Failures{0};
  std::vector<std::thread> Workers;
  Workers.reserve(Threads);
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([&, T] {
      for (int Round = 0; Round < Rounds; ++Round) {
        const ur_image_desc_t Desc = describe(UR_MEM_TYPE_IMAGE2D, 8 + T, 4, 1, 1);
        ur_mem_handle_t Img = nullptr;
        if (urMemImageCreate(C(), UR_MEM_FLAG_READ_WRITE, &RgbaFloat, &Desc, nullptr, &Img) !=
            UR_RESULT_SUCCESS) {
          ++Failures;
          continue;
        }
        const std::vector<float> In =
            pixels(static_cast<size_t>(8 + T) * 4, static_cast<float>(T * 1000 + Round));
        std::vector<float> Out(In.size(), -1.0f);
        const ur_rect_region_t Region{static_cast<size_t>(8 + T), 4, 1};
        if (urEnqueueMemImageWrite(Q(), Img, false, {0, 0, 0}, Region, 0, 0,
                                   const_cast<float *>(In.data()), 0, nullptr,
                                   nullptr) != UR_RESULT_SUCCESS ||
            urEnqueueMemImageRead(Q(), Img, true, {0, 0, 0}, Region, 0, 0, Out.data(), 0, nullptr,
                                  nullptr) != UR_RESULT_SUCCESS ||
            Out != In)
          ++Failures;
        const ur_sampler_desc_t SamplerDesc{UR_STRUCTURE_TYPE_SAMPLER_DESC, nullptr, false,
                                            UR_SAMPLER_ADDRESSING_MODE_CLAMP,
                                            UR_SAMPLER_FILTER_MODE_NEAREST};
        ur_sampler_handle_t Sampler = nullptr;
        if (urSamplerCreate(C(), &SamplerDesc, &Sampler) != UR_RESULT_SUCCESS ||
            urSamplerRelease(Sampler) != UR_RESULT_SUCCESS)
          ++Failures;
        if (urMemRelease(Img) != UR_RESULT_SUCCESS)
          ++Failures;
      }
    });
  for (std::thread &Worker : Workers)
    Worker.join();
  EXPECT_EQ(Failures.load(), 0);
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrImages);

// ---- kernels with image and sampler arguments ----

class UrImageKernels : public ProgramTest {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(ProgramTest::SetUp());
    if (IsSkipped())
      return;
    if (!imageSupport(asUr(Device)))
      GTEST_SKIP() << NoImagesReason;
    // images.cl's PTX kernels take what the CUDA adapter passes (surface objects and
    // DPC++'s sampler word); its amdgcn kernels are stubs (clang 15 has no image built-ins
    // for either target).
    const std::string &Backend = GetParam().Backend;
    if (Format == "nvptx64" && Backend != "cuda" && Backend != "hip_nvidia")
      GTEST_SKIP() << "images.cl's PTX kernels take CUDA surface objects and DPC++'s sampler "
                      "word, as dglink's CUDA and HIP (NVIDIA) adapters pass them; the "
                   << Backend << " adapter passes its driver's own image arguments";
    if (Format == "amdgcn")
      GTEST_SKIP() << "images.cl's amdgcn kernels are stubs: clang 15 has no image built-ins "
                      "for amdgcn";
  }
};

ur_exp_kernel_arg_properties_t memArgument(uint32_t Index, ur_mem_handle_t Mem) {
  ur_exp_kernel_arg_properties_t Arg{};
  Arg.stype = UR_STRUCTURE_TYPE_EXP_KERNEL_ARG_PROPERTIES;
  Arg.type = UR_EXP_KERNEL_ARG_TYPE_MEM_OBJ;
  Arg.index = Index;
  Arg.size = sizeof(ur_mem_handle_t);
  Arg.value.memObjTuple = {Mem, UR_MEM_FLAG_READ_WRITE};
  return Arg;
}

ur_exp_kernel_arg_properties_t samplerArgument(uint32_t Index, ur_sampler_handle_t Sampler) {
  ur_exp_kernel_arg_properties_t Arg{};
  Arg.stype = UR_STRUCTURE_TYPE_EXP_KERNEL_ARG_PROPERTIES;
  Arg.type = UR_EXP_KERNEL_ARG_TYPE_SAMPLER;
  Arg.index = Index;
  Arg.size = sizeof(ur_sampler_handle_t);
  Arg.value.sampler = Sampler;
  return Arg;
}

// copy_image writes each pixel of the input into the output; increment_image adds 1 to
// each channel; both read through a sampler argument.
TEST_P(UrImageKernels, KernelCopiesAnImage) {
  ProgramHandle Program;
  ASSERT_NO_FATAL_FAILURE(buildProgram("images", Program));
  KernelHandle Copy, Increment;
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "copy_image", Copy));
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "increment_image", Increment));
  const ur_context_handle_t C = asUr(Context.get());
  const ur_queue_handle_t Q = asUr(Queue.get());
  constexpr size_t W = 16, H = 8;
  const ur_image_desc_t Desc = describe(UR_MEM_TYPE_IMAGE2D, W, H, 1, 1);
  std::vector<float> Input = pixels(W * H, 0.5f);
  Image In, Out;
  ASSERT_EQ(urMemImageCreate(C, UR_MEM_FLAG_READ_ONLY | UR_MEM_FLAG_ALLOC_COPY_HOST_POINTER,
                             &RgbaFloat, &Desc, Input.data(), &In.Handle),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urMemImageCreate(C, UR_MEM_FLAG_WRITE_ONLY, &RgbaFloat, &Desc, nullptr, &Out.Handle),
            UR_RESULT_SUCCESS);
  const ur_sampler_desc_t SamplerDesc{UR_STRUCTURE_TYPE_SAMPLER_DESC, nullptr, false,
                                      UR_SAMPLER_ADDRESSING_MODE_CLAMP,
                                      UR_SAMPLER_FILTER_MODE_NEAREST};
  SamplerHandle Sampler;
  ASSERT_EQ(urSamplerCreate(C, &SamplerDesc, &Sampler.Handle), UR_RESULT_SUCCESS);
  const ur_exp_kernel_arg_properties_t Args[] = {
      memArgument(0, Out.Handle), memArgument(1, In.Handle), samplerArgument(2, Sampler.Handle)};
  const size_t Global[2] = {W, H};
  ASSERT_EQ(urEnqueueKernelLaunchWithArgsExp(Q, asUr(Copy.get()), 2, nullptr, Global, nullptr, 3,
                                             Args, nullptr, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  std::vector<float> Result(Input.size(), -1.0f);
  ASSERT_EQ(urEnqueueMemImageRead(Q, Out.Handle, true, {0, 0, 0}, {W, H, 1}, 0, 0, Result.data(), 0,
                                  nullptr, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Result, Input);

  ASSERT_EQ(urEnqueueKernelLaunchWithArgsExp(Q, asUr(Increment.get()), 2, nullptr, Global, nullptr,
                                             3, Args, nullptr, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urEnqueueMemImageRead(Q, Out.Handle, true, {0, 0, 0}, {W, H, 1}, 0, 0, Result.data(), 0,
                                  nullptr, nullptr),
            UR_RESULT_SUCCESS);
  for (size_t I = 0; I < Input.size(); ++I)
    ASSERT_EQ(Result[I], Input[I] + 1.0f) << "float " << I;

  // A sampler of another context, and a released one, are refused by name.
  if (!leakCheckerOn()) {
    ur_sampler_handle_t Released = nullptr;
    ASSERT_EQ(urSamplerCreate(C, &SamplerDesc, &Released), UR_RESULT_SUCCESS);
    ASSERT_EQ(urSamplerRelease(Released), UR_RESULT_SUCCESS);
    const ur_exp_kernel_arg_properties_t Stale[] = {Args[0], Args[1], samplerArgument(2, Released)};
    EXPECT_EQ(urEnqueueKernelLaunchWithArgsExp(Q, asUr(Copy.get()), 2, nullptr, Global, nullptr, 3,
                                               Stale, nullptr, 0, nullptr, nullptr),
              UR_RESULT_ERROR_INVALID_SAMPLER);
    EXPECT_NE(urLastError(Platform).find("released"), std::string::npos) << urLastError(Platform);
  }
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrImageKernels);

} // namespace
} // namespace dglink::conformance
