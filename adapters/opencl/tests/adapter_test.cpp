// Unit tests of the OpenCL adapter on the machine's OpenCL platform (PoCL 3.1 on CI):
// discovery and extension strings, USM kernels, SPIR / SPIR-V compile + link, link failures
// with their build log, device-global errors and invalid handles. DGLINK_OPENCL_ADAPTER,
// DGLINK_OPENCL_TEST_DEVICE_CODE and DGLINK_OPENCL_TEST_PLATFORM (a substring of the
// platform name) override the built-in paths and the platform choice.
#include <dglink/pi.h>
#include <dglink/support/image.h>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

// The adapter as the dispatch layer sees it: a dlopen'ed library and its function table.
const pi_plugin_functions &api() {
  static pi_plugin Plugin = [] {
    pi_plugin Loaded{};
    const char *Path = std::getenv("DGLINK_OPENCL_ADAPTER");
    void *Library = dlopen(Path ? Path : DGLINK_OPENCL_ADAPTER_PATH, RTLD_NOW | RTLD_LOCAL);
    if (Library == nullptr) {
      ADD_FAILURE() << "dlopen: " << dlerror();
      return Loaded;
    }
    auto Init = reinterpret_cast<pi_result (*)(pi_plugin *)>(dlsym(Library, "piPluginInit"));
    std::strcpy(Loaded.PiVersion, PI_VERSION_STRING);
    if (Init == nullptr || Init(&Loaded) != PI_SUCCESS)
      ADD_FAILURE() << "piPluginInit failed";
    return Loaded;
  }();
  return Plugin.PiFunctionTable;
}

std::string lastError() {
  char *Message = nullptr;
  api().piPluginGetLastError(&Message);
  return Message == nullptr ? "" : Message;
}

std::vector<unsigned char> readFile(const std::string &Name) {
  const char *Dir = std::getenv("DGLINK_OPENCL_TEST_DEVICE_CODE");
  std::ifstream File(std::string(Dir ? Dir : DGLINK_OPENCL_TEST_DEVICE_CODE_DIR) + "/" + Name,
                     std::ios::binary);
  std::vector<unsigned char> Bytes{std::istreambuf_iterator<char>(File),
                                   std::istreambuf_iterator<char>()};
  EXPECT_FALSE(Bytes.empty()) << "device code " << Name << " is missing";
  return Bytes;
}

// The two intermediate forms the test device code is built in.
enum class Ir { Spir, SpirV };
const char *linkFormat(Ir Form) { return Form == Ir::Spir ? "spir64" : "spirv64"; }
uint8_t binaryFormat(Ir Form) {
  return Form == Ir::Spir ? PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE : PI_DEVICE_BINARY_TYPE_SPIRV;
}
std::vector<unsigned char> deviceCode(const std::string &Name, Ir Form) {
  return readFile(Name + (Form == Ir::Spir ? ".bc" : ".spv"));
}

std::string deviceString(pi_device Device, pi_device_info Param) {
  size_t Size = 0;
  EXPECT_EQ(api().piDeviceGetInfo(Device, Param, 0, nullptr, &Size), PI_SUCCESS);
  std::string Value(Size, '\0');
  EXPECT_EQ(api().piDeviceGetInfo(Device, Param, Size, Value.data(), nullptr), PI_SUCCESS);
  Value.resize(std::strlen(Value.c_str()));
  return Value;
}

std::string buildLog(pi_program Program, pi_device Device) {
  size_t Size = 0;
  EXPECT_EQ(
      api().piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr, &Size),
      PI_SUCCESS);
  std::string Log(Size, '\0');
  EXPECT_EQ(api().piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, Size,
                                        Log.data(), nullptr),
            PI_SUCCESS);
  Log.resize(std::strlen(Log.c_str()));
  return Log;
}

bool hasWord(const std::string &List, const std::string &Word) {
  return (" " + List + " ").find(" " + Word + " ") != std::string::npos;
}

// A device image with hand-written property sets, as the compiler shim would make it.
class TestImage {
public:
  TestImage(std::vector<unsigned char> Code, uint8_t Format) : Bytes(std::move(Code)) {
    Binary.Version = PI_DEVICE_BINARY_VERSION;
    Binary.Kind = PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL;
    Binary.Format = Format;
    Binary.DeviceTargetSpec = PI_DEVICE_BINARY_TARGET_SPIRV64;
  }
  TestImage &exports(const std::string &Symbol) { return flag(Exported, Symbol); }
  TestImage &imports(const std::string &Symbol) { return flag(Imported, Symbol); }
  TestImage &deviceGlobal(const std::string &Id, uint32_t Size, dglink::HostAccess Access) {
    dglink::DeviceGlobalInfo Info;
    Info.UniqueId = Id;
    Info.Size = Size;
    Info.Access = Access;
    Values.push_back(dglink::encodeDeviceGlobalValue(Info));
    Globals.push_back(
        {name(Id), Values.back().data(), PI_PROPERTY_TYPE_BYTE_ARRAY, Values.back().size()});
    return *this;
  }
  // A device-global value whose byte-array header disagrees with its size.
  TestImage &malformedDeviceGlobal(const std::string &Id) {
    Values.push_back(std::vector<unsigned char>(12, 0));
    Values.back()[0] = 200; // says 200 bits, 4 bytes follow
    Globals.push_back(
        {name(Id), Values.back().data(), PI_PROPERTY_TYPE_BYTE_ARRAY, Values.back().size()});
    return *this;
  }
  const _pi_device_binary_struct *get() {
    Sets.clear();
    addSet(PI_PROPERTY_SET_EXPORTED_SYMBOLS, Exported);
    addSet(PI_PROPERTY_SET_IMPORTED_SYMBOLS, Imported);
    addSet(PI_PROPERTY_SET_DEVICE_GLOBALS, Globals);
    Binary.BinaryStart = Bytes.data();
    Binary.BinaryEnd = Bytes.data() + Bytes.size();
    Binary.PropertySetsBegin = Sets.empty() ? nullptr : Sets.data();
    Binary.PropertySetsEnd = Sets.empty() ? nullptr : Sets.data() + Sets.size();
    return &Binary;
  }

private:
  char *name(const std::string &Text) {
    Names.push_back(Text);
    return Names.back().data();
  }
  TestImage &flag(std::vector<_pi_device_binary_property_struct> &Set, const std::string &Name) {
    Set.push_back({name(Name), nullptr, PI_PROPERTY_TYPE_UINT32, 1});
    return *this;
  }
  void addSet(const char *Name, std::vector<_pi_device_binary_property_struct> &Properties) {
    if (!Properties.empty())
      Sets.push_back(
          {const_cast<char *>(Name), Properties.data(), Properties.data() + Properties.size()});
  }

  std::vector<unsigned char> Bytes;
  std::deque<std::string> Names;
  std::deque<std::vector<unsigned char>> Values;
  std::vector<_pi_device_binary_property_struct> Exported, Imported, Globals;
  std::vector<_pi_device_binary_property_set_struct> Sets;
  _pi_device_binary_struct Binary{};
};

