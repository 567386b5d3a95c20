// The OpenCL lowering end to end: bundles made at build time by
// `dglink-post-link --lower-device-globals` (lower_counter.cl + lower_user.cl in one
// compile, lower_other.cl in another), run through the dispatch layer on every device
// whose device-global mechanism is "lowered" (the OpenCL adapter: PoCL in CI), and
// refused by every other adapter (the Level Zero test driver in CI, CUDA on a GPU host).
#include <dglink/compiler/bundle.h>
#include <dglink/pi.h>
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

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

std::string formatName(const BundleImage &Image) {
  return Image.Format == PI_DEVICE_BINARY_TYPE_SPIRV ? "spirv64" : Image.Target;
}

bool isLowered(const BundleImage &Image) {
  return Image.findSet(PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE) != nullptr;
}

struct Device {
  pi_device Handle;
  std::string Name, ImageFormats, LinkFormats;
  pi_device_global_mechanism Mechanism;
  bool ExecutesKernels;
};

std::vector<Device> allDevices() {
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
    std::vector<pi_device> Handles(Count);
    EXPECT_EQ(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, Count, Handles.data(), nullptr),
              PI_SUCCESS);
    for (pi_device Handle : Handles) {
      Device D{Handle,
               deviceString(Handle, PI_DEVICE_INFO_NAME),
               deviceString(Handle, PI_EXT_DEVICE_INFO_IMAGE_FORMATS),
               deviceString(Handle, PI_EXT_DEVICE_INFO_LINK_FORMATS),
               PI_DEVICE_GLOBAL_MECHANISM_NONE,
               false};
      pi_bool Executes = PI_FALSE;
      EXPECT_EQ(piDeviceGetInfo(Handle, PI_EXT_DEVICE_INFO_EXECUTES_KERNELS, sizeof(Executes),
                                &Executes, nullptr),
                PI_SUCCESS);
      D.ExecutesKernels = Executes != PI_FALSE;
      EXPECT_EQ(piDeviceGetInfo(Handle, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM,
                                sizeof(D.Mechanism), &D.Mechanism, nullptr),
                PI_SUCCESS);
      Result.push_back(D);
    }
  }
  return Result;
}

// A bundle and its pi_device_binaries view.
struct LoadedBundle {
  Bundle Contents;
  std::unique_ptr<DeviceBinaries> View;

  void load(const char *Path) {
    ASSERT_EQ(readBundleFile(Path, Contents), PI_SUCCESS) << lastErrorMessage();
    View = std::make_unique<DeviceBinaries>(Contents);
  }
  // Image Name, lowered or not, in one of Formats (space-separated); null if none.
  const _pi_device_binary_struct *find(const std::string &Name, const std::string &Formats,
                                       bool Lowered, std::string *Format = nullptr) const {
    for (size_t I = 0; I < Contents.Images.size(); ++I) {
      const BundleImage &Image = Contents.Images[I];
      if (Image.Name == Name && isLowered(Image) == Lowered &&
          hasWord(Formats, formatName(Image))) {
        if (Format != nullptr)
          *Format = formatName(Image);
        return &View->image(I);
      }
    }
    return nullptr;
  }
};

