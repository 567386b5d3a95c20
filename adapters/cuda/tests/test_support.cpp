// The adapter loader, image builder and device fixture of the unit tests.
#include "test_support.h"

#include <cstring>

namespace dglink::cuda::test {

const LoadedAdapter &adapter() {
  static const LoadedAdapter Loaded =
      dglink::test::loadAdapter("libdglink_adapter_cuda.so", DGLINK_CUDA_ADAPTER_FILE);
  return Loaded;
}

std::string lastError() { return dglink::test::lastErrorOf(adapter()); }

ImageBuilder::ImageBuilder(const unsigned char *TheBytes, size_t TheSize)
    : Bytes(TheBytes), Size(TheSize) {}

char *ImageBuilder::keep(const std::string &Text) {
  Strings.push_back(Text);
  return Strings.back().data();
}

void ImageBuilder::add(const std::string &Set, const std::string &Name, pi_uint32 Type,
                       std::vector<uint8_t> Value, pi_uint64 UintValue) {
  _pi_device_binary_property_struct Property{};
  Property.Name = keep(Name);
  Property.Type = Type;
  if (Type == PI_PROPERTY_TYPE_UINT32) {
    Property.ValSize = UintValue;
  } else {
    Values.push_back(std::move(Value));
    Property.ValAddr = Values.back().data();
    Property.ValSize = Values.back().size();
  }
  Sets[Set].push_back(Property);
}

ImageBuilder &ImageBuilder::deviceGlobal(const std::string &UniqueId, uint32_t VariableSize,
                                         HostAccess Access, const std::string &Symbol) {
  DeviceGlobalInfo Info;
  Info.UniqueId = UniqueId;
  Info.Size = VariableSize;
  Info.DeviceImageScope = true;
  Info.Access = Access;
  add(PI_PROPERTY_SET_DEVICE_GLOBALS, UniqueId, PI_PROPERTY_TYPE_BYTE_ARRAY,
      encodeDeviceGlobalValue(Info), 0);
  if (!Symbol.empty()) {
    std::vector<uint8_t> Text(Symbol.begin(), Symbol.end());
    Text.push_back(0);
    add("SYCL/device global symbols", UniqueId, PI_PROPERTY_TYPE_STRING, std::move(Text), 0);
  }
  return *this;
}

ImageBuilder &ImageBuilder::exported(const std::string &Symbol) {
  add(PI_PROPERTY_SET_EXPORTED_SYMBOLS, Symbol, PI_PROPERTY_TYPE_UINT32, {}, 1);
  return *this;
}

ImageBuilder &ImageBuilder::imported(const std::string &Symbol) {
  add(PI_PROPERTY_SET_IMPORTED_SYMBOLS, Symbol, PI_PROPERTY_TYPE_UINT32, {}, 1);
  return *this;
}

const _pi_device_binary_struct &ImageBuilder::image() {
  SetStructs.clear();
  for (auto &[Name, Properties] : Sets) {
    _pi_device_binary_property_set_struct Set{};
    Set.Name = keep(Name);
    Set.PropertiesBegin = Properties.data();
    Set.PropertiesEnd = Properties.data() + Properties.size();
    SetStructs.push_back(Set);
  }
  Image = _pi_device_binary_struct{};
  Image.Version = PI_DEVICE_BINARY_VERSION;
  Image.Kind = PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL;
  Image.Format = PI_DEVICE_BINARY_TYPE_NATIVE;
  Image.DeviceTargetSpec = PI_DEVICE_BINARY_TARGET_NVPTX64;
  Image.CompileOptions = "";
  Image.LinkOptions = "";
  Image.BinaryStart = Bytes;
  Image.BinaryEnd = Bytes + Size;
  if (!SetStructs.empty()) {
    Image.PropertySetsBegin = SetStructs.data();
    Image.PropertySetsEnd = SetStructs.data() + SetStructs.size();
  }
  return Image;
}

void CudaDeviceTest::SetUp() {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  pi_uint32 Count = 0;
  ASSERT_PI(pi().piPlatformsGet(0, nullptr, &Count));
  if (Count == 0)
    GTEST_SKIP() << "no CUDA device";
  ASSERT_PI(pi().piPlatformsGet(1, &Platform, nullptr));
  ASSERT_PI(pi().piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 1, &Device, nullptr));
  ASSERT_PI(pi().piContextCreate(nullptr, 1, &Device, &Context));
  ASSERT_PI(pi().piQueueCreate(Context, Device, 0, &Queue));
}

void CudaDeviceTest::TearDown() {
  if (Queue != nullptr) {
    EXPECT_PI(pi().piQueueRelease(Queue));
  }
  if (Context != nullptr) {
    EXPECT_PI(pi().piContextRelease(Context));
  }
}

pi_program CudaDeviceTest::buildImage(const _pi_device_binary_struct &Image) {
  pi_program Program = nullptr;
  EXPECT_PI(pi().piextProgramCreateWithImage(Context, 1, &Device, &Image, &Program));
  if (Program == nullptr)
    return nullptr;
  const pi_result Built = pi().piProgramBuild(Program, 1, &Device, "", nullptr, nullptr);
  EXPECT_EQ(PI_SUCCESS, Built) << lastError() << "\nbuild log:\n" << buildLog(Program);
  return Program;
}

std::string CudaDeviceTest::buildLog(pi_program Program) {
  size_t Size = 0;
  if (pi().piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr, &Size) !=
      PI_SUCCESS)
    return "(no log: " + lastError() + ")";
  std::string Log(Size, '\0');
  pi().piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, Size, Log.data(), nullptr);
  Log.resize(Size ? Size - 1 : 0);
  return Log;
}

} // namespace dglink::cuda::test