class OpenClAdapter : public ::testing::Test {
protected:
  void SetUp() override {
    pi_uint32 NumPlatforms = 0;
    ASSERT_EQ(api().piPlatformsGet(0, nullptr, &NumPlatforms), PI_SUCCESS) << lastError();
    if (NumPlatforms == 0)
      GTEST_SKIP() << "the OpenCL ICD loader finds no platform";
    std::vector<pi_platform> Platforms(NumPlatforms);
    ASSERT_EQ(api().piPlatformsGet(NumPlatforms, Platforms.data(), nullptr), PI_SUCCESS);
    const char *Wanted = std::getenv("DGLINK_OPENCL_TEST_PLATFORM");
    for (pi_platform Candidate : Platforms) {
      char Name[256] = {};
      api().piPlatformGetInfo(Candidate, PI_PLATFORM_INFO_NAME, sizeof(Name), Name, nullptr);
      if (Wanted != nullptr && std::strstr(Name, Wanted) == nullptr)
        continue;
      pi_uint32 NumDevices = 0;
      ASSERT_EQ(api().piDevicesGet(Candidate, PI_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices),
                PI_SUCCESS);
      if (NumDevices == 0)
        continue;
      Platform = Candidate;
      ASSERT_EQ(api().piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 1, &Device, nullptr), PI_SUCCESS);
      break;
    }
    if (Device == nullptr)
      GTEST_SKIP() << "no OpenCL device";
    ASSERT_EQ(api().piContextCreate(nullptr, 1, &Device, &Context), PI_SUCCESS) << lastError();
    ASSERT_EQ(api().piQueueCreate(Context, Device, 0, &Queue), PI_SUCCESS) << lastError();
  }

  void TearDown() override {
    if (Queue != nullptr) {
      EXPECT_EQ(api().piQueueRelease(Queue), PI_SUCCESS);
    }
    if (Context != nullptr) {
      EXPECT_EQ(api().piContextRelease(Context), PI_SUCCESS);
    }
  }

  bool isPocl31() {
    size_t Size = 0;
    api().piPlatformGetInfo(Platform, PI_PLATFORM_INFO_VERSION, 0, nullptr, &Size);
    std::string Version(Size, '\0');
    api().piPlatformGetInfo(Platform, PI_PLATFORM_INFO_VERSION, Size, Version.data(), nullptr);
    return Version.find("PoCL 3.1") != std::string::npos;
  }

  bool consumes(Ir Form) {
    if (Form == Ir::Spir)
      return hasWord(deviceString(Device, PI_DEVICE_INFO_EXTENSIONS), "cl_khr_spir");
    return deviceString(Device, PI_DEVICE_INFO_IL_VERSION).find("SPIR-V") != std::string::npos;
  }
  bool links(Ir Form) {
    return hasWord(deviceString(Device, PI_EXT_DEVICE_INFO_LINK_FORMATS), linkFormat(Form));
  }
  // The form programs of the format-neutral tests are made from; false if the device
  // consumes neither.
  bool anyConsumedIr(Ir &Form) {
    for (Ir Candidate : {Ir::Spir, Ir::SpirV})
      if (consumes(Candidate)) {
        Form = Candidate;
        return true;
      }
    return false;
  }
  bool anyLinkedIr(Ir &Form) {
    for (Ir Candidate : {Ir::Spir, Ir::SpirV})
      if (links(Candidate)) {
        Form = Candidate;
        return true;
      }
    return false;
  }
  pi_usm_mechanism usmMechanism() {
    pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
    EXPECT_EQ(
        api().piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_USM_MECHANISM, sizeof(Usm), &Usm, nullptr),
        PI_SUCCESS);
    return Usm;
  }

  pi_program createProgram(TestImage &Image) {
    pi_program Program = nullptr;
    EXPECT_EQ(api().piextProgramCreateWithImage(Context, 1, &Device, Image.get(), &Program),
              PI_SUCCESS)
        << lastError();
    return Program;
  }

  // Runs Kernel over N work-items with a USM device allocation as argument 0 and returns
  // what it wrote.
  std::vector<int> runOnUsm(pi_kernel Kernel, size_t N) {
    if (usmMechanism() == PI_USM_MECHANISM_NONE)
      return runOnBuffer(Kernel, N);
    void *DeviceMemory = nullptr;
    EXPECT_EQ(
        api().piextUSMDeviceAlloc(&DeviceMemory, Context, Device, nullptr, N * sizeof(int), 0),
        PI_SUCCESS)
        << lastError();
    EXPECT_EQ(api().piextKernelSetArgPointer(Kernel, 0, sizeof(void *), &DeviceMemory), PI_SUCCESS)
        << lastError();
    pi_event Launched = nullptr;
    EXPECT_EQ(
        api().piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &N, nullptr, 0, nullptr, &Launched),
        PI_SUCCESS)
        << lastError();
    std::vector<int> Result(N, -1);
    EXPECT_EQ(api().piextUSMEnqueueMemcpy(Queue, PI_TRUE, Result.data(), DeviceMemory,
                                          N * sizeof(int), 1, &Launched, nullptr),
              PI_SUCCESS)
        << lastError();
    pi_int32 Status = -1;
    EXPECT_EQ(api().piEventGetInfo(Launched, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status),
                                   &Status, nullptr),
              PI_SUCCESS);
    EXPECT_EQ(Status, PI_EVENT_COMPLETE);
    EXPECT_EQ(api().piEventRelease(Launched), PI_SUCCESS);
    EXPECT_EQ(api().piextUSMFree(Context, DeviceMemory), PI_SUCCESS) << lastError();
    return Result;
  }

  void linkTwoImagesAndRun(Ir Form);

  // The same through a memory buffer, for devices without USM.
  std::vector<int> runOnBuffer(pi_kernel Kernel, size_t N) {
    std::vector<int> Result(N, -1);
    pi_mem Buffer = nullptr;
    EXPECT_EQ(
        api().piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, N * sizeof(int), nullptr, &Buffer),
        PI_SUCCESS)
        << lastError();
    EXPECT_EQ(api().piextKernelSetArgMemObj(Kernel, 0, &Buffer), PI_SUCCESS) << lastError();
    EXPECT_EQ(
        api().piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &N, nullptr, 0, nullptr, nullptr),
        PI_SUCCESS)
        << lastError();
    EXPECT_EQ(api().piEnqueueMemBufferRead(Queue, Buffer, PI_TRUE, 0, N * sizeof(int),
                                           Result.data(), 0, nullptr, nullptr),
              PI_SUCCESS)
        << lastError();
    EXPECT_EQ(api().piMemRelease(Buffer), PI_SUCCESS);
    return Result;
  }

  pi_platform Platform = nullptr;
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
};

TEST_F(OpenClAdapter, DiscoversDevicesAndAnswersEveryDeviceQuery) {
  EXPECT_EQ(deviceString(Device, PI_EXT_DEVICE_INFO_BACKEND_NAME), "opencl");
  char Backend[16] = {};
  ASSERT_EQ(api().piPlatformGetInfo(Platform, PI_EXT_PLATFORM_INFO_BACKEND, sizeof(Backend),
                                    Backend, nullptr),
            PI_SUCCESS);
  EXPECT_STREQ(Backend, "opencl");
  const pi_device_info All[] = {PI_DEVICE_INFO_TYPE,
                                PI_DEVICE_INFO_VENDOR_ID,
                                PI_DEVICE_INFO_MAX_COMPUTE_UNITS,
                                PI_DEVICE_INFO_MAX_WORK_GROUP_SIZE,
                                PI_DEVICE_INFO_GLOBAL_MEM_SIZE,
                                PI_DEVICE_INFO_DOUBLE_FP_CONFIG,
                                PI_DEVICE_INFO_HALF_FP_CONFIG,
                                PI_DEVICE_INFO_AVAILABLE,
                                PI_DEVICE_INFO_COMPILER_AVAILABLE,
                                PI_DEVICE_INFO_LINKER_AVAILABLE,
                                PI_DEVICE_INFO_NAME,
                                PI_DEVICE_INFO_VENDOR,
                                PI_DEVICE_INFO_DRIVER_VERSION,
                                PI_DEVICE_INFO_VERSION,
                                PI_DEVICE_INFO_EXTENSIONS,
                                PI_DEVICE_INFO_PLATFORM,
                                PI_DEVICE_INFO_IL_VERSION,
                                PI_DEVICE_INFO_REFERENCE_COUNT,
                                PI_EXT_DEVICE_INFO_LINK_FORMATS,
                                PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM,
                                PI_EXT_DEVICE_INFO_USM_MECHANISM,
                                PI_EXT_DEVICE_INFO_EXECUTES_KERNELS,
                                PI_EXT_DEVICE_INFO_BACKEND_NAME};
  for (pi_device_info Param : All) {
    size_t Size = 0;
    EXPECT_EQ(api().piDeviceGetInfo(Device, Param, 0, nullptr, &Size), PI_SUCCESS)
        << std::hex << Param << ": " << lastError();
    EXPECT_GT(Size, 0u) << std::hex << Param;
  }
  pi_platform Owner = nullptr;
  ASSERT_EQ(api().piDeviceGetInfo(Device, PI_DEVICE_INFO_PLATFORM, sizeof(Owner), &Owner, nullptr),
            PI_SUCCESS);
  EXPECT_EQ(Owner, Platform);
  pi_bool Executes = PI_FALSE;
  ASSERT_EQ(api().piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_EXECUTES_KERNELS, sizeof(Executes),
                                  &Executes, nullptr),
            PI_SUCCESS);
  EXPECT_EQ(Executes, PI_TRUE);
  // A buffer that is too small is refused, not overrun.
  char Tiny[2];
  EXPECT_EQ(api().piDeviceGetInfo(Device, PI_DEVICE_INFO_NAME, sizeof(Tiny), Tiny, nullptr),
            PI_ERROR_INVALID_VALUE);
}