// One device's context and queue, and everything a test makes on them.
class Session {
public:
  explicit Session(const Device &On) : Target(On) {
    EXPECT_EQ(piContextCreate(nullptr, 1, &On.Handle, &Context), PI_SUCCESS);
    EXPECT_EQ(piQueueCreate(Context, On.Handle, 0, &Queue), PI_SUCCESS);
  }
  ~Session() {
    for (pi_kernel Kernel : Kernels)
      piKernelRelease(Kernel);
    for (pi_mem Mem : Buffers)
      piMemRelease(Mem);
    for (pi_program Program : Programs)
      piProgramRelease(Program);
    if (Queue != nullptr)
      piQueueRelease(Queue);
    if (Context != nullptr)
      piContextRelease(Context);
  }
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  pi_program create(const _pi_device_binary_struct *Image) {
    pi_program Program = nullptr;
    EXPECT_NE(Image, nullptr);
    if (Image == nullptr)
      return nullptr;
    EXPECT_EQ(piextProgramCreateWithImage(Context, 1, &Target.Handle, Image, &Program), PI_SUCCESS)
        << lastErrorMessage();
    if (Program != nullptr)
      Programs.push_back(Program);
    return Program;
  }
  pi_program build(const _pi_device_binary_struct *Image) {
    pi_program Program = create(Image);
    if (Program != nullptr) {
      EXPECT_EQ(piProgramBuild(Program, 1, &Target.Handle, "", nullptr, nullptr), PI_SUCCESS)
          << lastErrorMessage();
    }
    return Program;
  }
  pi_program compiled(const _pi_device_binary_struct *Image) {
    pi_program Program = create(Image);
    if (Program != nullptr) {
      EXPECT_EQ(
          piProgramCompile(Program, 1, &Target.Handle, "", 0, nullptr, nullptr, nullptr, nullptr),
          PI_SUCCESS)
          << lastErrorMessage();
    }
    return Program;
  }
  // The link of Inputs; Result gets its code, Out the program (null if none came back).
  pi_result link(std::vector<pi_program> Inputs, pi_program &Out) {
    Out = nullptr;
    const pi_result Result =
        piProgramLink(Context, 1, &Target.Handle, "", static_cast<pi_uint32>(Inputs.size()),
                      Inputs.data(), nullptr, nullptr, &Out);
    if (Out != nullptr)
      Programs.push_back(Out);
    return Result;
  }
  std::string buildLog(pi_program Program) {
    size_t Size = 0;
    if (piProgramGetBuildInfo(Program, Target.Handle, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr,
                              &Size) != PI_SUCCESS)
      return "";
    std::string Log(Size, '\0');
    piProgramGetBuildInfo(Program, Target.Handle, PI_PROGRAM_BUILD_INFO_LOG, Size, Log.data(),
                          nullptr);
    return Log;
  }
  pi_kernel kernel(pi_program Program, const char *Name) {
    pi_kernel Kernel = nullptr;
    EXPECT_EQ(piKernelCreate(Program, Name, &Kernel), PI_SUCCESS) << lastErrorMessage();
    if (Kernel != nullptr)
      Kernels.push_back(Kernel);
    return Kernel;
  }
  pi_mem buffer(size_t Ints) {
    pi_mem Mem = nullptr;
    EXPECT_EQ(
        piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, Ints * sizeof(int32_t), nullptr, &Mem),
        PI_SUCCESS);
    if (Mem != nullptr)
      Buffers.push_back(Mem);
    return Mem;
  }
  void launch(pi_kernel Kernel, size_t Items = 1) {
    ASSERT_NE(Kernel, nullptr);
    ASSERT_EQ(
        piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &Items, nullptr, 0, nullptr, nullptr),
        PI_SUCCESS)
        << lastErrorMessage();
  }
  std::vector<int32_t> readBuffer(pi_mem Mem, size_t Ints) {
    std::vector<int32_t> Values(Ints, -1);
    EXPECT_EQ(piEnqueueMemBufferRead(Queue, Mem, PI_TRUE, 0, Ints * sizeof(int32_t), Values.data(),
                                     0, nullptr, nullptr),
              PI_SUCCESS);
    return Values;
  }
  // Kernel Name of Program, one work-item, a buffer of Ints as argument 0 (and Extra, an
  // int, as argument 1 when given); returns the buffer.
  std::vector<int32_t> run(pi_program Program, const char *Name, size_t Ints,
                           const int32_t *Extra = nullptr) {
    pi_kernel Kernel = kernel(Program, Name);
    pi_mem Mem = buffer(Ints);
    if (Kernel == nullptr || Mem == nullptr)
      return {};
    EXPECT_EQ(piextKernelSetArgMemObj(Kernel, 0, &Mem), PI_SUCCESS) << lastErrorMessage();
    if (Extra != nullptr) {
      EXPECT_EQ(piKernelSetArg(Kernel, 1, sizeof(*Extra), Extra), PI_SUCCESS);
    }
    launch(Kernel);
    return readBuffer(Mem, Ints);
  }
  pi_result write(pi_program Program, const char *Name, int32_t Value, size_t Offset = 0) {
    return piextEnqueueDeviceGlobalVariableWrite(Queue, Program, Name, PI_TRUE, sizeof(Value),
                                                 Offset, &Value, 0, nullptr, nullptr);
  }
  int32_t read(pi_program Program, const char *Name, size_t Offset = 0) {
    int32_t Value = -1;
    EXPECT_EQ(piextEnqueueDeviceGlobalVariableRead(Queue, Program, Name, PI_TRUE, sizeof(Value),
                                                   Offset, &Value, 0, nullptr, nullptr),
              PI_SUCCESS)
        << lastErrorMessage();
    return Value;
  }

  const Device &Target;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;

