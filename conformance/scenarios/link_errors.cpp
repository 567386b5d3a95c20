// What piProgramLink and piKernelCreate answer when linking cannot work: an
// unresolved import or duplicate export (PI_ERROR_LINK_PROGRAM_FAILURE with a
// build log naming the symbol), bad arguments (DESIGN.md's error contract),
// kernels from programs that are not executables, and unknown kernel names.
#include "fixtures.h"

#include <algorithm>

namespace dglink::conformance {
namespace {

class LinkErrors : public LinkTest {
protected:
  // Creates and compiles the images into Inputs (and their raw handles).
  void compileAll(const std::vector<std::string> &Names, std::vector<ProgramHandle> &Inputs,
                  std::vector<pi_program> &Raw) {
    Inputs.resize(Names.size());
    for (size_t I = 0; I < Names.size(); ++I) {
      ASSERT_NO_FATAL_FAILURE(createProgram(Names[I], Format, Inputs[I]));
      ASSERT_NO_FATAL_FAILURE(compileProgram(Inputs[I].get()));
      Raw.push_back(Inputs[I].get());
    }
  }
  pi_result link(const std::vector<pi_program> &Raw, pi_program *Out) {
    return piProgramLink(Context.get(), 1, &Device, "", static_cast<pi_uint32>(Raw.size()),
                         Raw.data(), nullptr, nullptr, Out);
  }
  // The link fails, the message names Symbol, and the returned program's build
  // log names it too.
  void expectLinkFailureNaming(const std::vector<std::string> &Names, const char *Symbol) {
    std::vector<ProgramHandle> Inputs;
    std::vector<pi_program> Raw;
    ASSERT_NO_FATAL_FAILURE(compileAll(Names, Inputs, Raw));
    ProgramHandle Linked;
    EXPECT_PI_ERROR_NAMING(PI_ERROR_LINK_PROGRAM_FAILURE, Symbol, link(Raw, Linked.out()));
    ASSERT_TRUE(Linked) << "a failed link still returns a program that holds the build log";
    const std::string Log = buildLog(Linked.get());
    EXPECT_NE(Log.find(Symbol), std::string::npos) << "build log:\n" << Log;
  }
};
DGLINK_INSTANTIATE_FOR_DEVICES(LinkErrors);

TEST_P(LinkErrors, UnresolvedImport) {
  expectLinkFailureNaming({"unresolved", "link_callee"}, "dglink_missing_symbol");
}

TEST_P(LinkErrors, DuplicateExport) {
  expectLinkFailureNaming({"link_caller", "link_callee", "link_callee"}, "link_callee");
}

// The program a failed link returns holds a log and no code: as a link input it is
// refused by name, never read (it once crashed the CUDA and HIP adapters).
TEST_P(LinkErrors, FailedLinkOutputIsNoLinkInput) {
  std::vector<ProgramHandle> Inputs;
  std::vector<pi_program> Raw;
  ASSERT_NO_FATAL_FAILURE(compileAll({"unresolved", "link_callee"}, Inputs, Raw));
  ProgramHandle Failed;
  EXPECT_PI_ERROR(PI_ERROR_LINK_PROGRAM_FAILURE, link(Raw, Failed.out()));
  ASSERT_TRUE(Failed);
  ProgramHandle Again;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM, "failed link",
                         link({Failed.get(), Raw[1]}, Again.out()));
  EXPECT_FALSE(Again) << "no program on failure";
}

TEST_P(LinkErrors, ZeroInputs) {
  std::vector<ProgramHandle> Inputs;
  std::vector<pi_program> Raw;
  ASSERT_NO_FATAL_FAILURE(compileAll({"link_callee"}, Inputs, Raw));
  ProgramHandle Linked;
  EXPECT_PI_ERROR(
      PI_ERROR_INVALID_VALUE,
      piProgramLink(Context.get(), 1, &Device, "", 0, Raw.data(), nullptr, nullptr, Linked.out()));
  EXPECT_FALSE(Linked) << "no program on failure";
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE, piProgramLink(Context.get(), 1, &Device, "", 0, nullptr,
                                                        nullptr, nullptr, Linked.out()));
}

TEST_P(LinkErrors, NullOutput) {
  std::vector<ProgramHandle> Inputs;
  std::vector<pi_program> Raw;
  ASSERT_NO_FATAL_FAILURE(compileAll({"link_caller", "link_callee"}, Inputs, Raw));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "RetProgram", link(Raw, nullptr));
}

TEST_P(LinkErrors, NullInputList) {
  ProgramHandle Linked;
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "InputPrograms",
      piProgramLink(Context.get(), 1, &Device, "", 2, nullptr, nullptr, nullptr, Linked.out()));
  EXPECT_FALSE(Linked) << "no program on failure";
}

TEST_P(LinkErrors, NullEntry) {
  std::vector<ProgramHandle> Inputs;
  std::vector<pi_program> Raw;
  ASSERT_NO_FATAL_FAILURE(compileAll({"link_caller"}, Inputs, Raw));
  Raw.push_back(nullptr);
  ProgramHandle Linked;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM, "InputPrograms", link(Raw, Linked.out()));
  EXPECT_FALSE(Linked) << "no program on failure";
}

TEST_P(LinkErrors, KernelFromUnlinkedObject) {
  ProgramHandle Object;
  ASSERT_NO_FATAL_FAILURE(createProgram("link_caller", Format, Object));
  ASSERT_NO_FATAL_FAILURE(compileProgram(Object.get()));
  KernelHandle Kernel;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                  piKernelCreate(Object.get(), "link_caller", Kernel.out()));
  EXPECT_FALSE(Kernel) << "no kernel on failure";
}

TEST_P(LinkErrors, KernelFromUnbuiltProgram) {
  ProgramHandle Program;
  ASSERT_NO_FATAL_FAILURE(createProgram("pattern", Format, Program));
  KernelHandle Kernel;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                  piKernelCreate(Program.get(), "fill_pattern", Kernel.out()));
}

TEST_P(LinkErrors, UnknownKernelName) {
  ProgramHandle Program;
  ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Program));
  KernelHandle Kernel;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_KERNEL_NAME,
                  piKernelCreate(Program.get(), "no_such_kernel", Kernel.out()));
  EXPECT_FALSE(Kernel) << "no kernel on failure";
}

// Formats that cannot be mixed in one link are refused, naming them.
TEST_P(LinkErrors, MixedFormats) {
  std::vector<std::string> Usable;
  for (const std::string &Candidate : linkFormats())
    if (hasImages(Candidate))
      Usable.push_back(Candidate);
  if (Usable.empty())
    GTEST_SKIP() << "device links no format the suite has images of";
  if (Usable.size() < 2)
    GTEST_SKIP() << "device links one format (" << Usable.front() << ") only; nothing to mix";
  ProgramHandle Caller, Callee;
  ASSERT_NO_FATAL_FAILURE(createProgram("link_caller", Usable[0], Caller));
  ASSERT_NO_FATAL_FAILURE(compileProgram(Caller.get()));
  ASSERT_NO_FATAL_FAILURE(createProgram("link_callee", Usable[1], Callee));
  ASSERT_NO_FATAL_FAILURE(compileProgram(Callee.get()));
  const pi_program Raw[] = {Caller.get(), Callee.get()};
  ProgramHandle Linked;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_OPERATION, piProgramLink(Context.get(), 1, &Device, "", 2, Raw,
                                                            nullptr, nullptr, Linked.out()));
}

} // namespace
} // namespace dglink::conformance