TEST_F(OpenClAdapter, ExtensionStringFollowsTheLinkFormatRule) {
  const std::string Extensions = deviceString(Device, PI_DEVICE_INFO_EXTENSIONS);
  const std::string Formats = deviceString(Device, PI_EXT_DEVICE_INFO_LINK_FORMATS);
  EXPECT_EQ(hasWord(Formats, "spir64"), hasWord(Extensions, PI_EXT_SPIR64_LINKING));
  EXPECT_EQ(hasWord(Formats, "spirv64"), hasWord(Extensions, PI_EXT_SPIRV64_LINKING));
  EXPECT_FALSE(hasWord(Extensions, PI_EXT_NVPTX64_LINKING));
  pi_device_global_mechanism Mechanism = PI_DEVICE_GLOBAL_MECHANISM_LOWERED;
  ASSERT_EQ(api().piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM,
                                  sizeof(Mechanism), &Mechanism, nullptr),
            PI_SUCCESS);
  EXPECT_EQ(hasWord(Extensions, PI_EXT_DEVICE_GLOBAL_ACCESS),
            Mechanism != PI_DEVICE_GLOBAL_MECHANISM_NONE);
  if (!isPocl31())
    return;
  // PoCL 3.1: SPIR through cl_khr_spir with a linker, no IL, no Intel extensions.
  EXPECT_TRUE(hasWord(Extensions, "cl_khr_spir"));
  EXPECT_TRUE(hasWord(Extensions, PI_EXT_SPIR64_LINKING)) << Extensions;
  EXPECT_FALSE(hasWord(Extensions, PI_EXT_SPIRV64_LINKING)) << Extensions;
  // Device globals through the shim's lowered images (docs/opencl-lowering.md).
  EXPECT_TRUE(hasWord(Extensions, PI_EXT_DEVICE_GLOBAL_ACCESS)) << Extensions;
  EXPECT_EQ(Formats, "spir64");
  EXPECT_EQ(Mechanism, PI_DEVICE_GLOBAL_MECHANISM_LOWERED);
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  ASSERT_EQ(
      api().piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_USM_MECHANISM, sizeof(Usm), &Usm, nullptr),
      PI_SUCCESS);
  EXPECT_EQ(Usm, PI_USM_MECHANISM_SVM);
}

TEST_F(OpenClAdapter, KernelWritesUsmThatReadsBack) {
  Ir Form = Ir::Spir;
  if (!anyConsumedIr(Form))
    GTEST_SKIP() << "the device consumes neither SPIR nor SPIR-V";
  TestImage Image(deviceCode("fill", Form), binaryFormat(Form));
  pi_program Program = createProgram(Image);
  ASSERT_NE(Program, nullptr);
  ASSERT_EQ(api().piProgramBuild(Program, 1, &Device, nullptr, nullptr, nullptr), PI_SUCCESS)
      << lastError();
  pi_device_binary_format Format = PI_DEVICE_BINARY_TYPE_NONE;
  ASSERT_EQ(
      api().piProgramGetInfo(Program, PI_EXT_PROGRAM_INFO_FORMAT, sizeof(Format), &Format, nullptr),
      PI_SUCCESS);
  EXPECT_EQ(Format, binaryFormat(Form));
  pi_kernel Kernel = nullptr;
  ASSERT_EQ(api().piKernelCreate(Program, "fill", &Kernel), PI_SUCCESS) << lastError();
  const int Base = 100;
  ASSERT_EQ(api().piKernelSetArg(Kernel, 1, sizeof(Base), &Base), PI_SUCCESS) << lastError();
  const std::vector<int> Result = runOnUsm(Kernel, 64);
  for (size_t I = 0; I < Result.size(); ++I)
    ASSERT_EQ(Result[I], Base + static_cast<int>(I)) << "element " << I;

  // Shared USM is read by the host directly (fine-grained SVM on PoCL).
  void *Shared = nullptr;
  if (api().piextUSMSharedAlloc(&Shared, Context, Device, nullptr, 16 * sizeof(int), 0) ==
      PI_SUCCESS) {
    const int Pattern = 7;
    ASSERT_EQ(api().piextUSMEnqueueFill(Queue, Shared, &Pattern, sizeof(Pattern), 16 * sizeof(int),
                                        0, nullptr, nullptr),
              PI_SUCCESS)
        << lastError();
    ASSERT_EQ(api().piextKernelSetArgPointer(Kernel, 0, sizeof(void *), &Shared), PI_SUCCESS);
    size_t N = 8;
    ASSERT_EQ(
        api().piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &N, nullptr, 0, nullptr, nullptr),
        PI_SUCCESS);
    ASSERT_EQ(api().piQueueFinish(Queue), PI_SUCCESS);
    const int *Values = static_cast<const int *>(Shared);
    EXPECT_EQ(Values[3], Base + 3);
    EXPECT_EQ(Values[12], Pattern);
    EXPECT_EQ(api().piextUSMFree(Context, Shared), PI_SUCCESS);
  }

  // Memory buffers work on every device.
  pi_mem Buffer = nullptr;
  ASSERT_EQ(
      api().piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, 32 * sizeof(int), nullptr, &Buffer),
      PI_SUCCESS)
      << lastError();
  ASSERT_EQ(api().piextKernelSetArgMemObj(Kernel, 0, &Buffer), PI_SUCCESS) << lastError();
  size_t N = 32;
  ASSERT_EQ(
      api().piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &N, nullptr, 0, nullptr, nullptr),
      PI_SUCCESS);
  std::vector<int> FromBuffer(32);
  ASSERT_EQ(api().piEnqueueMemBufferRead(Queue, Buffer, PI_TRUE, 0, 32 * sizeof(int),
                                         FromBuffer.data(), 0, nullptr, nullptr),
            PI_SUCCESS)
      << lastError();
  EXPECT_EQ(FromBuffer[31], Base + 31);
  EXPECT_EQ(api().piEnqueueMemBufferRead(Queue, Buffer, PI_TRUE, 4, 32 * sizeof(int),
                                         FromBuffer.data(), 0, nullptr, nullptr),
            PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(api().piMemRelease(Buffer), PI_SUCCESS);

  EXPECT_EQ(api().piKernelRelease(Kernel), PI_SUCCESS);
  EXPECT_EQ(api().piProgramRelease(Program), PI_SUCCESS);
}