private:
  std::vector<pi_program> Programs;
  std::vector<pi_kernel> Kernels;
  std::vector<pi_mem> Buffers;
};

class Lowering : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Main.load(DGLINK_LOWERING_BUNDLE));
    ASSERT_NO_FATAL_FAILURE(Other.load(DGLINK_LOWERING_OTHER_BUNDLE));
    for (const Device &D : allDevices())
      if (D.Mechanism == PI_DEVICE_GLOBAL_MECHANISM_LOWERED && D.ExecutesKernels &&
          Main.find("lower_counter", D.ImageFormats, true) != nullptr)
        Targets.push_back(D);
      else
        Others.push_back(D);
  }
  // Skips unless some device runs lowered images.
  bool noTargets() {
    if (!Targets.empty())
      return false;
    std::printf("[  SKIPPED ] no device runs lowered images (none reports the \"lowered\" "
                "device-global mechanism and executes kernels)\n");
    return true;
  }
  const _pi_device_binary_struct *lowered(const char *Name, const Device &Target,
                                          const LoadedBundle &From) {
    return From.find(Name, Target.ImageFormats, true);
  }

  struct LinkInput {
    const LoadedBundle *From;
    const char *Name;
    bool Lowered;
  };
  // For every target that links the formats of all Inputs: a session, and the inputs
  // created and compiled there, handed to Run. Skips (as the test's last statement)
  // when no target links them.
  template <typename Body>
  void forEachLinkingTarget(const std::vector<LinkInput> &Inputs, Body Run) {
    int Tried = 0;
    for (const Device &Target : Targets) {
      std::vector<const _pi_device_binary_struct *> Images;
      for (const LinkInput &Input : Inputs)
        Images.push_back(Input.From->find(Input.Name, Target.LinkFormats, Input.Lowered));
      if (std::find(Images.begin(), Images.end(), nullptr) != Images.end())
        continue;
      SCOPED_TRACE(Target.Name);
      Session S(Target);
      std::vector<pi_program> Compiled;
      for (const _pi_device_binary_struct *Image : Images)
        Compiled.push_back(S.compiled(Image));
      Run(S, Compiled);
      ++Tried;
    }
    if (Tried == 0)
      GTEST_SKIP() << "no device that runs lowered images links their formats";
  }

  LoadedBundle Main, Other;
  std::vector<Device> Targets, Others;
};

#define DGLINK_REQUIRE_TARGETS()                                                                   \
  do {                                                                                             \
    if (noTargets())                                                                               \
      GTEST_SKIP() << "no device runs lowered images";                                             \
  } while (0)

TEST_F(Lowering, BundleHasBothFormsOfEveryImage) {
  for (const char *Name : {"lower_counter", "lower_user", "lower_library"})
    for (const char *Format : {"spir64", "spirv64", "nvptx64"}) {
      EXPECT_NE(Main.find(Name, Format, false), nullptr) << Name << " " << Format;
      EXPECT_NE(Main.find(Name, Format, true), nullptr) << Name << " lowered " << Format;
    }
  ImageMetadata Counter;
  ASSERT_EQ(readImageMetadata(*Main.find("lower_counter", "spir64", true), Counter), PI_SUCCESS)
      << lastErrorMessage();
  ASSERT_TRUE(Counter.Lowered);
  ASSERT_EQ(Counter.Lowered->Variables.size(), 4u);
  EXPECT_EQ(Counter.Lowered->Variables.at("lw_seeded").Initializer.size(), 16u);
  EXPECT_TRUE(Counter.Lowered->Variables.at("lw_counter_uid").Initializer.empty());
  // The exported function that now takes the storage is renamed; the user imports it so.
  EXPECT_EQ(Counter.Exported, std::vector<std::string>{"lw_bump_dglink_dg"});
  ImageMetadata User;
  ASSERT_EQ(readImageMetadata(*Main.find("lower_user", "spir64", true), User), PI_SUCCESS);
  EXPECT_EQ(User.Imported, std::vector<std::string>{"lw_bump_dglink_dg"});
  ASSERT_TRUE(User.Lowered);
  EXPECT_EQ(User.Lowered->Variables.at("lw_counter_uid").Offset,
            Counter.Lowered->Variables.at("lw_counter_uid").Offset);
}

