// The counting layer of the runtime tests, and where their bundles are.
#include "counting_table.h"

#include "embedded_images.h"

#include <cstdlib>

namespace dglink::runtime::testing {

void PiCallCounts::reset() {
  Creates = 0;
  Compiles = 0;
  Builds = 0;
  Links = 0;
  Releases = 0;
  UsmAllocations = 0;
  UsmFrees = 0;
}

PiCallCounts &piCalls() {
  static PiCallCounts Counts;
  return Counts;
}

namespace {

pi_result countCreate(pi_context Context, pi_uint32 NumDevices, const pi_device *Devices,
                      const _pi_device_binary_struct *Image, pi_program *Program) {
  ++piCalls().Creates;
  return piextProgramCreateWithImage(Context, NumDevices, Devices, Image, Program);
}

pi_result countCompile(pi_program Program, pi_uint32 NumDevices, const pi_device *Devices,
                       const char *Options, pi_uint32 NumHeaders, const pi_program *Headers,
                       const char **HeaderNames, void (*Notify)(pi_program, void *),
                       void *UserData) {
  ++piCalls().Compiles;
  return piProgramCompile(Program, NumDevices, Devices, Options, NumHeaders, Headers, HeaderNames,
                          Notify, UserData);
}

pi_result countBuild(pi_program Program, pi_uint32 NumDevices, const pi_device *Devices,
                     const char *Options, void (*Notify)(pi_program, void *), void *UserData) {
  ++piCalls().Builds;
  return piProgramBuild(Program, NumDevices, Devices, Options, Notify, UserData);
}

pi_result countLink(pi_context Context, pi_uint32 NumDevices, const pi_device *Devices,
                    const char *Options, pi_uint32 NumInputs, const pi_program *Inputs,
                    void (*Notify)(pi_program, void *), void *UserData, pi_program *Program) {
  ++piCalls().Links;
  return piProgramLink(Context, NumDevices, Devices, Options, NumInputs, Inputs, Notify, UserData,
                       Program);
}

pi_result countRelease(pi_program Program) {
  ++piCalls().Releases;
  return piProgramRelease(Program);
}

pi_result countUsmAlloc(void **Result, pi_context Context, pi_device Device,
                        const pi_usm_mem_properties *Properties, size_t Size, pi_uint32 Alignment) {
  const pi_result Made = piextUSMDeviceAlloc(Result, Context, Device, Properties, Size, Alignment);
  if (Made == PI_SUCCESS)
    ++piCalls().UsmAllocations;
  return Made;
}

pi_result countUsmFree(pi_context Context, void *Pointer) {
  ++piCalls().UsmFrees;
  return piextUSMFree(Context, Pointer);
}

} // namespace

const pi_plugin_functions &countingTable() {
  static const pi_plugin_functions Table = [] {
    pi_plugin_functions Functions{};
#define DGLINK_TEST_TABLE_ENTRY(Name, Ret, Params) Functions.Name = &::Name;
    PI_ENTRY_POINTS(DGLINK_TEST_TABLE_ENTRY)
#undef DGLINK_TEST_TABLE_ENTRY
    Functions.piextProgramCreateWithImage = countCreate;
    Functions.piProgramCompile = countCompile;
    Functions.piProgramBuild = countBuild;
    Functions.piProgramLink = countLink;
    Functions.piProgramRelease = countRelease;
    Functions.piextUSMDeviceAlloc = countUsmAlloc;
    Functions.piextUSMFree = countUsmFree;
    return Functions;
  }();
  return Table;
}

std::string testBundlePath(const std::string &Name) {
  // DGLINK_RUNTIME_TEST_BUNDLES: the bundles carried to another host, out of the build tree.
  const char *Moved = std::getenv("DGLINK_RUNTIME_TEST_BUNDLES");
  const std::string Directory =
      Moved != nullptr && *Moved != '\0' ? Moved : DGLINK_RUNTIME_TEST_BUNDLES;
  return Directory + "/" + Name + ".bundle";
}

std::string testBundlesMissingReason() { return DGLINK_RUNTIME_TEST_BUNDLES_MISSING; }

BundleBytes conformanceBundle(const std::string &Name) {
  for (size_t I = 0; I < conformance::NumEmbeddedBundles; ++I)
    if (Name == conformance::EmbeddedBundles[I].Name)
      return {conformance::EmbeddedBundles[I].Bytes, conformance::EmbeddedBundles[I].Size};
  return {};
}

} // namespace dglink::runtime::testing