// Compiles caller and helper separately, links them and runs the result.
void OpenClAdapter::linkTwoImagesAndRun(Ir Form) {
  if (!links(Form))
    GTEST_SKIP() << "the device does not advertise " << linkFormat(Form) << " linking";
  TestImage CallerImage(deviceCode("caller", Form), binaryFormat(Form));
  CallerImage.exports("callHelper").imports("helper");
  TestImage HelperImage(deviceCode("helper", Form), binaryFormat(Form));
  HelperImage.exports("helper");
  pi_program Inputs[] = {createProgram(CallerImage), createProgram(HelperImage)};
  ASSERT_NE(Inputs[0], nullptr);
  ASSERT_NE(Inputs[1], nullptr);
  for (pi_program Input : Inputs) {
    ASSERT_EQ(
        api().piProgramCompile(Input, 1, &Device, nullptr, 0, nullptr, nullptr, nullptr, nullptr),
        PI_SUCCESS)
        << lastError();
    pi_program_binary_type Type = PI_PROGRAM_BINARY_TYPE_NONE;
    ASSERT_EQ(api().piProgramGetBuildInfo(Input, Device, PI_PROGRAM_BUILD_INFO_BINARY_TYPE,
                                          sizeof(Type), &Type, nullptr),
              PI_SUCCESS);
    EXPECT_NE(Type, PI_PROGRAM_BINARY_TYPE_EXECUTABLE);
  }
  // A compiled object is no executable: refused by dglink with a message.
  pi_kernel Kernel = nullptr;
  EXPECT_EQ(api().piKernelCreate(Inputs[0], "callHelper", &Kernel),
            PI_ERROR_INVALID_PROGRAM_EXECUTABLE);
  EXPECT_NE(lastError().find("not an executable"), std::string::npos) << lastError();

  pi_program Linked = nullptr;
  ASSERT_EQ(api().piProgramLink(Context, 1, &Device, nullptr, 2, Inputs, nullptr, nullptr, &Linked),
            PI_SUCCESS)
      << lastError();
  ASSERT_NE(Linked, nullptr);
  pi_program_build_status Status = PI_PROGRAM_BUILD_STATUS_NONE;
  ASSERT_EQ(api().piProgramGetBuildInfo(Linked, Device, PI_PROGRAM_BUILD_INFO_STATUS,
                                        sizeof(Status), &Status, nullptr),
            PI_SUCCESS);
  EXPECT_EQ(Status, PI_PROGRAM_BUILD_STATUS_SUCCESS);
  size_t NamesSize = 0;
  ASSERT_EQ(api().piProgramGetInfo(Linked, PI_PROGRAM_INFO_KERNEL_NAMES, 0, nullptr, &NamesSize),
            PI_SUCCESS)
      << lastError();
  std::string Names(NamesSize, '\0');
  ASSERT_EQ(api().piProgramGetInfo(Linked, PI_PROGRAM_INFO_KERNEL_NAMES, NamesSize, Names.data(),
                                   nullptr),
            PI_SUCCESS);
  EXPECT_NE(Names.find("callHelper"), std::string::npos) << Names;

  ASSERT_EQ(api().piKernelCreate(Linked, "callHelper", &Kernel), PI_SUCCESS) << lastError();
  const std::vector<int> Result = runOnUsm(Kernel, 32);
  for (size_t I = 0; I < Result.size(); ++I)
    ASSERT_EQ(Result[I], 3 * static_cast<int>(I) + 1) << "element " << I;
  EXPECT_EQ(api().piKernelRelease(Kernel), PI_SUCCESS);
  EXPECT_EQ(api().piProgramRelease(Linked), PI_SUCCESS);
  for (pi_program Input : Inputs)
    EXPECT_EQ(api().piProgramRelease(Input), PI_SUCCESS);
}

TEST_F(OpenClAdapter, TwoSpirImagesCompileLinkAndRun) { linkTwoImagesAndRun(Ir::Spir); }

TEST_F(OpenClAdapter, TwoSpirVImagesCompileLinkAndRun) { linkTwoImagesAndRun(Ir::SpirV); }

TEST_F(OpenClAdapter, UnresolvedImportFailsTheLinkWithALogNamingTheSymbol) {
  Ir Form = Ir::Spir;
  if (!anyLinkedIr(Form))
    GTEST_SKIP() << "the device advertises no link format";
  TestImage CallerImage(deviceCode("caller", Form), binaryFormat(Form));
  CallerImage.exports("callHelper").imports("helper");
  pi_program Input = createProgram(CallerImage);
  ASSERT_NE(Input, nullptr);
  ASSERT_EQ(
      api().piProgramCompile(Input, 1, &Device, nullptr, 0, nullptr, nullptr, nullptr, nullptr),
      PI_SUCCESS)
      << lastError();
  pi_program Linked = nullptr;
  EXPECT_EQ(api().piProgramLink(Context, 1, &Device, nullptr, 1, &Input, nullptr, nullptr, &Linked),
            PI_ERROR_LINK_PROGRAM_FAILURE);
  EXPECT_NE(lastError().find("helper"), std::string::npos) << lastError();
  ASSERT_NE(Linked, nullptr);
  EXPECT_NE(buildLog(Linked, Device).find("unresolved symbol helper"), std::string::npos)
      << buildLog(Linked, Device);
  pi_program_build_status Status = PI_PROGRAM_BUILD_STATUS_NONE;
  ASSERT_EQ(api().piProgramGetBuildInfo(Linked, Device, PI_PROGRAM_BUILD_INFO_STATUS,
                                        sizeof(Status), &Status, nullptr),
            PI_SUCCESS);
  EXPECT_EQ(Status, PI_PROGRAM_BUILD_STATUS_ERROR);
  pi_kernel Kernel = nullptr;
  EXPECT_EQ(api().piKernelCreate(Linked, "callHelper", &Kernel),
            PI_ERROR_INVALID_PROGRAM_EXECUTABLE);
  EXPECT_EQ(api().piProgramRelease(Linked), PI_SUCCESS);
  EXPECT_EQ(api().piProgramRelease(Input), PI_SUCCESS);
}

TEST_F(OpenClAdapter, DriverLinkFailureStillReturnsAProgramWithALog) {
  // Without symbol tables dglink cannot see the missing symbol: the driver's link fails.
  Ir Form = Ir::Spir;
  if (!anyLinkedIr(Form))
    GTEST_SKIP() << "the device advertises no link format";
  TestImage CallerImage(deviceCode("caller", Form), binaryFormat(Form));
  pi_program Input = createProgram(CallerImage);
  ASSERT_NE(Input, nullptr);
  ASSERT_EQ(
      api().piProgramCompile(Input, 1, &Device, nullptr, 0, nullptr, nullptr, nullptr, nullptr),
      PI_SUCCESS)
      << lastError();
  pi_program Linked = nullptr;
  EXPECT_EQ(api().piProgramLink(Context, 1, &Device, nullptr, 1, &Input, nullptr, nullptr, &Linked),
            PI_ERROR_LINK_PROGRAM_FAILURE)
      << lastError();
  ASSERT_NE(Linked, nullptr);
  EXPECT_NE(buildLog(Linked, Device).find("clLinkProgram"), std::string::npos)
      << buildLog(Linked, Device);
  EXPECT_EQ(api().piProgramRelease(Linked), PI_SUCCESS);
  EXPECT_EQ(api().piProgramRelease(Input), PI_SUCCESS);
}