TEST_F(Lowering, HostCopiesAndKernelsShareTheStorage) {
  DGLINK_REQUIRE_TARGETS();
  for (const Device &Target : Targets) {
    SCOPED_TRACE(Target.Name);
    Session S(Target);
    pi_program Program = S.build(lowered("lower_counter", Target, Main));
    ASSERT_NE(Program, nullptr);
    // Initial values: zero, the initializer, the read-only one.
    EXPECT_EQ(S.read(Program, "lw_counter_uid"), 0);
    EXPECT_EQ(S.read(Program, "lw_seeded", 3 * sizeof(int32_t)), 44);
    EXPECT_EQ(S.read(Program, "lw_read_only"), 7);
    // Host writes, a kernel reads and changes, the host reads back.
    ASSERT_EQ(S.write(Program, "lw_counter_uid", 42), PI_SUCCESS) << lastErrorMessage();
    ASSERT_EQ(S.write(Program, "lw_seeded", 99, sizeof(int32_t)), PI_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(S.launch(S.kernel(Program, "lw_increment")));
    EXPECT_EQ(S.run(Program, "lw_read", 6), (std::vector<int32_t>{43, 11, 99, 33, 44, 7}));
    EXPECT_EQ(S.read(Program, "lw_counter_uid"), 43);
    // Host access still applies: the read-only variable refuses a write, unchanged.
    EXPECT_EQ(S.write(Program, "lw_read_only", 1), PI_ERROR_INVALID_OPERATION);
    EXPECT_EQ(S.read(Program, "lw_read_only"), 7);
    // Past the end: refused, nothing written.
    int32_t Two[2] = {1, 2};
    EXPECT_EQ(piextEnqueueDeviceGlobalVariableWrite(S.Queue, Program, "lw_seeded", PI_TRUE,
                                                    sizeof(Two), 3 * sizeof(int32_t), Two, 0,
                                                    nullptr, nullptr),
              PI_ERROR_INVALID_VALUE);
    EXPECT_EQ(S.read(Program, "lw_seeded", 3 * sizeof(int32_t)), 44);
    std::printf("[ lowered  ] device globals in adapter storage on %s\n", Target.Name.c_str());
  }
}

TEST_F(Lowering, StorageArgumentIsHiddenFromTheCaller) {
  DGLINK_REQUIRE_TARGETS();
  for (const Device &Target : Targets) {
    SCOPED_TRACE(Target.Name);
    Session S(Target);
    pi_program Program = S.build(lowered("lower_counter", Target, Main));
    ASSERT_NE(Program, nullptr);
    pi_kernel Fill = S.kernel(Program, "lw_fill");
    ASSERT_NE(Fill, nullptr);
    pi_uint32 NumArgs = 0;
    ASSERT_EQ(piKernelGetInfo(Fill, PI_KERNEL_INFO_NUM_ARGS, sizeof(NumArgs), &NumArgs, nullptr),
              PI_SUCCESS);
    EXPECT_EQ(NumArgs, 2u);
    const int32_t Value = 9;
    EXPECT_EQ(piKernelSetArg(Fill, 2, sizeof(Value), &Value), PI_ERROR_INVALID_ARG_INDEX);
    EXPECT_NE(lastErrorMessage().find("has 2 arguments"), std::string::npos) << lastErrorMessage();
    pi_mem Out = S.buffer(16);
    ASSERT_EQ(piextKernelSetArgMemObj(Fill, 0, &Out), PI_SUCCESS);
    ASSERT_EQ(piKernelSetArg(Fill, 1, sizeof(Value), &Value), PI_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(S.launch(Fill, 16));
    EXPECT_EQ(S.readBuffer(Out, 16), std::vector<int32_t>(16, 9));
  }
}

TEST_F(Lowering, TwoProgramsHaveTheirOwnStorage) {
  DGLINK_REQUIRE_TARGETS();
  for (const Device &Target : Targets) {
    SCOPED_TRACE(Target.Name);
    Session S(Target);
    pi_program First = S.build(lowered("lower_counter", Target, Main));
    pi_program Second = S.build(lowered("lower_counter", Target, Main));
    ASSERT_TRUE(First != nullptr && Second != nullptr);
    ASSERT_EQ(S.write(First, "lw_counter_uid", 5), PI_SUCCESS);
    ASSERT_EQ(S.write(Second, "lw_counter_uid", 50), PI_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(S.launch(S.kernel(First, "lw_increment")));
    EXPECT_EQ(S.read(First, "lw_counter_uid"), 6);
    EXPECT_EQ(S.read(Second, "lw_counter_uid"), 50);
  }
}

TEST_F(Lowering, PointerIntoTheStorageSurvivesLaunches) {
  DGLINK_REQUIRE_TARGETS();
  for (const Device &Target : Targets) {
    SCOPED_TRACE(Target.Name);
    Session S(Target);
    pi_program Program = S.build(lowered("lower_counter", Target, Main));
    ASSERT_NE(Program, nullptr);
    ASSERT_NO_FATAL_FAILURE(S.launch(S.kernel(Program, "lw_keep_address")));
    EXPECT_EQ(S.run(Program, "lw_follow_address", 1), std::vector<int32_t>{33});
    EXPECT_EQ(S.read(Program, "lw_seeded", 2 * sizeof(int32_t)), 133);
  }
}

TEST_F(Lowering, LinkedImagesShareOneStorage) {
  DGLINK_REQUIRE_TARGETS();
  forEachLinkingTarget(
      {{&Main, "lower_counter", true}, {&Main, "lower_user", true}},
      [](Session &S, const std::vector<pi_program> &Inputs) {
        pi_program Program = nullptr;
        ASSERT_EQ(S.link(Inputs, Program), PI_SUCCESS) << lastErrorMessage();
        ASSERT_EQ(S.write(Program, "lw_counter_uid", 10), PI_SUCCESS) << lastErrorMessage();
        // lower_user's kernel calls lower_counter's function, which bumps its variable.
        const int32_t By = 5;
        EXPECT_EQ(S.run(Program, "lw_add_twice", 2, &By), (std::vector<int32_t>{20, 20}));
        ASSERT_NO_FATAL_FAILURE(S.launch(S.kernel(Program, "lw_increment")));
        EXPECT_EQ(S.read(Program, "lw_counter_uid"), 21);
      });
}

TEST_F(Lowering, ImagesOfTwoCompilesDoNotLink) {
  DGLINK_REQUIRE_TARGETS();
  forEachLinkingTarget(
      {{&Main, "lower_counter", true}, {&Other, "lower_other", true}},
      [](Session &S, const std::vector<pi_program> &Inputs) {
        pi_program Program = nullptr;
        EXPECT_EQ(S.link(Inputs, Program), PI_ERROR_LINK_PROGRAM_FAILURE);
        EXPECT_NE(lastErrorMessage().find("overlap in the lowered storage"), std::string::npos)
            << lastErrorMessage();
        ASSERT_NE(Program, nullptr) << "a failed link still returns a program with its build log";
        EXPECT_NE(S.buildLog(Program).find("lw_other"), std::string::npos) << S.buildLog(Program);
      });
}

TEST_F(Lowering, LoweredImageDoesNotLinkWithCodeThatWasNotLowered) {
  DGLINK_REQUIRE_TARGETS();
  forEachLinkingTarget({{&Main, "lower_counter", true}, {&Main, "lower_user", false}},
                       [](Session &S, const std::vector<pi_program> &Inputs) {
                         // The plain lower_user calls lw_bump without the storage; the lowered
                         // lower_counter only has lw_bump_dglink_dg, so the link fails rather than
                         // run wrong code.
                         pi_program Program = nullptr;
                         EXPECT_EQ(S.link(Inputs, Program), PI_ERROR_LINK_PROGRAM_FAILURE);
                         EXPECT_NE(lastErrorMessage().find("lw_bump"), std::string::npos)
                             << lastErrorMessage();
                       });
}

TEST_F(Lowering, KernelsOfAnInputThatWasNotLoweredTakeNoStorage) {
  DGLINK_REQUIRE_TARGETS();
  forEachLinkingTarget(
      {{&Main, "lower_library", true},
       {&Main, "lower_counter", true},
       {&Other, "lower_plain", false}},
      [](Session &S, const std::vector<pi_program> &Inputs) {
        // The library lists no kernels: that must not make the plain kernel take the storage.
        pi_program Program = nullptr;
        ASSERT_EQ(S.link(Inputs, Program), PI_SUCCESS) << lastErrorMessage();
        pi_kernel Fill = S.kernel(Program, "lw_plain_fill");
        ASSERT_NE(Fill, nullptr);
        pi_uint32 NumArgs = 0;
        ASSERT_EQ(
            piKernelGetInfo(Fill, PI_KERNEL_INFO_NUM_ARGS, sizeof(NumArgs), &NumArgs, nullptr),
            PI_SUCCESS);
        EXPECT_EQ(NumArgs, 2u);
        ASSERT_EQ(S.write(Program, "lw_counter_uid", 1234), PI_SUCCESS);
        const int32_t Value = 6;
        EXPECT_EQ(S.run(Program, "lw_plain_fill", 1, &Value), std::vector<int32_t>{7});
        EXPECT_EQ(S.read(Program, "lw_counter_uid"), 1234) << "the plain kernel wrote the storage";
        ASSERT_NO_FATAL_FAILURE(S.launch(S.kernel(Program, "lw_increment")));
        EXPECT_EQ(S.read(Program, "lw_counter_uid"), 1235);
      });
}

// An image that was not lowered, on a device that reaches device globals only through
// the adapter's storage: SPIR-V is lowered by the adapter itself when it makes the
// program (docs/opencl.md), so the variable is there, zero, and a kernel sees what the
// host writes; SPIR bitcode is not, and its copies are refused naming the shim's option.
TEST_F(Lowering, ImageThatWasNotLoweredOnALoweredDevice) {
  DGLINK_REQUIRE_TARGETS();
  for (const Device &Target : Targets) {
    for (const char *Format : {"spir64", "spirv64"}) {
      if (!hasWord(Target.ImageFormats, Format))
        continue;
      SCOPED_TRACE(Target.Name + " " + Format);
      Session S(Target);
      pi_program Program = S.build(Main.find("lower_counter", Format, false));
      ASSERT_NE(Program, nullptr);
      int32_t Value = -1;
      const pi_result Read =
          piextEnqueueDeviceGlobalVariableRead(S.Queue, Program, "lw_counter_uid", PI_TRUE,
                                               sizeof(Value), 0, &Value, 0, nullptr, nullptr);
      if (std::string(Format) == "spir64") {
        EXPECT_EQ(Read, PI_ERROR_INVALID_OPERATION);
        EXPECT_NE(lastErrorMessage().find("--lower-device-globals"), std::string::npos)
            << lastErrorMessage();
        EXPECT_EQ(Value, -1);
        continue;
      }
      ASSERT_EQ(Read, PI_SUCCESS) << lastErrorMessage();
      EXPECT_EQ(Value, 0);
      ASSERT_EQ(S.write(Program, "lw_counter_uid", 41), PI_SUCCESS) << lastErrorMessage();
      ASSERT_NO_FATAL_FAILURE(S.launch(S.kernel(Program, "lw_increment")));
      EXPECT_EQ(S.read(Program, "lw_counter_uid"), 42);
    }
  }
}

TEST_F(Lowering, OtherAdaptersRefuseLoweredImages) {
  int Tried = 0;
  for (const Device &Target : Others) {
    std::string Format;
    const _pi_device_binary_struct *Image =
        Main.find("lower_counter", Target.ImageFormats, true, &Format);
    if (Image == nullptr || Target.Mechanism == PI_DEVICE_GLOBAL_MECHANISM_LOWERED)
      continue;
    SCOPED_TRACE(Target.Name + " " + Format);
    pi_context Context = nullptr;
    ASSERT_EQ(piContextCreate(nullptr, 1, &Target.Handle, &Context), PI_SUCCESS);
    pi_program Program = nullptr;
    EXPECT_EQ(piextProgramCreateWithImage(Context, 1, &Target.Handle, Image, &Program),
              PI_ERROR_INVALID_OPERATION);
    EXPECT_NE(lastErrorMessage().find("lowered"), std::string::npos) << lastErrorMessage();
    EXPECT_EQ(Program, nullptr);
    piContextRelease(Context);
    ++Tried;
  }
  if (Tried == 0)
    GTEST_SKIP() << "every device found runs lowered images (or builds none of their formats)";
}

} // namespace
} // namespace dglink
