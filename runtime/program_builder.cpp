// Building collected images: compile + link, or a plain build.
#include "program_builder.h"

#include <algorithm>
#include <string>

namespace dglink::runtime::detail {

namespace {

std::string lastError(const pi_plugin_functions &Table) {
  char *Message = nullptr;
  if (Table.piPluginGetLastError(&Message) >= 0 && Message != nullptr)
    return Message;
  return "";
}

std::string buildLog(const pi_plugin_functions &Table, pi_program Program, pi_device Device) {
  size_t Size = 0;
  if (Program == nullptr ||
      Table.piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr, &Size) !=
          PI_SUCCESS ||
      Size == 0)
    return "";
  std::string Log(Size, '\0');
  if (Table.piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, Size, Log.data(),
                                  nullptr) != PI_SUCCESS)
    return "";
  Log.resize(std::min(Log.size(), Log.find('\0')));
  return Log;
}

// Releases every program it holds when it goes.
struct Programs {
  const pi_plugin_functions &Table;
  std::vector<pi_program> Handles;
  ~Programs() {
    for (pi_program Program : Handles)
      Table.piProgramRelease(Program);
  }
};

Status failure(const pi_plugin_functions &Table, pi_result Code, const std::string &What,
               pi_program Program, pi_device Device) {
  std::string Message = What + " failed (" + std::to_string(Code) + "): " + lastError(Table);
  const std::string Log = buildLog(Table, Program, Device);
  if (!Log.empty())
    Message += "\nbuild log:\n" + Log;
  return {Code, Message};
}

} // namespace

Expected<BuiltHandle> buildProgram(const pi_plugin_functions &Table, pi_context Context,
                                   pi_device Device, const CollectedImages &Images,
                                   const std::string &Options) {
  Programs Inputs{Table, {}};
  const bool Link = Images.Images.size() > 1 || !Images.Images.front()->Info.Imports.empty();
  for (const RegisteredImage *Image : Images.Images) {
    pi_program Program = nullptr;
    if (const pi_result Result =
            Table.piextProgramCreateWithImage(Context, 1, &Device, Image->Binary, &Program);
        Result != PI_SUCCESS)
      return failure(Table, Result, "piextProgramCreateWithImage of " + Image->Info.Name, nullptr,
                     Device);
    Inputs.Handles.push_back(Program);
    if (!Link)
      break;
    if (const pi_result Result = Table.piProgramCompile(Program, 1, &Device, Options.c_str(), 0,
                                                        nullptr, nullptr, nullptr, nullptr);
        Result != PI_SUCCESS)
      return failure(Table, Result, "piProgramCompile of " + Image->Info.Name, Program, Device);
  }
  BuiltHandle Built;
  if (!Link) {
    pi_program Program = Inputs.Handles.front();
    if (const pi_result Result =
            Table.piProgramBuild(Program, 1, &Device, Options.c_str(), nullptr, nullptr);
        Result != PI_SUCCESS)
      return failure(Table, Result, "piProgramBuild of " + Images.Images.front()->Info.Name,
                     Program, Device);
    Inputs.Handles.clear();
    Built.Program = Program;
    return Built;
  }
  pi_program Linked = nullptr;
  const pi_result Result = Table.piProgramLink(Context, 1, &Device, Options.c_str(),
                                               static_cast<pi_uint32>(Inputs.Handles.size()),
                                               Inputs.Handles.data(), nullptr, nullptr, &Linked);
  if (Result != PI_SUCCESS) {
    Status Failed = failure(Table, Result,
                            "piProgramLink of " + std::to_string(Inputs.Handles.size()) + " images",
                            Linked, Device);
    if (Linked != nullptr)
      Table.piProgramRelease(Linked);
    return Failed;
  }
  Built.Program = Linked;
  Built.Linked = true;
  return Built;
}

std::vector<uint8_t> programBinary(const pi_plugin_functions &Table, pi_program Program) {
  size_t Size = 0;
  size_t Returned = 0;
  if (Table.piProgramGetInfo(Program, PI_PROGRAM_INFO_BINARY_SIZES, sizeof(Size), &Size,
                             &Returned) != PI_SUCCESS ||
      Returned != sizeof(Size) || Size == 0)
    return {};
  std::vector<uint8_t> Binary(Size);
  unsigned char *Destination = Binary.data();
  if (Table.piProgramGetInfo(Program, PI_PROGRAM_INFO_BINARIES, sizeof(Destination), &Destination,
                             nullptr) != PI_SUCCESS)
    return {};
  return Binary;
}

Expected<BuiltHandle> buildFromBinary(const pi_plugin_functions &Table, pi_context Context,
                                      pi_device Device, const std::vector<uint8_t> &Binary,
                                      const CollectedImages &Images, const std::string &Options) {
  // The property sets of every image, each property named "<set>/<property>".
  std::vector<std::string> Names;
  std::vector<_pi_device_binary_property_struct> Properties;
  for (const RegisteredImage *Image : Images.Images)
    for (auto *Set = Image->Binary->PropertySetsBegin; Set != Image->Binary->PropertySetsEnd;
         ++Set) {
      if (Set->Name == nullptr || std::string(Set->Name) == PI_PROPERTY_SET_IMPORTED_SYMBOLS)
        continue;
      for (auto *Property = Set->PropertiesBegin; Property != Set->PropertiesEnd; ++Property)
        if (Property->Name != nullptr) {
          Names.push_back(std::string(Set->Name) + "/" + Property->Name);
          Properties.push_back(*Property);
        }
    }
  std::vector<pi_device_binary_property> Metadata;
  for (size_t I = 0; I < Properties.size(); ++I) {
    Properties[I].Name = Names[I].data();
    Metadata.push_back(&Properties[I]);
  }
  const size_t Length = Binary.size();
  const unsigned char *Bytes = Binary.data();
  pi_int32 BinaryStatus = 0;
  pi_program Program = nullptr;
  if (const pi_result Result =
          Table.piProgramCreateWithBinary(Context, 1, &Device, &Length, &Bytes, Metadata.size(),
                                          Metadata.data(), &BinaryStatus, &Program);
      Result != PI_SUCCESS)
    return failure(Table, Result, "piProgramCreateWithBinary of a cached binary", nullptr, Device);
  Programs Owned{Table, {Program}};
  if (const pi_result Result =
          Table.piProgramBuild(Program, 1, &Device, Options.c_str(), nullptr, nullptr);
      Result != PI_SUCCESS)
    return failure(Table, Result, "piProgramBuild of a cached binary", Program, Device);
  Owned.Handles.clear();
  BuiltHandle Built;
  Built.Program = Program;
  return Built;
}

} // namespace dglink::runtime::detail