TEST_F(OpenClAdapter, LinkRefusesWhatItCannotLinkAndNativeBinariesRun) {
  Ir Form = Ir::Spir;
  if (!anyLinkedIr(Form))
    GTEST_SKIP() << "the device advertises no link format";
  TestImage Spir(deviceCode("helper", Form), binaryFormat(Form));
  pi_program Program = createProgram(Spir);
  ASSERT_NE(Program, nullptr);
  pi_program Linked = nullptr;
  EXPECT_EQ(
      api().piProgramLink(Context, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, &Linked),
      PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(
      api().piProgramLink(Context, 0, nullptr, nullptr, 1, &Program, nullptr, nullptr, nullptr),
      PI_ERROR_INVALID_VALUE);
  pi_program WithNull[] = {Program, nullptr};
  EXPECT_EQ(
      api().piProgramLink(Context, 0, nullptr, nullptr, 2, WithNull, nullptr, nullptr, &Linked),
      PI_ERROR_INVALID_PROGRAM);
  // Not compiled yet: the link is refused before the driver sees it.
  EXPECT_EQ(
      api().piProgramLink(Context, 0, nullptr, nullptr, 1, &Program, nullptr, nullptr, &Linked),
      PI_ERROR_INVALID_OPERATION);
  EXPECT_EQ(Linked, nullptr);

  // The driver's own binary of a built program (PoCL: "poclbin", NVIDIA: PTX) is a native
  // program: it builds and runs, but no native link format is advertised on OpenCL.
  TestImage Fill(deviceCode("fill", Form), binaryFormat(Form));
  pi_program Built = createProgram(Fill);
  ASSERT_EQ(api().piProgramBuild(Built, 0, nullptr, nullptr, nullptr, nullptr), PI_SUCCESS);
  size_t Size = 0;
  ASSERT_EQ(
      api().piProgramGetInfo(Built, PI_PROGRAM_INFO_BINARY_SIZES, sizeof(Size), &Size, nullptr),
      PI_SUCCESS)
      << lastError();
  ASSERT_GT(Size, 0u);
  std::vector<unsigned char> DriverBinary(Size);
  unsigned char *Destination = DriverBinary.data();
  ASSERT_EQ(api().piProgramGetInfo(Built, PI_PROGRAM_INFO_BINARIES, sizeof(Destination),
                                   &Destination, nullptr),
            PI_SUCCESS)
      << lastError();
  EXPECT_EQ(api().piProgramRelease(Built), PI_SUCCESS);

  const unsigned char *Binary = DriverBinary.data();
  pi_int32 BinaryStatus = -1;
  pi_program NativeProgram = nullptr;
  ASSERT_EQ(api().piProgramCreateWithBinary(Context, 1, &Device, &Size, &Binary, 0, nullptr,
                                            &BinaryStatus, &NativeProgram),
            PI_SUCCESS)
      << lastError();
  EXPECT_EQ(BinaryStatus, 0);
  pi_device_binary_format Format = PI_DEVICE_BINARY_TYPE_NONE;
  ASSERT_EQ(api().piProgramGetInfo(NativeProgram, PI_EXT_PROGRAM_INFO_FORMAT, sizeof(Format),
                                   &Format, nullptr),
            PI_SUCCESS);
  EXPECT_EQ(Format, PI_DEVICE_BINARY_TYPE_NATIVE);
  pi_program Mixed[] = {Program, NativeProgram};
  EXPECT_EQ(api().piProgramLink(Context, 0, nullptr, nullptr, 2, Mixed, nullptr, nullptr, &Linked),
            PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(lastError().find("formats differ"), std::string::npos) << lastError();
  EXPECT_EQ(api().piProgramCompile(NativeProgram, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr,
                                   nullptr),
            PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(lastError().find("native"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find(deviceString(Device, PI_DEVICE_INFO_NAME)), std::string::npos);

  ASSERT_EQ(api().piProgramBuild(NativeProgram, 0, nullptr, nullptr, nullptr, nullptr), PI_SUCCESS)
      << lastError();
  pi_kernel Kernel = nullptr;
  ASSERT_EQ(api().piKernelCreate(NativeProgram, "fill", &Kernel), PI_SUCCESS) << lastError();
  const int Base = -5;
  ASSERT_EQ(api().piKernelSetArg(Kernel, 1, sizeof(Base), &Base), PI_SUCCESS);
  const std::vector<int> Result = runOnUsm(Kernel, 4);
  EXPECT_EQ(Result[3], Base + 3);
  EXPECT_EQ(api().piKernelRelease(Kernel), PI_SUCCESS);
  EXPECT_EQ(api().piProgramRelease(NativeProgram), PI_SUCCESS);
  EXPECT_EQ(api().piProgramRelease(Program), PI_SUCCESS);
}

TEST_F(OpenClAdapter, UsmCopiesRoundTrip) {
  if (usmMechanism() == PI_USM_MECHANISM_NONE)
    GTEST_SKIP() << "the device has no USM path";
  constexpr size_t Count = 1024;
  void *DeviceMemory = nullptr;
  ASSERT_EQ(
      api().piextUSMDeviceAlloc(&DeviceMemory, Context, Device, nullptr, Count * sizeof(int), 64),
      PI_SUCCESS)
      << lastError();
  std::vector<int> Source(Count), Back(Count, 0);
  for (size_t I = 0; I < Count; ++I)
    Source[I] = static_cast<int>(I * 7);
  pi_event Written = nullptr;
  ASSERT_EQ(api().piextUSMEnqueueMemcpy(Queue, PI_FALSE, DeviceMemory, Source.data(),
                                        Count * sizeof(int), 0, nullptr, &Written),
            PI_SUCCESS)
      << lastError();
  const int Pattern = -1;
  ASSERT_EQ(api().piextUSMEnqueueFill(Queue, static_cast<int *>(DeviceMemory) + 512, &Pattern,
                                      sizeof(Pattern), 512 * sizeof(int), 1, &Written, nullptr),
            PI_SUCCESS)
      << lastError();
  ASSERT_EQ(api().piextUSMEnqueueMemcpy(Queue, PI_TRUE, Back.data(), DeviceMemory,
                                        Count * sizeof(int), 0, nullptr, nullptr),
            PI_SUCCESS)
      << lastError();
  EXPECT_EQ(Back[511], 511 * 7);
  EXPECT_EQ(Back[512], -1);
  EXPECT_EQ(Back[1023], -1);
  EXPECT_EQ(api().piEventRelease(Written), PI_SUCCESS);
  EXPECT_EQ(api().piextUSMFree(Context, DeviceMemory), PI_SUCCESS);
  EXPECT_EQ(api().piextUSMFree(Context, DeviceMemory), PI_ERROR_INVALID_VALUE); // twice
}

TEST_F(OpenClAdapter, PtxBinaryRunsOnNvidiaButIsNotLinkable) {
  char Name[256] = {};
  api().piPlatformGetInfo(Platform, PI_PLATFORM_INFO_NAME, sizeof(Name), Name, nullptr);
  if (std::strstr(Name, "NVIDIA") == nullptr)
    GTEST_SKIP() << "PTX runs only on NVIDIA's OpenCL";
  const std::vector<unsigned char> Ptx = readFile("fill.ptx");
  const unsigned char *Binary = Ptx.data();
  const size_t Size = Ptx.size();
  pi_program Program = nullptr;
  ASSERT_EQ(api().piProgramCreateWithBinary(Context, 1, &Device, &Size, &Binary, 0, nullptr,
                                            nullptr, &Program),
            PI_SUCCESS)
      << lastError();
  EXPECT_EQ(
      api().piProgramCompile(Program, 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr),
      PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(lastError().find("PTX"), std::string::npos) << lastError();
  ASSERT_EQ(api().piProgramBuild(Program, 0, nullptr, nullptr, nullptr, nullptr), PI_SUCCESS)
      << lastError() << "\n"
      << buildLog(Program, Device);
  // One kernel per argument kind: NVIDIA's OpenCL 3.0 (CUDA 13.0) rejects a launch with
  // CL_INVALID_KERNEL_ARGS once an argument set by clSetKernelArgSVMPointer is reset to a
  // cl_mem (the other way round works).
  const int Base = 1000;
  for (bool Usm : {true, false}) {
    pi_kernel Kernel = nullptr;
    ASSERT_EQ(api().piKernelCreate(Program, "fill", &Kernel), PI_SUCCESS) << lastError();
    ASSERT_EQ(api().piKernelSetArg(Kernel, 1, sizeof(Base), &Base), PI_SUCCESS);
    const std::vector<int> Result = Usm ? runOnUsm(Kernel, 256) : runOnBuffer(Kernel, 256);
    for (size_t I = 0; I < Result.size(); ++I)
      ASSERT_EQ(Result[I], Base + static_cast<int>(I)) << "element " << I << (Usm ? " (USM)" : "");
    EXPECT_EQ(api().piKernelRelease(Kernel), PI_SUCCESS);
  }
  EXPECT_EQ(api().piProgramRelease(Program), PI_SUCCESS);
}

// DPC++'s JIT path on a device whose driver takes no IL: piProgramCreate with SPIR-V and
// nothing else; the adapter translates it into SPIR bitcode (common/device_code).
TEST_F(OpenClAdapter, SpirVWithoutIlIsTranslatedBuiltAndRun) {
  if (consumes(Ir::SpirV))
    GTEST_SKIP() << "device consumes SPIR-V (CL_DEVICE_IL_VERSION names it)";
  if (!consumes(Ir::Spir))
    GTEST_SKIP() << "device consumes neither SPIR-V nor SPIR (no cl_khr_spir)";
  EXPECT_TRUE(hasWord(deviceString(Device, PI_EXT_DEVICE_INFO_IMAGE_FORMATS), "spirv64"));
  const std::vector<unsigned char> Module = deviceCode("fill", Ir::SpirV);
  for (int Round = 0; Round < 2; ++Round) { // the second reuses the translation
    pi_program Program = nullptr;
    ASSERT_EQ(api().piProgramCreate(Context, Module.data(), Module.size(), &Program), PI_SUCCESS)
        << lastError();
    ASSERT_EQ(api().piProgramBuild(Program, 1, &Device, nullptr, nullptr, nullptr), PI_SUCCESS)
        << lastError();
    pi_device_binary_format Format = PI_DEVICE_BINARY_TYPE_NONE;
    ASSERT_EQ(api().piProgramGetInfo(Program, PI_EXT_PROGRAM_INFO_FORMAT, sizeof(Format), &Format,
                                     nullptr),
              PI_SUCCESS);
    EXPECT_EQ(Format, PI_DEVICE_BINARY_TYPE_SPIRV);
    pi_kernel Kernel = nullptr;
    ASSERT_EQ(api().piKernelCreate(Program, "fill", &Kernel), PI_SUCCESS) << lastError();
    const int Base = 40 + Round;
    ASSERT_EQ(api().piKernelSetArg(Kernel, 1, sizeof(Base), &Base), PI_SUCCESS) << lastError();
    const std::vector<int> Result = runOnBuffer(Kernel, 128);
    for (size_t I = 0; I < Result.size(); ++I)
      ASSERT_EQ(Result[I], Base + static_cast<int>(I)) << "element " << I;
    EXPECT_EQ(api().piKernelRelease(Kernel), PI_SUCCESS);
    EXPECT_EQ(api().piProgramRelease(Program), PI_SUCCESS);
  }
}

// Translated SPIR-V builds and runs, but the device links only what its driver links.
TEST_F(OpenClAdapter, TranslatedSpirVIsNotCompiledForLinking) {
  if (consumes(Ir::SpirV) || !consumes(Ir::Spir))
    GTEST_SKIP() << "device consumes SPIR-V itself, or no SPIR";
  const std::vector<unsigned char> Module = deviceCode("fill", Ir::SpirV);
  pi_program Program = nullptr;
  ASSERT_EQ(api().piProgramCreate(Context, Module.data(), Module.size(), &Program), PI_SUCCESS)
      << lastError();
  EXPECT_EQ(
      api().piProgramCompile(Program, 1, &Device, nullptr, 0, nullptr, nullptr, nullptr, nullptr),
      PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(lastError().find("SPIR-V programs cannot be compiled separately and linked"),
            std::string::npos)
      << lastError();
  EXPECT_FALSE(hasWord(deviceString(Device, PI_EXT_DEVICE_INFO_LINK_FORMATS), "spirv64"));
  EXPECT_FALSE(hasWord(deviceString(Device, PI_DEVICE_INFO_EXTENSIONS), PI_EXT_SPIRV64_LINKING));
  EXPECT_EQ(api().piProgramRelease(Program), PI_SUCCESS);
}

// The first instruction of Module with this opcode (its word index), or 0.
size_t findInstruction(const std::vector<unsigned char> &Module, uint32_t Opcode) {
  for (size_t At = 5; At < Module.size() / 4;) {
    uint32_t Word;
    std::memcpy(&Word, Module.data() + At * 4, 4);
    if ((Word & 0xFFFF) == Opcode)
      return At;
    At += Word >> 16 == 0 ? 1 : Word >> 16;
  }
  return 0;
}

void setWord(std::vector<unsigned char> &Module, size_t Index, uint32_t Value) {
  std::memcpy(Module.data() + Index * 4, &Value, 4);
}

// Modules sound word by word that the translator cannot take: one it refuses by ending
// its process (SPIR-V 1.6, newer than LLVMSPIRVLib 15 reads: it calls exit) and one it
// aborts on (an opcode it does not know: Debian's LLVMSPIRVLib keeps its assertions).
// Both are PI_ERROR_INVALID_BINARY with the translator's reason; the translator runs in
// a child process, and the adapter and this process go on.
TEST_F(OpenClAdapter, SpirVTheTranslatorCannotTakeIsAnInvalidBinary) {
  if (consumes(Ir::SpirV) || !consumes(Ir::Spir))
    GTEST_SKIP() << "device consumes SPIR-V itself, or no SPIR";
  const std::vector<unsigned char> Good = deviceCode("fill", Ir::SpirV);
  std::vector<unsigned char> Newer = Good;
  setWord(Newer, 1, 0x00010600u);
  pi_program Program = nullptr;
  EXPECT_EQ(api().piProgramCreate(Context, Newer.data(), Newer.size(), &Program),
            PI_ERROR_INVALID_BINARY);
  EXPECT_EQ(Program, nullptr);
  const std::string Prefix =
      "piProgramCreate: the SPIR-V module cannot be translated into SPIR 1.2 bitcode (spir64): ";
  EXPECT_EQ(lastError().rfind(Prefix, 0), 0u) << lastError();
  EXPECT_NE(lastError().find("unsupported SPIR-V version number"), std::string::npos)
      << lastError();

  std::vector<unsigned char> Aborting = Good;
  const size_t Source = findInstruction(Aborting, 3); // OpSource becomes opcode 0x7FFF
  ASSERT_NE(Source, 0u);
  uint32_t Word;
  std::memcpy(&Word, Aborting.data() + Source * 4, 4);
  setWord(Aborting, Source, (Word & 0xFFFF0000u) | 0x7FFFu);
  EXPECT_EQ(api().piProgramCreate(Context, Aborting.data(), Aborting.size(), &Program),
            PI_ERROR_INVALID_BINARY);
  EXPECT_EQ(Program, nullptr);
  EXPECT_EQ(lastError().rfind(Prefix, 0), 0u) << lastError();
  EXPECT_NE(lastError().find("the translator (LLVMSPIRVLib) stopped on it with signal 6"),
            std::string::npos)
      << lastError();

  // Nothing was changed: the module itself still builds and runs.
  ASSERT_EQ(api().piProgramCreate(Context, Good.data(), Good.size(), &Program), PI_SUCCESS)
      << lastError();
  ASSERT_EQ(api().piProgramBuild(Program, 1, &Device, nullptr, nullptr, nullptr), PI_SUCCESS)
      << lastError();
  pi_kernel Kernel = nullptr;
  ASSERT_EQ(api().piKernelCreate(Program, "fill", &Kernel), PI_SUCCESS) << lastError();
  const int Base = 5;
  ASSERT_EQ(api().piKernelSetArg(Kernel, 1, sizeof(Base), &Base), PI_SUCCESS) << lastError();
  const std::vector<int> Result = runOnBuffer(Kernel, 16);
  for (size_t I = 0; I < Result.size(); ++I)
    ASSERT_EQ(Result[I], Base + static_cast<int>(I)) << "element " << I;
  EXPECT_EQ(api().piKernelRelease(Kernel), PI_SUCCESS);
  EXPECT_EQ(api().piProgramRelease(Program), PI_SUCCESS);
}

TEST_F(OpenClAdapter, MalformedPropertySetIsAnInvalidBinary) {
  Ir Form = Ir::Spir;
  if (!anyConsumedIr(Form))
    GTEST_SKIP() << "the device consumes neither SPIR nor SPIR-V";
  TestImage Image(deviceCode("fill", Form), binaryFormat(Form));
  Image.malformedDeviceGlobal("counter");
  pi_program Program = nullptr;
  EXPECT_EQ(api().piextProgramCreateWithImage(Context, 1, &Device, Image.get(), &Program),
            PI_ERROR_INVALID_BINARY);
  EXPECT_EQ(Program, nullptr);
  EXPECT_NE(lastError().find("counter"), std::string::npos) << lastError();
}

TEST_F(OpenClAdapter, DeviceGlobalErrorsFollowTheContract) {
  Ir Form = Ir::Spir;
  if (!anyConsumedIr(Form))
    GTEST_SKIP() << "the device consumes neither SPIR nor SPIR-V";
  TestImage Image(deviceCode("fill", Form), binaryFormat(Form));
  Image.deviceGlobal("rw", 16, dglink::HostAccess::ReadWrite)
      .deviceGlobal("ro", 4, dglink::HostAccess::Read)
      .deviceGlobal("hidden", 4, dglink::HostAccess::None);
  pi_program Program = createProgram(Image);
  ASSERT_NE(Program, nullptr);
  int Value[4] = {};
  auto &A = api();
  // Not built yet.
  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableRead(Queue, Program, "rw", PI_TRUE, 4, 0, Value, 0,
                                                   nullptr, nullptr),
            PI_ERROR_INVALID_PROGRAM_EXECUTABLE);
  EXPECT_NE(lastError().find(deviceString(Device, PI_DEVICE_INFO_NAME)), std::string::npos);
  ASSERT_EQ(A.piProgramBuild(Program, 0, nullptr, nullptr, nullptr, nullptr), PI_SUCCESS)
      << lastError();

  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableRead(nullptr, Program, "rw", PI_TRUE, 4, 0, Value, 0,
                                                   nullptr, nullptr),
            PI_ERROR_INVALID_QUEUE);
  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableRead(Queue, nullptr, "rw", PI_TRUE, 4, 0, Value, 0,
                                                   nullptr, nullptr),
            PI_ERROR_INVALID_PROGRAM);
  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableRead(Queue, Program, nullptr, PI_TRUE, 4, 0, Value, 0,
                                                   nullptr, nullptr),
            PI_ERROR_INVALID_VALUE);
  EXPECT_NE(lastError().find("Name"), std::string::npos) << lastError();
  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableWrite(Queue, Program, "rw", PI_TRUE, 4, 0, nullptr, 0,
                                                    nullptr, nullptr),
            PI_ERROR_INVALID_VALUE);
  EXPECT_NE(lastError().find("Src"), std::string::npos) << lastError();
  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableRead(Queue, Program, "rw", PI_TRUE, 4, 0, Value, 1,
                                                   nullptr, nullptr),
            PI_ERROR_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableRead(Queue, Program, "missing", PI_TRUE, 4, 0, Value,
                                                   0, nullptr, nullptr),
            PI_ERROR_INVALID_VALUE);
  EXPECT_NE(lastError().find("missing"), std::string::npos) << lastError();
  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableRead(Queue, Program, "rw", PI_TRUE, 8, 12, Value, 0,
                                                   nullptr, nullptr),
            PI_ERROR_INVALID_VALUE);
  EXPECT_NE(lastError().find("12"), std::string::npos) << lastError();
  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableWrite(Queue, Program, "ro", PI_TRUE, 4, 0, Value, 0,
                                                    nullptr, nullptr),
            PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(lastError().find("ro"), std::string::npos) << lastError();
  EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableRead(Queue, Program, "hidden", PI_TRUE, 4, 0, Value,
                                                   0, nullptr, nullptr),
            PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(lastError().find("none"), std::string::npos) << lastError();

  pi_device_global_mechanism Mechanism = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  ASSERT_EQ(A.piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM, sizeof(Mechanism),
                              &Mechanism, nullptr),
            PI_SUCCESS);
  if (Mechanism == PI_DEVICE_GLOBAL_MECHANISM_NONE) {
    EXPECT_EQ(A.piextEnqueueDeviceGlobalVariableRead(Queue, Program, "rw", PI_TRUE, 16, 0, Value, 0,
                                                     nullptr, nullptr),
              PI_ERROR_INVALID_OPERATION);
    EXPECT_NE(lastError().find("cl_intel_global_variable_access"), std::string::npos)
        << lastError();
  }
  EXPECT_EQ(A.piProgramRelease(Program), PI_SUCCESS);
}

TEST_F(OpenClAdapter, NullAndForeignHandlesGiveTheirInvalidCodes) {
  auto &A = api();
  pi_handle_header Foreign{nullptr}; // a handle of no adapter, or another adapter's
  EXPECT_EQ(A.piDeviceGetInfo(nullptr, PI_DEVICE_INFO_NAME, 0, nullptr, nullptr),
            PI_ERROR_INVALID_DEVICE);
  EXPECT_NE(lastError().find("piDeviceGetInfo"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("Device"), std::string::npos) << lastError();
  EXPECT_EQ(A.piDeviceGetInfo(reinterpret_cast<pi_device>(&Foreign), PI_DEVICE_INFO_NAME, 0,
                              nullptr, nullptr),
            PI_ERROR_INVALID_DEVICE);
  EXPECT_EQ(A.piPlatformGetInfo(nullptr, PI_PLATFORM_INFO_NAME, 0, nullptr, nullptr),
            PI_ERROR_INVALID_PLATFORM);
  pi_queue NewQueue = nullptr;
  EXPECT_EQ(A.piQueueCreate(nullptr, Device, 0, &NewQueue), PI_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(A.piQueueCreate(reinterpret_cast<pi_context>(&Foreign), Device, 0, &NewQueue),
            PI_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(A.piQueueFinish(nullptr), PI_ERROR_INVALID_QUEUE);
  pi_kernel Kernel = nullptr;
  EXPECT_EQ(A.piKernelCreate(nullptr, "fill", &Kernel), PI_ERROR_INVALID_PROGRAM);
  EXPECT_EQ(A.piKernelSetArg(nullptr, 0, 4, &Foreign), PI_ERROR_INVALID_KERNEL);
  size_t N = 1;
  EXPECT_EQ(A.piEnqueueKernelLaunch(nullptr, nullptr, 1, nullptr, &N, nullptr, 0, nullptr, nullptr),
            PI_ERROR_INVALID_QUEUE);
  EXPECT_EQ(A.piEventsWait(1, reinterpret_cast<const pi_event *>(&Kernel)), PI_ERROR_INVALID_EVENT);
  EXPECT_EQ(A.piEventRelease(nullptr), PI_ERROR_INVALID_EVENT);
  EXPECT_EQ(A.piMemRelease(nullptr), PI_ERROR_INVALID_MEM_OBJECT);
  EXPECT_EQ(A.piProgramRelease(nullptr), PI_ERROR_INVALID_PROGRAM);
  EXPECT_EQ(A.piextUSMFree(nullptr, &N), PI_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(A.piextUSMFree(Context, &N), PI_ERROR_INVALID_VALUE); // not an allocation
  pi_event Foreigners[] = {reinterpret_cast<pi_event>(&Foreign)};
  EXPECT_EQ(A.piEnqueueEventsWait(Queue, 1, Foreigners, nullptr), PI_ERROR_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(A.piEnqueueEventsWaitWithBarrier(Queue, 0, Foreigners, nullptr),
            PI_ERROR_INVALID_EVENT_WAIT_LIST);
}

TEST_F(OpenClAdapter, EventsAndBarriersOrderWork) {
  // More events than fit the adapter's inline wait-list array.
  std::vector<pi_event> Markers(20);
  for (pi_event &Marker : Markers)
    ASSERT_EQ(api().piEnqueueEventsWait(Queue, 0, nullptr, &Marker), PI_SUCCESS) << lastError();
  pi_event Barrier = nullptr;
  ASSERT_EQ(api().piEnqueueEventsWaitWithBarrier(Queue, static_cast<pi_uint32>(Markers.size()),
                                                 Markers.data(), &Barrier),
            PI_SUCCESS)
      << lastError();
  ASSERT_EQ(api().piEventsWait(1, &Barrier), PI_SUCCESS) << lastError();
  pi_queue Owner = nullptr;
  ASSERT_EQ(
      api().piEventGetInfo(Barrier, PI_EVENT_INFO_COMMAND_QUEUE, sizeof(Owner), &Owner, nullptr),
      PI_SUCCESS);
  EXPECT_EQ(Owner, Queue);
  for (pi_event Marker : Markers)
    EXPECT_EQ(api().piEventRelease(Marker), PI_SUCCESS);
  EXPECT_EQ(api().piEventRelease(Barrier), PI_SUCCESS);
}

// Copies of pageable memory through the adapter's pinned staging (on by default on
// NVIDIA's OpenCL; DGLINK_OPENCL_STAGING=1 forces it, as the ctest opencl_adapter_staged
// does on PoCL): buffers and USM, sizes around the chunks, odd offsets, blocking and not,
// the source scribbled over as soon as a non-blocking write returns, from many threads on
// one queue and on queues of their own.
class OpenClStaging : public OpenClAdapter {
protected:
  void SetUp() override {
    OpenClAdapter::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    const char *Forced = std::getenv("DGLINK_OPENCL_STAGING");
    if ((Forced == nullptr || std::strcmp(Forced, "1") != 0) &&
        deviceString(Device, PI_DEVICE_INFO_VENDOR).find("NVIDIA") == std::string::npos)
      GTEST_SKIP() << "the device does not stage (DGLINK_OPENCL_STAGING=1 makes it)";
  }

  static std::vector<unsigned char> pattern(size_t Size, unsigned Seed) {
    std::vector<unsigned char> Bytes(Size);
    for (size_t I = 0; I < Size; ++I)
      Bytes[I] = static_cast<unsigned char>((I * 2654435761U + Seed) >> 7);
    return Bytes;
  }

  // Writes Size bytes at Offset of Buffer and reads them back on Q, each blocking or not;
  // "" where they came back as written, else what went wrong. Captured: the caller knows
  // that a non-blocking write stages (staging free for all of it), so it scribbles over
  // the source as soon as the write returns; else it waits for the write's event, as PI
  // asks (a write that finds the staging in use goes to the driver, which may read the
  // source later).
  static std::string roundTrip(pi_queue Q, pi_mem Buffer, size_t Offset, size_t Size,
                               bool BlockingWrite, bool BlockingRead, unsigned Seed,
                               bool Captured) {
    std::vector<unsigned char> Source = pattern(Size, Seed);
    const std::vector<unsigned char> Expected = Source;
    pi_event Written = nullptr;
    if (api().piEnqueueMemBufferWrite(Q, Buffer, BlockingWrite ? PI_TRUE : PI_FALSE, Offset, Size,
                                      Source.data(), 0, nullptr,
                                      BlockingWrite ? nullptr : &Written) != PI_SUCCESS)
      return "write: " + lastError();
    if (Written != nullptr && !Captured && api().piEventsWait(1, &Written) != PI_SUCCESS)
      return "wait: " + lastError();
    std::fill(Source.begin(), Source.end(), 0xEE);
    std::vector<unsigned char> Back(Size, 0x11);
    pi_event Read = nullptr;
    // The read waits for the write's event where there is one (as a runtime would).
    if (api().piEnqueueMemBufferRead(Q, Buffer, BlockingRead ? PI_TRUE : PI_FALSE, Offset, Size,
                                     Back.data(), Written != nullptr ? 1 : 0,
                                     Written != nullptr ? &Written : nullptr,
                                     BlockingRead ? nullptr : &Read) != PI_SUCCESS)
      return "read: " + lastError();
    if (Read != nullptr && api().piEventsWait(1, &Read) != PI_SUCCESS)
      return "wait: " + lastError();
    if (Written != nullptr)
      api().piEventRelease(Written);
    if (Read != nullptr)
      api().piEventRelease(Read);
    if (Back != Expected)
      return "bytes differ (" + std::to_string(Size) + " at " + std::to_string(Offset) + ")";
    return "";
  }
};

TEST_F(OpenClStaging, BuffersOfEverySizeRoundTrip) {
  constexpr size_t Capacity = (size_t{5} << 20) + 4096;
  pi_mem Buffer = nullptr;
  ASSERT_EQ(api().piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, Capacity, nullptr, &Buffer),
            PI_SUCCESS)
      << lastError();
  unsigned Seed = 1;
  for (size_t Size :
       {size_t{4}, size_t{65535}, size_t{65536}, size_t{65536 + 3}, (size_t{1} << 20) - 1,
        size_t{1} << 20, (size_t{3} << 20) + 17, size_t{5} << 20})
    for (size_t Offset : {size_t{0}, size_t{1}, size_t{4093}})
      for (int Mode = 0; Mode < 4; ++Mode)
        EXPECT_EQ(roundTrip(Queue, Buffer, Offset, Size, Mode & 1, Mode & 2, Seed++, true), "")
            << "mode " << Mode;
  EXPECT_EQ(api().piMemRelease(Buffer), PI_SUCCESS);
}

TEST_F(OpenClStaging, ManyThreadsOnOneQueueAndOnTheirOwn) {
  constexpr size_t Threads = 8, Region = (size_t{3} << 19) + 64; // 1.5 MiB and a bit
  pi_mem Buffer = nullptr;
  ASSERT_EQ(
      api().piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, Threads * Region, nullptr, &Buffer),
      PI_SUCCESS)
      << lastError();
  std::vector<pi_queue> Own(Threads, nullptr);
  for (size_t T = 0; T < Threads; T += 2) // odd threads share the fixture's queue
    ASSERT_EQ(api().piQueueCreate(Context, Device, 0, &Own[T]), PI_SUCCESS) << lastError();
  std::vector<std::string> Failures(Threads);
  std::vector<std::thread> Workers;
  for (size_t T = 0; T < Threads; ++T)
    Workers.emplace_back([&, T] {
      const pi_queue Q = Own[T] != nullptr ? Own[T] : Queue;
      for (unsigned Round = 0; Round < 6 && Failures[T].empty(); ++Round)
        Failures[T] = roundTrip(Q, Buffer, T * Region, Region - Round * 4096, Round & 1, Round & 2,
                                static_cast<unsigned>(T * 100 + Round), false);
    });
  for (std::thread &Worker : Workers)
    Worker.join();
  for (size_t T = 0; T < Threads; ++T)
    EXPECT_EQ(Failures[T], "") << "thread " << T;
  for (pi_queue Q : Own)
    if (Q != nullptr) {
      EXPECT_EQ(api().piQueueRelease(Q), PI_SUCCESS);
    }
  EXPECT_EQ(api().piMemRelease(Buffer), PI_SUCCESS);
}

TEST_F(OpenClStaging, UsmCopiesWithPageableMemoryRoundTrip) {
  if (usmMechanism() == PI_USM_MECHANISM_NONE)
    GTEST_SKIP() << "the device has no USM path";
  constexpr size_t Size = (size_t{2} << 20) + 12;
  void *DeviceMemory = nullptr;
  ASSERT_EQ(api().piextUSMDeviceAlloc(&DeviceMemory, Context, Device, nullptr, Size, 64),
            PI_SUCCESS)
      << lastError();
  for (int Mode = 0; Mode < 4; ++Mode) {
    std::vector<unsigned char> Source = pattern(Size, Mode), Back(Size, 0);
    const std::vector<unsigned char> Expected = Source;
    pi_event Written = nullptr, Read = nullptr;
    ASSERT_EQ(api().piextUSMEnqueueMemcpy(Queue, Mode & 1 ? PI_TRUE : PI_FALSE, DeviceMemory,
                                          Source.data(), Size, 0, nullptr, &Written),
              PI_SUCCESS)
        << lastError();
    std::fill(Source.begin(), Source.end(), 0xEE);
    ASSERT_EQ(api().piextUSMEnqueueMemcpy(Queue, Mode & 2 ? PI_TRUE : PI_FALSE, Back.data(),
                                          DeviceMemory, Size, 1, &Written, &Read),
              PI_SUCCESS)
        << lastError();
    ASSERT_EQ(api().piEventsWait(1, &Read), PI_SUCCESS) << lastError();
    pi_int32 Status = -1;
    EXPECT_EQ(api().piEventGetInfo(Read, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status),
                                   &Status, nullptr),
              PI_SUCCESS);
    EXPECT_EQ(Status, PI_EVENT_COMPLETE);
    EXPECT_TRUE(Back == Expected) << "mode " << Mode;
    EXPECT_EQ(api().piEventRelease(Written), PI_SUCCESS);
    EXPECT_EQ(api().piEventRelease(Read), PI_SUCCESS);
  }
  EXPECT_EQ(api().piextUSMFree(Context, DeviceMemory), PI_SUCCESS);
}

// A non-blocking read's event completes only once the caller's memory is filled, and the
// queue's later commands wait for it: a marker after it, waited for, sees the bytes.
TEST_F(OpenClStaging, NonBlockingReadFillsBeforeItsEventAndLaterCommands) {
  constexpr size_t Size = (size_t{4} << 20) + 100;
  pi_mem Buffer = nullptr;
  ASSERT_EQ(api().piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, Size, nullptr, &Buffer),
            PI_SUCCESS)
      << lastError();
  const std::vector<unsigned char> Expected = pattern(Size, 7);
  ASSERT_EQ(api().piEnqueueMemBufferWrite(Queue, Buffer, PI_TRUE, 0, Size, Expected.data(), 0,
                                          nullptr, nullptr),
            PI_SUCCESS)
      << lastError();
  for (int Round = 0; Round < 4; ++Round) {
    std::vector<unsigned char> Back(Size, 0);
    pi_event Read = nullptr, After = nullptr;
    ASSERT_EQ(api().piEnqueueMemBufferRead(Queue, Buffer, PI_FALSE, 0, Size, Back.data(), 0,
                                           nullptr, Round % 2 == 0 ? &Read : nullptr),
              PI_SUCCESS)
        << lastError();
    ASSERT_EQ(api().piEnqueueEventsWait(Queue, 0, nullptr, &After), PI_SUCCESS) << lastError();
    if (Read != nullptr) {
      ASSERT_EQ(api().piEventsWait(1, &Read), PI_SUCCESS) << lastError();
      EXPECT_TRUE(Back == Expected) << "round " << Round << ", after the read's event";
    }
    ASSERT_EQ(api().piEventsWait(1, &After), PI_SUCCESS) << lastError();
    EXPECT_TRUE(Back == Expected) << "round " << Round << ", after a later marker";
    if (Read != nullptr) {
      EXPECT_EQ(api().piEventRelease(Read), PI_SUCCESS);
    }
    EXPECT_EQ(api().piEventRelease(After), PI_SUCCESS);
  }
  EXPECT_EQ(api().piMemRelease(Buffer), PI_SUCCESS);
}

} // namespace
